//! The PPO collector: samples actions from policy outputs, steps the pool, records a
//! time-major rollout and computes GAE.
//!
//! The policy network lives in the caller (Python); each step the caller hands in the policy
//! outputs and values for the current observations, and the collector does the rest in Rust:
//! sampling from seeded per-game streams, stepping every game in parallel, weighting the
//! game's reward events, episode bookkeeping, and finally advantages and returns.

use rand::{RngExt, SeedableRng};
use rand_distr::{Beta, Distribution, StandardNormal};
use rand_pcg::Pcg64Mcg;

use crate::runtime::job::SlotResult;
use crate::runtime::pool::{AutoresetMode, Pool, PoolSpec};
use crate::sim::env::Action;
use crate::support::error::{Error, Result};

/// Discrete CarRacing actions.
pub const DISCRETE_ACTIONS: usize = 5;
/// Continuous CarRacing action dimension (steer, gas, brake).
pub const ACTION_DIM: usize = 3;
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_7;
/// The Gaussian's `log_std` must lie within `[-LOG_STD_BOUND, LOG_STD_BOUND]`: beyond it the
/// sampled action or its log-density leaves f32's range (e^88 overflows), and no sane policy
/// gets near it (SB3 and CleanRL-style policies keep log_std around [-20, 2]).
pub const LOG_STD_BOUND: f32 = 20.0;
/// A Beta policy's concentrations (alpha, beta) must lie within
/// `[BETA_CONCENTRATION_MIN, BETA_CONCENTRATION_MAX]`: below it nearly every sample sits at an
/// end of the box, above it the distribution is narrower than float32 can store an action.
pub const BETA_CONCENTRATION_MIN: f32 = 1e-3;
pub const BETA_CONCENTRATION_MAX: f32 = 1e6;
/// A Beta sample `x` in (0, 1) is kept within `[BETA_EDGE, 1 - BETA_EDGE]`, so the stored action
/// lies strictly inside the box and its log-density is finite whatever the concentrations.
/// Fraction of the box width; for `alpha >= 1` the mass moved at the lower end is at most about
/// `beta * 1e-6` (symmetrically at the upper end), so the behaviour density is the Beta's.
pub const BETA_EDGE: f64 = 1e-6;
/// The continuous action box, per dimension (steer, gas, brake): lower bound and width.
pub const ACTION_LOW: [f64; ACTION_DIM] = [-1.0, 0.0, 0.0];
pub const ACTION_WIDTH: [f64; ACTION_DIM] = [2.0, 1.0, 1.0];

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

/// How policy outputs turn into actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyKind {
    /// Logits over `Discrete(5)`; a categorical sample.
    Categorical,
    /// `[mean; 3]` then `[log_std; 3]`; a diagonal Gaussian sample, clipped only for the env.
    Gaussian,
    /// `[alpha; 3]` then `[beta; 3]`; per dimension a `Beta(alpha, beta)` sample on (0, 1),
    /// mapped affinely onto the action's box (steer [-1, 1], gas and brake [0, 1]).
    Beta,
}

impl PolicyKind {
    /// Numbers the policy outputs per game.
    pub fn outputs(self) -> usize {
        match self {
            PolicyKind::Categorical => DISCRETE_ACTIONS,
            PolicyKind::Gaussian | PolicyKind::Beta => 2 * ACTION_DIM,
        }
    }

    /// Numbers stored per game for its action.
    pub fn action_len(self) -> usize {
        match self {
            PolicyKind::Categorical => 1,
            PolicyKind::Gaussian | PolicyKind::Beta => ACTION_DIM,
        }
    }

    /// Whether the kind draws continuous actions (a continuous game needs one).
    pub fn continuous(self) -> bool {
        self != PolicyKind::Categorical
    }

    /// What the policy outputs per game, for error messages.
    fn describe(self) -> &'static str {
        match self {
            PolicyKind::Categorical => "logits over the 5 discrete actions",
            PolicyKind::Gaussian => "mean[3] then log_std[3] per game",
            PolicyKind::Beta => "alpha[3] then beta[3] per game",
        }
    }
}

/// `ln Γ(x)` for `x > 0`, f64 (libm's `lgamma`: within a few ulp).
fn ln_gamma(x: f64) -> f64 {
    libm::lgamma(x)
}

