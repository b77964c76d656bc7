//! The simulation: one CarRacing environment, Gymnasium's rules bit for bit, and the frame it
//! shows. Everything here is single-threaded and knows nothing of pools, threads or Python.
//!
//! May use `support` and `render` (the scene draws with it); never `runtime`, `collector` or
//! `py`. Leaves first:
//! - [`rng`]: NumPy's `Generator(PCG64(SeedSequence(seed)))`, bit for bit, so tracks match
//!   Gymnasium's; [`numpy_compat`]: scalar NumPy semantics Gymnasium's code relies on.
//! - [`track`]: procedural track generation (Gymnasium's `_create_track`).
//! - [`physics`]: the subset of Box2D 2.3 the car needs (bodies, revolute joints, island
//!   solver), in f32.
//! - [`car`]: the car built from those bodies, and Gymnasium's tyre model (`car_dynamics.py`).
//! - [`contact`]: wheel/hull-versus-tile sensor overlaps, which drive friction, rewards and
//!   tile repaint.
//! - [`scene`]: what a CarRacing frame shows, drawn with `render`.
//! - [`progress`]: tiles a car passed without touching (a training reward event).
//! - [`mod@env`]: the environment state machine tying them together.

pub mod car;
pub mod contact;
pub mod env;
pub mod numpy_compat;
pub mod physics;
pub mod progress;
pub mod rng;
pub mod scene;
pub mod track;
