"""Where one update of examples/train.py's recipe spends its time: the actor's forward passes
that collect a batch, and the PPO epochs' phases (preprocessing, gathers, forward and backward
passes, losses, optimizer, statistics), for the learner before and after its frames were
preprocessed once per batch.

    python bench/profile_update.py [--trials 5] [--json docs/training_profile.json]
    python bench/profile_update.py --levers [--trials 5] [--json docs/training_levers.json]
    python bench/profile_update.py --allocator [--trials 5] [--json docs/training_allocator.json]

With `--levers` it times, for the recipe and for each lever that changes it (`LEVERS`: the
network's input size, the first convolution's stride, bfloat16 autocast for the PPO epochs,
larger minibatches), one whole update and the 128 forward passes that act for it, interleaved
the same way, and gives each lever's rate beside the recipe's: the learner's own decisions/s,
with no env.

With `--allocator` it times the recipe's update and acting (in the precision `--precision auto`
picks here) in a fresh process per measurement, with glibc's thresholds fixed as train.py's
`--keep-freed-memory` fixes them and with glibc's adaptive defaults, interleaved, and counts
each one's page faults and system time (`getrusage`).

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
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "bench"))

import allocator  # noqa: E402
import bench_training  # noqa: E402
import train  # noqa: E402
from ppo_carracing import PhaseClock, ppo_update  # noqa: E402
from precision import autocast_heads  # noqa: E402

from reinfors_gym.benchmarks.harness import print_machine_info  # noqa: E402

ACTING = "acting: the actor's forward passes"
#: Lever -> the recipe's options it changes.
LEVERS: dict[str, dict[str, object]] = {
    "the recipe": {},
    "frames pooled to 32x32 (--downsample 3)": {"downsample": 3},
    "first convolution's stride 3 (--first-stride 3)": {"first_stride": 3},
    "bfloat16 autocast for the epochs (--precision bf16)": {"precision": "bf16"},
    "minibatches of 512 (--minibatch-size 512)": {"minibatch_size": 512},
    "minibatches of 1,024 (--minibatch-size 1024)": {"minibatch_size": 1024},
}
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


def fresh_learner(agent_class: type[train.BetaAgent], options: dict[str, object]):
    """The recipe's args with `options` changed (no early stop), a seeded network of
    `agent_class`, its optimizer and the minibatch order's generator."""
    args = argparse.Namespace(**{**vars(bench_training.RECIPE), "target_kl": None, **options})
    torch.manual_seed(0)
    torch.set_num_threads(args.torch_threads)
    agent = agent_class(args)
    return args, agent, bench_training.make_optimizer(agent, 1e-6), np.random.default_rng(0)


