//! `CarRacingCore`: one environment, the engine behind `reinfors_gym.CarRacingEnv`.

use numpy::{PyArray1, PyArray2, PyArray3, PyArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyTuple};

use super::{
    accessors, batch_slice, generator_from, guarded, render_array, to_py_err, track_array,
    RngState, SpecArgs,
};
use crate::sim::env::{self, Action, CarRacing};

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

/// One CarRacing environment (the engine behind `reinfors_gym.CarRacingEnv`).
#[pyclass(module = "reinfors_gym._core")]
pub(super) struct CarRacingCore {
    env: CarRacing,
    /// Set when a panic interrupted a step; cleared by `reset`.
    poisoned: bool,
}

impl CarRacingCore {
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
        let out = batch_slice(&mut obs, env::OBS_BYTES, "observation")?;
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
impl CarRacingCore {
    #[new]
    #[pyo3(signature = (*, spec, rng_state))]
    fn new(spec: SpecArgs, rng_state: RngState) -> PyResult<Self> {
        let config = spec.config();
        let mut poisoned = false;
        let env = guarded(&mut poisoned, || {
            CarRacing::new(config, generator_from(rng_state))
        })?;
        Ok(CarRacingCore {
            env,
            poisoned: false,
        })
    }

    /// For tests: a wheel's contact with `tile`, begin then end (`CarRacing::touch_tile`).
    /// False when there is no such tile (or no episode).
    fn touch_tile(&mut self, tile: usize) -> bool {
        self.env.touch_tile(tile)
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
        let out = batch_slice(&mut obs, env::OBS_BYTES, "observation")?;
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
    /// anything else, which the Python method then handles (and words the errors) itself. It
    /// exists to skip the Python-side checks, conversion and `np.empty` on every step.
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

    /// One discrete step (an action in {0, 1, 2, 3, 4}); the frame goes into `obs`.
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
        accessors::road_colors(py, &self.env)
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
    /// The last reset's track attempts, in order: `(i1, i2)` of the lap each cut out of its
    /// traced points (`None` where none closed), and whether it succeeded (only the last).
    #[getter]
    fn track_attempts(&self) -> Vec<(Option<(usize, usize)>, bool)> {
        self.env
            .track_attempts()
            .iter()
            .map(|a| (a.lap, a.succeeded))
            .collect()
    }

    /// Sets what Gymnasium reads from its attributes at `reset`; call it just before `reset`.
    fn set_reset_options(
        &mut self,
        lap_complete_percent: f64,
        domain_randomize: bool,
    ) -> PyResult<()> {
        self.env
            .set_reset_options(lap_complete_percent, domain_randomize)
            .map_err(to_py_err)
    }
    #[getter]
    fn has_episode(&self) -> bool {
        self.env.has_episode()
    }

    /// Tile indices each wheel touches.
    fn wheel_tiles(&self, wheel: usize) -> PyResult<Vec<u32>> {
        if wheel >= 4 {
            return Err(PyValueError::new_err("wheel index must be in {0, 1, 2, 3}"));
        }
        Ok(self.env.wheel_tiles(wheel).to_vec())
    }

    /// The car's state as a dict of float64 arrays (see `reinfors_gym.CarRacingEnv.car_state`).
    fn car_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        accessors::car_state(py, &self.env)
    }
}
