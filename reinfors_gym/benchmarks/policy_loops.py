"""The loop users run: a CleanRL-style rollout with a Nature-CNN policy between steps, stepped
synchronously or with EnvPool's asynchronous `recv`/`send`."""

from __future__ import annotations

import os
from typing import Any

from .env_loops import make_vector
from .measuring import quiet_gym, timed


def nature_cnn_agent(threads: int):
    """CleanRL's continuous-action PPO agent on 96x96 RGB frames (Nature CNN encoder, Gaussian
    head, value head), with `threads` intra-op threads. Returns ``act(obs_uint8_nhwc) ->
    actions (n, 3) float32``: what a rollout calls each step."""
    import numpy as np
    import torch
    from torch import nn

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    encoder = nn.Sequential(
        nn.Conv2d(3, 32, 8, stride=4),
        nn.ReLU(),
        nn.Conv2d(32, 64, 4, stride=2),
        nn.ReLU(),
        nn.Conv2d(64, 64, 3, stride=1),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(64 * 8 * 8, 512),
        nn.ReLU(),
    )
    actor, critic = nn.Linear(512, 3), nn.Linear(512, 1)
    log_std = torch.zeros(3)

    @torch.no_grad()
    def act(obs: Any) -> Any:
        x = torch.from_numpy(np.asarray(obs)).permute(0, 3, 1, 2).float() / 255.0
        hidden = encoder(x)
        mean = actor(hidden)
        critic(hidden)  # the value every PPO rollout also records
        action = torch.normal(mean, log_std.exp().expand_as(mean))
        return action.numpy()

    return act


def policy_loop(
    variant: str, num_envs: int, threads: int, seconds: float, warmup: float
) -> dict[str, float]:
    """The loop users run: a CleanRL-style rollout with a Nature-CNN policy between steps
    (obs -> torch -> action -> step), torch on every core. `threads` is the env's worker
    threads (0: the env's default); `policy-alone` runs the policy on a fixed batch with no
    env, the loop's ceiling. Env steps/s."""
    import numpy as np

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    act = nature_cnn_agent(cores)
    if variant == "policy-alone":
        obs = np.random.default_rng(0).integers(0, 256, (num_envs, 96, 96, 3), dtype=np.uint8)

        def chunk_alone() -> int:
            for _ in range(8):
                act(obs)
            return 8 * num_envs

        return timed(chunk_alone, seconds, warmup)
    if variant == "ours-vector":
        import reinfors_gym

        kwargs = {} if threads == 0 else {"num_threads": threads}
        env = reinfors_gym.CarRacingVectorEnv(num_envs, **kwargs)
    else:
        env = make_vector(variant, num_envs, threads)
    obs, _ = env.reset(seed=0)
    low = np.array([-1.0, 0.0, 0.0], np.float32)
    high = np.array([1.0, 1.0, 1.0], np.float32)
    state = {"obs": obs}

    def chunk() -> int:
        for _ in range(8):
            # CleanRL clips the Gaussian sample to the action box before stepping.
            actions = np.clip(act(state["obs"]), low, high)
            state["obs"], *_ = env.step(actions)
        return 8 * num_envs

    out = timed(chunk, seconds, warmup)
    env.close()
    return out


def policy_async_loop(
    variant: str, num_envs: int, batch_size: int, threads: int, seconds: float, warmup: float
) -> dict[str, float]:
    """EnvPool's asynchronous loop (CleanRL's ``ppo_atari_envpool.py``): ``recv`` the first
    `batch_size` envs to finish, run the policy on them, ``send`` their actions back, while the
    other envs step on the env's threads. `threads`: the env's (0: its default). Env steps/s."""
    import numpy as np

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    act = nature_cnn_agent(cores)
    if variant == "ours-vector":
        import reinfors_gym

        kwargs = {} if threads == 0 else {"num_threads": threads}
        env = reinfors_gym.CarRacingVectorEnv(num_envs, batch_size=batch_size, **kwargs)
    elif variant == "envpool":
        import envpool

        quiet_gym()
        env = envpool.make_gymnasium(
            "CarRacing-v3",
            num_envs=num_envs,
            batch_size=batch_size,
            num_threads=threads or cores,
        )
    else:
        raise ValueError(f"no asynchronous env for {variant!r}")
    low = np.array([-1.0, 0.0, 0.0], np.float32)
    high = np.array([1.0, 1.0, 1.0], np.float32)
    env.async_reset()

    def chunk() -> int:
        for _ in range(8):
            obs, _, _, _, info = env.recv()
            env.send(np.clip(act(obs), low, high), info["env_id"])
        return 8 * batch_size

    out = timed(chunk, seconds, warmup)
    env.close()
    return out
