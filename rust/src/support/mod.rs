//! The lowest layer: what every other layer may use, and which uses nothing of the crate.
//!
//! - [`error`]: the crate's one error type (the binding maps it to exceptions once).
//! - [`cpu`]: run-time CPU feature checks for the hot loops compiled twice (baseline, AVX2).
//!
//! Helpers owned by one layer live in that layer's folder instead (NumPy's semantics in
//! `sim`, panics of jobs in `runtime`).

pub mod cpu;
pub mod error;
