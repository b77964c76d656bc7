//! The PyO3 binding: all Python glue in one place.
//!
//! Every method that simulates or draws releases the GIL. Errors become Python exceptions once,
//! here: input mistakes are `ValueError`, calls in the wrong state `RuntimeError`. A Rust panic is
//! caught before it reaches Python, reported as `RuntimeError`, and the environment then
//! refuses to step until it is reset (its state may be half-updated).

use std::panic::{catch_unwind, AssertUnwindSafe};

use numpy::{PyArray1, PyArray2, PyArray3, PyArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::env::{self, Action, CarRacing, Config};
use crate::error::Error;
use crate::rng::NumpyGenerator;

/// NumPy's PCG64 state as `(state, inc, has_uint32, uinteger)`, the fields of
/// `Generator.bit_generator.state`.
type RngState = (u128, u128, bool, u32);

fn to_py_err(e: Error) -> PyErr {
    match e {
        Error::InvalidAction(m) | Error::InvalidArgument(m) => PyValueError::new_err(m),
        Error::InvalidState(m) => PyRuntimeError::new_err(m),
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Runs `f`, turning errors and panics into Python exceptions. `poisoned` is set on a panic.
fn guarded<T>(poisoned: &mut bool, f: impl FnOnce() -> Result<T, Error>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(to_py_err),
        Err(payload) => {
            *poisoned = true;
            Err(PyRuntimeError::new_err(format!(
                "internal error in the reinfors_gym core ({}); call reset() before stepping again",
                panic_message(payload.as_ref())
            )))
        }
    }
}

fn generator_from(state: RngState) -> NumpyGenerator {
    let (s, inc, has_uint32, uinteger) = state;
    NumpyGenerator::from_pcg64_state(s, inc, has_uint32, uinteger)
}

/// Borrows a C-contiguous uint8 array of exactly `len` bytes for writing.
fn frame_slice<'a>(
    obs: &'a mut numpy::PyReadwriteArray3<'_, u8>,
    len: usize,
) -> PyResult<&'a mut [u8]> {
    let slice = obs
        .as_slice_mut()
        .map_err(|_| PyValueError::new_err("observation buffer must be C-contiguous"))?;
    if slice.len() != len {
        return Err(PyValueError::new_err(format!(
            "observation buffer holds {} bytes, expected {len}",
            slice.len()
        )));
    }
    Ok(slice)
}

/// One CarRacing environment (the engine behind `reinfors_gym.CarRacingEnv`).
#[pyclass(module = "reinfors_gym._core", name = "CarRacingCore")]
struct PyCarRacing {
    env: CarRacing,
    /// Set when a panic interrupted a step; cleared by `reset`.
    poisoned: bool,
}

impl PyCarRacing {
    fn check_steppable(&self) -> PyResult<()> {
        if self.poisoned {
            return Err(PyRuntimeError::new_err(
                "the environment was interrupted by an internal error; call reset() first",
            ));
        }
        Ok(())
    }

    fn step_with(
        &mut self,
        py: Python<'_>,
        action: Action,
        obs: &Bound<'_, PyArray3<u8>>,
    ) -> PyResult<(f64, bool, Option<bool>)> {
        self.check_steppable()?;
        let mut obs = obs.readwrite();
        let out = frame_slice(&mut obs, env::OBS_BYTES)?;
        let env = &mut self.env;
        let mut poisoned = false;
        let result = py.detach(|| {
            guarded(&mut poisoned, || {
                let o = env.step(action)?;
                env.render_state(out)?;
                Ok((o.reward, o.terminated, o.lap_finished))
            })
        });
        self.poisoned |= poisoned;
        result
    }
}

#[pymethods]
impl PyCarRacing {
    #[new]
    #[pyo3(signature = (continuous, domain_randomize, lap_complete_percent, rng_state))]
    fn new(
        continuous: bool,
        domain_randomize: bool,
        lap_complete_percent: f64,
        rng_state: RngState,
    ) -> PyResult<Self> {
        let config = Config {
            continuous,
            domain_randomize,
            lap_complete_percent,
        };
        let mut poisoned = false;
        let env = guarded(&mut poisoned, || {
            CarRacing::new(config, generator_from(rng_state))
        })?;
        Ok(PyCarRacing {
            env,
            poisoned: false,
        })
    }

