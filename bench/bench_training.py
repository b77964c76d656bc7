"""End-to-end PPO throughput: the streaming collector against Gymnasium's `AsyncVectorEnv`.

    python bench/bench_training.py --updates 6 --trials 3      # needs torch (the examples' deps)

Both sides run the recipe of `examples/ppo_carracing.py` (its `Agent` and `ppo_update`, the same
batch of 2048 decisions from 16 games, 4 epochs of minibatches of 256) on the same observations:
2 simulation steps per decision, grayscale, the last 2 frames.

- **reinfors-gym**: `examples/ppo_carracing.py` itself, in a subprocess; the collector runs the
  games and the actor while the main thread trains.
- **Gymnasium**: `AsyncVectorEnv` over 16 `CarRacing-v3` (one process each) wrapped in Gymnasium's
  own `GrayscaleObservation` and `FrameStackObservation` plus the action repeat of
  `examples/evaluate.py`; the usual synchronous PPO loop (collect a batch, then train on it), with
  GAE in NumPy and the same-step autoreset so a truncated episode bootstraps from its final frame.

The rate of each trial is decisions per second of wall-clock, training included, over the updates
after the first (start-up and the first batch are a warm-up). Trials alternate between the two
sides; medians are printed. With `--decisions N` the table ends with the projected wall-clock for N
decisions on each side: the time the recipe takes to reach the shipped checkpoint.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # Gymnasium's CarRacing draws with pygame
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

from reinfors_gym.benchmarks import harness  # noqa: E402

try:
    import torch
    from torch.distributions.normal import Normal
except ImportError:
    sys.exit("This benchmark needs PyTorch: pip install torch")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES))
from evaluate import ActionRepeat  # noqa: E402
from ppo_carracing import Agent, parse_args, ppo_update  # noqa: E402

GAMES = 16
BATCH = 2048
FRAME_SKIP = 2
STACK_NUM = 2


def machine_info() -> dict[str, str]:
    return {**harness.machine_info(), "torch": torch.__version__}


def ours(updates: int) -> float:
    """Decisions/s of `examples/ppo_carracing.py` over its updates after the first."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [
            sys.executable, str(EXAMPLES / "ppo_carracing.py"), "--total-steps",
            str(updates * BATCH), "--n-games", str(GAMES), "--collect-size", str(BATCH),
            "--frame-skip", str(FRAME_SKIP), "--stack-num", str(STACK_NUM), "--grayscale",
            "--out", out,
        ]  # fmt: skip
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(Path(out) / "scalars.csv") as f:
            rows = list(csv.DictReader(f))
    first, last = rows[0], rows[-1]
    decisions = int(last["env_steps"]) - int(first["env_steps"])
    return decisions / (float(last["wall_s"]) - float(first["wall_s"]))


def make_gymnasium_game() -> gym.Env:
    env = gym.make("CarRacing-v3")
    env = ActionRepeat(env, FRAME_SKIP)
    env = gym.wrappers.GrayscaleObservation(env)
    return gym.wrappers.FrameStackObservation(env, STACK_NUM)


