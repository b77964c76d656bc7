"""Where one update of examples/train.py's recipe spends its time: the actor's forward passes
that collect a batch, and the PPO epochs' phases (preprocessing, gathers, forward and backward
passes, losses, optimizer, statistics), for the learner before and after its frames were
preprocessed once per batch.

    python bench/profile_update.py [--trials 5] [--json docs/training_profile.json]

Each trial runs, for each learner in turn (a fresh order each trial), one update on a batch of
the recipe's size (2,048 decisions of 2 stacked 96x96 grayscale frames, random pixels, 4 epochs
with no early stop) after a warm-up update, timing `ppo_update`'s phases with its `PhaseClock`
(wall-clock; CPU operators are synchronous), and the 128 forward passes of 16 frames that collect
such a batch. The table reports each phase's median over trials. The learner before preprocesses
inside its forward passes, so its preprocessing is counted there.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "bench"))

import bench_training  # noqa: E402
import train  # noqa: E402
from ppo_carracing import PhaseClock, ppo_update  # noqa: E402

from reinfors_gym.benchmarks.harness import machine_info, print_machine_info  # noqa: E402

ACTING = "acting: the actor's forward passes"
LEARNERS = {"before": bench_training.FramesEachMinibatch, "after": train.BetaAgent}


class Batch:
    """What `ppo_update` reads: `flat()` arrays of the recipe's size."""

    def __init__(self, n: int, seed: int = 0):
        rng = np.random.default_rng(seed)
        self.arrays = {
            "obs": rng.integers(0, 256, (n, 2, 96, 96), dtype=np.uint8),
            "actions": np.tile(np.float32([0.0, 0.6, 0.05]), (n, 1)),
            "behavior_log_probs": np.zeros(n, np.float32),
            "advantages": rng.standard_normal(n).astype(np.float32),
            "returns": rng.standard_normal(n).astype(np.float32),
        }

    def flat(self) -> dict[str, np.ndarray]:
        return self.arrays


def profile_learner(agent_class: type[train.BetaAgent], batch: Batch) -> dict[str, float]:
    """One update's phases and one batch's acting forward passes, in seconds."""
    args = argparse.Namespace(**{**vars(bench_training.RECIPE), "target_kl": None})
    torch.manual_seed(0)
    torch.set_num_threads(args.torch_threads)
    agent = agent_class(args)
    optimizer = train.make_optimizer(agent, 1e-6)
    rng = np.random.default_rng(0)
    ppo_update(agent, optimizer, batch, args, rng)  # warm-up
    clock = PhaseClock()
    ppo_update(agent, optimizer, batch, args, rng, clock=clock)
    seconds = dict(clock.seconds)
    frames = torch.from_numpy(batch.arrays["obs"][: args.n_games])
    start = time.perf_counter()
    with torch.no_grad():
        for _ in range(args.collect_size // args.n_games):
            agent(frames)
    seconds[ACTING] = time.perf_counter() - start
    return seconds


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--json", type=Path, help="also write the results here")
    args = p.parse_args(argv)
    info = machine_info()
    print_machine_info(info)
    batch = Batch(bench_training.RECIPE.collect_size)
    trials: dict[str, list[dict[str, float]]] = {name: [] for name in LEARNERS}
    for trial in range(args.trials):
        order = list(LEARNERS) if trial % 2 == 0 else list(LEARNERS)[::-1]
        for name in order:
            trials[name].append(profile_learner(LEARNERS[name], batch))
            print(
                f"trial {trial + 1}/{args.trials}  {name}: {sum(trials[name][-1].values()):.2f} s"
            )
    groups = sorted({g for runs in trials.values() for run in runs for g in run})
    medians = {
        name: {g: float(np.median([run.get(g, 0.0) for run in runs])) for g in groups}
        for name, runs in trials.items()
    }
    print(f"\n{'seconds per update of 2,048 decisions':44s} {'before':>8s} {'after':>8s}")
    for g in sorted(groups, key=lambda g: -medians["before"][g]):
        print(f"{g:44s} {medians['before'][g]:8.3f} {medians['after'][g]:8.3f}")
    totals = {name: sum(m.values()) for name, m in medians.items()}
    print(f"{'total':44s} {totals['before']:8.3f} {totals['after']:8.3f}")
    if args.json:
        record = {"machine": info, "trials": trials, "median_seconds": medians, "totals": totals}
        args.json.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
