"""CarRacingVectorEnv: equivalence with SyncVectorEnv, determinism, wrappers, bad input."""

from __future__ import annotations

import hashlib
import os

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import reinfors_gym  # noqa: F401
from reinfors_gym import CarRacingVectorEnv, ClosedEnvironmentError, InvalidAction, InvalidSeed

ID = "reinfors/CarRacing-v0"


def scripted_actions(num_envs: int, steps: int, seed: int = 0) -> np.ndarray:
    """Per-env action styles: env 0 drives straight off the playfield (termination), env 1
    brakes and steers, others drive randomly (truncations at the time limit)."""
    rng = np.random.default_rng(seed)
    acts = rng.uniform([-1, 0, 0], [1, 1, 0.2], size=(steps, num_envs, 3))
    acts[:, 0] = [0.0, 0.5, 0.0]
    if num_envs > 1:
        acts[:, 1, 2] = 0.3
    return acts.astype(np.float32)


def sync_reference(num_envs: int, mode: AutoresetMode, **kwargs) -> SyncVectorEnv:
    return SyncVectorEnv(
        [lambda: gym.make(ID, **kwargs) for _ in range(num_envs)], autoreset_mode=mode
    )


def assert_same_step(a, b, where: str) -> None:
    for name, x, y in zip(("obs", "reward", "terminated", "truncated"), a[:4], b[:4], strict=True):
        assert data_equivalence(x, y, exact=True), f"{where}: {name} differs"
    assert data_equivalence(a[4], b[4], exact=True), f"{where}: infos differ: {a[4]} vs {b[4]}"


def assert_same_reset(a, b, where: str) -> None:
    assert data_equivalence(a[0], b[0], exact=True), f"{where}: obs differs"
    assert data_equivalence(a[1], b[1], exact=True), f"{where}: infos differ"


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_equals_sync_vector_env_over_single_envs(mode):
    n, steps, limit = 3, 420, 150
    ours = CarRacingVectorEnv(n, autoreset_mode=mode, max_episode_steps=limit, num_threads=2)
    ref = sync_reference(n, mode, max_episode_steps=limit)
    assert_same_step(
        ours.reset(seed=10) + (None, None, None), ref.reset(seed=10) + (None,) * 3, "reset"
    )
    actions = scripted_actions(n, steps)
    episodes_done = 0
    for t in range(steps):
        a = ours.step(actions[t])
        b = ref.step(actions[t])
        assert_same_step(a, b, f"step {t}")
        done = a[2] | a[3]
        episodes_done += int(done.sum())
        if mode == AutoresetMode.DISABLED and done.any():
            mask = done.copy()
            assert_same_reset(
                ours.reset(options={"reset_mask": mask}),
                ref.reset(options={"reset_mask": mask.copy()}),
                f"masked reset at {t}",
            )
    assert episodes_done >= n, "the script must end several episodes (terminations and truncations)"
    ours.close()
    ref.close()


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_lap_finished_infos_match_sync(mode):
    """lap_complete_percent=0 ends every episode with lap_finished=True on its first step."""
    n = 2
    ours = CarRacingVectorEnv(n, autoreset_mode=mode, lap_complete_percent=0.0)
    ref = sync_reference(n, mode, lap_complete_percent=0.0)
    ours.reset(seed=3)
    ref.reset(seed=3)
    actions = np.zeros((n, 3), np.float32)
    for t in range(4):
        a, b = ours.step(actions), ref.step(actions)
        assert_same_step(a, b, f"step {t}")
        if mode == AutoresetMode.DISABLED:
            mask = np.ones(n, bool)
            ours.reset(options={"reset_mask": mask})
            ref.reset(options={"reset_mask": mask.copy()})


def trajectory_hash(num_threads: int, mode=AutoresetMode.NEXT_STEP, **kw) -> str:
    env = CarRacingVectorEnv(
        6, num_threads=num_threads, autoreset_mode=mode, max_episode_steps=90, **kw
    )
    h = hashlib.sha256()
    obs, _ = env.reset(seed=123)
    h.update(obs.tobytes())
    for a in scripted_actions(6, 200, seed=1):
        obs, r, te, tr, _ = env.step(a)
        for x in (obs, r, te, tr):
            h.update(np.ascontiguousarray(x).tobytes())
    env.close()
    return h.hexdigest()


