"""bench/bench_training.py's anchors: the actions they sample, and EnvPool's preprocessing done in
NumPy in bench/anchor_games.py (Gymnasium's grayscale, the frame stack, the episode ends under
EnvPool's autoreset)."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench():
    return load("bench_training")


@pytest.fixture(scope="module")
def anchors():
    return load("anchor_games")


@pytest.mark.parametrize("alpha, beta", [(1.0, 1e4), (1e4, 1.0), (2.0, 3.0), (1.05, 20.0)])
def test_sampled_actions_lie_in_the_box_with_finite_log_probs(bench, alpha, beta):
    # Concentrations at either end push the samples onto the box's edges.
    shape = (512, 3)
    actions, log_probs = bench.sample_actions(torch.full(shape, alpha), torch.full(shape, beta))
    assert actions.dtype == np.float32 and actions.shape == shape
    assert (actions >= [-1.0, 0.0, 0.0]).all() and (actions <= [1.0, 1.0, 1.0]).all()
    assert log_probs.shape == (512,) and np.isfinite(log_probs).all()


def test_grayscale_is_gymnasiums(anchors):
    frames = np.random.default_rng(0).integers(0, 256, (3, 96, 96, 3), dtype=np.uint8)
    wrapper = gym.wrappers.GrayscaleObservation(gym.make("CarRacing-v3"))
    expected = np.stack([wrapper.func(frame) for frame in frames])
    np.testing.assert_array_equal(anchors.grayscale(frames), expected)


# EnvPool calls 4 steps per decision: an episode of 6 steps ends inside the second decision,
# one of 8 on its last call (then the third decision's first call is the reset).
@pytest.mark.parametrize("episode_steps, reset_in", [(6, 2), (8, 3)])
def test_envpool_games_end_episodes_and_restart_the_stack(anchors, episode_steps, reset_in):
    args = argparse.Namespace(n_games=2, n_threads=1, seed=1, frame_skip=4, stack_num=2)
    games = anchors.EnvPoolGames(args, max_episode_steps=episode_steps)
    actions = np.array([[0.0, 0.5, 0.0]] * 2, np.float32)
    try:
        obs = games.reset()
        assert obs.shape == (2, 2, 96, 96) and obs.dtype == np.uint8
        assert (obs[:, 0] == obs[:, 1]).all()  # a new episode's first frame, twice
        steps = [games.step(actions) for _ in range(3)]
    finally:
        games.close()
    first, second, third = steps
    assert not (first.terminated | first.truncated).any() and not first.final_obs
    assert second.truncated.all() and not second.terminated.any()
    for i in range(2):
        final = second.final_obs[i]
        assert final.shape == (2, 96, 96)
        np.testing.assert_array_equal(final[0], first.obs[i, 1])  # the stack goes on to the end
    restarted = steps[reset_in - 1].obs
    assert (restarted[:, 0] == restarted[:, 1]).all()
    assert not (third.terminated | third.truncated).any()


def test_envpool_rewards_stop_at_the_episode_end(anchors):
    """A decision's reward is its episode's: when the episode ends inside the decision, the
    calls after the end (EnvPool's reset, then the next episode's first step) pay nothing into
    it. The reference is a second pool, seeded alike, stepped call by call."""
    import envpool

    args = argparse.Namespace(n_games=2, n_threads=1, seed=1, frame_skip=4, stack_num=2)
    actions = np.array([[0.0, 0.5, 0.0]] * 2, np.float32)
    raw = envpool.make_gymnasium(
        "CarRacing-v3", num_envs=2, batch_size=2, num_threads=1, seed=1, max_episode_steps=6
    )
    games = anchors.EnvPoolGames(args, max_episode_steps=6)
    try:
        raw.reset()
        calls = [raw.step(actions)[1].astype(np.float32) for _ in range(8)]
        games.reset()
        first, second = games.step(actions), games.step(actions)
    finally:
        raw.close()
        games.close()
    # Calls 7 and 8 are the reset and the next episode's first step, which costs time.
    assert (calls[7] != 0).all()
    np.testing.assert_allclose(first.rewards, np.sum(calls[:4], axis=0), rtol=1e-6)
    np.testing.assert_allclose(second.rewards, np.sum(calls[4:6], axis=0), rtol=1e-6)


def test_the_policy_alone_sees_frames_and_nothing_else(anchors, bench):
    games = anchors.NoGames(bench.RECIPE)
    obs = games.reset()
    assert obs.shape == (16, 2, 96, 96) and obs.dtype == np.uint8 and obs.std() > 0
    step = games.step(np.zeros((16, 3), np.float32))
    np.testing.assert_array_equal(step.obs, obs)
    assert not step.rewards.any() and not (step.terminated | step.truncated).any()
    assert not step.final_obs


def test_a_decisions_flops_are_its_forward_pass_and_each_epochs_share(bench):
    """The FLOP-bound limit counts one forward pass to act and, per epoch, a forward and a
    backward pass (about 3 forward passes' worth) of the decision's share of training."""
    four = bench.flops_per_decision(bench.RECIPE)
    two = bench.flops_per_decision(argparse.Namespace(**{**vars(bench.RECIPE), "epochs": 2}))
    assert four["act"] == two["act"] > 0
    assert four["train"] == pytest.approx(2 * two["train"])
    assert four["total"] == pytest.approx(four["act"] + four["train"])
    per_epoch = four["train"] / 4
    assert 2.5 * four["act"] < per_epoch < 3.5 * four["act"]


def test_the_learner_limit_is_the_peak_over_a_decisions_flops(bench):
    limit = bench.learner_limit({"a": 500.0, "b": 1000.0}, peak_gflops=100.0)
    total = limit["flops_per_decision"]["total"]
    assert limit["limit_decisions_per_s"] == pytest.approx(100e9 / total)
    assert limit["fraction_of_limit"]["b"] == pytest.approx(2 * limit["fraction_of_limit"]["a"])
    assert limit["fraction_of_limit"]["a"] == pytest.approx(500.0 / (100e9 / total))


def test_the_training_share_of_the_limit_runs_at_the_epochs_peak(bench):
    """With bfloat16 epochs the training FLOPs run at the bfloat16 matmul's peak and acting at
    float32's: a float32 peak alone would understate the limit of a bfloat16 learner."""
    limit = bench.learner_limit({"a": 500.0}, peak_gflops=100.0, epochs_peak_gflops=300.0)
    flops = limit["flops_per_decision"]
    seconds = flops["act"] / 100e9 + flops["train"] / 300e9
    assert limit["limit_decisions_per_s"] == pytest.approx(1 / seconds)
    assert limit["epochs_peak_gflops"] == 300.0 and limit["peak_gflops"] == 100.0
    same = bench.learner_limit({"a": 500.0}, peak_gflops=100.0, epochs_peak_gflops=100.0)
    assert limit["limit_decisions_per_s"] > 2 * same["limit_decisions_per_s"]


def test_each_trial_measures_the_peak_of_the_epochs_precision(bench, monkeypatch):
    seen = []
    monkeypatch.setattr(bench, "matmul_gflops", lambda dtype: seen.append(dtype) or 1.0)
    monkeypatch.setitem(bench.SIDES, "fake", bench.Side("fake", lambda updates: 1.0))
    monkeypatch.setattr(bench.RECIPE, "precision", "bf16")
    _, peaks = bench.run_trials(["fake"], updates=2, trials=2)
    assert seen == [torch.float32, torch.bfloat16] * 2
    assert set(peaks) == {"fp32", "bf16"} and all(len(v) == 2 for v in peaks.values())


def test_anchor_batches_bootstrap_as_the_collector(bench, anchors):
    """A truncated episode bootstraps from its final frame's value, a terminated one from 0
    (even where the time limit struck on the same step), and a game that goes on from its next
    decision's value, then from the value after the rollout."""
    agent = bench.train.BetaAgent(bench.RECIPE)
    frame = np.zeros((2, 96, 96), np.uint8)
    step = anchors.Transition(
        obs=np.stack([frame] * 3),
        rewards=np.zeros(3, np.float32),
        terminated=np.array([True, False, True]),
        truncated=np.array([False, True, True]),
        final_obs={0: frame, 1: frame, 2: frame},
    )
    final = bench.final_values(agent, step)
    with torch.no_grad():
        frame_value = agent(torch.from_numpy(frame[None]))[2].item()
    assert np.isnan(final[[0, 2]]).all() and final[1] == pytest.approx(frame_value)

    values = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    rollout = {
        "obs": np.zeros((2, 3, 1), np.uint8),
        "actions": np.zeros((2, 3, 3), np.float32),
        "log_probs": np.zeros((2, 3), np.float32),
        "values": values,
        "rewards": np.array([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]], np.float32),
        "terminations": np.array([[True, False, False], [False, False, False]]),
        "truncations": np.array([[False, True, False], [False, False, False]]),
        "final_values": np.array([[np.nan, 7.0, np.nan], [np.nan] * 3], np.float32),
    }
    last_value = np.array([8.0, 9.0, 10.0], np.float32)
    args = argparse.Namespace(gamma=0.5, lam=0.5)
    advantages = bench.ppo_batch(rollout, last_value, args).flat()["advantages"].reshape(2, 3)
    after = 40.0 + 0.5 * 8.0 - 4.0, 50.0 + 0.5 * 9.0 - 5.0, 60.0 + 0.5 * 10.0 - 6.0
    np.testing.assert_allclose(advantages[1], after)
    # Row 0: game 0 terminated, game 1 truncated (the chain is cut for both); game 2 goes on.
    first = 10.0 - 1.0, 20.0 + 0.5 * 7.0 - 2.0, 30.0 + 0.5 * 6.0 - 3.0 + 0.25 * after[2]
    np.testing.assert_allclose(advantages[0], first)


