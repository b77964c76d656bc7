"""PPO on EnvPool's asynchronous API, as CleanRL's EnvPool scripts write it: ``recv`` the first
``batch_size`` sub-envs to finish, act on them, ``send`` their actions back by ``env_id``, while
the other sub-envs keep stepping on the env's threads.

    pip install torch
    python examples/ppo_envpool_async.py --num-envs 16 --batch-size 8 --total-timesteps 200000

Porting an EnvPool loop: replace ``envpool.make_gymnasium("CarRacing-v3", num_envs=N,
batch_size=B)`` by ``gym.make_vec("reinfors/CarRacing-v0", num_envs=N, batch_size=B)``; the
loop (``async_reset``, ``recv``, ``send(actions, info["env_id"])``) stays as it is.

Storage follows CleanRL's asynchronous PPO: each rollout is ``num_steps + 1`` received batches,
each row tagged with its ``env_id``. A sub-env's rows appear in its own order, so generalized
advantage estimation (examples/gae.py) runs over each sub-env's own sequence of rows: a row's
reward and ``done`` arrive with the same sub-env's next row. A sub-env's last row of a rollout
has no successor yet and is left out of the loss. Autoreset is ``SAME_STEP``: a row after
``done`` already shows the new episode, and ``done`` cuts the return there (time-limit
truncations included, as CleanRL does).
"""

from __future__ import annotations

import argparse
import sys
import time

import gymnasium as gym
import numpy as np

import reinfors_gym

try:
    import torch
    from torch import nn
    from torch.distributions.normal import Normal
except ImportError:
    sys.exit("This example needs PyTorch: pip install torch")

from gae import gae  # examples/gae.py, beside this script
from ppo_continuous import layer_init, nature_cnn  # the CleanRL-style example's network parts


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--seed", type=int, default=1, help="env seeds are seed, seed + 1, ...")
    p.add_argument("--total-timesteps", type=int, default=200_000, help="env steps in all")
    p.add_argument("--num-envs", type=int, default=16, help="sub-environments")
    p.add_argument("--batch-size", type=int, default=8, help="sub-envs per recv()")
    p.add_argument("--num-steps", type=int, default=128, help="received batches per rollout")
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.0)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--frame-skip", type=int, default=2, help="env steps per decision")
    p.add_argument("--stack-num", type=int, default=4, help="grayscale frames per observation")
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    return p.parse_args(argv)


