"""tools/lap_stats.py: each lap's columns agree with its return and with the policy's actions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "lap_stats.py"
SHIPPED = ROOT / "examples" / "checkpoints" / "carracing_ppo.pt2"

sys.path.insert(0, str(SCRIPT.parent))
import lap_stats  # noqa: E402 - tools/ is no package


class SteadyBeta(torch.nn.Module):
    """Straight ahead; mean gas 3/5, mean brake 1.05/21.05, whatever it sees."""

    def forward(self, obs: torch.Tensor):
        n = obs.shape[0]
        alpha = torch.tensor([[2.0, 3.0, 1.05]]).expand(n, 3)
        return alpha, torch.tensor([[2.0, 2.0, 20.0]]).expand(n, 3), torch.zeros(n)


def gymnasium_score(row: dict, n_tiles: int) -> float:
    """CarRacing's return from the columns: 1000/N per tile visited, -0.1 per step."""
    return 1000.0 * round(row["tiles"] * n_tiles) / n_tiles - 0.1 * row["steps"]


@pytest.mark.parametrize("which", ["gymnasium", "reinfors"])
def test_a_lap_that_leaves_the_road_does_not_end(tmp_path, which):
    checkpoint = tmp_path / "steady.pt2"
    preprocessing = {"frame_skip": 4, "stack_num": 2, "grayscale": True}
    lap_stats.evaluate.save_checkpoint(
        SteadyBeta(), str(checkpoint), preprocessing, distribution="beta"
    )
    row = lap_stats.lap((which, str(checkpoint), 5))
    assert row["seed"] == 5
    assert row["gas"] == pytest.approx(0.6, abs=1e-6)
    assert row["brake"] == pytest.approx(1.05 / 21.05, abs=1e-6)
    assert not row["lap_ended"]
    assert 0.0 < row["tiles"] < 0.5
    env = lap_stats.evaluate.make_env(which, preprocessing)
    try:
        env.reset(seed=5)
        n_tiles = len(env.unwrapped.track)
        assert row["track_tiles"] == n_tiles
        policy, _, distribution = lap_stats.evaluate.load_policy(str(checkpoint))
        expected = lap_stats.evaluate.run_episode(env, policy, 5, False, 0, distribution)
    finally:
        env.close()
    # The same episode evaluate.py scores.
    assert row["return"] == pytest.approx(expected, abs=1e-6)
    if row["steps"] < 1000:
        # Off the playfield: the last step pays -100 instead of its -0.1.
        assert row["return"] == pytest.approx(gymnasium_score(row, n_tiles) + 0.1 - 100, abs=1e-3)
    else:
        assert row["return"] == pytest.approx(gymnasium_score(row, n_tiles), abs=1e-3)


def test_the_shipped_policy_ends_its_lap_with_every_tile():
    row = lap_stats.lap(("reinfors", str(SHIPPED), 2000))
    assert row["lap_ended"] and row["steps"] < 1000
    assert row["tiles"] > 0.99
    assert row["return"] > 900
    assert 0.0 < row["brake"] < row["gas"] < 1.0


def test_the_command_prints_a_row_per_seed_and_a_summary():
    run = subprocess.run(
        [sys.executable, str(SCRIPT), str(SHIPPED), "--seeds", "2000-2001", "--json"],
        capture_output=True, text=True, timeout=600, check=True, cwd=ROOT,
    )  # fmt: skip
    lines = run.stdout.strip().splitlines()
    header = ["seed", "return", "steps", "track", "tiles", "lap", "ended", "gas", "brake"]
    assert lines[0].split() == header
    assert [line.split()[0] for line in lines[1:3]] == ["2000", "2001"]
    assert lines[3].startswith("2 laps: mean return")
    laps = json.loads(lines[-1])["laps"]
    # The track column is the track's length in tiles, the pace the ended laps' steps per tile.
    assert [int(line.split()[3]) for line in lines[1:3]] == [r["track_tiles"] for r in laps]
    ended = [r for r in laps if r["lap_ended"]]
    pace = sum(r["steps"] for r in ended) / sum(r["track_tiles"] for r in ended)
    assert f"({pace:.2f} steps per tile)" in lines[3]
    assert [r["seed"] for r in laps] == [2000, 2001]
    assert np.mean([r["return"] for r in laps]) == pytest.approx(
        float(lines[3].split()[4].rstrip(";")), abs=0.05
    )