/// Log-density of `Beta(alpha, beta)` at `x` in (0, 1):
/// `(α-1) ln x + (β-1) ln(1-x) - ln B(α, β)`, with `ln B(α, β) = lnΓ(α) + lnΓ(β) - lnΓ(α+β)`.
pub fn beta_log_density(x: f64, alpha: f64, beta: f64) -> f64 {
    let ln_b = ln_gamma(alpha) + ln_gamma(beta) - ln_gamma(alpha + beta);
    (alpha - 1.0) * x.ln() + (beta - 1.0) * (1.0 - x).ln() - ln_b
}

/// Log-density of a Beta policy's stored action `a` (box coordinates) for dimension `d`: the
/// Beta density of `x = (a - low) / width`, less `ln(width)` (the affine map's Jacobian).
pub fn beta_action_log_density(a: f32, d: usize, alpha: f64, beta: f64) -> f64 {
    let x = (a as f64 - ACTION_LOW[d]) / ACTION_WIDTH[d];
    beta_log_density(x, alpha, beta) - ACTION_WIDTH[d].ln()
}

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
    /// An empty rollout that can hold as much as `previous` without reallocating (batches
    /// usually have one size; growing a ~30 MB observation vector step by step costs copies).
    fn reserving_like(previous: &Rollout) -> Self {
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

/// Generalized advantage estimation over a time-major rollout.
///
/// The chain restarts at every episode end. A terminated step bootstraps from 0, a truncated
/// one from the value of its final observation, the last step from `bootstrap_values`.
#[allow(clippy::too_many_arguments)]
pub fn gae(
    rewards: &[f32],
    values: &[f32],
    terminations: &[bool],
    truncations: &[bool],
    final_values: &[f32],
    bootstrap_values: &[f32],
    games: usize,
    gamma: f64,
    lam: f64,
) -> (Vec<f32>, Vec<f32>) {
    let steps = rewards.len() / games.max(1);
    let mut advantages = vec![0.0f32; rewards.len()];
    let mut returns = vec![0.0f32; rewards.len()];
    for (g, &bootstrap) in bootstrap_values.iter().enumerate().take(games) {
        let mut last = 0.0f64;
        for t in (0..steps).rev() {
            let i = t * games + g;
            let next_value = if terminations[i] {
                0.0
            } else if truncations[i] {
                final_values[i] as f64
            } else if t + 1 == steps {
                bootstrap as f64
            } else {
                values[i + games] as f64
            };
            let episode_goes_on = if terminations[i] || truncations[i] {
                0.0
            } else {
                1.0
            };
            let delta = rewards[i] as f64 + gamma * next_value - values[i] as f64;
            last = delta + gamma * lam * episode_goes_on * last;
            advantages[i] = last as f32;
            returns[i] = (last + values[i] as f64) as f32;
        }
    }
    (advantages, returns)
}

/// Checks one game's policy outputs beyond finiteness: a Gaussian's `log_std` within
/// [`LOG_STD_BOUND`], a Beta's concentrations within [`BETA_CONCENTRATION_MIN`],
/// [`BETA_CONCENTRATION_MAX`].
fn check_policy_row(kind: PolicyKind, out: &[f32], game: usize) -> Result<()> {
    if kind == PolicyKind::Beta {
        let range = BETA_CONCENTRATION_MIN..=BETA_CONCENTRATION_MAX;
        if let Some(i) = out.iter().position(|v| !range.contains(v)) {
            let name = if i < ACTION_DIM { "alpha" } else { "beta" };
            return Err(Error::InvalidArgument(format!(
                "infer returned {name} {} for game {game}, outside the supported \
                 [{BETA_CONCENTRATION_MIN}, {BETA_CONCENTRATION_MAX}]; a Beta policy's \
                 concentrations must be positive (e.g. 1 + softplus(x))",
                out[i]
            )));
        }
    }
    if kind == PolicyKind::Gaussian {
        if let Some(&log_std) = out[ACTION_DIM..]
            .iter()
            .find(|v| !(-LOG_STD_BOUND..=LOG_STD_BOUND).contains(*v))
        {
            return Err(Error::InvalidArgument(format!(
                "infer returned log_std {log_std} for game {game}, outside the supported \
                 [-{LOG_STD_BOUND}, {LOG_STD_BOUND}]; clamp log_std in the policy"
            )));
        }
    }
    Ok(())
}

/// Samples one action from policy outputs; returns (action for the env, stored action
/// values, log-probability).
fn sample(kind: PolicyKind, out: &[f32], rng: &mut Pcg64Mcg) -> (Action, [f32; ACTION_DIM], f32) {
    match kind {
        PolicyKind::Categorical => {
            let max = out.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v)) as f64;
            let sum: f64 = out.iter().map(|&v| (v as f64 - max).exp()).sum();
            let log_z = max + sum.ln();
            let u: f64 = rng.random::<f64>() * sum;
            let mut acc = 0.0;
            let mut choice = out.len() - 1;
            for (k, &v) in out.iter().enumerate() {
                acc += (v as f64 - max).exp();
                if u < acc {
                    choice = k;
                    break;
                }
            }
            let logp = out[choice] as f64 - log_z;
            (
                Action::Discrete(choice as i64),
                [choice as f32, 0.0, 0.0],
                logp as f32,
            )
        }
        PolicyKind::Gaussian => {
            let mut sampled = [0.0f32; ACTION_DIM];
            let mut logp = 0.0f64;
            for d in 0..ACTION_DIM {
                let (mean, log_std) = (out[d] as f64, out[ACTION_DIM + d] as f64);
                let z: f64 = rng.sample(StandardNormal);
                let a = (mean + log_std.exp() * z) as f32;
                sampled[d] = a;
                // Log-density of the stored (f32) action, so a learner recomputes it exactly.
                let zz = (a as f64 - mean) / log_std.exp();
                logp += -0.5 * zz * zz - log_std - LN_SQRT_2PI;
            }
            let env_action = [
                (sampled[0] as f64).clamp(-1.0, 1.0),
                (sampled[1] as f64).clamp(0.0, 1.0),
                (sampled[2] as f64).clamp(0.0, 1.0),
            ];
            (Action::Continuous(env_action), sampled, logp as f32)
        }
        PolicyKind::Beta => {
            let mut sampled = [0.0f32; ACTION_DIM];
            let mut env_action = [0.0f64; ACTION_DIM];
            let mut logp = 0.0f64;
            for d in 0..ACTION_DIM {
                let (alpha, beta) = (out[d] as f64, out[ACTION_DIM + d] as f64);
                // Cheng's exact algorithms (BB, BC); the parameters were checked, so `new`
                // cannot fail: a NaN then fails the finiteness check of the caller instead.
                let x = Beta::new(alpha, beta).map_or(f64::NAN, |b| b.sample(rng));
                let x = x.clamp(BETA_EDGE, 1.0 - BETA_EDGE);
                let a = (ACTION_LOW[d] + ACTION_WIDTH[d] * x) as f32;
                sampled[d] = a;
                env_action[d] = a as f64;
                // Log-density of the stored (f32) action, so a learner recomputes it exactly.
                logp += beta_action_log_density(a, d, alpha, beta);
            }
            (Action::Continuous(env_action), sampled, logp as f32)
        }
    }
}

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
        for (name, w) in [
            ("tile", weights.tile),
            ("step", weights.step),
            ("off_playfield", weights.off_playfield),
            ("off_road", weights.off_road),
            ("skipped_tile", weights.skipped_tile),
        ] {
            if !w.is_finite() {
                return Err(Error::InvalidArgument(format!(
                    "reward weight {name} must be finite, got {w}"
                )));
            }
        }
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
            steps_without_tile: vec![0; n],
            rollout: Rollout {
                games: n,
                ..Rollout::default()
            },
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
        self.rollout = Rollout {
            games: self.games(),
            ..Rollout::default()
        };
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
                res.truncated = true;
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
            self.rollout = Rollout {
                games: self.games(),
                ..Rollout::default()
            };
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
mod tests {
    use super::*;

