//! PPO rollouts collected in Rust: the policy network lives in the caller (Python); each step
//! the caller hands in the policy outputs and values for the current observations, and the
//! collector does the rest: sampling from seeded per-game streams, stepping every game in
//! parallel, weighting the game's reward events, episode bookkeeping, and finally advantages
//! and returns.
//!
//! May use `runtime` (the pool it steps), `sim` and `support`; never `py`.
//! - [`policy`]: the distributions actions are sampled from.
//! - [`reward`]: the weights of the game's reward events.
//! - [`rollout`]: the record of one collection; [`gae`]: its advantages and returns.
//! - `collect`: the [`Collector`] tying them to a pool.

mod collect;
pub mod gae;
pub mod policy;
pub mod reward;
pub mod rollout;

pub use collect::Collector;
pub use policy::PolicyKind;
pub use reward::RewardWeights;
pub use rollout::Rollout;
