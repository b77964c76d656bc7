//! The PyO3 binding: all Python glue in one place.
//!
//! Every method that simulates or draws releases the GIL. Errors become Python exceptions once,
//! here: input mistakes are `ValueError`, calls in the wrong state `RuntimeError`. A Rust panic is
//! caught before it reaches Python, reported as `RuntimeError`, and the environment then
//! refuses to step until it is reset (its state may be half-updated).

use std::panic::{catch_unwind, AssertUnwindSafe};

use numpy::{
    PyArray1, PyArray2, PyArray3, PyArrayDyn, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyTuple};

use crate::collector::{Collector, PolicyKind, RewardWeights, Rollout};
use crate::env::{self, Action, CarRacing, Config};
use crate::error::Error;
use crate::pool::{AutoresetMode, Pool, PoolSpec, SlotResult};
use crate::rng::NumpyGenerator;

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
}

impl SpecArgs {
    fn config(&self) -> Config {
        Config {
            continuous: self.continuous,
            domain_randomize: self.domain_randomize,
            lap_complete_percent: self.lap_complete_percent,
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

/// The three values of `action` as float64 if it is a contiguous 1-D array of three `T`s (not
/// mutably borrowed elsewhere); `None` otherwise.
fn three_floats<T: numpy::Element + Copy + Into<f64>>(
    action: &Bound<'_, PyAny>,
) -> Option<[f64; 3]> {
    let array = action.cast::<PyArray1<T>>().ok()?.try_readonly().ok()?;
    match array.as_slice() {
        Ok(&[x, y, z]) => Some([x.into(), y.into(), z.into()]),
        _ => None,
    }
}

fn to_py_err(e: Error) -> PyErr {
    match e {
        Error::InvalidAction(m) | Error::InvalidArgument(m) => PyValueError::new_err(m),
        Error::InvalidState(m) | Error::Internal(m) => PyRuntimeError::new_err(m),
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
            "frame size must be within 1..=8192, got {width}x{height}"
        )));
    }
    let frame = PyArray3::<u8>::zeros(py, [height, width, 3], false);
    {
        let mut rw = frame.readwrite();
        let out = frame_slice(&mut rw, width * height * 3)?;
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
    #[pyo3(signature = (*, spec, rng_state))]
    fn new(spec: SpecArgs, rng_state: RngState) -> PyResult<Self> {
        let config = spec.config();
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

    /// The whole of `CarRacingEnv.step` for the usual call: a continuous env with an episode
    /// running, and the action a 1-D float32 or float64 array of three finite values. Returns
    /// `(obs, reward, terminated, False, info)` with a new observation array, or `None` for
    /// anything else, which the Python method then handles (and words the errors) itself. Saves
    /// the Python-side checks, conversion and `np.empty` (0.8–1.1 µs of a ~40 µs step).
    fn step_fast<'py>(
        &mut self,
        py: Python<'py>,
        action: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        if !self.env.config().continuous || !self.env.has_episode() || self.poisoned {
            return Ok(None);
        }
        // float32 widens to float64 exactly, as Gymnasium's `astype(np.float64)` does.
        let values = three_floats::<f32>(action).or_else(|| three_floats::<f64>(action));
        let Some(values) = values.filter(|v| v.iter().all(|x| x.is_finite())) else {
            return Ok(None);
        };
        let (h, w, c) = (env::STATE_H, env::STATE_W, 3);
        // SAFETY: the step renders every byte of the frame before the array is returned; on
        // an error the array is dropped unread.
        let obs = unsafe { PyArray3::<u8>::new(py, [h, w, c], false) };
        let (reward, terminated, lap_finished) =
            self.step_with(py, Action::Continuous(values), &obs)?;
        let info = PyDict::new(py);
        if let Some(lap) = lap_finished {
            info.set_item("lap_finished", lap)?;
        }
        Ok(Some(PyTuple::new(
            py,
            [
                obs.into_any(),
                reward.into_pyobject(py)?.into_any(),
                PyBool::new(py, terminated).to_owned().into_any(),
                PyBool::new(py, false).to_owned().into_any(),
                info.into_any(),
            ],
        )?))
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
        render_array(py, &mut self.env, width, height, skid_marks)
    }

    /// Gymnasium's `track`: an `(N, 4)` float64 array of `(alpha, beta, x, y)`.
    #[getter]
    fn track<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        track_array(py, &self.env)
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
            PyArray1::from_vec(py, flat).reshape([4, 2])
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

/// Borrows a C-contiguous array of any shape as a mutable slice of exactly `len` elements.
fn batch_slice<'a, T: numpy::Element>(
    arr: &'a mut numpy::PyReadwriteArrayDyn<'_, T>,
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

fn no_sub_env(i: usize) -> PyErr {
    PyValueError::new_err(format!("no sub-env {i}"))
}

/// Many CarRacing environments stepped in parallel (the engine behind
/// `reinfors_gym.CarRacingVectorEnv`).
#[pyclass(module = "reinfors_gym._core", name = "PoolCore")]
struct PyPool {
    pool: Pool,
    results: Vec<SlotResult>,
    poisoned: bool,
}

impl PyPool {
    fn sub_env(&self, i: usize) -> PyResult<&CarRacing> {
        self.pool.env(i).ok_or_else(|| no_sub_env(i))
    }
}

#[pymethods]
impl PyPool {
    #[new]
    #[pyo3(signature = (*, spec, num_envs, num_threads, autoreset_mode, entropy))]
    fn new(
        spec: SpecArgs,
        num_envs: usize,
        num_threads: usize,
        autoreset_mode: &str,
        entropy: Vec<u128>,
    ) -> PyResult<Self> {
        let autoreset = match autoreset_mode {
            "next_step" => AutoresetMode::NextStep,
            "same_step" => AutoresetMode::SameStep,
            "disabled" => AutoresetMode::Disabled,
            other => {
                return Err(PyValueError::new_err(format!(
                    "autoreset_mode must be next_step, same_step or disabled, got {other:?}"
                )))
            }
        };
        let spec = spec.pool_spec(num_envs, autoreset);
        let words: Vec<Vec<u32>> = entropy
            .iter()
            .map(|e| crate::rng::coerce_seed_words(*e))
            .collect();
        let mut poisoned = false;
        let pool = guarded(&mut poisoned, || Pool::new(spec, num_threads, &words))?;
        Ok(PyPool {
            pool,
            results: vec![SlotResult::default(); num_envs],
            poisoned: false,
        })
    }

    #[getter]
    fn num_threads(&self) -> usize {
        self.pool.num_threads()
    }

    /// For a process forked from the one that made the pool: lets go of its worker threads
    /// (they exist only in the parent) without tearing them down, so dropping it is safe.
    fn abandon(&mut self) {
        self.pool.abandon_threads();
    }

    /// Resets the sub-envs selected by `mask` (all when `None`); `seeds[i]` reseeds sub-env i.
    #[pyo3(signature = (seeds, mask, randomize, obs))]
    fn reset(
        &mut self,
        py: Python<'_>,
        seeds: SeedWords,
        mask: Option<Vec<bool>>,
        randomize: Option<bool>,
        obs: &Bound<'_, PyArrayDyn<u8>>,
    ) -> PyResult<()> {
        let mut obs = obs.readwrite();
        let len = obs.len();
        let out = batch_slice(&mut obs, len, "observation")?;
        let pool = &mut self.pool;
        let mut poisoned = false;
        let result = py.detach(|| {
            guarded(&mut poisoned, || {
                pool.reset(&seeds, mask.as_deref(), randomize, out)
            })
        });
        // A full reset recovers from an interrupted step; a partial one does not.
        self.poisoned = poisoned || (self.poisoned && mask.is_some());
        result
    }

    /// Steps all sub-envs. `actions` is `(n, 3)` float64 (continuous) or `(n,)` int64 (discrete).
    /// Writes `obs`, `final_obs`, and per-env `rewards`, `terminated`, `truncated`,
    /// `lap_finished` (-1 none, 0 false, 1 true) and `reset` flags. Returns whether any
    /// `lap_finished` and any `reset` flag is set, so the caller skips building empty infos.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        py: Python<'_>,
        actions: &Bound<'_, PyAny>,
        obs: &Bound<'_, PyArrayDyn<u8>>,
        final_obs: &Bound<'_, PyArrayDyn<u8>>,
        rewards: &Bound<'_, PyArray1<f64>>,
        terminated: &Bound<'_, PyArray1<bool>>,
        truncated: &Bound<'_, PyArray1<bool>>,
        lap_finished: &Bound<'_, PyArray1<i8>>,
        reset: &Bound<'_, PyArray1<bool>>,
    ) -> PyResult<(bool, bool)> {
        if self.poisoned {
            return Err(PyRuntimeError::new_err(
                "the vector environment was interrupted by an internal error; call reset() first",
            ));
        }
        let n = self.pool.spec().num_envs;
        let acts: Vec<Action> = if self.pool.spec().config.continuous {
            let a: PyReadonlyArray2<f64> = actions.extract().map_err(|_| {
                PyValueError::new_err("continuous actions must be a float64 array of shape (n, 3)")
            })?;
            let view = a.as_array();
            if view.shape() != [n, 3] {
                return Err(PyValueError::new_err(format!(
                    "actions must have shape ({n}, 3), got {:?}",
                    view.shape()
                )));
            }
            view.rows()
                .into_iter()
                .map(|r| Action::Continuous([r[0], r[1], r[2]]))
                .collect()
        } else {
            let a: PyReadonlyArray1<i64> = actions.extract().map_err(|_| {
                PyValueError::new_err("discrete actions must be an int64 array of shape (n,)")
            })?;
            let view = a.as_array();
            if view.len() != n {
                return Err(PyValueError::new_err(format!(
                    "actions must have shape ({n},), got ({},)",
                    view.len()
                )));
            }
            view.iter().map(|&v| Action::Discrete(v)).collect()
        };
        let mut obs = obs.readwrite();
        let mut final_obs = final_obs.readwrite();
        let len = obs.len();
        let out = batch_slice(&mut obs, len, "observation")?;
        let fin = batch_slice(&mut final_obs, len, "final observation")?;
        let pool = &mut self.pool;
        let results = &mut self.results;
        let mut poisoned = false;
        py.detach(|| guarded(&mut poisoned, || pool.step(&acts, out, fin, results)))
            .inspect_err(|_| self.poisoned |= poisoned)?;
        let mut rw = rewards.readwrite();
        let mut te = terminated.readwrite();
        let mut tr = truncated.readwrite();
        let mut lf = lap_finished.readwrite();
        let mut rs = reset.readwrite();
        let (rw, te, tr, lf, rs) = (
            rw.as_slice_mut()?,
            te.as_slice_mut()?,
            tr.as_slice_mut()?,
            lf.as_slice_mut()?,
            rs.as_slice_mut()?,
        );
        if [rw.len(), te.len(), tr.len(), lf.len(), rs.len()] != [n; 5] {
            return Err(PyValueError::new_err("result buffers must have shape (n,)"));
        }
        let (mut any_lap, mut any_reset) = (false, false);
        for (i, r) in self.results.iter().enumerate() {
            rw[i] = r.reward;
            te[i] = r.terminated;
            tr[i] = r.truncated;
            lf[i] = r.lap_finished.map_or(-1, i8::from);
            rs[i] = r.reset;
            any_lap |= r.lap_finished.is_some();
            any_reset |= r.reset;
        }
        Ok((any_lap, any_reset))
    }

    /// Draws sub-env `i` at `width`×`height`.
    fn render<'py>(
        &mut self,
        py: Python<'py>,
        i: usize,
        width: usize,
        height: usize,
        skid_marks: bool,
    ) -> PyResult<Bound<'py, PyArray3<u8>>> {
        let env = self.pool.env_mut(i).ok_or_else(|| no_sub_env(i))?;
        render_array(py, env, width, height, skid_marks)
    }

    /// Gymnasium's `track` of sub-env `i`.
    fn track<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let env = self.sub_env(i)?;
        Ok(track_array(py, env))
    }

    /// Scalar state of sub-env `i`: `(reward, tile_visited_count, t)`.
    fn env_scalars(&self, i: usize) -> PyResult<(f64, usize, f64)> {
        let env = self.sub_env(i)?;
        Ok((env.reward(), env.tile_visited_count(), env.t()))
    }
}

