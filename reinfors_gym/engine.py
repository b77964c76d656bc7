"""`Engine`: PPO-ready batches collected by Rust workers, optionally while Python trains.

    engine = rf.Engine(game=rf.games.CarRacing(), reward=rf.Reward(), policy=rf.policies.Ppo(),
                       learner=rf.learners.Ppo(gamma=0.99, lam=0.95), n_games=64, n_threads=8)
    with engine.collect_stream(collect_size=4096, infer=infer) as stream:
        for update in range(200):
            batch = next(stream)   # workers keep collecting while you train

The `infer` contract
--------------------
``infer(obs) -> (policy_outputs, values)`` is called with a uint8 array of the current
observations, shape ``(n, *engine.obs_shape)`` (``n`` is usually ``n_games``; it is smaller
when asked for the values of truncated episodes' final observations). The array is only valid
during the call: copy it if you keep it. Return NumPy-convertible arrays (for PyTorch:
``.detach().cpu().numpy()``):

- discrete games: ``policy_outputs`` are logits, shape ``(n, 5)``; actions are sampled from
  ``Categorical(logits)``;
- continuous games: ``policy_outputs`` are ``(n, 6)``: the Gaussian's mean (3) then log
  standard deviation (3) — or a pair ``(mean (n, 3), log_std (n, 3) or (3,))``. Actions are
  ``mean + exp(log_std) * N(0, 1)`` per dimension; the env receives them clipped to its box,
  the batch keeps the sampled (unclipped) action, and ``behavior_log_probs`` is the diagonal
  Gaussian log-density of that action (summed over dimensions);
- ``values``: shape ``(n,)`` or ``(n, 1)``.

Everything must be finite. Sampling is done in Rust from seeded per-game streams.
"""

from __future__ import annotations

import math
import numbers
import os
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _core

Infer = Callable[[np.ndarray], Any]


# --------------------------------------------------------------------------- configuration


