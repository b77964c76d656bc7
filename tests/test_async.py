"""EnvPool's asynchronous API on `CarRacingVectorEnv` (`send`/`recv`, `async_reset`,
`batch_size`) and Gymnasium's `step_async`/`step_wait`: per-env determinism whatever the
arrival order and thread count, the actions copied when sent, and every misuse named."""

from __future__ import annotations

import hashlib
import threading

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import reinfors_gym  # noqa: F401
from reinfors_gym import CarRacingVectorEnv
from reinfors_gym.errors import AsyncOrderError, InvalidAction, InvalidEnvId


def _actions(env_id: int, steps: int) -> np.ndarray:
    """A fixed action sequence per sub-env (driving, steering, some braking)."""
    rng = np.random.default_rng(1000 + env_id)
    a = rng.uniform([-1.0, 0.0, 0.0], [1.0, 1.0, 0.3], (steps, 3))
    return a


def _digest(obs: np.ndarray, reward: float, term: bool, trunc: bool) -> str:
    h = hashlib.sha1(np.ascontiguousarray(obs).tobytes())
    h.update(np.float64(reward).tobytes() + bytes([bool(term), bool(trunc)]))
    return h.hexdigest()


def _sync_run(num_envs: int, steps: int, **kwargs) -> list[list[str]]:
    env = CarRacingVectorEnv(num_envs, **kwargs)
    obs, _ = env.reset(seed=7)
    trace = [[_digest(obs[i], 0.0, False, False)] for i in range(num_envs)]
    acts = [_actions(i, steps) for i in range(num_envs)]
    for t in range(steps):
        obs, rew, term, trunc, _ = env.step(np.stack([a[t] for a in acts]))
        for i in range(num_envs):
            trace[i].append(_digest(obs[i], rew[i], term[i], trunc[i]))
    env.close()
    return trace


def _async_run(
    num_envs: int, batch: int, steps: int, threads: int, order_seed: int, **kwargs
) -> list[list[str]]:
    """Each sub-env takes its own `steps` actions; which sub-envs a recv returns, and which of
    them are sent again at once or held back for a while, varies at random."""
    env = CarRacingVectorEnv(num_envs, batch_size=batch, num_threads=threads, **kwargs)
    order = np.random.default_rng(order_seed)
    acts = [_actions(i, steps) for i in range(num_envs)]
    taken = [0] * num_envs
    trace: list[list[str]] = [[] for _ in range(num_envs)]
    env.async_reset(seed=7)
    held: list[int] = []
    while env._pool.in_flight >= batch:
        obs, rew, term, trunc, info = env.recv()
        ids = info["env_id"]
        assert len(ids) == batch and list(ids) == sorted(ids)
        for k, i in enumerate(ids):
            trace[i].append(_digest(obs[k], rew[k], term[k], trunc[k]))
        ready = [i for i in [int(i) for i in ids] + held if taken[i] < steps]
        order.shuffle(ready)
        cut = int(order.integers(0, len(ready) + 1))
        go, held = ready[:cut], ready[cut:]
        if env._pool.in_flight + len(go) < batch:  # keep enough in flight for the next recv
            go, held = ready, []
        if go:
            env.send(np.stack([acts[i][taken[i]] for i in go]), np.array(go))
            for i in go:
                taken[i] += 1
    env.close()
    return trace


@pytest.mark.parametrize("threads", [1, 2, 8])
@pytest.mark.parametrize(
    "mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP], ids=["next", "same"]
)
def test_each_env_follows_the_synchronous_run_whatever_the_arrival_order(threads, mode):
    num_envs, batch, steps = 6, 3, 1000
    kwargs = {"autoreset_mode": mode, "max_episode_steps": 120}
    sync = _sync_run(num_envs, steps, **kwargs)
    for order_seed in (0, 1):
        got = _async_run(num_envs, batch, steps, threads, order_seed, **kwargs)
        # Near the end fewer than batch_size sub-envs have actions left, so the last few
        # steps of some cannot be received; nearly all are.
        assert sum(map(len, got)) >= 0.97 * num_envs * steps
        for i in range(num_envs):
            assert got[i] == sync[i][: len(got[i])], f"sub-env {i} diverged from the sync run"