    /// The generator state after the draws made so far (to mirror into `np_random`).
    fn rng_state(&self) -> RngState {
        self.env.rng().pcg64_full_state()
    }

    /// Resets from generator state `rng_state`, writes the first frame into `obs`, and returns
    /// the generator state after the track was drawn.
    #[pyo3(signature = (rng_state, randomize, obs))]
    fn reset(
        &mut self,
        py: Python<'_>,
        rng_state: RngState,
        randomize: Option<bool>,
        obs: &Bound<'_, PyArray3<u8>>,
    ) -> PyResult<RngState> {
        let mut obs = obs.readwrite();
        let out = frame_slice(&mut obs, env::OBS_BYTES)?;
        let env = &mut self.env;
        let mut poisoned = false;
        let result = py.detach(|| {
            guarded(&mut poisoned, || {
                env.set_rng(generator_from(rng_state));
                env.reset(randomize);
                env.render_state(out)?;
                Ok(env.rng().pcg64_full_state())
            })
        });
        self.poisoned = poisoned;
        result
    }

    /// One continuous step (`[steer, gas, brake]` as float64); the frame goes into `obs`.
    /// Returns `(reward, terminated, lap_finished or None)`.
    fn step_continuous(
        &mut self,
        py: Python<'_>,
        steer: f64,
        gas: f64,
        brake: f64,
        obs: &Bound<'_, PyArray3<u8>>,
    ) -> PyResult<(f64, bool, Option<bool>)> {
        self.step_with(py, Action::Continuous([steer, gas, brake]), obs)
    }

    /// One discrete step (0..5); the frame goes into `obs`.
    fn step_discrete(
        &mut self,
        py: Python<'_>,
        action: i64,
        obs: &Bound<'_, PyArray3<u8>>,
    ) -> PyResult<(f64, bool, Option<bool>)> {
        self.step_with(py, Action::Discrete(action), obs)
    }

