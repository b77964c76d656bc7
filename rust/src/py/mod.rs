//! The PyO3 binding (feature `python`): one module per Python class, the shared glue here.
//! The top layer: may use every other one, and nothing uses it.
//!
//! Every method that simulates or draws releases the GIL. Errors become Python exceptions once,
//! here: input mistakes are `ValueError`, calls in the wrong state `RuntimeError`. A Rust panic is
//! caught before it reaches Python, reported as `RuntimeError`, and the object then refuses to
//! step until it is reset (its state may be half-updated).

mod accessors;
mod collector;
mod env;
mod pool;

use std::panic::{catch_unwind, AssertUnwindSafe};

use numpy::{PyArray1, PyArray2, PyArray3, PyArrayDyn, PyArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyTimeoutError, PyValueError};
use pyo3::prelude::*;

use crate::runtime::pool::{AutoresetMode, PoolSpec};
use crate::sim::env::{self as core_env, CarRacing, Config, GymnasiumRelease, LapRule};
use crate::sim::rng::{coerce_seed_words, NumpyGenerator};
use crate::support::error::{panic_text, Error};

/// NumPy's PCG64 state as `(state, inc, has_uint32, uinteger)`, the fields of
/// `Generator.bit_generator.state`.
type RngState = (u128, u128, bool, u32);

/// A checked CarRacing configuration as Python hands it over (`reinfors_gym.spec
/// .CarRacingSpec.core_args()`): one mapping, read by key. The pool re-checks its bounds.
#[derive(FromPyObject, Debug, Clone, Copy)]
#[pyo3(from_item_all)]
struct SpecArgs {
    continuous: bool,
    domain_randomize: bool,
    lap_complete_percent: f64,
    max_episode_steps: Option<u32>,
    frame_skip: u32,
    stack_num: usize,
    grayscale: bool,
    height: usize,
    width: usize,
    channels_first: bool,
    #[pyo3(from_py_with = release_arg)]
    gymnasium_release: GymnasiumRelease,
    #[pyo3(from_py_with = lap_rule_arg)]
    lap_complete_rule: LapRule,
}

/// `"1.2"`, `"1.3"` or `"1.4"` (the spec resolves any version to one of these).
fn release_arg(obj: &Bound<'_, PyAny>) -> PyResult<GymnasiumRelease> {
    GymnasiumRelease::from_name(&obj.extract::<String>()?).map_err(to_py_err)
}

/// `"first_visit"` or `"every_contact"`.
fn lap_rule_arg(obj: &Bound<'_, PyAny>) -> PyResult<LapRule> {
    LapRule::from_name(&obj.extract::<String>()?).map_err(to_py_err)
}

impl SpecArgs {
    fn config(&self) -> Config {
        Config {
            continuous: self.continuous,
            domain_randomize: self.domain_randomize,
            lap_complete_percent: self.lap_complete_percent,
            release: self.gymnasium_release,
            lap_rule: self.lap_complete_rule,
        }
    }

    fn pool_spec(&self, num_envs: usize, autoreset: AutoresetMode) -> PoolSpec {
        PoolSpec {
            num_envs,
            config: self.config(),
            max_episode_steps: self.max_episode_steps,
            autoreset,
            frame_skip: self.frame_skip,
            stack_num: self.stack_num,
            grayscale: self.grayscale,
            width: self.width,
            height: self.height,
            channels_first: self.channels_first,
        }
    }
}

/// Seeds as the 32-bit words of `SeedSequence`'s entropy (any size of int, as NumPy takes).
type SeedWords = Vec<Option<Vec<u32>>>;

/// Each sub-env's OS-entropy seed (a Python int below 2**128) as `SeedSequence` words.
fn entropy_words(entropy: &[u128]) -> Vec<Vec<u32>> {
    entropy.iter().map(|e| coerce_seed_words(*e)).collect()
}

// The package's named exceptions (reinfors_gym/errors.py), imported when first raised. Each
// subclasses the builtin the plain mapping would give (ValueError, RuntimeError).
pyo3::import_exception!(reinfors_gym.errors, AsyncOrderError);
pyo3::import_exception!(reinfors_gym.errors, InvalidAction);
pyo3::import_exception!(reinfors_gym.errors, InvalidEnvId);
pyo3::import_exception!(reinfors_gym.errors, ResetNeeded);

fn to_py_err(e: Error) -> PyErr {
    match e {
        Error::InvalidAction(m) => InvalidAction::new_err(m),
        Error::InvalidArgument(m) => PyValueError::new_err(m),
        Error::InvalidState(m) | Error::Internal(m) | Error::SubEnvFailed(m) => {
            PyRuntimeError::new_err(m)
        }
        Error::ResetNeeded(m) => ResetNeeded::new_err(m),
        Error::InvalidEnvId(m) => InvalidEnvId::new_err(m),
        Error::AsyncOrder(m) => AsyncOrderError::new_err(m),
        Error::Timeout(m) => PyTimeoutError::new_err(m),
    }
}

