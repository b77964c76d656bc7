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