def test_every_lever_changes_a_real_option_and_times_both_phases(bench):
    """profile_update's levers name train.py's options (a renamed option would otherwise be
    timed as the recipe), and each lever's network is built and timed with its change."""
    profile = load("profile_update")
    for changes in profile.LEVERS.values():
        for option in changes:
            assert option == "bf16" or hasattr(bench.RECIPE, option), option
    batch = profile.Batch(256)
    update, acting = profile.time_lever({"downsample": 3, "bf16": True}, batch)
    assert update > 0 and acting > 0
    with pytest.raises(RuntimeError, match="shape|size"):
        # A stride that leaves the last convolution nothing to read fails when the network is
        # built: the change did reach BetaAgent.
        profile.time_lever({"downsample": 4, "first_stride": 5}, batch)


def test_every_side_trains_in_the_precision_auto_chose(bench, monkeypatch):
    """--precision auto is resolved once, for ours (passed to train.py) and for the anchors'
    PPO (its epochs under autocast heads); the learner before stays float32."""
    monkeypatch.setattr(bench, "auto_precision", lambda *a, **k: ("bf16", "native", None))
    args = argparse.Namespace(**{**vars(bench.RECIPE), "precision": "auto"})
    bench.resolve_precision(args)
    assert args.precision == "bf16"
    explicit = argparse.Namespace(**{**vars(bench.RECIPE), "precision": "fp32"})
    bench.resolve_precision(explicit)
    assert explicit.precision == "fp32"
    seen = []
    monkeypatch.setattr(bench, "ppo_update", lambda *a: seen.append(a[5]))
    monkeypatch.setattr(bench, "RECIPE", args)
    for agent_class in (bench.train.BetaAgent, bench.FramesEachMinibatch):
        bench.synchronous_ppo(bench.NoGames, 2, agent_class)
    assert seen[0] is not None and seen[1] is not None  # today's learner: autocast heads
    assert seen[2:] == [None, None]  # the learner before: its own heads, float32
    commands = []
    monkeypatch.setattr(bench, "train_py_rate", lambda ex, up, options=(): commands.append(options))
    bench.ours(2)
    assert commands == [("--precision", "bf16")]


