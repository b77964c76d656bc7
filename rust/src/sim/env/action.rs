//! Actions: their two kinds, the check Gymnasium's car would otherwise choke on, and
//! Gymnasium's mapping of each onto the car's controls.

use super::config::Config;
use crate::sim::car::Car;
use crate::support::error::{Error, Result};

/// One action, already checked for shape by the caller.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    /// `[steer, gas, brake]`, as float64. Finite values outside the box are passed on as
    /// Gymnasium does (gas is clipped by the car; steer and brake are not).
    Continuous([f64; 3]),
    /// 0 nothing, 1 steer right, 2 steer left, 3 gas, 4 brake.
    Discrete(i64),
}

/// Rejects actions Gymnasium would choke on: non-finite floats, discrete values outside
/// {0, 1, 2, 3, 4}, and the wrong kind for the configured action space.
pub fn validate(config: &Config, action: &Action) -> Result<()> {
    match (config.continuous, action) {
        (true, Action::Continuous(a)) => {
            if let Some(i) = a.iter().position(|v| !v.is_finite()) {
                return Err(Error::InvalidAction(format!(
                    "action[{i}] is {}; continuous actions must be finite [steer, gas, brake]",
                    a[i]
                )));
            }
            Ok(())
        }
        (false, Action::Discrete(a)) if (0..5).contains(a) => Ok(()),
        (false, Action::Discrete(a)) => Err(Error::InvalidAction(format!(
            "discrete action {a} is outside Discrete(5) (0 nothing, 1 right, 2 left, 3 gas, 4 brake)"
        ))),
        (true, Action::Discrete(_)) => Err(Error::InvalidAction(
            "continuous environment expects [steer, gas, brake], got a discrete action".into(),
        )),
        (false, Action::Continuous(_)) => Err(Error::InvalidAction(
            "discrete environment expects an integer in {0, 1, 2, 3, 4}, got a continuous action".into(),
        )),
    }
}

/// Gymnasium's mapping of actions to the car's controls.
pub(super) fn apply_action(car: &mut Car, action: Action) {
    match action {
        Action::Continuous([steer, gas, brake]) => {
            car.steer(-steer);
            car.gas(gas);
            car.brake(brake);
        }
        Action::Discrete(a) => {
            let is = |k: i64| if a == k { 1.0 } else { 0.0 };
            car.steer(-0.6 * is(1) + 0.6 * is(2));
            car.gas(0.2 * is(3));
            car.brake(0.8 * is(4));
        }
    }
}
