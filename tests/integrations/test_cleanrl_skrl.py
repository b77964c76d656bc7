"""CleanRL-style PPO (examples/ppo_continuous.py) and skrl's PPO (examples/skrl_ppo.py): one
update each, on the native vector env, in a subprocess as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


def test_cleanrl_style_ppo_runs_one_update(tmp_path):
    csv_path = tmp_path / "ppo.csv"
    out = run(
        "ppo_continuous.py",
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