/// Hands a Rust vector to NumPy without copying, shaped `shape`.
fn owned_array<'py, T: numpy::Element>(
    py: Python<'py>,
    data: Vec<T>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyArrayDyn<T>>> {
    PyArray1::from_vec(py, data).reshape(shape.to_vec())
}

/// The PPO collector (the engine behind `reinfors_gym.Engine`).
#[pyclass(module = "reinfors_gym._core", name = "CollectorCore")]
struct PyCollector {
    collector: Collector,
    /// Per-observation shape, e.g. `(3, 96, 96)`.
    obs_shape: Vec<usize>,
    poisoned: bool,
}

#[pymethods]
impl PyCollector {
    #[new]
    #[pyo3(signature = (*, spec, n_games, n_threads, entropy, sampling_seed, reward))]
    fn new(
        spec: SpecArgs,
        n_games: usize,
        n_threads: usize,
        entropy: Vec<u128>,
        sampling_seed: u64,
        reward: (f64, f64, f64, f64),
    ) -> PyResult<Self> {
        let pool_spec = spec.pool_spec(n_games, AutoresetMode::SameStep);
        let words: Vec<Vec<u32>> = entropy
            .iter()
            .map(|e| crate::rng::coerce_seed_words(*e))
            .collect();
        let (tile, step, off_playfield, off_road) = reward;
        let weights = RewardWeights {
            tile,
            step,
            off_playfield,
            off_road,
        };
        let mut poisoned = false;
        let collector = guarded(&mut poisoned, || {
            Collector::new(pool_spec, n_threads, &words, sampling_seed, weights)
        })?;
        let obs_shape = pool_spec.obs_shape();
        Ok(PyCollector {
            collector,
            obs_shape,
            poisoned: false,
        })
    }

