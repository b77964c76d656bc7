"""The policies under examples/checkpoints/: each stored once, and the shipped one where the docs
say it comes from."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKPOINTS = ROOT / "examples" / "checkpoints"


def test_every_policy_is_stored_once() -> None:
    by_digest: dict[str, list[str]] = defaultdict(list)
    for path in sorted(CHECKPOINTS.rglob("*.pt2")):
        by_digest[hashlib.sha256(path.read_bytes()).hexdigest()].append(str(path.relative_to(ROOT)))
    copies = [paths for paths in by_digest.values() if len(paths) > 1]
    assert not copies, f"the same policy stored more than once: {copies}"


def test_the_shipped_policy_is_the_run_the_docs_name() -> None:
    """docs/training.md: recipe 10's seed 4's export is the shipped checkpoint, so its folder
    holds the run's records without a second copy of the policy; recipe 6's seed 2, shipped
    before it, has its export back in its own folder."""
    assert (CHECKPOINTS / "carracing_ppo.pt2").is_file()
    seed4 = CHECKPOINTS / "runs" / "recipe10-seed4"
    assert (seed4 / "run.json").is_file() and not (seed4 / "policy.pt2").exists()
    assert (CHECKPOINTS / "runs" / "seed2" / "policy.pt2").is_file()
    training = " ".join((ROOT / "docs" / "training.md").read_text().split())
    assert "Seed 4's export is the shipped `examples/checkpoints/carracing_ppo.pt2`" in training