def acting_seconds(agent, batch: Batch, args) -> float:
    """The forward passes of 16 frames that collect a batch of the recipe's size."""
    frames = torch.from_numpy(batch.arrays["obs"][: args.n_games])
    start = time.perf_counter()
    with torch.no_grad():
        for _ in range(args.collect_size // args.n_games):
            agent(frames)
    return time.perf_counter() - start


def profile_learner(agent_class: type[train.BetaAgent], batch: Batch) -> dict[str, float]:
    """One update's phases and one batch's acting forward passes, in seconds."""
    args, agent, optimizer, rng = fresh_learner(agent_class, {})
    ppo_update(agent, optimizer, batch, args, rng)  # warm-up
    clock = PhaseClock()
    ppo_update(agent, optimizer, batch, args, rng, clock=clock)
    return {**clock.seconds, ACTING: acting_seconds(agent, batch, args)}


def time_lever(
    changes: dict[str, object], batch: Batch, usage: dict[str, float] | None = None
) -> tuple[float, float]:
    """Seconds of one update (after a warm-up update) and of the 128 forward passes that act
    for it, with the recipe's options changed by `changes` (acting in float32 whatever the
    epochs' precision, as in train.py). `usage`, where given, gets the page faults and system
    seconds of those two timed parts."""
    args, agent, optimizer, rng = fresh_learner(train.BetaAgent, changes)
    heads = autocast_heads(agent.heads, torch.device("cpu")) if args.precision == "bf16" else None
    ppo_update(agent, optimizer, batch, args, rng, heads)  # warm-up
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    ppo_update(agent, optimizer, batch, args, rng, heads)
    update = time.perf_counter() - start
    acting = acting_seconds(agent, batch, args)
    after = resource.getrusage(resource.RUSAGE_SELF)
    if usage is not None:
        usage["page_faults"] = after.ru_minflt - before.ru_minflt
        usage["system_s"] = after.ru_stime - before.ru_stime
    return update, acting


def profile_levers(trials: int, json_path: Path | None, info: dict) -> None:
    """`--levers`: each lever's update and acting seconds, medians of interleaved trials."""
    batch = Batch(bench_training.RECIPE.collect_size)
    times: dict[str, list[list[float]]] = {name: [] for name in LEVERS}
    for trial in range(trials):
        order = list(LEVERS) if trial % 2 == 0 else list(LEVERS)[::-1]
        for name in order:
            times[name].append(list(time_lever(LEVERS[name], batch)))
            print(f"trial {trial + 1}/{trials}  {name}: {sum(times[name][-1]):.2f} s", flush=True)
    decisions = bench_training.RECIPE.collect_size
    medians = {
        name: {
            "update_s": float(np.median([t[0] for t in runs])),
            "acting_s": float(np.median([t[1] for t in runs])),
        }
        for name, runs in times.items()
    }
    base = sum(medians["the recipe"].values())
    print(f"\n{'lever':50s} {'update':>8s} {'acting':>8s} {'dec/s':>7s} {'ratio':>6s}")
    for name, m in medians.items():
        total = m["update_s"] + m["acting_s"]
        m["decisions_per_s"] = decisions / total
        m["over_recipe"] = base / total
        print(f"{name:50s} {m['update_s']:8.3f} {m['acting_s']:8.3f} "
              f"{m['decisions_per_s']:7.0f} {m['over_recipe']:5.2f}x")  # fmt: skip
    if json_path:
        record = {"machine": info, "decisions": decisions, "levers": LEVERS, "trials": times,
                  "medians": medians}  # fmt: skip
        json_path.write_text(json.dumps(record, indent=1) + "\n")


#: `--allocator`'s two sides: whether the process keeps freed memory (train.py's default).
ALLOCATORS = {"glibc's adaptive thresholds": False, "--keep-freed-memory": True}


def allocator_child(keep: bool) -> dict[str, float]:
    """One update and its acting after a warm-up update, in this process, with or without
    `--keep-freed-memory`: their seconds, page faults and system seconds."""
    if keep:
        allocator.keep_freed_memory()
    bench_training.resolve_precision(bench_training.RECIPE)
    usage: dict[str, float] = {}
    update, acting = time_lever({}, Batch(bench_training.RECIPE.collect_size), usage)
    return {"update_s": update, "acting_s": acting, **usage,
            "precision": bench_training.RECIPE.precision}  # fmt: skip


def profile_allocators(trials: int, json_path: Path | None, info: dict) -> None:
    """`--allocator`: `ALLOCATORS`' sides, each measurement in a fresh process, interleaved."""
    runs: dict[str, list[dict]] = {name: [] for name in ALLOCATORS}
    for trial in range(trials):
        order = list(ALLOCATORS) if trial % 2 == 0 else list(ALLOCATORS)[::-1]
        for name in order:
            cmd = [sys.executable, __file__, "--allocator-child", str(int(ALLOCATORS[name]))]
            done = subprocess.run(cmd, capture_output=True, text=True, check=True)
            runs[name].append(json.loads(done.stdout.splitlines()[-1]))
            r = runs[name][-1]
            print(f"trial {trial + 1}/{trials}  {name}: update {r['update_s']:.2f} s, "
                  f"{r['page_faults']:,} page faults", flush=True)  # fmt: skip
    decisions = bench_training.RECIPE.collect_size
    medians = {
        name: {
            key: float(np.median([r[key] for r in rs]))
            for key in ("update_s", "acting_s", "page_faults", "system_s")
        }
        for name, rs in runs.items()
    }
    print(f"\n{'allocator':32s} {'update':>8s} {'acting':>8s} {'faults':>10s} {'dec/s':>7s}")
    for name, m in medians.items():
        m["decisions_per_s"] = decisions / (m["update_s"] + m["acting_s"])
        print(f"{name:32s} {m['update_s']:8.3f} {m['acting_s']:8.3f} "
              f"{m['page_faults']:10,.0f} {m['decisions_per_s']:7.0f}")  # fmt: skip
    if json_path:
        record = {"machine": info, "decisions": decisions, "precision": runs[name][0]["precision"],
                  "trials": runs, "medians": medians}  # fmt: skip
        json_path.write_text(json.dumps(record, indent=1) + "\n")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--json", type=Path, help="also write the results here")
    p.add_argument("--levers", action="store_true", help="time the levers instead (LEVERS)")
    p.add_argument(
        "--allocator", action="store_true", help="time --keep-freed-memory instead (ALLOCATORS)"
    )
    p.add_argument("--allocator-child", type=int, choices=(0, 1), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.allocator_child is not None:
        return print(json.dumps(allocator_child(bool(args.allocator_child))))
    info = bench_training.machine_info()
    print_machine_info(info)
    if args.levers:
        return profile_levers(args.trials, args.json, info)
    if args.allocator:
        return profile_allocators(args.trials, args.json, info)
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
