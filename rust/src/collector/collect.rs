//! The collector itself: samples actions from policy outputs, steps the pool, records a
//! time-major rollout, and completes it with GAE.
//!
//! The policy network lives in the caller (Python); each step the caller hands in the policy
//! outputs and values for the current observations, and the collector does the rest in Rust:
//! sampling from seeded per-game streams, stepping every game in parallel, weighting the
//! game's reward events, episode bookkeeping, and finally advantages and returns.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use super::gae::gae;
use super::policy::{check_policy_row, sample, PolicyKind, ACTION_DIM};
use super::reward::RewardWeights;
use super::rollout::Rollout;
use crate::runtime::job::SlotResult;
use crate::runtime::pool::{AutoresetMode, Pool, PoolSpec};
use crate::sim::env::Action;
use crate::support::error::{Error, Result};

/// The collector: a pool of games plus the rollout being recorded.
pub struct Collector {
    pool: Pool,
    kind: PolicyKind,
    weights: RewardWeights,
    rngs: Vec<Pcg64Mcg>,
    /// The streams as they were before the step being taken (restored if it is refused).
    rngs_before: Vec<Pcg64Mcg>,
    results: Vec<SlotResult>,
    actions: Vec<Action>,
    /// This step's samples (stored action, log-probability), checked before being recorded.
    sampled: Vec<([f32; ACTION_DIM], f32)>,
    /// Final observations of the games that ended in the last step.
    final_obs: Vec<u8>,
    /// Running episode return and length per game.
    episode_return: Vec<f64>,
    episode_length: Vec<u32>,
    episode_score: Vec<f64>,
    /// Simulation steps after which an episode without a new tile is cut (None: never).
    progress_limit: Option<u32>,
    /// Whether a progress cut ends the episode as a termination (no bootstrap).
    cut_is_terminal: bool,
    /// Simulation steps since each game's last new tile (or its episode's start).
    steps_without_tile: Vec<u32>,
    rollout: Rollout,
}

impl std::fmt::Debug for Collector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collector")
            .field("pool", &self.pool)
            .field("kind", &self.kind)
            .finish()
    }
}

