"""Checks the full parity suite's results (written by `make parity`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reinfors_gym.parity import evaluate

RESULTS = Path(__file__).resolve().parents[2] / "out" / "parity" / "results.json"


@pytest.mark.slow
def test_full_suite_meets_every_criterion():
    if not RESULTS.exists():
        pytest.skip("run `make parity` first to produce out/parity/results.json")
    data = json.loads(RESULTS.read_text())
    assert data["meta"]["seeds"] >= 100
    failed = [c for c in evaluate(data["episodes"]) if not c.passed]
    assert not failed, failed
