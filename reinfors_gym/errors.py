"""Exceptions raised for bad input. Each subclasses both Gymnasium's error (so code that
catches Gymnasium's errors keeps working) and the matching builtin (ValueError/RuntimeError)."""

from __future__ import annotations

from gymnasium import error as gym_error


class InvalidAction(gym_error.InvalidAction, ValueError):
    """An action of the wrong shape, dtype or range, or containing NaN/inf."""


class InvalidSeed(gym_error.Error, ValueError):
    """A seed that is not a non-negative integer (or, for vector envs, a list of them)."""


class InvalidConfig(gym_error.Error, ValueError):
    """A constructor argument outside its domain (the message names it and its bound)."""


class ConcurrentCallError(gym_error.Error, RuntimeError):
    """A call made while another call on the same object is running in another thread. An
    environment, vector environment or engine serves one call at a time; `close()` is the
    exception: it waits for the running call, then closes."""


class ReadOnlyAttributeError(gym_error.Error, AttributeError):
    """A write to an attribute that cannot change after construction (`continuous`) or that
    reports the simulation's state (`track`, `reward`, ...): Gymnasium would take the write and
    then silently diverge from it."""


class ResetNeeded(gym_error.ResetNeeded, RuntimeError):
    """`step` or `render` called before the first `reset`."""


class ClosedEnvironmentError(gym_error.ClosedEnvironmentError, RuntimeError):
    """Any call after `close()` other than `close()` itself."""


class AsyncOrderError(gym_error.Error, RuntimeError):
    """A call out of order with the asynchronous API (`send`/`recv`, `step_async`): `recv`
    with nothing in flight, a sub-env sent twice, a synchronous call while sub-envs are in
    flight. Nothing changed; the environment stays usable."""


class InvalidEnvId(gym_error.Error, ValueError):
    """An `env_id` that names no sub-env, or names one twice in a call."""


__all__ = [
    "AsyncOrderError",
    "ClosedEnvironmentError",
    "ConcurrentCallError",
    "InvalidAction",
    "InvalidConfig",
    "InvalidEnvId",
    "InvalidSeed",
    "ReadOnlyAttributeError",
    "ResetNeeded",
]
