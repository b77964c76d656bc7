//! What a sub-env is asked to do ([`Job`]) and what it reports ([`SlotResult`]): the words
//! the board of work in flight (`flight`) and the pool share, so that neither needs the other.

use crate::sim::env::Action;

/// What a sub-env is asked to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Job {
    Step(Action),
    /// `seed`: entropy words that reseed the generator (`None`: its stream continues).
    Reset {
        seed: Option<Vec<u32>>,
        randomize: Option<bool>,
    },
}

/// What one sub-env reports for one `step`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SlotResult {
    pub reward: f64,
    pub terminated: bool,
    pub truncated: bool,
    /// `info["lap_finished"]` of this step (for `SameStep`, of the finished episode).
    pub lap_finished: Option<bool>,
    /// The sub-env was reset during this call (`NextStep`: instead of stepping;
    /// `SameStep`: after finishing, with the final frame in `final_obs`).
    pub reset: bool,
    /// Tiles first visited during this call, and the track's tile count (reward events).
    pub new_tiles: u32,
    pub track_tiles: u32,
    /// The car left the playfield during this call.
    pub off_playfield: bool,
    /// Wheels on no road tile, summed over the simulation steps of this call.
    pub wheels_off_road: u32,
    /// Tiles passed without a touch during this call (`StepOutcome::skipped_tiles`).
    pub skipped_tiles: u32,
    /// Simulation steps taken during this call (up to `frame_skip`).
    pub env_steps: u32,
}
