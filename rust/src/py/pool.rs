//! `PoolCore`: the vector env's pool, the engine behind `reinfors_gym.CarRacingVectorEnv`.
//!
//! Synchronous `reset`/`step` over every sub-env, and EnvPool's asynchronous
//! `send`/`send_reset`/`recv` over any of them. Every call takes keyword arguments and
//! returns its results as a `StepResults`, never as a tuple in a fixed order.

use std::time::Duration;

use numpy::PyUntypedArrayMethods;
use numpy::{PyArray3, PyArrayDyn, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

use super::{
    accessors, batch_slice, entropy_words, generator_from, guarded, owned_array, render_array,
    to_py_err, InvalidAction, InvalidEnvId, RngState, SeedWords, SpecArgs,
};
use crate::runtime::job::SlotResult;
use crate::runtime::pool::{AutoresetMode, Fault, Pool};
use crate::sim::env::{Action, CarRacing};

/// The results of one `step` or `recv`, one entry per sub-env it covers.
#[pyclass(module = "reinfors_gym._core", frozen, get_all)]
pub(super) struct StepResults {
    /// Which sub-env each entry is (int32, ascending).
    env_ids: Py<PyArrayDyn<i32>>,
    rewards: Py<PyArrayDyn<f64>>,
    terminated: Py<PyArrayDyn<bool>>,
    truncated: Py<PyArrayDyn<bool>>,
    /// `info["lap_finished"]`: -1 none, 0 false, 1 true (`None` unless `any_lap` or
    /// `any_reset`: most steps need none of the three arrays below).
    lap_finished: Option<Py<PyArrayDyn<i8>>>,
    /// The sub-env was reset during the call (`NextStep`: instead of stepping; `SameStep`:
    /// after finishing, its last observation in `final_obs`). `None` unless `any_reset`.
    was_reset: Option<Py<PyArrayDyn<bool>>>,
    /// `SameStep`: one row per entry with `was_reset` set, in entry order. `None` unless
    /// `any_reset`.
    final_obs: Option<Py<PyArrayDyn<u8>>>,
    /// `recv`'s observations (one row per entry), when it was given no buffer to write.
    obs: Option<Py<PyArrayDyn<u8>>>,
    /// Whether any entry has `lap_finished` (so the caller skips building empty infos).
    any_lap: bool,
    any_reset: bool,
}

/// The pool, and its buffers reused between calls.
#[pyclass(module = "reinfors_gym._core")]
pub(super) struct PoolCore {
    /// `None` once closed.
    pool: Option<Pool>,
    results: Vec<SlotResult>,
    /// Final observations of a synchronous `SameStep` step (`num_envs` rows; the pool wants
    /// the buffer in every mode).
    final_obs: Vec<u8>,
    obs_shape: Vec<usize>,
    poisoned: bool,
}

fn closed() -> PyErr {
    PyRuntimeError::new_err("the pool is closed")
}

impl PoolCore {
    fn pool(&self) -> PyResult<&Pool> {
        self.pool.as_ref().ok_or_else(closed)
    }

    fn pool_mut(&mut self) -> PyResult<&mut Pool> {
        self.pool.as_mut().ok_or_else(closed)
    }

    fn check_not_poisoned(&self) -> PyResult<()> {
        if self.poisoned {
            return Err(PyRuntimeError::new_err(
                "the vector environment was interrupted by an internal error; call reset() first",
            ));
        }
        Ok(())
    }

    fn with_env<T>(&self, i: usize, f: impl FnOnce(&mut CarRacing) -> T) -> PyResult<T> {
        self.pool()?.with_env(i, f).map_err(to_py_err)
    }

    /// `actions` for `count` sub-envs: `(count, 3)` float64 or float32 (a policy's output, as
    /// is) when continuous, `(count,)` int64 when discrete.
    fn actions(&self, actions: &Bound<'_, PyAny>, count: usize) -> PyResult<Vec<Action>> {
        if self.pool()?.spec().config.continuous {
            if let Ok(a) = actions.extract::<PyReadonlyArray2<'_, f32>>() {
                return continuous(a.as_array(), count);
            }
            let a: PyReadonlyArray2<f64> = actions.extract().map_err(|_| {
                PyTypeError::new_err("continuous actions must be a 2-D float64 or float32 array")
            })?;
            continuous(a.as_array(), count)
        } else {
            let a: PyReadonlyArray1<i64> = actions
                .extract()
                .map_err(|_| PyTypeError::new_err("discrete actions must be a 1-D int64 array"))?;
            let view = a.as_array();
            if view.len() != count {
                return Err(InvalidAction::new_err(format!(
                    "actions must have shape ({count},), got ({},)",
                    view.len()
                )));
            }
            Ok(view.iter().map(|&v| Action::Discrete(v)).collect())
        }
    }

    /// Packs `(sub-env, result)` entries, their observations (if handed over) and the final
    /// observations into `StepResults`.
    fn results<'a>(
        &self,
        py: Python<'_>,
        entries: impl ExactSizeIterator<Item = (usize, &'a SlotResult)>,
        obs: Option<Vec<u8>>,
        final_obs: Vec<u8>,
    ) -> PyResult<StepResults> {
        let n = entries.len();
        let mut ids = Vec::with_capacity(n);
        let mut rewards = Vec::with_capacity(n);
        let mut terminated = Vec::with_capacity(n);
        let mut truncated = Vec::with_capacity(n);
        let mut lap = Vec::with_capacity(n);
        let mut was_reset = Vec::with_capacity(n);
        let (mut any_lap, mut any_reset) = (false, false);
        for (i, r) in entries {
            ids.push(i as i32);
            rewards.push(r.reward);
            terminated.push(r.terminated);
            truncated.push(r.truncated);
            lap.push(r.lap_finished.map_or(-1, i8::from));
            was_reset.push(r.reset);
            any_lap |= r.lap_finished.is_some();
            any_reset |= r.reset;
        }
        let rows = |data: &Vec<u8>| {
            let ob: usize = self.obs_shape.iter().product();
            let mut shape = vec![data.len() / ob.max(1)];
            shape.extend(&self.obs_shape);
            shape
        };
        let final_shape = rows(&final_obs);
        Ok(StepResults {
            env_ids: owned_array(py, ids, &[n])?.unbind(),
            rewards: owned_array(py, rewards, &[n])?.unbind(),
            terminated: owned_array(py, terminated, &[n])?.unbind(),
            truncated: owned_array(py, truncated, &[n])?.unbind(),
            lap_finished: (any_lap || any_reset)
                .then(|| owned_array(py, lap, &[n]).map(Bound::unbind))
                .transpose()?,
            was_reset: any_reset
                .then(|| owned_array(py, was_reset, &[n]).map(Bound::unbind))
                .transpose()?,
            final_obs: any_reset
                .then(|| owned_array(py, final_obs, &final_shape).map(Bound::unbind))
                .transpose()?,
            obs: obs
                .map(|o| {
                    let shape = rows(&o);
                    owned_array(py, o, &shape).map(Bound::unbind)
                })
                .transpose()?,
            any_lap,
            any_reset,
        })
    }
}