def test_recv_returns_batch_size_with_env_ids_and_make_vec_takes_batch_size():
    env = gym.make_vec("reinfors/CarRacing-v0", num_envs=4, batch_size=2)
    assert isinstance(env, CarRacingVectorEnv) and env.batch_size == 2
    env.async_reset(seed=0)
    seen = []
    for _ in range(2):
        obs, rew, term, trunc, info = env.recv()
        assert obs.shape == (2, 96, 96, 3) and rew.shape == term.shape == trunc.shape == (2,)
        assert info["env_id"].dtype == np.int32
        seen += info["env_id"].tolist()
    assert sorted(seen) == [0, 1, 2, 3]
    # The reset observations equal a synchronous reset's with the same seeds.
    ref = CarRacingVectorEnv(4)
    ref_obs, _ = ref.reset(seed=0)
    env.async_reset(seed=0)
    for _ in range(2):
        obs, *_, info = env.recv()
        np.testing.assert_array_equal(obs, ref_obs[info["env_id"]])
    # step(actions, env_id) is send then recv.
    obs, rew, term, trunc, info = env.step(np.zeros((2, 3)), env_id=np.array([3, 1]))
    assert info["env_id"].tolist() == [1, 3]
    ref.close()
    env.close()


def test_native_options_work_the_same_in_both_modes():
    kwargs = {"frame_skip": 2, "stack_num": 3, "grayscale": True, "obs_size": (48, 64)}
    sync = CarRacingVectorEnv(2, **kwargs)
    obs, _ = sync.reset(seed=3)
    a = np.array([[0.2, 0.5, 0.0], [-0.3, 0.8, 0.0]])
    want, rew, *_ = sync.step(a)
    env = CarRacingVectorEnv(2, batch_size=2, **kwargs)
    env.async_reset(seed=3)
    first, *_ = env.recv()
    np.testing.assert_array_equal(first, obs)
    got, got_rew, *_ = env.step(a, env_id=np.array([0, 1]))
    assert got.shape == (2, 3, 48, 64)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_rew, rew)
    sync.close()
    env.close()


def test_step_async_returns_results_identical_to_step_and_copies_the_actions():
    a = np.random.default_rng(0).uniform([-1, 0, 0], [1, 1, 0.2], (40, 8, 3))
    ref = CarRacingVectorEnv(8, autoreset_mode="same_step", max_episode_steps=25)
    env = CarRacingVectorEnv(8, autoreset_mode="same_step", max_episode_steps=25)
    ref.reset(seed=1)
    env.reset(seed=1)
    for t in range(40):
        want = ref.step(a[t])
        sent = a[t].copy()
        env.step_async(sent)
        sent[:] = np.nan  # the env copied the actions when they were sent
        got = env.step_wait()
        for w, g in zip(want[:4], got[:4], strict=True):
            np.testing.assert_array_equal(w, g)
        assert want[4].keys() == got[4].keys()
        if "final_obs" in want[4]:
            for w, g in zip(want[4]["final_obs"], got[4]["final_obs"], strict=True):
                assert (w is None and g is None) or np.array_equal(w, g)
    ref.close()
    env.close()


def test_send_copies_the_actions():
    ref = CarRacingVectorEnv(2)
    env = CarRacingVectorEnv(2, batch_size=2)
    ref.reset(seed=5)
    env.reset(seed=5)
    a = np.array([[0.5, 1.0, 0.0], [-0.5, 1.0, 0.0]])
    want = ref.step(a.copy())[0]
    env.send(a, np.array([0, 1]))
    a[:] = np.nan
    got = env.recv()[0]
    np.testing.assert_array_equal(got, want)
    ref.close()
    env.close()


def _fresh(batch: int = 2, n: int = 4, **kwargs) -> CarRacingVectorEnv:
    env = CarRacingVectorEnv(n, batch_size=batch, **kwargs)
    env.reset(seed=0)
    return env


def _still_steps(env: CarRacingVectorEnv) -> None:
    """After a refused call the env works: everything in flight is received, then a
    synchronous step runs."""
    while env._pool.in_flight:
        env.recv()
    obs, *_ = env.step(np.zeros((env.num_envs, 3)))
    assert obs.shape[0] == env.num_envs


def test_recv_with_nothing_in_flight_is_an_error_not_a_hang():
    env = _fresh()
    with pytest.raises(AsyncOrderError, match="nothing in flight"):
        env.recv()
    env.send(np.zeros((1, 3)), np.array([0]))
    with pytest.raises(AsyncOrderError, match="batch_size=2"):
        env.recv()  # one in flight, two asked for
    env.send(np.zeros((1, 3)), np.array([1]))
    _still_steps(env)
    env.close()


