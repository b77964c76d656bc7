//! What one CarRacing frame shows, as plain data, and the function that draws it.
//!
//! The environment fills a [`SceneView`] from its state; the renderer never reaches into the
//! simulation. Coordinates are world units (Gymnasium's), colours are 0–255 RGB.

/// A filled quadrilateral of the road layer (a tile or a red/white kerb), in world coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoadPoly {
    pub vertices: [[f64; 2]; 4],
    /// Colour as Gymnasium passes it to `gfxdraw` (`int(c)` of each channel).
    pub color: [u8; 3],
}

/// A skid mark (Gymnasium's `Particle`): a polyline, drawn 2 px wide in video frames only.
#[derive(Debug, Clone, PartialEq)]
pub struct SkidMark {
    pub color: [u8; 3],
    pub points: Vec<[f64; 2]>,
}

/// The car's drawable geometry, in world coordinates after Box2D's f32 body transforms.
#[derive(Debug, Clone, PartialEq)]
pub struct CarDrawing {
    /// The four hull fixtures (up to 8 vertices each; `hull_counts` says how many are used).
    pub hull: [[[f32; 2]; 8]; 4],
    pub hull_counts: [usize; 4],
    /// The four wheel boxes, front-left, front-right, rear-left, rear-right.
    pub wheels: [[[f32; 2]; 4]; 4],
    /// Wheel rotation phase (radians), which places the grey stripe on each wheel.
    pub wheel_phase: [f64; 4],
    /// Wheel body transforms (position, angle): the stripe is drawn in wheel-local coordinates.
    pub wheel_pose: [([f32; 2], f32); 4],
}

/// The bottom bar's inputs (Gymnasium's `_render_indicators`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Indicators {
    /// |hull linear velocity|, world units per second.
    pub true_speed: f64,
    /// Wheel angular velocities (Gymnasium's `omega`), radians per second.
    pub wheel_omega: [f64; 4],
    /// Front-left steering joint angle, radians.
    pub steer_angle: f64,
    /// Hull angular velocity, radians per second.
    pub hull_angular_velocity: f64,
}

/// Everything a CarRacing frame depends on.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneView<'a> {
    /// Camera target: hull position (world units) and angle (radians), as Box2D's f32.
    pub hull_position: [f32; 2],
    pub hull_angle: f32,
    /// Episode time in seconds (drives the first-second zoom-in).
    pub t: f64,
    pub bg_color: [f64; 3],
    pub grass_color: [f64; 3],
    /// Tiles and kerbs in Gymnasium's draw order.
    pub road: &'a [RoadPoly],
    pub car: &'a CarDrawing,
    pub skid_marks: &'a [SkidMark],
    pub indicators: Indicators,
    /// Accumulated episode reward (the score digits show `f"{reward:04.0f}"`).
    pub reward: f64,
}

/// Draws `view` into `out` (`height` rows of `width` RGB pixels, row-major), as Gymnasium's
/// `_render` would show it after scaling its 1000×800 window surface to `width`×`height`.
/// `with_skid_marks` is false for the 96×96 state frame, as in Gymnasium.
pub fn draw(
    _view: &SceneView<'_>,
    _out: &mut [u8],
    _width: usize,
    _height: usize,
    _with_skid_marks: bool,
) {
    todo!()
}
