"""PPO from skrl on pixel CarRacing, over the native vector env (no adapter needed).

    pip install "reinfors-gym[skrl]"         # or: pip install skrl torch
    python examples/skrl_ppo.py --timesteps 100000

skrl's Gymnasium wrapper takes a Gymnasium `VectorEnv` as is (it relies on the vector env's own
autoreset, Gymnasium's default `NEXT_STEP`); skrl flattens observations, so the models reshape
them back to `(3, H, W)` frames, which the native `channels_first=True` gives without a transpose.
"""

from __future__ import annotations

import argparse
import sys

import gymnasium as gym

import reinfors_gym  # noqa: F401  (registers reinfors/CarRacing-v0)

try:
    import torch
    import torch.nn as nn
    from skrl.agents.torch.ppo import PPO, PPO_CFG
    from skrl.envs.wrappers.torch import wrap_env
    from skrl.memories.torch import RandomMemory
    from skrl.models.torch import DeterministicMixin, GaussianMixin, Model
    from skrl.trainers.torch import SequentialTrainer
    from skrl.utils import set_seed
except ImportError:
    sys.exit('This example needs skrl and PyTorch: pip install "reinfors-gym[skrl]"')


def encoder(size: int) -> nn.Sequential:
    """A small Nature-style CNN over (3, size, size) frames in [0, 255]."""
    conv = nn.Sequential(
        nn.Conv2d(3, 16, 8, stride=4),
        nn.ReLU(),
        nn.Conv2d(16, 32, 4, stride=2),
        nn.ReLU(),
        nn.Flatten(),
    )
    with torch.no_grad():
        width = conv(torch.zeros(1, 3, size, size)).shape[1]
    return nn.Sequential(conv, nn.Linear(width, 256), nn.ReLU())


class Policy(GaussianMixin, Model):
    def __init__(self, observation_space, action_space, device, size: int):
        Model.__init__(
            self, observation_space=observation_space, action_space=action_space, device=device
        )
        GaussianMixin.__init__(self, clip_actions=True)
        self.size = size
        self.net = nn.Sequential(encoder(size), nn.Linear(256, self.num_actions))
        self.log_std = nn.Parameter(torch.zeros(self.num_actions))

    def compute(self, inputs, role=""):
        frames = inputs["observations"].view(-1, 3, self.size, self.size) / 255.0
        return self.net(frames), {"log_std": self.log_std}


class Value(DeterministicMixin, Model):
    def __init__(self, observation_space, action_space, device, size: int):
        Model.__init__(
            self, observation_space=observation_space, action_space=action_space, device=device
        )
        DeterministicMixin.__init__(self)
        self.size = size
        self.net = nn.Sequential(encoder(size), nn.Linear(256, 1))

    def compute(self, inputs, role=""):
        frames = inputs["observations"].view(-1, 3, self.size, self.size) / 255.0
        return self.net(frames), {}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--num-envs", type=int, default=8, help="sub-envs in the vector env")
    parser.add_argument("--timesteps", type=int, default=100_000, help="vector steps")
    parser.add_argument("--rollouts", type=int, default=64, help="vector steps per update")
    parser.add_argument("--obs-size", type=int, default=64, help="square frame side")
    parser.add_argument("--seed", type=int, default=0, help="seeds the envs and skrl")
    args = parser.parse_args(argv)

    set_seed(args.seed)  # torch's seed, and the seed of skrl's first env reset
    venv = gym.make_vec(
        "reinfors/CarRacing-v0",
        num_envs=args.num_envs,
        obs_size=(args.obs_size, args.obs_size),
        channels_first=True,
    )
    env = wrap_env(venv, wrapper="gymnasium")
    device = env.device
    policy = Policy(env.observation_space, env.action_space, device, args.obs_size)
    models = {
        "policy": policy,
        "value": Value(env.observation_space, env.action_space, device, args.obs_size),
    }
    cfg = PPO_CFG(rollouts=args.rollouts, learning_epochs=1, mini_batches=2)
    cfg.experiment.write_interval = 0  # no TensorBoard files or checkpoints from an example
    cfg.experiment.checkpoint_interval = 0
    agent = PPO(
        models=models,
        memory=RandomMemory(memory_size=args.rollouts, num_envs=env.num_envs, device=device),
        observation_space=env.observation_space,
        action_space=env.action_space,
        device=device,
        cfg=cfg,
    )
    trainer = SequentialTrainer(
        env=env, agents=agent, cfg={"timesteps": args.timesteps, "headless": True}
    )
    before = [p.detach().clone() for p in policy.parameters()]
    trainer.train()
    after = list(policy.parameters())
    changed = any(not torch.equal(a, b) for a, b in zip(before, after, strict=True))
    print(f"timesteps={args.timesteps} policy_updated={changed}")
    env.close()


if __name__ == "__main__":
    main()