def test_each_loop_runs_in_its_own_process_with_its_own_allocator(bench, monkeypatch):
    """The allocator's settings hold for a whole process: today's learner keeps freed memory
    as train.py does by default, the learner before does not, and each child trains in the
    precision the parent resolved."""
    done = []
    real_run = bench.subprocess.run

    def run(cmd, **kwargs):
        done.append(real_run(cmd, **kwargs))
        return done[-1]

    monkeypatch.setattr(bench.subprocess, "run", run)
    monkeypatch.setattr(
        bench, "RECIPE", argparse.Namespace(**{**vars(bench.RECIPE), "precision": "fp32"})
    )
    for loop in ("policy-alone", "policy-alone-before"):
        assert bench.in_fresh_process(loop)(2) > 0
    today, before = done
    assert today.args[today.args.index("--precision") + 1] == "fp32"
    assert "allocator: glibc keeps freed memory" in today.stderr
    assert "allocator" not in before.stderr


def test_each_learner_steps_its_own_adam(bench, monkeypatch):
    """Today's learner steps the fused Adam; the learner before steps Adam one kernel per tensor
    operation, as at `LEARNER_BEFORE` (the fused kernel is part of the rework)."""
    seen = []
    monkeypatch.setattr(bench, "ppo_update", lambda *a: seen.append(a[1]))
    for agent_class in (bench.train.BetaAgent, bench.FramesEachMinibatch):
        bench.synchronous_ppo(bench.NoGames, 2, agent_class)
    today, _, before, _ = seen
    assert today.defaults["fused"] is True
    assert not before.defaults["fused"] and not before.defaults["foreach"]
    assert before.defaults["eps"] == today.defaults["eps"] == 1e-5
