"""Where the time of the policy-in-the-loop goes: each phase of the CleanRL-style loop timed
per iteration, beside the policy alone and the env alone, interleaved in one run.

    python bench/profile_policy_loop.py [--envs 8] [--trials 5] [--iters 400] [--json OUT]

Loops (each trial runs them in turn, in a fresh order, after a warm-up):
- `policy alone`: the Nature CNN on a fixed `(envs, 96, 96, 3)` batch (the ceiling);
- `env alone`: `step` with fixed actions, the env's default threads;
- `sync loop`: obs -> policy -> clip -> `step`, with the time of each phase;
- `async loop`: `recv` -> policy -> `send` on `2 x envs` sub-envs, batch `envs`;
- `env alone, caller only` and `sync loop, caller only`: the same with `num_threads=1`, where
  the calling thread steps every sub-env and no helper takes part;
- `env alone, caller only, caches flushed`: that step after a 16 MB write on the caller, which
  evicts the step's data from the caches (as a forward pass also may), with no other thread
  running.

The serial bound of the sync loop is `t_policy / (t_policy + t_step)` from the loops alone: what
a loop that overlaps nothing can reach. The table compares it with what the loop does, and
splits the loop's iteration into its phases, so the difference has names: the step stepped by
the caller alone, hot and after the policy, separates what the policy costs the step itself
(its data evicted) from what it costs the helpers (a core held by PyTorch's workers).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reinfors_gym.benchmarks.harness import print_machine_info  # noqa: E402
from reinfors_gym.benchmarks.provenance import machine_info  # noqa: E402
from reinfors_gym.benchmarks.systems import _nature_cnn_agent  # noqa: E402
from reinfors_gym.car_racing import continuous_action_space  # noqa: E402

#: Bytes written before each step of the flushed loop: more than this machine's L2 and the
#: Nature CNN's weights and activations together.
FLUSH_BYTES = 16 << 20
ACTION_BOX = continuous_action_space()
LOW, HIGH = ACTION_BOX.low, ACTION_BOX.high


def policy_alone(act, envs: int, iters: int) -> dict[str, float]:
    obs = np.random.default_rng(0).integers(0, 256, (envs, 96, 96, 3), dtype=np.uint8)
    times = []
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(iters):
        t = time.perf_counter()
        act(obs)
        times.append(time.perf_counter() - t)
    # Cores of CPU time the policy keeps busy (PyTorch's OpenMP workers spin between kernels).
    cores_busy = (time.process_time() - cpu) / (time.perf_counter() - wall)
    return {"policy_ms": 1e3 * statistics.median(times), "cores_busy": cores_busy}


def env_alone(
    envs: int, iters: int, threads: int | None = None, flush: bool = False
) -> dict[str, float]:
    import reinfors_gym

    env = reinfors_gym.CarRacingVectorEnv(envs, **threads_option(threads))
    env.reset(seed=0)
    a = np.tile([0.0, 0.3, 0.0], (envs, 1))
    scratch = np.zeros(FLUSH_BYTES if flush else 0, dtype=np.uint8)
    times = []
    for _ in range(iters):
        scratch += 1  # nothing without `flush`
        t = time.perf_counter()
        env.step(a)
        times.append(time.perf_counter() - t)
    env.close()
    return {"step_ms": 1e3 * statistics.median(times)}


class Phases:
    """Wall time per named phase of each iteration (medians, in ms) and the loop's rate."""

    def __init__(self) -> None:
        self.times: dict[str, list[float]] = {}
        self.mark = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.times.setdefault(f"{name}_ms", []).append(now - self.mark)
        self.mark = now

    def summary(self, iters: int, envs: int, total: float) -> dict[str, float]:
        out = {k: 1e3 * statistics.median(v) for k, v in self.times.items()}
        out["steps_per_s"] = iters * envs / total
        out["iteration_ms"] = 1e3 * total / iters
        return out


def threads_option(threads: int | None) -> dict[str, int]:
    """The env's `num_threads`, or its default."""
    return {} if threads is None else {"num_threads": threads}


def sync_loop(act, envs: int, iters: int, threads: int | None = None) -> dict[str, float]:
    import reinfors_gym

    env = reinfors_gym.CarRacingVectorEnv(envs, **threads_option(threads))
    obs, _ = env.reset(seed=0)
    start = time.perf_counter()
    phases = Phases()
    for _ in range(iters):
        actions = act(obs)
        phases.lap("policy")
        actions = np.clip(actions, LOW, HIGH)
        phases.lap("clip")
        obs, *_ = env.step(actions)
        phases.lap("step")
    total = time.perf_counter() - start
    env.close()
    return phases.summary(iters, envs, total)


def async_loop(act, envs: int, iters: int) -> dict[str, float]:
    import reinfors_gym

    env = reinfors_gym.CarRacingVectorEnv(2 * envs, batch_size=envs)
    env.async_reset(seed=0)
    start = time.perf_counter()
    phases = Phases()
    for _ in range(iters):
        obs, _, _, _, info = env.recv()
        phases.lap("recv")
        actions = np.clip(act(obs), LOW, HIGH)
        phases.lap("policy")
        env.send(actions, info["env_id"])
        phases.lap("send")
    total = time.perf_counter() - start
    env.close()
    return phases.summary(iters, envs, total)