    /// Draws the current scene at `width`×`height` (HWC uint8).
    fn render<'py>(
        &mut self,
        py: Python<'py>,
        width: usize,
        height: usize,
        skid_marks: bool,
    ) -> PyResult<Bound<'py, PyArray3<u8>>> {
        if width == 0 || height == 0 || width > 8192 || height > 8192 {
            return Err(PyValueError::new_err(format!(
                "frame size must be within 1..=8192, got {width}x{height}"
            )));
        }
        let frame = PyArray3::<u8>::zeros(py, [height, width, 3], false);
        {
            let mut rw = frame.readwrite();
            let out = frame_slice(&mut rw, width * height * 3)?;
            let env = &self.env;
            let mut poisoned = false;
            py.detach(|| guarded(&mut poisoned, || env.render(out, width, height, skid_marks)))?;
        }
        Ok(frame)
    }

    /// Gymnasium's `track`: an `(N, 4)` float64 array of `(alpha, beta, x, y)`.
    #[getter]
    fn track<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        let flat: Vec<f64> = self.env.track().iter().flatten().copied().collect();
        let n = self.env.track().len();
        numpy::PyArray1::from_vec(py, flat)
            .reshape([n, 4])
            .expect("N*4 elements reshape to (N, 4)")
    }

    /// Visited flag per tile.
    #[getter]
    fn tile_visited<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        PyArray1::from_slice(py, self.env.tile_visited())
    }

    /// Current colour of every road polygon (tiles and kerbs, draw order), `(M, 3)` uint8.
    #[getter]
    fn road_colors<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<u8>> {
        let flat: Vec<u8> = self.env.road().iter().flat_map(|p| p.color).collect();
        let n = self.env.road().len();
        PyArray1::from_vec(py, flat)
            .reshape([n, 3])
            .expect("M*3 elements reshape to (M, 3)")
    }

    /// `(road, bg, grass)` colours as float triples.
    #[getter]
    fn palette(&self) -> ([f64; 3], [f64; 3], [f64; 3]) {
        let p = self.env.palette();
        (p.road, p.bg, p.grass)
    }

    #[getter]
    fn reward(&self) -> f64 {
        self.env.reward()
    }
    #[getter]
    fn tile_visited_count(&self) -> usize {
        self.env.tile_visited_count()
    }
    #[getter]
    fn t(&self) -> f64 {
        self.env.t()
    }
    #[getter]
    fn new_lap(&self) -> bool {
        self.env.new_lap()
    }
    #[getter]
    fn track_retries(&self) -> usize {
        self.env.track_retries()
    }
    #[getter]
    fn has_episode(&self) -> bool {
        self.env.has_episode()
    }

    /// Tile indices each wheel touches.
    fn wheel_tiles(&self, wheel: usize) -> PyResult<Vec<u32>> {
        if wheel >= 4 {
            return Err(PyValueError::new_err("wheel index must be 0..4"));
        }
        Ok(self.env.wheel_tiles(wheel).to_vec())
    }

    /// The car's state as a dict of float64 arrays (see `reinfors_gym.CarRacingEnv.car_state`).
    fn car_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self
            .env
            .car_state()
            .ok_or_else(|| PyRuntimeError::new_err("car_state() needs reset() first"))?;
        let d = PyDict::new(py);
        let f = |v: &[f32]| v.iter().map(|x| *x as f64).collect::<Vec<f64>>();
        d.set_item("hull_position", PyArray1::from_vec(py, f(&s.hull_position)))?;
        d.set_item("hull_angle", s.hull_angle as f64)?;
        d.set_item(
            "hull_linear_velocity",
            PyArray1::from_vec(py, f(&s.hull_linear_velocity)),
        )?;
        d.set_item("hull_angular_velocity", s.hull_angular_velocity as f64)?;
        let flat2 = |v: &[[f32; 2]; 4]| -> PyResult<Bound<'py, PyArray2<f64>>> {
            let flat: Vec<f64> = v.iter().flatten().map(|x| *x as f64).collect();
            Ok(PyArray1::from_vec(py, flat).reshape([4, 2])?)
        };
        d.set_item("wheel_position", flat2(&s.wheel_position)?)?;
        d.set_item("wheel_angle", PyArray1::from_vec(py, f(&s.wheel_angle)))?;
        d.set_item("wheel_linear_velocity", flat2(&s.wheel_linear_velocity)?)?;
        d.set_item(
            "wheel_angular_velocity",
            PyArray1::from_vec(py, f(&s.wheel_angular_velocity)),
        )?;
        d.set_item("joint_angle", PyArray1::from_vec(py, f(&s.joint_angle)))?;
        d.set_item("wheel_omega", PyArray1::from_slice(py, &s.wheel_omega))?;
        d.set_item("wheel_phase", PyArray1::from_slice(py, &s.wheel_phase))?;
        d.set_item("wheel_gas", PyArray1::from_slice(py, &s.wheel_gas))?;
        d.set_item("wheel_brake", PyArray1::from_slice(py, &s.wheel_brake))?;
        d.set_item("wheel_steer", PyArray1::from_slice(py, &s.wheel_steer))?;
        Ok(d)
    }
}

/// NumPy's `PCG64(SeedSequence(seed)).state` computed in Rust (for tests and the vector env).
#[pyfunction]
fn seeded_rng_state(seed: u128) -> RngState {
    NumpyGenerator::from_entropy_words(&crate::rng::coerce_seed_words(seed)).pcg64_full_state()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCarRacing>()?;
    m.add_function(wrap_pyfunction!(seeded_rng_state, m)?)?;
    m.add("STATE_SHAPE", (env::STATE_H, env::STATE_W, 3))?;
    m.add("VIDEO_SHAPE", (env::VIDEO_H, env::VIDEO_W, 3))?;
    m.add("WINDOW_SHAPE", (env::WINDOW_H, env::WINDOW_W, 3))?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
