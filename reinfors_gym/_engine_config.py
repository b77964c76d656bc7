"""What an `Engine` is built from, each checked when made: the game (`games.CarRacing`), the
reward's event weights (`Reward`), how actions are drawn (`policies.Ppo`) and what batches are
prepared for (`learners.Ppo`).
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from .errors import InvalidConfig
from .spec import CarRacingSpec, check_int


class Reward:
    """Weights of CarRacing's reward events. The defaults are Gymnasium's rules.

    Args:
        tile: total paid for visiting every tile once (each new tile pays ``tile / N``).
        step: paid every step (a time penalty when negative).
        off_playfield: paid instead, on the step the car leaves the playfield.
        off_road: paid per wheel that touches no road tile, every simulation step. Gymnasium
            has no such event (0 gives its reward); a penalty here is a shaping for training
            that makes cutting a corner or sliding off the road cost at once.
        skipped_tile: paid per tile the car passed without touching, on the step a wheel
            lands on a tile further on (the untouched run behind it, back to the nearest
            visited tile, at most 32 tiles). Gymnasium has no such event; it charges a skipped
            tile only at the time limit, when the lap fails to end.
    """

    EVENTS = ("tile", "step", "off_playfield", "off_road", "skipped_tile")

    def __init__(
        self,
        *,
        tile: float = 1000.0,
        step: float = -0.1,
        off_playfield: float = -100.0,
        off_road: float = 0.0,
        skipped_tile: float = 0.0,
    ):
        # The events are explicit keywords, so a misspelt one is a type error (mypy, pyright)
        # and a TypeError naming it at run time.
        weights = {
            "tile": tile,
            "step": step,
            "off_playfield": off_playfield,
            "off_road": off_road,
            "skipped_tile": skipped_tile,
        }
        for name, value in weights.items():
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise ValueError(f"reward weight {name} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"reward weight {name} must be finite, got {value}")
        self.tile, self.step, self.off_playfield, self.off_road, self.skipped_tile = map(
            float, weights.values()
        )

    def weights(self) -> tuple[float, float, float, float, float]:
        """The weights in `EVENTS` order, as the core takes them."""
        return self.tile, self.step, self.off_playfield, self.off_road, self.skipped_tile

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)}" for name in self.EVENTS)
        return f"Reward({fields})"


class games:  # noqa: N801 - a namespace, spelled like reinfors'
    """Games the engine can run."""

    @staticmethod
    def CarRacing(  # noqa: N802 - reinfors' constructor name
        continuous: bool = True,
        domain_randomize: bool = False,
        lap_complete_percent: float = 0.95,
        max_episode_steps: int | None = 1000,
        layout: str | None = None,
        *,
        channels_first: bool = False,
        frame_skip: int = 1,
        stack_num: int = 1,
        grayscale: bool = False,
        obs_size: tuple[int, int] = (96, 96),
        gymnasium_version: str | None = None,
        lap_complete_rule: str = "first_visit",
    ) -> CarRacingSpec:
        """CarRacing with pixel observations, `(96, 96, 3)` uint8 (`channels_first=True`:
        `(3, 96, 96)`, as the vector env's option of the same name); options as the Gymnasium
        env, plus the vector env's native preprocessing (`frame_skip`, `stack_num`,
        `grayscale`, `obs_size`) and the single env's `gymnasium_version` (None: the installed
        Gymnasium's frames) and `lap_complete_rule`, all checked here. `max_episode_steps`
        counts simulation steps. `layout` ("CHW" or "HWC") is the deprecated spelling of
        `channels_first`."""
        if layout is not None:
            if layout not in ("CHW", "HWC"):
                raise InvalidConfig(f"layout must be 'CHW' or 'HWC', got {layout!r}")
            if channels_first and layout == "HWC":
                raise InvalidConfig("layout='HWC' contradicts channels_first=True; pass only one")
            warnings.warn(
                'games.CarRacing(layout=...) is deprecated: use channels_first=True for "CHW" '
                '(the vector env\'s spelling); "HWC" is the default',
                DeprecationWarning,
                stacklevel=2,
            )
            channels_first = layout == "CHW"
        # Every option of the spec is a parameter here, under its own name.
        return CarRacingSpec.from_arguments(locals())


DISTRIBUTIONS = ("normal", "beta")


@dataclass(frozen=True)
class _PpoPolicy:
    distribution: str = "normal"

    def __post_init__(self) -> None:
        if self.distribution not in DISTRIBUTIONS:
            raise InvalidConfig(
                f"distribution must be one of {DISTRIBUTIONS}, got {self.distribution!r}"
            )


class policies:  # noqa: N801
    """How actions are drawn from the caller's network outputs (see the module docstring)."""

    @staticmethod
    def Ppo(distribution: str = "normal") -> _PpoPolicy:  # noqa: N802
        """Stochastic policy: categorical over logits for a discrete game; for a continuous one
        a diagonal Gaussian (``"normal"``: mean, log_std) or, per dimension, a Beta on the
        action's box (``"beta"``: alpha, beta)."""
        return _PpoPolicy(distribution)


@dataclass(frozen=True)
class _PpoLearner:
    gamma: float = 0.99
    lam: float = 0.95
    cut_without_progress: int | None = None
    cut_is_terminal: bool = False

    def __post_init__(self) -> None:
        for name in ("gamma", "lam"):
            v = getattr(self, name)
            if not (isinstance(v, numbers.Real) and 0.0 <= float(v) <= 1.0):
                raise ValueError(f"{name} must be within [0, 1], got {v!r}")
        if self.cut_without_progress is not None:
            steps = check_int("cut_without_progress", self.cut_without_progress, 1, 2**32 - 1)
            object.__setattr__(self, "cut_without_progress", steps)  # a NumPy int -> int
        if not isinstance(self.cut_is_terminal, (bool, np.bool_)):
            raise InvalidConfig(f"cut_is_terminal must be a bool, got {self.cut_is_terminal!r}")
        if self.cut_is_terminal and self.cut_without_progress is None:
            raise InvalidConfig("cut_is_terminal needs cut_without_progress (there is no cut)")
        object.__setattr__(self, "cut_is_terminal", bool(self.cut_is_terminal))


class learners:  # noqa: N801
    """What the engine prepares batches for."""

    @staticmethod
    def Ppo(  # noqa: N802
        gamma: float = 0.99,
        lam: float = 0.95,
        cut_without_progress: int | None = None,
        cut_is_terminal: bool = False,
    ) -> _PpoLearner:
        """GAE(gamma, lambda) advantages and returns, computed in Rust.

        `cut_without_progress`: simulation steps without a new tile after which a game's
        episode is cut, as a truncation (GAE bootstraps from the value of its last frame), and
        the game restarts, so that a car stuck off the road does not fill the batch until the
        time limit. Gymnasium has no such rule: it shapes training episodes only (episode
        returns and scores in the batch are those of the cut episodes). None never cuts.

        `cut_is_terminal`: the cut ends the episode as a termination instead (no bootstrap), so
        that a car stalled on the road is worth the rewards before the cut, not the value of
        a frame that looks like the road ahead."""
        return _PpoLearner(float(gamma), float(lam), cut_without_progress, cut_is_terminal)
