"""`CarRacingVectorEnv` side by side with `AsyncVectorEnv` over single envs (ours, and
Gymnasium's `CarRacing-v3` where Gymnasium defines the behaviour): `get_attr`/`call`/`set_attr`,
accessors after `close()`, pickling, the bounds, and the corners a deliberate break once slipped
past (final observations kept, frame skip at the episode's end, `get_attr` racing a step). Last,
`gym.make_vec("reinfors/CarRacing-v0")` beside `AsyncVectorEnv` over Gymnasium's own
`CarRacing-v3`, step by step in every autoreset mode: frames, rewards, flags, infos, and every
sub-env's track, tiles, colours and car."""

from __future__ import annotations

import pickle
import threading
import time
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import reinfors_gym as rf
from reinfors_gym import CarRacingVectorEnv
from reinfors_gym.errors import ConcurrentCallError, InvalidConfig, ReadOnlyAttributeError
from reinfors_gym.parity import _gym_car_state, _state_diff
from reinfors_gym.testing import (
    GYMNASIUM_ATTRIBUTES,
    SUB_ENV_ATTRIBUTES,
    SUB_ENV_METHODS,
    same_attribute_value,
)

GAS = np.array([0.0, 0.3, 0.0], np.float32)

# SWIG's import-time DeprecationWarnings, errors under this suite's filter, crash Box2D's
# initialisation: import it once, quietly, before Gymnasium's CarRacing-v3 needs it.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import Box2D  # noqa: F401


def _async_ours(n: int, **kwargs) -> gym.vector.AsyncVectorEnv:
    return gym.vector.AsyncVectorEnv([lambda: gym.make(rf.ENV_ID, **kwargs)] * n)


def test_get_attr_and_call_equal_async_vector_env_over_our_single_envs():
    assert len(SUB_ENV_ATTRIBUTES) + len(SUB_ENV_METHODS) >= 12
    ours = CarRacingVectorEnv(2)
    ref = _async_ours(2)
    try:
        for envs in (ours, ref):
            envs.reset(seed=11)
            for _ in range(5):
                envs.step(np.tile(GAS, (2, 1)))
        for name in SUB_ENV_ATTRIBUTES:
            o, r = ours.get_attr(name), ref.get_attr(name)
            for i in range(2):
                assert same_attribute_value(name, o[i], r[i]), (name, i, o[i], r[i])
        for name in SUB_ENV_METHODS:
            o, r = ours.call(name), ref.call(name)
            for i in range(2):
                assert o[i].keys() == r[i].keys()
                for key in o[i]:
                    np.testing.assert_array_equal(o[i][key], r[i][key], err_msg=(name, key))
    finally:
        ours.close()
        ref.close()


def test_set_attr_takes_effect_at_the_next_reset_as_car_racing_v3s():
    ours = CarRacingVectorEnv(2)
    theirs = gym.vector.AsyncVectorEnv([lambda: gym.make("CarRacing-v3")] * 2)
    try:
        for envs in (ours, theirs):
            envs.set_attr("domain_randomize", True)
            envs.set_attr("lap_complete_percent", [0.0, 0.95])
            envs.reset(seed=21)
        for name in ("track", "bg_color", "grass_color", "road_color", "lap_complete_percent"):
            o, t = ours.get_attr(name), theirs.get_attr(name)
            assert all(same_attribute_value(name, o[i], t[i]) for i in range(2)), name
        o_step = ours.step(np.tile(GAS, (2, 1)))
        t_step = theirs.step(np.tile(GAS, (2, 1)))
        assert o_step[2].tolist() == t_step[2].tolist() == [True, False]
        np.testing.assert_allclose(o_step[1], t_step[1])
    finally:
        ours.close()
        theirs.close()


def test_np_random_written_through_set_attr_drives_the_next_unseeded_reset():
    ours = CarRacingVectorEnv(2)
    single = gym.make(rf.ENV_ID)
    try:
        ours.set_attr("np_random", [np.random.default_rng(5), np.random.default_rng(6)])
        ours.reset()
        single.unwrapped.np_random = np.random.default_rng(6)
        single.reset()
        np.testing.assert_array_equal(ours.get_attr("track")[1], single.unwrapped.track)
        assert ours.get_attr("np_random_seed") == (-1, -1)
    finally:
        ours.close()
        single.close()


