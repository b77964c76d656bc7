"""Property tests over the three public classes: whatever the arguments (actions, seeds, options,
constructor arguments), a call either works or raises a clear Python exception, never raw
internals (a Rust panic, PyO3's "Already borrowed", OverflowError, an error from a torn-down
object), and the object stays usable after every refused input."""

from __future__ import annotations

import math
import os

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import reinfors_gym as rf
from reinfors_gym import CarRacingEnv, CarRacingVectorEnv
from reinfors_gym.spec import CarRacingSpec

EXAMPLES = int(os.environ.get("REINFORS_GYM_PROPERTY_EXAMPLES", "2000"))
PROPERTY = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,  # the same examples on every run, so CI is reproducible
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# Refusals a user may see: the builtins for bad input and Gymnasium's errors (ours subclass
# both). Anything else (OverflowError, a bare RuntimeError from PyO3, SystemError) is a bug.
ALLOWED = (ValueError, TypeError, gym.error.Error)
RAW = (
    "already borrowed",
    "mutably borrowed",
    "panic",
    "int too big",
    "'nonetype' object",
    "internal error",
)

HUGE_INTS = st.sampled_from([2**31, 2**32, 2**63, 2**64, 2**128, -(2**64), -1, 0])
NOT_INTS = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3),
    st.lists(st.integers(-3, 3), max_size=4),
)
ODD_SCALARS = st.one_of(NOT_INTS, st.integers(-(2**70), 2**70), HUGE_INTS)
# Counts (sub-envs, games, records): small ones that work, and ones refused at once (a valid
# count of 60,000 games would be accepted and only make the test slow).
COUNTS = st.one_of(
    st.integers(-4, 8), st.integers(2**25, 2**70), st.integers(-(2**70), 0), HUGE_INTS, NOT_INTS
)


def attempt(call, own: BaseException | None = None) -> object:
    """Runs `call`; returns its result, or the allowed exception it raised (or `own`, the
    caller's own exception, passed through unchanged). Fails on anything else, and on raw
    internal text in any message."""
    try:
        return call()
    except BaseException as e:
        if own is not None and e is own:
            return e
        assert isinstance(e, ALLOWED), f"not a clear error: {e!r}"
        text = str(e).lower()
        assert not any(raw in text for raw in RAW), f"raw internals reached the user: {e!r}"
        return e


def float_arrays(max_dims: int = 3, max_side: int = 4):
    return hnp.arrays(
        dtype=st.sampled_from([np.float32, np.float64, np.int64, np.uint8, np.bool_]),
        shape=hnp.array_shapes(min_dims=0, max_dims=max_dims, max_side=max_side),
    )


def arrays_with_specials(shape_strategy):
    return hnp.arrays(
        dtype=st.sampled_from([np.float32, np.float64]),
        shape=shape_strategy,
        elements=st.floats(width=32),  # NaN and the infinities included
    )


ACTIONS = st.one_of(
    ODD_SCALARS,
    float_arrays(),
    arrays_with_specials(st.just((3,))),
    arrays_with_specials(hnp.array_shapes(max_dims=2, max_side=4)),
)
SEEDS = st.one_of(ODD_SCALARS, st.integers(0, 2**140), st.lists(ODD_SCALARS, max_size=4))
OPTIONS = st.one_of(
    st.none(),
    ODD_SCALARS,
    st.dictionaries(
        st.sampled_from(["randomize", "reset_mask", "other"]),
        st.one_of(ODD_SCALARS, hnp.arrays(np.bool_, st.integers(0, 4))),
        max_size=2,
    ),
)

# Constructor arguments: small valid values (so accepted configurations stay cheap), their
# edges, and everything else.
SMALL = st.integers(1, 4)
CONFIG_VALUES = st.one_of(SMALL, COUNTS, st.tuples(ODD_SCALARS, ODD_SCALARS))
SHARED_KWARGS = {
    "continuous": st.one_of(st.booleans(), ODD_SCALARS),
    "domain_randomize": st.one_of(st.booleans(), ODD_SCALARS),
    "lap_complete_percent": st.one_of(st.floats(0, 1), ODD_SCALARS),
}
VECTOR_KWARGS = {
    **SHARED_KWARGS,
    "num_envs": CONFIG_VALUES,
    "num_threads": st.one_of(st.none(), CONFIG_VALUES),
    "max_episode_steps": st.one_of(st.none(), CONFIG_VALUES),
    "frame_skip": CONFIG_VALUES,
    "stack_num": CONFIG_VALUES,
    "grayscale": st.one_of(st.booleans(), ODD_SCALARS),
    "obs_size": st.one_of(st.tuples(st.integers(1, 32), st.integers(1, 32)), CONFIG_VALUES),
    "channels_first": st.one_of(st.booleans(), ODD_SCALARS),
    "autoreset_mode": st.one_of(
        st.sampled_from(["next_step", "SameStep", "disabled"]), ODD_SCALARS
    ),
    "render_mode": st.one_of(st.sampled_from([None, "rgb_array", "state_pixels"]), ODD_SCALARS),
    "copy": st.one_of(st.booleans(), ODD_SCALARS),
}


# --------------------------------------------------------------------------- single env

_single: dict[str, CarRacingEnv] = {}


def single_env(continuous: bool) -> CarRacingEnv:
    key = str(continuous)
    if key not in _single:
        _single[key] = CarRacingEnv(continuous=continuous, render_mode="rgb_array")
        _single[key].reset(seed=0)
    return _single[key]


def still_usable(env: CarRacingEnv) -> None:
    action = np.array([0.0, 0.1, 0.0]) if env.continuous else 3
    try:
        *_, terminated, truncated, _ = env.step(action)
    except gym.error.ResetNeeded:
        terminated = True
    if terminated or truncated:
        env.reset()
    env.step(action)


