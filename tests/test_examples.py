"""The PPO training examples: the two variants stay in sync, and ours runs a few updates."""

from __future__ import annotations

import difflib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = ROOT / "examples" / "ppo_continuous.py"
GYMNASIUM = ROOT / "examples" / "ppo_continuous_gymnasium.py"


def test_ppo_examples_differ_only_in_make_vec_line():
    ours = OURS.read_text().splitlines()
    theirs = GYMNASIUM.read_text().splitlines()
    diff = [
        line
        for line in difflib.unified_diff(ours, theirs, lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    removed = [line[1:] for line in diff if line.startswith("-")]
    added = [line[1:] for line in diff if line.startswith("+")]
    assert len(removed) == 1 and len(added) == 1, diff
    assert "make_vec" in removed[0] and '"reinfors/CarRacing-v0"' in removed[0]
    assert "make_vec" in added[0] and '"CarRacing-v3"' in added[0]
    assert ours.index(removed[0]) == theirs.index(added[0])


def test_ppo_example_runs_a_few_updates(tmp_path):
    pytest.importorskip("torch")
    csv_path = tmp_path / "ppo.csv"
    args = [
        "--total-timesteps=2048",
        "--num-envs=4",
        "--num-steps=128",
        "--num-minibatches=4",
        "--update-epochs=1",
        "--no-cuda",
        f"--log-csv={csv_path}",
    ]
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    result = subprocess.run(
        [sys.executable, str(OURS), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    assert "SPS" in result.stdout
    assert "iteration=4/4" in result.stdout
    assert csv_path.read_text().splitlines()[0] == "global_step,episodic_return,sps"


def test_streaming_ppo_example_runs_and_writes_scalars(tmp_path):
    pytest.importorskip("torch")
    script = ROOT / "examples" / "ppo_carracing.py"
    args = ["--total-steps=1024", "--n-games=8", "--collect-size=256", "--epochs=1"]
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    result = subprocess.run(
        [sys.executable, str(script), *args, f"--out={tmp_path}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    rows = (tmp_path / "scalars.csv").read_text().splitlines()
    assert rows[0].startswith("update,env_steps,mean_return,episodes,")
    assert len(rows) == 1 + 1024 // 256
