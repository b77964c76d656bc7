//! The crate's one error type. The Python binding maps each variant to an exception once.

use std::fmt;

/// Everything that can go wrong when driving an environment from outside.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// An action that is malformed: wrong length, NaN or infinite, or outside `Discrete(5)`.
    InvalidAction(String),
    /// A constructor or reset argument that is out of its domain.
    InvalidArgument(String),
    /// A call made in the wrong state: `step` before `reset`, or any call after `close`.
    InvalidState(String),
    /// A sub-environment that must be reset before it steps again: never reset, finished with
    /// autoreset disabled, or interrupted by a failed job. Nothing moved.
    ResetNeeded(String),
    /// An `env_id` that names no sub-environment, or names one twice in a call. Nothing moved.
    InvalidEnvId(String),
    /// A call out of order with the asynchronous API: a sub-env sent while in flight, `recv`
    /// with too few in flight, a synchronous call or an accessor while sub-envs are in flight.
    /// Nothing moved.
    AsyncOrder(String),
    /// A wait that ran out of time; nothing was lost (the work stays in flight).
    Timeout(String),
    /// A bug on our side (a caught panic); the sub-envs involved need a reset.
    Internal(String),
    /// A bug on our side in one sub-environment's asynchronous job: that sub-env needs a reset
    /// (it is refused until then); the others, and their results, are intact.
    SubEnvFailed(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidAction(m)
            | Error::InvalidArgument(m)
            | Error::InvalidState(m)
            | Error::ResetNeeded(m)
            | Error::InvalidEnvId(m)
            | Error::AsyncOrder(m)
            | Error::Timeout(m)
            | Error::Internal(m)
            | Error::SubEnvFailed(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// The text a panic was raised with (`panic!`'s message), whatever its payload type.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}