def test_thread_count_does_not_change_results():
    assert trajectory_hash(1) == trajectory_hash(2) == trajectory_hash(4)
    assert trajectory_hash(
        1, AutoresetMode.SAME_STEP, frame_skip=2, stack_num=3
    ) == trajectory_hash(2, AutoresetMode.SAME_STEP, frame_skip=2, stack_num=3)


def test_make_vec_gives_our_class_and_other_modes_still_work():
    env = gym.make_vec(ID, num_envs=2)
    assert isinstance(env, CarRacingVectorEnv)
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert env.autoreset_mode is AutoresetMode.NEXT_STEP
    assert env.spec is not None and env.spec.id == ID
    assert env.single_observation_space == gym.spaces.Box(0, 255, (96, 96, 3), np.uint8)
    assert env.single_action_space == gym.make(ID).action_space
    env.close()
    for mode in ("sync", "async"):
        other = gym.make_vec(ID, num_envs=2, vectorization_mode=mode)
        obs, _ = other.reset(seed=0)
        assert obs.shape == (2, 96, 96, 3)
        other.close()


def test_reset_seeding_rule_matches_single_envs():
    vec = CarRacingVectorEnv(3)
    vec.reset(seed=[5, None, 7])
    single = reinfors_gym.CarRacingEnv()
    single.reset(seed=5)
    np.testing.assert_array_equal(vec.get_attr("track")[0], single.track)
    single.reset(seed=7)
    np.testing.assert_array_equal(vec.get_attr("track")[2], single.track)
    vec.reset(seed=40)
    for i, track in enumerate(vec.get_attr("track")):
        single.reset(seed=40 + i)
        np.testing.assert_array_equal(track, single.track)


def test_preprocessing_matches_gymnasium_wrappers():
    from gymnasium.wrappers import FrameStackObservation, GrayscaleObservation

    vec = CarRacingVectorEnv(1, grayscale=True, stack_num=4, max_episode_steps=None)
    single = FrameStackObservation(GrayscaleObservation(gym.make(ID, max_episode_steps=None)), 4)
    assert vec.single_observation_space.shape == single.observation_space.shape == (4, 96, 96)
    o1, _ = vec.reset(seed=2)
    o2, _ = single.reset(seed=2)
    np.testing.assert_array_equal(o1[0], o2)
    for a in scripted_actions(1, 30, seed=3):
        o1, r1, *_ = vec.step(a)
        o2, r2, *_ = single.step(a[0])
        np.testing.assert_array_equal(o1[0], o2)
        assert r1[0] == r2


def test_frame_skip_sums_rewards_and_returns_the_last_frame():
    vec = CarRacingVectorEnv(1, frame_skip=3, max_episode_steps=None)
    single = gym.make(ID, max_episode_steps=None)
    vec.reset(seed=4)
    single.reset(seed=4)
    for a in scripted_actions(1, 20, seed=5):
        o1, r1, *_ = vec.step(a)
        total = 0.0
        for _ in range(3):
            o2, r, *_ = single.step(a[0])
            total += r
        np.testing.assert_array_equal(o1[0], o2)
        assert r1[0] == pytest.approx(total, abs=1e-9)


def test_channels_first_is_a_transpose():
    hwc = CarRacingVectorEnv(2)
    chw = CarRacingVectorEnv(2, channels_first=True)
    assert chw.single_observation_space.shape == (3, 96, 96)
    a, _ = hwc.reset(seed=1)
    b, _ = chw.reset(seed=1)
    np.testing.assert_array_equal(b, a.transpose(0, 3, 1, 2))
    a, *_ = hwc.step(np.full((2, 3), 0.5))
    b, *_ = chw.step(np.full((2, 3), 0.5))
    np.testing.assert_array_equal(b, a.transpose(0, 3, 1, 2))


