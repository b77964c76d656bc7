"""The systems under comparison, and the measurement kinds a worker runs (`KINDS`).

Every measurement runs inside a fresh worker process (see `worker.py`) and returns a dict of
numbers. Loops are written the same way for every system: actions are drawn up front from a
seeded generator (uniform over the continuous box, or uniform over the 5 discrete actions), the
observation frame is produced every step as each env does it, episodes end at 1000 steps (or
earlier by the env's own rules) and are reset, a warm-up is run and discarded, then the clock
runs for `seconds` (`measuring.py`). The loops: `env_loops.py` (single and vector envs, resets,
memory), `collector_loops.py` (PPO collectors), `policy_loops.py` (a policy between steps).

Systems are grouped in families (`--systems` selects families):

- ``ours``: reinfors-gym (this package);
- ``gymnasium``: Gymnasium's ``CarRacing-v3`` (``gymnasium[box2d]``);
- ``envpool``: EnvPool's ``CarRacing-v3`` (``envpool.make_gymnasium``);
- ``reinfors``: reinfors' ``car_racing`` game (``reinfors.Env`` / ``reinfors.Engine``).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass

from .collector_loops import collector, overlap, zero_infer_factory
from .env_loops import make_vector, memory, reset_cost, single, vector
from .loops import measure
from .measuring import CHUNK, EPISODE_STEPS, Skip
from .policy_loops import nature_cnn_agent, policy_async_loop, policy_loop
from .process_memory import tree_memory_bytes

__all__ = [
    "CHUNK",
    "EPISODE_STEPS",
    "FAMILIES",
    "KINDS",
    "VARIANTS",
    "Skip",
    "Variant",
    "collector",
    "make_vector",
    "memory",
    "missing_requirement",
    "overlap",
    "policy_async_loop",
    "policy_loop",
    "reset_cost",
    "single",
    "tree_memory_bytes",
    "vector",
    "zero_infer_factory",
]

# bench/profile_policy_loop.py builds the same agent by this name.
_nature_cnn_agent = nature_cnn_agent


@dataclass(frozen=True)
class Variant:
    """One way of running one system (a row label in reports)."""

    name: str
    family: str
    label: str
    requires: tuple[str, ...] = ()


FAMILIES = {
    "ours": "reinfors-gym (this package)",
    "gymnasium": "Gymnasium CarRacing-v3",
    "envpool": "EnvPool CarRacing-v3",
    "reinfors": "reinfors car_racing",
}

VARIANTS = {
    v.name: v
    for v in (
        Variant("ours-gym", "ours", "reinfors-gym, gym.make"),
        Variant("ours-raw", "ours", "reinfors-gym, raw CarRacingEnv"),
        Variant("ours-vector", "ours", "reinfors-gym CarRacingVectorEnv"),
        Variant("ours-vector-discrete", "ours", "reinfors-gym vector env (discrete, raw loop)"),
        Variant("ours-engine", "ours", "reinfors-gym Engine (zero-cost infer)"),
        Variant("policy-alone", "ours", "the policy alone, no env (ceiling)", ("torch",)),
        Variant("gymnasium", "gymnasium", "Gymnasium CarRacing-v3", ("gymnasium", "Box2D")),
        Variant("gymnasium-async", "gymnasium", "Gymnasium AsyncVectorEnv", ("gymnasium", "Box2D")),
        Variant("envpool", "envpool", "EnvPool CarRacing-v3", ("envpool",)),
        Variant("reinfors", "reinfors", "reinfors Env (discrete, float CHW)", ("reinfors",)),
        Variant("reinfors-engine", "reinfors", "reinfors Engine (zero-cost infer)", ("reinfors",)),
    )
}


def missing_requirement(variant: str) -> str | None:
    """The first module `variant` needs that is not importable here, or None."""
    for module in VARIANTS[variant].requires:
        if importlib.util.find_spec(module) is None:
            return module
    return None


KINDS: dict[str, Callable[..., dict]] = {
    "loop": measure,
    "policy": policy_loop,
    "policy-async": policy_async_loop,
    "single": single,
    "vector": vector,
    "reset": reset_cost,
    "memory": memory,
    "collector": collector,
    "overlap": overlap,
}