    /// Threads that step the games (at most one per game and per available core).
    #[getter]
    fn num_threads(&self) -> usize {
        self.collector.num_threads()
    }

    /// Resets every game; `seeds[g]` reseeds game g. Writes the first observations.
    fn reset(
        &mut self,
        py: Python<'_>,
        seeds: SeedWords,
        obs: &Bound<'_, PyArrayDyn<u8>>,
    ) -> PyResult<()> {
        let mut obs = obs.readwrite();
        let len = self.collector.games() * self.collector.obs_bytes();
        let out = batch_slice(&mut obs, len, "observation")?;
        let collector = &mut self.collector;
        let mut poisoned = false;
        let result = py.detach(|| guarded(&mut poisoned, || collector.reset(&seeds, out)));
        self.poisoned = poisoned;
        result
    }

    /// Samples from `policy` `(n, k)` float32, records `values` `(n,)`, steps every game
    /// (next observations written into `obs`). Returns the truncated games.
    fn step(
        &mut self,
        py: Python<'_>,
        policy: PyReadonlyArray2<f32>,
        values: PyReadonlyArray1<f32>,
        obs: &Bound<'_, PyArrayDyn<u8>>,
    ) -> PyResult<Vec<usize>> {
        if self.poisoned {
            return Err(PyRuntimeError::new_err(
                "the collector was interrupted by an internal error; reset it first",
            ));
        }
        let policy = policy
            .as_slice()
            .map_err(|_| PyValueError::new_err("policy outputs must be C-contiguous"))?;
        let values = values
            .as_slice()
            .map_err(|_| PyValueError::new_err("values must be C-contiguous"))?;
        let mut obs = obs.readwrite();
        let len = self.collector.games() * self.collector.obs_bytes();
        let out = batch_slice(&mut obs, len, "observation")?;
        let collector = &mut self.collector;
        let mut poisoned = false;
        let result = py.detach(|| guarded(&mut poisoned, || collector.step(policy, values, out)));
        self.poisoned |= poisoned;
        result
    }

