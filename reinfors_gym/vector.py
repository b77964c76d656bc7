"""`CarRacingVectorEnv`: a drop-in for `AsyncVectorEnv` over `reinfors/CarRacing-v0`.

All sub-environments live in one Rust pool and are stepped by its worker threads with the GIL
released, writing into one preallocated observation batch. Semantics follow Gymnasium 1.x's
vector API: the three autoreset modes, `seed + i` seeding, `_key` info masks, `final_obs` /
`final_info` in `SAME_STEP`, `reset_mask` for `DISABLED`.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import secrets
import weakref
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import error as gym_error
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import _core
from ._guard import CallGuard
from ._rng import check_seed, export_state, import_state, seed_words
from .car_racing import (
    FPS,
    READ_ONLY_ATTRIBUTES,
    VIDEO_SHAPE,
    CarRacingEnv,
    continuous_action_space,
)
from .errors import (
    ClosedEnvironmentError,
    InvalidAction,
    InvalidConfig,
    InvalidEnvId,
    InvalidSeed,
    ReadOnlyAttributeError,
)
from .integrations import ENV_ID
from .spec import CarRacingSpec, check_flag, check_real, check_threads

_MODES = {
    AutoresetMode.NEXT_STEP: "next_step",
    AutoresetMode.SAME_STEP: "same_step",
    AutoresetMode.DISABLED: "disabled",
}


def parse_autoreset_mode(mode: object) -> AutoresetMode:
    """An `AutoresetMode`, or its value or name in any case ("NextStep", "next_step", ...)."""
    if isinstance(mode, AutoresetMode):
        return mode
    if isinstance(mode, str):
        key = mode.replace("_", "").replace("-", "").lower()
        for m in AutoresetMode:
            if key in (m.value.lower(), m.name.replace("_", "").lower()):
                return m
    raise InvalidConfig(
        f"autoreset_mode must be one of {[m.value for m in AutoresetMode]}, got {mode!r}"
    )


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
            return owner._sub_env_spec()
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


class CarRacingVectorEnv(VectorEnv):
    """`num_envs` CarRacing environments stepped in parallel by Rust threads.

    Args:
        num_envs: number of sub-environments.
        num_threads: worker threads (default: the cores available to this process); more than
            the cores or the sub-envs is accepted and capped (``env.num_threads`` is what is
            used). Whether the helper threads join a step is decided from measured step cycles
            (see docs/architecture.md, "Threads"); results never depend on it.
        autoreset_mode: Gymnasium's `AutoresetMode` (or its string value).
        max_episode_steps: truncation limit in simulation steps (`None`: no limit).
        render_mode: `None`, `"rgb_array"` (600x400 frames) or `"state_pixels"`.
        continuous, domain_randomize, lap_complete_percent, verbose: as the single env.
        gymnasium_version, lap_complete_rule: as the single env (None: the installed
            Gymnasium's frames).
        frame_skip: simulation steps per `step` (rewards summed, last frame returned).
        stack_num: frames stacked along a leading axis (Gymnasium's `FrameStackObservation`
            layout, padded with the reset frame).
        grayscale: one luminance channel (Gymnasium's `GrayscaleObservation` weights).
        obs_size: `(height, width)` of frames, drawn natively at that resolution.
        channels_first: `(3, H, W)` frames (PyTorch's layout) instead of `(H, W, 3)`.
        copy: return a fresh observation array (True) or the shared buffer (False).
        batch_size: sub-envs per :meth:`recv` (EnvPool's asynchronous API; default
            ``num_envs``). With fewer than ``num_envs``, ``recv`` returns the first
            ``batch_size`` sub-envs to finish while the others keep stepping.
    """

    def __init__(
        self,
        num_envs: int = 1,
        *,
        num_threads: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        max_episode_steps: int | None = 1000,
        render_mode: str | None = None,
        continuous: bool = True,
        domain_randomize: bool = False,
        lap_complete_percent: float = 0.95,
        verbose: bool = False,
        frame_skip: int = 1,
        stack_num: int = 1,
        grayscale: bool = False,
        obs_size: tuple[int, int] = (96, 96),
        channels_first: bool = False,
        gymnasium_version: str | None = None,
        lap_complete_rule: str = "first_visit",
        copy: bool = True,
        batch_size: int | None = None,
    ):
        # The arguments, for pickling (a copy is a new vector env made with them).
        self._init_kwargs = {
            k: v for k, v in locals().items() if k not in ("self", "__class__", "num_envs")
        }
        self._init_kwargs["num_threads"] = num_threads
        # Every argument is checked before anything is allocated (see `spec.py`).
        spec = CarRacingSpec.create(
            continuous=continuous,
            domain_randomize=domain_randomize,
            lap_complete_percent=lap_complete_percent,
            max_episode_steps=max_episode_steps,
            frame_skip=frame_skip,
            stack_num=stack_num,
            grayscale=grayscale,
            obs_size=obs_size,
            channels_first=channels_first,
            gymnasium_version=gymnasium_version,
            lap_complete_rule=lap_complete_rule,
        )
        self.num_envs = spec.check_batch(num_envs)
        num_threads = check_threads("num_threads", num_threads)
        self.autoreset_mode = parse_autoreset_mode(autoreset_mode)
        self.batch_size = self._check_batch_size(batch_size)
        if render_mode not in (None, "rgb_array", "state_pixels"):
            raise InvalidConfig(
                f"render_mode must be None, 'rgb_array' or 'state_pixels', got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.continuous = spec.continuous
        self.domain_randomize = spec.domain_randomize
        self.lap_complete_percent = spec.lap_complete_percent
        self.verbose = check_flag("verbose", verbose)
        self.max_episode_steps = spec.max_episode_steps
        self.frame_skip = spec.frame_skip
        self.stack_num = spec.stack_num
        self.grayscale = spec.grayscale
        self.channels_first = spec.channels_first
        self.gymnasium_version = spec.gymnasium_version
        self.lap_complete_rule = spec.lap_complete_rule
        self.copy = check_flag("copy", copy)
        self.metadata = {
            "render_modes": ["rgb_array", "state_pixels"],
            "render_fps": FPS // self.frame_skip,
            "autoreset_mode": self.autoreset_mode,
        }
        obs_shape = spec.obs_shape
        self._guard = CallGuard("vector environment")
        # Each sub-env's generator seed (Gymnasium's `np_random_seed`): OS entropy until a
        # seeded reset, as an unseeded Gymnasium env draws it.
        self._seeds = [secrets.randbits(128) for _ in range(self.num_envs)]
        self._pool = _core.PoolCore(
            spec=spec.core_args(),
            num_envs=self.num_envs,
            num_threads=num_threads,
            autoreset_mode=_MODES[self.autoreset_mode],
            entropy=self._seeds,
            batch_size=self.batch_size,
        )
        self.single_observation_space = spaces.Box(0, 255, obs_shape, np.uint8)
        self.single_action_space = (
            continuous_action_space() if self.continuous else spaces.Discrete(5)
        )
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

        self.num_threads = self._pool.num_threads
        n = self.num_envs
        # The latest observation batch. With `copy=False` it is the one shared buffer every
        # call writes (`_batch_obs` for `recv`); with `copy=True` each call writes a new
        # array (`recv`: the block the core packed), returned as is and never written again.
        self._obs = np.zeros((n, *obs_shape), np.uint8)
        self._batch_obs: np.ndarray | None = (
            None if self.copy else np.zeros((self.batch_size, *obs_shape), np.uint8)
        )
        self._all_ids = np.arange(n, dtype=np.int64)
        # Which sub-envs are in flight is the core's to know (its board): this class asks it
        # and translates its refusals, and keeps no copy that could drift from it.
        self._has_reset = False
        self._sub_envs = [_SubEnv(self, i) for i in range(n)]
        # The `*_async` call whose results the matching `*_wait` collects.
        self._pending: str | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        """A pickled vector env is re-created from its arguments, as Gymnasium's `EzPickle`
        does for single envs: the copy is a new, not yet reset, vector env (its sub-envs'
        state and worker threads cannot cross a process boundary)."""
        return (_rebuild_vector_env, (self.num_envs, self._init_kwargs))

    # ------------------------------------------------------------------ reset

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        self._guard.enter("reset")
        try:
            self._check_synchronous("reset")
            seeds, mask, randomize = self._reset_args(seed, options)
            obs = self._next_obs()
            self._pool.reset(
                seeds=self._seed_words(seeds, mask),
                mask=None if mask is None else mask.tolist(),
                randomize=randomize,
                obs=obs,
            )
            self._commit_seeds(seeds, mask)
            self._obs = obs
            return obs, {}
        finally:
            self._guard.exit()

    def reset_async(
        self,
        seed: int | list[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        """Starts a reset on the worker threads and returns at once; collect it with
        :meth:`reset_wait`."""
        self._guard.enter("reset_async")
        try:
            self._check_synchronous("reset_async")
            seeds, mask, randomize = self._reset_args(seed, options)
            ids = self._all_ids if mask is None else np.flatnonzero(mask)
            self._send_reset(ids, seeds, randomize)
            self._commit_seeds(seeds, mask)
            self._pending = "reset"
        finally:
            self._guard.exit()

    def reset_wait(self, timeout: float | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Finishes :meth:`reset_async`: every sub-env's observation (the first of its new
        episode where it was reset, else its latest)."""
        self._guard.enter("reset_wait")
        try:
            self._take_pending("reset")
            obs = self._next_obs()
            self._wait(obs, timeout, pending="reset")
            self._obs = obs
            return obs, {}
        finally:
            self._guard.exit()

    def async_reset(
        self,
        seed: int | list[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        """EnvPool's `async_reset`: resets every sub-env (those of ``options["reset_mask"]``)
        on the worker threads and returns at once. Their first observations come from
        :meth:`recv`, ``batch_size`` at a time, each with its ``info["env_id"]``."""
        self._guard.enter("async_reset")
        try:
            self._check_ready()
            seeds, mask, randomize = self._reset_args(seed, options)
            ids = self._all_ids if mask is None else np.flatnonzero(mask)
            self._send_reset(ids, seeds, randomize)
            self._commit_seeds(seeds, mask)
        finally:
            self._guard.exit()

    def _reset_args(
        self, seed: object, options: object
    ) -> tuple[list[int | None], np.ndarray | None, bool | None]:
        seeds = self._seed_list(seed)
        mask = None
        randomize = None
        if options is not None:
            if not isinstance(options, dict):
                raise TypeError(f"options must be a dict or None, got {type(options).__name__}")
            if "reset_mask" in options:
                # Popped from the caller's dict, as Gymnasium's vector envs do: wrappers read
                # it after the env's reset (RecordEpisodeStatistics then resets every sub-env's
                # statistics, not the masked ones).
                mask = self._check_reset_mask(options.pop("reset_mask"))
            if "randomize" in options:
                randomize = bool(options["randomize"])
        return seeds, mask, randomize

    def _seed_words(
        self, seeds: list[int | None], mask: np.ndarray | None
    ) -> list[list[int] | None]:
        return [
            None if s is None or (mask is not None and not mask[i]) else seed_words(s)
            for i, s in enumerate(seeds)
        ]

    def _commit_seeds(self, seeds: list[int | None], mask: np.ndarray | None) -> None:
        for i, s in enumerate(seeds):
            if s is not None and (mask is None or mask[i]):
                self._seeds[i] = s
        if mask is None:
            self._has_reset = True

    def _send_reset(self, ids: np.ndarray, seeds: list[int | None], randomize: bool | None) -> None:
        words = [None if seeds[i] is None else seed_words(seeds[i]) for i in ids.tolist()]
        self._pool.send_reset(env_ids=ids, seeds=words, randomize=randomize)

    @property
    def np_random_seed(self) -> tuple[int, ...]:  # type: ignore[override]
        """Each sub-env's generator seed, as `SyncVectorEnv.np_random_seed` reports it."""
        self._check_open()
        return tuple(self._seeds)

    def _sub_env_spec(self) -> EnvSpec:
        """The spec of a single env made with this vector env's settings (what a sub-env of an
        `AsyncVectorEnv` reports)."""
        base = gym.spec(ENV_ID)
        return dataclasses.replace(
            base,
            max_episode_steps=self.max_episode_steps,
            kwargs={
                **base.kwargs,
                "continuous": self.continuous,
                "domain_randomize": self.domain_randomize,
                "lap_complete_percent": self.lap_complete_percent,
                "render_mode": self.render_mode,
                "verbose": self.verbose,
            },
        )

    # ------------------------------------------------------------------ step

    def step(
        self, actions: Any, env_id: Any = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Gymnasium's synchronous step over every sub-env; with `env_id`, EnvPool's
        ``send(actions, env_id)`` then ``recv()``."""
        if env_id is not None:
            self._guard.enter("step")
            try:
                self._check_ready()
                ids = self._env_ids(env_id)
                # Checked before sending: a refused step leaves nothing in flight.
                self._pool.check_receivable(count=self.batch_size, extra=len(ids))
                self._send(actions, ids)
                return self._recv(None)
            finally:
                self._guard.exit()
        # The synchronous path calls the core directly: no future, and the action checks the
        # core repeats anyway are left to it (see `_run_step`). Per-batch Python time is
        # what limits thread scaling on small batches.
        self._guard.enter("step")
        try:
            self._check_steppable("step")
            obs = self._next_obs()
            acts = self._coerce_actions(actions, self.num_envs, check_values=False)
            res = self._run_step(acts, actions, obs)
            self._obs = obs
            return obs, res.rewards, res.terminated, res.truncated, self._infos(res)
        finally:
            self._guard.exit()

    def step_async(self, actions: Any) -> None:
        """Hands every sub-env (a copy of) `actions` and returns at once; collect the results
        with :meth:`step_wait`. The worker threads step them in the background where a core is
        free; where helpers stepping beside your own work would slow it (a policy on every
        core), :meth:`step_wait` steps them instead."""
        self._guard.enter("step_async")
        try:
            self._check_steppable("step_async")
            acts = self._coerce_actions(actions, self.num_envs)
            self._pool.send(actions=acts, env_ids=self._all_ids)
            self._pending = "step"
        finally:
            self._guard.exit()

    def step_wait(
        self, timeout: float | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Finishes :meth:`step_async` (the same results as :meth:`step`)."""
        self._guard.enter("step_wait")
        try:
            self._take_pending("step")
            obs = self._next_obs()
            res = self._wait(obs, timeout, pending="step")
            self._obs = obs
            return obs, res.rewards, res.terminated, res.truncated, self._infos(res)
        finally:
            self._guard.exit()

    # ------------------------------------------------------------------ EnvPool's async API

    def send(self, actions: Any, env_id: Any = None) -> None:
        """EnvPool's `send`: sub-envs `env_id` (default: all) get (a copy of) `actions` (one
        row each; float32 or float64) and `send` returns at once. The worker threads step them
        in the background where a core is free; otherwise :meth:`recv` steps them."""
        self._guard.enter("send")
        try:
            self._check_ready()
            self._send(actions, self._all_ids if env_id is None else env_id)
        finally:
            self._guard.exit()

    def recv(
        self, timeout: float | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """EnvPool's `recv`: the first ``batch_size`` sub-envs to finish, as ``(obs, rewards,
        terminated, truncated, info)`` with ``info["env_id"]`` naming them (ascending).
        While it waits, the calling thread steps queued sub-envs too. Raises
        :class:`AsyncOrderError` when fewer than ``batch_size`` are in flight."""
        self._guard.enter("recv")
        try:
            return self._recv(timeout)
        finally:
            self._guard.exit()

    def _send(self, actions: Any, env_id: Any) -> None:
        """Hands `actions` for sub-envs `env_id` to the core, which checks everything (ids,
        what is in flight, the actions, the autoreset mode's rules) before any job is queued.
        It takes the arrays a loop has (`info["env_id"]`, a policy's float32 or float64
        actions) as they are; anything else it refuses with `TypeError`, and is converted
        here first."""
        try:
            self._pool.send(actions=actions, env_ids=env_id)
        except TypeError:
            ids = self._env_ids(env_id)
            a = self._coerce_actions(actions, len(ids), check_values=False)
            self._pool.send(actions=a, env_ids=ids)

    def _recv(
        self, timeout: float | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        self._check_ready()
        res = self._pool.recv(
            count=self.batch_size, obs=self._batch_obs, timeout=_checked_timeout(timeout)
        )
        obs = res.obs if res.obs is not None else self._batch_obs
        assert obs is not None
        infos = self._infos(res)
        infos["env_id"] = res.env_ids
        return obs, res.rewards, res.terminated, res.truncated, infos

    def _wait(self, obs: np.ndarray, timeout: float | None, pending: str) -> _core.StepResults:
        """Everything in flight from the core (every sub-env's observation into `obs`); a
        timeout leaves it in flight and `pending` pending."""
        try:
            return self._pool.wait(obs=obs, timeout=_checked_timeout(timeout))
        except TimeoutError:
            self._pending = pending
            raise

    def _env_ids(self, env_id: Any) -> np.ndarray:
        """`env_id` as a 1-D int32/int64 array (the core checks range, repeats and flight)."""
        if type(env_id) is np.ndarray and env_id.ndim == 1 and env_id.dtype in _ID_DTYPES:
            return env_id
        ids = np.asarray(env_id)
        if ids.ndim == 0:
            ids = ids.reshape(1)
        if ids.ndim != 1 or ids.dtype.kind not in "iu":
            raise InvalidEnvId(
                f"env_id must be integers of shape (k,), got {ids.shape} {ids.dtype}"
            )
        if ids.dtype.kind == "u" and len(ids) and ids.max() >= self.num_envs:
            bad = sorted({int(i) for i in ids if i >= self.num_envs})
            raise InvalidEnvId(f"env_id {bad} out of range: sub-envs are 0 to {self.num_envs - 1}")
        return ids.astype(np.int64, copy=False)

    # ------------------------------------------------------------------ step internals

    def _check_synchronous(self, call: str) -> None:
        self._check_ready()
        self._pool.check_at_rest(call)

    def _check_steppable(self, call: str) -> None:
        """The core refuses a step while sub-envs are in flight, and names a sub-env that
        needs a reset; this names a vector env never reset as a whole."""
        self._check_ready()
        if not self._has_reset:
            raise gym_error.ResetNeeded(f"{call}() called before reset(); call reset() first")

    def _take_pending(self, name: str) -> None:
        self._check_open()
        if self._pending != name:
            raise gym_error.NoAsyncCallError(
                f"calling `{name}_wait` without any prior call to `{name}_async`", name
            )
        self._pending = None

    def _run_step(self, acts: np.ndarray, actions: Any, obs: np.ndarray) -> _core.StepResults:
        """Steps the core, writing observations into `obs`."""
        try:
            return self._pool.step(actions=acts, obs=obs)
        except ValueError:
            # The core refused an action (NaN/inf, out of range) before touching any sub-env:
            # re-check in Python for the message naming every offending sub-env.
            self._coerce_actions(actions, self.num_envs)
            raise

    def _infos(self, res: _core.StepResults) -> dict[str, Any]:
        """Gymnasium's vector infos of a step's results (over the sub-envs they cover)."""
        infos: dict[str, Any] = {}
        if not (res.any_reset or res.any_lap):
            return infos  # most steps: the core built none of the arrays below
        lap = res.lap_finished
        assert lap is not None
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            if res.any_reset:
                done, rows = res.was_reset, res.final_obs
                assert done is not None and rows is not None
                final_obs = np.full(len(done), None, dtype=object)
                for i, row in zip(np.flatnonzero(done), rows, strict=True):
                    final_obs[i] = row
                final_info: dict[str, Any] = {}
                lap_mask = done & (lap >= 0)
                if lap_mask.any():
                    final_info["lap_finished"] = lap == 1
                    final_info["_lap_finished"] = lap_mask
                infos.update(
                    final_obs=final_obs, _final_obs=done, final_info=final_info, _final_info=done
                )
        elif res.any_lap:
            infos["lap_finished"] = lap == 1
            infos["_lap_finished"] = lap >= 0
        return infos

    # ------------------------------------------------------------------ the rest of the API

    def render(self) -> tuple[np.ndarray | None, ...] | None:
        self._guard.enter("render")
        try:
            self._check_accessible("render")
            if self.render_mode is None:
                from gymnasium import logger

                logger.warn("You are calling render method without specifying any render mode.")
                return None
            return tuple(self._render_one(i) for i in range(self.num_envs))
        finally:
            self._guard.exit()

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Calls (or reads, if not callable) `name` on every sub-env."""
        self._guard.enter("call")
        try:
            self._check_accessible("call")
            out = []
            for sub in self._sub_envs:
                attr = sub.get(name)
                out.append(attr(*args, **kwargs) if callable(attr) else attr)
            return tuple(out)
        finally:
            self._guard.exit()

    def get_attr(self, name: str) -> tuple[Any, ...]:
        self._guard.enter("get_attr")
        try:
            self._check_accessible("get_attr")
            return tuple(sub.get(name) for sub in self._sub_envs)
        finally:
            self._guard.exit()

    def set_attr(self, name: str, values: list[Any] | tuple[Any, ...] | Any) -> None:
        self._guard.enter("set_attr")
        try:
            self._check_accessible("set_attr")
            if not isinstance(values, (list, tuple)):
                values = [values] * self.num_envs
            if len(values) != self.num_envs:
                raise ValueError(
                    f"values must have one entry per sub-env ({self.num_envs}), got {len(values)}"
                )
            for sub, value in zip(self._sub_envs, values, strict=True):
                sub.set(name, value)
        finally:
            self._guard.exit()

    def close(self, **kwargs: Any) -> None:
        """Closes the vector env: safe from any thread at any time, idempotent. A call running
        in another thread (a pending `step_async` included) is waited for first."""
        if not hasattr(self, "_guard"):
            return  # construction failed before anything was made (Gymnasium <= 1.2's
            # VectorEnv.__del__ still calls close())
        self._guard.enter_closing()
        try:
            if not self.closed:
                self.close_extras(**kwargs)
                self.closed = True
        finally:
            self._guard.exit()

    def close_extras(self, **kwargs: Any) -> None:
        """Work in flight is dropped (queued sub-envs) or finished (running ones, which take
        milliseconds), then the worker threads end; none outlives this call."""
        if self._guard.forked:
            # The pool's worker threads exist only in the parent: never join them here.
            self._pool.abandon()
        self._pool.close()
        self._pending = None

    # ------------------------------------------------------------------ internals

    def _next_obs(self) -> np.ndarray:
        """Where the next call writes its observations: a new array with `copy=True` (returned
        without copying), else the shared buffer."""
        return np.empty_like(self._obs) if self.copy else self._obs

    def _render_one(self, i: int) -> np.ndarray | None:
        if not self._has_reset:
            return None
        if self.render_mode == "rgb_array":
            return self._pool.render(i, VIDEO_SHAPE[1], VIDEO_SHAPE[0], True)
        if self.render_mode == "state_pixels":
            return self._pool.render(i, 96, 96, False)
        return None

    def _check_open(self) -> None:
        if self.closed:
            raise ClosedEnvironmentError("this vector environment is closed; create a new one")
        self._guard.check_same_process()

    def _check_accessible(self, call: str) -> None:
        """Accessors read and change sub-envs: refused while any is in flight, where a job
        queued or running would race them (`AsyncOrderError`, nothing changed)."""
        self._check_ready()
        self._pool.check_at_rest(call)

    def _check_ready(self) -> None:
        self._check_open()
        if self._pending is not None:
            raise gym_error.AlreadyPendingCallError(
                f"a call to `{self._pending}_async` is still pending; "
                f"call `{self._pending}_wait` first",
                self._pending,
            )

    def _check_batch_size(self, batch_size: object) -> int:
        if batch_size is None:
            return self.num_envs
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral):
            raise InvalidConfig(f"batch_size must be an int or None, got {batch_size!r}")
        if not 1 <= batch_size <= self.num_envs:
            raise InvalidConfig(
                f"batch_size must be between 1 and num_envs={self.num_envs}, got {batch_size}"
            )
        return int(batch_size)

    def _seed_list(self, seed: object) -> list[int | None]:
        """Gymnasium's vector rule: an int seeds sub-env i with `seed + i`; a list gives each
        sub-env its own (None: not reseeded). Each seed follows the single env's rule."""
        if seed is None:
            return [None] * self.num_envs
        if isinstance(seed, numbers.Integral):
            base = check_seed(seed)
            assert base is not None
            return [base + i for i in range(self.num_envs)]
        if isinstance(seed, (list, tuple)):
            if len(seed) != self.num_envs:
                raise InvalidSeed(
                    f"If seeds are passed as a list the length must match num_envs="
                    f"{self.num_envs} but got length={len(seed)}."
                )
            return [check_seed(s) for s in seed]
        raise InvalidSeed(f"seed must be None, an int or a list of ints, got {seed!r}")

    def _check_reset_mask(self, mask: object) -> np.ndarray:
        if not isinstance(mask, np.ndarray):
            raise TypeError(f"`options['reset_mask']` must be a numpy array, got {type(mask)}")
        if mask.shape != (self.num_envs,):
            raise ValueError(
                f"`options['reset_mask']` must have shape `({self.num_envs},)`, got {mask.shape}"
            )
        if mask.dtype != np.bool_:
            raise TypeError(f"`options['reset_mask']` must have `dtype=np.bool_`, got {mask.dtype}")
        if not mask.any():
            raise ValueError("`options['reset_mask']` must contain at least one True value")
        return mask.copy()

    def _coerce_actions(self, actions: Any, n: int, check_values: bool = True) -> np.ndarray:
        """The actions for `n` sub-envs as the core takes them: `(n, 3)` float64 or `(n,)`
        int64, C-contiguous. Shapes and dtypes are always checked; values (NaN/inf, the
        discrete range) only with `check_values`, as the core checks them too before it
        touches any sub-env."""
        a = actions if type(actions) is np.ndarray else np.asarray(actions)
        kind = a.dtype.kind
        if self.continuous:
            if a.shape != (n, 3):
                raise InvalidAction(f"actions must have shape ({n}, 3), got {a.shape}")
            if kind not in "fiu":
                raise InvalidAction(f"actions must be a float array, got dtype {a.dtype}")
            if a.dtype != np.float64 or not a.flags.c_contiguous:
                a = np.ascontiguousarray(a, dtype=np.float64)
            if check_values and not np.isfinite(a).all():
                bad = sorted({int(i) for i in np.argwhere(~np.isfinite(a))[:, 0]})
                raise InvalidAction(f"actions must be finite; sub-envs {bad} have NaN/inf")
            return a
        if a.shape != (n,) or kind not in "iu":
            raise InvalidAction(
                f"discrete actions must be integers of shape ({n},), got {a.shape} {a.dtype}"
            )
        if check_values and ((a < 0) | (a >= 5)).any():
            raise InvalidAction(f"discrete actions must be in {{0, 1, 2, 3, 4}}, got {a.tolist()}")
        if a.dtype != np.int64 or not a.flags.c_contiguous:
            a = np.ascontiguousarray(a, dtype=np.int64)
        return a


_ID_DTYPES = (np.dtype(np.int64), np.dtype(np.int32))


def _checked_timeout(timeout: object) -> float | None:
    if timeout is not None and not (isinstance(timeout, numbers.Real) and timeout >= 0):
        raise ValueError(f"timeout must be a non-negative number of seconds, got {timeout!r}")
    return None if timeout is None else float(timeout)


def _rebuild_vector_env(num_envs: int, kwargs: dict[str, Any]) -> CarRacingVectorEnv:
    return CarRacingVectorEnv(num_envs, **kwargs)
