"""RLlib: `register()`'s creator, the documented model configs, and PPO on 0 and 2 remote env
runners and on a two-node cluster (head + worker node, both on this machine)."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest
import ray
import torch
from ray.cluster_utils import Cluster
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

import reinfors_gym  # noqa: F401
from reinfors_gym.integrations import rllib

ID = "reinfors/CarRacing-v0"
MB = 1024**2
# Every frame shape the docs give a model config for: env_config -> RLlib's frame shape.
SHAPES = [
    ({}, (96, 96, 3)),
    ({"grayscale": True}, (96, 96, 1)),
    ({"grayscale": True, "stack_num": 4}, (96, 96, 4)),
    ({"stack_num": 2}, (96, 96, 6)),
    ({"obs_size": (84, 84)}, (84, 84, 3)),
    ({"obs_size": (64, 64)}, (64, 64, 3)),
    ({"obs_size": (64, 64), "grayscale": True, "stack_num": 4}, (64, 64, 4)),
    ({"obs_size": (48, 48), "grayscale": True, "stack_num": 4}, (48, 48, 4)),
]


@pytest.mark.parametrize(("env_config", "shape"), SHAPES)
def test_creator_gives_float_channels_last_frames(env_config, shape):
    env = rllib.make_rllib_env({**env_config, "num_envs": 2})
    raw = gym.make_vec(ID, num_envs=2, **env_config)
    assert env.single_observation_space == gym.spaces.Box(0.0, 1.0, shape, np.float32)
    assert env.unwrapped.autoreset_mode == gym.vector.AutoresetMode.NEXT_STEP
    obs, native = env.reset(seed=1)[0], raw.reset(seed=1)[0]
    obs2, native2 = env.step(np.zeros((2, 3)))[0], raw.step(np.zeros((2, 3)))[0]
    for ours, theirs in ((obs, native), (obs2, native2)):
        assert ours.dtype == np.float32 and ours.shape == (2, *shape)
        k = env.unwrapped.stack_num
        frames = theirs.reshape(2, k, *shape[:2], -1)  # (n, k, H, W, c) -> (n, H, W, k*c)
        expected = np.moveaxis(frames, 1, 3).reshape(2, *shape) * np.float32(1 / 255)
        np.testing.assert_array_equal(ours, expected)
    assert obs is not obs2 and not np.shares_memory(obs, obs2)  # RLlib keeps each batch


def test_creator_refuses_what_rllib_cannot_take():
    with pytest.raises(ValueError, match="NEXT_STEP"):
        rllib.make_rllib_env({"autoreset_mode": "SameStep"})
    with pytest.raises(ValueError, match="channels-last"):
        rllib.make_rllib_env({"channels_first": True})
    with pytest.raises(ValueError, match="no model config"):
        rllib.conv_filters((50, 50))


@pytest.mark.parametrize(("env_config", "shape"), SHAPES)
def test_documented_model_config_builds_the_default_ppo_module(env_config, shape):
    size = env_config.get("obs_size", (96, 96))
    spec = RLModuleSpec(
        module_class=DefaultPPOTorchRLModule,
        observation_space=gym.spaces.Box(0.0, 1.0, shape, np.float32),
        action_space=gym.spaces.Box(-1.0, 1.0, (3,), np.float32),
        model_config=DefaultModelConfig(conv_filters=rllib.conv_filters(size)),
    )
    module = spec.build()
    out = module.forward_inference({"obs": torch.rand(2, *shape)})
    assert out["action_dist_inputs"].shape == (2, 6)


def ppo_config(env_config: dict, num_env_runners: int, **env_runner_kwargs) -> PPOConfig:
    """One tiny PPO iteration (64 steps) on 2 sub-envs per runner, 8-step episodes."""
    return (
        PPOConfig()
        .environment(
            rllib.register(), env_config={"max_episode_steps": 8, "num_threads": 1, **env_config}
        )
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=2,
            gym_env_vectorize_mode="vector_entry_point",
            rollout_fragment_length="auto",
            **env_runner_kwargs,
        )
        .training(train_batch_size_per_learner=64, minibatch_size=32, num_epochs=1)
    )


def train_once(config: PPOConfig) -> tuple[dict, list[str]]:
    algo = config.build_algo()
    try:
        result = algo.train()
        nodes = algo.env_runner_group.foreach_env_runner(
            lambda runner: ray.get_runtime_context().get_node_id(), local_env_runner=False
        )
    finally:
        algo.stop()
    return result, nodes


def assert_trained(result: dict) -> None:
    runners = result["env_runners"]
    assert runners["num_env_steps_sampled"] >= 64
    assert runners["num_episodes"] >= 1 and math.isfinite(runners["episode_return_mean"])
    learner = result["learners"]["default_policy"]
    assert math.isfinite(learner["total_loss"])


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=3, object_store_memory=150 * MB, include_dashboard=False)
    yield
    ray.shutdown()


def test_ppo_trains_on_the_local_env_runner_with_the_default_model(local_ray):
    # 96x96 RGB, RLlib's own default CNN for 96x96 (no model config at all).
    result, nodes = train_once(ppo_config({}, num_env_runners=0))
    assert_trained(result)
    assert nodes == []


def test_ppo_trains_on_two_remote_env_runners(local_ray):
    """Remote runners never imported reinfors_gym: the registered creator does it for them.
    64x64 grayscale stacks, RLlib's default model (it has a default CNN for 64x64)."""
    config = ppo_config({"obs_size": (64, 64), "grayscale": True, "stack_num": 4}, 2)
    result, nodes = train_once(config)
    assert_trained(result)
    assert len(nodes) == 2