    #[test]
    fn gae_matches_hand_computation() {
        // One game, three steps; the episode terminates at step 1.
        let rewards = [1.0, 2.0, 3.0];
        let values = [0.5, 0.25, 1.0];
        let terms = [false, true, false];
        let truncs = [false; 3];
        let finals = [f32::NAN; 3];
        let (adv, ret) = gae(
            &rewards,
            &values,
            &terms,
            &truncs,
            &finals,
            &[2.0],
            1,
            0.9,
            0.8,
        );
        let d2 = 3.0 + 0.9 * 2.0 - 1.0;
        let d1 = 2.0 - 0.25; // terminal: no bootstrap, chain cut
        let d0 = 1.0 + 0.9 * 0.25 - 0.5;
        let expect = [d0 + 0.9 * 0.8 * d1, d1, d2];
        for i in 0..3 {
            assert!(
                (adv[i] as f64 - expect[i]).abs() < 1e-6,
                "{i}: {} vs {}",
                adv[i],
                expect[i]
            );
            assert!((ret[i] - (adv[i] + values[i])).abs() < 1e-6);
        }
    }

    #[test]
    fn truncation_bootstraps_from_the_final_value() {
        let (adv, _) = gae(
            &[1.0, 1.0],
            &[0.0, 0.0],
            &[false; 2],
            &[true, false],
            &[5.0, f32::NAN],
            &[0.0],
            1,
            0.5,
            1.0,
        );
        assert!((adv[0] - (1.0 + 0.5 * 5.0)).abs() < 1e-6);
    }