def step_async_split(envs: int, iters: int) -> dict[str, float]:
    """`step_async` (returns at once) and `step_wait` beside a plain `step`, on `envs`."""
    import reinfors_gym

    env = reinfors_gym.CarRacingVectorEnv(envs)
    env.reset(seed=0)
    a = np.tile([0.0, 0.3, 0.0], (envs, 1))
    split: dict[str, list[float]] = {"step_ms": [], "step_async_ms": [], "step_wait_ms": []}
    for _ in range(iters):
        t0 = time.perf_counter()
        env.step(a)
        t1 = time.perf_counter()
        env.step_async(a)
        t2 = time.perf_counter()
        env.step_wait()
        t3 = time.perf_counter()
        split["step_ms"].append(t1 - t0)
        split["step_async_ms"].append(t2 - t1)
        split["step_wait_ms"].append(t3 - t2)
    env.close()
    return {k: 1e3 * statistics.median(v) for k, v in split.items()}


def step_excess(med: dict[str, dict[str, float]]) -> dict[str, float]:
    """The sync loop's step beside the step alone (the serial bound's), and the two parts of
    the difference: the caller's own step slowed after the policy (no helper involved), and
    the helpers' saving lost in the loop."""
    caller_alone = med["env alone, caller only"]["step_ms"]
    caller_after_policy = med["sync loop, caller only"]["step_ms"]
    alone, in_loop = med["env alone"]["step_ms"], med["sync loop"]["step_ms"]
    return {
        "alone_ms": alone,
        "in_loop_ms": in_loop,
        "caller_alone_ms": caller_alone,
        "flush_mb": FLUSH_BYTES >> 20,
        "caller_flushed_ms": med["env alone, caller only, caches flushed"]["step_ms"],
        "caller_after_policy_ms": caller_after_policy,
        "helpers_save_alone_ms": caller_alone - alone,
        "helpers_save_in_loop_ms": caller_after_policy - in_loop,
    }


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--envs", type=int, default=8, help="sub-envs (the async loop: batch)")
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--iters", type=int, default=400, help="timed iterations per loop")
    p.add_argument("--json", type=Path, help="write the medians here")
    args = p.parse_args()
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    print_machine_info()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    act = _nature_cnn_agent(cores)
    loops = {
        "policy alone": lambda: policy_alone(act, args.envs, args.iters),
        "env alone": lambda: env_alone(args.envs, args.iters),
        "sync loop": lambda: sync_loop(act, args.envs, args.iters),
        "async loop": lambda: async_loop(act, args.envs, args.iters),
        "step_async, 64 envs": lambda: step_async_split(64, args.iters // 4),
        "env alone, caller only": lambda: env_alone(args.envs, args.iters, threads=1),
        "env alone, caller only, caches flushed": lambda: env_alone(
            args.envs, args.iters, threads=1, flush=True
        ),
        "sync loop, caller only": lambda: sync_loop(act, args.envs, args.iters, threads=1),
    }
    for fn in loops.values():  # warm-up, discarded
        fn()
    results: dict[str, list[dict[str, float]]] = {k: [] for k in loops}
    order = list(loops)
    for trial in range(args.trials):
        for name in order[trial % len(order) :] + order[: trial % len(order)]:
            results[name].append(loops[name]())
    med = {
        name: {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        for name, runs in results.items()
    }
    t_policy = med["policy alone"]["policy_ms"]
    t_step = med["env alone"]["step_ms"]
    ceiling = 1e3 * args.envs / t_policy
    summary = {
        "machine": machine_info(),
        "envs": args.envs,
        "trials": args.trials,
        "ceiling_steps_per_s": ceiling,
        "serial_bound": t_policy / (t_policy + t_step),
        "sync_of_ceiling": med["sync loop"]["steps_per_s"] / ceiling,
        "async_of_ceiling": med["async loop"]["steps_per_s"] / ceiling,
        "step_async_of_step_64": med["step_async, 64 envs"]["step_async_ms"]
        / med["step_async, 64 envs"]["step_ms"],
        "step_excess": step_excess(med),
        "loops": med,
    }
    print(
        f"\npolicy alone {t_policy:.3f} ms/batch ({ceiling:,.0f} steps/s, "
        f"{med['policy alone']['cores_busy']:.2f} cores busy), env alone "
        f"{t_step:.3f} ms/step: serial bound {summary['serial_bound']:.3f}"
    )
    for name in ("sync loop", "async loop"):
        m = med[name]
        phases = ", ".join(f"{k[:-3]} {v:.3f} ms" for k, v in m.items() if k.endswith("_ms"))
        print(
            f"{name}: {m['steps_per_s']:,.0f} steps/s = {m['steps_per_s'] / ceiling:.3f} of "
            f"the ceiling; per iteration {phases}"
        )
    x = summary["step_excess"]
    print(
        f"the step in the sync loop: {x['in_loop_ms']:.3f} ms against {x['alone_ms']:.3f} alone; "
        f"the caller stepping alone: {x['caller_after_policy_ms'] - x['caller_alone_ms']:+.3f} ms "
        f"after the policy ({x['caller_flushed_ms'] - x['caller_alone_ms']:+.3f} after a "
        f"{FLUSH_BYTES >> 20} MB write); the helpers save {x['helpers_save_alone_ms']:.3f} ms "
        f"alone and {x['helpers_save_in_loop_ms']:.3f} ms in the loop"
    )
    m = med["step_async, 64 envs"]
    print(
        f"64 envs: step {m['step_ms']:.3f} ms; step_async returns in {m['step_async_ms']:.3f} ms "
        f"({summary['step_async_of_step_64']:.1%} of a step), step_wait {m['step_wait_ms']:.3f} ms"
    )
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main()
