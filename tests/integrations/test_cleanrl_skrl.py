"""CleanRL-style PPO (examples/ppo_continuous.py, on ours and on Gymnasium's CarRacing), the
streaming collector's PPO (examples/ppo_carracing.py) and skrl's PPO (examples/skrl_ppo.py): a
few updates each, in a subprocess as a user runs them; and the collector's log-probabilities
beside PyTorch's."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import reinfors_gym as rf

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}


def run(script: str, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), *args],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    return result.stdout


@pytest.mark.parametrize("env", ["ours", "gymnasium"])
def test_cleanrl_style_ppo_runs_one_update(tmp_path, env):
    csv_path = tmp_path / "ppo.csv"
    out = run(
        "ppo_continuous.py",
        f"--env={env}",
        "--total-timesteps=256",
        "--num-envs=4",
        "--num-steps=64",
        "--num-minibatches=2",
        "--update-epochs=1",
        "--no-cuda",
        f"--log-csv={csv_path}",
    )
    assert "iteration=1/1" in out and "SPS" in out
    assert csv_path.read_text().splitlines()[0] == "global_step,episodic_return,sps"


def test_skrl_ppo_runs_one_update():
    out = run("skrl_ppo.py", "--num-envs=4", "--timesteps=32", "--rollouts=32")
    assert "timesteps=32 policy_updated=True" in out


def test_streaming_ppo_example_runs_and_writes_scalars(tmp_path):
    run(
        "ppo_carracing.py",
        "--total-steps=2048",
        "--n-games=8",
        "--collect-size=256",
        "--epochs=1",
        "--frame-skip=4",  # 250 decisions an episode: some end within the run
        "--step-reward=-0.05",
        "--off-road-reward=-0.25",
        f"--out={tmp_path}",
    )
    with open(tmp_path / "scalars.csv") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0])[:4] == ["update", "env_steps", "mean_return", "episodes"]
    assert len(rows) == 2048 // 256
    # A shaped training reward is logged beside Gymnasium's score of the same episodes.
    done = [r for r in rows if int(r["episodes"])]
    assert done and all(float(r["mean_length"]) > 0 for r in done)
    assert all(float(r["gymnasium_return"]) != float(r["mean_return"]) for r in done)


def test_streaming_ppo_with_native_options_exports_a_policy_evaluate_runs(tmp_path):
    policy = tmp_path / "policy.pt2"
    small_run = ["--total-steps=512", "--n-games=8", "--collect-size=256", "--epochs=1"]
    options = ["--frame-skip=2", "--stack-num=2", "--grayscale"]
    out = run("ppo_carracing.py", *small_run, *options, f"--out={tmp_path}", f"--export={policy}")
    assert "'stack_num': 2" in out and policy.exists()
    result = run("evaluate.py", "--env=reinfors", f"--checkpoint={policy}", "--seeds=0", "--json")
    assert '"seeds": [0]' in result.splitlines()[-1]

    # A second stage starts from that policy and anneals the noise to --final-log-std.
    tuned = tmp_path / "tuned.pt2"
    run(
        "ppo_carracing.py",
        *small_run,
        *options,
        f"--init-from={policy}",
        "--final-log-std=-1.5",
        "--seed=2",  # a fresh network would differ from the first stage's
        f"--out={tmp_path / 'stage2'}",
        f"--export={tuned}",
    )
    first = torch.export.load(str(policy)).state_dict
    second = torch.export.load(str(tuned)).state_dict
    torch.testing.assert_close(second["log_std"], torch.full((3,), -1.5))
    # The weights it started from are the first stage's (one update of a small lr moves them
    # only a little); a fresh network's orthogonal init would be far away.
    drift = (second["trunk.0.weight"] - first["trunk.0.weight"]).abs().max().item()
    assert drift < 0.01

    # A policy trained on other observations is refused by name, before any training.
    mismatch = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "ppo_carracing.py"), *small_run,
         "--frame-skip=2", "--stack-num=3", "--grayscale", f"--init-from={policy}",
         f"--out={tmp_path / 'mismatch'}"],
        cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert mismatch.returncode != 0
    assert "'stack_num': 2" in mismatch.stderr and "'stack_num': 3" in mismatch.stderr


def test_collector_log_probs_equal_torch_normal():
    mean = np.array([0.1, 0.6, 0.05], np.float32)
    log_std = np.array([-1.0, -0.7, -2.0], np.float32)

    def infer(obs):
        n = len(obs)
        return np.tile(np.concatenate([mean, log_std]), (n, 1)), np.zeros(n, np.float32)

    batch = rf.Engine(n_games=4, n_threads=2, seed=0).collect(4 * 30, infer)
    dist = torch.distributions.Normal(torch.tensor(mean), torch.tensor(np.exp(log_std)))
    expect = dist.log_prob(torch.tensor(batch.actions)).sum(-1).numpy()
    np.testing.assert_allclose(batch.behavior_log_probs, expect, atol=1e-4)


def test_envpool_style_async_ppo_runs_one_update():
    out = run(
        "ppo_envpool_async.py",
        "--num-envs=4",
        "--batch-size=2",
        "--num-steps=8",
        "--total-timesteps=16",
        "--threads=1",
    )
    assert "update 1: env steps 36, trained rows 14" in out, out


def test_async_gae_equals_each_envs_own_gae():
    """The example's GAE over received batches equals plain GAE run on each sub-env's own
    sequence of rows (the last row of each, with no successor, left out)."""
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        from ppo_envpool_async import advantages
    finally:
        sys.path.pop(0)
    rng = np.random.default_rng(0)
    num_envs, batch, steps, gamma, lam = 5, 3, 40, 0.9, 0.8
    ids = np.stack([rng.choice(num_envs, batch, replace=False) for _ in range(steps)])
    rewards = rng.normal(size=ids.shape).astype(np.float32)
    dones = (rng.random(ids.shape) < 0.15).astype(np.float32)
    values = rng.normal(size=ids.shape).astype(np.float32)
    adv, valid = advantages(ids, rewards, dones, values, num_envs, gamma, lam)
    for e in range(num_envs):
        rows = np.argwhere(ids == e)  # in time order
        v = np.array([values[t, k] for t, k in rows])
        r = np.array([rewards[t, k] for t, k in rows])
        d = np.array([dones[t, k] for t, k in rows])
        want, last = np.zeros(len(rows) - 1), 0.0
        for j in range(len(rows) - 2, -1, -1):
            keep = 1.0 - d[j + 1]
            delta = r[j + 1] + gamma * v[j + 1] * keep - v[j]
            last = delta + gamma * lam * keep * last
            want[j] = last
        got = np.array([adv[t, k] for t, k in rows[:-1]])
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        assert all(valid[t, k] for t, k in rows[:-1]) and not valid[tuple(rows[-1])]
