//! `PoolCore`: the vector env's pool, the engine behind `reinfors_gym.CarRacingVectorEnv`.

use numpy::{
    PyArray1, PyArray2, PyArray3, PyArrayDyn, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use super::{batch_slice, entropy_words, guarded, render_array, track_array, SeedWords, SpecArgs};
use crate::env::{Action, CarRacing};
use crate::pool::{AutoresetMode, Pool, SlotResult};

fn no_sub_env(i: usize) -> PyErr {
    PyValueError::new_err(format!("no sub-env {i}"))
}

/// Many CarRacing environments stepped in parallel (the engine behind
/// `reinfors_gym.CarRacingVectorEnv`).
#[pyclass(module = "reinfors_gym._core", name = "PoolCore")]
pub(super) struct PyPool {
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
        let words = entropy_words(&entropy);
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
