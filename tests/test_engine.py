"""The streaming PPO collector: batch maths, sampling, reward weights, faults, lifecycle."""

from __future__ import annotations

import math
import pickle
import threading
import traceback

import numpy as np
import pytest

import reinfors_gym as rf

MEAN = np.array([0.1, 0.6, 0.05], np.float32)
LOG_STD = np.array([-1.0, -0.7, -2.0], np.float32)
LOGITS = np.array([0.2, -0.5, 0.1, 1.0, -1.0], np.float32)


def make_engine(continuous=True, n_games=4, seed=0, **game):
    return rf.Engine(
        game=rf.games.CarRacing(continuous=continuous, **game),
        reward=rf.Reward(),
        policy=rf.policies.Ppo(),
        learner=rf.learners.Ppo(gamma=0.99, lam=0.95),
        n_games=n_games,
        n_threads=2,
        seed=seed,
    )


def constant_infer(continuous: bool):
    """Fixed policy outputs; values depend on the observation so GAE has something to do."""

    def infer(obs):
        n = len(obs)
        values = obs.reshape(n, -1)[:, ::97].mean(axis=1).astype(np.float32) / 100.0
        if continuous:
            return np.tile(np.concatenate([MEAN, LOG_STD]), (n, 1)), values
        return np.tile(LOGITS, (n, 1)), values

    return infer


def numpy_gae(b, gamma=0.99, lam=0.95):
    T, G = b.rewards.shape
    adv = np.zeros((T, G))
    last = np.zeros(G)
    for t in reversed(range(T)):
        if t == T - 1:
            next_v = b.bootstrap_values.astype(np.float64)
        else:
            next_v = b.values[t + 1].astype(np.float64)
        next_v = np.where(b.truncations[t], b.final_values[t], next_v)
        next_v = np.where(b.terminations[t], 0.0, next_v)
        goes_on = ~(b.terminations[t] | b.truncations[t])
        delta = b.rewards[t] + gamma * next_v - b.values[t]
        last = delta + gamma * lam * goes_on * last
        adv[t] = last
    return adv, adv + b.values


@pytest.mark.parametrize("continuous", [True, False])
def test_advantages_and_returns_match_numpy_recomputation(continuous):
    # A short time limit puts truncations (bootstrapped from final values) inside the batch.
    engine = make_engine(continuous, n_games=4, max_episode_steps=25)
    infer = constant_infer(continuous)
    for _ in range(2):
        b = engine.collect(4 * 40, infer)
        assert b.truncations.any(), "the time limit should truncate inside the batch"
        assert np.isfinite(b.final_values[b.truncations]).all()
        assert np.isnan(b.final_values[~b.truncations]).all()
        adv, ret = numpy_gae(b)
        np.testing.assert_allclose(b.advantages, adv, atol=1e-5, rtol=1e-5)
        np.testing.assert_allclose(b.returns, ret, atol=1e-5, rtol=1e-5)


def test_terminations_cut_the_chain():
    # lap_complete_percent=0 ends every episode on its first step with a termination.
    engine = make_engine(True, n_games=2, lap_complete_percent=0.0)
    b = engine.collect(2 * 6, constant_infer(True))
    assert b.terminations.all() and not b.truncations.any()
    np.testing.assert_allclose(b.advantages, b.rewards - b.values, atol=1e-5)
    assert len(b.episode_returns) == 12 and (b.episode_lengths == 1).all()


def test_batch_fields_shapes_and_order():
    engine = make_engine(True, n_games=3, channels_first=True)
    b = engine.collect(3 * 5, constant_infer(True))
    assert b.obs.shape == (5, 3, 3, 96, 96) and b.obs.dtype == np.uint8
    assert b.actions.shape == (5, 3, 3) and b.actions.dtype == np.float32
    for name in ("behavior_log_probs", "values", "rewards", "advantages", "returns"):
        assert getattr(b, name).shape == (5, 3) and getattr(b, name).dtype == np.float32
    assert b.terminations.dtype == np.bool_ and b.bootstrap_values.shape == (3,)
    assert len(b) == 15
    flat = b.flat()
    assert list(flat) == list(rf.Batch.FIELDS) and flat["obs"].shape == (15, 3, 96, 96)
    # HWC is the default, as the vector env's (channels_first=False).
    hwc = rf.Engine(game=rf.games.CarRacing(), n_games=2, seed=0)
    assert hwc.collect(2, constant_infer(True)).obs.shape == (1, 2, 96, 96, 3)


