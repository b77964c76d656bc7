"""Stable-Baselines3: the adapter against SB3's own DummyVecEnv over single envs, and PPO."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers import FrameStackObservation, GrayscaleObservation, TimeLimit
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import (
    DummyVecEnv,
    SubprocVecEnv,
    VecFrameStack,
    VecMonitor,
    VecNormalize,
    VecTransposeImage,
)

import reinfors_gym  # noqa: F401
from reinfors_gym.integrations import MODULE_ENV_ID
from reinfors_gym.integrations.sb3 import SB3VecEnv, make_sb3_vec_env

ID = "reinfors/CarRacing-v0"
N, STEPS, LIMIT, SEED = 4, 450, 200, 5


def straight_then_wobbly(n: int = N, steps: int = STEPS) -> np.ndarray:
    """Full gas: with seeds 5..8 the cars of seeds 6 and 8 leave the playfield (terminated,
    steps 176 and 191) and the others reach the 200-step limit (truncated); then random
    steering through the second episodes."""
    actions = np.zeros((steps, n, 3), np.float32)
    actions[..., 1] = 1.0
    actions[LIMIT:, :, 0] = np.random.default_rng(0).uniform(-0.3, 0.3, (steps - LIMIT, n))
    return actions


def reference(wrap=lambda env: env, n: int = N) -> DummyVecEnv:
    env = DummyVecEnv([lambda: wrap(gym.make(ID, max_episode_steps=LIMIT)) for _ in range(n)])
    env.seed(SEED)
    return env


def assert_infos_equal(ours: list[dict], theirs: list[dict], skip=()) -> None:
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        assert a.keys() == b.keys()
        for key in a:
            if key in skip:
                continue
            if isinstance(a[key], dict):
                assert_infos_equal([a[key]], [b[key]], skip)
            elif isinstance(a[key], np.ndarray):
                assert a[key].dtype == b[key].dtype
                np.testing.assert_array_equal(a[key], b[key])
            else:
                assert a[key] == b[key] and type(a[key]) is type(b[key]), key


def run_side_by_side(ours, theirs, actions, skip=()) -> dict[str, int]:
    """Steps both VecEnvs with the same actions, asserting equal returns; counts the ends."""
    np.testing.assert_array_equal(ours.reset(), theirs.reset())
    ends = {"terminated": 0, "truncated": 0}
    for t, action in enumerate(actions):
        o1, r1, d1, i1 = ours.step(action)
        o2, r2, d2, i2 = theirs.step(action)
        assert o1.dtype == o2.dtype and r1.dtype == r2.dtype and d1.dtype == d2.dtype, t
        np.testing.assert_array_equal(o1, o2, err_msg=f"step {t}")
        np.testing.assert_array_equal(r1, r2, err_msg=f"step {t}")
        np.testing.assert_array_equal(d1, d2, err_msg=f"step {t}")
        assert_infos_equal(i1, i2, skip)
        for i in np.flatnonzero(d1):
            ends["truncated" if i1[i]["TimeLimit.truncated"] else "terminated"] += 1
    assert ours.reset_infos == theirs.reset_infos
    return ends


def test_trajectories_equal_dummy_vec_env_with_terminations_and_truncations():
    ours = make_sb3_vec_env(N, seed=SEED, max_episode_steps=LIMIT)
    ends = run_side_by_side(ours, reference(), straight_then_wobbly())
    # Inside the run: both kinds of episode end (the first episodes: 2 and 2).
    assert ends["terminated"] >= 2 and ends["truncated"] >= 2, ends
    ours.close()


def test_native_grayscale_stack_equals_gymnasium_wrappers_in_dummy_vec_env():
    ours = make_sb3_vec_env(N, seed=SEED, max_episode_steps=LIMIT, grayscale=True, stack_num=4)
    assert ours.observation_space.shape == (4, 96, 96)
    theirs = reference(lambda env: FrameStackObservation(GrayscaleObservation(env), 4))
    ends = run_side_by_side(ours, theirs, straight_then_wobbly(steps=260))
    assert ends["terminated"] >= 2 and ends["truncated"] >= 2, ends


def test_sb3_wrappers_behave_as_over_dummy_vec_env():
    """VecMonitor, VecFrameStack, VecTransposeImage, VecNormalize over ours and over SB3's own
    DummyVecEnv see the same data, so they give the same results (episode records included)."""

    def chain(env):
        env = VecTransposeImage(VecFrameStack(VecMonitor(env), 2))
        return VecNormalize(env, norm_obs=True, norm_reward=True)

    ours = chain(make_sb3_vec_env(N, seed=SEED, max_episode_steps=LIMIT))
    theirs = chain(reference())
    assert (
        ours.observation_space
        == theirs.observation_space
        == gym.spaces.Box(-10, 10, (6, 96, 96), np.float32)
    )
    # `t` in VecMonitor's episode record is wall-clock time.
    ends = run_side_by_side(ours, theirs, straight_then_wobbly(steps=260), skip=("t",))
    assert ends["terminated"] >= 2


def test_layouts_for_sb3_images():
    cases = [
        ({}, (96, 96, 3)),
        ({"channels_first": True}, (3, 96, 96)),
        ({"grayscale": True}, (1, 96, 96)),
        ({"grayscale": True, "stack_num": 3}, (3, 96, 96)),
        ({"stack_num": 2, "channels_first": True}, (6, 96, 96)),
        ({"stack_num": 2}, (96, 96, 6)),
        ({"obs_size": (64, 48), "channels_first": True}, (3, 64, 48)),
    ]
    for kwargs, shape in cases:
        env = make_sb3_vec_env(2, seed=0, **kwargs)
        raw = gym.make_vec(ID, num_envs=2, autoreset_mode="SameStep", **kwargs)
        assert env.observation_space.shape == shape, kwargs
        obs, native = env.reset(), raw.reset(seed=0)[0]
        assert obs.shape == (2, *shape) and obs.dtype == np.uint8
        if kwargs == {"stack_num": 2}:  # (k, H, W, 3) -> (H, W, 3k), VecFrameStack's order
            np.testing.assert_array_equal(obs[..., 3:], native[:, 1])
            np.testing.assert_array_equal(obs[..., :3], native[:, 0])
        else:
            np.testing.assert_array_equal(obs.reshape(native.shape), native)
        env.close()
        raw.close()


def test_seed_render_attrs_methods_and_wrappers():
    ours = make_sb3_vec_env(2, render_mode="rgb_array", max_episode_steps=LIMIT)
    theirs = DummyVecEnv(
        [lambda: gym.make(ID, render_mode="rgb_array", max_episode_steps=LIMIT)] * 2
    )
    assert ours.seed(11) == theirs.seed(11) == [11, 12]
    np.testing.assert_array_equal(ours.reset(), theirs.reset())
    assert ours.render_mode == "rgb_array" and ours.metadata["render_fps"] == 50
    big = ours.render()
    assert big.shape == (800, 600, 3)
    np.testing.assert_array_equal(big, theirs.render())
    # Seeds are used once, as in SB3: the next reset continues each sub-env's stream.
    np.testing.assert_array_equal(ours.reset(), theirs.reset())

    tracks = ours.get_attr("track")
    np.testing.assert_array_equal(tracks[1], theirs.get_attr("track")[1])
    assert len(ours.get_attr("track", indices=1)) == 1
    assert ours.get_attr("render_mode") == ["rgb_array", "rgb_array"]
    assert ours.get_attr("observation_space")[0] == ours.observation_space
    assert ours.get_attr("metadata")[0]["render_fps"] == 50
    assert ours.has_attr("track") and not ours.has_attr("no_such_attribute")
    frames = ours.env_method("render", indices=[1])
    assert len(frames) == 1 and frames[0].shape == (400, 600, 3)
    ours.set_attr("tag", "a")
    ours.set_attr("tag", "b", indices=[1])
    assert ours.get_attr("tag") == ["a", "b"]
    with pytest.raises(AttributeError):
        ours.set_attr("other", 1, indices=0)

    assert ours.env_is_wrapped(TimeLimit) == [True, True] == theirs.env_is_wrapped(TimeLimit)
    assert ours.env_is_wrapped(Monitor) == [False, False] == theirs.env_is_wrapped(Monitor)
    assert ours.env_is_wrapped(GrayscaleObservation) == [False, False]
    gray = make_sb3_vec_env(2, grayscale=True, stack_num=2, obs_size=(64, 64))
    for wrapper in (GrayscaleObservation, FrameStackObservation, gym.wrappers.ResizeObservation):
        assert gray.env_is_wrapped(wrapper, indices=[0]) == [True]
    for env in (ours, theirs, gray):
        env.close()


def test_adapter_refuses_other_autoreset_modes():
    with pytest.raises(ValueError, match="SAME_STEP"):
        make_sb3_vec_env(2, autoreset_mode="NextStep")
    with pytest.raises(ValueError, match="SAME_STEP"):
        SB3VecEnv(gym.make_vec(ID, num_envs=2))


@pytest.mark.parametrize("channels_first", [False, True])
def test_ppo_cnn_policy_learns_on_the_adapter(channels_first):
    env = make_sb3_vec_env(4, seed=0, obs_size=(64, 64), channels_first=channels_first)
    model = PPO("CnnPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    # SB3 transposes channels-last frames itself; native channels-first ones need no wrapper.
    assert isinstance(model.get_env(), VecTransposeImage) is not channels_first
    model.learn(total_timesteps=128)
    assert model.num_timesteps == 128
    env.close()


def test_subproc_vec_env_resolves_the_module_prefixed_id():
    """A subprocess has not imported reinfors_gym; the module-prefixed id imports it."""
    env = make_vec_env(
        MODULE_ENV_ID,
        n_envs=2,
        seed=3,
        env_kwargs={"max_episode_steps": 5},
        vec_env_cls=SubprocVecEnv,
        vec_env_kwargs={"start_method": "spawn"},
    )
    obs = env.reset()
    for _ in range(5):
        obs, _, dones, infos = env.step(np.tile([0.0, 1.0, 0.0], (2, 1)))
    assert dones.all() and infos[0]["TimeLimit.truncated"] and obs.shape == (2, 96, 96, 3)
    env.close()
