//! The machinery that runs many environments: threads, pacing, the pool of sub-envs stepped
//! into one observation batch, and the board of asynchronous work.
//!
//! May use `sim` and `support` (and, through `sim`, `render`); never `collector` or `py`.
//! Lower modules first, each using only those above it in this list:
//! - [`pacing`]: when helper threads join a batch, and stay awake between batches.
//! - [`executor`]: batches of independent jobs on a rayon pool, the calling thread included;
//!   [`append`]: filling a vector's spare capacity from those jobs.
//! - [`job`]: what a sub-env is asked to do and what it reports.
//! - [`flight`]: the board of asynchronous work (EnvPool's `send`/`recv`).
//! - [`pool`]: many envs stepped in parallel into one batch, synchronously or through the
//!   board.

pub mod append;
pub mod executor;
pub mod flight;
pub mod job;
pub mod pacing;
pub mod pool;
