"""The integration suites: `make test-integrations` (and so `.ci/run`) runs every test module
in tests/integrations, so that no file of tests sits there unrun."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_integration_test_module_is_in_a_suite_the_makefile_runs():
    makefile = (ROOT / "Makefile").read_text()
    run = set(re.findall(r"tests/integrations/(test_\w+\.py)", makefile))
    present = {path.name for path in (ROOT / "tests" / "integrations").glob("test_*.py")}
    assert present - run == set(), "not run by make test-integrations"
    assert run - present == set(), "named in the Makefile but missing"
