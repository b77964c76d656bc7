"""One asynchronous loop with a device-like policy, timed for bench/bench_ab.py: the same loop
code for both builds (this file imports nothing of the checkout it lives in).

    PYTHONPATH=SIDE python bench/async_probe.py LOOP '{"seconds": 3, "warmup": 1}'

LOOP is `async` (16 envs, `recv` 8, policy, `send`) or `sync` (8 envs: policy, `step`); the
policy holds the loop 2 ms without a core (a sleep). Prints one JSON line: env steps/s, and the
calling thread's CPU time per iteration outside the policy (`caller_cpu_us`: what `recv` and
`send`, or `step`, cost the caller; CPU time, so the waits of a busy machine do not count).
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

NUM_ENVS, BATCH, POLICY_S = 16, 8, 0.002


def main() -> None:
    import reinfors_gym

    loop, params = sys.argv[1], json.loads(sys.argv[2])
    actions = np.tile(np.array([0.0, 0.5, 0.0], np.float32), (BATCH, 1))
    cpu = time.thread_time
    if loop == "async":
        env = reinfors_gym.CarRacingVectorEnv(NUM_ENVS, batch_size=BATCH)
        env.async_reset(seed=0)

        def iteration() -> float:
            c0 = cpu()
            _, _, _, _, info = env.recv()
            c1 = cpu()
            time.sleep(POLICY_S)
            c2 = cpu()
            env.send(actions, info["env_id"])
            return (c1 - c0) + (cpu() - c2)

    elif loop == "sync":
        env = reinfors_gym.CarRacingVectorEnv(BATCH)
        env.reset(seed=0)
        a64 = actions.astype(np.float64)

        def iteration() -> float:
            time.sleep(POLICY_S)
            c0 = cpu()
            env.step(a64)
            return cpu() - c0

    else:
        raise SystemExit(f"no loop {loop!r}")

    def run(duration: float) -> tuple[int, float, list[float]]:
        costs = []
        start = time.perf_counter()
        while time.perf_counter() - start < duration:
            costs.append(iteration())
        return len(costs), time.perf_counter() - start, costs

    run(params.get("warmup", 1.0))
    n, elapsed, costs = run(params.get("seconds", 3.0))
    env.close()
    costs.sort()
    print(
        json.dumps(
            {"steps_per_s": n * BATCH / elapsed, "caller_cpu_us": 1e6 * costs[len(costs) // 2]}
        )
    )


if __name__ == "__main__":
    main()
