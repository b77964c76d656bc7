"""What every measurement loop shares, so that loops are written the same way for every system:
actions drawn up front from a seeded generator, episodes of at most `EPISODE_STEPS`, a warm-up
run and discarded before the clock runs, and `Skip` for a system that cannot run here."""

from __future__ import annotations

import time
from collections.abc import Callable

EPISODE_STEPS = 1000
CHUNK = 64  # steps between clock reads


class Skip(Exception):
    """Raised by a measurement that cannot run here (reported as skipped, never a failure)."""


def quiet_gym() -> None:
    import gymnasium as gym

    gym.logger.min_level = 40  # EnvPool's spaces warn about float64 bounds at every make


def continuous_actions(shape: tuple[int, ...], seed: int = 0):
    import numpy as np

    rng = np.random.default_rng(seed)
    low = np.array([-1.0, 0.0, 0.0], np.float32)
    high = np.array([1.0, 1.0, 1.0], np.float32)
    return rng.uniform(low, high, size=(*shape, 3)).astype(np.float32)


def timed(step_chunk: Callable[[], int], seconds: float, warmup: float) -> dict[str, float]:
    """Runs `step_chunk` (which returns env steps done) for `warmup` seconds (discarded), then
    for `seconds`; returns steps/s."""

    def run(duration: float) -> tuple[int, float]:
        steps, start = 0, time.perf_counter()
        while True:
            steps += step_chunk()
            elapsed = time.perf_counter() - start
            if elapsed >= duration:
                return steps, elapsed

    if warmup > 0:
        run(warmup)
    steps, elapsed = run(seconds)
    return {"steps_per_s": steps / elapsed, "steps": float(steps), "seconds": elapsed}
