"""Soak test: millions of steps through gym.make and gym.make_vec, watching the process RSS.

    python bench/soak.py [--steps 10000000] [--num-envs 8] [--out bench/soak_results.json]

Each run (single env, vector env) is a fresh subprocess, so neither inherits the other's heap.
The loops touch what could leak over a long run: seeded resets, the info dicts, the fresh
observation arrays (copy=True, the default) and an occasional render(). Actions are drawn up
front so the loop is mostly env time. RSS (VmRSS) is sampled every --sample-every env steps;
the verdict compares the RSS at 10% of the run (1M of 10M) with the RSS at the end.
Not a CI test: 10M + 10M steps take minutes. `--steps 20000` is a quick check.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ENV_ID = "reinfors/CarRacing-v0"
RUNS = ("single", "vector")
# Enough distinct actions that the cycle does not line up with the 1000-step episodes.
N_ACTIONS = 1 << 16


def rss_kib() -> tuple[int, int]:
    """(current, peak) resident set size in KiB: /proc first, psutil where there is no /proc."""
    try:
        fields = dict(
            line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines()
        )
        return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])
    except (OSError, KeyError):
        import psutil  # only off Linux; not a dependency

        info = psutil.Process().memory_info()
        peak = getattr(info, "peak_wset", info.rss)  # Windows keeps a peak; others do not
        return info.rss // 1024, peak // 1024


def random_actions(seed: int, rows: int, num_envs: int | None) -> list[Any]:
    """Pre-drawn continuous actions, split into per-step arrays (one list index per step).

    Mostly gas with random steering and light braking, so the car moves: tiles get visited,
    some episodes leave the playfield (terminated) and the rest run to the 1000-step limit.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    shape = (rows, 3) if num_envs is None else (rows, num_envs, 3)
    # float64 is what the vector env's core takes (no per-step conversion); the single env
    # takes float32 too, the dtype of its action_space.sample().
    acts = np.empty(shape, np.float32 if num_envs is None else np.float64)
    acts[..., 0] = rng.uniform(-1.0, 1.0, shape[:-1])
    acts[..., 1] = rng.uniform(0.0, 1.0, shape[:-1])
    acts[..., 2] = rng.uniform(0.0, 1.0, shape[:-1]) * (rng.random(shape[:-1]) < 0.1)
    return list(acts)


class Recorder:
    """Steps done, wall time and RSS at each checkpoint, with a progress line on stderr."""

    def __init__(self, name: str, steps: int, checkpoints: set[int]):
        self.name, self.steps, self.checkpoints = name, steps, checkpoints
        self.t0 = time.perf_counter()
        rss, _ = rss_kib()
        self.samples: list[dict[str, Any]] = [{"steps": 0, "elapsed_s": 0.0, "rss_kib": rss}]

    def at(self, done: int) -> None:
        if done not in self.checkpoints:
            return
        elapsed = time.perf_counter() - self.t0
        rss, _ = rss_kib()
        self.samples.append({"steps": done, "elapsed_s": round(elapsed, 3), "rss_kib": rss})
        print(
            f"  {self.name}: {done:>11,} steps  RSS {rss / 1024:7.1f} MiB  "
            f"{done / elapsed:9,.0f} steps/s",
            file=sys.stderr,
            flush=True,
        )


def soak_single(args: argparse.Namespace, checkpoints: set[int]) -> dict[str, Any]:
    import gymnasium as gym

    import reinfors_gym  # noqa: F401 - registers the id

    env = gym.make(ENV_ID, render_mode="rgb_array")
    step, reset = env.step, env.reset
    actions = itertools.cycle(random_actions(args.seed, N_ACTIONS, None))
    episodes = terminated_n = truncated_n = laps = renders = 0
    seed = args.seed
    obs, info = reset(seed=seed)
    block = args.block
    rec = Recorder("single", args.steps, checkpoints)
    done = 0
    while done < args.steps:
        for action in itertools.islice(actions, block):
            obs, reward, terminated, truncated, info = step(action)
            if info:  # {"lap_finished": ...} on the step a lap completes
                laps += 1
            if terminated or truncated:
                terminated_n += terminated
                truncated_n += truncated
                episodes += 1
                # A new seed per episode: a new track each time, as a long training run sees.
                obs, info = reset(seed=seed + episodes)
        done += block
        if args.render_every > 0 and done % args.render_every == 0:
            frame = env.render()
            assert frame is not None and frame.shape == (400, 600, 3), "render() failed"
            renders += 1
        rec.at(done)
    env.close()
    return {
        "make": f'gym.make("{ENV_ID}", render_mode="rgb_array")',
        "num_envs": 1,
        "episodes": episodes,
        "terminated": terminated_n,
        "truncated": truncated_n,
        "lap_infos": laps,
        "seeded_resets": episodes + 1,
        "renders": renders,
        "samples": rec.samples,
    }


