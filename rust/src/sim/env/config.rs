//! How an environment is configured: Gymnasium's constants and keyword arguments, the
//! Gymnasium release reproduced where releases differ, the lap rule, and the world's colours.

use crate::sim::rng::NumpyGenerator;
use crate::sim::scene::{FontFlavor, ScoreFormat, ScoreStyle};
use crate::support::error::{Error, Result};

/// Simulation rate. Steps per second.
pub const FPS: f64 = 50.0;
/// Observation frame size. Pixels.
pub const STATE_W: usize = 96;
pub const STATE_H: usize = 96;
/// `render_mode="rgb_array"` frame size. Pixels.
pub const VIDEO_W: usize = 600;
pub const VIDEO_H: usize = 400;
/// `render_mode="human"` window size. Pixels.
pub const WINDOW_W: usize = 1000;
pub const WINDOW_H: usize = 800;
/// Bytes in one observation frame.
pub const OBS_BYTES: usize = STATE_W * STATE_H * 3;

/// Per-step reward for every newly visited tile is `TILE_REWARD_TOTAL / tiles`.
pub const TILE_REWARD_TOTAL: f64 = 1000.0;
/// Reward added every step (time penalty).
pub const STEP_REWARD: f64 = -0.1;
/// Step reward when the car leaves the playfield (replaces the step's reward).
pub const OFF_PLAYFIELD_REWARD: f64 = -100.0;

/// Constructor options: Gymnasium's keyword arguments, the Gymnasium release to reproduce
/// where releases differ, and the lap-completion rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    pub continuous: bool,
    pub domain_randomize: bool,
    /// Fraction of tiles that must be visited, when a wheel touches the start tile, for the
    /// lap to count. When that touch is checked is `lap_rule`'s business.
    pub lap_complete_percent: f64,
    /// Whose `CarRacing-v3` to draw where Gymnasium releases differ (the score's text).
    pub release: GymnasiumRelease,
    /// When `lap_complete_percent` is checked.
    pub lap_rule: LapRule,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            continuous: true,
            domain_randomize: false,
            lap_complete_percent: 0.95,
            release: GymnasiumRelease::default(),
            lap_rule: LapRule::default(),
        }
    }
}

/// The Gymnasium release line whose `CarRacing-v3` is reproduced. Tracks, physics, rewards and
/// endings are the same in every release from 1.0 to 1.4.0; only the score drawn on the frame
/// differs (its format, and the pygame that rasterises it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GymnasiumRelease {
    /// 1.0 to 1.2.x: `"%04i" % reward`, drawn by pygame.
    V1_2,
    /// 1.3.0: `f"{reward:04}"` (the full float), drawn by pygame-ce.
    V1_3,
    /// 1.4.0: `f"{reward:04.0f}"`, drawn by pygame-ce.
    #[default]
    V1_4,
}

impl GymnasiumRelease {
    /// From the name the binding passes: `"1.2"`, `"1.3"` or `"1.4"`.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "1.2" => Ok(Self::V1_2),
            "1.3" => Ok(Self::V1_3),
            "1.4" => Ok(Self::V1_4),
            _ => Err(Error::InvalidArgument(format!(
                "gymnasium release must be \"1.2\", \"1.3\" or \"1.4\", got {name:?}"
            ))),
        }
    }

    /// How this release draws the score.
    pub fn score_style(self) -> ScoreStyle {
        let (format, font) = match self {
            Self::V1_2 => (ScoreFormat::Truncate, FontFlavor::Pygame),
            Self::V1_3 => (ScoreFormat::Repr, FontFlavor::PygameCe),
            Self::V1_4 => (ScoreFormat::Round, FontFlavor::PygameCe),
        };
        ScoreStyle { format, font }
    }
}

/// When a lap counts as completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LapRule {
    /// Every Gymnasium release to 1.4.0: `lap_complete_percent` is checked only on the first
    /// touch of the start tile, which happens during reset (Gymnasium issue #1269), so with
    /// the default 0.95 only visiting every tile ends the lap.
    #[default]
    FirstVisit,
    /// Gymnasium PR #1670 (open): checked on every wheel contact with the start tile, so
    /// crossing the line with more than `lap_complete_percent` of the tiles visited ends it.
    EveryContact,
}

impl LapRule {
    /// From the name the binding passes: `"first_visit"` or `"every_contact"`.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "first_visit" => Ok(Self::FirstVisit),
            "every_contact" => Ok(Self::EveryContact),
            _ => Err(Error::InvalidArgument(format!(
                "lap_complete_rule must be \"first_visit\" or \"every_contact\", got {name:?}"
            ))),
        }
    }
}

/// Colours of the world, 0–255 per channel (floats, as Gymnasium keeps them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Palette {
    pub road: [f64; 3],
    pub bg: [f64; 3],
    pub grass: [f64; 3],
}

impl Default for Palette {
    fn default() -> Self {
        Palette {
            road: [102.0, 102.0, 102.0],
            bg: [102.0, 204.0, 102.0],
            grass: [102.0, 230.0, 102.0],
        }
    }
}

impl Palette {
    /// Gymnasium's domain-randomised colours: road, background, and the background with one
    /// channel brightened by 20 for the grass squares. Draws 3 + 3 uniforms and one integer.
    pub fn randomized(rng: &mut NumpyGenerator) -> Self {
        let mut draw3 = || [0; 3].map(|_| rng.uniform(0.0, 210.0));
        let road = draw3();
        let bg = draw3();
        let mut grass = bg;
        grass[rng.integers(0, 3) as usize] += 20.0;
        Palette { road, bg, grass }
    }
}