class Reward:
    """Weights of CarRacing's reward events. The defaults are Gymnasium's rules.

    Args:
        tile: total paid for visiting every tile once (each new tile pays ``tile / N``).
        step: paid every step (a time penalty when negative).
        off_playfield: paid instead, on the step the car leaves the playfield.
    """

    EVENTS = ("tile", "step", "off_playfield")

    def __init__(
        self,
        *,
        tile: float = 1000.0,
        step: float = -0.1,
        off_playfield: float = -100.0,
        **unknown: Any,
    ):
        if unknown:
            raise ValueError(
                f"unknown reward events {sorted(unknown)}; CarRacing has {list(self.EVENTS)}"
            )
        for name, value in (("tile", tile), ("step", step), ("off_playfield", off_playfield)):
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise ValueError(f"reward weight {name} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"reward weight {name} must be finite, got {value}")
        self.tile, self.step, self.off_playfield = float(tile), float(step), float(off_playfield)

    def __repr__(self) -> str:
        return f"Reward(tile={self.tile}, step={self.step}, off_playfield={self.off_playfield})"


@dataclass(frozen=True)
class _CarRacingGame:
    continuous: bool = True
    domain_randomize: bool = False
    lap_complete_percent: float = 0.95
    max_episode_steps: int | None = 1000
    layout: str = "CHW"

    def __post_init__(self) -> None:
        if self.layout not in ("CHW", "HWC"):
            raise ValueError(f"layout must be 'CHW' or 'HWC', got {self.layout!r}")
        if self.max_episode_steps is not None and (
            not isinstance(self.max_episode_steps, numbers.Integral) or self.max_episode_steps < 1
        ):
            raise ValueError(
                f"max_episode_steps must be a positive int or None, got {self.max_episode_steps!r}"
            )
        if not math.isfinite(float(self.lap_complete_percent)):
            raise ValueError("lap_complete_percent must be finite")

    @property
    def obs_shape(self) -> tuple[int, int, int]:
        return (3, 96, 96) if self.layout == "CHW" else (96, 96, 3)


class games:  # noqa: N801 - a namespace, spelled like reinfors'
    """Games the engine can run."""

    @staticmethod
    def CarRacing(  # noqa: N802 - reinfors' constructor name
        continuous: bool = True,
        domain_randomize: bool = False,
        lap_complete_percent: float = 0.95,
        max_episode_steps: int | None = 1000,
        layout: str = "CHW",
    ) -> _CarRacingGame:
        """CarRacing with pixel observations, `(3, 96, 96)` uint8 (`layout="HWC"`:
        `(96, 96, 3)`); options as the Gymnasium env."""
        return _CarRacingGame(
            bool(continuous),
            bool(domain_randomize),
            float(lap_complete_percent),
            max_episode_steps,
            layout,
        )


@dataclass(frozen=True)
class _PpoPolicy:
    pass


class policies:  # noqa: N801
    """How actions are drawn from the caller's network outputs (see the module docstring)."""

    @staticmethod
    def Ppo() -> _PpoPolicy:  # noqa: N802
        """Stochastic policy: categorical over logits, or diagonal Gaussian (mean, log_std)."""
        return _PpoPolicy()


@dataclass(frozen=True)
class _PpoLearner:
    gamma: float = 0.99
    lam: float = 0.95

    def __post_init__(self) -> None:
        for name in ("gamma", "lam"):
            v = getattr(self, name)
            if not (isinstance(v, numbers.Real) and 0.0 <= float(v) <= 1.0):
                raise ValueError(f"{name} must be within [0, 1], got {v!r}")


class learners:  # noqa: N801
    """What the engine prepares batches for."""

    @staticmethod
    def Ppo(gamma: float = 0.99, lam: float = 0.95) -> _PpoLearner:  # noqa: N802
        """GAE(gamma, lambda) advantages and returns, computed in Rust."""
        return _PpoLearner(float(gamma), float(lam))


# --------------------------------------------------------------------------- batches


@dataclass
class Batch:
    """One PPO-ready batch. Arrays are time-major: `[t, g]` is step t of game g.

    Fields, in order: ``obs`` (T, G, *obs_shape) uint8; ``actions`` (T, G, 3) float32 or
    (T, G) int64; ``behavior_log_probs``, ``values``, ``rewards`` (T, G) float32;
    ``terminations``, ``truncations`` (T, G) bool; ``advantages``, ``returns`` (T, G) float32;
    ``final_values`` (T, G) float32 (value of the final observation where an episode was
    truncated, NaN elsewhere); ``bootstrap_values`` (G,) float32 (value after the last step);
    ``episode_returns``, ``episode_lengths`` of the episodes that ended in this batch;
    ``weights_version`` (weights that collected the first step); ``telemetry``.
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

    def flat(self) -> dict[str, np.ndarray]:
        """The PPO fields with time and game axes merged, ready for minibatching."""
        return {
            k: getattr(self, k).reshape(len(self), *getattr(self, k).shape[2:]) for k in self.FIELDS
        }


# --------------------------------------------------------------------------- the engine


class _Stopped(Exception):
    """Raised inside the producer when the stream is stopped mid-batch."""


class Engine:
    """Parallel CarRacing games collecting PPO batches with a caller-provided network.

    Args:
        game: ``games.CarRacing(...)``.
        reward: ``Reward(...)`` event weights.
        policy: ``policies.Ppo()``.
        learner: ``learners.Ppo(gamma, lam)``.
        n_games: parallel episode slots.
        n_threads: worker threads (default: the cores available); more than the cores or the
            games is accepted and capped (``engine.n_threads`` is what is used).
        seed: seeds game g's track stream with ``seed + g`` and the action sampling; None
            draws both from OS entropy.
    """

    def __init__(
        self,
        game: _CarRacingGame | None = None,
        reward: Reward | None = None,
        policy: _PpoPolicy | None = None,
        learner: _PpoLearner | None = None,
        n_games: int = 64,
        n_threads: int | None = None,
        seed: int | None = None,
    ):
        self.game = game if game is not None else games.CarRacing()
        self.reward = reward if reward is not None else Reward()
        self.policy = policy if policy is not None else policies.Ppo()
        self.learner = learner if learner is not None else learners.Ppo()
        for name, value, kind in (
            ("game", self.game, _CarRacingGame),
            ("reward", self.reward, Reward),
            ("policy", self.policy, _PpoPolicy),
            ("learner", self.learner, _PpoLearner),
        ):
            if not isinstance(value, kind):
                raise TypeError(f"{name} must come from rf.{name}s / rf.Reward, got {value!r}")
        if isinstance(n_games, bool) or not isinstance(n_games, numbers.Integral) or n_games < 1:
            raise ValueError(f"n_games must be a positive int, got {n_games!r}")
        if n_threads is None:
            n_threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
        if (
            isinstance(n_threads, bool)
            or not isinstance(n_threads, numbers.Integral)
            or n_threads < 1
        ):
            raise ValueError(f"n_threads must be a positive int, got {n_threads!r}")
        if seed is not None and (
            isinstance(seed, bool)
            or not isinstance(seed, numbers.Integral)
            or not 0 <= seed <= 2**128 - 1 - n_games
        ):
            raise ValueError(
                f"seed must be None or an int within 0..2**128-1-n_games, got {seed!r}"
            )
        self.n_games, self.n_threads, self.seed = int(n_games), int(n_threads), seed
        self.obs_shape = self.game.obs_shape
        self.continuous = self.game.continuous
        self.policy_outputs = 6 if self.continuous else 5
        sampling_seed = secrets.randbits(64) if seed is None else (int(seed) * 0x9E3779B1) % 2**64
        self._core = _core.CollectorCore(
            self.n_games,
            self.n_threads,
            self.game.continuous,
            self.game.domain_randomize,
            self.game.lap_complete_percent,
            self.game.max_episode_steps,
            self.game.layout == "CHW",
            [secrets.randbits(128) for _ in range(self.n_games)],
            sampling_seed,
            self.reward.tile,
            self.reward.step,
            self.reward.off_playfield,
        )
        # What the core uses: at most one thread per game and per available core.
        self.n_threads = self._core.num_threads
        self._obs = np.zeros((self.n_games, *self.obs_shape), np.uint8)
        seeds = (
            [None] * self.n_games if seed is None else [int(seed) + g for g in range(self.n_games)]
        )
        self._core.reset(seeds, self._obs)
        self.weights_version = 0
        self._busy = threading.Lock()

    # ------------------------------------------------------------------ public API

    def weights_updated(self) -> None:
        """Tells the engine the network changed: later steps are tagged with a new version."""
        self.weights_version += 1

    def collect(self, n_records: int, infer: Infer) -> Batch:
        """Collects one batch of `n_records` (a multiple of `n_games`) in the calling thread."""
        steps = self._steps_for(n_records)
        if not self._busy.acquire(blocking=False):
            raise RuntimeError("the engine is already collecting (a stream is running)")
        try:
            return self._collect(steps, infer, stop=None)
        finally:
            self._busy.release()

    def collect_stream(self, collect_size: int, infer: Infer, depth: int = 2) -> CollectStream:
        """Starts collecting batches of `collect_size` records in a background thread.

        `depth` bounds how many finished batches may wait for the consumer (the collector
        pauses when the queue is full). Use it as a context manager or call `stop()`.
        """
        steps = self._steps_for(collect_size)
        if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 1:
            raise ValueError(f"depth must be a positive int, got {depth!r}")
        if not callable(infer):
            raise TypeError("infer must be callable: infer(obs) -> (policy_outputs, values)")
        return CollectStream(self, steps, infer, int(depth))

    # ------------------------------------------------------------------ internals

    def _steps_for(self, n_records: int) -> int:
        if isinstance(n_records, bool) or not isinstance(n_records, numbers.Integral):
            raise ValueError(f"the record count must be an int, got {n_records!r}")
        if n_records < self.n_games or n_records % self.n_games:
            raise ValueError(
                f"the record count must be a positive multiple of n_games={self.n_games}, "
                f"got {n_records}"
            )
        return int(n_records) // self.n_games

    def _infer(self, infer: Infer, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Calls `infer` and checks its outputs against the contract."""
        n = len(obs)
        out = infer(obs)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(
                "infer must return (policy_outputs, values); got "
                f"{type(out).__name__}{'' if not hasattr(out, '__len__') else f' of {len(out)}'}"
            )
        policy, values = out
        if self.continuous and isinstance(policy, (tuple, list)):
            if len(policy) != 2:
                raise ValueError("continuous policy outputs must be (n, 6) or (mean, log_std)")
            mean = _as_f32(policy[0], "mean")
            log_std = np.broadcast_to(_as_f32(policy[1], "log_std"), mean.shape)
            policy = np.concatenate([mean, log_std], axis=-1)
        policy = _as_f32(policy, "policy outputs")
        k = self.policy_outputs
        if policy.shape != (n, k):
            what = "logits over 5 actions" if k == 5 else "mean[3] then log_std[3]"
            raise ValueError(
                f"infer must return policy outputs of shape ({n}, {k}) ({what}), got {policy.shape}"
            )
        values = _as_f32(values, "values")
        if values.shape == (n, 1):
            values = values[:, 0]
        if values.shape != (n,):
            raise ValueError(
                f"infer must return values of shape ({n},) or ({n}, 1), got {values.shape}"
            )
        if not (np.isfinite(policy).all() and np.isfinite(values).all()):
            raise ValueError("infer returned NaN or infinite policy outputs or values")
        return np.ascontiguousarray(policy), np.ascontiguousarray(values)

    def _collect(self, steps: int, infer: Infer, stop: threading.Event | None) -> Batch:
        version = self.weights_version
        t_infer = t_env = 0.0
        start = time.perf_counter()
        for _ in range(steps):
            if stop is not None and stop.is_set():
                raise _Stopped
            t0 = time.perf_counter()
            policy, values = self._infer(infer, self._obs)
            t1 = time.perf_counter()
            truncated = self._core.step(policy, values, self._obs)
            t2 = time.perf_counter()
            t_infer += t1 - t0
            t_env += t2 - t1
            if truncated:
                _, final_values = self._infer(infer, self._core.final_obs(truncated))
                self._core.set_final_values(truncated, final_values.tolist())
                t_infer += time.perf_counter() - t2
        t0 = time.perf_counter()
        _, bootstrap = self._infer(infer, self._obs)
        t_infer += time.perf_counter() - t0
        fields = self._core.finish(bootstrap.tolist(), self.learner.gamma, self.learner.lam)
        elapsed = time.perf_counter() - start
        records = steps * self.n_games
        batch = Batch(**fields, weights_version=version)
        batch.telemetry = {
            "records": float(records),
            "collect_seconds": elapsed,
            "env_seconds": t_env,
            "infer_seconds": t_infer,
            "env_steps_per_s": records / t_env if t_env > 0 else float("inf"),
            "records_per_s": records / elapsed if elapsed > 0 else float("inf"),
        }
        return batch


def _as_f32(x: Any, what: str) -> np.ndarray:
    try:
        arr = np.asarray(x)
    except Exception as e:  # noqa: BLE001 - e.g. CUDA tensors
        raise TypeError(
            f"infer's {what} must be NumPy-convertible (for PyTorch: .detach().cpu().numpy())"
        ) from e
    if not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise TypeError(f"infer's {what} must be numeric, got dtype {arr.dtype}")
    return arr.astype(np.float32, copy=False)


class CollectStream:
    """Batches collected in a background thread while the caller trains.

    - ``next(stream)`` returns the next finished batch (waiting if none is ready) and fills its
      telemetry with ``wait_seconds`` (time the consumer waited) and ``policy_lag`` (weight
      updates since the batch started collecting).
    - An exception raised by ``infer`` (or a contract violation) stops the workers and is
      re-raised by the next ``next(stream)`` with its original traceback.
    - ``stop()`` (also on leaving the ``with`` block, or on Ctrl-C there) stops collecting at
      the next step boundary and joins the thread. What is delivered: every batch completed
      before the stop stays available to ``next()``; the batch being collected at that moment
      is discarded (``discarded_batches`` counts it); then ``next()`` raises StopIteration.
    """

    def __init__(self, engine: Engine, steps: int, infer: Infer, depth: int):
        if not engine._busy.acquire(blocking=False):
            raise RuntimeError("the engine is already collecting")
        self._engine = engine
        self._steps = steps
        self._infer = infer
        self._queue: queue.Queue[Any] = queue.Queue()
        self._slots = threading.Semaphore(depth)
        self._stop = threading.Event()
        self._done = threading.Event()
        self.discarded_batches = 0
        self.delivered_batches = 0
        self._thread = threading.Thread(
            target=self._produce, name="reinfors-gym-collector", daemon=True
        )
        self._thread.start()

    def _produce(self) -> None:
        try:
            while not self._stop.is_set():
                # Wait for room in the queue, but stay responsive to stop().
                while not self._slots.acquire(timeout=0.05):
                    if self._stop.is_set():
                        return
                try:
                    batch = self._engine._collect(self._steps, self._infer, self._stop)
                except _Stopped:
                    self.discarded_batches += 1
                    return
                self._queue.put(batch)
        except BaseException as e:  # noqa: BLE001 - handed to the consumer
            self._queue.put(_Failure(e))
        finally:
            self._done.set()
            self._queue.put(_END)
            self._engine._busy.release()

    def __iter__(self) -> CollectStream:
        return self

    def __next__(self) -> Batch:
        start = time.perf_counter()
        while True:
            try:
                item = self._queue.get(timeout=0.1)
                break
            except queue.Empty:
                continue
        if item is _END:
            self._queue.put(_END)  # later calls stop too
            raise StopIteration
        if isinstance(item, _Failure):
            self._stop.set()
            self._queue.put(_END)
            raise item.error.with_traceback(item.error.__traceback__)
        self._slots.release()
        item.telemetry["wait_seconds"] = time.perf_counter() - start
        item.telemetry["policy_lag"] = float(self._engine.weights_version - item.weights_version)
        self.delivered_batches += 1
        return item

    def stop(self, timeout: float | None = None) -> None:
        """Stops collecting and joins the worker thread (idempotent)."""
        self._stop.set()
        self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def __enter__(self) -> CollectStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Failure:
    def __init__(self, error: BaseException):
        self.error = error


_END = object()