def soak_vector(args: argparse.Namespace, checkpoints: set[int]) -> dict[str, Any]:
    import gymnasium as gym
    import numpy as np

    import reinfors_gym  # noqa: F401 - registers the id

    n = args.num_envs
    env = gym.make_vec(
        ENV_ID, num_envs=n, render_mode="rgb_array", autoreset_mode=args.autoreset_mode
    )
    step = env.step
    actions = itertools.cycle(random_actions(args.seed, N_ACTIONS // n, n))
    finished = infos_n = renders = 0
    seeded_resets = 1
    obs, info = env.reset(seed=args.seed)
    block = args.block
    batches = block // n
    rec = Recorder("vector", args.steps, checkpoints)
    done = 0
    while done < args.steps:
        for action in itertools.islice(actions, batches):
            obs, rewards, terminated, truncated, info = step(action)
            if info:  # lap infos (next_step) or final_obs/final_info (same_step)
                infos_n += 1
            if terminated.any() or truncated.any():
                finished += int(np.count_nonzero(terminated | truncated))
        done += block
        if args.reset_every > 0 and done % args.reset_every == 0:
            # Seeded resets of every sub-env, between the autoresets the env does itself.
            obs, info = env.reset(seed=args.seed + seeded_resets)
            seeded_resets += 1
        if args.render_every > 0 and done % args.render_every == 0:
            frames = env.render()
            assert frames is not None and len(frames) == n, "render() failed"
            renders += 1
        rec.at(done)
    num_threads = getattr(env, "num_threads", None)
    env.close()
    return {
        "make": (
            f'gym.make_vec("{ENV_ID}", num_envs={n}, render_mode="rgb_array", '
            f'autoreset_mode="{args.autoreset_mode}")'
        ),
        "num_envs": n,
        "num_threads": num_threads,
        "autoreset_mode": args.autoreset_mode,
        "batches": args.steps // n,
        "episodes_finished": finished,
        "non_empty_infos": infos_n,
        "seeded_resets": seeded_resets,
        "renders": renders,
        "samples": rec.samples,
    }


def child(args: argparse.Namespace) -> None:
    """One run in this process; its result goes to stdout as one JSON line."""
    ref = reference_step(args.steps, args.block)
    checkpoints = set(range(args.sample_every, args.steps + 1, args.sample_every))
    checkpoints |= {ref, args.steps}
    run = soak_single if args.child == "single" else soak_vector
    t0 = time.perf_counter()
    result = run(args, checkpoints)
    wall = time.perf_counter() - t0
    _, peak = rss_kib()
    result.update(steps=args.steps, wall_s=round(wall, 2), steps_per_s=round(args.steps / wall))
    result["peak_rss_kib"] = peak
    print(json.dumps(result), flush=True)


def reference_step(steps: int, block: int) -> int:
    """The early checkpoint the end is compared with: 10% of the run (1M of 10M)."""
    return max(block, steps // 10 // block * block)


def verdict(result: dict[str, Any], ref: int, tolerance: float) -> None:
    by_step = {s["steps"]: s["rss_kib"] for s in result["samples"]}
    start, end = by_step[ref], by_step[result["steps"]]
    change = (end - start) / start
    later = [s["rss_kib"] for s in result["samples"] if s["steps"] >= ref]
    result.update(
        rss_ref_steps=ref,
        rss_ref_kib=start,
        rss_end_kib=end,
        rss_change_pct=round(100 * change, 2),
        rss_max_after_ref_kib=max(later),
        within_tolerance=abs(change) <= tolerance,
    )


def git(*cmd: str) -> str:
    try:
        out = subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip()


def machine_info() -> dict[str, Any]:
    import gymnasium
    import numpy

    import reinfors_gym

    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem = Path("/proc/meminfo").read_text().splitlines()[0].split()[1]
        mem_gib: float | None = round(int(mem) / 1024**2, 1)
    except OSError:
        mem_gib = None
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    # Other work may be in progress in the checkout: say so beside the commit.
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return {
        "cpu": cpu,
        "logical_cores": os.cpu_count(),
        "usable_cores": usable,
        "memory_gib": mem_gib,
        "os": platform.platform(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "gymnasium": gymnasium.__version__,
        "reinfors_gym": reinfors_gym.__version__,
        "commit": git("rev-parse", "HEAD"),
        "tracked_changes": bool(dirty) if dirty != "unknown" else None,
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=10_000_000, help="env steps per run")
    p.add_argument("--num-envs", type=int, default=8, help="vector env size")
    p.add_argument("--runs", default=",".join(RUNS), help="comma list of: single, vector")
    p.add_argument("--autoreset-mode", default="next_step", choices=["next_step", "same_step"])
    p.add_argument("--sample-every", type=int, default=250_000, help="env steps between RSS")
    p.add_argument(
        "--render-every", type=int, default=50_000, help="env steps between renders (0: none)"
    )
    p.add_argument(
        "--reset-every",
        type=int,
        default=100_000,
        help="vector: env steps between seeded resets (0: none)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tolerance", type=float, default=0.05, help="allowed RSS change, 1M->10M")
    p.add_argument("--out", type=Path, help="write the results JSON here")
    p.add_argument("--child", choices=RUNS, help=argparse.SUPPRESS)
    p.add_argument("--block", type=int, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    runs = tuple(r.strip() for r in args.runs.split(",") if r.strip())
    if not runs or any(r not in RUNS for r in runs):
        p.error(f"--runs takes a comma list of {RUNS}, got {args.runs!r}")
    args.runs = runs
    if args.num_envs < 1:
        p.error("--num-envs must be positive")
    # Checks happen between blocks of env steps (whole batches for the vector env), so every
    # count is rounded to a block; short runs still sample ten times and render and reset.
    if args.block is None:
        args.block = math.lcm(1000, args.num_envs)
    b = args.block

    def align(x: int) -> int:
        return max(b, x // b * b)

    args.steps = align(args.steps)
    args.sample_every = align(min(args.sample_every, args.steps // 10))
    # 0 turns renders or seeded resets off (to find what an RSS growth comes from).
    if args.render_every > 0:
        args.render_every = align(min(args.render_every, args.steps // 4))
    if args.reset_every > 0:
        args.reset_every = align(min(args.reset_every, args.steps // 4))
    return args


def forward(args: argparse.Namespace, run: str) -> list[str]:
    return [
        sys.executable,
        str(Path(__file__).resolve()),
        f"--child={run}",
        f"--steps={args.steps}",
        f"--num-envs={args.num_envs}",
        f"--autoreset-mode={args.autoreset_mode}",
        f"--sample-every={args.sample_every}",
        f"--render-every={args.render_every}",
        f"--reset-every={args.reset_every}",
        f"--seed={args.seed}",
        f"--block={args.block}",
    ]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        child(args)
        return 0
    machine = machine_info()
    print("machine:", ", ".join(f"{k}={v}" for k, v in machine.items()), flush=True)
    ref = reference_step(args.steps, args.block)
    results: dict[str, Any] = {}
    for run in args.runs:
        print(f"{run}: {args.steps:,} env steps", flush=True)
        # A fresh interpreter per run: RSS then belongs to that run alone.
        proc = subprocess.run(forward(args, run), stdout=subprocess.PIPE, text=True, check=True)
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        verdict(result, ref, args.tolerance)
        results[run] = result
    print(f"\nRSS at {ref:,} vs {args.steps:,} steps (tolerance {args.tolerance:.0%}):")
    for run, r in results.items():
        print(
            f"  {run:<6} {r['rss_ref_kib'] / 1024:7.1f} -> {r['rss_end_kib'] / 1024:7.1f} MiB "
            f"({r['rss_change_pct']:+.2f}%), peak {r['peak_rss_kib'] / 1024:.1f} MiB, "
            f"{r['steps_per_s']:,} steps/s: {'PASS' if r['within_tolerance'] else 'FAIL'}"
        )
    ok = all(r["within_tolerance"] for r in results.values())
    if args.out:
        out = {
            "command": " ".join(["python", "bench/soak.py", *(argv or sys.argv[1:])]),
            "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "machine": machine,
            "config": {
                k: getattr(args, k)
                for k in (
                    "steps",
                    "num_envs",
                    "autoreset_mode",
                    "sample_every",
                    "render_every",
                    "reset_every",
                    "seed",
                    "tolerance",
                )
            },
            "criterion": f"|RSS(end) - RSS({ref})| <= {args.tolerance:.0%} of RSS({ref})",
            "pass": ok,
            "runs": results,
        }
        args.out.write_text(json.dumps(out, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
