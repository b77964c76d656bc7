//! One finished rollout: what the collector records per step, time-major.

/// One finished rollout, time-major: element `[t][g]` is step `t` of game `g`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rollout {
    pub steps: usize,
    pub games: usize,
    /// `T * games * obs_bytes` observations the actions were taken on.
    pub obs: Vec<u8>,
    /// Sampled actions: `T * games * 3` floats (Gaussian) or `T * games` indices (categorical).
    pub actions_f32: Vec<f32>,
    pub actions_i64: Vec<i64>,
    pub behavior_log_probs: Vec<f32>,
    pub values: Vec<f32>,
    pub rewards: Vec<f32>,
    pub terminations: Vec<bool>,
    pub truncations: Vec<bool>,
    /// Value of the final observation of episodes truncated at `[t][g]` (NaN elsewhere).
    pub final_values: Vec<f32>,
    /// Value of the observation after the last step, per game.
    pub bootstrap_values: Vec<f32>,
    pub advantages: Vec<f32>,
    pub returns: Vec<f32>,
    /// Episodes that ended during this rollout: return and length (agent steps).
    pub episode_returns: Vec<f64>,
    pub episode_lengths: Vec<u32>,
    /// Their returns under Gymnasium's own reward, whatever the weights (the game's score).
    pub episode_scores: Vec<f64>,
}

impl Rollout {
    /// An empty rollout of `games` games.
    pub fn empty(games: usize) -> Self {
        Rollout {
            games,
            ..Rollout::default()
        }
    }

    /// An empty rollout that can hold as much as `previous` without reallocating (batches
    /// usually have one size; growing a ~30 MB observation vector step by step costs copies).
    pub(super) fn reserving_like(previous: &Rollout) -> Self {
        Rollout {
            games: previous.games,
            obs: Vec::with_capacity(previous.obs.len()),
            actions_f32: Vec::with_capacity(previous.actions_f32.len()),
            actions_i64: Vec::with_capacity(previous.actions_i64.len()),
            behavior_log_probs: Vec::with_capacity(previous.behavior_log_probs.len()),
            values: Vec::with_capacity(previous.values.len()),
            rewards: Vec::with_capacity(previous.rewards.len()),
            terminations: Vec::with_capacity(previous.terminations.len()),
            truncations: Vec::with_capacity(previous.truncations.len()),
            final_values: Vec::with_capacity(previous.final_values.len()),
            ..Rollout::default()
        }
    }
}
