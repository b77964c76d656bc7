//! Box2D 2.3's global tuning constants (`b2Settings.h`), evaluated in f32 as the C++ does.

/// `b2_pi` (`3.14159265359f`), which rounds to the same f32 as `std::f32::consts::PI`. Radians.
pub const PI: f32 = std::f32::consts::PI;

/// Collision and constraint tolerance. World units (metres).
pub const LINEAR_SLOP: f32 = 0.005;

/// Angular tolerance: `2 / 180 * pi`, computed left to right in f32. Radians.
pub const ANGULAR_SLOP: f32 = 2.0 / 180.0 * PI;

/// Largest angular position correction per iteration: `8 / 180 * pi`. Radians.
pub const MAX_ANGULAR_CORRECTION: f32 = 8.0 / 180.0 * PI;

/// Largest translation of a body per step (velocity clamp). World units.
pub const MAX_TRANSLATION: f32 = 2.0;
/// [`MAX_TRANSLATION`] squared. World units squared.
pub const MAX_TRANSLATION_SQUARED: f32 = MAX_TRANSLATION * MAX_TRANSLATION;

/// Largest rotation of a body per step: `0.5 * pi`. Radians.
pub const MAX_ROTATION: f32 = 0.5 * PI;
/// [`MAX_ROTATION`] squared. Radians squared.
pub const MAX_ROTATION_SQUARED: f32 = MAX_ROTATION * MAX_ROTATION;

/// Time an island must rest before it falls asleep. Seconds.
pub const TIME_TO_SLEEP: f32 = 0.5;
/// A body slower than this may sleep. World units per second.
pub const LINEAR_SLEEP_TOLERANCE: f32 = 0.01;
/// A body turning slower than this may sleep: `2 / 180 * pi`. Radians per second.
pub const ANGULAR_SLEEP_TOLERANCE: f32 = 2.0 / 180.0 * PI;

/// Largest finite f32 (`b2_maxFloat` = `FLT_MAX`).
pub const MAX_FLOAT: f32 = f32::MAX;
