"""examples/evaluate.py: a checkpoint runs on Gymnasium's own CarRacing-v3 and on ours with the
same preprocessing, which equals the vector env's native options."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "evaluate.py"
PREPROCESSING = {"frame_skip": 2, "stack_num": 3, "grayscale": True}


def load_script():
    spec = importlib.util.spec_from_file_location("evaluate", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class SteadyGas(torch.nn.Module):
    """Straight ahead at half gas, whatever it sees (checks the plumbing, not driving)."""

    def forward(self, obs: torch.Tensor):
        n = obs.shape[0]
        mean = torch.tensor([[0.0, 0.5, 0.0]]).expand(n, 3)
        return mean, torch.full((n, 3), -1.0), torch.zeros(n)


def test_the_wrappers_equal_the_native_options():
    evaluate = load_script()
    ours = evaluate.make_env("reinfors", PREPROCESSING)
    native = gym.make_vec(
        "reinfors/CarRacing-v0", num_envs=1, frame_skip=2, stack_num=3, grayscale=True
    )
    a, _ = ours.reset(seed=5)
    b, _ = native.reset(seed=5)
    np.testing.assert_array_equal(np.asarray(a), b[0])
    for _ in range(40):
        action = np.array([0.3, 0.6, 0.0])
        a, ra, *_ = ours.step(action)
        b, rb, *_ = native.step(action[None])
        np.testing.assert_array_equal(np.asarray(a), b[0])
        assert abs(ra - rb[0]) < 1e-9


def test_a_checkpoint_scores_alike_on_both_envs(tmp_path):
    evaluate = load_script()
    path = tmp_path / "policy.pt2"
    evaluate.save_checkpoint(SteadyGas(), str(path), PREPROCESSING)
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    results = {}
    for which in ("gymnasium", "reinfors"):
        run = subprocess.run(
            [sys.executable, str(SCRIPT), "--env", which, "--checkpoint", str(path),
             "--seeds", "3-4", "--json"],
            capture_output=True, text=True, env=env, timeout=600, check=True,
        )  # fmt: skip
        results[which] = json.loads(run.stdout.strip().splitlines()[-1])
        assert "seed 3:" in run.stdout and "95%" in run.stdout
    gym_run, ours = results["gymnasium"], results["reinfors"]
    assert gym_run["seeds"] == ours["seeds"] == [3, 4]
    assert gym_run["env"] == "gymnasium" and ours["env"] == "reinfors"
    for theirs, mine in zip(gym_run["returns"], ours["returns"], strict=True):
        assert abs(mine - theirs) <= 0.02 * abs(theirs) + 1e-6, (mine, theirs)
    assert ours["mean"] == np.mean(ours["returns"])


def test_the_gymnasium_side_imports_nothing_of_ours(tmp_path):
    evaluate = load_script()
    path = tmp_path / "policy.pt2"
    evaluate.save_checkpoint(SteadyGas(), str(path), {})
    code = (
        "import sys, runpy\n"
        f"sys.argv = ['evaluate.py', '--env', 'gymnasium', '--checkpoint', {str(path)!r},"
        " '--seeds', '0']\n"
        "try:\n"
        f"    runpy.run_path({str(SCRIPT)!r}, run_name='__main__')\n"
        "except SystemExit as e:\n"
        "    assert e.code in (0, None), f'evaluate.py exited with {e.code!r}'\n"
        "assert not [m for m in sys.modules if m.startswith('reinfors_gym')], 'imported'\n"
    )
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    subprocess.run([sys.executable, "-c", code], env=env, timeout=300, check=True)


def test_seed_ranges():
    evaluate = load_script()
    assert evaluate.parse_seeds("3-5") == [3, 4, 5]
    assert evaluate.parse_seeds("7") == [7]
    assert evaluate.parse_seeds("0-1,10") == [0, 1, 10]
