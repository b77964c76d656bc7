"""The integrations stay optional: importing reinfors_gym imports no training stack, and an
integration whose stack is missing says which extra to install."""

from __future__ import annotations

import subprocess
import sys

import pytest

STACKS = ("stable_baselines3", "ray", "torchrl", "torch", "skrl", "tensordict")


def run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_importing_the_package_imports_no_stack():
    result = run(
        "import sys, reinfors_gym, reinfors_gym.integrations\n"
        f"print(sorted(m for m in {STACKS!r} if m in sys.modules))"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("module", "stack", "extra"),
    [
        ("sb3", "stable_baselines3", "sb3"),
        ("rllib", "ray", "rllib"),
        ("torchrl", "torchrl", "torchrl"),
    ],
)
def test_a_missing_stack_names_its_extra(module, stack, extra):
    # `sys.modules[name] = None` makes `import name` fail as if it were not installed.
    result = run(
        f"import sys; sys.modules[{stack!r}] = None\nimport reinfors_gym.integrations.{module}"
    )
    assert result.returncode != 0
    assert "ImportError" in result.stderr
    assert f'pip install "reinfors-gym[{extra}]"' in result.stderr


def test_module_prefixed_id_resolves_in_a_fresh_process():
    """What a worker process does: gym.make without having imported reinfors_gym."""
    code = (
        "import gymnasium as gym\n"
        "from gymnasium import error\n"
        "try:\n"
        "    gym.make('reinfors/CarRacing-v0')\n"
        "except error.NamespaceNotFound:\n"
        "    print('plain id unknown')\n"
        "env = gym.make('reinfors_gym:reinfors/CarRacing-v0')\n"
        "print(type(env.unwrapped).__name__, env.reset(seed=0)[0].shape)\n"
    )
    result = run(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["plain id unknown", "CarRacingEnv (96, 96, 3)"]
