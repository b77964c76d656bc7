"""Adapters from the native vector env to the training stacks users run.

Each submodule imports its stack lazily (importing `reinfors_gym` imports none of them) and
raises an `ImportError` naming the extra to install when the stack is missing:

- `reinfors_gym.integrations.sb3`: `make_sb3_vec_env(num_envs, **kwargs)`, a Stable-Baselines3
  `VecEnv` over `CarRacingVectorEnv` (`pip install "reinfors-gym[sb3]"`).
- `reinfors_gym.integrations.rllib`: `register(name)`, an RLlib env creator that builds the
  native vector env in every env runner (`pip install "reinfors-gym[rllib]"`).
- `reinfors_gym.integrations.torchrl`: `make_torchrl_env(num_envs, **kwargs)`, a TorchRL env
  with the frames under `"pixels"` (`pip install "reinfors-gym[torchrl]"`).

Worker processes (subprocess vector envs, Ray workers, pytest or Jupyter kernels) have not
imported `reinfors_gym`, so they cannot resolve `"reinfors/CarRacing-v0"`; Gymnasium imports
the module named before the colon of `MODULE_ENV_ID` first, so that id works everywhere.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from gymnasium.vector import AutoresetMode

from ..errors import InvalidConfig

ENV_ID = "reinfors/CarRacing-v0"
MODULE_ENV_ID = "reinfors_gym:" + ENV_ID
"""The module-prefixed id: `gym.make(MODULE_ENV_ID)` imports `reinfors_gym` first."""

__all__ = ["ENV_ID", "MODULE_ENV_ID", "require", "autoreset_mode"]


def require(module: str, extra: str) -> ModuleType:
    """Imports `module`, or raises an ImportError that names the extra providing it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f"reinfors_gym.integrations.{extra} needs `{module}`, which is not installed: "
            f'pip install "reinfors-gym[{extra}]"'
        ) from e


def autoreset_mode(mode: object, allowed: tuple[AutoresetMode, ...], stack: str) -> AutoresetMode:
    """`mode` (an `AutoresetMode`, or its value or name in any case) if `stack` takes it."""
    from ..vector import parse_autoreset_mode

    try:
        parsed = parse_autoreset_mode(mode)
    except InvalidConfig:
        parsed = None
    if parsed in allowed:
        return parsed
    names = " or ".join(m.name for m in allowed)
    raise ValueError(f"{stack} needs autoreset_mode {names}, got {mode!r}")