@PROPERTY
@given(
    continuous=st.booleans(),
    action=ACTIONS,
    seed=SEEDS,
    options=OPTIONS,
    kwargs=st.fixed_dictionaries({}, optional=SHARED_KWARGS),
)
def test_single_env_refuses_cleanly_and_stays_usable(continuous, action, seed, options, kwargs):
    env = single_env(continuous)
    attempt(lambda: env.step(action))
    still_usable(env)
    attempt(lambda: env.reset(seed=seed, options=options))
    still_usable(env)
    made = attempt(lambda: CarRacingEnv(**kwargs))
    if isinstance(made, CarRacingEnv):
        made.reset(seed=1)
        still_usable(made)
        made.close()


# --------------------------------------------------------------------------- vector env

_vector: dict[str, CarRacingVectorEnv] = {}


def vector_env(continuous: bool) -> CarRacingVectorEnv:
    key = str(continuous)
    if key not in _vector:
        _vector[key] = CarRacingVectorEnv(
            3, continuous=continuous, obs_size=(24, 24), render_mode="state_pixels"
        )
        _vector[key].reset(seed=0)
    return _vector[key]


def vector_usable(envs: CarRacingVectorEnv) -> None:
    n = envs.num_envs
    actions = np.tile([0.0, 0.1, 0.0], (n, 1)) if envs.continuous else np.full(n, 3)
    envs.step(actions)


@PROPERTY
@given(
    continuous=st.booleans(),
    actions=ACTIONS,
    seed=SEEDS,
    options=OPTIONS,
    kwargs=st.fixed_dictionaries({}, optional=VECTOR_KWARGS),
)
def test_vector_env_refuses_cleanly_and_stays_usable(continuous, actions, seed, options, kwargs):
    envs = vector_env(continuous)
    attempt(lambda: envs.step(actions))
    vector_usable(envs)
    attempt(lambda: envs.reset(seed=seed, options=options))
    vector_usable(envs)
    attempt(lambda: envs.step_async(actions))
    if envs._pending is not None:
        attempt(envs.step_wait)
    vector_usable(envs)
    made = attempt(lambda: CarRacingVectorEnv(**kwargs))
    if isinstance(made, CarRacingVectorEnv):
        made.reset(seed=1)
        vector_usable(made)
        made.close()


# --------------------------------------------------------------------------- engine

_engines: dict[str, rf.Engine] = {}


def engine(continuous: bool) -> rf.Engine:
    key = str(continuous)
    if key not in _engines:
        _engines[key] = rf.Engine(
            game=rf.games.CarRacing(continuous=continuous, obs_size=(16, 16), max_episode_steps=3),
            n_games=2,
            n_threads=2,
            seed=0,
        )
    return _engines[key]


def good_infer(continuous: bool):
    def infer(obs):
        width = 6 if continuous else 5
        return np.zeros((len(obs), width), np.float32), np.zeros(len(obs), np.float32)

    return infer


OUTPUTS = st.one_of(
    ODD_SCALARS,
    arrays_with_specials(hnp.array_shapes(max_dims=3, max_side=7)),
    st.tuples(ODD_SCALARS, ODD_SCALARS),
    st.tuples(
        arrays_with_specials(st.sampled_from([(2, 3), (2, 6), (2, 5), (2,), (3,)])),
        arrays_with_specials(st.sampled_from([(2,), (2, 1), (3,)])),
    ),
)
ENGINE_KWARGS = {
    "n_games": CONFIG_VALUES,
    "n_threads": st.one_of(st.none(), CONFIG_VALUES),
    "seed": SEEDS,
}
GAME_KWARGS = {
    **SHARED_KWARGS,
    "max_episode_steps": st.one_of(st.none(), CONFIG_VALUES),
    "channels_first": st.one_of(st.booleans(), ODD_SCALARS),
    "frame_skip": CONFIG_VALUES,
    "stack_num": CONFIG_VALUES,
    "grayscale": st.one_of(st.booleans(), ODD_SCALARS),
    "obs_size": st.one_of(st.tuples(st.integers(1, 16), st.integers(1, 16)), CONFIG_VALUES),
}


@PROPERTY
@given(
    continuous=st.booleans(),
    outputs=OUTPUTS,
    fail_with=st.sampled_from([None, RuntimeError, ValueError]),
    size=COUNTS,
    kwargs=st.fixed_dictionaries({}, optional=ENGINE_KWARGS),
    game=st.fixed_dictionaries({}, optional=GAME_KWARGS),
)
def test_engine_refuses_cleanly_and_stays_usable(
    continuous, outputs, fail_with, size, kwargs, game
):
    e = engine(continuous)
    own = fail_with("from infer") if fail_with is not None else None

    def bad_infer(obs):
        if own is not None:
            raise own
        return outputs

    attempt(lambda: e.collect(4, bad_infer), own=own)
    attempt(lambda: e.collect(size, good_infer(continuous)))
    batch = e.collect(4, good_infer(continuous))
    assert batch.rewards.shape == (2, 2), "stale steps in the batch"
    assert all(np.isfinite(getattr(batch, f)).all() for f in ("behavior_log_probs", "returns"))
    made = attempt(lambda: rf.games.CarRacing(**game))
    if isinstance(made, CarRacingSpec):
        eng = attempt(lambda: rf.Engine(game=made, **kwargs))
        if isinstance(eng, rf.Engine):
            eng.collect(eng.n_games, good_infer(made.continuous))


def test_the_property_tests_run_the_promised_number_of_examples():
    assert EXAMPLES >= 2000
    assert math.isfinite(PROPERTY.max_examples) and PROPERTY.max_examples == EXAMPLES


pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
