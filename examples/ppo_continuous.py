"""PPO with a Gaussian policy on pixel CarRacing, CleanRL style (one file, no framework).

    pip install -e ".[examples]"            # or: pip install torch
    python examples/ppo_continuous.py --total-timesteps 1000000 --log-csv out/ppo.csv
    SDL_VIDEODRIVER=dummy python examples/ppo_continuous.py --env gymnasium \
        --total-timesteps 1000000 --log-csv out/ppo_gymnasium.csv

`--env ours` (reinfors/CarRacing-v0 in our Rust vector env) and `--env gymnasium` (Gymnasium's
CarRacing-v3 in an `AsyncVectorEnv`) differ only in the line that creates the vector env
(`make_envs`), so their speed and learning compare directly.

Autoreset: the vector env uses Gymnasium 1.x's default `NEXT_STEP` mode. When sub-env i reports
`terminated or truncated` at step t, the observation it returns is the episode's final one, and
its next `step` ignores the action, resets, and returns the first observation of a new episode
with reward 0. That reset step is not a decision of the agent, so it is stored but masked out:
it gets no advantage from the previous episode (GAE stops at `done`), and it is left out of the
PPO loss. In exchange, the value of the final observation is computed for free on the step after
`done`, so truncated episodes (the 1000-step time limit) bootstrap from V(final_obs), and only
terminated ones cut the return at zero. GAE itself is examples/gae.py's, shared with the other
examples.
"""

from __future__ import annotations

import argparse
import ast
import csv
import dataclasses
import inspect
import itertools
import random
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import gymnasium as gym
import numpy as np

import reinfors_gym  # noqa: F401  (registers reinfors/CarRacing-v0)

try:
    import torch
    import torch.nn as nn
    import torch.optim as optim
    from torch.distributions.normal import Normal
except ImportError:
    sys.exit(
        "This example needs PyTorch: pip install 'reinfors-gym[examples]' (or pip install torch)"
    )

from gae import gae, next_values  # examples/gae.py, beside this script


@dataclass
class Args:
    seed: int = 1
    """seed of the experiment (envs get seed, seed + 1, ...)"""
    torch_deterministic: bool = True
    """sets `torch.backends.cudnn.deterministic`"""
    cuda: bool = True
    """use CUDA when it is available"""
    log_csv: str | None = None
    """if given, write one (global_step, episodic_return, sps) row per finished episode here"""
    env: str = "ours"
    """CarRacing to train on: ours (reinfors/CarRacing-v0) or gymnasium (CarRacing-v3, async)"""

    total_timesteps: int = 1_000_000
    """total environment steps of the experiment"""
    learning_rate: float = 3e-4
    """learning rate of the optimizer"""
    anneal_lr: bool = True
    """anneal the learning rate linearly to 0"""
    num_envs: int = 8
    """number of parallel sub-environments"""
    num_steps: int = 128
    """steps per sub-environment in each rollout"""
    gamma: float = 0.99
    """discount factor"""
    gae_lambda: float = 0.95
    """lambda of generalized advantage estimation"""
    num_minibatches: int = 4
    """number of minibatches per epoch"""
    update_epochs: int = 4
    """epochs of PPO updates per rollout"""
    norm_adv: bool = True
    """normalize advantages per minibatch"""
    clip_coef: float = 0.2
    """surrogate clipping coefficient"""
    clip_vloss: bool = True
    """clip the value loss as in the PPO paper's implementation"""
    ent_coef: float = 0.0
    """entropy bonus coefficient"""
    vf_coef: float = 0.5
    """value loss coefficient"""
    max_grad_norm: float = 0.5
    """gradient clipping norm"""
    target_kl: float | None = None
    """stop the update epochs early past this approximate KL (None: never)"""


#: The values a string field may take, where it is not free text.
CHOICES = {"env": ["ours", "gymnasium"]}


def make_envs(args: Args) -> gym.vector.VectorEnv:
    """The vector env of `--env`: the one line in which the two runs differ."""
    if args.env == "ours":
        return gym.make_vec("reinfors/CarRacing-v0", num_envs=args.num_envs)
    return gym.make_vec("CarRacing-v3", num_envs=args.num_envs, vectorization_mode="async")


def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass, by field name."""
    cls_def = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0]
    assert isinstance(cls_def, ast.ClassDef)
    docs = {}
    for node, doc in itertools.pairwise(cls_def.body):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant):
                docs[node.target.id] = str(doc.value.value)
    return docs


def parse_args() -> Args:
    """One `--flag-name` per field of `Args` (booleans also accept `--no-flag-name`), its
    docstring as the help text, with the default."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    docs = field_docs(Args)
    for field in dataclasses.fields(Args):
        flag = "--" + field.name.replace("_", "-")
        help_text = docs.get(field.name, field.name.replace("_", " "))
        if field.type == "bool":
            parser.add_argument(
                flag,
                action=argparse.BooleanOptionalAction,
                default=field.default,
                help=help_text,
            )
        else:
            kind = {"int": int, "float": float}.get(field.type.split(" |")[0], str)
            parser.add_argument(
                flag,
                type=kind,
                default=field.default,
                choices=CHOICES.get(field.name),
                help=help_text,
            )
    return Args(**vars(parser.parse_args()))


