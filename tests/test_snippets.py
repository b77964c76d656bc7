"""Every ```python block of README.md and docs/ runs as pasted, and type-checks.

Each block runs in a fresh interpreter (a subprocess, from an empty directory), so a block that
leans on an import or a name from an earlier block fails here as it would for a reader. All
blocks are also type-checked by mypy, one module each.

A comment on the line just before a block's fence marks it (invisible in the rendered page):

- `<!-- snippet: fragment -->`: a deliberately partial block (a line to put into your own code).
  It is neither run nor type-checked.
- `<!-- snippet: needs EXTRA -->`: runs only where the packages of the `[EXTRA]` extra are
  installed (tests/integrations/test_doc_snippets.py runs those blocks in the integration
  virtualenvs); here it is type-checked, with the extra's packages treated as untyped.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```python\s*$")
MARKER = re.compile(r"^<!-- snippet: (fragment|needs ([a-z0-9_-]+)) -->$")
#: Seconds one block may run (the slowest, an 8-process AsyncVectorEnv, takes ~15 s on 2 cores).
TIMEOUT_S = 120


@dataclass(frozen=True)
class Snippet:
    page: Path
    line: int  # 1-based line of the opening fence
    code: str
    fragment: bool
    needs: str | None  # the extra whose packages the block imports

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def extract(page: Path) -> list[Snippet]:
    """The ```python blocks of one Markdown page, with their markers."""
    lines = page.read_text().splitlines()
    out: list[Snippet] = []
    i = 0
    while i < len(lines):
        if FENCE.match(lines[i]):
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            marker = MARKER.match(lines[i - 1].strip()) if i > 0 else None
            out.append(
                Snippet(
                    page=page,
                    line=i + 1,
                    code="\n".join(lines[i + 1 : end]) + "\n",
                    fragment=bool(marker and marker.group(1) == "fragment"),
                    needs=marker.group(2) if marker else None,
                )
            )
            i = end
        i += 1
    return out


SNIPPETS = [s for page in PAGES for s in extract(page)]


def run_snippet(snippet: Snippet, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Runs one block in a fresh interpreter, from an empty working directory."""
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    return subprocess.run(
        [sys.executable, "-c", snippet.code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )


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
    result = run_snippet(snippet, tmp_path)
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
