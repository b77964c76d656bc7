"""Vector stepping: CarRacingVectorEnv beside Gymnasium's AsyncVectorEnv (and EnvPool when
installed) at equal env and thread counts, our scaling over threads, and resident memory.

Each measurement runs in its own process; trials alternate order; warm-up is discarded;
medians of the trials are reported.

    python bench/bench_vector.py [--trials 3] [--seconds 4] [--num-envs 8]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import print_machine_info, run_worker, summarize  # noqa: E402


def rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def make_env(system: str, num_envs: int, threads: int):
    import gymnasium as gym

    if system == "reinfors-gym":
        import reinfors_gym

        return reinfors_gym.CarRacingVectorEnv(num_envs, num_threads=threads)
    if system == "gymnasium-async":
        return gym.make_vec("CarRacing-v3", num_envs=num_envs, vectorization_mode="async")
    if system == "envpool":
        import envpool  # optional

        return envpool.make_gymnasium(
            "CarRacing-v3", num_envs=num_envs, num_threads=threads, batch_size=num_envs
        )
    raise ValueError(system)


def worker_speed(system: str, num_envs: int, threads: int, seconds: float, warmup: float) -> dict:
    import numpy as np

    env = make_env(system, num_envs, threads)
    rng = np.random.default_rng(0)
    actions = rng.uniform([-1, 0, 0], [1, 1, 1], size=(256, num_envs, 3)).astype(np.float32)
    env.reset(seed=0)

    def run(duration: float) -> tuple[int, float]:
        steps, start = 0, time.perf_counter()
        while True:
            for a in actions[:32]:
                env.step(a)
                steps += num_envs
            elapsed = time.perf_counter() - start
            if elapsed >= duration:
                return steps, elapsed

    run(warmup)
    steps, elapsed = run(seconds)
    env.close()
    return {"steps_per_s": steps / elapsed}


def worker_memory(num_envs: int) -> dict:
    import reinfors_gym

    before = rss_bytes()
    env = reinfors_gym.CarRacingVectorEnv(num_envs, num_threads=1, copy=False)
    obs, _ = env.reset(seed=0)
    for _ in range(20):
        env.step(env.action_space.sample())
    after = rss_bytes()
    # The observation batch and the final_obs buffer are the caller-facing buffers.
    buffers = 2 * obs.nbytes
    return {
        "rss_delta": after - before,
        "buffers": buffers,
        "per_env_beyond_buffers": (after - before - buffers) / num_envs,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker == "memory":
        print(json.dumps(worker_memory(args.num_envs)))
        return
    if args.worker:
        print(
            json.dumps(
                worker_speed(args.worker, args.num_envs, args.threads, args.seconds, args.warmup)
            )
        )
        return

    print_machine_info()
    cores = os.cpu_count() or 1
    n = args.num_envs
    configs = [("reinfors-gym", t) for t in range(1, cores + 1)]
    configs += [("gymnasium-async", cores), ("envpool", cores)]
    rates: dict[str, list[float]] = {}
    skipped: dict[str, str] = {}
    for trial in range(args.trials):
        order = configs if trial % 2 == 0 else list(reversed(configs))
        for system, threads in order:
            key = f"{system} threads={threads}"
            if key in skipped:
                continue
            out = run_worker(
                Path(__file__),
                [
                    system,
                    "--num-envs",
                    str(n),
                    "--threads",
                    str(threads),
                    "--seconds",
                    str(args.seconds),
                    "--warmup",
                    str(args.warmup),
                ],
            )
            if "error" in out:
                skipped[key] = out["error"]
                print(f"  {key}: skipped ({out['error']})")
                continue
            rates.setdefault(key, []).append(out["steps_per_s"])
            print(f"  trial {trial + 1} {key:>28}: {out['steps_per_s']:10.1f} steps/s")

    results = {k: summarize(v) for k, v in rates.items()}
    print(f"\n{n} envs, random actions (env steps/s, median [min-max] of {args.trials} trials)")
    for key, r in results.items():
        print(f"  {key:>28}: {r['median']:10.1f}  [{r['min']:.1f}-{r['max']:.1f}]")
    ours1 = results.get("reinfors-gym threads=1", {}).get("median")
    oursall = results.get(f"reinfors-gym threads={cores}", {}).get("median")
    async_ = results.get(f"gymnasium-async threads={cores}", {}).get("median")
    if ours1 and oursall:
        print(f"  scaling 1 -> {cores} threads: {oursall / ours1:.2f}x")
    if oursall and async_:
        print(
            f"  reinfors-gym vs AsyncVectorEnv ({n} envs, {cores} cores): {oursall / async_:.1f}x"
        )

    print("\nresident memory of CarRacingVectorEnv (fresh process each)")
    memory = {}
    for envs in (16, 64, 256):
        out = run_worker(Path(__file__), ["memory", "--num-envs", str(envs)])
        memory[envs] = out
        print(
            f"  {envs:4d} envs: RSS +{out['rss_delta'] / 2**20:7.1f} MiB, obs buffers "
            f"{out['buffers'] / 2**20:6.1f} MiB, per env beyond buffers "
            f"{out['per_env_beyond_buffers'] / 2**20:.3f} MiB"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"speed": results, "memory": memory}, indent=2))


if __name__ == "__main__":
    main()
