"""tools/noise_cost.py: its end points are evaluate.py's two runs, and each set between them
samples exactly the dimensions it names."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "noise_cost.py"
SHIPPED = ROOT / "examples" / "checkpoints" / "carracing_ppo.pt2"

sys.path.insert(0, str(SCRIPT.parent))
import noise_cost  # noqa: E402 - tools/ is no package

SEED, SAMPLE_SEED = 2003, 1


def evaluate_py(sample: bool) -> float:
    evaluate = noise_cost.evaluate
    policy, preprocessing, distribution = evaluate.load_policy(str(SHIPPED))
    env = evaluate.make_env("reinfors", preprocessing)
    try:
        return evaluate.run_episode(env, policy, SEED, sample, SAMPLE_SEED, distribution)
    finally:
        env.close()


def test_no_set_and_every_dimension_are_evaluate_pys_mean_and_sampled_runs():
    def cost(sampled: tuple[str, ...]) -> float:
        return noise_cost.episode(("reinfors", str(SHIPPED), SEED, SAMPLE_SEED, sampled))

    assert cost(()) == evaluate_py(sample=False)
    assert cost(noise_cost.DIMENSIONS) == evaluate_py(sample=True)
    # One dimension sampled is neither: its episode differs from both ends.
    for dimension in ("steer", "brake"):
        assert cost((dimension,)) not in (cost(()), cost(noise_cost.DIMENSIONS))


def test_sets_are_parsed_in_the_dimensions_order():
    assert noise_cost.parse_dimensions("brake+steer") == ("steer", "brake")
    assert noise_cost.parse_dimensions("none") == ()
    assert noise_cost.parse_dimensions("all") is None
    assert len(noise_cost.ALL_SETS) == 8 == len(set(noise_cost.ALL_SETS))
    for bad in ("steer+steer", "throttle", ""):
        with pytest.raises(Exception, match="want 'none', 'all'"):
            noise_cost.parse_dimensions(bad)


def test_the_command_prints_a_row_per_set():
    run = subprocess.run(
        [sys.executable, str(SCRIPT), str(SHIPPED), "--seeds", f"{SEED}",
         "--sample-seed", str(SAMPLE_SEED), "--sets", "none", "gas+brake", "--json"],
        capture_output=True, text=True, timeout=600, check=True, cwd=ROOT,
    )  # fmt: skip
    lines = run.stdout.strip().splitlines()
    assert lines[0].split()[:2] == ["sampled", "dimensions"]
    assert [line.split()[0] for line in lines[1:3]] == ["none", "gas+brake"]
    record = json.loads(lines[-1])
    assert record["seeds"] == [SEED]
    assert record["returns"]["none"] == [evaluate_py(sample=False)]
    assert float(lines[1].split()[1]) == pytest.approx(np.mean(record["returns"]["none"]), abs=0.05)


class SteadyNormal(torch.nn.Module):
    """A Normal policy (mean, log-std, value) that ignores what it sees."""

    def forward(self, obs: torch.Tensor):
        n = obs.shape[0]
        return torch.zeros(n, 3), torch.zeros(n, 3), torch.zeros(n)


def test_bad_input_is_a_usage_error(tmp_path):
    """A missing checkpoint, a bad seed range or a policy that is not a Beta: one line of usage
    error, exit status 2, no traceback."""
    normal = tmp_path / "normal.pt2"
    preprocessing = {"frame_skip": 4, "stack_num": 2, "grayscale": True}
    noise_cost.evaluate.save_checkpoint(
        SteadyNormal(), str(normal), preprocessing, distribution="normal"
    )
    for checkpoint, seeds, message in (
        (tmp_path / "missing.pt2", "2000", "missing.pt2"),
        (SHIPPED, "9-1", "bad seed range"),
        (normal, "2000", "reads Beta policies"),
    ):
        run = subprocess.run(
            [sys.executable, str(SCRIPT), str(checkpoint), "--seeds", seeds],
            capture_output=True, text=True, timeout=600, cwd=ROOT,
        )  # fmt: skip
        assert run.returncode == 2, run.stderr
        assert "Traceback" not in run.stderr and message in run.stderr.splitlines()[-1]