/// Sub-env ids from a 1-D int64 or int32 array (`info["env_id"]` is int32); anything else is a
/// `TypeError` (the Python layer converts it and tries again). A negative id is refused here;
/// the pool checks the rest (range, repeats, in flight).
fn env_ids(ids: &Bound<'_, PyAny>, num_envs: usize) -> PyResult<Vec<usize>> {
    let values: Vec<i64> = if let Ok(a) = ids.extract::<PyReadonlyArray1<'_, i64>>() {
        a.as_array().to_vec()
    } else if let Ok(a) = ids.extract::<PyReadonlyArray1<'_, i32>>() {
        a.as_array().iter().map(|&i| i64::from(i)).collect()
    } else {
        return Err(PyTypeError::new_err(
            "env_id must be a 1-D int64 or int32 array",
        ));
    };
    values
        .iter()
        .map(|&i| {
            usize::try_from(i).map_err(|_| {
                let bad: Vec<i64> = values.iter().copied().filter(|&v| v < 0).collect();
                InvalidEnvId::new_err(format!(
                    "env_id {bad:?} out of range: sub-envs are 0 to {}",
                    num_envs.saturating_sub(1)
                ))
            })
        })
        .collect()
}

#[pymethods]
impl PoolCore {
    #[new]
    #[pyo3(signature = (*, spec, num_envs, num_threads, autoreset_mode, entropy, batch_size))]
    fn new(
        spec: SpecArgs,
        num_envs: usize,
        num_threads: usize,
        autoreset_mode: &str,
        entropy: Vec<u128>,
        batch_size: usize,
    ) -> PyResult<Self> {
        let autoreset = match autoreset_mode {
            "next_step" => AutoresetMode::NextStep,
            "same_step" => AutoresetMode::SameStep,
            "disabled" => AutoresetMode::Disabled,
            other => {
                return Err(PyValueError::new_err(format!(
                    "autoreset_mode must be 'next_step', 'same_step' or 'disabled', got {other:?}"
                )))
            }
        };
        let spec = spec.pool_spec(num_envs, autoreset);
        let words = entropy_words(&entropy);
        let mut poisoned = false;
        let mut pool = guarded(&mut poisoned, || Pool::new(spec, num_threads, &words))?;
        pool.pack_batches_of(batch_size);
        Ok(PoolCore {
            pool: Some(pool),
            results: vec![SlotResult::default(); num_envs],
            final_obs: vec![0; num_envs * spec.obs_bytes()],
            obs_shape: spec.obs_shape(),
            poisoned: false,
        })
    }

