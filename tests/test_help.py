"""`--help` of the commands the main venv runs states every option's default (the examples
that need PyTorch are checked in the integration suite, tests/integrations/test_help.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "help_check", Path(__file__).resolve().parent / "help_check.py"
)
assert _spec and _spec.loader
help_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(help_check)


@pytest.mark.parametrize(
    "command",
    [
        ["-m", "reinfors_gym.parity"],
        ["-m", "reinfors_gym.play"],
        ["examples/random_drive.py"],
        ["tools/gen_figures.py"],
    ],
    ids=" ".join,
)
def test_help_states_defaults(command: list[str]) -> None:
    assert help_check.options_without_default(command) == []
