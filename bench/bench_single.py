"""Single-env, single-thread stepping: reinfors-gym beside Gymnasium's CarRacing-v3.

Both run the same loop through `gymnasium.make` (same wrappers), random continuous actions,
the 96x96 frame rendered every step as each env does, resets on episode end. Each system runs
in its own process; trials alternate order; a warm-up is discarded; medians of the trials.

    python bench/bench_single.py [--trials 3] [--seconds 5]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import print_machine_info, run_worker, summarize  # noqa: E402

SYSTEMS = {
    "reinfors-gym": "reinfors/CarRacing-v0",
    "gymnasium": "CarRacing-v3",
}


def worker(system: str, seconds: float, warmup: float) -> dict:
    import gymnasium as gym
    import numpy as np

    if system == "reinfors-gym":
        import reinfors_gym  # noqa: F401  (registers the id)
    env = gym.make(SYSTEMS[system])
    rng = np.random.default_rng(0)
    low, high = env.action_space.low, env.action_space.high
    actions = rng.uniform(low, high, size=(4096, 3)).astype(np.float32)
    env.reset(seed=0)

    def run(duration: float) -> tuple[int, float]:
        steps, start = 0, time.perf_counter()
        while True:
            for a in actions[steps % 4096 : steps % 4096 + 64]:
                _, _, terminated, truncated, _ = env.step(a)
                steps += 1
                if terminated or truncated:
                    env.reset()
            elapsed = time.perf_counter() - start
            if elapsed >= duration:
                return steps, elapsed

    run(warmup)
    steps, elapsed = run(seconds)
    env.close()
    return {"steps_per_s": steps / elapsed, "steps": steps}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.seconds, args.warmup)))
        return

    print_machine_info()
    rates: dict[str, list[float]] = {s: [] for s in SYSTEMS}
    for trial in range(args.trials):
        order = list(SYSTEMS) if trial % 2 == 0 else list(reversed(SYSTEMS))
        for system in order:
            out = run_worker(
                Path(__file__),
                [system, "--seconds", str(args.seconds), "--warmup", str(args.warmup)],
            )
            if "error" in out:
                print(f"  {system}: skipped ({out['error']})")
                continue
            rates[system].append(out["steps_per_s"])
            print(f"  trial {trial + 1} {system:>13}: {out['steps_per_s']:10.1f} steps/s")
    results = {s: summarize(v) for s, v in rates.items() if v}
    print("\nsingle env, single thread, random actions (steps/s, median [min-max] of trials)")
    for system, r in results.items():
        print(f"  {system:>13}: {r['median']:10.1f}  [{r['min']:.1f}-{r['max']:.1f}]")
    if "reinfors-gym" in results and "gymnasium" in results:
        ratio = results["reinfors-gym"]["median"] / results["gymnasium"]["median"]
        print(f"  speed-up over Gymnasium CarRacing-v3: {ratio:.1f}x")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