def test_sending_an_env_in_flight_or_bad_ids_is_refused_and_nothing_moves():
    env = _fresh()
    env.send(np.zeros((2, 3)), np.array([0, 1]))
    with pytest.raises(AsyncOrderError, match=r"\[1\] are already in flight"):
        env.send(np.zeros((2, 3)), np.array([2, 1]))
    with pytest.raises(InvalidEnvId, match="out of range"):
        env.send(np.zeros((1, 3)), np.array([4]))
    with pytest.raises(InvalidEnvId, match="out of range"):
        env.send(np.zeros((1, 3)), np.array([-1]))
    with pytest.raises(InvalidEnvId, match="more than once"):
        env.send(np.zeros((2, 3)), np.array([2, 2]))
    with pytest.raises(InvalidEnvId):
        env.send(np.zeros((1, 3)), np.array([0.5]))
    assert env._pool.in_flight == 2  # the refused sends queued nothing
    _still_steps(env)
    env.close()


def test_action_shape_mismatch_is_refused():
    env = _fresh()
    with pytest.raises(InvalidAction, match=r"shape \(2, 3\)"):
        env.send(np.zeros((3, 3)), np.array([0, 1]))
    with pytest.raises(InvalidAction, match="finite"):
        env.send(np.array([[0.0, 0.0, np.nan], [0, 0, 0]]), np.array([0, 1]))
    assert env._pool.in_flight == 0
    _still_steps(env)
    env.close()


def test_synchronous_calls_with_envs_in_flight_are_refused():
    env = _fresh()
    env.send(np.zeros((2, 3)), np.array([0, 1]))
    with pytest.raises(AsyncOrderError, match="in flight"):
        env.step(np.zeros((4, 3)))
    with pytest.raises(AsyncOrderError, match="in flight"):
        env.reset(seed=1)
    with pytest.raises(AsyncOrderError, match="in flight"):
        env.step_async(np.zeros((4, 3)))
    with pytest.raises(AsyncOrderError, match="in flight"):
        env.reset_async()
    _still_steps(env)
    env.close()


def test_step_async_pending_refuses_send_and_recv():
    env = _fresh(batch=4)
    env.step_async(np.zeros((4, 3)))
    with pytest.raises(gym.error.AlreadyPendingCallError):
        env.send(np.zeros((1, 3)), np.array([0]))
    with pytest.raises(gym.error.AlreadyPendingCallError):
        env.recv()
    env.step_wait()
    with pytest.raises(gym.error.NoAsyncCallError):
        env.step_wait()
    _still_steps(env)
    env.close()


def test_disabled_autoreset_refuses_a_finished_env_before_any_env_moves():
    env = CarRacingVectorEnv(3, autoreset_mode="disabled", max_episode_steps=2)
    env.reset(seed=0)
    ref = CarRacingVectorEnv(3, autoreset_mode="disabled", max_episode_steps=2)
    ref.reset(seed=0)
    a = np.zeros((3, 3))
    for e in (env, ref):
        e.step(a)
        e.step(a)  # all three truncate
    env.reset(options={"reset_mask": np.array([True, True, False])})
    ref.reset(options={"reset_mask": np.array([True, True, False])})
    before = env.get_attr("t")
    with pytest.raises(RuntimeError, match="sub-env 2 has finished"):
        env.step(a)
    assert env.get_attr("t") == before, "no sub-env stepped"
    with pytest.raises(RuntimeError, match="sub-env 2 has finished"):
        env.send(a[:1], np.array([2]))
    env.reset(options={"reset_mask": np.array([False, False, True])})
    ref.reset(options={"reset_mask": np.array([False, False, True])})
    np.testing.assert_array_equal(env.step(a)[0], ref.step(a)[0])
    env.close()
    ref.close()


def test_close_from_another_thread_while_recv_waits():
    env = CarRacingVectorEnv(16, batch_size=16, num_threads=2)
    env.reset(seed=0)
    env.send(np.zeros((16, 3)), np.arange(16))
    result: dict[str, object] = {}

    def receive() -> None:
        try:
            result["value"] = env.recv()
        except BaseException as e:  # noqa: BLE001
            result["error"] = e

    t = threading.Thread(target=receive)
    t.start()
    env.close()  # waits for the running recv, then closes
    t.join(timeout=10)
    assert not t.is_alive()
    assert "value" in result or isinstance(result.get("error"), RuntimeError)