def test_ppo_on_a_two_node_cluster_with_runners_on_both_nodes():
    ray.shutdown()
    # One "runner slot" per node, and each env runner needs one: they land on different nodes.
    node = {"num_cpus": 1, "resources": {"runner_slot": 1}, "object_store_memory": 100 * MB}
    cluster = Cluster(initialize_head=True, head_node_args={**node, "include_dashboard": False})
    try:
        cluster.add_node(**node)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address)
        node_ids = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
        assert len(node_ids) == 2
        # 48x48 frames, for which RLlib has no default CNN: the documented model config.
        config = ppo_config(
            {"obs_size": (48, 48), "grayscale": True, "stack_num": 2},
            num_env_runners=2,
            num_cpus_per_env_runner=1,
            custom_resources_per_env_runner={"runner_slot": 1},
        ).rl_module(model_config=DefaultModelConfig(conv_filters=rllib.conv_filters((48, 48))))
        result, nodes = train_once(config)
        assert_trained(result)
        assert set(nodes) == node_ids
    finally:
        ray.shutdown()
        cluster.shutdown()


def _score_corner(frame: np.ndarray) -> np.ndarray:
    """The bottom-left corner of a 96x96 frame, where the score digits are drawn."""
    return frame[86:, :24].astype(np.int16)


def test_frames_hold_the_parity_bound_with_rllibs_gymnasium_digits():
    """RLlib pins gymnasium==1.2.2, whose CarRacing-v3 draws the score as "%04i" with pygame.
    Ours follows the installed Gymnasium: side by side with that CarRacing-v3, frames hold the
    parity suite's bound with the digits in them, rewards and motion are exact, and the score's
    corner matches ours and not 1.4's rounded digits."""
    import warnings
    from dataclasses import asdict

    assert gym.__version__ == "1.2.2"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SWIG's import-time deprecation warnings
        import Box2D  # noqa: F401
    from reinfors_gym.parity import evaluate, run_episode

    records = [
        asdict(run_episode(family, seed, max_steps=300, frame_every=1))
        for family, seed in (("closed_loop", 0), ("random_smooth", 1))
    ]
    for criterion in evaluate(records):
        assert criterion.passed, criterion
    for rec in records:
        assert rec["max_reward_diff"] == 0.0 and rec["first_state_divergence"] is None
        assert max(rec["frame_mad_agreeing"]) <= 2.0
    assert records[0]["episode_return"][1] > 50  # the closed-loop driver scored: digits moved

    from gymnasium.envs.box2d.car_racing import CarRacing

    theirs = CarRacing()
    ours = {v: gym.make(ID, gymnasium_version=v) for v in (None, "1.4")}
    action = np.array([0.0, 0.5, 0.0], np.float32)
    theirs.reset(seed=3)
    for env in ours.values():
        env.reset(seed=3)
    mad = {v: [] for v in ours}
    for t in range(150):
        ref = theirs.step(action)[0]
        for v, env in ours.items():
            obs = env.step(action)[0]
            if t % 10 == 9:
                mad[v].append(np.abs(_score_corner(obs) - _score_corner(ref)).mean())
    assert np.mean(mad[None]) <= 1.0 and np.mean(mad["1.4"]) >= 3.0, mad
