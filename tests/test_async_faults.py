"""The asynchronous API's corners: a failed job, a refused call, an accessor while sub-envs are
in flight, a deadline. Each test names the fault it guards against (issue 34) and fails
without its fix.

Failing jobs come from the core's test-only fault (`PoolCore._inject_fault`: every later step
of a sub-env panics, as a bug in the simulation would).
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from reinfors_gym import CarRacingVectorEnv
from reinfors_gym.errors import AsyncOrderError, ResetNeeded


def _failing(env: CarRacingVectorEnv, i: int) -> None:
    env._pool._inject_fault(i, delay=0.0, fail=True)


def _healed(env: CarRacingVectorEnv, i: int) -> None:
    env._pool._inject_fault(i, delay=0.0, fail=False)


def _mask(n: int, *ids: int) -> np.ndarray:
    mask = np.zeros(n, np.bool_)
    mask[list(ids)] = True
    return mask


def test_a_failed_recv_leaves_the_flight_state_true():
    """Fault: after a failed `recv`, the batch's ids stayed marked as flying in Python for
    good, and `send` refused sub-envs the core held idle."""
    env = CarRacingVectorEnv(8, batch_size=4, num_threads=1)
    env.reset(seed=0)
    _failing(env, 2)
    env.send(np.zeros((8, 3)), np.arange(8))
    # One thread: the caller steps 0, 1, 2 (fails) and 3 inside recv.
    with pytest.raises(RuntimeError, match="sub-env 2's job failed"):
        env.recv()
    assert env._pool.in_flight == 7, "only the failed sub-env came back"
    received = []
    while env._pool.in_flight >= 4:
        *_, info = env.recv()
        received += info["env_id"].tolist()
    assert received == [0, 1, 3, 4]
    # What the core holds idle can be sent; the failed sub-env after a reset.
    env.send(np.zeros((4, 3)), np.array([0, 1, 3, 4]))
    with pytest.raises(ResetNeeded, match="sub-env 2 was interrupted"):
        env.send(np.zeros((1, 3)), np.array([2]))
    _healed(env, 2)
    env.async_reset(options={"reset_mask": _mask(8, 2)})
    seen = []
    while env._pool.in_flight >= 4:
        *_, info = env.recv()
        seen += info["env_id"].tolist()
    assert sorted(seen) == [0, 1, 2, 3, 4, 5, 6, 7]
    env.close()


def test_a_failed_job_loses_no_other_result():
    """Fault: when one job of a batch failed, `recv` dropped the other sub-envs' results, and
    a finished episode was then silently reset at the next `send`."""
    # Every step truncates: a dropped result is a dropped episode end.
    env = CarRacingVectorEnv(4, batch_size=4, num_threads=1, max_episode_steps=1)
    env.reset(seed=0)
    _failing(env, 1)
    env.send(np.zeros((4, 3)), np.arange(4))
    with pytest.raises(RuntimeError, match="sub-env 1's job failed"):
        env.recv()
    _healed(env, 1)
    env.async_reset(options={"reset_mask": _mask(4, 1)})
    _, reward, terminated, truncated, info = env.recv()
    assert info["env_id"].tolist() == [0, 1, 2, 3]
    assert truncated.tolist() == [True, False, True, True], "each episode end arrives"
    assert not terminated.any() and reward[1] == 0.0
    # The next step resets 0, 2 and 3 (NEXT_STEP) after their ends were seen.
    env.send(np.zeros((4, 3)), np.arange(4))
    _, reward, _, truncated, _ = env.recv()
    assert truncated.tolist() == [False, True, False, False]
    assert reward[[0, 2, 3]].tolist() == [0.0, 0.0, 0.0]
    env.close()


def test_a_failed_step_wait_needs_a_reset_and_then_steps():
    env = CarRacingVectorEnv(3, num_threads=1)
    env.reset(seed=0)
    _failing(env, 0)
    env.step_async(np.zeros((3, 3)))
    with pytest.raises(RuntimeError, match="sub-env 0's job failed"):
        env.step_wait()
    assert env._pool.in_flight == 0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros((3, 3)))
    _healed(env, 0)
    env.reset(seed=0)
    env.step(np.zeros((3, 3)))
    env.close()


def test_a_refused_step_with_env_ids_moves_nothing():
    """Fault: `step(actions, env_id)` with fewer sub-envs than a batch sent them before it
    raised `AsyncOrderError`, leaving them in flight."""
    env = CarRacingVectorEnv(4, batch_size=4)
    env.reset(seed=0)
    with pytest.raises(AsyncOrderError, match="batch_size=4"):
        env.step(np.zeros((2, 3)), env_id=np.array([0, 1]))
    assert env._pool.in_flight == 0
    env.send(np.zeros((4, 3)), np.arange(4))  # nothing of the refused step is in flight
    *_, info = env.recv()
    assert info["env_id"].tolist() == [0, 1, 2, 3]
    env.close()


@pytest.mark.parametrize(
    "access",
    [
        lambda env: env.set_attr("lap_complete_percent", 0.5),
        lambda env: env.get_attr("tile_visited_count"),
        lambda env: env.call("car_state"),
        lambda env: env.render(),
    ],
    ids=["set_attr", "get_attr", "call", "render"],
)
def test_accessors_refuse_while_sub_envs_are_in_flight(access):
    """Fault: `get_attr`/`set_attr`/`call`/`render` checked only a pending `step_async`, not
    sub-envs in flight through `send`: a `set_attr` could race a queued reset."""
    env = CarRacingVectorEnv(4, batch_size=2, render_mode="state_pixels")
    env.reset(seed=0)
    env.async_reset(seed=1, options={"reset_mask": _mask(4, 0, 1)})
    with pytest.raises(AsyncOrderError, match="in flight"):
        access(env)
    env.recv()
    assert env.get_attr("lap_complete_percent") == (0.95,) * 4, "the refused write changed nothing"
    access(env)  # at rest, it works
    env.close()


def test_recv_honours_its_deadline():
    """Fault: `recv(timeout)` checked its deadline only when the queue was empty, so the caller
    stepped every queued job first."""
    env = CarRacingVectorEnv(8, batch_size=8, num_threads=1)
    env.reset(seed=0)
    for i in range(8):
        env._pool._inject_fault(i, delay=0.05, fail=False)
    env.send(np.zeros((8, 3)), np.arange(8))
    start = time.perf_counter()
    with pytest.raises(TimeoutError):
        env.recv(timeout=0.06)
    took = time.perf_counter() - start
    # The job running at the deadline may finish; all eight would take 0.4 s.
    assert took < 0.25, f"recv(timeout=0.06) returned after {took:.2f} s"
    assert env._pool.in_flight == 8, "a timeout leaves the work in flight"
    *_, info = env.recv()
    assert info["env_id"].tolist() == list(range(8))
    env.close()
