"""No thread spins while nothing is asked of it: a live vector env after some steps, and an
Engine stream whose queue is full, use next to no CPU while the caller sleeps. (A helper thread
busy-waiting between steps costs a whole core: ~2 s of CPU in these 2 s.)

The executor's helpers join a step only when its pacer says so, and it says so for certain only
in its opening burst: the first `OPENING_STEPS` steps after construction run with every helper
(later it times both ways and may step alone, e.g. on a loaded machine). So each check idles
right after such steps, where a helper that failed to go to sleep would be caught whatever the
timings; the vector env is checked again after a long back-to-back burst."""

from __future__ import annotations

import threading
import time

import gymnasium as gym
import numpy as np

import reinfors_gym as rf

IDLE_SECONDS = 2.0
MAX_IDLE_CPU = 0.2  # seconds of process CPU over IDLE_SECONDS: a tenth of one core
OPENING_STEPS = 3  # within the pacer's first burst with helpers (rust/src/runtime/pacing.rs)


def cpu_while_idle() -> float:
    """Process CPU time (every thread) spent while this thread sleeps IDLE_SECONDS."""
    start = time.process_time()
    time.sleep(IDLE_SECONDS)  # the idle interval measured, not a synchronisation
    return time.process_time() - start


def test_a_live_vector_env_is_idle_between_steps():
    envs = gym.make_vec(rf.ENV_ID, num_envs=8, num_threads=2)
    try:
        envs.reset(seed=0)
        actions = np.tile(np.array([0.0, 0.5, 0.0], np.float32), (8, 1))
        for steps in (OPENING_STEPS, 200):  # then back to back: helpers poll between steps
            for _ in range(steps):
                envs.step(actions)
            used = cpu_while_idle()
            assert used < MAX_IDLE_CPU, f"{used:.2f} s of CPU in {IDLE_SECONDS} s idle"
    finally:
        envs.close()


def test_a_live_engine_stream_with_a_full_queue_is_idle():
    steps, n_games = OPENING_STEPS, 4
    calls = 0
    first_batch_inferred = threading.Event()

    def infer(obs):
        nonlocal calls
        calls += 1
        if calls == steps + 1:  # the bootstrap values of the first batch: it is complete
            first_batch_inferred.set()
        n = len(obs)
        return np.tile([0.0, 0.5, 0.0, -1.0, -1.0, -1.0], (n, 1)), np.zeros(n)

    engine = rf.Engine(n_games=n_games, n_threads=2, seed=0)
    # depth=1 and nobody consuming: after one batch the producer waits for room in the queue.
    with engine.collect_stream(collect_size=n_games * steps, infer=infer, depth=1) as stream:
        assert first_batch_inferred.wait(timeout=120)
        used = cpu_while_idle()
        assert used < MAX_IDLE_CPU, f"{used:.2f} s of CPU in {IDLE_SECONDS} s idle"
        assert calls == steps + 1, "the producer collected past a full queue"
        assert next(stream).obs.shape == (steps, n_games, 96, 96, 3)
