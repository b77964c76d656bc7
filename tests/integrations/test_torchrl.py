"""TorchRL: `make_torchrl_env` passes TorchRL's spec check and replays the raw vector env."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from torchrl.envs import ToTensorImage
from torchrl.envs.utils import check_env_specs

import reinfors_gym  # noqa: F401
from reinfors_gym.integrations.torchrl import make_torchrl_env

ID = "reinfors/CarRacing-v0"
# frame_skip=2, 180 simulation steps: with seeds 5..8 and full gas, the car of seed 6 leaves the
# playfield (terminated) and others reach the limit (truncated) within 100 steps.
KWARGS = {"max_episode_steps": 180, "frame_skip": 2}
N, T, SEED = 4, 100, 5


@pytest.mark.parametrize("mode", ["Disabled", "SameStep"])
def test_specs_pass_and_frames_are_pixels(mode):
    env = make_torchrl_env(N, autoreset_mode=mode, **KWARGS)
    check_env_specs(env, seed=0)
    assert list(env.observation_spec.keys()) == ["pixels"]
    assert env.observation_spec["pixels"].shape == (N, 96, 96, 3)
    assert env.observation_spec["pixels"].dtype == torch.uint8
    assert env.batch_size == (N,)
    env.close()


def test_discrete_and_native_options_pass_specs():
    env = make_torchrl_env(
        2, continuous=False, categorical_action_encoding=True, grayscale=True, stack_num=4
    )
    check_env_specs(env, seed=0)
    assert env.observation_spec["pixels"].shape == (2, 4, 96, 96)
    assert env.action_spec.shape == (2,) and env.action_spec.dtype == torch.int64
    env.close()


@pytest.mark.parametrize("mode", ["Disabled", "SameStep"])
def test_rollout_matches_the_raw_vector_env_step_for_step(mode):
    env = make_torchrl_env(N, autoreset_mode=mode, **KWARGS)
    actions = torch.zeros(T, N, 3)
    actions[..., 1] = 1.0
    actions[90:, :, 0] = torch.linspace(-0.5, 0.5, N)
    step = iter(range(T))

    def policy(td):
        td["action"] = actions[next(step)]
        return td

    rollout = env.rollout(
        T,
        policy=policy,
        tensordict=env.reset(seed=SEED),
        auto_reset=False,
        break_when_any_done=False,
    )
    assert rollout.batch_size == (N, T)

    raw = gym.make_vec(ID, num_envs=N, autoreset_mode="Disabled", **KWARGS)
    obs, _ = raw.reset(seed=SEED)
    ends = np.zeros(2, int)
    for t in range(T):
        np.testing.assert_array_equal(rollout["pixels"][:, t].numpy(), obs, err_msg=f"{t}")
        next_obs, reward, terminated, truncated, _ = raw.step(actions[t].numpy())
        nxt = rollout["next"][:, t]
        np.testing.assert_array_equal(nxt["pixels"].numpy(), next_obs, err_msg=f"{t}")
        np.testing.assert_array_equal(nxt["reward"][:, 0].numpy(), reward.astype(np.float32))
        np.testing.assert_array_equal(nxt["terminated"][:, 0].numpy(), terminated)
        np.testing.assert_array_equal(nxt["truncated"][:, 0].numpy(), truncated)
        np.testing.assert_array_equal(nxt["done"][:, 0].numpy(), terminated | truncated)
        ends += terminated.sum(), truncated.sum()
        done = terminated | truncated
        obs = raw.reset(options={"reset_mask": done})[0] if done.any() else next_obs
    assert ends[0] >= 1 and ends[1] >= 1, ends  # both kinds of episode end inside the run
    env.close()
    raw.close()


def test_image_transforms_read_pixels():
    env = make_torchrl_env(2, obs_size=(64, 64))
    env.append_transform(ToTensorImage())
    td = env.reset(seed=0)
    assert td["pixels"].shape == (2, 3, 64, 64) and td["pixels"].dtype == torch.float32
    env.close()
