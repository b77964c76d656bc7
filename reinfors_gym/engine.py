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
- continuous games, ``policies.Ppo()`` (``distribution="normal"``): ``policy_outputs`` are
  ``(n, 6)``: the Gaussian's mean (3) then log standard deviation (3) — or a pair
  ``(mean (n, 3), log_std (n, 3) or (3,))``. Actions are ``mean + exp(log_std) * N(0, 1)`` per
  dimension; the env receives them clipped to its box, the batch keeps the sampled (unclipped)
  action, and ``behavior_log_probs`` is the diagonal Gaussian log-density of that action
  (summed over dimensions);
- continuous games, ``policies.Ppo(distribution="beta")``: ``policy_outputs`` are ``(n, 6)``:
  the concentrations alpha (3) then beta (3) — or a pair ``(alpha (n, 3), beta (n, 3) or
  (3,))``. Per dimension ``x ~ Beta(alpha, beta)`` on (0, 1) (kept within
  ``[1e-6, 1 - 1e-6]``) is mapped onto the action's box, ``low + (high - low) * x`` (steer
  [-1, 1], gas and brake [0, 1]); the env and the batch get that action, and
  ``behavior_log_probs`` is its log-density, ``Beta(alpha, beta).log_prob(x) - log(high - low)``
  summed over dimensions (compute it in float64 on the learner's side to match to ~1e-6);
- ``values``: shape ``(n,)`` or ``(n, 1)``.

Everything must be finite, ``log_std`` within ``[-20, 20]`` (beyond it a sample leaves
float32's range) and a Beta's alpha and beta within ``[1e-3, 1e6]`` (``1 + softplus(x)`` is
a common choice); anything else is refused before a game steps. ``obs`` is read-only: it is what
the batch records. Sampling is done in Rust from seeded per-game streams.

A collection that ends early (an exception from ``infer``, Ctrl-C, ``stop()``, a dropped
stream) leaves nothing behind: the next batch holds only its own steps.
"""

from __future__ import annotations

import math
import numbers
import queue
import secrets
import threading
import time
import warnings
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _core
from ._rng import check_seed, seed_words
from .errors import ConcurrentCallError, InvalidConfig
from .spec import MAX_ROLLOUT_BYTES, CarRacingSpec, check_int, check_threads

Infer = Callable[[np.ndarray], Any]


# --------------------------------------------------------------------------- configuration


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
        return CarRacingSpec.create(
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

    def __post_init__(self) -> None:
        for name in ("gamma", "lam"):
            v = getattr(self, name)
            if not (isinstance(v, numbers.Real) and 0.0 <= float(v) <= 1.0):
                raise ValueError(f"{name} must be within [0, 1], got {v!r}")
        if self.cut_without_progress is not None:
            steps = check_int("cut_without_progress", self.cut_without_progress, 1, 2**32 - 1)
            object.__setattr__(self, "cut_without_progress", steps)  # a NumPy int -> int


class learners:  # noqa: N801
    """What the engine prepares batches for."""

    @staticmethod
    def Ppo(  # noqa: N802
        gamma: float = 0.99, lam: float = 0.95, cut_without_progress: int | None = None
    ) -> _PpoLearner:
        """GAE(gamma, lambda) advantages and returns, computed in Rust.

        `cut_without_progress`: simulation steps without a new tile after which a game's
        episode is cut, as a truncation (GAE bootstraps from the value of its last frame), and
        the game restarts, so that a car stuck off the road does not fill the batch until the
        time limit. Gymnasium has no such rule: it shapes training episodes only (episode
        returns and scores in the batch are those of the cut episodes). None never cuts."""
        return _PpoLearner(float(gamma), float(lam), cut_without_progress)


# --------------------------------------------------------------------------- batches


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


# --------------------------------------------------------------------------- the engine


class _Stopped(Exception):
    """Raised inside the producer when the stream is stopped mid-batch."""


class Engine:
    """Parallel CarRacing games collecting PPO batches with a caller-provided network.

    Args:
        game: ``games.CarRacing(...)``.
        reward: ``Reward(...)`` event weights.
        policy: ``policies.Ppo()`` (a Gaussian for continuous games) or
            ``policies.Ppo(distribution="beta")`` (a Beta per action dimension on its box).
        learner: ``learners.Ppo(gamma, lam)``.
        n_games: parallel episode slots.
        n_threads: worker threads (default: the cores available); more than the cores or the
            games is accepted and capped (``engine.n_threads`` is what is used).
        seed: seeds game g's track stream with ``seed + g`` and the action sampling; None
            draws both from OS entropy.
    """

    def __init__(
        self,
        game: CarRacingSpec | None = None,
        reward: Reward | None = None,
        policy: _PpoPolicy | None = None,
        learner: _PpoLearner | None = None,
        n_games: int = 64,
        n_threads: int | None = None,
        seed: int | None = None,
    ):
        # Everything is checked before anything is built.
        self.game = game if game is not None else games.CarRacing()
        self.reward = reward if reward is not None else Reward()
        self.policy = policy if policy is not None else policies.Ppo()
        self.learner = learner if learner is not None else learners.Ppo()
        for name, value, kind in (
            ("game", self.game, CarRacingSpec),
            ("reward", self.reward, Reward),
            ("policy", self.policy, _PpoPolicy),
            ("learner", self.learner, _PpoLearner),
        ):
            if not isinstance(value, kind):
                raise TypeError(f"{name} must come from rf.{name}s / rf.Reward, got {value!r}")
        if self.policy.distribution == "beta" and not self.game.continuous:
            raise InvalidConfig(
                "policies.Ppo(distribution='beta') needs a continuous game (a discrete game's "
                "policy is categorical)"
            )
        self.n_games = self.game.check_batch(n_games, "n_games")
        self.n_threads = check_threads("n_threads", n_threads)
        self._requested_threads = self.n_threads
        self.seed = check_seed(seed)
        self.obs_shape = self.game.obs_shape
        self.continuous = self.game.continuous
        self.policy_outputs = 6 if self.continuous else 5
        self.distribution = self.policy.distribution if self.continuous else "categorical"
        sampling_seed = (
            secrets.randbits(64) if self.seed is None else (self.seed * 0x9E3779B1) % 2**64
        )
        self._core = _core.CollectorCore(
            spec=self.game.core_args(),
            n_games=self.n_games,
            n_threads=self.n_threads,
            entropy=[secrets.randbits(128) for _ in range(self.n_games)],
            sampling_seed=sampling_seed,
            reward=self.reward.weights(),
            distribution=self.policy.distribution,
            cut_without_progress=self.learner.cut_without_progress,
        )
        # What the core uses: at most one thread per game and per available core.
        self.n_threads = self._core.num_threads
        self._obs = np.zeros((self.n_games, *self.obs_shape), np.uint8)
        # `infer` sees the observations read-only: a write there would reach the batch.
        self._obs_for_infer = self._obs.view()
        self._obs_for_infer.flags.writeable = False
        seeds = (
            [None] * self.n_games
            if self.seed is None
            else [seed_words(self.seed + g) for g in range(self.n_games)]
        )
        self._core.reset(seeds, self._obs)
        self.weights_version = 0
        self._busy = threading.Lock()
        self._stream: tuple[_StreamState, threading.Thread] | None = None

    def __repr__(self) -> str:
        return (
            f"Engine(game={self.game!r}, reward={self.reward!r}, policy={self.policy!r}, "
            f"learner={self.learner!r}, "
            f"n_games={self.n_games}, n_threads={self.n_threads}, seed={self.seed}, "
            f"weights_version={self.weights_version})"
        )

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickles as its arguments: unpickling builds a new engine from them (fresh games,
        reset from the same seed, as Gymnasium's EzPickle re-creates a single env), not a copy
        of the games' state, the weights version or a running stream."""
        return (
            Engine,
            (
                self.game,
                self.reward,
                self.policy,
                self.learner,
                self.n_games,
                self._requested_threads,
                self.seed,
            ),
        )

    # ------------------------------------------------------------------ public API

    def weights_updated(self) -> None:
        """Tells the engine the network changed: later steps are tagged with a new version."""
        self.weights_version += 1

    def collect(self, n_records: int, infer: Infer) -> Batch:
        """Collects one batch of `n_records` (a multiple of `n_games`) in the calling thread."""
        steps = self._steps_for(n_records)
        _check_infer(infer)
        self._acquire("collect()")
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
        depth = check_int("depth", depth, 1, 1024)
        _check_infer(infer)
        return CollectStream(self, steps, infer, int(depth))

    # ------------------------------------------------------------------ internals

    def _acquire(self, call: str) -> None:
        """Takes the engine for one collection. A stream that was stopped (or dropped) but whose
        thread is still finishing its step is waited for; a running one is a conflict."""
        if self._busy.acquire(blocking=False):
            return
        stream = self._stream
        if stream is not None and stream[0].stop.is_set():
            stream[1].join()
            if self._busy.acquire(blocking=False):
                return
        raise ConcurrentCallError(
            f"{call} was called while this engine is already collecting (a running stream, or "
            "collect() in another thread); an engine runs one collection at a time"
        )

    def _steps_for(self, n_records: int) -> int:
        if isinstance(n_records, bool) or not isinstance(n_records, numbers.Integral):
            raise InvalidConfig(f"the record count must be an int, got {n_records!r}")
        n = int(n_records)
        if n < self.n_games or n % self.n_games:
            raise InvalidConfig(
                f"the record count must be a positive multiple of n_games={self.n_games}, got {n}"
            )
        if n * self.game.obs_bytes > MAX_ROLLOUT_BYTES:
            raise InvalidConfig(
                f"the record count {n} would hold {n * self.game.obs_bytes / 2**30:.2f} GiB of "
                f"observations in one batch, more than the {MAX_ROLLOUT_BYTES / 2**30:.0f} GiB "
                "bound"
            )
        return n // self.n_games

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
        k = self.policy_outputs
        first, second = ("alpha", "beta") if self.distribution == "beta" else ("mean", "log_std")
        if self.continuous and isinstance(policy, (tuple, list)) and not _has_shape(policy, (n, k)):
            # A (mean, log_std) or (alpha, beta) pair; any other sequence (a list of n rows of
            # 6 numbers) is an array-like read as one array below.
            if len(policy) != 2:
                raise ValueError(
                    f"continuous policy outputs must be ({n}, 6) or ({first}, {second}), got a "
                    f"{type(policy).__name__} of {len(policy)}"
                )
            head = _as_f32(policy[0], first)
            tail = np.broadcast_to(_as_f32(policy[1], second), head.shape)
            policy = np.concatenate([head, tail], axis=-1)
        policy = _as_f32(policy, "policy outputs")
        if policy.shape != (n, k):
            what = "logits over 5 actions" if k == 5 else f"{first}[3] then {second}[3]"
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
        # The core starts from an empty rollout, and a collection that does not finish (an
        # exception from `infer` or the core, a stop, Ctrl-C) drops what it recorded: a batch
        # only ever holds its own steps.
        self._core.discard()
        try:
            return self._record(steps, infer, stop)
        except BaseException:
            self._core.discard()
            raise

    def _record(self, steps: int, infer: Infer, stop: threading.Event | None) -> Batch:
        version = self.weights_version
        t_infer = t_env = 0.0
        start = time.perf_counter()
        obs = self._obs_for_infer
        for _ in range(steps):
            if stop is not None and stop.is_set():
                raise _Stopped
            t0 = time.perf_counter()
            policy, values = self._infer(infer, obs)
            t1 = time.perf_counter()
            truncated = self._core.step(policy, values, self._obs)
            t2 = time.perf_counter()
            t_infer += t1 - t0
            t_env += t2 - t1
            if truncated:
                final_obs = self._core.final_obs(truncated)
                final_obs.flags.writeable = False
                _, final_values = self._infer(infer, final_obs)
                self._core.set_final_values(truncated, final_values.tolist())
                t_infer += time.perf_counter() - t2
        t0 = time.perf_counter()
        _, bootstrap = self._infer(infer, obs)
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


def _has_shape(x: Any, shape: tuple[int, ...]) -> bool:
    """Whether `x` reads as one numeric array of `shape` (a ragged sequence does not)."""
    try:
        return bool(np.shape(x) == shape)
    except ValueError:  # ragged, e.g. (mean (n, 3), log_std (3,))
        return False


def _check_infer(infer: object) -> None:
    if not callable(infer):
        raise TypeError(
            "infer must be callable: infer(obs) -> (policy_outputs, values), got "
            f"{type(infer).__name__}"
        )


def _describe(a: np.ndarray) -> str:
    """`uint8(5, 3, 96, 96, 3)`: an array's dtype and shape."""
    return f"{a.dtype}{tuple(a.shape)}"


def _as_f32(x: Any, what: str) -> np.ndarray:
    try:
        arr = np.asarray(x)
    except Exception as e:  # noqa: BLE001 - e.g. CUDA tensors
        raise TypeError(
            f"infer's {what} must be NumPy-convertible (for PyTorch: .detach().cpu().numpy())"
        ) from e
    if not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise TypeError(f"infer's {what} must be numeric, got dtype {arr.dtype}")
    # Beyond float32's range a value becomes inf, which the finiteness check then refuses.
    with np.errstate(over="ignore", invalid="ignore"):
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
    - A stream dropped without ``stop()`` stops the same way once it is garbage: its thread
      holds no reference to it.
    - Whatever ends a collection early, the engine's next batch (from a new stream or
      ``collect``) holds only steps collected for it, ``collect_size / n_games`` per game.
    """

    def __init__(self, engine: Engine, steps: int, infer: Infer, depth: int):
        engine._acquire("collect_stream()")
        self._engine = engine
        self._state = _StreamState(depth)
        self._thread = threading.Thread(
            target=_produce,
            args=(engine, steps, infer, self._state),
            name="reinfors-gym-collector",
            daemon=True,
        )
        engine._stream = (self._state, self._thread)
        self._thread.start()
        # Dropped without stop(): the producer sees the flag at its next step and ends.
        weakref.finalize(self, self._state.stop.set)

    @property
    def discarded_batches(self) -> int:
        return self._state.discarded_batches

    @property
    def delivered_batches(self) -> int:
        return self._state.delivered_batches

    def __iter__(self) -> CollectStream:
        return self

    def __next__(self) -> Batch:
        state = self._state
        start = time.perf_counter()
        while True:
            try:
                item = state.queue.get(timeout=0.1)
                break
            except queue.Empty:
                continue
        if item is _END:
            state.queue.put(_END)  # later calls stop too
            raise StopIteration
        if isinstance(item, _Failure):
            state.stop.set()
            state.queue.put(_END)
            raise item.error.with_traceback(item.error.__traceback__)
        state.slots.release()
        item.telemetry["wait_seconds"] = time.perf_counter() - start
        item.telemetry["policy_lag"] = float(self._engine.weights_version - item.weights_version)
        state.delivered_batches += 1
        return item

    def stop(self, timeout: float | None = None) -> None:
        """Stops collecting and joins the worker thread (idempotent)."""
        self._state.stop.set()
        self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def __enter__(self) -> CollectStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _StreamState:
    """What a stream shares with its producer thread (never the stream itself, so a dropped
    stream can be collected and its finalizer stop the thread)."""

    def __init__(self, depth: int):
        self.queue: queue.Queue[Any] = queue.Queue()
        self.slots = threading.Semaphore(depth)
        self.stop = threading.Event()
        self.discarded_batches = 0
        self.delivered_batches = 0


def _produce(engine: Engine, steps: int, infer: Infer, state: _StreamState) -> None:
    try:
        while not state.stop.is_set():
            # Wait for room in the queue, but stay responsive to stop().
            while not state.slots.acquire(timeout=0.05):
                if state.stop.is_set():
                    return
            try:
                batch = engine._collect(steps, infer, state.stop)
            except _Stopped:
                state.discarded_batches += 1
                return
            state.queue.put(batch)
    except BaseException as e:  # noqa: BLE001 - handed to the consumer
        state.queue.put(_Failure(e))
    finally:
        state.queue.put(_END)
        engine._busy.release()


class _Failure:
    def __init__(self, error: BaseException):
        self.error = error


_END = object()
