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


def gymnasium_road_colors(ref):
    """Gymnasium's road polygon colours as its renderer draws them (`int` of each channel)."""
    return np.array([[int(c) for c in color] for _, color in ref.road_poly], dtype=np.uint8)


def test_touched_tiles_are_repainted_in_plain_road_colour(gym_car_racing):
    """Gymnasium shades tiles in threes (road colour + 0, 2.55, 5.1) and repaints any tile the
    car touches in the plain road colour. Checked on shaded tiles the car then drove over, and
    on every polygon's colour beside Gymnasium's after the same drive."""
    env, ref = CarRacingEnv(), gym_car_racing()
    env.reset(seed=1)
    ref.reset(seed=1)
    # Reset's action-less step already repaints the tiles under the car.
    np.testing.assert_array_equal(env.road_colors, gymnasium_road_colors(ref))
    tiles = np.flatnonzero(env.road_colors[:, 0] != 255)  # kerbs are white or red
    assert len(tiles) == len(env.track)
    before, visited_before = env.road_colors[tiles], env.tile_visited.copy()
    plain = env.road_color.astype(np.uint8)
    ours, theirs = TrackFollower(env.track), TrackFollower(ref.track)
    for _ in range(150):
        env.step(ours.act_ours(env))
        ref.step(theirs.act_gymnasium(ref))
    touched = env.tile_visited & ~visited_before
    was_shaded = touched & (before != plain).any(axis=1)
    # Many rows start in the plain colour (every third tile): only shaded ones show a repaint.
    assert was_shaded.sum() >= 10, "the drive should cross many shaded tiles"
    after = env.road_colors[tiles]
    assert (after[touched] == plain).all(), "touched tiles keep their shade"
    np.testing.assert_array_equal(env.road_colors, gymnasium_road_colors(ref))


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
    """With 0.95 the tile-0 check (made only when tile 0 is first touched, at reset) can never
    pass (issue #1269): the episode ends only when every tile is visited, not at 95% of them
    nor on crossing tile 0 again. One lap driven beside Gymnasium."""
    env, ref = CarRacingEnv(), gym_car_racing()
    env.reset(seed=1)
    ref.reset(seed=1)
    assert env.tile_visited[0] and not env.new_lap
    ours, theirs = TrackFollower(env.track), TrackFollower(ref.track)
    n = len(env.track)
    running_past_95 = False
    for step in range(1, 1500):
        _, reward, terminated, _, info = env.step(ours.act_ours(env))
        _, ref_reward, ref_terminated, _, ref_info = ref.step(theirs.act_gymnasium(ref))
        assert (terminated, info) == (ref_terminated, ref_info), f"step {step}"
        assert reward == pytest.approx(ref_reward, abs=1e-9), f"step {step}"
        if terminated:
            break
        running_past_95 |= env.tile_visited_count / n > 0.95
    assert terminated and info == {"lap_finished": True}
    assert env.tile_visited_count == ref.tile_visited_count == n
    assert running_past_95, "the lap should run on past 95% of the tiles"


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


def cpu_has_avx2() -> bool:
    """NumPy's run-time CPU feature table (CPUID plus OS support, as Rust's own check)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # NumPy < 2
        from numpy.core._multiarray_umath import __cpu_features__
    return bool(__cpu_features__.get("AVX2", False))


def test_avx2_and_baseline_paths_give_identical_steps_and_frames():
    """The core compiles its hottest loops twice (x86-64 baseline and AVX2, picked at run time)
    and promises the same bits from both: run the same episode in a subprocess with the AVX2
    copies disabled and compare every reward and frame. Without AVX2 on the CPU both runs
    would be baseline, so that fails unless REINFORS_GYM_ALLOW_NO_AVX2=1 accepts it."""
    import hashlib
    import os
    import platform
    import subprocess
    import sys

    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("the AVX2 copies exist on x86-64 only")
    allowed = os.environ.get("REINFORS_GYM_ALLOW_NO_AVX2") == "1"
    if not cpu_has_avx2() and not allowed:
        pytest.fail(
            "no AVX2 on this CPU: both runs would be baseline; "
            "set REINFORS_GYM_ALLOW_NO_AVX2=1 to accept that"
        )
    # `avx2_used()`: whether the core ran any AVX2 copy in that process.
    script = (
        "import hashlib, numpy as np, reinfors_gym, reinfors_gym._core as core\n"
        "env = reinfors_gym.CarRacingEnv()\n"
        "obs, _ = env.reset(seed=3)\n"
        "h = hashlib.sha256(obs.tobytes())\n"
        "rng = np.random.default_rng(0)\n"
        "for a in rng.uniform([-1, 0, 0], [1, 1, 1], size=(300, 3)):\n"
        "    obs, r, term, trunc, _ = env.step(a)\n"
        "    h.update(obs.tobytes()); h.update(np.float64(r).tobytes())\n"
        "print(h.hexdigest(), core.avx2_used())\n"
    )
    runs = []
    for disable in (False, True):
        env = dict(os.environ)
        env.pop("REINFORS_GYM_DISABLE_AVX2", None)
        if disable:
            env["REINFORS_GYM_DISABLE_AVX2"] = "1"
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        runs.append(out.stdout.split())
    (avx2_digest, avx2_used), (baseline_digest, baseline_used) = runs
    assert baseline_used == "False", "the baseline run ran AVX2 copies"
    if not allowed:
        assert avx2_used == "True", "the AVX2 run never ran an AVX2 copy"
    assert avx2_digest == baseline_digest
    assert len(avx2_digest) == len(hashlib.sha256().hexdigest())