    /// `num_envs` continuous games with tiny grayscale frames.
    fn tiny_spec(num_envs: usize, max_episode_steps: Option<u32>) -> PoolSpec {
        PoolSpec {
            num_envs,
            config: crate::sim::env::Config::default(),
            max_episode_steps,
            autoreset: AutoresetMode::SameStep,
            frame_skip: 1,
            stack_num: 1,
            grayscale: true,
            width: 16,
            height: 16,
            channels_first: false,
        }
    }

    fn two_games(max_episode_steps: Option<u32>) -> (Collector, Vec<u8>) {
        let spec = tiny_spec(2, max_episode_steps);
        let entropy = vec![vec![1], vec![2]];
        let mut c = Collector::new(
            spec,
            1,
            &entropy,
            7,
            RewardWeights::GYMNASIUM,
            PolicyKind::Gaussian,
        )
        .unwrap();
        let mut obs = vec![0u8; 2 * c.obs_bytes()];
        c.reset(&[Some(vec![0]), Some(vec![1])], &mut obs).unwrap();
        (c, obs)
    }

    const GAS: [f32; 12] = [
        0.0, 0.5, 0.0, -1.0, -1.0, -1.0, 0.0, 0.5, 0.0, -1.0, -1.0, -1.0,
    ];

    fn rollout_lengths(c: &Collector) -> [usize; 6] {
        let r = &c.rollout;
        [
            r.values.len(),
            r.actions_f32.len(),
            r.behavior_log_probs.len(),
            r.rewards.len(),
            r.obs.len(),
            r.steps,
        ]
    }

    /// Both games stand still: no gas, full brake (Gaussian means; the noise is tiny).
    const STAND: [f32; 12] = [
        0.0, -1.0, 1.0, -9.0, -9.0, -9.0, 0.0, -1.0, 1.0, -9.0, -9.0, -9.0,
    ];

    #[test]
    fn a_game_without_a_new_tile_for_the_limit_is_cut_and_restarts() {
        let (mut c, mut obs) = two_games(None);
        c.cut_without_progress(Some(5)).unwrap();
        for round in 0..2 {
            for step in 0..4 {
                let cut = c.step(&STAND, &[0.0, 0.0], &mut obs).unwrap();
                assert!(cut.is_empty(), "round {round}, step {step}: cut {cut:?}");
            }
            let cut = c.step(&STAND, &[0.0, 0.0], &mut obs).unwrap();
            assert_eq!(
                cut,
                vec![0, 1],
                "the fifth step without a new tile cuts both"
            );
            let b = c.obs_bytes();
            assert_ne!(
                c.final_obs(0),
                &obs[..b],
                "game 0 restarted: a new first frame"
            );
            assert_ne!(c.final_obs(1), &obs[b..], "game 1 restarted");
            c.set_final_values(&cut, &[3.0, 4.0]).unwrap();
        }
        let r = &c.rollout;
        let cut_rows: Vec<usize> = (0..r.truncations.len())
            .filter(|&i| r.truncations[i])
            .collect();
        assert_eq!(cut_rows, vec![8, 9, 18, 19], "steps 4 and 9 of both games");
        assert!(r.terminations.iter().all(|&t| !t));
        assert_eq!(r.episode_lengths, vec![5, 5, 5, 5]);
        let batch = c.finish(&[0.0, 0.0], 0.99, 0.95).unwrap();
        assert_eq!(batch.final_values[8], 3.0);
        assert_eq!(batch.final_values[19], 4.0);
    }

