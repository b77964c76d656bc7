"""Generalized advantage estimation (GAE) for the examples and the benchmarks: the one Python
copy of the recurrence the streaming collector computes in Rust (`gae` in
rust/src/collector/gae.rs), which tests/test_gae.py holds against the collector's batches.

Arrays are time-major: axis 0 is the step `t` of a rollout of `T` steps; any further axes are
independent sequences (sub-envs, games). For each sequence, backwards from `A[T] = 0`:

    delta[t] = rewards[t] + gamma * next_values[t] - values[t]
    A[t]     = delta[t] + gamma * lam * (1 - dones[t]) * A[t + 1]
    returns[t] = A[t] + values[t]

`next_values[t]` is the value step `t` bootstraps from, and it is where an episode's two kinds
of end differ (`next_values` picks it as the collector does):

- terminated at `t` (the episode is over): 0;
- truncated at `t` (cut by the time limit, not over): the value of its final observation;
- otherwise the next step's value, `values[t + 1]`, or after the rollout's last step the value
  of the observation after it (the batch's `bootstrap_values`).

`dones[t]` (terminated or truncated) cuts the chain in both cases, so that no advantage flows
from one episode into the one before it. Like the collector, the sums run in float64 and the
results come back in the dtype of `values`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def next_values(
    values: npt.ArrayLike,
    bootstrap_values: npt.ArrayLike,
    terminations: npt.ArrayLike,
    truncations: npt.ArrayLike | None = None,
    final_values: npt.ArrayLike | None = None,
) -> np.ndarray:
    """The value each step bootstraps from: 0 where it terminated, `final_values` where it was
    truncated, else the next step's value (`bootstrap_values` after the last step).

    Without `truncations` and `final_values`, the next step's value is already the final
    observation's where an episode was truncated: Gymnasium's `NEXT_STEP` autoreset observes
    the final observation on the step after `done`, and only a termination needs the 0."""
    values = np.asarray(values)
    following = np.concatenate([values[1:], np.asarray(bootstrap_values)[None]])
    if truncations is not None:
        assert final_values is not None, "truncated steps bootstrap from final_values"
        following = np.where(truncations, final_values, following)
    return np.where(terminations, 0.0, following).astype(values.dtype)


def gae(
    rewards: npt.ArrayLike,
    values: npt.ArrayLike,
    next_values: npt.ArrayLike,
    dones: npt.ArrayLike,
    gamma: float,
    lam: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and returns (`advantages + values`) of a time-major rollout, by the
    recurrence in this module's docstring."""
    values = np.asarray(values)
    rewards, next_values = np.asarray(rewards, np.float64), np.asarray(next_values, np.float64)
    goes_on = 1.0 - np.asarray(dones, np.float64)
    advantages = np.zeros(values.shape, np.float64)
    running = np.zeros(values.shape[1:], np.float64)
    for t in reversed(range(len(values))):
        delta = rewards[t] + gamma * next_values[t] - values[t]
        running = delta + gamma * lam * goes_on[t] * running
        advantages[t] = running
    return advantages.astype(values.dtype), (advantages + values).astype(values.dtype)
