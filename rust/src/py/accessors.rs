//! What a CarRacing environment shows Python beyond its observations, for the single env's
//! accessors and the vector env's `get_attr`/`call` alike.

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyAttributeError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;

use super::track_array;
use crate::sim::env::CarRacing;

/// Current colour of every road polygon (tiles and kerbs, draw order), `(M, 3)` uint8.
pub(super) fn road_colors<'py>(py: Python<'py>, env: &CarRacing) -> Bound<'py, PyArray2<u8>> {
    let flat: Vec<u8> = env.road().iter().flat_map(|p| p.color).collect();
    PyArray1::from_vec(py, flat)
        .reshape([env.road().len(), 3])
        .expect("M*3 elements reshape to (M, 3)")
}

/// The car's state as a dict of float64 arrays (see `reinfors_gym.CarRacingEnv.car_state`).
pub(super) fn car_state<'py>(py: Python<'py>, env: &CarRacing) -> PyResult<Bound<'py, PyDict>> {
    let s = env
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

/// The state accessor `name` of `env`, for the vector env's sub-envs.
pub(super) fn state_attribute(py: Python<'_>, env: &CarRacing, name: &str) -> PyResult<Py<PyAny>> {
    match name {
        "track" => track_array(py, env).into_py_any(py),
        "tile_visited" => PyArray1::from_slice(py, env.tile_visited()).into_py_any(py),
        "road_colors" => road_colors(py, env).into_py_any(py),
        "palette" => {
            let p = env.palette();
            (p.road, p.bg, p.grass).into_py_any(py)
        }
        "reward" => env.reward().into_py_any(py),
        "tile_visited_count" => env.tile_visited_count().into_py_any(py),
        "t" => env.t().into_py_any(py),
        "new_lap" => env.new_lap().into_py_any(py),
        "car_state" => car_state(py, env)?.into_py_any(py),
        "rng_state" => env.rng().pcg64_full_state().into_py_any(py),
        "has_episode" => env.has_episode().into_py_any(py),
        other => Err(PyAttributeError::new_err(format!(
            "no state accessor {other:?}"
        ))),
    }
}