def test_native_obs_size_and_copy_semantics():
    vec = CarRacingVectorEnv(2, obs_size=(64, 48), copy=False)
    obs, _ = vec.reset(seed=0)
    assert obs.shape == (2, 64, 48, 3)
    obs2, *_ = vec.step(np.zeros((2, 3)))
    assert obs2 is obs, "copy=False hands out the shared buffer"
    vec = CarRacingVectorEnv(2, copy=True)
    obs, _ = vec.reset(seed=0)
    obs2, *_ = vec.step(np.zeros((2, 3)))
    assert not np.shares_memory(obs, obs2)
    # copy=True: an array once returned never changes, whatever calls follow (steps, a partial
    # reset, a full reset), and a partial reset keeps the other sub-env's latest frame.
    handed_out = [obs, obs2]
    snapshots = [a.copy() for a in handed_out]
    for _ in range(3):
        o, *_ = vec.step(np.full((2, 3), 0.5))
        handed_out.append(o)
        snapshots.append(o.copy())
    partial, _ = vec.reset(options={"reset_mask": np.array([True, False])})
    np.testing.assert_array_equal(partial[1], snapshots[-1][1])
    handed_out.append(partial)
    snapshots.append(partial.copy())
    vec.reset(seed=1)
    vec.step(np.zeros((2, 3)))
    for a, snap in zip(handed_out, snapshots, strict=True):
        np.testing.assert_array_equal(a, snap)


def test_gymnasium_vector_wrappers_work():
    from gymnasium.wrappers import vector as vw

    env = CarRacingVectorEnv(2, max_episode_steps=40, autoreset_mode=AutoresetMode.NEXT_STEP)
    env = vw.RecordEpisodeStatistics(env)
    env = vw.ClipAction(env)
    env = vw.NormalizeReward(env)
    env = vw.TransformObservation(
        env,
        lambda o: (o @ np.array([0.299, 0.587, 0.114])).astype(np.float32),
        gym.spaces.Box(0, 255, (2, 96, 96), np.float32),
        single_observation_space=gym.spaces.Box(0, 255, (96, 96), np.float32),
    )
    env = vw.NormalizeObservation(env)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (2, 96, 96)
    episodes = 0
    for _ in range(90):
        obs, r, te, tr, info = env.step(np.full((2, 3), 5.0))  # clipped to the box
        if "episode" in info:
            episodes += int(info["_episode"].sum())
            assert (info["episode"]["l"][info["_episode"]] == 40).all()
    assert episodes >= 2
    env.close()


