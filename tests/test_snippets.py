"""Every ```python block of README.md and docs/ runs as pasted, and type-checks.

Each block runs in a fresh interpreter (a subprocess, from an empty directory), so a block that
leans on an import or a name from an earlier block fails here as it would for a reader. All
blocks are also type-checked by mypy, one module each.

A comment on the line just before a block's fence marks it (invisible in the rendered page):

- `<!-- snippet: fragment -->`: a deliberately partial block (a line to put into your own code).
  It is neither run nor type-checked.
- `<!-- snippet: needs EXTRA -->`: runs only where the packages of the `[EXTRA]` extra are
  installed: tests/integrations/test_doc_snippets.py runs those blocks in the integration
  virtualenv that has the extra (make test-integrations), and fails for an extra none has.
  Here it is type-checked, with the extra's packages treated as untyped.

The collector and the runner are tests/doc_blocks.py, shared with that suite.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

# The collector and runner, shared with tests/integrations/test_doc_snippets.py.
_spec = importlib.util.spec_from_file_location(
    "doc_blocks", Path(__file__).resolve().parent / "doc_blocks.py"
)
assert _spec and _spec.loader
doc_blocks = importlib.util.module_from_spec(_spec)
sys.modules["doc_blocks"] = doc_blocks  # its dataclass looks its module up while defined
_spec.loader.exec_module(doc_blocks)
ROOT, SNIPPETS, Snippet = doc_blocks.ROOT, doc_blocks.SNIPPETS, doc_blocks.Snippet


def test_every_page_with_python_blocks_is_found() -> None:
    # The pages that hold blocks today; a glob that silently matched nothing would pass all.
    pages = {s.page.relative_to(ROOT).as_posix() for s in SNIPPETS}
    assert {"README.md", "docs/quickstart.md", "docs/collector.md"} <= pages
    assert len(SNIPPETS) >= 20


def test_markers_name_real_extras() -> None:
    extras = importlib.metadata.metadata("reinfors-gym").get_all("Provides-Extra") or []
    assert "sb3" in extras
    for s in SNIPPETS:
        assert s.needs is None or s.needs in extras, f"{s.id}: no [{s.needs}] extra"


@pytest.mark.parametrize(
    "snippet",
    [s for s in SNIPPETS if not s.fragment and s.needs is None],
    ids=lambda s: s.id,
)
def test_snippet_runs_as_pasted(snippet: Snippet, tmp_path: Path) -> None:
    result = doc_blocks.run_snippet(snippet, tmp_path)
    assert result.returncode == 0, (
        f"{snippet.id} fails when pasted into a fresh interpreter:\n{result.stderr[-3000:]}"
    )


def test_snippets_type_check(tmp_path: Path) -> None:
    """mypy over every non-fragment block, each as its own module."""
    checked = [s for s in SNIPPETS if not s.fragment]
    names = {}
    for k, s in enumerate(checked):
        name = f"snippet_{k:03d}.py"
        (tmp_path / name).write_text(s.code)
        names[name] = s.id
    cache = ROOT / ".mypy_cache"  # shared with make's stubtest run: the same library stubs
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--ignore-missing-imports",
            "--no-error-summary",
            "--hide-error-context",
            "--cache-dir",
            str(cache),
            *sorted(names),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = result.stdout
    for name, where in names.items():
        report = report.replace(name, where)
    assert result.returncode == 0, f"mypy finds errors in the documentation's blocks:\n{report}"
