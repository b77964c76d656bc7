//! The weights of the game's reward events, and the reward of one pool step under them.

use crate::runtime::job::SlotResult;
use crate::support::error::{Error, Result};

/// Weights of the game's reward events (Gymnasium's defaults: 1000, -0.1, -100).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RewardWeights {
    /// Total paid for visiting every tile once (each new tile pays `tile / tiles`).
    pub tile: f64,
    /// Paid every simulation step.
    pub step: f64,
    /// Paid instead of the above on the step the car leaves the playfield.
    pub off_playfield: f64,
    /// Paid per wheel touching no road tile, every simulation step (Gymnasium's: 0).
    pub off_road: f64,
    /// Paid per tile passed without a touch, when the car lands beyond it (Gymnasium's: 0).
    pub skipped_tile: f64,
}

impl RewardWeights {
    /// Gymnasium's CarRacing reward.
    pub const GYMNASIUM: RewardWeights = RewardWeights {
        tile: 1000.0,
        step: -0.1,
        off_playfield: -100.0,
        off_road: 0.0,
        skipped_tile: 0.0,
    };

    /// Refuses a weight that is not finite (it would poison every reward it touches).
    pub fn check(&self) -> Result<()> {
        for (name, w) in [
            ("tile", self.tile),
            ("step", self.step),
            ("off_playfield", self.off_playfield),
            ("off_road", self.off_road),
            ("skipped_tile", self.skipped_tile),
        ] {
            if !w.is_finite() {
                return Err(Error::InvalidArgument(format!(
                    "reward weight {name} must be finite, got {w}"
                )));
            }
        }
        Ok(())
    }

    /// The reward of one pool step from its events.
    pub fn of(&self, r: &SlotResult) -> f64 {
        if r.off_playfield {
            return self.off_playfield;
        }
        let tiles = if r.track_tiles > 0 {
            self.tile * r.new_tiles as f64 / r.track_tiles as f64
        } else {
            0.0
        };
        tiles
            + self.step * r.env_steps as f64
            + self.off_road * r.wheels_off_road as f64
            + self.skipped_tile * r.skipped_tiles as f64
    }
}
