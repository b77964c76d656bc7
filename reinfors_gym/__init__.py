"""reinfors-gym: Gymnasium's CarRacing simulated in Rust.

Importing the package registers ``reinfors/CarRacing-v0``::

    import gymnasium as gym
    import reinfors_gym  # noqa: F401

    env = gym.make("reinfors/CarRacing-v0")
"""

from __future__ import annotations

import gymnasium as gym

from . import _core
from .allocator import keep_freed_memory
from .car_racing import CarRacingEnv, car_racing_env
from .engine import Batch, CollectStream, Engine, Reward, games, learners, policies
from .errors import (
    ClosedEnvironmentError,
    ConcurrentCallError,
    InvalidAction,
    InvalidConfig,
    InvalidSeed,
    ReadOnlyAttributeError,
    ResetNeeded,
)
from .spec import CarRacingSpec
from .vector import CarRacingVectorEnv

__version__: str = _core.__version__

ENV_ID = "reinfors/CarRacing-v0"


def _register_envs() -> None:
    """Registers our ids with Gymnasium (idempotent: re-imports must not warn)."""
    if ENV_ID not in gym.registry:
        gym.register(
            id=ENV_ID,
            entry_point="reinfors_gym.car_racing:CarRacingEnv",
            vector_entry_point="reinfors_gym.vector:CarRacingVectorEnv",
            max_episode_steps=1000,
            reward_threshold=900,
        )


_register_envs()

__all__ = [
    "ENV_ID",
    "Batch",
    "CollectStream",
    "Engine",
    "Reward",
    "games",
    "learners",
    "policies",
    "CarRacingEnv",
    "car_racing_env",
    "CarRacingVectorEnv",
    "CarRacingSpec",
    "ClosedEnvironmentError",
    "ConcurrentCallError",
    "InvalidAction",
    "InvalidConfig",
    "InvalidSeed",
    "ReadOnlyAttributeError",
    "ResetNeeded",
    "keep_freed_memory",
    "__version__",
]