    #[test]
    fn a_game_that_keeps_finding_tiles_is_not_cut() {
        let (mut c, mut obs) = two_games(None);
        c.cut_without_progress(Some(40)).unwrap();
        for step in 0..150 {
            let cut = c.step(&GAS, &[0.0, 0.0], &mut obs).unwrap();
            assert!(cut.is_empty(), "step {step}: cut {cut:?}");
        }
        assert!(c.rollout.episode_lengths.is_empty(), "no episode ended");
    }

    #[test]
    fn no_cut_unless_asked_and_zero_steps_is_refused() {
        let (mut c, mut obs) = two_games(None);
        for _ in 0..50 {
            assert!(c.step(&STAND, &[0.0, 0.0], &mut obs).unwrap().is_empty());
        }
        let err = c.cut_without_progress(Some(0)).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.contains("at least 1")),
            "{err:?}"
        );
        c.cut_without_progress(None).unwrap();
    }

    #[test]
    fn a_refused_sample_leaves_the_rollout_as_it_was() {
        let (mut c, mut obs) = two_games(None);
        c.step(&GAS, &[0.0, 0.0], &mut obs).unwrap();
        let before = rollout_lengths(&c);
        let before_obs = obs.clone();
        for bad in [90.0f32, -25.0] {
            let mut policy = GAS;
            policy[10] = bad; // game 1's second log_std
            let err = c.step(&policy, &[0.0, 0.0], &mut obs).unwrap_err();
            assert!(
                matches!(&err, Error::InvalidArgument(m) if m.contains("log_std") && m.contains("game 1")),
                "{err:?}"
            );
            assert_eq!(rollout_lengths(&c), before);
            assert_eq!(obs, before_obs, "no game stepped");
        }
        c.step(&GAS, &[0.0, 0.0], &mut obs).unwrap();
        let batch = c.finish(&[0.0, 0.0], 0.99, 0.95).unwrap();
        assert_eq!(batch.steps, 2);
        assert!(batch.behavior_log_probs.iter().all(|v| v.is_finite()));
        assert!(batch.actions_f32.iter().all(|v| v.is_finite()));
    }

    #[test]
    fn a_refused_step_leaves_every_sampling_stream_where_it_was() {
        // Two collectors on the same seeds; one is handed a refused call in between, whose
        // game 1 has a log_std out of bounds: game 0's stream must not have advanced either.
        let actions = |refuse: bool| {
            let (mut c, mut obs) = two_games(None);
            c.step(&GAS, &[0.0, 0.0], &mut obs).unwrap();
            if refuse {
                let mut bad_log_std = GAS;
                bad_log_std[10] = 90.0;
                assert!(c.step(&bad_log_std, &[0.0, 0.0], &mut obs).is_err());
            }
            for _ in 0..3 {
                c.step(&GAS, &[0.0, 0.0], &mut obs).unwrap();
            }
            c.finish(&[0.0, 0.0], 0.99, 0.95).unwrap().actions_f32
        };
        assert_eq!(actions(true), actions(false));
    }

    #[test]
    fn finish_refuses_before_handing_the_rollout_out() {
        let (mut c, mut obs) = two_games(Some(1));
        let truncated = c.step(&GAS, &[0.0, 0.0], &mut obs).unwrap();
        assert_eq!(truncated, vec![0, 1]);
        let before = rollout_lengths(&c);
        assert!(matches!(
            c.finish(&[0.0, 0.0], 0.99, 0.95),
            Err(Error::InvalidState(_))
        ));
        assert_eq!(rollout_lengths(&c), before, "the rollout was kept");
        c.set_final_values(&truncated, &[1.0, 2.0]).unwrap();
        let batch = c.finish(&[0.0, 0.0], 0.99, 0.95).unwrap();
        assert_eq!(
            (batch.steps, batch.final_values.clone()),
            (1, vec![1.0, 2.0])
        );
    }

    #[test]
    fn discarding_starts_the_next_rollout_empty() {
        let (mut c, mut obs) = two_games(None);
        for _ in 0..3 {
            c.step(&GAS, &[0.0, 0.0], &mut obs).unwrap();
        }
        assert_eq!(c.rollout.steps, 3);
        c.discard_partial();
        assert_eq!(rollout_lengths(&c), [0; 6]);
        c.step(&GAS, &[0.0, 0.0], &mut obs).unwrap();
        let batch = c.finish(&[0.0, 0.0], 0.99, 0.95).unwrap();
        assert_eq!(batch.steps, 1);
        assert_eq!(batch.obs.len(), 2 * c.obs_bytes());
    }

    #[test]
    fn gaussian_log_prob_is_the_density_of_the_stored_action() {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let out = [0.1f32, 0.5, 0.2, -1.0, -0.5, 0.0];
        let (action, stored, logp) = sample(PolicyKind::Gaussian, &out, &mut rng);
        let mut expect = 0.0f64;
        for d in 0..3 {
            let std = (out[3 + d] as f64).exp();
            let z = (stored[d] as f64 - out[d] as f64) / std;
            expect += -0.5 * z * z - std.ln() - 0.5 * (2.0 * std::f64::consts::PI).ln();
        }
        assert!((logp as f64 - expect).abs() < 1e-5);
        let Action::Continuous(a) = action else {
            panic!()
        };
        assert!(
            (-1.0..=1.0).contains(&a[0])
                && (0.0..=1.0).contains(&a[1])
                && (0.0..=1.0).contains(&a[2])
        );
    }

    /// Closed-form Beta densities at fixed points (no lgamma involved).
    #[test]
    fn beta_log_density_matches_closed_forms() {
        let pi = std::f64::consts::PI;
        let cases: [(f64, f64, f64, f64); 6] = [
            (1.0, 1.0, 0.3, 1.0),                                // uniform
            (2.0, 2.0, 0.25, 6.0 * 0.25 * 0.75),                 // 6 x (1 - x)
            (2.0, 5.0, 0.1, 30.0 * 0.1 * 0.9f64.powi(4)),        // 30 x (1 - x)^4
            (0.5, 0.5, 0.2, 1.0 / (pi * (0.2f64 * 0.8).sqrt())), // arcsine
            (3.0, 1.0, 0.7, 3.0 * 0.49),                         // 3 x^2
            (1.0, 30.0, 0.01, 30.0 * 0.99f64.powi(29)),          // beta (1 - x)^(beta - 1)
        ];
        for (alpha, beta, x, pdf) in cases {
            let got = beta_log_density(x, alpha, beta);
            assert!(
                (got - pdf.ln()).abs() < 1e-12,
                "Beta({alpha}, {beta}) at {x}: {got} vs {}",
                pdf.ln()
            );
        }
        // Steer's box is [-1, 1]: the density of a = 2x - 1 is half that of x.
        let got = beta_action_log_density(-0.5, 0, 2.0, 2.0);
        assert!(
            (got - (6.0f64 * 0.25 * 0.75 / 2.0).ln()).abs() < 1e-12,
            "{got}"
        );
        let got = beta_action_log_density(0.25, 2, 2.0, 2.0);
        assert!((got - (6.0f64 * 0.25 * 0.75).ln()).abs() < 1e-12, "{got}");
    }

    #[test]
    fn beta_samples_lie_in_the_box_and_carry_their_log_density() {
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        // Steer Beta(2, 2), gas Beta(5, 1.5), brake Beta(1.05, 30); then extreme ones.
        for out in [
            [2.0f32, 5.0, 1.05, 2.0, 1.5, 30.0],
            [1e-3, 1e6, 0.5, 1e-3, 1e-3, 0.5],
        ] {
            let mut sums = [0.0f64; ACTION_DIM];
            let n = 20_000;
            for _ in 0..n {
                let (action, stored, logp) = sample(PolicyKind::Beta, &out, &mut rng);
                let Action::Continuous(a) = action else {
                    panic!()
                };
                let mut expect = 0.0f64;
                for d in 0..ACTION_DIM {
                    let (low, high) = (ACTION_LOW[d], ACTION_LOW[d] + ACTION_WIDTH[d]);
                    let v = stored[d] as f64;
                    assert!(
                        low < v && v < high,
                        "dim {d}: {v} not inside ({low}, {high})"
                    );
                    assert_eq!(a[d], v, "the env gets the stored action");
                    let x = (v - low) / ACTION_WIDTH[d];
                    let (alpha, beta) = (out[d] as f64, out[3 + d] as f64);
                    expect += beta_log_density(x, alpha, beta) - ACTION_WIDTH[d].ln();
                    sums[d] += x;
                }
                assert!(logp.is_finite());
                assert!((logp as f64 - expect).abs() <= 1e-5 * expect.abs().max(1.0));
            }
            if out[0] == 2.0 {
                // Sample means against alpha / (alpha + beta) (std of the mean < 0.0025).
                for d in 0..ACTION_DIM {
                    let (alpha, beta) = (out[d] as f64, out[3 + d] as f64);
                    let mean = sums[d] / n as f64;
                    assert!(
                        (mean - alpha / (alpha + beta)).abs() < 0.01,
                        "dim {d}: {mean}"
                    );
                }
            }
        }
    }

    #[test]
    fn beta_outputs_out_of_range_are_refused_before_any_game_steps() {
        let spec = tiny_spec(1, None);
        let weights = RewardWeights::GYMNASIUM;
        let mut c = Collector::new(spec, 1, &[vec![1]], 7, weights, PolicyKind::Beta).unwrap();
        let mut obs = vec![0u8; c.obs_bytes()];
        c.reset(&[Some(vec![0])], &mut obs).unwrap();
        let good = [2.0f32, 3.0, 1.1, 2.0, 2.0, 20.0];
        c.step(&good, &[0.0], &mut obs).unwrap();
        let before = (rollout_lengths(&c), obs.clone());
        for (i, bad) in [(0, 0.0f32), (4, -1.0), (5, 1e7), (2, 1e-4)] {
            let mut policy = good;
            policy[i] = bad;
            let err = c.step(&policy, &[0.0], &mut obs).unwrap_err();
            let name = if i < 3 { "alpha" } else { "beta" };
            assert!(
                matches!(&err, Error::InvalidArgument(m) if m.contains(name) && m.contains("game 0")),
                "{err:?}"
            );
            assert_eq!(
                (rollout_lengths(&c), obs.clone()),
                before,
                "nothing stepped"
            );
        }
        let mut nan = good;
        nan[1] = f32::NAN;
        assert!(c.step(&nan, &[0.0], &mut obs).is_err());
        assert_eq!(
            (rollout_lengths(&c), obs.clone()),
            before,
            "nothing stepped"
        );
        // A Beta policy needs a continuous game.
        let mut discrete = spec;
        discrete.config.continuous = false;
        let err = Collector::new(discrete, 1, &[vec![1]], 7, weights, PolicyKind::Beta);
        assert!(matches!(err, Err(Error::InvalidArgument(_))));
    }

    #[test]
    fn categorical_samples_follow_the_softmax() {
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let logits = [0.0f32, 1.0, 2.0, -1.0, 0.5];
        let mut counts = [0usize; 5];
        for _ in 0..20000 {
            let (a, _, logp) = sample(PolicyKind::Categorical, &logits, &mut rng);
            let Action::Discrete(k) = a else { panic!() };
            counts[k as usize] += 1;
            let z: f64 = logits.iter().map(|&v| (v as f64).exp()).sum();
            assert!((logp as f64 - (logits[k as usize] as f64 - z.ln())).abs() < 1e-5);
        }
        let z: f64 = logits.iter().map(|&v| (v as f64).exp()).sum();
        for k in 0..5 {
            let p = (logits[k] as f64).exp() / z;
            assert!((counts[k] as f64 / 20000.0 - p).abs() < 0.015, "action {k}");
        }
    }
}
