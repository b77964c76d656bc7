"""`Batch`: one PPO-ready batch as the engine hands it out, time-major arrays and telemetry."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(repr=False)
class Batch:
    """One PPO-ready batch. Arrays are time-major: `[t, g]` is step t of game g.

    Fields, in order: ``obs`` (T, G, *obs_shape) uint8; ``actions`` (T, G, 3) float32 or
    (T, G) int64; ``behavior_log_probs``, ``values``, ``rewards`` (T, G) float32;
    ``terminations``, ``truncations`` (T, G) bool; ``advantages``, ``returns`` (T, G) float32;
    ``final_values`` (T, G) float32 (value of the final observation where an episode was
    truncated, NaN elsewhere); ``bootstrap_values`` (G,) float32 (value after the last step);
    ``episode_returns``, ``episode_lengths`` of the episodes that ended in this batch, and
    ``episode_scores``, their returns under Gymnasium's own reward (equal to the returns unless
    the ``Reward`` differs from Gymnasium's); ``weights_version`` (weights that collected the
    first step); ``telemetry``.
    """

    obs: np.ndarray
    actions: np.ndarray
    behavior_log_probs: np.ndarray
    values: np.ndarray
    rewards: np.ndarray
    terminations: np.ndarray
    truncations: np.ndarray
    advantages: np.ndarray
    returns: np.ndarray
    final_values: np.ndarray
    bootstrap_values: np.ndarray
    episode_returns: np.ndarray
    episode_lengths: np.ndarray
    episode_scores: np.ndarray
    weights_version: int = 0
    telemetry: dict[str, float] = field(default_factory=dict)

    FIELDS = (
        "obs",
        "actions",
        "behavior_log_probs",
        "values",
        "rewards",
        "terminations",
        "truncations",
        "advantages",
        "returns",
    )

    def __len__(self) -> int:
        """Records in the batch (steps x games)."""
        return int(self.rewards.size)

    def __repr__(self) -> str:
        """Shapes and dtypes, counts and the weights version; never the arrays' contents."""
        steps, games = self.rewards.shape if self.rewards.ndim == 2 else (0, 0)
        arrays = ", ".join(
            f"{name}={_describe(getattr(self, name))}"
            for name in (*self.FIELDS, "final_values", "bootstrap_values")
        )
        return (
            f"Batch(steps={steps}, games={games}, records={len(self)}, "
            f"episodes={len(self.episode_returns)}, weights_version={self.weights_version}, "
            f"{arrays})"
        )

    def flat(self) -> dict[str, np.ndarray]:
        """The PPO fields with time and game axes merged, ready for minibatching."""
        return {
            k: getattr(self, k).reshape(len(self), *getattr(self, k).shape[2:]) for k in self.FIELDS
        }


def _describe(a: np.ndarray) -> str:
    """`uint8(5, 3, 96, 96, 3)`: an array's dtype and shape."""
    return f"{a.dtype}{tuple(a.shape)}"
