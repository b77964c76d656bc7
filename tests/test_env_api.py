"""The Gymnasium API surface: registration, spaces, env_checker, bad input, lifecycle."""

from __future__ import annotations

import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import reinfors_gym
from reinfors_gym import (
    CarRacingEnv,
    ClosedEnvironmentError,
    InvalidAction,
    InvalidSeed,
    ResetNeeded,
)


def test_registered_like_car_racing_v3():
    spec = gym.spec("reinfors/CarRacing-v0")
    ref = gym.spec("CarRacing-v3")
    assert spec.max_episode_steps == ref.max_episode_steps == 1000
    assert spec.reward_threshold == ref.reward_threshold == 900
    env = gym.make("reinfors/CarRacing-v0")
    assert isinstance(env.unwrapped, CarRacingEnv)
    env.close()


@pytest.mark.parametrize("continuous", [True, False])
def test_spaces_equal_gymnasium(gym_car_racing, continuous):
    ref = gym_car_racing(continuous=continuous)
    env = gym.make("reinfors/CarRacing-v0", continuous=continuous)
    assert env.observation_space == ref.observation_space
    assert env.action_space == ref.action_space
    assert env.metadata["render_modes"] == ref.metadata["render_modes"]
    assert env.metadata["render_fps"] == ref.metadata["render_fps"]
    env.close()


@pytest.mark.parametrize("continuous", [True, False])
def test_check_env_passes_without_warnings(continuous):
    env = gym.make("reinfors/CarRacing-v0", continuous=continuous)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    env.close()


def test_accepts_gymnasium_keyword_arguments():
    env = gym.make(
        "reinfors/CarRacing-v0",
        render_mode="rgb_array",
        verbose=False,
        lap_complete_percent=0.5,
        domain_randomize=True,
        continuous=True,
    )
    obs, info = env.reset(seed=0)
    assert obs.shape == (96, 96, 3) and obs.dtype == np.uint8 and info == {}
    frame = env.render()
    assert frame.shape == (400, 600, 3) and frame.dtype == np.uint8
    env.close()


def test_state_pixels_render_equals_observation():
    env = CarRacingEnv(render_mode="state_pixels")
    obs, _ = env.reset(seed=3)
    np.testing.assert_array_equal(env.render(), obs)
    obs, *_ = env.step(np.array([0.0, 1.0, 0.0], dtype=np.float32))
    np.testing.assert_array_equal(env.render(), obs)


def test_human_mode_shows_each_frame_in_a_gymnasium_sized_window():
    # pygame comes with gymnasium[box2d], a test dependency: a missing one fails, not skips.
    import pygame

    env = CarRacingEnv(render_mode="human")
    env.reset(seed=0)
    env.step(np.array([0.0, 0.5, 0.0], dtype=np.float32))
    assert env.render() is None  # as Gymnasium's human mode
    window = pygame.display.get_surface()
    assert window is not None and window.get_size() == (1000, 800)  # Gymnasium's WINDOW_W/H
    shown = pygame.surfarray.array3d(window).swapaxes(0, 1)
    np.testing.assert_array_equal(shown, env._core.render(1000, 800, True))
    env.close()
    assert not pygame.display.get_init()
    env.close()  # idempotent


def test_truncates_at_1000_steps():
    env = gym.make("reinfors/CarRacing-v0")
    env.reset(seed=0)
    truncated = False
    steps = 0
    while not truncated:
        _, _, terminated, truncated, _ = env.step(np.array([0.0, 0.0, 0.0], dtype=np.float32))
        steps += 1
        assert not terminated
    assert steps == 1000


BAD_CONTINUOUS = [
    np.array([np.nan, 0.0, 0.0]),
    np.array([0.0, np.inf, 0.0]),
    np.array([0.0, 0.0, -np.inf], dtype=np.float32),
    np.zeros(2),
    np.zeros(4),
    np.zeros((1, 3)),
    np.array(["a", "b", "c"]),
    np.array([True, False, True]),
    3,
    None,
]


@pytest.mark.parametrize("action", BAD_CONTINUOUS, ids=repr)
def test_bad_continuous_actions_raise_and_env_stays_usable(action):
    env = CarRacingEnv()
    env.reset(seed=0)
    with pytest.raises(InvalidAction):
        env.step(action)
    with pytest.raises(ValueError):  # also catchable as the builtin
        env.step(action)
    obs, reward, terminated, truncated, info = env.step(np.array([0.0, 0.5, 0.0]))
    assert obs.shape == (96, 96, 3) and np.isfinite(reward)


@pytest.mark.parametrize("action", [-1, 5, 2.0, "1", np.array([1, 2]), np.float32(1.0), None])
def test_bad_discrete_actions_raise(action):
    env = CarRacingEnv(continuous=False)
    env.reset(seed=0)
    with pytest.raises(gym.error.InvalidAction):
        env.step(action)
    env.step(3)
    env.step(np.int64(4))
    env.step(np.array(1))


def test_out_of_range_finite_actions_follow_gymnasium_dynamics(gym_car_racing):
    """Gymnasium clips gas only; steer and brake pass through to the car as they are."""
    ref = gym_car_racing()
    env = CarRacingEnv()
    ref.reset(seed=11)
    env.reset(seed=11)
    for action in ([3.0, 5.0, 0.0], [-2.0, 0.5, -1.0], [0.0, -1.0, 2.0]):
        a = np.array(action)
        ref.step(a)
        env.step(a)
        ref_wheels = [(w.gas, w.brake, w.steer) for w in ref.car.wheels]
        s = env.car_state()
        np.testing.assert_array_equal(s["wheel_gas"], [g for g, _, _ in ref_wheels])
        np.testing.assert_array_equal(s["wheel_brake"], [b for _, b, _ in ref_wheels])
        np.testing.assert_array_equal(s["wheel_steer"], [st for _, _, st in ref_wheels])


