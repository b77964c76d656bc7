"""Scripted drivers for tests, parity checks and demos; they work on our env and Gymnasium's.

`TrackFollower` is a closed-loop driver: it reads the track geometry and the car's pose and
speed, steers toward a point a few tiles ahead and holds a target speed. It is deterministic,
so the same driver can be run in both simulators and their returns compared.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


class TrackFollower:
    """Pure-pursuit steering plus a speed governor.

    Args:
        track: `(N, 4)` rows of `(alpha, beta, x, y)` (Gymnasium's `env.track`).
        lookahead: tiles ahead of the nearest tile to aim at.
        target_speed: speed to hold. World units per second.
        steer_gain: steering action per radian of heading error.
    """

    def __init__(
        self,
        track: Any,
        lookahead: int = 6,
        target_speed: float = 40.0,
        steer_gain: float = 2.0,
        gas: float = 0.4,
    ):
        self.xy = np.asarray(track, dtype=np.float64)[:, 2:4]
        self.lookahead = lookahead
        self.target_speed = target_speed
        self.steer_gain = steer_gain
        self.gas = gas
        self.index = 0

    def act(self, position: Any, angle: float, velocity: Any) -> np.ndarray:
        """`[steer, gas, brake]` for a car at `position` heading `angle` moving at `velocity`."""
        n = len(self.xy)
        # Search near the last tile only, so a track passing close to itself cannot capture us.
        window = (self.index + np.arange(-5, 25)) % n
        dist = np.linalg.norm(self.xy[window] - np.asarray(position, dtype=np.float64), axis=1)
        self.index = int(window[int(np.argmin(dist))])
        target = self.xy[(self.index + self.lookahead) % n]
        fx, fy = -math.sin(angle), math.cos(angle)  # the car's forward axis is its local +y
        tx, ty = target[0] - position[0], target[1] - position[1]
        error = math.atan2(fx * ty - fy * tx, fx * tx + fy * ty)  # > 0: target on the left
        steer = float(np.clip(-self.steer_gain * error, -1.0, 1.0))
        speed = math.hypot(float(velocity[0]), float(velocity[1]))
        gas = self.gas if speed < self.target_speed else 0.0
        brake = 0.4 if speed > 1.3 * self.target_speed else 0.0
        return np.array([steer, gas, brake], dtype=np.float64)

    def act_ours(self, env: Any) -> np.ndarray:
        """Action for a `reinfors_gym.CarRacingEnv` (or a wrapper of one)."""
        s = env.unwrapped.car_state()
        return self.act(s["hull_position"], s["hull_angle"], s["hull_linear_velocity"])

    def act_gymnasium(self, env: Any) -> np.ndarray:
        """Action for Gymnasium's `CarRacing` (or a wrapper of one)."""
        hull = env.unwrapped.car.hull
        return self.act(hull.position, hull.angle, hull.linearVelocity)


# --------------------------------------------------------------------------- sub-env attributes

GYMNASIUM_ATTRIBUTES: tuple[str, ...] = (
    "np_random",
    "np_random_seed",
    "spec",
    "metadata",
    "unwrapped",
    "render_mode",
    "continuous",
    "verbose",
    "lap_complete_percent",
    "domain_randomize",
    "action_space",
    "observation_space",
    "track",
    "reward",
    "tile_visited_count",
    "t",
    "new_lap",
    "road_color",
    "bg_color",
    "grass_color",
)
"""Names `get_attr` reaches on a `CarRacing-v3` sub-env that ours defines too, with equal values
after the same seeds and actions (compare them with `same_attribute_value`)."""

SUB_ENV_ATTRIBUTES: tuple[str, ...] = (*GYMNASIUM_ATTRIBUTES, "tile_visited", "road_colors")
"""Every name `get_attr` must reach on a `reinfors/CarRacing-v0` sub-env: Gymnasium's, then our
accessors `tile_visited` (one bool per track row) and `road_colors` (`(M, 3)` uint8)."""

SUB_ENV_METHODS: tuple[str, ...] = ("car_state",)
"""Methods `call` must reach on a `reinfors/CarRacing-v0` sub-env (ours only)."""


def same_attribute_value(name: str, ours: Any, theirs: Any) -> bool:
    """Whether a sub-env attribute of ours equals Gymnasium's, by what the name means: generator
    states for `np_random`, the registration's settings for `spec` (not its id or entry point),
    the constructor arguments for `unwrapped` (a sub-env crosses a process boundary pickled, which
    re-creates it from them), values for arrays, spaces and scalars."""
    if name == "np_random":
        return bool(ours.bit_generator.state == theirs.bit_generator.state)
    if name == "spec":
        fields = ("max_episode_steps", "reward_threshold", "nondeterministic", "order_enforce")
        return all(getattr(ours, f) == getattr(theirs, f) for f in fields)
    if name == "unwrapped":
        return bool(
            ours._ezpickle_args == theirs._ezpickle_args
            and ours._ezpickle_kwargs == theirs._ezpickle_kwargs
        )
    if isinstance(ours, np.ndarray) or isinstance(theirs, (np.ndarray, list)):
        a, b = np.asarray(ours), np.asarray(theirs)
        return a.shape == b.shape and bool(np.array_equal(a, b))
    return bool(ours == theirs)
