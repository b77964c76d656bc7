"""The documentation's `<!-- snippet: needs EXTRA -->` blocks (README.md, docs/) run as pasted,
each in the integration virtualenv that has its extra: the blocks users copy first.

tests/test_snippets.py runs the other blocks in the main virtualenv; it cannot run these, whose
packages (SB3, TorchRL, skrl, RLlib) only the integration virtualenvs install. Each lane
(tests/integrations/requirements-LANE.txt, the virtualenv .venv-LANE) provides the extras whose
every package its requirements file names; this file runs in every lane (the Makefile's
test-integrations-sb3 and test-integrations-rllib) and runs the blocks of the lane it is in. A
block whose extra no lane provides fails here, in every lane: every block runs somewhere.

Blocks run from a fresh interpreter in an empty directory, as in tests/test_snippets.py (the
same collector and runner, tests/doc_blocks.py). Two blocks train for as long as a real run
would (SB3's `learn(1_000_000)`, RLlib's `algo.train()` with PPO's default batch): CAPS shortens
that training from a prelude run before the block, leaving the block's text as documented.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

_spec = importlib.util.spec_from_file_location(
    "doc_blocks", Path(__file__).resolve().parents[1] / "doc_blocks.py"
)
assert _spec and _spec.loader
doc_blocks = importlib.util.module_from_spec(_spec)
sys.modules["doc_blocks"] = doc_blocks  # its dataclass looks its module up while defined
_spec.loader.exec_module(doc_blocks)

ROOT = doc_blocks.ROOT
#: One lane per requirements file: requirements-sb3.txt -> "sb3" (.venv-sb3).
LANES = {
    path.stem.removeprefix("requirements-"): path
    for path in sorted((ROOT / "tests" / "integrations").glob("requirements-*.txt"))
}
#: Seconds one block may run: importing torch and starting 8 SubprocVecEnv workers, each importing
#: SB3 and torch, takes ~60 s on the project's 2 shared cores; Ray starts a cluster.
TIMEOUT_S = 300

# Run before the block in its interpreter: training stops after a few steps, so the block's
# imports, calls and model set-up run as pasted, and the training loop starts, in seconds.
# SB3: a callback that stops `learn()` after 16 vector steps (a rollout of PPO's defaults is
# 2048; the gradient step is tests/integrations/test_sb3.py's).
SB3_CAP = """\
from stable_baselines3.common.callbacks import BaseCallback as _BaseCallback
from stable_baselines3.common.on_policy_algorithm import OnPolicyAlgorithm as _OnPolicy


class _StopAfter16Steps(_BaseCallback):
    def _on_step(self):
        return self.n_calls < 16


def _capped(learn):
    def capped_learn(self, total_timesteps, callback=None, **kwargs):
        stop = _StopAfter16Steps()
        return learn(self, total_timesteps, [callback, stop] if callback else stop, **kwargs)

    return capped_learn


_OnPolicy.learn = _capped(_OnPolicy.learn)
"""
# RLlib: one iteration is test_rllib.py's tiny one (64 steps, one epoch), not PPO's default
# 4000-step batch over 30 epochs (over 400 s on 2 cores).
RLLIB_CAP = """\
from ray.rllib.algorithms.algorithm_config import AlgorithmConfig as _AlgorithmConfig


def _capped(build_algo):
    def capped_build_algo(self, *args, **kwargs):
        self.training(train_batch_size_per_learner=64, minibatch_size=32, num_epochs=1)
        self.env_runners(rollout_fragment_length="auto")
        return build_algo(self, *args, **kwargs)

    return capped_build_algo


_AlgorithmConfig.build_algo = _capped(_AlgorithmConfig.build_algo)
"""
CAPS = {"sb3": SB3_CAP, "rllib": RLLIB_CAP}

NEEDS = [s for s in doc_blocks.SNIPPETS if s.needs is not None]


def extra_requirements(extra: str) -> list[Requirement]:
    """The packages of pyproject.toml's `[extra]` (this checkout's, not an installed copy's)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [Requirement(r) for r in project["optional-dependencies"].get(extra, [])]


def lane_packages(lane: str) -> set[str]:
    """The packages a lane's requirements file installs."""
    lines = (line.split("#")[0].strip() for line in LANES[lane].read_text().splitlines())
    return {canonicalize_name(Requirement(line).name) for line in lines if line}


def lanes_providing(extra: str) -> list[str]:
    """The lanes whose requirements name every package of the extra."""
    wanted = {canonicalize_name(r.name) for r in extra_requirements(extra)}
    return [lane for lane in LANES if wanted and wanted <= lane_packages(lane)]


def installed(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def current_lanes() -> list[str]:
    """The lanes this interpreter is: every package of their requirements file is installed."""
    return [lane for lane in LANES if all(installed(p) for p in lane_packages(lane))]


HERE = current_lanes()


def test_every_extra_block_has_a_lane_that_runs_it():
    assert {"sb3", "torchrl", "skrl", "rllib"} <= {s.needs for s in NEEDS}
    nowhere = [f"{s.id} [{s.needs}]" for s in NEEDS if not lanes_providing(s.needs)]
    assert not nowhere, f"no integration lane ({', '.join(LANES)}) provides: {nowhere}"
    assert set(CAPS) <= {s.needs for s in NEEDS}, "a cap for an extra no block needs"


def test_this_interpreter_is_an_integration_lane():
    missing = {lane: sorted(p for p in lane_packages(lane) if not installed(p)) for lane in LANES}
    assert len(HERE) == 1, f"not exactly one lane's packages installed here; missing: {missing}"


@pytest.mark.parametrize(
    "snippet",
    [s for s in NEEDS if any(lane in HERE for lane in lanes_providing(s.needs))],
    ids=lambda s: s.id,
)
def test_extra_block_runs_as_pasted(snippet, tmp_path):
    for req in extra_requirements(snippet.needs):
        version = installed(req.name)
        assert version and req.specifier.contains(version, prereleases=True), (
            f"{snippet.id} needs [{snippet.needs}]: {req} (installed: {version})"
        )
    result = doc_blocks.run_snippet(
        snippet, tmp_path, prelude=CAPS.get(snippet.needs, ""), timeout=TIMEOUT_S
    )
    assert result.returncode == 0, (
        f"{snippet.id} fails when pasted into a fresh interpreter:\n{result.stderr[-3000:]}"
    )
