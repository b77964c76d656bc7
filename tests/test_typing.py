"""What a type checker sees: mypy on examples/ and on a user's script with the accessors beyond
Gymnasium's API and `Reward`, and a misspelt reward event is a mypy error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TYPING = ROOT / "tests" / "typing"


def mypy(*paths: Path) -> subprocess.CompletedProcess[str]:
    # Optional stacks the examples import (torch, skrl) need not be installed for this check.
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--ignore-missing-imports", "--no-error-summary"]
        + [str(p) for p in paths],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_examples_and_a_user_script_type_check():
    result = mypy(ROOT / "examples", TYPING / "user_script.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_misspelt_reward_event_is_a_type_error():
    result = mypy(TYPING / "reward_typo.py")
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'Unexpected keyword argument "tlie" for "Reward"' in result.stdout, result.stdout


def test_accessors_need_the_typed_helper():
    """Why `car_racing_env` exists: gym.make returns a plain gymnasium.Env to mypy."""
    result = mypy(TYPING / "unwrapped_untyped.py")
    assert result.returncode == 1 and '"car_state"' in result.stdout, result.stdout
