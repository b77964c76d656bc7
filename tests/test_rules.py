"""Reward, lap and playfield rules, checked against Gymnasium's definitions and side by side."""

from __future__ import annotations

import numpy as np
import pytest

from reinfors_gym import CarRacingEnv
from reinfors_gym.testing import TrackFollower

PLAYFIELD = 2000 / 6.0


def test_step_reward_is_tile_bonus_minus_time_penalty():
    """Gymnasium: -0.1 every step, +1000/N for each newly visited tile (tiles touched during
    reset's action-less step are paid out with the first step)."""
    env = CarRacingEnv()
    env.reset(seed=2)
    n = len(env.track)
    rng = np.random.default_rng(1)
    visited_before = 0
    for step in range(400):
        action = np.array([rng.uniform(-0.3, 0.3), 0.6, 0.0])
        _, reward, terminated, _, _ = env.step(action)
        newly = env.tile_visited_count - visited_before
        visited_before = env.tile_visited_count
        if terminated:
            break
        assert reward == pytest.approx(newly * 1000.0 / n - 0.1, abs=1e-9), f"step {step}"
    assert visited_before > 5, "the car should have driven over several tiles"
    # The accumulated reward is the same bookkeeping.
    assert env.reward == pytest.approx(visited_before * 1000.0 / n - 0.1 * (step + 1), abs=1e-6)


def test_touched_tiles_are_repainted_in_plain_road_colour():
    env = CarRacingEnv()
    env.reset(seed=2)
    for _ in range(100):
        env.step(np.array([0.0, 0.5, 0.0]))
    colors = env.road_colors
    tile_rows = [i for i in range(len(colors)) if not (colors[i] == [255, 255, 255]).all()]
    assert (colors[tile_rows][:, 0] == 102).sum() >= env.tile_visited_count


def test_zero_lap_complete_percent_ends_on_first_step_like_gymnasium(gym_car_racing):
    """Gymnasium checks the lap fraction only when tile 0 is first touched, at reset; with 0.0
    the first step terminates as a finished lap."""
    ref = gym_car_racing(lap_complete_percent=0.0)
    env = CarRacingEnv(lap_complete_percent=0.0)
    for seed in (0, 1):
        ref.reset(seed=seed)
        env.reset(seed=seed)
        a = np.array([0.0, 0.0, 0.0])
        _, r_ref, term_ref, _, info_ref = ref.step(a)
        _, r, term, _, info = env.step(a)
        assert (term, info) == (term_ref, info_ref) == (True, {"lap_finished": True})
        assert r == pytest.approx(r_ref, abs=1e-9)


def test_default_lap_percent_never_ends_early(gym_car_racing):
    """With 0.95 the tile-0 check can never pass (issue #1269): the episode ends only when every
    tile is visited."""
    env = CarRacingEnv()
    env.reset(seed=0)
    assert env.tile_visited[0] and not env.new_lap


def drive_off(env, act):
    """Straight ahead with steady gas until the episode ends; returns (steps, reward, info).
    (Full throttle would spin this rear-wheel-drive car in place instead.)"""
    for step in range(1, 3000):
        _, reward, terminated, truncated, info = env.step(act)
        if terminated or truncated:
            return step, reward, info
    raise AssertionError("the car never left the playfield")


def test_leaving_the_playfield_terminates_with_minus_100(gym_car_racing):
    act = np.array([0.0, 0.3, 0.0])
    env = CarRacingEnv()
    env.reset(seed=3)
    steps, reward, info = drive_off(env, act)
    x, y = env.car_state()["hull_position"]
    assert max(abs(x), abs(y)) > PLAYFIELD
    assert reward == -100 and info == {"lap_finished": False}

    ref = gym_car_racing()
    ref.reset(seed=3)
    ref_steps, ref_reward, ref_info = drive_off(ref, act)
    assert (ref_reward, ref_info) == (reward, info)
    assert ref_steps == steps, f"ours left after {steps} steps, Gymnasium after {ref_steps}"


@pytest.mark.parametrize("continuous", [True])
def test_closed_loop_driver_finishes_a_lap(continuous):
    env = CarRacingEnv()
    env.reset(seed=1)
    driver = TrackFollower(env.track)
    total, steps, terminated = 0.0, 0, False
    info = {}
    while not terminated and steps < 1500:
        _, reward, terminated, _, info = env.step(driver.act_ours(env))
        total += reward
        steps += 1
    assert info == {"lap_finished": True}
    assert env.tile_visited_count == len(env.track)
    # Every tile paid 1000/N once; every step cost 0.1.
    assert total == pytest.approx(1000.0 - 0.1 * steps, abs=1e-6)


def test_avx2_and_baseline_paths_give_identical_steps_and_frames():
    """The core compiles its hottest loops twice (x86-64 baseline and AVX2, picked at run time)
    and promises the same bits from both: run the same episode in a subprocess with the AVX2
    copies disabled and compare every reward and frame."""
    import hashlib
    import os
    import subprocess
    import sys

    script = (
        "import hashlib, numpy as np, reinfors_gym\n"
        "env = reinfors_gym.CarRacingEnv()\n"
        "obs, _ = env.reset(seed=3)\n"
        "h = hashlib.sha256(obs.tobytes())\n"
        "rng = np.random.default_rng(0)\n"
        "for a in rng.uniform([-1, 0, 0], [1, 1, 1], size=(300, 3)):\n"
        "    obs, r, term, trunc, _ = env.step(a)\n"
        "    h.update(obs.tobytes()); h.update(np.float64(r).tobytes())\n"
        "print(h.hexdigest())\n"
    )
    digests = []
    for disable in (False, True):
        env = dict(os.environ)
        env.pop("REINFORS_GYM_DISABLE_AVX2", None)
        if disable:
            env["REINFORS_GYM_DISABLE_AVX2"] = "1"
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        digests.append(out.stdout.strip())
    assert digests[0] == digests[1]
    assert len(digests[0]) == len(hashlib.sha256().hexdigest())
