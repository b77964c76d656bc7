"""Evaluates a CarRacing policy checkpoint for full episodes, on ours or on Gymnasium's own env.

    python examples/evaluate.py --env gymnasium --checkpoint policy.pt2 --seeds 1000-1099
    python examples/evaluate.py --env reinfors --checkpoint policy.pt2 --seeds 1000-1099 --json

The checkpoint is an exported program (`torch.export`, any batch size) mapping a uint8
observation batch to `(mean (n, 3), log_std (n, 3), value (n,))`, with the observation options
it was trained on in an extra file `preprocessing.json`: `{"frame_skip": k, "stack_num": n,
"grayscale": bool}` (frames 96x96, channels last, as `gym.make` gives them). Loading it needs
torch alone, not the code that defined the network. `save_checkpoint` writes one.

Both envs get the same preprocessing, from Gymnasium's own wrappers (`GrayscaleObservation`,
`FrameStackObservation`) plus an action repeat written here, so the very same policy runs on
both; they equal the vector env's native `grayscale`, `stack_num` and `frame_skip`. With
`--env gymnasium` nothing is imported from `reinfors_gym`. Episodes end as `CarRacing-v3`'s do
(termination, or truncation after 1000 simulation steps). Prints each seed's return and the
mean with a 95% interval; `--json` ends with one JSON line
`{"env": ..., "seeds": [...], "returns": [...], "mean": ...}`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

import gymnasium as gym
import numpy as np

try:
    import torch
except ImportError:
    sys.exit("evaluate.py needs PyTorch: pip install torch (or 'reinfors-gym[examples]')")

ENV_IDS = {"gymnasium": "CarRacing-v3", "reinfors": "reinfors_gym:reinfors/CarRacing-v0"}
PREPROCESSING_FILE = "preprocessing.json"
DEFAULT_PREPROCESSING = {"frame_skip": 1, "stack_num": 1, "grayscale": False}


class ActionRepeat(gym.Wrapper):
    """Repeats each action `k` times, summing the rewards and returning the last frame; stops
    early when the episode ends (the vector env's native `frame_skip`)."""

    def __init__(self, env: gym.Env, k: int):
        super().__init__(env)
        self.k = k

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        total = 0.0
        for _ in range(self.k):
            obs, reward, terminated, truncated, info = self.env.step(action)
            total += float(reward)
            if terminated or truncated:
                break
        return obs, total, terminated, truncated, info


def frame_shape(preprocessing: dict[str, Any]) -> tuple[int, ...]:
    """One observation's shape under `preprocessing` (what the policy receives per env)."""
    shape: tuple[int, ...] = (96, 96) if preprocessing["grayscale"] else (96, 96, 3)
    if preprocessing["stack_num"] > 1:
        shape = (preprocessing["stack_num"], *shape)
    return shape


def save_checkpoint(module: torch.nn.Module, path: str, preprocessing: dict[str, Any]) -> None:
    """Exports `module` for any batch size and saves it with its preprocessing options."""
    unknown = set(preprocessing) - set(DEFAULT_PREPROCESSING)
    if unknown:
        raise ValueError(f"unknown preprocessing options {sorted(unknown)}")
    options = {**DEFAULT_PREPROCESSING, **preprocessing}
    example = torch.zeros((2, *frame_shape(options)), dtype=torch.uint8)
    batch = torch.export.Dim("batch", min=1, max=65536)
    program = torch.export.export(module.eval(), (example,), dynamic_shapes=({0: batch},))
    extra = {PREPROCESSING_FILE: json.dumps(options)}
    torch.export.save(program, path, extra_files=extra)


def load_checkpoint(path: str) -> tuple[Any, dict[str, Any]]:
    """The policy (a callable module) and its preprocessing options."""
    extra = {PREPROCESSING_FILE: ""}
    program = torch.export.load(path, extra_files=extra)
    preprocessing = {**DEFAULT_PREPROCESSING, **json.loads(extra[PREPROCESSING_FILE] or "{}")}
    return program.module(), preprocessing


def make_env(which: str, preprocessing: dict[str, Any]) -> gym.Env:
    env = gym.make(ENV_IDS[which])
    if preprocessing["frame_skip"] > 1:
        env = ActionRepeat(env, preprocessing["frame_skip"])
    if preprocessing["grayscale"]:
        env = gym.wrappers.GrayscaleObservation(env)
    if preprocessing["stack_num"] > 1:
        env = gym.wrappers.FrameStackObservation(env, preprocessing["stack_num"])
    return env


def parse_seeds(text: str) -> list[int]:
    """`A-B` (inclusive), `A`, or a comma list of those."""
    seeds: list[int] = []
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        lo, hi = int(first), int(last or first)
        if lo < 0 or hi < lo:
            raise ValueError(f"bad seed range {part!r}: want A-B with 0 <= A <= B")
        seeds.extend(range(lo, hi + 1))
    return seeds


@torch.no_grad()
def run_episode(env: gym.Env, policy: Any, seed: int, sample: bool, sample_seed: int) -> float:
    obs, _ = env.reset(seed=seed)
    # Each episode draws its own stream, so a seed's samples are the same on either env.
    rng = torch.Generator().manual_seed(sample_seed * 1_000_003 + seed)
    low, high = env.action_space.low, env.action_space.high
    total, done = 0.0, False
    while not done:
        mean, log_std, _ = policy(torch.from_numpy(np.asarray(obs)[None]))
        action = mean
        if sample:
            action = mean + log_std.exp() * torch.randn(mean.shape, generator=rng)
        # As in training: the env receives the sample clipped to the action box.
        action_np = np.clip(action[0].numpy().astype(np.float64), low, high)
        obs, reward, terminated, truncated, _ = env.step(action_np)
        total += float(reward)
        done = terminated or truncated
    return total


def interval95(values: list[float]) -> float:
    """Half-width of the normal-approximation 95% interval of the mean."""
    if len(values) < 2:
        return float("nan")
    return 1.96 * float(np.std(values, ddof=1)) / math.sqrt(len(values))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--env", choices=sorted(ENV_IDS), required=True, help="the env to run on")
    p.add_argument("--checkpoint", required=True, help="a .pt2 file (save_checkpoint)")
    p.add_argument("--seeds", default="0-99", help="A-B inclusive, or a comma list")
    p.add_argument("--sample", action="store_true", help="sample actions (not: the mean)")
    p.add_argument("--sample-seed", type=int, default=0, help="torch seed for --sample")
    p.add_argument("--json", action="store_true", help="end with one JSON line of results")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    policy, preprocessing = load_checkpoint(args.checkpoint)
    seeds = parse_seeds(args.seeds)
    env = make_env(args.env, preprocessing)
    returns = []
    for seed in seeds:
        returns.append(run_episode(env, policy, seed, args.sample, args.sample_seed))
        print(f"seed {seed}: {returns[-1]:.2f}", flush=True)
    env.close()
    mean = float(np.mean(returns))
    print(
        f"{args.env} ({ENV_IDS[args.env]}), {len(seeds)} episodes, "
        f"{'sampled' if args.sample else 'mean'} actions: mean {mean:.2f} "
        f"± {interval95(returns):.2f} (95%)"
    )
    if args.json:
        print(json.dumps({"env": args.env, "seeds": seeds, "returns": returns, "mean": mean}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
