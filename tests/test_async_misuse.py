"""Random sequences of asynchronous calls, right and wrong: every refusal is one of the named
errors (no Rust panic, no internal error text) and moves nothing, and the core's count of work
in flight always equals what the successful calls sent and have not received."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from reinfors_gym import CarRacingVectorEnv
from reinfors_gym.errors import AsyncOrderError, InvalidAction, InvalidEnvId

N, BATCH = 4, 2
NAMED = (
    AsyncOrderError,
    InvalidEnvId,
    InvalidAction,
    gym.error.ResetNeeded,
    gym.error.AlreadyPendingCallError,
    gym.error.NoAsyncCallError,
    TimeoutError,
)
# Valid id lists half the time; otherwise anything (out of range, repeated, empty).
ids_strategy = st.one_of(
    st.lists(st.integers(0, N - 1), unique=True, min_size=1, max_size=N),
    st.lists(st.integers(-1, N), max_size=N + 1),
)
actions_strategy = st.sampled_from(["ok", "nan", "wrong-shape"])


def _actions(kind: str, n: int) -> np.ndarray:
    a = np.tile([0.1, 0.5, 0.0], (n, 1))
    if kind == "nan" and n:
        a[0, 1] = np.nan
    if kind == "wrong-shape":
        a = np.zeros((n + 1, 3))
    return a


class AsyncCalls(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        # One thread: which sub-envs a recv returns is then deterministic, as Hypothesis needs
        # to replay and shrink a sequence.
        self.env = CarRacingVectorEnv(N, batch_size=BATCH, num_threads=1)
        self.env.reset(seed=0)
        self.flying: set[int] = set()
        self.pending = False

    def call(self, f, *args, **kwargs):
        """`f(*args)`; a refusal must be a named error, and must leave the flight as it was."""
        before = self.env._pool.in_flight
        try:
            return True, f(*args, **kwargs)
        except NAMED as e:
            text = str(e).lower()
            assert "panic" not in text and "internal error" not in text, e
            assert self.env._pool.in_flight == before, f"{e!r} moved work"
            return False, None

    @precondition(lambda self: not self.pending)
    @rule(ids=ids_strategy, kind=actions_strategy)
    def send(self, ids, kind):
        ok, _ = self.call(self.env.send, _actions(kind, len(ids)), np.array(ids, np.int64))
        if ok:
            assert kind == "ok" and not self.flying & set(ids)
            self.flying |= set(ids)

    @rule(timeout=st.sampled_from([None, 0.0]))
    def recv(self, timeout):
        if timeout is None and len(self.flying) >= BATCH and not self.pending:
            ok, out = self.call(self.env.recv)
            assert ok
        else:
            ok, out = self.call(self.env.recv, timeout)
        if ok:
            got = set(out[4]["env_id"].tolist())
            assert len(got) == BATCH and got <= self.flying
            self.flying -= got

    @rule(ids=ids_strategy, kind=actions_strategy)
    def step_some(self, ids, kind):
        ok, out = self.call(self.env.step, _actions(kind, len(ids)), np.array(ids, np.int64))
        if ok:
            got = set(out[4]["env_id"].tolist())
            self.flying = (self.flying | set(ids)) - got

    @rule()
    def step_all(self):
        ok, _ = self.call(self.env.step, _actions("ok", N))
        assert ok == (not self.flying and not self.pending)

    @rule()
    def step_async(self):
        ok, _ = self.call(self.env.step_async, _actions("ok", N))
        if ok:
            self.flying, self.pending = set(range(N)), True

    @rule()
    def step_wait(self):
        ok, _ = self.call(self.env.step_wait)
        assert ok == self.pending
        if ok:
            self.flying, self.pending = set(), False

    @rule(mask=st.lists(st.booleans(), min_size=N, max_size=N))
    def async_reset(self, mask):
        options = {"reset_mask": np.array(mask)} if any(mask) else None
        ok, _ = self.call(self.env.async_reset, seed=1, options=options)
        if ok:
            self.flying |= {i for i in range(N) if options is None or mask[i]}

    @rule()
    def reset(self):
        ok, _ = self.call(self.env.reset, seed=2)
        assert ok == (not self.flying and not self.pending)

    @rule()
    def accessors(self):
        ok, _ = self.call(self.env.get_attr, "tile_visited_count")
        assert ok == (not self.flying and not self.pending)
        ok, _ = self.call(self.env.set_attr, "lap_complete_percent", 0.9)
        assert ok == (not self.flying and not self.pending)

    @invariant()
    def the_core_counts_what_was_sent(self):
        assert self.env._pool.in_flight == len(self.flying)

    def teardown(self) -> None:
        self.env.close()


AsyncCalls.TestCase.settings = settings(
    max_examples=40,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_random_async_calls = AsyncCalls.TestCase
