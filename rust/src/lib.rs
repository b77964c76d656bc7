//! reinfors-gym: Gymnasium's CarRacing simulated in Rust.
//!
//! One module per concern, leaves first:
//! - [`rng`]: NumPy's `Generator(PCG64(SeedSequence(seed)))`, bit for bit, so tracks match Gymnasium's.
//! - [`track`]: procedural track generation (Gymnasium's `_create_track`).
//! - [`physics`]: the subset of Box2D 2.3 the car needs (bodies, revolute joints, island solver), in f32.
//! - [`car`]: the car built from those bodies, and Gymnasium's tyre model (`car_dynamics.py`).
//! - [`contact`]: wheel/hull-versus-tile sensor overlaps, which drive friction, rewards and tile repaint.
//! - [`render`]: a reusable 2-D rasterizer with area-coverage anti-aliasing.
//! - [`scene`]: what a CarRacing frame shows, drawn with [`render`].
//! - [`progress`]: tiles a car passed without touching (a training reward event).
//! - [`env`]: the environment state machine tying them together.
//! - [`cpu`]: run-time CPU feature checks for the loops compiled twice (baseline, AVX2).
//! - [`executor`]: batches of independent jobs on a rayon pool, the calling thread included;
//!   [`pacing`]: when its helpers join and stay awake; [`append`]: filling a vector's spare
//!   capacity from those jobs.
//! - [`pool`]: many envs stepped in parallel into one batch, synchronously or EnvPool-style
//!   ([`flight`]: the board of asynchronous work); [`collector`]: PPO rollouts.
//! - `py` (feature `python`): the PyO3 binding.

pub mod collector;
pub mod render;
pub mod runtime;
pub mod sim;
pub mod support;

#[cfg(feature = "python")]
mod py;
