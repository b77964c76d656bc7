"""The single env as a drop-in for Gymnasium's CarRacing-v3 in every corner: attribute writes,
what `get_attr`/`set_attr`/`call` reach through Gymnasium's AsyncVectorEnv, verbose output,
pickling, and every accessor after `close()`. Each is checked side by side with CarRacing-v3."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest

import reinfors_gym as rf
from reinfors_gym.car_racing import READ_ONLY_ATTRIBUTES, RETRY_MESSAGE
from reinfors_gym.testing import (
    GYMNASIUM_ATTRIBUTES,
    SUB_ENV_ATTRIBUTES,
    SUB_ENV_METHODS,
    same_attribute_value,
)

OURS, THEIRS = rf.ENV_ID, "CarRacing-v3"
GAS = np.array([0.0, 0.3, 0.0], np.float32)
# Seed 36's first track attempt fails after closing a lap: its reset prints both kinds of line.
RETRY_SEED = 36


@pytest.fixture(autouse=True)
def _box2d(gym_car_racing):
    """Imports Box2D the way the suite must (SWIG's import-time warnings are errors here)."""


def both(**kwargs):
    return gym.make(OURS, **kwargs), gym.make(THEIRS, **kwargs)


def first_step(env, seed):
    env.reset(seed=seed)
    return env.step(GAS)


# --------------------------------------------------------------------------- attribute writes


def test_lap_complete_percent_write_applies_at_the_next_reset_as_in_gymnasium():
    ours, theirs = both()
    for env in (ours, theirs):
        env.reset(seed=3)
        env.unwrapped.lap_complete_percent = 0.0
    # Gymnasium reads it at reset: the running episode keeps 0.95 (no lap on the first step).
    assert not ours.step(GAS)[2] and not theirs.step(GAS)[2]
    # From the next reset on, touching tile 0 with any tile visited completes the lap.
    o, t = first_step(ours, 3), first_step(theirs, 3)
    assert t[2] and t[4] == {"lap_finished": True}
    assert (o[1], o[2], o[3], o[4]) == (t[1], t[2], t[3], t[4])
    assert ours.unwrapped.lap_complete_percent == 0.0


def test_domain_randomize_write_applies_at_the_next_reset_as_in_gymnasium():
    ours, theirs = both()
    ours.reset(seed=5)
    default_track = ours.unwrapped.track.copy()
    for env in (ours, theirs):
        env.unwrapped.domain_randomize = True
    for seed in (5, 6):
        o_obs, _ = ours.reset(seed=seed)
        t_obs, _ = theirs.reset(seed=seed)
        for name in ("track", "bg_color", "grass_color", "road_color"):
            assert same_attribute_value(
                name, getattr(ours.unwrapped, name), getattr(theirs.unwrapped, name)
            ), name
        assert np.abs(o_obs.astype(int) - t_obs.astype(int)).mean() < 1.0
    # The colours were drawn before the track, as in Gymnasium: another track for seed 5.
    for env in (ours, theirs):
        env.reset(seed=5)
    assert not np.array_equal(ours.unwrapped.track, default_track)
    # Switched off again, both keep the colours drawn last (Gymnasium does not restore them).
    for env in (ours, theirs):
        env.unwrapped.domain_randomize = False
        env.reset(seed=7)
    assert same_attribute_value("bg_color", ours.unwrapped.bg_color, theirs.unwrapped.bg_color)
    assert same_attribute_value("track", ours.unwrapped.track, theirs.unwrapped.track)


@pytest.mark.parametrize("name", sorted(READ_ONLY_ATTRIBUTES))
def test_writes_that_would_silently_diverge_are_refused_by_name(name):
    env = gym.make(OURS)
    env.reset(seed=0)
    with pytest.raises(rf.ReadOnlyAttributeError, match=name):
        setattr(env.unwrapped, name, 0)
    # An AttributeError too, as a property without a setter raises.
    with pytest.raises(AttributeError):
        setattr(env.unwrapped, name, 0)
    env.step(GAS)  # still usable


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("lap_complete_percent", "0.5"),
        ("lap_complete_percent", float("nan")),
        ("domain_randomize", "yes"),
        ("verbose", 2),
        ("render_mode", "rgb"),
    ],
)
def test_bad_writes_are_refused_as_the_constructor_refuses_them(name, bad):
    env = gym.make(OURS)
    before = getattr(env.unwrapped, name)
    with pytest.raises(rf.InvalidConfig, match=name):
        setattr(env.unwrapped, name, bad)
    assert getattr(env.unwrapped, name) == before
    env.reset(seed=0)
    env.step(GAS)


def test_render_mode_write_takes_effect_at_once():
    env = gym.make(OURS).unwrapped
    env.reset(seed=0)
    env.render_mode = "rgb_array"
    assert env.render().shape == (400, 600, 3)


# --------------------------------------------------------------------------- verbose


@pytest.mark.parametrize("seed", [0, RETRY_SEED])
def test_verbose_prints_gymnasiums_lines_character_for_character(seed, capfd):
    lines = []
    for env_id in (OURS, THEIRS):
        env = gym.make(env_id, verbose=True)
        env.reset(seed=seed)
        lines.append(capfd.readouterr().out)
    assert lines[0] == lines[1]
    assert lines[0].startswith("Track generation: ") and "-tiles track\n" in lines[0]
    assert (RETRY_MESSAGE in lines[0]) is (seed == RETRY_SEED)


