"""What scripts and users import from the package's modules stays where it was when a module is
split by concern, and pickles name the public modules, not the private ones behind them."""

from __future__ import annotations

import importlib
import io
import pickle

import numpy as np
import pytest

import reinfors_gym as rf
from reinfors_gym import Batch

SURFACE = {
    "reinfors_gym.engine": (
        "DISTRIBUTIONS",
        "Batch",
        "CollectStream",
        "Engine",
        "Infer",
        "Reward",
        "games",
        "learners",
        "policies",
        "_PpoLearner",
        "_PpoPolicy",
    ),
    "reinfors_gym.vector": ("CarRacingVectorEnv", "parse_autoreset_mode", "_rebuild_vector_env"),
    "reinfors_gym.benchmarks.harness": (
        "FAMILIES",
        "PACKAGE_ROOT",
        "SCHEMA",
        "SECTIONS",
        "SECTIONS_ORDER",
        "VARIANTS",
        "Config",
        "Measurement",
        "Section",
        "alternating",
        "comparisons",
        "dump",
        "load",
        "load_average",
        "machine_info",
        "missing_requirement",
        "plan",
        "print_machine_info",
        "ratio",
        "relative_spread",
        "run_benchmarks",
        "run_plan",
        "run_worker",
        "summarize",
        "usable_cores",
        "validate",
        "_row",
    ),
    "reinfors_gym.benchmarks.systems": (
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
        "_nature_cnn_agent",
    ),
}


@pytest.mark.parametrize("module", sorted(SURFACE))
def test_names_stay_importable_where_they_were(module):
    found = vars(importlib.import_module(module))
    assert [name for name in SURFACE[module] if name not in found] == []


def _classes_named(data: bytes) -> set[tuple[str, str]]:
    """The (module, name) of every class a pickle refers to."""
    named: set[tuple[str, str]] = set()

    class Recorder(pickle.Unpickler):
        def find_class(self, module: str, name: str) -> object:
            named.add((module, name))
            return super().find_class(module, name)

    Recorder(io.BytesIO(data)).load()
    return named


def test_pickles_name_the_modules_users_import_from():
    engine = rf.Engine(
        policy=rf.policies.Ppo("beta"),
        learner=rf.learners.Ppo(gamma=0.9),
        n_games=1,
        n_threads=1,
        seed=0,
    )
    batch = Batch(*[np.zeros((0, 1), np.float32)] * 14)
    named = _classes_named(pickle.dumps(engine)) | _classes_named(pickle.dumps(batch))
    ours = {(module, name) for module, name in named if module.startswith("reinfors_gym")}
    assert ours == {
        ("reinfors_gym.engine", "Engine"),
        ("reinfors_gym.engine", "Reward"),
        ("reinfors_gym.engine", "_PpoPolicy"),
        ("reinfors_gym.engine", "_PpoLearner"),
        ("reinfors_gym.engine", "Batch"),
        ("reinfors_gym.spec", "CarRacingSpec"),
    }