@pytest.mark.parametrize("seed", [-1, 1.5, "3", [1, 2], np.float64(2.0)])
def test_bad_seeds_raise(seed):
    env = CarRacingEnv()
    with pytest.raises(InvalidSeed):
        env.reset(seed=seed)
    with pytest.raises(gym.error.Error):
        env.reset(seed=seed)
    env.reset(seed=0)


def test_numpy_integer_seed_is_the_same_as_int():
    a, b = CarRacingEnv(), CarRacingEnv()
    a.reset(seed=np.int64(9))
    b.reset(seed=9)
    np.testing.assert_array_equal(a.track, b.track)


def test_step_before_reset_raises():
    env = CarRacingEnv()
    with pytest.raises(ResetNeeded):
        env.step(np.zeros(3))
    with pytest.raises(gym.error.ResetNeeded):
        env.step(np.zeros(3))
    env.reset(seed=0)
    env.step(np.zeros(3))


def test_calls_after_close_raise_and_close_is_idempotent():
    env = CarRacingEnv(render_mode="rgb_array")
    env.reset(seed=0)
    env.close()
    env.close()
    for call in (lambda: env.step(np.zeros(3)), lambda: env.reset(seed=0), env.render):
        with pytest.raises(ClosedEnvironmentError):
            call()


def test_render_without_mode_warns_like_gymnasium():
    env = CarRacingEnv()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert env.render() is None


def test_bad_constructor_arguments():
    with pytest.raises(ValueError):
        CarRacingEnv(render_mode="rgb")
    with pytest.raises(ValueError):
        CarRacingEnv(lap_complete_percent="high")
    with pytest.raises(ValueError):
        CarRacingEnv(lap_complete_percent=float("nan"))


def test_pickled_clone_steps_like_the_original():
    """EzPickle rebuilds the env from its constructor arguments, so after the same seed the
    clone must run the same episode: every argument (random colours included) reaches it."""
    env = CarRacingEnv(continuous=False, lap_complete_percent=0.5, domain_randomize=True)
    clone = pickle.loads(pickle.dumps(env))
    assert clone is not env and clone.continuous is False and clone.lap_complete_percent == 0.5
    obs, _ = env.reset(seed=6)
    clone_obs, _ = clone.reset(seed=6)
    np.testing.assert_array_equal(clone_obs, obs)
    for action in np.random.default_rng(0).integers(0, 5, size=100):
        obs, *outcome = env.step(action)
        clone_obs, *clone_outcome = clone.step(action)
        np.testing.assert_array_equal(clone_obs, obs)
        assert clone_outcome == outcome


def test_observations_are_fresh_arrays():
    env = CarRacingEnv()
    obs0, _ = env.reset(seed=0)
    obs1, *_ = env.step(np.zeros(3))
    assert not np.shares_memory(obs0, obs1)


def test_fast_step_equals_the_checked_path():
    """A float array of three finite values takes the one-call path through the core; lists,
    other dtypes and strided views take the checked Python path. Both give the same steps."""
    rng = np.random.default_rng(1)
    actions = rng.uniform([-1, 0, 0], [1, 1, 1], size=(120, 3))
    forms = [
        lambda a: a.astype(np.float32),  # fast
        lambda a: a.astype(np.float64),  # fast
        lambda a: a.astype(np.float32).tolist(),  # checked: a list
        lambda a: a.astype(np.float16).astype(np.float32).astype(np.float16),  # checked: float16
        lambda a: np.repeat(a.astype(np.float32), 2)[::2],  # checked: a strided view
    ]
    runs = []
    for form in forms:
        env = CarRacingEnv()
        env.reset(seed=7)
        steps = []
        for a in actions:
            # float16 rounds the action: feed every form the same (float16-exact) values.
            a = a.astype(np.float16).astype(np.float64)
            obs, reward, terminated, truncated, info = env.step(form(a))
            assert obs.flags.writeable and obs.flags.owndata and obs.dtype == np.uint8
            steps.append((obs, reward, terminated, truncated, info))
        runs.append(steps)
    for other in runs[1:]:
        for (o1, r1, t1, u1, i1), (o2, r2, t2, u2, i2) in zip(runs[0], other, strict=True):
            np.testing.assert_array_equal(o1, o2)
            assert (r1, t1, u1, i1) == (r2, t2, u2, i2)
            assert type(r1) is type(r2) is float and type(t1) is bool and u1 is False


def test_same_seed_same_trajectory_different_seed_differs():
    def rollout(seed):
        env = CarRacingEnv()
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        frames, rewards = [obs], []
        for _ in range(60):
            obs, r, *_ = env.step(rng.uniform([-1, 0, 0], [1, 1, 1]))
            frames.append(obs)
            rewards.append(r)
        return np.stack(frames), np.array(rewards)

    f1, r1 = rollout(4)
    f2, r2 = rollout(4)
    f3, _ = rollout(5)
    np.testing.assert_array_equal(f1, f2)
    np.testing.assert_array_equal(r1, r2)
    assert not np.array_equal(f1, f3)


def test_package_exports():
    assert reinfors_gym.ENV_ID == "reinfors/CarRacing-v0"
    assert isinstance(reinfors_gym.__version__, str)
