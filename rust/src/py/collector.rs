//! `CollectorCore`: the PPO collector, the engine behind `reinfors_gym.Engine`.

use numpy::{PyArrayDyn, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::{batch_slice, entropy_words, guarded, owned_array, to_py_err, SeedWords, SpecArgs};
use crate::collector::{Collector, PolicyKind, RewardWeights, Rollout};
use crate::runtime::pool::AutoresetMode;

/// The PPO collector (the engine behind `reinfors_gym.Engine`).
#[pyclass(module = "reinfors_gym._core")]
pub(super) struct CollectorCore {
    collector: Collector,
    /// Per-observation shape, e.g. `(3, 96, 96)`.
    obs_shape: Vec<usize>,
    poisoned: bool,
}

#[pymethods]
impl CollectorCore {
    /// `distribution`: "normal" (a diagonal Gaussian) or "beta" for a continuous game; a
    /// discrete game's policy is categorical whatever it says.
    #[new]
    /// `cut_without_progress`: simulation steps without a new tile after which a game's
    /// episode is cut (`Collector::cut_without_progress`); None never cuts. `cut_is_terminal`:
    /// the cut ends the episode as a termination (`Collector::cut_is_terminal`).
    #[pyo3(signature = (*, spec, n_games, n_threads, entropy, sampling_seed, reward, distribution = "normal", cut_without_progress = None, cut_is_terminal = false))]
    #[allow(clippy::too_many_arguments)] // the keyword-only constructor Python calls
    fn new(
        spec: SpecArgs,
        n_games: usize,
        n_threads: usize,
        entropy: Vec<u128>,
        sampling_seed: u64,
        reward: (f64, f64, f64, f64, f64),
        distribution: &str,
        cut_without_progress: Option<u32>,
        cut_is_terminal: bool,
    ) -> PyResult<Self> {
        let pool_spec = spec.pool_spec(n_games, AutoresetMode::SameStep);
        let words = entropy_words(&entropy);
        let (tile, step, off_playfield, off_road, skipped_tile) = reward;
        let weights = RewardWeights {
            tile,
            step,
            off_playfield,
            off_road,
            skipped_tile,
        };
        let kind = match (pool_spec.config.continuous, distribution) {
            (false, _) => PolicyKind::Categorical,
            (true, "normal") => PolicyKind::Gaussian,
            (true, "beta") => PolicyKind::Beta,
            (true, other) => {
                return Err(PyValueError::new_err(format!(
                    "distribution must be 'normal' or 'beta', got {other:?}"
                )))
            }
        };
        let mut poisoned = false;
        let collector = guarded(&mut poisoned, || {
            let mut collector =
                Collector::new(pool_spec, n_threads, &words, sampling_seed, weights, kind)?;
            collector.cut_without_progress(cut_without_progress)?;
            collector.cut_is_terminal(cut_is_terminal);
            Ok(collector)
        })?;
        let obs_shape = pool_spec.obs_shape();
        Ok(CollectorCore {
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

    /// Drops any partial rollout (its memory too); the games' state carries on. Called when a
    /// collection starts and when one ends early (an error in `infer`, a stop, an interrupt),
    /// so a batch holds only its own steps.
    fn discard(&mut self) {
        self.collector.discard_partial();
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
        let result = py.detach(|| {
            guarded(&mut poisoned, || {
                collector.finish(&bootstrap_values, gamma, lam)
            })
        });
        self.poisoned |= poisoned;
        let r: Rollout = result?;
        let (t, n) = (r.steps, r.games);
        let d = PyDict::new(py);
        let mut obs_shape = vec![t, n];
        obs_shape.extend(&self.obs_shape);
        d.set_item("obs", owned_array(py, r.obs, &obs_shape)?)?;
        match self.collector.kind() {
            PolicyKind::Gaussian | PolicyKind::Beta => {
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