@pytest.mark.parametrize(
    "name", ["continuous", "track", "reward", "t", "tile_visited", "spec", "render_mode"]
)
def test_set_attr_of_a_fixed_attribute_is_refused_by_name(name):
    env = CarRacingVectorEnv(2)
    with pytest.raises(ReadOnlyAttributeError, match=repr(name)):
        env.set_attr(name, 1)
    env.set_attr("my_tag", ["a", "b"])  # user attributes are kept, as on any sub-env
    assert env.get_attr("my_tag") == ("a", "b")
    with pytest.raises(InvalidConfig, match="lap_complete_percent"):
        env.set_attr("lap_complete_percent", float("nan"))
    env.close()


def test_an_unknown_attribute_names_the_env_not_a_private_class():
    env = CarRacingVectorEnv(1)
    with pytest.raises(AttributeError, match="reinfors/CarRacing-v0 sub-env has no attribute"):
        env.get_attr("road_poly_of_doom")
    env.close()


def test_every_accessor_raises_after_close():
    env = CarRacingVectorEnv(2)
    env.reset(seed=0)
    env.close()
    for call in (
        lambda: env.get_attr("track"),
        lambda: env.call("car_state"),
        lambda: env.set_attr("domain_randomize", True),
        lambda: env.np_random_seed,
        lambda: env.render(),
        lambda: env.step(np.zeros((2, 3))),
        lambda: env.recv(),
    ):
        with pytest.raises(gym.error.ClosedEnvironmentError):
            call()


def test_get_attr_racing_a_step_is_a_concurrent_call_error():
    env = CarRacingVectorEnv(64, num_threads=1)
    env.reset(seed=0)
    stop, stepping = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def step() -> None:
        while not stop.is_set():
            stepping.set()
            try:
                env.step(np.zeros((64, 3)))
            except ConcurrentCallError:
                pass

    stepper = threading.Thread(target=step)
    stepper.start()
    stepping.wait()
    deadline = time.monotonic() + 30  # a bound on the attempts, not a timing check
    try:
        while len(errors) < 5 and time.monotonic() < deadline:
            try:
                env.get_attr("t")
            except BaseException as e:  # noqa: BLE001 - every kind is checked below
                errors.append(e)
    finally:
        stop.set()
        stepper.join()
    assert errors, "get_attr never met a running step"
    assert all(isinstance(e, ConcurrentCallError) for e in errors), errors
    env.get_attr("t")  # unharmed
    env.close()


def test_pickling_recreates_the_vector_env_from_its_arguments():
    env = CarRacingVectorEnv(3, frame_skip=2, grayscale=True, batch_size=2, num_threads=1)
    copy = pickle.loads(pickle.dumps(env))
    assert isinstance(copy, CarRacingVectorEnv) and copy is not env
    assert (copy.num_envs, copy.frame_skip, copy.grayscale, copy.batch_size) == (3, 2, True, 2)
    a, _ = env.reset(seed=4)
    b, _ = copy.reset(seed=4)
    np.testing.assert_array_equal(a, b)
    env.close()
    copy.close()


def test_python_and_core_bounds_agree():
    # Passes every per-argument bound, but one observation would be 384 MiB.
    with pytest.raises(InvalidConfig, match="one observation"):
        CarRacingVectorEnv(1, obs_size=(4096, 4096), stack_num=8)
    assert rf.spec.MAX_OBS_BYTES == rf._core.MAX_OBS_BYTES
    with pytest.raises(InvalidConfig, match="between 1 and 64"):
        CarRacingVectorEnv(1, stack_num=65)


def test_final_obs_rows_stay_what_they_were_when_returned():
    env = CarRacingVectorEnv(
        3, autoreset_mode=AutoresetMode.SAME_STEP, max_episode_steps=3, copy=False
    )
    env.reset(seed=0)
    kept = []
    for t in range(9):
        _, _, _, trunc, info = env.step(np.tile([0.3 * (t % 3) - 0.3, 0.8, 0.0], (3, 1)))
        if trunc.any():
            rows = [info["final_obs"][i] for i in np.flatnonzero(info["_final_obs"])]
            kept.append([(row, row.copy()) for row in rows])
    assert len(kept) == 3
    for rows in kept:
        for row, snapshot in rows:
            np.testing.assert_array_equal(row, snapshot)