class NumpyBatch:
    """What `ppo_update` reads from a `reinfors_gym.Batch`: `flat()` arrays."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        self.arrays = arrays

    def flat(self) -> dict[str, np.ndarray]:
        return self.arrays


def gae(rewards, values, dones, next_values, gamma, lam) -> tuple[np.ndarray, np.ndarray]:
    """Time-major GAE; `next_values[t]` is the value after step t (0 after a termination)."""
    advantages = np.zeros_like(rewards)
    running = np.zeros(rewards.shape[1], dtype=np.float32)
    for t in reversed(range(len(rewards))):
        delta = rewards[t] + gamma * next_values[t] - values[t]
        running = delta + gamma * lam * (1.0 - dones[t]) * running
        advantages[t] = running
    return advantages, advantages + values


def gymnasium_async(updates: int) -> float:
    """Decisions/s of the same recipe on `AsyncVectorEnv`, over the updates after the first."""
    torch.set_num_threads(2)
    args = parse_args([])  # the example's defaults: the same PPO settings and network
    agent = Agent(args.value_scale, args.init_log_std, STACK_NUM, grayscale=True)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    rng = np.random.default_rng(1)
    envs = gym.vector.AsyncVectorEnv(
        [make_gymnasium_game] * GAMES, autoreset_mode=gym.vector.AutoresetMode.SAME_STEP
    )
    steps = BATCH // GAMES
    low, high = envs.single_action_space.low, envs.single_action_space.high
    try:
        obs, _ = envs.reset(seed=1)
        marks = []
        for _ in range(updates):
            buf = {k: [] for k in ("obs", "actions", "logp", "values", "rewards", "dones", "ended")}
            for _ in range(steps):
                with torch.no_grad():
                    mean, log_std, value = agent(torch.from_numpy(obs))
                    dist = Normal(mean, log_std.exp())
                    action = dist.sample()
                    logp = dist.log_prob(action).sum(1)
                next_obs, reward, term, trunc, info = envs.step(
                    np.clip(action.numpy().astype(np.float64), low, high)
                )
                # The value after an episode's last step: 0 after a termination, the final
                # frame's after a truncation; NaN where the game goes on (the next step's value).
                ended = np.full(GAMES, np.nan, np.float32)
                ended[term] = 0.0
                if trunc.any():
                    final = np.stack([info["final_obs"][i] for i in np.flatnonzero(trunc)])
                    with torch.no_grad():
                        ended[trunc] = agent(torch.from_numpy(final))[2].numpy()
                buf["obs"].append(obs)
                buf["actions"].append(action.numpy())
                buf["logp"].append(logp.numpy())
                buf["values"].append(value.numpy())
                buf["rewards"].append(reward.astype(np.float32))
                buf["dones"].append((term | trunc).astype(np.float32))
                buf["ended"].append(ended)
                obs = next_obs
            with torch.no_grad():
                last_value = agent(torch.from_numpy(obs))[2].numpy()
            stacked = {k: np.stack(v) for k, v in buf.items()}
            following = np.concatenate([stacked["values"][1:], last_value[None]])
            next_values = np.where(np.isnan(stacked["ended"]), following, stacked["ended"])
            adv, ret = gae(
                stacked["rewards"], stacked["values"], stacked["dones"], next_values,
                args.gamma, args.lam,
            )  # fmt: skip
            batch = NumpyBatch({
                "obs": stacked["obs"].reshape(BATCH, *obs.shape[1:]),
                "actions": stacked["actions"].reshape(BATCH, 3),
                "behavior_log_probs": stacked["logp"].reshape(BATCH),
                "advantages": adv.reshape(BATCH),
                "returns": ret.reshape(BATCH),
            })  # fmt: skip
            ppo_update(agent, optimizer, batch, args, rng)
            marks.append(time.perf_counter())
    finally:
        envs.close()
    return (updates - 1) * BATCH / (marks[-1] - marks[0])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--updates", type=int, default=6, help="PPO updates per trial (>= 2)")
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--decisions", type=int, help="project the wall-clock for this many")
    p.add_argument("--json", type=Path, help="also write the results here")
    args = p.parse_args()
    if args.updates < 2:
        p.error("--updates must be at least 2 (the first is a warm-up)")
    harness.print_machine_info(machine_info())
    loops = {"reinfors-gym collect_stream": ours, "Gymnasium AsyncVectorEnv": gymnasium_async}
    rates: dict[str, list[float]] = {name: [] for name in loops}
    for trial in range(args.trials):
        for name, loop in loops.items():
            rate = loop(args.updates)
            rates[name].append(rate)
            print(f"trial {trial + 1}/{args.trials}  {name:30s} {rate:8.1f} decisions/s")
    medians = {name: statistics.median(values) for name, values in rates.items()}
    ours_rate, async_rate = medians.values()
    print(f"\n{'loop':32s} {'decisions/s (median)':>22s} {'range':>18s}")
    for name, values in rates.items():
        spread = f"{min(values):.0f}-{max(values):.0f}"
        print(f"{name:32s} {medians[name]:22.1f} {spread:>18s}")
    print(f"ratio: {ours_rate / async_rate:.1f}x")
    result = {
        "machine": machine_info(),
        "updates": args.updates,
        "rates": rates,
        "medians": medians,
    }
    if args.decisions:
        hours = {name: args.decisions / rate / 3600 for name, rate in medians.items()}
        result["projected_hours"] = hours
        for name, h in hours.items():
            print(f"{args.decisions} decisions on {name}: {h * 60:.0f} min")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