def shape_of(space: gym.Space) -> tuple[int, ...]:
    """A space's shape (Box spaces always have one; the check is for type checkers)."""
    assert space.shape is not None, space
    return space.shape


def layer_init(layer: nn.Module, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Module:
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


def nature_cnn(channels: int) -> nn.Sequential:
    """The Nature-DQN convolutions over `channels` input planes, flattened (64 x 8 x 8 features
    on 96 x 96 frames)."""
    return nn.Sequential(
        layer_init(nn.Conv2d(channels, 32, 8, stride=4)),
        nn.ReLU(),
        layer_init(nn.Conv2d(32, 64, 4, stride=2)),
        nn.ReLU(),
        layer_init(nn.Conv2d(64, 64, 3, stride=1)),
        nn.ReLU(),
        nn.Flatten(),
    )


class Agent(nn.Module):
    """Nature-CNN trunk shared by a Gaussian policy (state-independent log-std) and a value."""

    def __init__(self, envs: gym.vector.VectorEnv):
        super().__init__()
        height, width, channels = shape_of(envs.single_observation_space)
        action_dim = int(np.prod(shape_of(envs.single_action_space)))
        self.network = nature_cnn(channels)
        with torch.no_grad():
            n_flat = self.network(torch.zeros(1, channels, height, width)).shape[1]
        self.network.append(layer_init(nn.Linear(n_flat, 512)))
        self.network.append(nn.ReLU())
        self.actor_mean = layer_init(nn.Linear(512, action_dim), std=0.01)
        self.actor_logstd = nn.Parameter(torch.zeros(1, action_dim))
        self.critic = layer_init(nn.Linear(512, 1), std=1.0)

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        # uint8 (batch, H, W, C) -> float in [0, 1], (batch, C, H, W)
        return self.network(obs.permute(0, 3, 1, 2).float() / 255.0)

    def get_value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(self.features(obs))

    def get_action_and_value(self, obs: torch.Tensor, action: torch.Tensor | None = None):
        hidden = self.features(obs)
        mean = self.actor_mean(hidden)
        std = torch.exp(self.actor_logstd.expand_as(mean))
        dist = Normal(mean, std)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action).sum(1), dist.entropy().sum(1), self.critic(hidden)


