"""`CarRacingVectorEnv`: a drop-in for `AsyncVectorEnv` over `reinfors/CarRacing-v0`.

All sub-environments live in one Rust pool and are stepped by its worker threads with the GIL
released, writing into one preallocated observation batch. Semantics follow Gymnasium 1.x's
vector API: the three autoreset modes, `seed + i` seeding, `_key` info masks, `final_obs` /
`final_info` in `SAME_STEP`, `reset_mask` for `DISABLED`.
"""

from __future__ import annotations

import numbers
import secrets
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import numpy as np
from gymnasium import error as gym_error
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import _core
from ._guard import CallGuard
from ._rng import check_seed, seed_words
from .car_racing import FPS, VIDEO_SHAPE, continuous_action_space
from .errors import ClosedEnvironmentError, InvalidAction, InvalidConfig, InvalidSeed
from .spec import CarRacingSpec, check_flag, check_threads

_MODES = {
    AutoresetMode.NEXT_STEP: "next_step",
    AutoresetMode.SAME_STEP: "same_step",
    AutoresetMode.DISABLED: "disabled",
}


def _parse_autoreset_mode(mode: object) -> AutoresetMode:
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
    """What `call`/`get_attr`/`set_attr` see of one sub-env: read-only accessors of the core
    plus attributes the user sets."""

    _READ_ONLY = ("continuous", "domain_randomize", "lap_complete_percent", "render_mode")

    def __init__(self, owner: CarRacingVectorEnv, index: int):
        # A weak reference: the vector env holds its sub-envs, and a cycle back would keep a
        # dropped vector env (and its threads) alive until the cyclic GC runs.
        self._owner_ref = weakref.ref(owner)
        self._index = index
        self._extra: dict[str, Any] = {}

    @property
    def _owner(self) -> CarRacingVectorEnv:
        owner = self._owner_ref()
        if owner is None:
            raise ClosedEnvironmentError("the vector environment of this sub-env is gone")
        return owner

    @property
    def track(self) -> np.ndarray:
        return self._owner._pool.track(self._index)

    @property
    def reward(self) -> float:
        return self._owner._pool.env_scalars(self._index)[0]

    @property
    def tile_visited_count(self) -> int:
        return self._owner._pool.env_scalars(self._index)[1]

    @property
    def t(self) -> float:
        return self._owner._pool.env_scalars(self._index)[2]

    @property
    def np_random_seed(self) -> int:
        """The seed of this sub-env's generator (the entropy it was made from, or the seed
        of its last seeded reset), as Gymnasium's `Env.np_random_seed`."""
        return self._owner._seeds[self._index]

    def render(self) -> np.ndarray | None:
        return self._owner._render_one(self._index)

    def get(self, name: str) -> Any:
        if name in self._extra:
            return self._extra[name]
        if name in self._READ_ONLY:
            return getattr(self._owner, name)
        if name.startswith("_") or name in ("get", "set"):
            raise AttributeError(name)
        return getattr(self, name)

    def set(self, name: str, value: Any) -> None:
        if name in self._READ_ONLY or hasattr(type(self), name):
            raise AttributeError(f"sub-environment attribute {name!r} is read-only")
        self._extra[name] = value


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
        frame_skip: simulation steps per `step` (rewards summed, last frame returned).
        stack_num: frames stacked along a leading axis (Gymnasium's `FrameStackObservation`
            layout, padded with the reset frame).
        grayscale: one luminance channel (Gymnasium's `GrayscaleObservation` weights).
        obs_size: `(height, width)` of frames, drawn natively at that resolution.
        channels_first: `(3, H, W)` frames (PyTorch's layout) instead of `(H, W, 3)`.
        copy: return a fresh observation array (True) or the shared buffer (False).
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
        copy: bool = True,
    ):
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
        )
        self.num_envs = spec.check_batch(num_envs)
        num_threads = check_threads("num_threads", num_threads)
        self.autoreset_mode = _parse_autoreset_mode(autoreset_mode)
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
        # call writes; with `copy=True` each call writes a new array, which is returned as is
        # (no copy) and never written again.
        self._obs = np.zeros((n, *obs_shape), np.uint8)
        self._final_obs = np.zeros_like(self._obs)
        self._rewards = np.zeros(n, np.float64)
        self._terminations = np.zeros(n, np.bool_)
        self._truncations = np.zeros(n, np.bool_)
        self._lap = np.zeros(n, np.int8)
        self._was_reset = np.zeros(n, np.bool_)
        self._step_buffers = (
            self._final_obs,
            self._rewards,
            self._terminations,
            self._truncations,
            self._lap,
            self._was_reset,
        )
        self._has_reset = False
        self._sub_envs = [_SubEnv(self, i) for i in range(n)]
        self._executor: ThreadPoolExecutor | None = None
        self._pending: tuple[str, Future] | None = None

    # ------------------------------------------------------------------ reset

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        self._guard.enter("reset")
        try:
            self._reset_async(seed, options, run_now=True)
            return self._reset_wait(None)
        finally:
            self._guard.exit()

    def reset_async(
        self,
        seed: int | list[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        """Starts a reset in the background; collect it with :meth:`reset_wait`."""
        self._guard.enter("reset_async")
        try:
            self._reset_async(seed, options, run_now=False)
        finally:
            self._guard.exit()

    def reset_wait(self, timeout: float | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Finishes :meth:`reset_async`."""
        self._guard.enter("reset_wait")
        try:
            return self._reset_wait(timeout)
        finally:
            self._guard.exit()

    def _reset_async(self, seed: object, options: object, run_now: bool) -> None:
        self._check_ready()
        seeds = self._seed_list(seed)
        mask = None
        randomize = None
        if options is not None:
            if not isinstance(options, dict):
                raise TypeError(f"options must be a dict or None, got {type(options).__name__}")
            if "reset_mask" in options:
                mask = self._check_reset_mask(options["reset_mask"])
            if "randomize" in options:
                randomize = bool(options["randomize"])
        self._reset_mask = mask
        for i, s in enumerate(seeds):
            if s is not None and (mask is None or mask[i]):
                self._seeds[i] = s
        # A partial reset keeps the other sub-envs' latest observations.
        obs = self._next_obs() if mask is None or not self.copy else self._obs.copy()
        words = [None if s is None else seed_words(s) for s in seeds]
        args = (words, None if mask is None else mask.tolist(), randomize, obs)
        pool = self._pool

        def work() -> np.ndarray:
            pool.reset(*args)
            return obs

        self._start("reset", work, run_now=run_now)

    def _reset_wait(self, timeout: float | None) -> tuple[np.ndarray, dict[str, Any]]:
        self._obs = self._finish("reset", timeout)
        mask = self._reset_mask
        if mask is None:
            self._terminations[:] = False
            self._truncations[:] = False
            self._has_reset = True
        else:
            self._terminations[mask] = False
            self._truncations[mask] = False
        return self._obs, {}

    @property
    def np_random_seed(self) -> tuple[int, ...]:  # type: ignore[override]
        """Each sub-env's generator seed, as `SyncVectorEnv.np_random_seed` reports it."""
        self._check_open()
        return tuple(self._seeds)

    # ------------------------------------------------------------------ step

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        # The synchronous path calls the core directly: no future, and the action checks the
        # core repeats anyway are left to it (see `_run_step`). Per-batch Python time is
        # what limits thread scaling on small batches.
        self._guard.enter("step")
        try:
            self._check_steppable()
            obs = self._next_obs()
            acts = self._coerce_actions(actions, check_values=False)
            flags = self._run_step(acts, actions, obs)
            return self._step_result(flags, obs)
        finally:
            self._guard.exit()

    def step_async(self, actions: Any) -> None:
        """Starts stepping with `actions` in the background; collect with :meth:`step_wait`."""
        self._guard.enter("step_async")
        try:
            self._check_steppable()
            acts = self._coerce_actions(actions)
            obs = self._next_obs()
            self._start("step", lambda: (self._run_step(acts, actions, obs), obs))
        finally:
            self._guard.exit()

    def step_wait(
        self, timeout: float | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Finishes :meth:`step_async`."""
        self._guard.enter("step_wait")
        try:
            flags, obs = self._finish("step", timeout)
            return self._step_result(flags, obs)
        finally:
            self._guard.exit()

    def _check_steppable(self) -> None:
        self._check_ready()
        if not self._has_reset:
            raise gym_error.ResetNeeded("step() called before reset(); call reset() first")

    def _run_step(self, acts: np.ndarray, actions: Any, obs: np.ndarray) -> tuple[bool, bool]:
        """Steps the core, writing observations into `obs`; returns its (any lap info, any
        reset) flags."""
        try:
            return self._pool.step(acts, obs, *self._step_buffers)
        except ValueError:
            # The core refused an action (NaN/inf, out of range) before touching any sub-env:
            # re-check in Python for the message naming every offending sub-env.
            self._coerce_actions(actions)
            raise

    def _step_result(
        self, flags: tuple[bool, bool], obs: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        any_lap, any_reset = flags
        self._obs = obs
        infos: dict[str, Any] = {}
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            if any_reset:
                done = self._was_reset.copy()
                final_obs = np.full(self.num_envs, None, dtype=object)
                for i in np.flatnonzero(done):
                    final_obs[i] = self._final_obs[i].copy()
                final_info: dict[str, Any] = {}
                lap_mask = done & (self._lap >= 0)
                if lap_mask.any():
                    final_info["lap_finished"] = self._lap == 1
                    final_info["_lap_finished"] = lap_mask
                infos.update(
                    final_obs=final_obs, _final_obs=done, final_info=final_info, _final_info=done
                )
        elif any_lap:
            infos["lap_finished"] = self._lap == 1
            infos["_lap_finished"] = self._lap >= 0
        return (
            obs,
            self._rewards.copy(),
            self._terminations.copy(),
            self._truncations.copy(),
            infos,
        )

    # ------------------------------------------------------------------ the rest of the API

    def render(self) -> tuple[np.ndarray | None, ...] | None:
        self._guard.enter("render")
        try:
            self._check_ready()
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
            self._check_ready()
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
            self._check_ready()
            return tuple(sub.get(name) for sub in self._sub_envs)
        finally:
            self._guard.exit()

    def set_attr(self, name: str, values: list[Any] | tuple[Any, ...] | Any) -> None:
        self._guard.enter("set_attr")
        try:
            self._check_ready()
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
        self._guard.enter_closing()
        try:
            if not self.closed:
                self.close_extras(**kwargs)
                self.closed = True
        finally:
            self._guard.exit()

    def close_extras(self, **kwargs: Any) -> None:
        if self._pending is not None:
            try:
                self._pending[1].result()
            except BaseException:  # noqa: BLE001 - closing must not fail on a failed step
                pass
            self._pending = None
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        if self._guard.forked:
            # The pool's worker threads exist only in the parent: never join them here.
            self._pool.abandon()
        self._pool = None  # type: ignore[assignment]  # drops the Rust pool, joining its threads

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

    def _check_ready(self) -> None:
        self._check_open()
        if self._pending is not None:
            raise gym_error.AlreadyPendingCallError(
                f"a call to `{self._pending[0]}_async` is still pending; "
                f"call `{self._pending[0]}_wait` first",
                self._pending[0],
            )

    def _start(self, name: str, work: Any, run_now: bool = False) -> None:
        if run_now:
            future: Future = Future()
            try:
                future.set_result(work())
            except BaseException as e:  # noqa: BLE001 - re-raised by _finish
                future.set_exception(e)
        else:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(1, thread_name_prefix="reinfors-gym-async")
            future = self._executor.submit(work)
        self._pending = (name, future)

    def _finish(self, name: str, timeout: float | None) -> Any:
        """Waits for the pending `name` call; returns its result (or raises its exception)."""
        self._check_open()
        if self._pending is None or self._pending[0] != name:
            raise gym_error.NoAsyncCallError(
                f"calling `{name}_wait` without any prior call to `{name}_async`", name
            )
        try:
            return self._pending[1].result(timeout)
        except FutureTimeout as e:
            raise TimeoutError(f"`{name}_wait` timed out after {timeout} s") from e
        finally:
            if self._pending[1].done():
                self._pending = None

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

    def _coerce_actions(self, actions: Any, check_values: bool = True) -> np.ndarray:
        """The actions as the core takes them: `(n, 3)` float64 or `(n,)` int64, C-contiguous.
        Shapes and dtypes are always checked; values (NaN/inf, the discrete range) only with
        `check_values`, as the core checks them too before it touches any sub-env."""
        a = actions if type(actions) is np.ndarray else np.asarray(actions)
        n = self.num_envs
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
            raise InvalidAction(f"discrete actions must be in 0..5, got {a.tolist()}")
        if a.dtype != np.int64 or not a.flags.c_contiguous:
            a = np.ascontiguousarray(a, dtype=np.int64)
        return a