class Agent(nn.Module):
    """Nature CNN over stacked grayscale frames; Gaussian actor and value head."""

    def __init__(self, stack: int):
        super().__init__()
        self.encoder = nature_cnn(stack)
        self.encoder.append(layer_init(nn.Linear(64 * 8 * 8, 512)))
        self.encoder.append(nn.ReLU())
        self.actor = layer_init(nn.Linear(512, 3), 0.01)
        self.critic = layer_init(nn.Linear(512, 1), 1.0)
        self.log_std = nn.Parameter(torch.full((3,), -0.5))

    def forward(
        self, obs: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        hidden = self.encoder(obs.float() / 255.0)
        dist = Normal(self.actor(hidden), self.log_std.exp())
        if action is None:
            action = dist.sample()
        return (
            action,
            dist.log_prob(action).sum(-1),
            dist.entropy().sum(-1),
            self.critic(hidden).squeeze(-1),
        )


def advantages(
    env_ids: np.ndarray,
    rewards: np.ndarray,
    dones: np.ndarray,
    values: np.ndarray,
    num_envs: int,
    gamma: float,
    lam: float,
) -> tuple[np.ndarray, np.ndarray]:
    """GAE over received batches (rows of `(T, B)` arrays tagged by `env_ids`), run on each
    sub-env's own sequence of rows (examples/gae.py). Row (t, k)'s reward and done arrive with
    its sub-env's next row, and so does its next value (0 after a done: `SAME_STEP` autoreset).
    Returns the advantages and a mask of the rows that have a successor (the others are left
    out of the loss)."""
    ids, row_rewards, row_dones, row_values = (
        a.reshape(-1) for a in (env_ids, rewards, dones, values)
    )
    adv = np.zeros(values.size, values.dtype)
    valid = np.zeros(values.size, np.bool_)
    for e in range(num_envs):
        rows = np.flatnonzero(ids == e)  # in time order
        if len(rows) < 2:
            continue
        now, then = rows[:-1], rows[1:]  # the rows with a successor, and their successors
        done = row_dones[then]
        targets = np.where(done, 0.0, row_values[then])
        adv[now] = gae(row_rewards[then], row_values[now], targets, done, gamma, lam)[0]
        valid[now] = True
    return adv.reshape(values.shape), valid.reshape(values.shape)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    # What gym.make_vec("reinfors/CarRacing-v0", num_envs=..., batch_size=...) returns, built
    # directly so that type checkers see recv/send.
    envs = reinfors_gym.CarRacingVectorEnv(
        args.num_envs,
        batch_size=args.batch_size,
        autoreset_mode=gym.vector.AutoresetMode.SAME_STEP,
        frame_skip=args.frame_skip,
        grayscale=True,
        stack_num=args.stack_num,
    )
    agent = Agent(args.stack_num)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    box = envs.single_action_space
    assert isinstance(box, gym.spaces.Box)
    low, high = torch.as_tensor(box.low), torch.as_tensor(box.high)

    T, B = args.num_steps + 1, args.batch_size
    obs_shape = envs.single_observation_space.shape
    assert obs_shape is not None
    obs_buf = torch.zeros((T, B, *obs_shape), dtype=torch.uint8)
    act_buf = torch.zeros((T, B, 3))
    logp_buf = torch.zeros((T, B))
    val_buf = np.zeros((T, B), np.float32)
    rew_buf = np.zeros((T, B), np.float32)
    done_buf = np.zeros((T, B), np.float32)
    id_buf = np.zeros((T, B), np.int64)
    returns = np.zeros(args.num_envs)
    finished: list[float] = []

    envs.async_reset(seed=args.seed)
    steps, update, start = 0, 0, time.perf_counter()
    while steps < args.total_timesteps:
        update += 1
        for t in range(T):
            obs, reward, term, trunc, info = envs.recv()
            ids = info["env_id"]
            done = term | trunc
            returns[ids] += reward
            for i in ids[done]:
                finished.append(float(returns[i]))
                returns[i] = 0.0
            with torch.no_grad():
                action, logp, _, value = agent(torch.from_numpy(obs))
            envs.send(torch.clamp(action, low, high).numpy(), ids)
            obs_buf[t], act_buf[t], logp_buf[t] = torch.from_numpy(obs), action, logp
            val_buf[t], rew_buf[t], done_buf[t], id_buf[t] = value.numpy(), reward, done, ids
            steps += B * args.frame_skip
        adv, valid = advantages(
            id_buf, rew_buf, done_buf, val_buf, args.num_envs, args.gamma, args.gae_lambda
        )
        rows = torch.from_numpy(np.flatnonzero(valid.reshape(-1)))
        b_obs = obs_buf.reshape(T * B, *obs_buf.shape[2:])[rows]
        b_act, b_logp = act_buf.reshape(T * B, 3)[rows], logp_buf.reshape(-1)[rows]
        b_adv = torch.from_numpy(adv.reshape(-1))[rows]
        b_ret = b_adv + torch.from_numpy(val_buf.reshape(-1))[rows]
        size = len(rows)
        mb = max(1, size // args.num_minibatches)
        for _ in range(args.update_epochs):
            for idx in torch.randperm(size).split(mb):
                _, logp, entropy, value = agent(b_obs[idx], b_act[idx])
                ratio = (logp - b_logp[idx]).exp()
                a = b_adv[idx]
                a = (a - a.mean()) / (a.std() + 1e-8) if len(idx) > 1 else a
                pg = torch.max(
                    -a * ratio, -a * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
                ).mean()
                v_loss = 0.5 * ((value - b_ret[idx]) ** 2).mean()
                loss = pg - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        recent = np.mean(finished[-20:]) if finished else float("nan")
        rate = steps / (time.perf_counter() - start)
        print(
            f"update {update}: env steps {steps}, trained rows {size}, "
            f"episodes {len(finished)}, recent return {recent:.1f}, {rate:.0f} env steps/s",
            flush=True,
        )
    # What is still in flight is dropped by close().
    envs.close()


if __name__ == "__main__":
    main()