    #[getter]
    fn num_threads(&self) -> PyResult<usize> {
        Ok(self.pool()?.num_threads())
    }

    /// Sub-envs sent and not yet received.
    #[getter]
    fn in_flight(&self) -> PyResult<usize> {
        Ok(self.pool()?.in_flight())
    }

    /// Raises `AsyncOrderError` naming `call` while any sub-env is in flight.
    fn check_at_rest(&self, call: &str) -> PyResult<()> {
        self.pool()?
            .check_nothing_in_flight(call)
            .map_err(to_py_err)
    }

    /// Raises `AsyncOrderError` if a `recv` of `count` could never complete once `extra` more
    /// sub-envs are sent.
    fn check_receivable(&self, count: usize, extra: usize) -> PyResult<()> {
        self.pool()?
            .check_receivable(count, extra)
            .map_err(to_py_err)
    }

    /// For tests only: every later step of sub-env `env_id` first sleeps `delay` seconds, then
    /// fails as a bug would if `fail` (see `pool::Fault`).
    #[pyo3(signature = (env_id, *, delay, fail))]
    fn _inject_fault(&self, env_id: usize, delay: f64, fail: bool) -> PyResult<()> {
        let delay = Duration::try_from_secs_f64(delay)
            .map_err(|_| PyValueError::new_err(format!("bad delay {delay}")))?;
        let fault = Fault { delay, panic: fail };
        self.pool()?.inject_fault(env_id, fault).map_err(to_py_err)
    }

    /// For a process forked from the one that made the pool: lets go of its worker threads
    /// (they exist only in the parent) without tearing them down, so dropping it is safe.
    fn abandon(&mut self) -> PyResult<()> {
        self.pool_mut()?.abandon_threads();
        Ok(())
    }

    /// Drops queued work, waits for running jobs, and ends the worker threads. Idempotent.
    fn close(&mut self, py: Python<'_>) {
        if let Some(pool) = self.pool.take() {
            py.detach(|| drop(pool));
        }
    }

