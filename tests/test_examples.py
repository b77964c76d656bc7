"""The PPO training examples: the two variants stay in sync. Running them needs torch: that is
tests/integrations/test_cleanrl_skrl.py, in the virtualenv that has it (make test-integrations)."""

from __future__ import annotations

import difflib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OURS = ROOT / "examples" / "ppo_continuous.py"
GYMNASIUM = ROOT / "examples" / "ppo_continuous_gymnasium.py"


def test_ppo_examples_differ_only_in_make_vec_line():
    ours = OURS.read_text().splitlines()
    theirs = GYMNASIUM.read_text().splitlines()
    diff = [
        line
        for line in difflib.unified_diff(ours, theirs, lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    removed = [line[1:] for line in diff if line.startswith("-")]
    added = [line[1:] for line in diff if line.startswith("+")]
    assert len(removed) == 1 and len(added) == 1, diff
    assert "make_vec" in removed[0] and '"reinfors/CarRacing-v0"' in removed[0]
    assert "make_vec" in added[0] and '"CarRacing-v3"' in added[0]
    assert ours.index(removed[0]) == theirs.index(added[0])
