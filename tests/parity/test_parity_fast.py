"""The CI subset of the parity suite: every action family, two seeds, 150 steps, every frame.

The full suite (100 seeds per family, full episodes) is `make parity`; its results are checked
by `test_parity_full.py` and rendered into docs/parity.md.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict

import pytest

# A declared test dependency: a broken install must fail, not turn into green skips.
try:
    # As importorskip did: SWIG's import-time DeprecationWarnings are errors in this suite.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import Box2D  # noqa: F401
except ImportError as e:
    raise ImportError(f"parity needs gymnasium[box2d]: pip install -e '.[test]' ({e})") from e

from reinfors_gym.parity import FAMILIES, evaluate, run_episode  # noqa: E402


@pytest.mark.parametrize("family", FAMILIES)
def test_family_matches_gymnasium(family):
    records = [asdict(run_episode(family, seed, max_steps=150, frame_every=1)) for seed in (0, 1)]
    for criterion in evaluate(records):
        assert criterion.passed, f"{criterion.name}: {criterion.observed} ({criterion.tolerance})"
    for rec in records:
        # Stronger than the criteria: within this window the simulations agree exactly.
        assert rec["max_reward_diff"] == 0.0
        assert rec["max_hull_error"] == 0.0
        assert rec["first_state_divergence"] is None
        assert max(rec["frame_mad_agreeing"]) <= 2.0
