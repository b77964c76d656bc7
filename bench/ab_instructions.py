"""A/B of two builds of reinfors-gym by instructions executed per env step (valgrind's
callgrind): a count that a busy machine does not move. It still moves by about a percent between
runs (allocation addresses), where wall-clock trials on this machine move by a quarter.

    python bench/ab_instructions.py --a /path/to/old/checkout --b . [--steps 4096]

Each side is a directory holding a `reinfors_gym` package with its built extension (as for
bench/bench_ab.py). For each loop and side, the loop runs twice in a fresh interpreter under
callgrind, with no steps and with `--steps` steps; the difference over the steps is the cost of
a step (start-up and imports cancel), the median of `--repeats` such pairs. Loops: the single
env through `gym.make`, and the vector env's tight loop at 8 and 64 envs on 1 thread (per env
step). Threads do not change the count, so this measures work, not parallel speed:
bench/bench_ab.py measures that.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

LOOP = """
import sys, numpy as np, gymnasium as gym
import reinfors_gym
steps, kind = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(0)
actions = np.stack([rng.uniform(-1, 1, steps), rng.uniform(0, 1, steps),
                    rng.uniform(0, 0.2, steps)], 1).astype(np.float32)
if kind == "single":
    env = gym.make("reinfors/CarRacing-v0")
    env.reset(seed=0)
    for a in actions:
        _, _, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            env.reset()
else:
    num_envs = int(kind.removeprefix("vector"))
    envs = gym.make_vec("reinfors/CarRacing-v0", num_envs=num_envs, num_threads=1)
    envs.reset(seed=0)
    for i in range(steps // num_envs):
        envs.step(np.repeat(actions[i : i + 1], num_envs, 0))
"""
LOOPS = {
    "single env, gym.make": "single",
    "vector, 8 envs, 1 thread": "vector8",
    "vector, 64 envs, 1 thread": "vector64",
}
COLLECTED = re.compile(r"Collected : (\d+)")


def instructions(side: Path, steps: int, kind: str) -> int:
    """Instructions callgrind counts for the loop at `steps` steps, `side` first on the path."""
    # A fixed hash seed: string hashing (dict layouts) changes the count from run to run.
    env = {**os.environ, "PYTHONPATH": str(side.resolve()), "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         sys.executable, "-c", LOOP, str(steps), kind],
        capture_output=True, text=True, env=env, cwd="/", check=True,
    )  # fmt: skip
    match = COLLECTED.search(done.stderr)
    if match is None:
        raise RuntimeError(f"callgrind printed no count:\n{done.stderr[-2000:]}")
    return int(match.group(1))


def per_step(side: Path, steps: int, kind: str, repeats: int) -> float:
    """The median over `repeats` of the loop's instructions per step (allocation addresses
    still move a count by a fraction of a percent between runs)."""
    return statistics.median(
        (instructions(side, steps, kind) - instructions(side, 0, kind)) / steps
        for _ in range(repeats)
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--a", type=Path, required=True, help="the base checkout (A)")
    p.add_argument("--b", type=Path, default=Path("."), help="the changed checkout (B)")
    p.add_argument("--steps", type=int, default=4096, help="env steps per loop (a multiple of 64)")
    p.add_argument("--repeats", type=int, default=3, help="runs per side and loop (median)")
    args = p.parse_args(argv)
    if shutil.which("valgrind") is None:
        p.error("valgrind is not installed (Debian: apt-get install valgrind)")
    print(f"{'loop':28} {'A instr/step':>14} {'B instr/step':>14} {'B/A':>7}")
    for name, kind in LOOPS.items():
        a, b = (per_step(side, args.steps, kind, args.repeats) for side in (args.a, args.b))
        print(f"{name:28} {a:14,.0f} {b:14,.0f} {b / a:7.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
