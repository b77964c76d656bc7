"""`Engine`: PPO-ready batches collected by Rust workers, optionally while Python trains; this
module holds the engine and the `infer` contract it calls.

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

import numbers
import secrets
import threading
import time
from typing import Any

import numpy as np

from . import _core
from ._batch import Batch
from ._collect_stream import CollectStream, Stopped, _StreamState
from ._engine_config import DISTRIBUTIONS as DISTRIBUTIONS
from ._engine_config import Reward, _PpoLearner, _PpoPolicy, games, learners, policies
from ._infer import Infer, check_infer, checked_outputs
from ._rng import check_seed, seed_words
from .errors import ConcurrentCallError, InvalidConfig
from .spec import MAX_ROLLOUT_BYTES, CarRacingSpec, check_int, check_threads

# Pickles name these classes by the module users import them from (a pickled Engine holds its
# Reward, policy and learner; a Batch may be pickled to a learner process), not by the private
# module that defines them.
for _pickled in (Reward, _PpoPolicy, _PpoLearner, Batch):
    _pickled.__module__ = __name__
del _pickled


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
            cut_is_terminal=self.learner.cut_is_terminal,
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
        check_infer(infer)
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
        check_infer(infer)
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
        return checked_outputs(
            infer(obs), len(obs), self.policy_outputs, self.continuous, self.distribution
        )

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
                raise Stopped
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