def test_render_serves_record_video(tmp_path):
    env = CarRacingVectorEnv(3, render_mode="rgb_array")
    env.reset(seed=0)
    frames = env.render()
    assert isinstance(frames, tuple) and len(frames) == 3
    assert all(f.shape == (400, 600, 3) and f.dtype == np.uint8 for f in frames)
    assert env.metadata["render_fps"] == 50
    # moviepy is a declared test dependency: RecordVideo raises if it is missing.
    from gymnasium.wrappers.vector import RecordVideo

    folder = tmp_path / "videos"
    rec = RecordVideo(env, video_folder=str(folder), episode_trigger=lambda e: e == 0)
    rec.reset(seed=0)
    for _ in range(5):
        rec.step(np.zeros((3, 3)))
    rec.close()
    videos = list(folder.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000


def test_step_async_overlaps_and_protocol_errors():
    env = CarRacingVectorEnv(4)
    env.reset(seed=0)
    with pytest.raises(gym.error.NoAsyncCallError):
        env.step_wait()
    env.step_async(np.zeros((4, 3)))
    with pytest.raises(gym.error.AlreadyPendingCallError):
        env.step_async(np.zeros((4, 3)))
    with pytest.raises(gym.error.AlreadyPendingCallError):
        env.reset()
    obs, *_ = env.step_wait()
    assert obs.shape == (4, 96, 96, 3)
    env.reset_async(seed=1)
    obs, info = env.reset_wait()
    assert info == {}
    env.close()


@pytest.mark.parametrize(
    "actions",
    [
        np.zeros((3, 3)),
        np.zeros((2, 2)),
        np.zeros(6),
        np.array([[np.nan, 0, 0], [0, 0, 0]]),
        np.array([[0, np.inf, 0], [0, 0, 0]]),
        np.array([["a", "b", "c"], ["a", "b", "c"]]),
    ],
)
def test_bad_actions_raise_and_env_stays_usable(actions):
    env = CarRacingVectorEnv(2)
    env.reset(seed=0)
    with pytest.raises(InvalidAction):
        env.step(actions)
    env.step(np.zeros((2, 3)))


def test_bad_discrete_actions():
    env = CarRacingVectorEnv(2, continuous=False)
    env.reset(seed=0)
    for bad in (np.array([0, 5]), np.array([0.0, 1.0]), np.array([-1, 0]), np.array([1])):
        with pytest.raises(InvalidAction):
            env.step(bad)
    env.step(np.array([3, 4]))


def test_bad_seeds_and_masks():
    env = CarRacingVectorEnv(2)
    for seed in ([1], [1, 2, 3], -1, [0, -5], "x", 1.5, [0, 1.0]):
        with pytest.raises(InvalidSeed):
            env.reset(seed=seed)
    env.reset(seed=0)
    with pytest.raises(TypeError):
        env.reset(options={"reset_mask": [True, False]})
    with pytest.raises(ValueError):
        env.reset(options={"reset_mask": np.array([True])})
    with pytest.raises(ValueError):
        env.reset(options={"reset_mask": np.zeros(2, bool)})
    env.step(np.zeros((2, 3)))


def test_disabled_mode_refuses_to_step_a_finished_env():
    env = CarRacingVectorEnv(1, autoreset_mode="disabled", max_episode_steps=2)
    env.reset(seed=0)
    env.step(np.zeros((1, 3)))
    *_, tr, _ = env.step(np.zeros((1, 3)))
    assert tr[0]
    with pytest.raises(RuntimeError, match="reset_mask"):
        env.step(np.zeros((1, 3)))
    env.reset(options={"reset_mask": np.ones(1, bool)})
    env.step(np.zeros((1, 3)))


def test_step_before_reset_and_calls_after_close():
    env = CarRacingVectorEnv(2)
    with pytest.raises(gym.error.ResetNeeded):
        env.step(np.zeros((2, 3)))
    env.reset(seed=0)
    env.step_async(np.zeros((2, 3)))
    env.close()  # joins the pending step
    env.close()
    assert env.closed
    for call in (
        lambda: env.step(np.zeros((2, 3))),
        lambda: env.reset(),
        env.render,
        lambda: env.get_attr("track"),
    ):
        with pytest.raises(ClosedEnvironmentError):
            call()


def test_call_get_attr_set_attr():
    env = CarRacingVectorEnv(2, render_mode="state_pixels")
    obs, _ = env.reset(seed=0)
    assert env.get_attr("continuous") == (True, True)
    frames = env.call("render")
    np.testing.assert_array_equal(frames[0], obs[0])
    env.set_attr("tag", ["a", "b"])
    assert env.get_attr("tag") == ("a", "b")
    with pytest.raises(AttributeError):
        env.set_attr("continuous", False)
    with pytest.raises(AttributeError):
        env.get_attr("no_such_attribute")
    with pytest.raises(ValueError):
        env.set_attr("tag", ["only one"])


def test_threads_beyond_the_cores_or_the_envs_are_capped():
    cores = len(os.sched_getaffinity(0))
    for requested in (1_000_000, 64, cores + 1):
        env = CarRacingVectorEnv(3, num_threads=requested)
        assert env.num_threads == min(cores, 3)
        env.reset(seed=0)
        env.step(np.zeros((3, 3)))
        env.close()
    env = CarRacingVectorEnv(1, num_threads=8)
    assert env.num_threads == 1
    env.close()


def test_bad_constructor_arguments():
    for kwargs in (
        {"num_envs": 0},
        {"num_threads": 0},
        {"autoreset_mode": "sometimes"},
        {"frame_skip": 0},
        {"stack_num": 0},
        {"obs_size": (0, 96)},
        {"render_mode": "human"},
        {"max_episode_steps": 0},
        {"num_envs": 70_000},  # refused before any allocation could abort the process
        {"obs_size": (4096, 4096), "stack_num": 64},
        {"num_envs": 60_000, "stack_num": 4},
    ):
        with pytest.raises(ValueError):
            CarRacingVectorEnv(**({"num_envs": 2} | kwargs))
