"""Shared by the snippet suites: the ```python blocks of README.md and docs/, with their markers,
and how one block runs as a reader would paste it (a fresh interpreter, an empty directory).

tests/test_snippets.py runs the plain blocks in the main virtualenv and type-checks them all;
tests/integrations/test_doc_snippets.py runs the `needs EXTRA` blocks in the integration
virtualenvs. Both import it by path (tests/ is no package).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

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


def run_snippet(
    snippet: Snippet, tmp_path: Path, *, prelude: str = "", timeout: float = TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    """Runs one block in a fresh interpreter, from an empty working directory. `prelude` runs
    first in the same interpreter (the integration suite's caps on training length)."""
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    return subprocess.run(
        [sys.executable, "-c", prelude + snippet.code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