def test_frame_skip_stops_at_the_episode_end_like_gymnasiums_time_limit():
    # Gymnasium's env with a 4-step limit, stepped 3 + 1 times with the same action.
    theirs = gym.make("CarRacing-v3", max_episode_steps=4)
    theirs.reset(seed=9)
    want = [sum(theirs.step(GAS)[1] for _ in range(3)), theirs.step(GAS)[1]]
    env = CarRacingVectorEnv(1, frame_skip=3, max_episode_steps=4)
    env.reset(seed=9)
    got = [env.step(GAS[None])[1][0] for _ in range(2)]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)
    theirs.close()
    env.close()


# ------------------------------------------------------------- beside Gymnasium's own CarRacing-v3

#: Frames are drawn by another rasterizer: the parity suite's bound, the mean absolute difference
#: per frame (0-255) while the car states agree (reinfors_gym/parity.py, tests/parity/).
FRAME_MAD = 2.0
#: Car quantities beyond the hull position agree within the parity suite's divergence threshold;
#: the hull position exactly (tests/parity/test_parity_fast.py).
STATE_TOLERANCE = 1e-6
NUM_ENVS, EPISODE_STEPS = 3, 7
#: One fixed action per step and sub-env: 24 steps hold three or more episodes of each sub-env.
ACTIONS = (
    np.random.default_rng(0)
    .uniform([-1.0, 0.0, 0.0], [1.0, 1.0, 0.2], (24, NUM_ENVS, 3))
    .astype(np.float32)
)
#: Sub-env 0 finishes a lap at each episode's first step (terminated, `lap_finished`); the
#: others run into the time limit (truncated).
LAP_COMPLETE_PERCENT = [0.0, 0.95, 0.95]


class _Readable(gym.Wrapper):
    """CarRacing-v3 as it is, plus readers of what it keeps in Box2D objects (which cannot cross
    AsyncVectorEnv's pipe), returning what our sub-env's accessors of the same names return."""

    def tile_visited(self) -> np.ndarray:
        return np.array([tile.road_visited for tile in self.env.unwrapped.road], dtype=bool)

    def road_colors(self) -> np.ndarray:
        # As Gymnasium's renderer draws them: `int` of each channel (tests/test_rules.py).
        polygons = self.env.unwrapped.road_poly
        return np.array([[int(c) for c in color] for _, color in polygons], dtype=np.uint8)

    def car_state(self) -> dict[str, np.ndarray]:
        return _gym_car_state(self.env)


def _car_racing_v3s(mode: AutoresetMode) -> gym.vector.AsyncVectorEnv:
    make = lambda: _Readable(gym.make("CarRacing-v3", max_episode_steps=EPISODE_STEPS))  # noqa: E731
    return gym.vector.AsyncVectorEnv([make] * NUM_ENVS, autoreset_mode=mode)


def _assert_same_frames(ours, theirs, where: str) -> None:
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, where
    for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        mad = float(np.mean(np.abs(a.astype(np.int16) - b.astype(np.int16))))
        assert mad <= FRAME_MAD, f"{where}, sub-env {i}: frame MAD {mad:.3f}"


def _assert_same_info(ours: dict, theirs: dict, where: str) -> None:
    """Keys and values exactly, `final_obs` frames within the frame bound."""
    assert ours.keys() == theirs.keys(), (where, ours.keys(), theirs.keys())
    for key in ours:
        if isinstance(ours[key], dict):
            _assert_same_info(ours[key], theirs[key], f"{where}, info[{key!r}]")
        elif key == "final_obs":
            for i, (a, b) in enumerate(zip(ours[key], theirs[key], strict=True)):
                assert (a is None) == (b is None), f"{where}, final_obs[{i}]"
                if a is not None:
                    _assert_same_frames(a[None], b[None], f"{where}, final_obs[{i}]")
        else:
            np.testing.assert_array_equal(ours[key], theirs[key], err_msg=f"{where}, {key}")
            assert np.asarray(ours[key]).dtype == np.asarray(theirs[key]).dtype, (where, key)