/// Runs `f`, turning errors and panics into Python exceptions. `poisoned` is set on a panic.
fn guarded<T>(poisoned: &mut bool, f: impl FnOnce() -> Result<T, Error>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        // A panic caught on a helper thread arrives as `Internal`: poisoned just the same.
        Ok(Err(e @ Error::Internal(_))) => {
            *poisoned = true;
            Err(PyRuntimeError::new_err(format!(
                "{e}; call reset() before stepping again"
            )))
        }
        Ok(result) => result.map_err(to_py_err),
        Err(payload) => {
            *poisoned = true;
            Err(PyRuntimeError::new_err(format!(
                "internal error in the reinfors_gym core ({}); call reset() before stepping again",
                panic_text(payload.as_ref())
            )))
        }
    }
}

fn generator_from(state: RngState) -> NumpyGenerator {
    let (s, inc, has_uint32, uinteger) = state;
    NumpyGenerator::from_pcg64_state(s, inc, has_uint32, uinteger)
}

/// Borrows a C-contiguous array of any shape as a mutable slice of exactly `len` elements.
fn batch_slice<'a, T: numpy::Element, D: numpy::ndarray::Dimension>(
    arr: &'a mut numpy::PyReadwriteArray<'_, T, D>,
    len: usize,
    what: &str,
) -> PyResult<&'a mut [T]> {
    let slice = arr
        .as_slice_mut()
        .map_err(|_| PyValueError::new_err(format!("{what} buffer must be C-contiguous")))?;
    if slice.len() != len {
        return Err(PyValueError::new_err(format!(
            "{what} buffer holds {} elements, expected {len}",
            slice.len()
        )));
    }
    Ok(slice)
}

/// Draws `env` into a new `(height, width, 3)` uint8 array, with the GIL released.
fn render_array<'py>(
    py: Python<'py>,
    env: &mut CarRacing,
    width: usize,
    height: usize,
    skid_marks: bool,
) -> PyResult<Bound<'py, PyArray3<u8>>> {
    if width == 0 || height == 0 || width > 8192 || height > 8192 {
        return Err(PyValueError::new_err(format!(
            "frame size must be between 1 and 8192 pixels a side, got {width}x{height}"
        )));
    }
    let frame = PyArray3::<u8>::zeros(py, [height, width, 3], false);
    {
        let mut rw = frame.readwrite();
        let out = batch_slice(&mut rw, width * height * 3, "observation")?;
        let mut poisoned = false;
        py.detach(|| guarded(&mut poisoned, || env.render(out, width, height, skid_marks)))?;
    }
    Ok(frame)
}

/// Gymnasium's `track` of `env` as an `(N, 4)` float64 array.
fn track_array<'py>(py: Python<'py>, env: &CarRacing) -> Bound<'py, PyArray2<f64>> {
    let flat: Vec<f64> = env.track().iter().flatten().copied().collect();
    PyArray1::from_vec(py, flat)
        .reshape([env.track().len(), 4])
        .expect("N*4 elements reshape to (N, 4)")
}

/// Hands a Rust vector to NumPy without copying, shaped `shape`.
fn owned_array<'py, T: numpy::Element>(
    py: Python<'py>,
    data: Vec<T>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyArrayDyn<T>>> {
    let len = data.len();
    let flat = PyArray1::from_vec(py, data);
    if shape == [len] {
        return Ok(flat.to_dyn().clone()); // no second array object for a reshape
    }
    flat.reshape(shape.to_vec())
}

/// Whether any hot loop has run its AVX2 copy in this process (so a test comparing the AVX2
/// and baseline copies knows it really compared two).
#[pyfunction]
fn avx2_used() -> bool {
    crate::support::cpu::avx2_used()
}

/// NumPy's `PCG64(SeedSequence(seed)).state` computed in Rust (for tests and the vector env).
#[pyfunction]
fn seeded_rng_state(seed: u128) -> RngState {
    NumpyGenerator::from_entropy_words(&coerce_seed_words(seed)).pcg64_full_state()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<env::CarRacingCore>()?;
    m.add_class::<pool::PoolCore>()?;
    m.add_class::<pool::StepResults>()?;
    m.add_class::<collector::CollectorCore>()?;
    m.add_function(wrap_pyfunction!(seeded_rng_state, m)?)?;
    m.add_function(wrap_pyfunction!(avx2_used, m)?)?;
    m.add("STATE_SHAPE", (core_env::STATE_H, core_env::STATE_W, 3))?;
    m.add("MAX_NUM_ENVS", crate::runtime::pool::MAX_ENVS)?;
    m.add("MAX_BATCH_BYTES", crate::runtime::pool::MAX_BATCH_BYTES)?;
    m.add("MAX_OBS_BYTES", crate::runtime::pool::MAX_OBS_BYTES)?;
    m.add("MAX_STACK_NUM", crate::runtime::pool::MAX_STACK_NUM)?;
    m.add("MAX_FRAME_SIDE", crate::runtime::pool::MAX_FRAME_SIDE)?;
    m.add("MAX_FRAME_SKIP", crate::runtime::pool::MAX_FRAME_SKIP)?;
    m.add("VIDEO_SHAPE", (core_env::VIDEO_H, core_env::VIDEO_W, 3))?;
    m.add("WINDOW_SHAPE", (core_env::WINDOW_H, core_env::WINDOW_W, 3))?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
