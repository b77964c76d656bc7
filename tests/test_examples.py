"""The PPO training examples without PyTorch: the CleanRL-style script's `--env` choices and the
one GAE the examples and benchmarks share. Running the scripts needs torch: that is
tests/integrations/test_cleanrl_skrl.py, in the virtualenv that has it (make test-integrations)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gymnasium as gym
import pytest

import reinfors_gym

ROOT = Path(__file__).resolve().parents[1]
CLEANRL = ROOT / "examples" / "ppo_continuous.py"


def script_names(path: Path, *names: str) -> dict[str, Any]:
    """The top-level functions and assignments `names` of a script, run without its imports
    (the script exits where torch is missing), beside Gymnasium."""
    tree = ast.parse(path.read_text())
    wanted = [
        node
        for node in tree.body
        if (isinstance(node, ast.FunctionDef) and node.name in names)
        or (isinstance(node, ast.Assign) and node.targets[0].id in names)  # type: ignore[attr-defined]
    ]
    namespace: dict[str, Any] = {"gym": gym, "Args": SimpleNamespace}
    exec(compile(ast.Module(body=wanted, type_ignores=[]), str(path), "exec"), namespace)
    return {name: namespace[name] for name in names}


@pytest.mark.parametrize(
    "env, vector_class, env_id",
    [
        ("ours", reinfors_gym.CarRacingVectorEnv, "reinfors/CarRacing-v0"),
        ("gymnasium", gym.vector.AsyncVectorEnv, "CarRacing-v3"),
    ],
)
def test_cleanrl_ppo_makes_the_vector_env_of_each_env_choice(
    env, vector_class, env_id, gym_car_racing
):
    # gym_car_racing: conftest's fixture imports Box2D the way this suite's warnings allow.
    found = script_names(CLEANRL, "make_envs", "CHOICES")
    assert found["CHOICES"]["env"] == ["ours", "gymnasium"]
    envs = found["make_envs"](SimpleNamespace(env=env, num_envs=2))
    try:
        assert isinstance(envs, vector_class) and envs.num_envs == 2
        assert envs.spec is not None and envs.spec.id == env_id
        # The script is written for this autoreset mode (it asserts it too).
        assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    finally:
        envs.close()


def test_gae_is_written_once_in_examples_and_bench():
    """examples/gae.py is the only Python GAE recurrence there (the collector has its own)."""
    recurrence = re.compile(r"gamma \* (lam|args\.gae_lambda|args\.lam)\b")
    found = [
        str(path.relative_to(ROOT))
        for folder in ("examples", "bench")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if recurrence.search(path.read_text())
    ]
    assert found == ["examples/gae.py"]
