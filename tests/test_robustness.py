"""Faults and misuse, each as a careful user met it: no stale steps in a batch, documented errors
under concurrency, one validated spec, resources released, one seed rule."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import threading
import time

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import AlreadyPendingCallError

import reinfors_gym as rf
from reinfors_gym import CarRacingEnv, CarRacingVectorEnv
from reinfors_gym.errors import (
    ClosedEnvironmentError,
    ConcurrentCallError,
    InvalidConfig,
    InvalidSeed,
)

N_GAMES = 4


def engine(n_games: int = N_GAMES, **game) -> rf.Engine:
    return rf.Engine(
        game=rf.games.CarRacing(continuous=False, **game), n_games=n_games, n_threads=2, seed=0
    )


def policy(action: int, fail_at: int | None = None, error: type[BaseException] = RuntimeError):
    """A discrete policy that always picks `action` (so a batch's steps show which policy took
    them), raising `error` on call number `fail_at`."""
    calls = [0]

    def infer(obs):
        calls[0] += 1
        if fail_at is not None and calls[0] == fail_at:
            raise error("infer failed")
        logits = np.full((len(obs), 5), -50.0, np.float32)
        logits[:, action] = 50.0
        return logits, np.zeros(len(obs), np.float32)

    return infer


def assert_fresh_batch(batch: rf.Batch, steps: int, action: int) -> None:
    """Exactly `steps` per game, every one taken by the current policy."""
    assert batch.rewards.shape == (steps, N_GAMES)
    assert batch.obs.shape[:2] == (steps, N_GAMES)
    assert (batch.actions == action).all(), "steps of an earlier collection leaked in"
    for name in ("behavior_log_probs", "values", "advantages", "returns"):
        assert np.isfinite(getattr(batch, name)).all(), name


# --------------------------------------------------------------------------- the collector


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
@pytest.mark.parametrize("fail_at", [1, 2, 3, 5])  # the first step, mid-rollout, the bootstrap
def test_a_failed_collection_leaves_nothing_in_the_next_batch(error, fail_at):
    e = engine(max_episode_steps=2)  # truncations: final-value calls happen too
    with pytest.raises(error):
        e.collect(4 * N_GAMES, policy(3, fail_at=fail_at, error=error))
    assert_fresh_batch(e.collect(2 * N_GAMES, policy(4)), 2, 4)


def paused_at(call: int):
    """A `policy(3)` that, on call number `call` (mid-batch), sets `reached` and waits for
    `resume`: the test then acts while the collector is known to be inside a batch."""
    reached, resume = threading.Event(), threading.Event()
    inner = policy(3)
    calls = [0]

    def infer(obs):
        calls[0] += 1
        if calls[0] == call:
            reached.set()
            assert resume.wait(60), "the test never resumed the collector"
        return inner(obs)

    return infer, reached, resume


def test_stop_mid_batch_leaves_nothing_in_the_next_batch():
    e = engine()
    infer, reached, resume = paused_at(5)
    stream = e.collect_stream(50 * N_GAMES, infer)
    assert reached.wait(60)
    stream.stop(timeout=0)  # the stop is requested while step 5 of 50 waits in infer
    resume.set()
    stream.stop()
    assert stream.discarded_batches == 1
    assert_fresh_batch(e.collect(2 * N_GAMES, policy(4)), 2, 4)


def test_a_dropped_stream_stops_its_thread_and_leaves_nothing_behind():
    e = engine()
    infer, reached, resume = paused_at(5)
    stream = e.collect_stream(50 * N_GAMES, infer)
    thread = stream._thread
    assert reached.wait(60)
    del stream
    gc.collect()
    resume.set()
    thread.join(60)
    assert not thread.is_alive(), "the collector thread outlived its stream"
    assert_fresh_batch(e.collect(2 * N_GAMES, policy(4)), 2, 4)


def test_a_stream_dropped_mid_step_is_waited_for_by_the_next_collection():
    e = engine()
    infer, reached, resume = paused_at(5)
    stream = e.collect_stream(50 * N_GAMES, infer)
    assert reached.wait(60)
    del stream
    gc.collect()
    resume.set()  # its thread goes on into step 5: collect() must wait for it
    assert_fresh_batch(e.collect(2 * N_GAMES, policy(4)), 2, 4)


def test_log_std_beyond_its_bound_is_refused_and_no_batch_holds_inf():
    e = rf.Engine(n_games=2, n_threads=1, seed=0)

    def wide(obs):
        out = np.zeros((len(obs), 6), np.float32)
        out[:, 3:] = 90.0  # exp(90) overflows float32: inf actions, -inf log-probs
        return out, np.zeros(len(obs), np.float32)

    with pytest.raises(ValueError, match="log_std 90"):
        e.collect(4, wide)

    def fine(obs):
        out = np.zeros((len(obs), 6), np.float32)
        out[:, 3:] = 19.0
        return out, np.zeros(len(obs), np.float32)

    batch = e.collect(4, fine)
    assert np.isfinite(batch.actions).all() and np.isfinite(batch.behavior_log_probs).all()


def test_infer_cannot_write_into_the_batch():
    e = engine()

    def scribble(obs):
        obs[...] = 7
        return policy(3)(obs)

    with pytest.raises(ValueError, match="read-only"):
        e.collect(2 * N_GAMES, scribble)
    batch = e.collect(2 * N_GAMES, policy(3))
    assert (batch.obs != 7).any()


# --------------------------------------------------------------------------- concurrency


def race(calls, seconds: float = 0.5) -> list[BaseException]:
    """Runs each call in a loop in its own thread at the same time; returns what they raised."""
    errors: list[BaseException] = []
    stop = time.perf_counter() + seconds

    def loop(call):
        while time.perf_counter() < stop:
            try:
                call()
            except BaseException as e:  # noqa: BLE001 - collected for the assertions
                errors.append(e)

    threads = [threading.Thread(target=loop, args=(c,)) for c in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_two_threads_on_one_env_get_a_named_conflict_and_the_env_stays_usable():
    # Our env itself: Gymnasium's own wrappers keep unsynchronized state of their own (the
    # passive checker's previous step, for one) that no env can guard.
    env = CarRacingEnv(render_mode="rgb_array")
    env.reset(seed=0)
    gas = np.array([0.0, 0.5, 0.0], np.float32)

    def step():
        *_, terminated, truncated, _ = env.step(gas)
        if terminated or truncated:
            env.reset()

    errors = race([step, step, env.reset, env.render, env.car_state, lambda: env.track])
    assert errors, "the threads never overlapped"
    assert all(isinstance(e, ConcurrentCallError) for e in errors), {repr(e) for e in errors}
    assert all("another thread" in str(e) for e in errors)
    env.step(gas)  # still usable


def test_two_threads_on_one_vector_env_get_a_named_conflict():
    envs = CarRacingVectorEnv(4, num_threads=2, render_mode="rgb_array")
    envs.reset(seed=0)
    actions = np.tile([0.0, 0.5, 0.0], (4, 1))
    errors = race([lambda: envs.step(actions), lambda: envs.step(actions), envs.reset, envs.render])
    assert errors and all(isinstance(e, ConcurrentCallError) for e in errors), {
        repr(e) for e in errors
    }
    envs.step(actions)
    envs.close()


def test_render_call_and_get_attr_during_a_pending_step_are_refused_like_async_vector_env():
    envs = CarRacingVectorEnv(2, render_mode="rgb_array")
    envs.reset(seed=0)
    envs.step_async(np.zeros((2, 3)))
    for call in (envs.render, lambda: envs.call("t"), lambda: envs.get_attr("t")):
        with pytest.raises(AlreadyPendingCallError):
            call()
    envs.step_wait()
    assert len(envs.render()) == 2
    envs.close()


@pytest.mark.parametrize("trial", range(30))
def test_close_from_another_thread_during_an_async_step(trial):
    envs = CarRacingVectorEnv(2)
    envs.reset(seed=trial)
    envs.step_async(np.zeros((2, 3)))
    closer = threading.Thread(target=envs.close)
    closer.start()
    try:
        envs.step_wait()  # either it finished first, or the env is closed
    except ClosedEnvironmentError:
        pass
    closer.join(10)
    assert not closer.is_alive() and envs.closed
    with pytest.raises(ClosedEnvironmentError):
        envs.step(np.zeros((2, 3)))


def test_close_from_another_thread_during_steps_of_the_single_env():
    env = CarRacingEnv()
    env.reset(seed=0)
    errors = []
    driving = threading.Event()

    def drive():
        try:
            for _ in range(100_000):
                env.step(np.array([0.0, 0.5, 0.0]))
                driving.set()
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    t = threading.Thread(target=drive)
    t.start()
    assert driving.wait(60)  # steps are running: close() lands among them
    env.close()
    t.join(10)
    assert len(errors) == 1 and isinstance(errors[0], ClosedEnvironmentError), errors


def test_two_threads_collecting_on_one_engine_conflict_by_name():
    e = engine()
    with e.collect_stream(4 * N_GAMES, policy(3)):
        with pytest.raises(ConcurrentCallError, match="already collecting"):
            e.collect(N_GAMES, policy(3))


FORK_SCRIPT = textwrap.dedent(
    """
    import os, sys
    import numpy as np
    import reinfors_gym
    from reinfors_gym.errors import ClosedEnvironmentError

    envs = reinfors_gym.CarRacingVectorEnv(4, num_threads=2)
    envs.reset(seed=0)
    envs.step(np.zeros((4, 3)))
    pid = os.fork()
    if pid == 0:
        try:
            envs.step(np.zeros((4, 3)))
            code = 3
        except ClosedEnvironmentError as e:
            code = 0 if "fork" in str(e) else 4
        envs.close()
        del envs
        sys.stdout.flush()
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    envs.step(np.zeros((4, 3)))  # the parent's env is untouched
    envs.close()
    sys.exit(os.waitstatus_to_exitcode(status))
    """
)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() on this platform")
def test_a_forked_child_is_refused_the_parents_vector_env_and_closes_it_quietly():
    run = subprocess.run(
        [sys.executable, "-c", FORK_SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert "panic" not in run.stderr.lower(), run.stderr


# --------------------------------------------------------------------------- the spec


HUGE = 2**64


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"stack_num": HUGE}, "stack_num"),
        ({"stack_num": 0}, "stack_num"),
        ({"obs_size": (HUGE, 1)}, "obs_size height"),
        ({"obs_size": (8, 0)}, "obs_size width"),
        ({"obs_size": 96}, "obs_size"),
        ({"frame_skip": 2**40}, "frame_skip"),
        ({"max_episode_steps": HUGE}, "max_episode_steps"),
        ({"max_episode_steps": 0}, "max_episode_steps"),
        ({"lap_complete_percent": float("nan")}, "lap_complete_percent"),
        ({"continuous": "no"}, "continuous"),
        ({"grayscale": 2}, "grayscale"),
        ({"num_envs": HUGE}, "num_envs"),
        ({"num_threads": HUGE}, "num_threads"),
        ({"num_threads": 0}, "num_threads"),
        ({"copy": None}, "copy"),
    ],
)
def test_vector_env_arguments_are_refused_by_name(kwargs, name):
    with pytest.raises(InvalidConfig, match=name):
        CarRacingVectorEnv(**{"num_envs": 2, **kwargs})


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"stack_num": HUGE}, "stack_num"),
        ({"obs_size": (HUGE, 1)}, "obs_size height"),
        ({"frame_skip": 2**40}, "frame_skip"),
        ({"max_episode_steps": -1}, "max_episode_steps"),
        ({"layout": "NCHW"}, "layout"),
    ],
)
def test_engine_game_arguments_are_refused_by_name(kwargs, name):
    with pytest.raises(InvalidConfig, match=name):
        rf.games.CarRacing(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n_games": HUGE}, "n_games"),
        ({"n_threads": HUGE}, "n_threads"),
        ({"n_games": 0}, "n_games"),
    ],
)
def test_engine_arguments_are_refused_by_name(kwargs, name):
    with pytest.raises(InvalidConfig, match=name):
        rf.Engine(**kwargs)
    with pytest.raises(InvalidConfig, match="record count"):
        rf.Engine(n_games=2, n_threads=1, seed=0).collect(HUGE, policy(0))


def test_single_env_arguments_are_refused_by_name():
    for kwargs, name in (
        ({"lap_complete_percent": float("inf")}, "lap_complete_percent"),
        ({"continuous": "yes"}, "continuous"),
        ({"render_mode": "video"}, "render_mode"),
    ):
        with pytest.raises(InvalidConfig, match=name):
            CarRacingEnv(**kwargs)


def test_configurations_beyond_memory_are_refused_at_once(monkeypatch):
    def per_env_work(*args, **kwargs):
        raise AssertionError("refused only after per-env work")

    # Per-env work (a seed drawn per sub-env, the pool) must not start before the refusal.
    monkeypatch.setattr(rf.vector.secrets, "randbits", per_env_work)
    monkeypatch.setattr(rf._core, "PoolCore", per_env_work)
    for kwargs, bound in (
        ({"num_envs": 10**7}, "num_envs.*65536"),
        ({"num_envs": 1000, "stack_num": 64}, "GiB"),
    ):
        with pytest.raises(InvalidConfig, match=bound):
            CarRacingVectorEnv(**kwargs)
    monkeypatch.undo()
    with pytest.raises(InvalidConfig, match="GiB"):
        rf.Engine(game=rf.games.CarRacing(obs_size=(1024, 1024)), n_games=512)
    with pytest.raises(InvalidConfig, match="GiB"):
        rf.Engine(n_games=64, n_threads=1, seed=0).collect(64 * 2**16, policy(0))


def test_the_engine_takes_the_vector_envs_native_options():
    e = rf.Engine(
        game=rf.games.CarRacing(
            continuous=False, frame_skip=2, stack_num=3, grayscale=True, obs_size=(48, 40)
        ),
        n_games=2,
        n_threads=1,
        seed=0,
    )
    assert e.obs_shape == (3, 48, 40)
    batch = e.collect(4, policy(3))
    assert batch.obs.shape == (2, 2, 3, 48, 40)
    # Two simulation steps per agent step: twice the time penalty.
    assert np.allclose(batch.rewards[batch.rewards < 0], -0.2, atol=1e-6)


# --------------------------------------------------------------------------- resources


def os_threads() -> int:
    return len(os.listdir("/proc/self/task"))


def settled_threads(at_most: int, timeout: float = 10.0) -> int:
    """The thread count once it is at most `at_most` (threads told to end take a moment to
    go), or as it is after `timeout`."""
    deadline = time.perf_counter() + timeout
    while os_threads() > at_most and time.perf_counter() < deadline:
        time.sleep(0.01)
    return os_threads()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_dropped_vector_envs_and_streams_release_their_threads():
    gc.collect()
    before = os_threads()
    gc.disable()  # what is released must be released by reference counting alone
    try:
        for _ in range(100):
            envs = gym.make_vec("reinfors/CarRacing-v0", num_envs=2, num_threads=2)
            envs.reset(seed=0)
            envs.step(np.zeros((2, 3)))
            del envs
        assert settled_threads(before + 2) <= before + 2
        for _ in range(100):
            e = engine(n_games=2)
            stream = e.collect_stream(2 * 4, policy(3))
            next(stream)
            thread = stream._thread
            del stream, e
            thread.join(10)
            assert not thread.is_alive()
        assert settled_threads(before + 2) <= before + 2
    finally:
        gc.enable()


# --------------------------------------------------------------------------- seeds


@pytest.mark.parametrize("seed", [True, 2**130, np.int64(5)])
def test_one_seed_rule_for_all_three_as_gymnasiums(seed, gym_car_racing):
    # Gymnasium accepts any non-negative int, True (== 1) included.
    gym_obs, _ = gym_car_racing().reset(seed=int(seed))
    single, _ = CarRacingEnv().reset(seed=seed)
    envs = CarRacingVectorEnv(2)
    batch, _ = envs.reset(seed=seed)
    np.testing.assert_array_equal(single, batch[0])
    assert np.abs(single.astype(int) - gym_obs.astype(int)).mean() < 2.0
    assert envs.np_random_seed == (int(seed), int(seed) + 1)
    rf.Engine(n_games=2, n_threads=1, seed=seed)
    for bad in (-1, 1.5, "3"):
        for make in (
            lambda s: CarRacingEnv().reset(seed=s),
            lambda s: envs.reset(seed=s),
            lambda s: rf.Engine(n_games=1, n_threads=1, seed=s),
        ):
            with pytest.raises(InvalidSeed):
                make(bad)


def test_np_random_seed_is_what_sync_vector_env_reports():
    ours = CarRacingVectorEnv(3)
    ref = gym.vector.SyncVectorEnv([lambda: gym.make("reinfors/CarRacing-v0")] * 3)
    ours.reset(seed=7)
    ref.reset(seed=7)
    assert ours.np_random_seed == ref.np_random_seed == (7, 8, 9)
    ours.reset(seed=[None, 40, None])
    ref.reset(seed=[None, 40, None])
    assert ours.np_random_seed == ref.np_random_seed == (7, 40, 9)
    assert ours.get_attr("np_random_seed") == (7, 40, 9)
    # Unseeded: each sub-env's own OS-entropy seed, distinct and stable.
    fresh = CarRacingVectorEnv(3)
    assert len(set(fresh.np_random_seed)) == 3 and fresh.np_random_seed == fresh.np_random_seed


def test_verbose_reset_reads_the_track_inside_its_own_call(capsys):
    # reset() runs under the env's call guard: what it reads must not go through the guard.
    CarRacingEnv(verbose=True).reset(seed=0)
    assert "-tiles track" in capsys.readouterr().out
