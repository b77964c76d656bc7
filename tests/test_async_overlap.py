"""That asynchronous stepping is asynchronous: work sent earlier progresses while the caller
holds the GIL, `recv` hands over the sub-envs that finished first, and `close` drops queued
work instead of running it.

Each test makes its jobs long with the core's test-only fault (`PoolCore._inject_fault`: every
step of a sub-env first sleeps), so that the behaviour it checks and its absence differ by
hundreds of milliseconds, far beyond a shared machine's noise.
"""

from __future__ import annotations

import gc
import os
import time

import gymnasium as gym
import numpy as np
import pytest

from reinfors_gym import CarRacingVectorEnv


def _slow(env: CarRacingVectorEnv, ids, seconds: float) -> None:
    for i in ids:
        env._pool._inject_fault(i, delay=seconds, fail=False)


def _two_threads(env: CarRacingVectorEnv) -> None:
    if env.num_threads < 2:
        pytest.skip("one core: no helper thread to step in the background")


def _hold_the_gil(seconds: float) -> None:
    """A pure-Python computation: the GIL is held throughout."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_sent_envs_step_while_the_caller_holds_the_gil():
    env = CarRacingVectorEnv(4, batch_size=4, num_threads=2)
    _two_threads(env)
    env.reset(seed=0)
    _slow(env, range(4), 0.2)  # 0.8 s of jobs for the one helper, 0.4 s for two threads
    env.send(np.zeros((4, 3)), np.arange(4))
    _hold_the_gil(2.0)
    start = time.perf_counter()
    obs, *_, info = env.recv()
    took = time.perf_counter() - start
    # Stepped in the background: recv only collects. Had it stepped them, >= 0.4 s.
    assert took < 0.2, f"recv took {took:.3f} s: the sub-envs did not step in the background"
    assert info["env_id"].tolist() == [0, 1, 2, 3]
    env.close()


def test_step_async_steps_while_the_caller_holds_the_gil():
    env = CarRacingVectorEnv(4, num_threads=2)
    _two_threads(env)
    env.reset(seed=0)
    _slow(env, range(4), 0.2)
    env.step_async(np.zeros((4, 3)))
    _hold_the_gil(2.0)
    start = time.perf_counter()
    env.step_wait()
    took = time.perf_counter() - start
    assert took < 0.2, f"step_wait took {took:.3f} s: nothing stepped in the background"
    env.close()


def test_recv_returns_the_envs_that_finished_first():
    env = CarRacingVectorEnv(8, batch_size=4, num_threads=2)
    _two_threads(env)
    env.reset(seed=0)
    _slow(env, [0], 0.5)
    env.send(np.zeros((8, 3)), np.arange(8))
    # Whichever thread takes sub-env 0 first is held 0.5 s; the other steps the rest.
    *_, info = env.recv()
    assert info["env_id"].tolist() == [1, 2, 3, 4]
    *_, info = env.recv()
    assert info["env_id"].tolist() == [0, 5, 6, 7]
    env.close()


def _worker_threads() -> int:
    """Threads of this process named as the pools name theirs."""
    count = 0
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as f:
                count += f.read().startswith("reinfors-gym")
        except FileNotFoundError:  # ended while we looked
            pass
    return count


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_close_with_long_jobs_queued_drops_them_and_leaves_no_thread():
    gc.collect()  # pools dropped by earlier tests join their threads now
    baseline = _worker_threads()
    env = CarRacingVectorEnv(64, batch_size=8, num_threads=2)
    env.reset(seed=0)
    assert _worker_threads() == baseline + env.num_threads - 1
    _slow(env, range(64), 0.1)  # running them all: 64 x 0.1 s / 2 threads = 3.2 s
    env.send(np.zeros((64, 3)), np.arange(64))
    time.sleep(0.05)  # the helper is inside its first job
    start = time.perf_counter()
    env.close()
    took = time.perf_counter() - start
    assert took < 1.0, f"close took {took:.2f} s: it ran the queued jobs"
    assert _worker_threads() == baseline
    with pytest.raises(gym.error.ClosedEnvironmentError):
        env.recv()