def test_verbose_write_applies_at_the_next_reset(capfd):
    env = gym.make(OURS)
    env.reset(seed=0)
    assert capfd.readouterr().out == ""
    env.unwrapped.verbose = True
    env.reset(seed=0)
    assert capfd.readouterr().out.startswith("Track generation: ")


# --------------------------------------------------------------------------- close()


# The construction settings stay readable after close(), as Gymnasium's `continuous` does.
ACCESSORS = sorted(READ_ONLY_ATTRIBUTES - {"continuous", "gymnasium_version", "lap_complete_rule"})


@pytest.mark.parametrize("name", ACCESSORS)
def test_every_accessor_raises_after_close(name):
    env = gym.make(OURS).unwrapped
    env.reset(seed=0)
    env.step(GAS)
    env.close()
    with pytest.raises(rf.ClosedEnvironmentError):
        value = getattr(env, name)
        if callable(value):
            value()


# --------------------------------------------------------------------------- pickling


def test_single_env_pickles_like_car_racing_v3():
    """EzPickle: unpickling re-creates the env from its constructor arguments."""
    for env_id in (OURS, THEIRS):
        env = gym.make(env_id, lap_complete_percent=0.5, continuous=False).unwrapped
        first, _ = env.reset(seed=4)
        clone = pickle.loads(pickle.dumps(env))
        assert (clone.lap_complete_percent, clone.continuous) == (0.5, False)
        np.testing.assert_array_equal(clone.reset(seed=4)[0], first)


# --------------------------------------------------------------------------- typed accessors


def test_car_racing_env_types_the_unwrapped_env():
    env = gym.make(OURS)
    assert rf.car_racing_env(env) is env.unwrapped
    with pytest.raises(TypeError, match="car_racing_env"):
        rf.car_racing_env(gym.make(THEIRS))


# --------------------------------------------------------------------------- AsyncVectorEnv


def async_pair(n=2):
    return (
        gym.vector.AsyncVectorEnv([lambda: gym.make(OURS)] * n),
        gym.vector.AsyncVectorEnv([lambda: gym.make(THEIRS)] * n),
    )


def test_attribute_names_cover_the_sub_env():
    assert len(SUB_ENV_ATTRIBUTES) + len(SUB_ENV_METHODS) >= 12
    assert set(GYMNASIUM_ATTRIBUTES) <= set(SUB_ENV_ATTRIBUTES)


def test_async_vector_env_get_attr_and_call_reach_what_car_racing_v3_exposes():
    ours, theirs = async_pair()
    try:
        actions = np.tile(GAS, (2, 1))
        for envs in (ours, theirs):
            envs.reset(seed=11)
            for _ in range(5):
                envs.step(actions)
        for name in GYMNASIUM_ATTRIBUTES:
            o, t = ours.get_attr(name), theirs.get_attr(name)
            for i in range(2):
                assert same_attribute_value(name, o[i], t[i]), (name, i, o[i], t[i])
        visited = ours.get_attr("tile_visited")
        counts = theirs.get_attr("tile_visited_count")
        assert [int(v.sum()) for v in visited] == list(counts)
        assert [len(v) for v in visited] == [len(t) for t in theirs.get_attr("track")]
        polys = theirs.get_attr("road_poly")
        assert [c.shape for c in ours.get_attr("road_colors")] == [(len(p), 3) for p in polys]
        # call reaches the car_state method; it is the same car as a single env's.
        single = gym.make(OURS)
        single.reset(seed=12)
        for _ in range(5):
            single.step(GAS)
        state = ours.call("car_state")[1]
        expected = rf.car_racing_env(single).car_state()
        assert state.keys() == expected.keys()
        for key in state:
            np.testing.assert_array_equal(state[key], expected[key], err_msg=key)
    finally:
        ours.close()
        theirs.close()


def test_async_vector_env_set_attr_then_reset_gives_car_racing_v3s_tracks():
    ours, theirs = async_pair()
    try:
        for envs in (ours, theirs):
            envs.set_attr("domain_randomize", True)
            envs.set_attr("lap_complete_percent", [0.0, 0.95])
            envs.reset(seed=21)
        for name in ("track", "bg_color", "grass_color", "lap_complete_percent"):
            o, t = ours.get_attr(name), theirs.get_attr(name)
            assert all(same_attribute_value(name, o[i], t[i]) for i in range(2)), name
        o_step = ours.step(np.tile(GAS, (2, 1)))
        t_step = theirs.step(np.tile(GAS, (2, 1)))
        # Sub-env 0 finished its lap (lap_complete_percent=0.0), sub-env 1 did not.
        np.testing.assert_array_equal(o_step[2], t_step[2])
        assert o_step[2].tolist() == [True, False]
        np.testing.assert_allclose(o_step[1], t_step[1])
    finally:
        ours.close()
        theirs.close()


def test_async_vector_env_set_attr_of_a_fixed_attribute_is_refused_by_name():
    envs = gym.vector.AsyncVectorEnv([lambda: gym.make(OURS)])
    try:
        with (
            pytest.raises(rf.ReadOnlyAttributeError, match="continuous"),
            pytest.warns(UserWarning),  # Gymnasium logs the worker's error, then raises it
        ):
            envs.set_attr("continuous", False)
    finally:
        envs.close(terminate=True)  # AsyncVectorEnv's worker ends on an error
