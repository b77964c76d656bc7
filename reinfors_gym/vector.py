"""`CarRacingVectorEnv`: a drop-in for `AsyncVectorEnv` over `reinfors/CarRacing-v0`; this module
holds its calls, Gymnasium's (`reset`/`step` and their `_async`/`_wait` halves) and EnvPool's
(`async_reset`/`send`/`recv`), each a guarded hand-off to the core.

All sub-environments live in one Rust pool and are stepped by its worker threads with the GIL
released, writing into one preallocated observation batch. Semantics follow Gymnasium 1.x's
vector API: the three autoreset modes, `seed + i` seeding, `_key` info masks, `final_obs` /
`final_info` in `SAME_STEP`, `reset_mask` for `DISABLED`. The arguments are checked in
`_vector_args`, a sub-env's attributes are reached through `_sub_env`, and a step's infos are
built in `_vector_infos`.
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np
from gymnasium import error as gym_error
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import _core
from ._guard import CallGuard
from ._obs_arrays import ObservationArrays
from ._sub_env import _SubEnv
from ._vector_args import (
    CORE_AUTORESET_MODES,
    check_batch_size,
    check_render_mode,
    checked_timeout,
    coerce_actions,
    env_id_array,
    masked_seed_words,
    parse_autoreset_mode,
    reset_args,
)
from ._vector_infos import step_infos
from .car_racing import FPS, VIDEO_SHAPE, continuous_action_space
from .errors import ClosedEnvironmentError
from .spec import CarRacingSpec, check_flag, check_threads


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
        copy: return an observation array nothing else refers to (True: a new one, or one
            returned before and dropped since) or the shared buffer (False).
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
        spec = CarRacingSpec.from_arguments(self._init_kwargs)
        self.num_envs = spec.check_batch(num_envs)
        num_threads = check_threads("num_threads", num_threads)
        self.autoreset_mode = parse_autoreset_mode(autoreset_mode)
        self.batch_size = check_batch_size(batch_size, self.num_envs)
        self.render_mode = check_render_mode(render_mode)
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
            autoreset_mode=CORE_AUTORESET_MODES[self.autoreset_mode],
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
        # call writes (`_batch_obs` for `recv`); with `copy=True` each call writes an array
        # nothing outside refers to (a new one, or one returned before and since dropped:
        # `_obs_arrays`), returned as is (`recv`: the block the core packed).
        self._obs = np.zeros((n, *obs_shape), np.uint8)
        self._obs_arrays = ObservationArrays(self._obs)
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
            self._check_at_rest("reset")
            seeds, mask, randomize = reset_args(seed, options, self.num_envs)
            obs = self._next_obs()
            self._pool.reset(
                seeds=masked_seed_words(seeds, mask),
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
            self._check_at_rest("reset_async")
            self._send_reset(seed, options)
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
            self._send_reset(seed, options)
        finally:
            self._guard.exit()

    def _commit_seeds(self, seeds: list[int | None], mask: np.ndarray | None) -> None:
        for i, s in enumerate(seeds):
            if s is not None and (mask is None or mask[i]):
                self._seeds[i] = s
        if mask is None:
            self._has_reset = True

    def _send_reset(self, seed: object, options: object) -> None:
        """Queues the reset of every sub-env (those of the reset mask) on the worker threads."""
        seeds, mask, randomize = reset_args(seed, options, self.num_envs)
        ids = self._all_ids if mask is None else np.flatnonzero(mask)
        words = masked_seed_words(seeds, mask)
        self._pool.send_reset(
            env_ids=ids, seeds=[words[i] for i in ids.tolist()], randomize=randomize
        )
        self._commit_seeds(seeds, mask)

    @property
    def np_random_seed(self) -> tuple[int, ...]:  # type: ignore[override]
        """Each sub-env's generator seed, as `SyncVectorEnv.np_random_seed` reports it."""
        self._check_open()
        return tuple(self._seeds)

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
                ids = env_id_array(env_id, self.num_envs)
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
            acts = coerce_actions(actions, self.num_envs, self.continuous, check_values=False)
            res = self._run_step(acts, actions, obs)
            self._obs = obs
            infos = step_infos(res, self.autoreset_mode)
            return obs, res.rewards, res.terminated, res.truncated, infos
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
            acts = coerce_actions(actions, self.num_envs, self.continuous)
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
            infos = step_infos(res, self.autoreset_mode)
            return obs, res.rewards, res.terminated, res.truncated, infos
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
            ids = env_id_array(env_id, self.num_envs)
            a = coerce_actions(actions, len(ids), self.continuous, check_values=False)
            self._pool.send(actions=a, env_ids=ids)

    def _recv(
        self, timeout: float | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        self._check_ready()
        res = self._pool.recv(
            count=self.batch_size, obs=self._batch_obs, timeout=checked_timeout(timeout)
        )
        obs = res.obs if res.obs is not None else self._batch_obs
        assert obs is not None
        infos = step_infos(res, self.autoreset_mode)
        infos["env_id"] = res.env_ids
        return obs, res.rewards, res.terminated, res.truncated, infos

    def _wait(self, obs: np.ndarray, timeout: float | None, pending: str) -> _core.StepResults:
        """Everything in flight from the core (every sub-env's observation into `obs`); a
        timeout leaves it in flight and `pending` pending."""
        try:
            return self._pool.wait(obs=obs, timeout=checked_timeout(timeout))
        except TimeoutError:
            self._pending = pending
            raise

    # ------------------------------------------------------------------ step internals

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
            coerce_actions(actions, self.num_envs, self.continuous)
            raise

    # ------------------------------------------------------------------ the rest of the API

    def render(self) -> tuple[np.ndarray | None, ...] | None:
        self._guard.enter("render")
        try:
            self._check_at_rest("render")
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
            self._check_at_rest("call")
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
            self._check_at_rest("get_attr")
            return tuple(sub.get(name) for sub in self._sub_envs)
        finally:
            self._guard.exit()

    def set_attr(self, name: str, values: list[Any] | tuple[Any, ...] | Any) -> None:
        self._guard.enter("set_attr")
        try:
            self._check_at_rest("set_attr")
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
        """Where the next call writes its observations: with `copy=True` an array no one else
        refers to (returned without copying), else the shared buffer."""
        return self._obs_arrays.next() if self.copy else self._obs

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

    def _check_at_rest(self, call: str) -> None:
        """Synchronous resets and the accessors (which read and change sub-envs) are refused
        while any sub-env is in flight, where a job queued or running would race them
        (`AsyncOrderError`, nothing changed)."""
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


def _rebuild_vector_env(num_envs: int, kwargs: dict[str, Any]) -> CarRacingVectorEnv:
    return CarRacingVectorEnv(num_envs, **kwargs)
