"""`--help` of the examples that need PyTorch, skrl or SB3 states every option's default."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "help_check", Path(__file__).resolve().parent.parent / "help_check.py"
)
assert _spec and _spec.loader
help_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(help_check)


@pytest.mark.parametrize(
    "script",
    [
        "examples/evaluate.py",
        "examples/ppo_carracing.py",
        "examples/ppo_continuous.py",
        "examples/skrl_ppo.py",
        "tools/lap_stats.py",
        "tools/noise_cost.py",
    ],
)
def test_help_states_defaults(script: str) -> None:
    assert help_check.options_without_default([script]) == []