    /// Resets the sub-envs selected by `mask` (all when `None`); `seeds[i]` reseeds sub-env i.
    #[pyo3(signature = (*, seeds, mask, randomize, obs))]
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
        let pool = self.pool.as_mut().ok_or_else(closed)?;
        let mut poisoned = false;
        let result = py.detach(|| {
            guarded(&mut poisoned, || {
                pool.reset(&seeds, mask.as_deref(), randomize, out)
            })
        });
        // A full reset recovers from an interrupted step; a partial one does not.
        let full = mask.is_none() && result.is_ok();
        self.poisoned = poisoned || (self.poisoned && !full);
        result
    }

    /// Writes every sub-env's latest observation into `obs`.
    #[pyo3(signature = (*, obs))]
    fn observe(&self, obs: &Bound<'_, PyArrayDyn<u8>>) -> PyResult<()> {
        let mut obs = obs.readwrite();
        let len = obs.len();
        let out = batch_slice(&mut obs, len, "observation")?;
        self.pool()?.observe(out).map_err(to_py_err)
    }

    /// Steps every sub-env; writes the observations into `obs`.
    #[pyo3(signature = (*, actions, obs))]
    fn step(
        &mut self,
        py: Python<'_>,
        actions: &Bound<'_, PyAny>,
        obs: &Bound<'_, PyArrayDyn<u8>>,
    ) -> PyResult<StepResults> {
        self.check_not_poisoned()?;
        let n = self.pool()?.spec().num_envs;
        let acts = self.actions(actions, n)?;
        let mut obs = obs.readwrite();
        let len = obs.len();
        let out = batch_slice(&mut obs, len, "observation")?;
        let pool = self.pool.as_mut().ok_or_else(closed)?;
        let (results, fin) = (&mut self.results, &mut self.final_obs);
        let mut poisoned = false;
        py.detach(|| guarded(&mut poisoned, || pool.step(&acts, out, fin, results)))
            .inspect_err(|_| self.poisoned |= poisoned)?;
        let same_step = pool.spec().autoreset == AutoresetMode::SameStep;
        let ob = pool.spec().obs_bytes();
        let mut final_rows = Vec::new();
        if same_step {
            for (i, r) in self.results.iter().enumerate() {
                if r.reset {
                    final_rows.extend_from_slice(&self.final_obs[i * ob..(i + 1) * ob]);
                }
            }
        }
        self.results(py, self.results.iter().enumerate(), None, final_rows)
    }

    /// EnvPool's `send`: sub-envs `env_ids` step with `actions` in the background.
    #[pyo3(signature = (*, actions, env_ids))]
    fn send(&mut self, actions: &Bound<'_, PyAny>, env_ids: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_not_poisoned()?;
        let ids = self::env_ids(env_ids, self.pool()?.spec().num_envs)?;
        let acts = self.actions(actions, ids.len())?;
        let mut poisoned = false;
        let pool = self.pool_mut()?;
        guarded(&mut poisoned, || pool.send(&ids, &acts))
    }

    /// Resets sub-envs `env_ids` in the background; `seeds[k]` reseeds sub-env `env_ids[k]`.
    #[pyo3(signature = (*, env_ids, seeds, randomize))]
    fn send_reset(
        &mut self,
        env_ids: &Bound<'_, PyAny>,
        seeds: SeedWords,
        randomize: Option<bool>,
    ) -> PyResult<()> {
        let n = self.pool()?.spec().num_envs;
        let ids = self::env_ids(env_ids, n)?;
        let mut poisoned = false;
        let pool = self.pool_mut()?;
        guarded(&mut poisoned, || pool.send_reset(&ids, &seeds, randomize))?;
        // Resetting every sub-env recovers from an interrupted step.
        if ids.len() == n {
            self.poisoned = false;
        }
        Ok(())
    }

    /// EnvPool's `recv`: the first `count` sub-envs to finish, ascending. Their observations
    /// are written into `obs` if given, else handed over as `StepResults.obs` (the block a
    /// helper packed, without a copy). `timeout` in seconds (`None`: wait as long as it
    /// takes). A failed job raises, naming its sub-env; the others stay in flight for the
    /// next `recv`.
    #[pyo3(signature = (*, count, obs, timeout))]
    fn recv(
        &mut self,
        py: Python<'_>,
        count: usize,
        obs: Option<&Bound<'_, PyArrayDyn<u8>>>,
        timeout: Option<f64>,
    ) -> PyResult<StepResults> {
        let timeout = duration(timeout)?;
        let mut buffer = obs.map(|o| o.readwrite());
        let out = match &mut buffer {
            Some(b) => {
                let len = b.len();
                Some(batch_slice(b, len, "observation")?)
            }
            None => None,
        };
        let pool = self.pool.as_mut().ok_or_else(closed)?;
        // A failed job comes back as `SubEnvFailed`: only its sub-env needs a reset, and the
        // pool refuses it until then. Anything else internal needs a full reset.
        let mut poisoned = false;
        let got = py
            .detach(|| {
                guarded(&mut poisoned, || {
                    let got = pool.recv(count, timeout)?;
                    if let Some(out) = out {
                        if out.len() != got.obs.len() {
                            return Err(crate::support::error::Error::InvalidArgument(format!(
                                "observation buffer holds {} bytes, expected {}",
                                out.len(),
                                got.obs.len()
                            )));
                        }
                        out.copy_from_slice(&got.obs);
                    }
                    Ok(got)
                })
            })
            .inspect_err(|_| self.poisoned |= poisoned)?;
        let entries = got.ids.iter().copied().zip(&got.results);
        let handed = obs.is_none().then_some(got.obs);
        self.results(py, entries, handed, got.final_obs)
    }

    /// Gymnasium's `step_wait`/`reset_wait`: waits for every sub-env in flight, writes every
    /// sub-env's latest observation into `obs` and returns the results of those received. A
    /// failed job hands every sub-env back and requires `reset()`.
    #[pyo3(signature = (*, obs, timeout))]
    fn wait(
        &mut self,
        py: Python<'_>,
        obs: &Bound<'_, PyArrayDyn<u8>>,
        timeout: Option<f64>,
    ) -> PyResult<StepResults> {
        let timeout = duration(timeout)?;
        let mut obs = obs.readwrite();
        let len = obs.len();
        let out = batch_slice(&mut obs, len, "observation")?;
        let pool = self.pool.as_mut().ok_or_else(closed)?;
        let mut poisoned = false;
        let got = py
            .detach(|| guarded(&mut poisoned, || pool.wait_all(timeout, out)))
            .inspect_err(|_| self.poisoned |= poisoned)?;
        let entries = got.ids.iter().copied().zip(&got.results);
        self.results(py, entries, None, got.final_obs)
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
        self.with_env(i, |env| render_array(py, env, width, height, skid_marks))?
    }

    /// The state accessor `name` of sub-env `i` (`track`, `tile_visited`, `road_colors`,
    /// `palette`, `reward`, `tile_visited_count`, `t`, `new_lap`, `car_state`, `rng_state`,
    /// `has_episode`).
    fn attribute(&self, py: Python<'_>, i: usize, name: &str) -> PyResult<Py<PyAny>> {
        self.with_env(i, |env| accessors::state_attribute(py, env, name))?
    }

    /// Sets what sub-env `i` reads at its next reset, as Gymnasium's attributes are read.
    fn set_reset_options(
        &mut self,
        i: usize,
        lap_complete_percent: f64,
        domain_randomize: bool,
    ) -> PyResult<()> {
        self.with_env(i, |env| {
            env.set_reset_options(lap_complete_percent, domain_randomize)
        })?
        .map_err(to_py_err)
    }

    /// Replaces sub-env `i`'s generator (`np_random`'s PCG64 state).
    fn set_rng_state(&mut self, i: usize, state: RngState) -> PyResult<()> {
        self.with_env(i, |env| env.set_rng(generator_from(state)))
    }
}

/// Continuous actions from the rows of a `(count, 3)` array.
fn continuous<T: Copy + Into<f64>>(
    view: numpy::ndarray::ArrayView2<'_, T>,
    count: usize,
) -> PyResult<Vec<Action>> {
    if view.shape() != [count, 3] {
        return Err(InvalidAction::new_err(format!(
            "actions must have shape ({count}, 3), got {:?}",
            view.shape()
        )));
    }
    Ok(view
        .rows()
        .into_iter()
        .map(|r| Action::Continuous([r[0].into(), r[1].into(), r[2].into()]))
        .collect())
}

/// A timeout in seconds as a `Duration` (`None`: no timeout).
fn duration(timeout: Option<f64>) -> PyResult<Option<Duration>> {
    timeout
        .map(|t| {
            Duration::try_from_secs_f64(t).map_err(|_| {
                PyValueError::new_err(format!(
                    "timeout must be a non-negative number of seconds, got {t}"
                ))
            })
        })
        .transpose()
}