    /// Starts a new collection: any partial rollout left by one that ended early (an error in
    /// `infer`, a stop, an interrupt) is discarded, so a batch holds only its own steps.
    fn begin(&mut self) {
        self.collector.discard_partial();
    }

    /// Drops the partial rollout now (its memory too); the games' state carries on.
    fn discard(&mut self) {
        self.collector.discard_partial();
    }

    /// Steps recorded in the rollout being collected.
    #[getter]
    fn recorded_steps(&self) -> usize {
        self.collector.recorded_steps()
    }

    /// Final observations of `games` (those `step` reported truncated), stacked.
    fn final_obs<'py>(
        &self,
        py: Python<'py>,
        games: Vec<usize>,
    ) -> PyResult<Bound<'py, PyArrayDyn<u8>>> {
        let n = self.collector.games();
        let mut data = Vec::with_capacity(games.len() * self.collector.obs_bytes());
        for &g in &games {
            if g >= n {
                return Err(PyValueError::new_err(format!("no game {g}")));
            }
            data.extend_from_slice(self.collector.final_obs(g));
        }
        let mut shape = vec![games.len()];
        shape.extend(&self.obs_shape);
        owned_array(py, data, &shape)
    }

    fn set_final_values(&mut self, games: Vec<usize>, values: Vec<f32>) -> PyResult<()> {
        self.collector
            .set_final_values(&games, &values)
            .map_err(to_py_err)
    }

    /// Completes the rollout; returns its fields as NumPy arrays (time-major).
    fn finish<'py>(
        &mut self,
        py: Python<'py>,
        bootstrap_values: Vec<f32>,
        gamma: f64,
        lam: f64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let collector = &mut self.collector;
        let mut poisoned = false;
        let r: Rollout = py.detach(|| {
            guarded(&mut poisoned, || {
                collector.finish(&bootstrap_values, gamma, lam)
            })
        })?;
        let (t, n) = (r.steps, r.games);
        let d = PyDict::new(py);
        let mut obs_shape = vec![t, n];
        obs_shape.extend(&self.obs_shape);
        d.set_item("obs", owned_array(py, r.obs, &obs_shape)?)?;
        match self.collector.kind() {
            PolicyKind::Gaussian => {
                d.set_item("actions", owned_array(py, r.actions_f32, &[t, n, 3])?)?
            }
            PolicyKind::Categorical => {
                d.set_item("actions", owned_array(py, r.actions_i64, &[t, n])?)?
            }
        }
        d.set_item(
            "behavior_log_probs",
            owned_array(py, r.behavior_log_probs, &[t, n])?,
        )?;
        d.set_item("values", owned_array(py, r.values, &[t, n])?)?;
        d.set_item("rewards", owned_array(py, r.rewards, &[t, n])?)?;
        d.set_item("terminations", owned_array(py, r.terminations, &[t, n])?)?;
        d.set_item("truncations", owned_array(py, r.truncations, &[t, n])?)?;
        d.set_item("advantages", owned_array(py, r.advantages, &[t, n])?)?;
        d.set_item("returns", owned_array(py, r.returns, &[t, n])?)?;
        d.set_item("final_values", owned_array(py, r.final_values, &[t, n])?)?;
        d.set_item(
            "bootstrap_values",
            owned_array(py, r.bootstrap_values, &[n])?,
        )?;
        let episodes = r.episode_returns.len();
        d.set_item(
            "episode_returns",
            owned_array(py, r.episode_returns, &[episodes])?,
        )?;
        d.set_item(
            "episode_lengths",
            owned_array(py, r.episode_lengths, &[episodes])?,
        )?;
        d.set_item(
            "episode_scores",
            owned_array(py, r.episode_scores, &[episodes])?,
        )?;
        Ok(d)
    }
}