def test_gaussian_log_probs_match_reference():
    b = make_engine(True, n_games=4).collect(4 * 30, constant_infer(True))
    std = np.exp(LOG_STD.astype(np.float64))
    z = (b.actions.astype(np.float64) - MEAN) / std
    ref = (-0.5 * z**2 - np.log(std) - 0.5 * np.log(2 * np.pi)).sum(-1)
    np.testing.assert_allclose(b.behavior_log_probs, ref, atol=1e-5)
    # The batch keeps the sampled action, not the clipped one sent to the env.
    assert (b.actions[..., 0] > 1).any() or (b.actions[..., 2] < 0).any()
    # Samples follow the Gaussian.
    np.testing.assert_allclose(b.actions.reshape(-1, 3).mean(0), MEAN, atol=0.05)
    np.testing.assert_allclose(b.actions.reshape(-1, 3).std(0), std, rtol=0.15)
    # PyTorch's Normal agrees too: tests/integrations/test_cleanrl_skrl.py (torch is there).


ALPHA = np.array([2.0, 3.0, 1.05], np.float32)
BETA = np.array([2.0, 2.0, 20.0], np.float32)
BOX_LOW = np.array([-1.0, 0.0, 0.0])
BOX_WIDTH = np.array([2.0, 1.0, 1.0])


def beta_engine(n_games=4, seed=0):
    return rf.Engine(
        game=rf.games.CarRacing(grayscale=True),
        policy=rf.policies.Ppo(distribution="beta"),
        n_games=n_games,
        n_threads=2,
        seed=seed,
    )


def beta_infer(obs):
    n = len(obs)
    return np.tile(np.concatenate([ALPHA, BETA]), (n, 1)), np.zeros(n, np.float32)