def _assert_same_sub_envs(ours, theirs, where: str) -> None:
    """Every attribute both sub-envs have, the tile flags, road colours and the car."""
    for name in GYMNASIUM_ATTRIBUTES:
        if name == "unwrapped":
            continue  # a copy re-created from its arguments: see the test at the end
        o, t = ours.get_attr(name), theirs.get_attr(name)
        if name == "metadata":
            # Gymnasium before 1.4's vector envs write their autoreset mode into the sub-env
            # class's metadata: any vector env this process made before leaves it in ours or
            # theirs. Not a sub-env's own key.
            o, t = (
                [{k: v for k, v in m.items() if k != "autoreset_mode"} for m in x] for x in (o, t)
            )
        for i in range(NUM_ENVS):
            assert same_attribute_value(name, o[i], t[i]), (where, name, i, o[i], t[i])
    for name in ("tile_visited", "road_colors"):
        o, t = ours.get_attr(name), theirs.call(name)
        for i in range(NUM_ENVS):
            np.testing.assert_array_equal(o[i], t[i], err_msg=f"{where}, {name}, sub-env {i}")
    for i, (o, t) in enumerate(zip(ours.call("car_state"), theirs.call("car_state"), strict=True)):
        np.testing.assert_array_equal(o["hull_position"], t["hull_position"], err_msg=where)
        assert _state_diff(o, t) <= STATE_TOLERANCE, (where, i, o, t)


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda m: m.name)
def test_vector_env_equals_async_vector_env_over_car_racing_v3_step_by_step(mode):
    ours = gym.make_vec(
        rf.ENV_ID, num_envs=NUM_ENVS, autoreset_mode=mode, max_episode_steps=EPISODE_STEPS
    )
    theirs = _car_racing_v3s(mode)
    endings = np.zeros((2, NUM_ENVS), int)  # terminations, truncations
    try:
        for envs in (ours, theirs):
            envs.set_attr("lap_complete_percent", LAP_COMPLETE_PERCENT)
        (o_obs, o_info), (t_obs, t_info) = ours.reset(seed=5), theirs.reset(seed=5)
        _assert_same_frames(o_obs, t_obs, "reset")
        _assert_same_info(o_info, t_info, "reset")
        _assert_same_sub_envs(ours, theirs, "reset")
        for step, actions in enumerate(ACTIONS):
            where = f"{mode.name} step {step}"
            o, t = ours.step(actions), theirs.step(actions)
            _assert_same_frames(o[0], t[0], where)
            for k, name in enumerate(("reward", "terminated", "truncated"), start=1):
                np.testing.assert_array_equal(o[k], t[k], err_msg=f"{where}, {name}")
                assert o[k].dtype == t[k].dtype, (where, name)
            _assert_same_info(o[4], t[4], where)
            _assert_same_sub_envs(ours, theirs, where)
            endings += np.stack([t[2], t[3]])
            done = t[2] | t[3]
            if mode == AutoresetMode.DISABLED and done.any():
                # One dict each: the vector envs pop the mask from the caller's options.
                (o_obs, o_info), (t_obs, t_info) = (
                    ours.reset(options={"reset_mask": done.copy()}),
                    theirs.reset(options={"reset_mask": done.copy()}),
                )
                _assert_same_frames(o_obs, t_obs, f"{where}, reset_mask {done}")
                _assert_same_info(o_info, t_info, f"{where}, reset_mask {done}")
                _assert_same_sub_envs(ours, theirs, f"{where}, after reset_mask")
    finally:
        ours.close()
        theirs.close()
    # Each sub-env ended episodes along the way, so every mode's autoreset ran.
    assert (endings[0, :1] >= 3).all() and (endings[1, 1:] >= 3).all(), endings


def test_unwrapped_after_set_attr_keeps_the_write_that_async_vector_env_loses():
    """The one difference from AsyncVectorEnv over CarRacing-v3, documented in
    docs/vector_env.md: its `get_attr("unwrapped")` pickles each sub-env, and Gymnasium's
    EzPickle rebuilds CarRacing from its constructor arguments, without what `set_attr` wrote;
    ours returns the sub-envs as they are."""
    ours = gym.make_vec(rf.ENV_ID, num_envs=2)
    theirs = gym.vector.AsyncVectorEnv([lambda: gym.make("CarRacing-v3")] * 2)
    try:
        for envs in (ours, theirs):
            envs.set_attr("lap_complete_percent", [0.0, 0.95])
            envs.reset(seed=0)
        o, t = ours.get_attr("unwrapped"), theirs.get_attr("unwrapped")
        assert [env.lap_complete_percent for env in o] == [0.0, 0.95]
        assert [env.lap_complete_percent for env in t] == [0.95, 0.95]
        assert theirs.get_attr("lap_complete_percent") == (0.0, 0.95)
    finally:
        ours.close()
        theirs.close()