/// Whether any hot loop has run its AVX2 copy in this process (so a test comparing the AVX2
/// and baseline copies knows it really compared two).
#[pyfunction]
fn avx2_used() -> bool {
    crate::cpu::avx2_used()
}

/// NumPy's `PCG64(SeedSequence(seed)).state` computed in Rust (for tests and the vector env).
#[pyfunction]
fn seeded_rng_state(seed: u128) -> RngState {
    NumpyGenerator::from_entropy_words(&crate::rng::coerce_seed_words(seed)).pcg64_full_state()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCarRacing>()?;
    m.add_class::<PyPool>()?;
    m.add_class::<PyCollector>()?;
    m.add_function(wrap_pyfunction!(seeded_rng_state, m)?)?;
    m.add_function(wrap_pyfunction!(avx2_used, m)?)?;
    m.add("STATE_SHAPE", (env::STATE_H, env::STATE_W, 3))?;
    m.add("MAX_NUM_ENVS", crate::pool::MAX_ENVS)?;
    m.add("MAX_BATCH_BYTES", crate::pool::MAX_BATCH_BYTES)?;
    m.add("VIDEO_SHAPE", (env::VIDEO_H, env::VIDEO_W, 3))?;
    m.add("WINDOW_SHAPE", (env::WINDOW_H, env::WINDOW_W, 3))?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