def test_beta_log_probs_match_reference():
    """Beta(alpha, beta) on (0, 1) mapped onto the box: the log-density of the stored action,
    with the affine map's Jacobian (PyTorch's Beta: tests/integrations/test_train.py)."""
    b = beta_engine().collect(4 * 50, beta_infer)
    a = b.actions.astype(np.float64)
    assert ((a > BOX_LOW) & (a < BOX_LOW + BOX_WIDTH)).all()
    x = (a - BOX_LOW) / BOX_WIDTH
    alpha, beta = ALPHA.astype(np.float64), BETA.astype(np.float64)
    ln_b = np.array([math.lgamma(p) + math.lgamma(q) - math.lgamma(p + q) for p, q in
                     zip(alpha, beta, strict=True)])  # fmt: skip
    ref = ((alpha - 1) * np.log(x) + (beta - 1) * np.log1p(-x) - ln_b - np.log(BOX_WIDTH)).sum(-1)
    np.testing.assert_allclose(b.behavior_log_probs, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(x.reshape(-1, 3).mean(0), alpha / (alpha + beta), atol=0.04)


def test_beta_policy_configuration_and_refusals():
    with pytest.raises(rf.InvalidConfig, match="continuous"):
        rf.Engine(game=rf.games.CarRacing(continuous=False), policy=rf.policies.Ppo("beta"))
    with pytest.raises(rf.InvalidConfig, match="distribution"):
        rf.policies.Ppo("gamma")
    engine = beta_engine(n_games=2)
    assert "distribution='beta'" in repr(engine)
    engine.collect(2, beta_infer)
    for bad, name in ((0.0, "alpha"), (-2.0, "alpha"), (2e6, "alpha"), (np.inf, "non-finite")):

        def infer(obs, bad=bad):
            policy, values = beta_infer(obs)
            policy[-1, 0] = bad
            return policy, values

        with pytest.raises(ValueError, match=name if name != "non-finite" else "NaN or infinite"):
            engine.collect(2, infer)
    # Nothing was sampled by the refused calls: the same seed gives the same actions.
    after = engine.collect(2 * 3, beta_infer).actions
    again = beta_engine(n_games=2)
    again.collect(2, beta_infer)
    np.testing.assert_array_equal(again.collect(2 * 3, beta_infer).actions, after)
    assert pickle.loads(pickle.dumps(engine)).policy == rf.policies.Ppo("beta")


def test_categorical_log_probs_match_reference():
    b = make_engine(False, n_games=4).collect(4 * 200, constant_infer(False))
    log_softmax = LOGITS - np.log(np.exp(LOGITS.astype(np.float64)).sum())
    np.testing.assert_allclose(b.behavior_log_probs, log_softmax[b.actions], atol=1e-5)
    freq = np.bincount(b.actions.ravel(), minlength=5) / b.actions.size
    np.testing.assert_allclose(freq, np.exp(log_softmax), atol=0.04)


def test_reward_weights_apply_to_events():
    engine = rf.Engine(
        game=rf.games.CarRacing(lap_complete_percent=2.0),
        reward=rf.Reward(tile=0.0, step=-1.0, off_playfield=-5.0),
        n_games=2,
        seed=1,
    )
    b = engine.collect(2 * 20, constant_infer(True))
    assert set(np.unique(b.rewards)) <= {-1.0, -5.0}


def test_off_road_pays_per_wheel_on_no_tile_as_gymnasiums_wheels_report_it(gym_car_racing):
    """`off_road` counts, each simulation step, the wheels whose Gymnasium `tiles` set is
    empty: replayed in Gymnasium's own env, the same actions give the same counts."""
    steer_and_gas = np.array([0.45, 0.9, 0.0, -20.0, -20.0, -20.0], np.float32)

    def infer(obs):  # a wide circle at speed: on the road, across the kerb, onto the grass
        n = len(obs)
        return np.tile(steer_and_gas, (n, 1)), np.zeros(n, np.float32)

    def rewards(reward: rf.Reward, frame_skip: int) -> np.ndarray:
        engine = rf.Engine(game=rf.games.CarRacing(frame_skip=frame_skip), reward=reward,
                           n_games=1, seed=3)  # fmt: skip
        return engine.collect(200 // frame_skip, infer).rewards[:, 0]

    only_off_road = rf.Reward(tile=0.0, step=0.0, off_playfield=0.0, off_road=-1.0)
    counts = -rewards(only_off_road, 1)
    env = gym_car_racing()
    env.reset(seed=3)
    expected = []
    for _ in range(200):
        env.step(steer_and_gas[:3].astype(np.float64))
        expected.append(sum(not wheel.tiles for wheel in env.car.wheels))
    np.testing.assert_array_equal(counts, expected)
    assert counts[0] == 0 and counts.max() == 4 and 0 < counts.mean() < 4

    # With frame skip the counts add up over a decision's simulation steps, on top of
    # Gymnasium's own reward.
    skipped = rewards(rf.Reward(off_road=-0.25), 2) - rewards(rf.Reward(), 2)
    np.testing.assert_allclose(skipped, -0.25 * (counts[0::2] + counts[1::2]), atol=1e-4)


def skipped_before(visited: list[bool], tile: int, window: int = 32) -> int:
    """The untouched run just behind `tile`, bounded by a visited tile within `window`."""
    for run, behind in enumerate(range(tile - 1, max(tile - window, 0) - 1, -1)):
        if visited[behind]:
            return run
    return 0


def test_skipped_tile_counts_the_tiles_passed_untouched_in_gymnasiums_visits(gym_car_racing):
    """`skipped_tile` counts, each simulation step, the untouched tiles behind each tile first
    visited in that step: replayed in Gymnasium's own env, with its `road_visited` flags, the
    same actions give the same counts."""
    from reinfors_gym.testing import TrackFollower

    def follower(frame_skip: int) -> list[np.ndarray]:
        """300 steps' decisions of a follower aiming 12 tiles ahead at full gas, which cuts the
        corners of seed 3's track; each decision held for `frame_skip` steps."""
        env = rf.CarRacingEnv()
        env.reset(seed=3)
        driver = TrackFollower(env.track, lookahead=12, target_speed=60.0, gas=1.0)
        actions = []
        for _ in range(300 // frame_skip):
            car = env.car_state()
            act = driver.act(car["hull_position"], car["hull_angle"], car["hull_linear_velocity"])
            actions.append(act.astype(np.float32))  # as the collector stores it
            for _ in range(frame_skip):
                env.step(actions[-1].astype(np.float64))
        env.close()
        return actions

    def rewards(reward: rf.Reward, frame_skip: int) -> np.ndarray:
        actions = follower(frame_skip)
        replayed = iter(actions)

        def infer(obs):  # the recorded actions, with no noise to speak of
            # (the collector asks once more after the last step, for the bootstrap value)
            policy = np.concatenate([next(replayed, actions[-1]), np.full(3, -20.0, np.float32)])
            return policy[None], np.zeros(1, np.float32)

        engine = rf.Engine(game=rf.games.CarRacing(frame_skip=frame_skip), reward=reward,
                           n_games=1, seed=3)  # fmt: skip
        return engine.collect(300 // frame_skip, infer).rewards[:, 0]

    def gymnasium_counts(per_step: list[np.ndarray]) -> list[int]:
        """Skips per simulation step in Gymnasium's env, from its `road_visited` flags."""
        env = gym_car_racing()
        env.reset(seed=3)
        road = env.unwrapped.road
        counts = []
        for action in per_step:
            before = [tile.road_visited for tile in road]
            env.step(action.astype(np.float64))
            after = [tile.road_visited for tile in road]
            new = [i for i in range(len(road)) if after[i] and not before[i]]
            counts.append(sum(skipped_before(after, i) for i in new))
        return counts

    only_skips = rf.Reward(tile=0.0, step=0.0, off_playfield=0.0, skipped_tile=-1.0)
    counts = -rewards(only_skips, 1)
    np.testing.assert_array_equal(counts, gymnasium_counts(follower(1)))
    assert counts.sum() >= 10  # the drive does skip tiles

    # With frame skip the counts add up over a decision's simulation steps: each decision's
    # action held for two steps, as Gymnasium's env replays it.
    held = gymnasium_counts([a for a in follower(2) for _ in range(2)])
    per_decision = np.add(held[0::2], held[1::2])
    assert per_decision.sum() >= 10
    np.testing.assert_array_equal(-rewards(only_skips, 2), per_decision)
    shaped = rewards(rf.Reward(skipped_tile=-2.0), 2) - rewards(rf.Reward(), 2)
    np.testing.assert_allclose(shaped, -2.0 * per_decision, atol=1e-4)


def test_episode_scores_are_gymnasiums_returns_whatever_the_training_reward():
    def episodes(reward: rf.Reward):
        engine = rf.Engine(game=rf.games.CarRacing(frame_skip=2), reward=reward, n_games=4,
                           seed=7)  # fmt: skip
        # Straight on at half gas: over a few tiles, across the grass, off the playfield.
        b = engine.collect(4 * 520, lambda obs: (
            np.tile(np.float32([0.0, 0.5, 0.0, -20.0, -20.0, -20.0]), (len(obs), 1)),
            np.zeros(len(obs), np.float32)))  # fmt: skip
        return b.episode_returns, b.episode_scores, b.episode_lengths

    gymnasium, scores, lengths = episodes(rf.Reward())
    assert len(lengths) >= 8 and (lengths < 500).all()  # each left the playfield: -100
    np.testing.assert_array_equal(scores, gymnasium)
    shaped, shaped_scores, shaped_lengths = episodes(rf.Reward(step=-0.03, off_road=-0.25))
    np.testing.assert_array_equal(shaped_lengths, lengths)
    assert np.abs(shaped - gymnasium).min() > 10  # the training reward differs
    np.testing.assert_allclose(shaped_scores, gymnasium, rtol=1e-12)


def test_reward_rejects_unknown_and_non_finite():
    with pytest.raises(TypeError, match="unexpected keyword argument 'lap'"):
        rf.Reward(lap=1.0)  # type: ignore[call-arg]
    for bad in (float("nan"), float("inf"), "1"):
        with pytest.raises(ValueError):
            rf.Reward(tile=bad)
        with pytest.raises(ValueError, match="off_road"):
            rf.Reward(off_road=bad)
        with pytest.raises(ValueError, match="skipped_tile"):
            rf.Reward(skipped_tile=bad)


def test_same_seed_same_batch():
    a = make_engine(True, seed=5).collect(4 * 10, constant_infer(True))
    b = make_engine(True, seed=5).collect(4 * 10, constant_infer(True))
    for name in rf.Batch.FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_stream_delivers_batches_with_telemetry_and_policy_lag():
    engine = make_engine(True)
    with engine.collect_stream(collect_size=4 * 8, infer=constant_infer(True), depth=2) as stream:
        first = next(stream)
        engine.weights_updated()
        engine.weights_updated()
        later = [next(stream) for _ in range(3)]
    assert not stream.running
    assert first.telemetry["env_steps_per_s"] > 0 and "wait_seconds" in first.telemetry
    assert later[-1].weights_version == 2 and later[-1].telemetry["policy_lag"] == 0
    assert max(b.telemetry["policy_lag"] for b in later) <= 2


def test_infer_exception_surfaces_with_its_traceback_and_stops_workers():
    calls = [0]

    def failing_infer(obs):
        calls[0] += 1
        if calls[0] > 3:
            raise ZeroDivisionError("boom in infer")
        return constant_infer(True)(obs)

    engine = make_engine(True)
    stream = engine.collect_stream(collect_size=4 * 8, infer=failing_infer)
    with pytest.raises(ZeroDivisionError, match="boom in infer") as err:
        next(stream)
    frames = traceback.extract_tb(err.value.__traceback__)
    assert any(f.name == "failing_infer" for f in frames)
    stream.stop()
    assert not stream.running
    with pytest.raises(StopIteration):
        next(stream)
    # The engine is free again.
    engine.collect(4, constant_infer(True))


@pytest.mark.parametrize(
    "bad, match",
    [
        (lambda n: (np.zeros((n, 5), np.float32), np.zeros(n, np.float32)), r"\(4, 6\)"),
        (lambda n: (np.zeros((n, 6), np.float32), np.zeros(n + 1, np.float32)), "values"),
        (lambda n: (np.full((n, 6), np.nan, np.float32), np.zeros(n, np.float32)), "NaN"),
        (lambda n: (np.array([["a"] * 6] * n), np.zeros(n)), "numeric"),
        (lambda n: np.zeros((n, 6)), "policy_outputs, values"),
    ],
)
def test_bad_infer_outputs_name_the_contract(bad, match):
    engine = make_engine(True)
    with pytest.raises((ValueError, TypeError), match=match):
        engine.collect(4 * 2, lambda obs: bad(len(obs)))
    with engine.collect_stream(4 * 2, lambda obs: bad(len(obs))) as stream:
        with pytest.raises((ValueError, TypeError), match=match):
            next(stream)
    engine.collect(4, constant_infer(True))  # still usable


def test_mean_log_std_pair_is_accepted():
    engine = make_engine(True)
    b = engine.collect(
        4 * 3, lambda obs: ((np.tile(MEAN, (len(obs), 1)), LOG_STD), np.zeros(len(obs)))
    )
    assert b.actions.shape == (3, 4, 3)


def test_stop_delivers_completed_batches_then_stops():
    engine = make_engine(True)
    inner, calls = constant_infer(True), [0]
    second_batch_inferred = threading.Event()

    def infer(obs):
        calls[0] += 1
        if calls[0] == 2 * (4 + 1):  # 4 steps and the bootstrap per batch: batch 2 is done
            second_batch_inferred.set()
        return inner(obs)

    stream = engine.collect_stream(collect_size=4 * 4, infer=infer, depth=2)
    assert second_batch_inferred.wait(60)
    stream.stop()
    got = list(stream)
    assert len(got) >= 2, "completed batches survive stop()"
    assert not stream.running


def test_keyboard_interrupt_in_the_with_block_joins_the_thread():
    before = {t.name for t in threading.enumerate()}
    engine = make_engine(True)
    with pytest.raises(KeyboardInterrupt):
        with engine.collect_stream(collect_size=4 * 4, infer=constant_infer(True)) as stream:
            next(stream)
            raise KeyboardInterrupt
    assert not stream.running
    leaked = {t.name for t in threading.enumerate()} - before
    assert not {n for n in leaked if n.startswith("reinfors-gym")}


def test_one_collection_at_a_time_and_bad_arguments():
    engine = make_engine(True)
    with engine.collect_stream(4 * 2, constant_infer(True)):
        with pytest.raises(RuntimeError, match="already collecting"):
            engine.collect(4, constant_infer(True))
    for size in (3, 0, 6, 4.0):
        with pytest.raises(ValueError):
            engine.collect(size, constant_infer(True))
    with pytest.raises(ValueError):
        engine.collect_stream(4, constant_infer(True), depth=0)
    with pytest.raises(ValueError):
        rf.Engine(n_games=0)
    # More threads than cores (or games) are accepted and capped.
    assert rf.Engine(n_games=2, n_threads=1_000_000).n_threads <= 2
    for seed in (-1, 1.5, "3"):
        with pytest.raises(ValueError, match="seed"):
            rf.Engine(n_games=2, seed=seed)
    with pytest.raises(ValueError):
        rf.learners.Ppo(gamma=1.5)
    with pytest.raises(ValueError):
        rf.games.CarRacing(layout="NCHW")
    with pytest.raises(TypeError):
        rf.Engine(game="CarRacing")


def test_every_game_is_seeded_with_seed_plus_g():
    """Game g's first observation is a single env's after reset(seed=seed + g)."""
    seed, first = 40, []

    def infer(obs):
        if not first:
            first.append(obs.copy())
        return constant_infer(True)(obs)

    rf.Engine(n_games=3, n_threads=2, seed=seed).collect(3, infer)
    env = rf.CarRacingEnv()
    for g in range(3):
        np.testing.assert_array_equal(first[0][g], env.reset(seed=seed + g)[0], err_msg=f"{g}")


def test_a_refused_infer_call_leaves_every_sampling_stream_where_it_was():
    """The same seed gives the same actions, whether or not a call was refused in between.
    The refused call's last game has a log_std out of bounds: no earlier game may have drawn."""

    def bad_infer(obs):
        policy, values = constant_infer(True)(obs)
        policy[-1, -1] = 90.0
        return policy, values

    def actions(refuse):
        engine = make_engine(True, seed=9)
        engine.collect(4 * 2, constant_infer(True))
        if refuse:
            with pytest.raises(ValueError, match="log_std"):
                engine.collect(4 * 2, bad_infer)
        return engine.collect(4 * 5, constant_infer(True)).actions

    np.testing.assert_array_equal(actions(True), actions(False))


def test_infer_outputs_may_be_any_array_like():
    engine = make_engine(True)
    rows = np.concatenate([MEAN, LOG_STD]).tolist()
    b = engine.collect(4 * 2, lambda obs: ([rows] * len(obs), [0.0] * len(obs)))
    assert b.actions.shape == (2, 4, 3)
    discrete = make_engine(False)
    b = discrete.collect(4, lambda obs: (tuple([LOGITS.tolist()] * len(obs)), [[0.0]] * len(obs)))
    assert b.actions.shape == (1, 4)
    # Two games: a list of two rows of 6 is the array, not a (mean, log_std) pair.
    two = make_engine(True, n_games=2)
    assert two.collect(2, lambda obs: ([rows, rows], [0.0, 0.0])).actions.shape == (1, 2, 3)


def test_infer_that_is_not_callable_is_named():
    engine = make_engine(True)
    for call in (lambda: engine.collect(4, None), lambda: engine.collect_stream(4, None)):
        with pytest.raises(TypeError, match="infer must be callable"):
            call()
    engine.collect(4, constant_infer(True))  # still usable


def test_engine_pickles_as_its_arguments():
    engine = make_engine(False, n_games=2, seed=4, max_episode_steps=50)
    batch = engine.collect(2 * 3, constant_infer(False))
    clone = pickle.loads(pickle.dumps(engine))
    assert (clone.game, clone.n_games, clone.seed) == (engine.game, 2, 4)
    assert repr(clone.reward) == repr(engine.reward)
    # Re-created from its arguments: the same games from the start, the same batch.
    again = clone.collect(2 * 3, constant_infer(False))
    for name in rf.Batch.FIELDS:
        np.testing.assert_array_equal(getattr(again, name), getattr(batch, name))


def test_reprs_name_the_configuration_and_never_dump_arrays():
    engine = make_engine(True, n_games=2)
    assert repr(engine).startswith("Engine(game=CarRacingSpec(") and "n_games=2" in repr(engine)
    batch = engine.collect(2 * 3, constant_infer(True))
    text = repr(batch)
    assert "obs=uint8(3, 2, 96, 96, 3)" in text and "records=6" in text
    assert "array(" not in text and len(text) < 600


def test_channels_first_is_the_engines_layout_option_too():
    assert rf.games.CarRacing().obs_shape == (96, 96, 3)
    assert rf.games.CarRacing(channels_first=True).obs_shape == (3, 96, 96)
    for layout, channels_first in (("CHW", True), ("HWC", False)):
        with pytest.warns(DeprecationWarning, match="channels_first"):
            assert rf.games.CarRacing(layout=layout).channels_first is channels_first
    with pytest.raises(rf.InvalidConfig, match="contradicts"):
        rf.games.CarRacing(layout="HWC", channels_first=True)


def standing_infer(obs):
    """A Gaussian that stands still: no gas, full brake, tiny noise."""
    n = len(obs)
    row = np.array([0.0, -1.0, 1.0, -9.0, -9.0, -9.0], np.float32)
    return np.tile(row, (n, 1)), np.full(n, 2.5, np.float32)


def test_cut_without_progress_truncates_a_stalled_episode_and_bootstraps_it():
    """A car that finds no new tile for 40 simulation steps (10 decisions of 4) is cut: a
    truncation whose final value is the value of its last frame, and the game restarts."""
    engine = rf.Engine(
        game=rf.games.CarRacing(frame_skip=4),
        learner=rf.learners.Ppo(cut_without_progress=40),
        n_games=2,
        n_threads=2,
        seed=0,
    )
    b = engine.collect(2 * 25, standing_infer)
    assert b.truncations[9].all() and b.truncations.sum() == 4  # decisions 10 and 20
    assert b.truncations[19].all() and not b.terminations.any()
    assert np.array_equal(b.episode_lengths, [10, 10, 10, 10])
    assert np.all(b.final_values[b.truncations] == 2.5)
    adv, ret = numpy_gae(b)
    np.testing.assert_allclose(b.advantages, adv, rtol=1e-5, atol=1e-4)
    # Without the option the same policy is never cut.
    plain = make_engine(n_games=2, frame_skip=4).collect(2 * 25, standing_infer)
    assert not plain.truncations.any() and len(plain.episode_lengths) == 0


def test_a_terminal_cut_ends_the_stall_without_a_bootstrap():
    """With `cut_is_terminal` the same stall ends as a termination: no final value, and the
    advantages are those of an episode that ends there (what the stall is worth)."""
    engine = rf.Engine(
        game=rf.games.CarRacing(frame_skip=4),
        learner=rf.learners.Ppo(cut_without_progress=40, cut_is_terminal=True),
        n_games=2,
        n_threads=2,
        seed=0,
    )
    b = engine.collect(2 * 25, standing_infer)
    assert b.terminations[9].all() and b.terminations[19].all()
    assert b.terminations.sum() == 4 and not b.truncations.any()
    assert np.array_equal(b.episode_lengths, [10, 10, 10, 10])
    adv, ret = numpy_gae(b)
    np.testing.assert_allclose(b.advantages, adv, rtol=1e-5, atol=1e-4)
    # The last decision before the cut is worth its own reward only.
    np.testing.assert_allclose(b.returns[9], b.rewards[9], rtol=1e-5)


@pytest.mark.parametrize("bad", [1, "yes", None])
def test_cut_is_terminal_refuses_what_is_not_a_bool(bad):
    with pytest.raises(rf.InvalidConfig, match="cut_is_terminal"):
        rf.learners.Ppo(cut_without_progress=40, cut_is_terminal=bad)


def test_cut_is_terminal_needs_a_cut():
    with pytest.raises(rf.InvalidConfig, match="needs cut_without_progress"):
        rf.learners.Ppo(cut_is_terminal=True)
    assert rf.learners.Ppo(cut_without_progress=40, cut_is_terminal=np.True_).cut_is_terminal


@pytest.mark.parametrize("bad", [0, -5, 2.5, True, "40", 2**32])
def test_cut_without_progress_refuses_what_is_not_a_positive_step_count(bad):
    with pytest.raises(rf.InvalidConfig, match="cut_without_progress"):
        rf.learners.Ppo(cut_without_progress=bad)
