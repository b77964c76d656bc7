"""One sub-env of `CarRacingVectorEnv` as `call`/`get_attr`/`set_attr` reach it: what a
`CarRacingEnv` in an `AsyncVectorEnv` exposes, read from (and written to) the core's pool.
"""

from __future__ import annotations

import dataclasses
import math
import weakref
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
from gymnasium.envs.registration import EnvSpec

from ._rng import export_state, import_state
from .car_racing import READ_ONLY_ATTRIBUTES, CarRacingEnv
from .errors import ClosedEnvironmentError, ReadOnlyAttributeError
from .integrations import ENV_ID
from .spec import check_flag, check_real

if TYPE_CHECKING:
    from .vector import CarRacingVectorEnv


class _SubEnv:
    """What `call`/`get_attr`/`set_attr` reach of one sub-env: what a `CarRacingEnv` in an
    `AsyncVectorEnv` exposes (Gymnasium's attributes and our accessors), with equal values, the
    writes Gymnasium honours, and attributes the user sets."""

    # Read from the core on each access.
    _STATE = ("track", "tile_visited", "road_colors", "reward", "tile_visited_count", "t")
    _STATE_EXTRA = ("new_lap",)
    _PALETTE = ("road_color", "bg_color", "grass_color")
    # The vector env's own settings, the same for every sub-env.
    _SHARED = ("render_mode", "continuous", "verbose", "gymnasium_version", "lap_complete_rule")
    # Refused: they report the simulation's state, or are fixed by the vector env.
    _FIXED = frozenset(
        {
            *READ_ONLY_ATTRIBUTES,
            "render_mode",
            "verbose",
            "spec",
            "metadata",
            "unwrapped",
            "np_random_seed",
            "action_space",
            "observation_space",
        }
    )

    def __init__(self, owner: CarRacingVectorEnv, index: int):
        # A weak reference: the vector env holds its sub-envs, and a cycle back would keep a
        # dropped vector env (and its threads) alive until the cyclic GC runs.
        self._owner_ref = weakref.ref(owner)
        self._index = index
        self._extra: dict[str, Any] = {}
        # Read at each reset, as Gymnasium's CarRacing reads its attributes.
        self.lap_complete_percent = owner.lap_complete_percent
        self.domain_randomize = owner.domain_randomize

    @property
    def _owner(self) -> CarRacingVectorEnv:
        owner = self._owner_ref()
        if owner is None:
            raise ClosedEnvironmentError("the vector environment of this sub-env is gone")
        return owner

    def _state(self, name: str) -> Any:
        return self._owner._pool.attribute(self._index, name)

    def get(self, name: str) -> Any:
        """The attribute `name`, as `get_attr` reads it from an `AsyncVectorEnv` sub-env."""
        owner = self._owner
        if name in self._extra:
            return self._extra[name]
        if name in ("lap_complete_percent", "domain_randomize"):
            return getattr(self, name)
        if name in self._STATE or name in self._STATE_EXTRA:
            return self._state(name)
        if name in self._PALETTE:
            return np.array(self._state("palette")[self._PALETTE.index(name)])
        if name == "car_state":
            return lambda: self._state("car_state")
        if name == "render":
            return lambda: owner._render_one(self._index)
        if name in self._SHARED:
            return getattr(owner, name)
        if name == "np_random":
            generator = np.random.Generator(np.random.PCG64())
            import_state(generator, self._state("rng_state"))
            return generator
        if name == "np_random_seed":
            return owner._seeds[self._index]
        if name == "spec":
            return _single_env_spec(owner)
        if name == "metadata":
            return dict(CarRacingEnv.metadata)
        if name == "unwrapped":
            # What an AsyncVectorEnv hands back: the env re-created from its arguments.
            return CarRacingEnv(
                render_mode=owner.render_mode,
                verbose=owner.verbose,
                lap_complete_percent=self.lap_complete_percent,
                domain_randomize=self.domain_randomize,
                continuous=owner.continuous,
                gymnasium_version=owner._init_kwargs["gymnasium_version"],
                lap_complete_rule=owner._init_kwargs["lap_complete_rule"],
            )
        if name == "action_space":
            return owner.single_action_space
        if name == "observation_space":
            return owner.single_observation_space
        raise AttributeError(f"a reinfors/CarRacing-v0 sub-env has no attribute {name!r}")

    def set(self, name: str, value: Any) -> None:
        """`set_attr`'s write, with the effect Gymnasium's CarRacing gives it."""
        owner = self._owner
        if name in self._FIXED:
            why = (
                "it reports the simulation's state, which lives in the Rust core"
                if name in READ_ONLY_ATTRIBUTES and name != "continuous"
                else "it is fixed by the vector env (create a new one to change it)"
            )
            raise ReadOnlyAttributeError(f"sub-env attribute {name!r} cannot be set: {why}")
        if name == "lap_complete_percent":
            value = check_real(name, value, -math.inf, math.inf)
        elif name == "domain_randomize":
            value = check_flag(name, value)
        elif name == "np_random":
            if not isinstance(value, np.random.Generator):
                raise TypeError(f"np_random must be a numpy Generator, got {type(value)}")
            owner._pool.set_rng_state(self._index, export_state(value))
            owner._seeds[self._index] = -1  # as Gymnasium's np_random setter does
            return
        else:
            self._extra[name] = value
            return
        # The core first: if it refuses, nothing changed.
        lap = value if name == "lap_complete_percent" else self.lap_complete_percent
        randomize = value if name == "domain_randomize" else self.domain_randomize
        owner._pool.set_reset_options(self._index, lap, randomize)
        setattr(self, name, value)


def _single_env_spec(owner: CarRacingVectorEnv) -> EnvSpec:
    """The spec of a single env made with the vector env's settings (what a sub-env of an
    `AsyncVectorEnv` reports)."""
    base = gym.spec(ENV_ID)
    return dataclasses.replace(
        base,
        max_episode_steps=owner.max_episode_steps,
        kwargs={
            **base.kwargs,
            "continuous": owner.continuous,
            "domain_randomize": owner.domain_randomize,
            "lap_complete_percent": owner.lap_complete_percent,
            "render_mode": owner.render_mode,
            "verbose": owner.verbose,
        },
    )