impl Collector {
    /// `spec.autoreset` is forced to `SameStep`: a finished game restarts at once, and the
    /// rollout keeps its final step.
    /// `kind` must match the game: categorical for a discrete one, Gaussian or Beta for a
    /// continuous one.
    pub fn new(
        mut spec: PoolSpec,
        num_threads: usize,
        entropy: &[Vec<u32>],
        sampling_seed: u64,
        weights: RewardWeights,
        kind: PolicyKind,
    ) -> Result<Self> {
        weights.check()?;
        if kind.continuous() != spec.config.continuous {
            return Err(Error::InvalidArgument(format!(
                "a {kind:?} policy does not fit a {} game",
                if spec.config.continuous {
                    "continuous"
                } else {
                    "discrete"
                }
            )));
        }
        spec.autoreset = AutoresetMode::SameStep;
        let pool = Pool::new(spec, num_threads, entropy)?;
        let n = spec.num_envs;
        // Game g samples from stream g of the seed, independent of thread scheduling.
        let rngs: Vec<Pcg64Mcg> = (0..n)
            .map(|g| {
                Pcg64Mcg::seed_from_u64(
                    sampling_seed ^ (g as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                )
            })
            .collect();
        Ok(Collector {
            pool,
            kind,
            weights,
            rngs_before: rngs.clone(),
            rngs,
            results: vec![SlotResult::default(); n],
            actions: vec![Action::Discrete(0); n],
            sampled: Vec::with_capacity(n),
            final_obs: vec![0; n * spec.obs_bytes()],
            episode_return: vec![0.0; n],
            episode_length: vec![0; n],
            episode_score: vec![0.0; n],
            progress_limit: None,
            cut_is_terminal: false,
            steps_without_tile: vec![0; n],
            rollout: Rollout::empty(n),
        })
    }

    /// Cuts a game's episode once `steps` simulation steps pass without a new tile: a
    /// truncation (GAE bootstraps from the value of its last frame), so that a car stuck off
    /// the road restarts instead of filling the batch until the time limit. Gymnasium has no
    /// such rule: it shapes training episodes only. `None` (the default) never cuts; 0 is
    /// refused.
    pub fn cut_without_progress(&mut self, steps: Option<u32>) -> Result<()> {
        if steps == Some(0) {
            return Err(Error::InvalidArgument(
                "the steps without progress before a cut must be at least 1".into(),
            ));
        }
        self.progress_limit = steps;
        Ok(())
    }

    /// Ends a progress cut as a termination instead: GAE does not bootstrap it, so a stall
    /// is worth only the rewards before the cut and not the value of the frame it stalled
    /// on, which a value function learns to rate as highly as the road ahead.
    pub fn cut_is_terminal(&mut self, terminal: bool) {
        self.cut_is_terminal = terminal;
    }

    pub fn games(&self) -> usize {
        self.pool.spec().num_envs
    }

    /// Threads that step the games, the caller included.
    pub fn num_threads(&self) -> usize {
        self.pool.num_threads()
    }

    pub fn obs_bytes(&self) -> usize {
        self.pool.spec().obs_bytes()
    }

    pub fn kind(&self) -> PolicyKind {
        self.kind
    }

    /// Resets every game (seeded where `seeds[g]` is given) and writes the first observations.
    pub fn reset(&mut self, seeds: &[Option<Vec<u32>>], obs: &mut [u8]) -> Result<()> {
        self.pool.reset(seeds, None, None, obs)?;
        self.episode_return.iter_mut().for_each(|r| *r = 0.0);
        self.episode_length.iter_mut().for_each(|l| *l = 0);
        self.episode_score.iter_mut().for_each(|s| *s = 0.0);
        self.steps_without_tile.iter_mut().for_each(|s| *s = 0);
        self.rollout = Rollout::empty(self.games());
        Ok(())
    }

    /// Checks the caller's policy outputs and values against the contract.
    fn check_outputs(&self, policy: &[f32], values: &[f32]) -> Result<()> {
        let n = self.games();
        let k = self.kind.outputs();
        if policy.len() != n * k {
            return Err(Error::InvalidArgument(format!(
                "infer must return policy outputs of shape ({n}, {k}) ({}), got {} numbers",
                self.kind.describe(),
                policy.len()
            )));
        }
        if values.len() != n {
            return Err(Error::InvalidArgument(format!(
                "infer must return values of shape ({n},), got {} numbers",
                values.len()
            )));
        }
        if let Some(i) = policy.iter().position(|v| !v.is_finite()) {
            return Err(Error::InvalidArgument(format!(
                "infer returned a non-finite policy output for game {} ({})",
                i / k,
                policy[i]
            )));
        }
        if let Some(g) = values.iter().position(|v| !v.is_finite()) {
            return Err(Error::InvalidArgument(format!(
                "infer returned a non-finite value for game {g} ({})",
                values[g]
            )));
        }
        Ok(())
    }

    /// Records step `t` on the observations in `obs`: samples actions from `policy`, steps
    /// every game (writing the next observations into `obs`) and records the transition.
    /// Returns the games whose episode was truncated (their final observation is in
    /// [`Self::final_obs`]; hand its value to [`Self::set_final_values`]).
    pub fn step(&mut self, policy: &[f32], values: &[f32], obs: &mut [u8]) -> Result<Vec<usize>> {
        self.check_outputs(policy, values)?;
        let n = self.games();
        let k = self.kind.outputs();
        // Check every row before sampling any, and sample every game before recording
        // anything: a refused call leaves the rollout and every game's sampling stream exactly
        // as they were (the same seed gives the same actions whatever was refused on the way).
        for g in 0..n {
            check_policy_row(self.kind, &policy[g * k..(g + 1) * k], g)?;
        }
        self.rngs_before.clone_from_slice(&self.rngs);
        let result = self.sample_and_step(policy, values, obs);
        if result.is_err() {
            self.rngs.clone_from_slice(&self.rngs_before);
        }
        result
    }

    /// [`Self::step`] once its rows are checked; on an error the caller rewinds the streams.
    fn sample_and_step(
        &mut self,
        policy: &[f32],
        values: &[f32],
        obs: &mut [u8],
    ) -> Result<Vec<usize>> {
        let n = self.games();
        let k = self.kind.outputs();
        self.sampled.clear();
        for g in 0..n {
            let out = &policy[g * k..(g + 1) * k];
            let (action, stored, logp) = sample(self.kind, out, &mut self.rngs[g]);
            if !(logp.is_finite() && stored.iter().all(|v| v.is_finite())) {
                return Err(Error::InvalidArgument(format!(
                    "infer's outputs for game {g} ({out:?}) give a non-finite action or \
                     log-probability; keep the mean within float32 range"
                )));
            }
            self.actions[g] = action;
            self.sampled.push((stored, logp));
        }
        let r = &mut self.rollout;
        let rows = r.steps * n;
        r.values.extend_from_slice(values);
        for &(stored, logp) in &self.sampled {
            match self.kind {
                PolicyKind::Categorical => r.actions_i64.push(stored[0] as i64),
                PolicyKind::Gaussian | PolicyKind::Beta => r.actions_f32.extend_from_slice(&stored),
            }
            r.behavior_log_probs.push(logp);
        }
        // The pool's workers append this step's observations to the rollout as they go.
        let stepped = self.pool.step_recording(
            &self.actions,
            obs,
            &mut self.final_obs,
            &mut self.results,
            &mut r.obs,
        );
        if let Err(e) = stepped {
            // The step did not happen: drop the half-written row so the rollout stays whole.
            r.values.truncate(rows);
            r.actions_i64.truncate(rows);
            r.actions_f32.truncate(rows * self.kind.action_len());
            r.behavior_log_probs.truncate(rows);
            return Err(e);
        }
        let cut = self.games_to_cut(obs)?;
        let r = &mut self.rollout;
        let mut truncated = Vec::new();
        for (g, res) in self.results.iter_mut().enumerate() {
            if cut[g] {
                if self.cut_is_terminal {
                    res.terminated = true;
                } else {
                    res.truncated = true;
                }
            }
            let reward = self.weights.of(res);
            r.rewards.push(reward as f32);
            r.terminations.push(res.terminated);
            r.truncations.push(res.truncated && !res.terminated);
            r.final_values.push(f32::NAN);
            self.episode_return[g] += reward;
            self.episode_length[g] += 1;
            self.episode_score[g] += RewardWeights::GYMNASIUM.of(res);
            if res.terminated || res.truncated {
                r.episode_returns.push(self.episode_return[g]);
                r.episode_lengths.push(self.episode_length[g]);
                r.episode_scores.push(self.episode_score[g]);
                self.episode_return[g] = 0.0;
                self.episode_length[g] = 0;
                self.episode_score[g] = 0.0;
                if !res.terminated {
                    truncated.push(g);
                }
            }
        }
        r.steps += 1;
        Ok(truncated)
    }

    /// After a step: which games' episodes the progress limit cuts. Their last frame goes
    /// to `final_obs` and they restart (unseeded, continuing their track streams, as an
    /// autoreset does), writing their first frame into `obs`.
    fn games_to_cut(&mut self, obs: &mut [u8]) -> Result<Vec<bool>> {
        let n = self.games();
        let mut cut = vec![false; n];
        let Some(limit) = self.progress_limit else {
            return Ok(cut);
        };
        for (g, res) in self.results.iter().enumerate() {
            let since = &mut self.steps_without_tile[g];
            if res.terminated || res.truncated || res.new_tiles > 0 {
                *since = 0;
            } else {
                *since += res.env_steps;
                if *since >= limit {
                    cut[g] = true;
                    *since = 0;
                }
            }
        }
        if cut.iter().any(|&c| c) {
            let b = self.obs_bytes();
            for g in (0..n).filter(|&g| cut[g]) {
                self.final_obs[g * b..(g + 1) * b].copy_from_slice(&obs[g * b..(g + 1) * b]);
            }
            self.pool.reset(&vec![None; n], Some(&cut), None, obs)?;
        }
        Ok(cut)
    }

    /// Drops the rollout being recorded (a collection that ended early); the games carry on
    /// from where they are, and the next rollout starts empty.
    pub fn discard_partial(&mut self) {
        if self.rollout.steps > 0 || !self.rollout.obs.is_empty() {
            self.rollout = Rollout::empty(self.games());
        }
    }

    /// Final observation of game `g` after its episode ended in the last step.
    pub fn final_obs(&self, g: usize) -> &[u8] {
        let b = self.obs_bytes();
        &self.final_obs[g * b..(g + 1) * b]
    }

    /// Values of the final observations of the games [`Self::step`] reported truncated.
    pub fn set_final_values(&mut self, games: &[usize], values: &[f32]) -> Result<()> {
        if games.len() != values.len() {
            return Err(Error::InvalidArgument(format!(
                "infer must return {} values for the final observations, got {}",
                games.len(),
                values.len()
            )));
        }
        let (n, r) = (self.games(), &mut self.rollout);
        let row = r.steps.checked_sub(1).ok_or_else(|| {
            Error::InvalidState("set_final_values() needs a recorded step".into())
        })?;
        for (&g, &v) in games.iter().zip(values) {
            if g >= n || !v.is_finite() {
                return Err(Error::InvalidArgument(format!(
                    "final value for game {g} must be finite (got {v})"
                )));
            }
            r.final_values[row * n + g] = v;
        }
        Ok(())
    }

    /// Completes the rollout with the values of the current observations and hands it out;
    /// recording starts afresh.
    pub fn finish(&mut self, bootstrap_values: &[f32], gamma: f64, lam: f64) -> Result<Rollout> {
        let n = self.games();
        if bootstrap_values.len() != n || !bootstrap_values.iter().all(|v| v.is_finite()) {
            return Err(Error::InvalidArgument(format!(
                "bootstrap values must be {n} finite numbers"
            )));
        }
        if !(0.0..=1.0).contains(&gamma) || !(0.0..=1.0).contains(&lam) {
            return Err(Error::InvalidArgument(format!(
                "gamma and lam must be within [0, 1], got {gamma} and {lam}"
            )));
        }
        let n_games = n;
        if let Some(i) = self
            .rollout
            .final_values
            .iter()
            .zip(&self.rollout.truncations)
            .position(|(v, &tr)| tr && !v.is_finite())
        {
            return Err(Error::InvalidState(format!(
                "no final value was given for the truncated episode at step {}, game {}",
                i / n_games,
                i % n_games
            )));
        }
        // Checked: hand the rollout out and start the next one with room for as much.
        let next = Rollout::reserving_like(&self.rollout);
        let mut r = std::mem::replace(&mut self.rollout, next);
        r.bootstrap_values = bootstrap_values.to_vec();
        let (adv, ret) = gae(
            &r.rewards,
            &r.values,
            &r.terminations,
            &r.truncations,
            &r.final_values,
            &r.bootstrap_values,
            n,
            gamma,
            lam,
        );
        r.advantages = adv;
        r.returns = ret;
        Ok(r)
    }
}

#[cfg(test)]
mod tests;