def main() -> None:
    args = parse_args()
    batch_size = args.num_envs * args.num_steps
    num_iterations = max(1, args.total_timesteps // batch_size)

    random.seed(args.seed)
    rng = np.random.default_rng(args.seed)
    torch.manual_seed(args.seed)
    torch.backends.cudnn.deterministic = args.torch_deterministic
    device = torch.device("cuda" if torch.cuda.is_available() and args.cuda else "cpu")

    envs = make_envs(args)
    envs = gym.wrappers.vector.RecordEpisodeStatistics(envs)
    assert isinstance(envs.single_action_space, gym.spaces.Box), "continuous actions only"
    autoreset_mode = envs.metadata.get("autoreset_mode", gym.vector.AutoresetMode.NEXT_STEP)
    assert autoreset_mode == gym.vector.AutoresetMode.NEXT_STEP, "written for NEXT_STEP autoreset"
    action_low = envs.single_action_space.low
    action_high = envs.single_action_space.high

    agent = Agent(envs).to(device)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # Rollout storage; observations stay uint8 to keep it small. What GAE reads is in NumPy.
    obs = torch.zeros(
        (args.num_steps, args.num_envs, *shape_of(envs.single_observation_space)),
        dtype=torch.uint8,
        device=device,
    )
    actions = torch.zeros(
        (args.num_steps, args.num_envs, *shape_of(envs.single_action_space)), device=device
    )
    logprobs = torch.zeros((args.num_steps, args.num_envs), device=device)
    rewards = np.zeros((args.num_steps, args.num_envs), np.float32)
    terminations = np.zeros((args.num_steps, args.num_envs), bool)
    dones = np.zeros((args.num_steps, args.num_envs), bool)
    values = np.zeros((args.num_steps, args.num_envs), np.float32)
    # valid[t, i] is False on the autoreset steps (the step after a done): not learned from.
    valid = torch.zeros((args.num_steps, args.num_envs), dtype=torch.bool, device=device)

    csv_file = None
    csv_writer = None
    if args.log_csv:
        Path(args.log_csv).parent.mkdir(parents=True, exist_ok=True)
        csv_file = open(args.log_csv, "w", newline="")
        csv_writer = csv.writer(csv_file)
        csv_writer.writerow(["global_step", "episodic_return", "sps"])

    global_step = 0
    start_time = time.time()
    next_obs, _ = envs.reset(seed=args.seed)
    envs.action_space.seed(args.seed)
    next_obs = torch.as_tensor(next_obs, device=device)
    next_done = np.zeros(args.num_envs, dtype=bool)  # True: the next step is an autoreset step

    for iteration in range(1, num_iterations + 1):
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / num_iterations
            optimizer.param_groups[0]["lr"] = frac * args.learning_rate

        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step] = next_obs
            valid[step] = torch.as_tensor(~next_done, device=device)

            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
            values[step] = value.flatten().cpu().numpy()
            actions[step] = action
            logprobs[step] = logprob

            # The policy samples from an unbounded Gaussian; only the env sees clipped actions.
            env_action = np.clip(action.cpu().numpy(), action_low, action_high)
            next_obs, reward, terminated, truncated, infos = envs.step(env_action)
            next_done = np.logical_or(terminated, truncated)
            rewards[step] = reward
            terminations[step] = terminated
            dones[step] = next_done
            next_obs = torch.as_tensor(next_obs, device=device)

            if "_episode" in infos:
                sps = int(global_step / (time.time() - start_time))
                for i in np.flatnonzero(infos["_episode"]):
                    episodic_return = float(infos["episode"]["r"][i])
                    print(f"global_step={global_step}, episodic_return={episodic_return:.1f}")
                    if csv_writer is not None:
                        csv_writer.writerow([global_step, episodic_return, sps])

        # GAE. With NEXT_STEP, values[t + 1] after a done at t is V(final observation): it
        # bootstraps truncations, and `terminations` zeroes it for true terminal states. The
        # chain of advantages is cut at every done, so autoreset steps never leak into it.
        with torch.no_grad():
            next_value = agent.get_value(next_obs).flatten().cpu().numpy()
        targets = next_values(values, next_value, terminations)
        advantages, returns = gae(rewards, values, targets, dones, args.gamma, args.gae_lambda)

        # Flatten the batch and keep only the real decisions.
        b_valid = valid.reshape(-1)
        b_obs = obs.reshape((-1, *shape_of(envs.single_observation_space)))[b_valid]
        b_actions = actions.reshape((-1, *shape_of(envs.single_action_space)))[b_valid]
        b_logprobs = logprobs.reshape(-1)[b_valid]
        b_advantages = torch.as_tensor(advantages.reshape(-1), device=device)[b_valid]
        b_returns = torch.as_tensor(returns.reshape(-1), device=device)[b_valid]
        b_values = torch.as_tensor(values.reshape(-1), device=device)[b_valid]
        n_valid = b_obs.shape[0]
        minibatch_size = max(1, -(-n_valid // args.num_minibatches))

        b_inds = np.arange(n_valid)
        clipfracs = []
        for _epoch in range(args.update_epochs):
            rng.shuffle(b_inds)
            for start in range(0, n_valid, minibatch_size):
                mb_inds = b_inds[start : start + minibatch_size]

                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb_inds], b_actions[mb_inds]
                )
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()

                with torch.no_grad():
                    # http://joschu.net/blog/kl-approx.html
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())

                mb_advantages = b_advantages[mb_inds]
                if args.norm_adv and len(mb_inds) > 1:
                    mb_advantages = (mb_advantages - mb_advantages.mean()) / (
                        mb_advantages.std() + 1e-8
                    )

                # Clipped policy loss
                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * torch.clamp(
                    ratio, 1 - args.clip_coef, 1 + args.clip_coef
                )
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()

                # Value loss
                newvalue = newvalue.view(-1)
                if args.clip_vloss:
                    v_loss_unclipped = (newvalue - b_returns[mb_inds]) ** 2
                    v_clipped = b_values[mb_inds] + torch.clamp(
                        newvalue - b_values[mb_inds], -args.clip_coef, args.clip_coef
                    )
                    v_loss_clipped = (v_clipped - b_returns[mb_inds]) ** 2
                    v_loss = 0.5 * torch.max(v_loss_unclipped, v_loss_clipped).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[mb_inds]) ** 2).mean()

                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef

                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

            if args.target_kl is not None and approx_kl > args.target_kl:
                break

        y_pred, y_true = b_values.cpu().numpy(), b_returns.cpu().numpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y

        sps = int(global_step / (time.time() - start_time))
        print(
            f"iteration={iteration}/{num_iterations} global_step={global_step} SPS: {sps} "
            f"value_loss={v_loss.item():.3f} policy_loss={pg_loss.item():.4f} "
            f"entropy={entropy_loss.item():.3f} old_approx_kl={old_approx_kl.item():.4f} "
            f"approx_kl={approx_kl.item():.4f} clipfrac={np.mean(clipfracs):.3f} "
            f"explained_variance={explained_var:.3f}"
        )
        if csv_file is not None:
            csv_file.flush()

    envs.close()
    if csv_file is not None:
        csv_file.close()


if __name__ == "__main__":
    main()
