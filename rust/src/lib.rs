//! reinfors-gym: Gymnasium's CarRacing simulated in Rust.
//!
//! One folder per layer, lowest first; a layer uses only the layers below it (the order is
//! declared once in `tests/test_layering.py`, and drawn in `docs/architecture.md`):
//! - [`support`]: the error type and run-time CPU checks, used by every layer.
//! - [`render`]: a reusable 2-D rasterizer with area-coverage anti-aliasing.
//! - [`sim`]: one environment, Gymnasium's rules bit for bit (NumPy's generator, the track,
//!   Box2D's physics, the car, contacts, the scene it shows, the state machine).
//! - [`runtime`]: many environments stepped by threads into one batch, synchronously or
//!   EnvPool-style (the executor and its pacing, the pool, the board of asynchronous work).
//! - [`collector`]: PPO rollouts on a pool (policy distributions, reward weights, GAE).
//! - `py` (feature `python`): the PyO3 binding.

pub mod collector;
pub mod render;
pub mod runtime;
pub mod sim;
pub mod support;

#[cfg(feature = "python")]
mod py;
