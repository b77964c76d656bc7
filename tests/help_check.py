"""Shared check of a command's `--help`: every option states its default."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def options_without_default(args: list[str]) -> list[str]:
    """Runs `python ARGS --help`; returns the options whose help text names no default."""
    out = subprocess.run(
        [sys.executable, *args, "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    options = out[out.index("options:") :]
    # One block per option: from its "  --flag" line to the next option's.
    blocks = re.split(r"\n(?=  -)", options)[1:]
    missing = []
    for block in blocks:
        flag = block.split()[0].rstrip(",")
        if flag in ("-h", "--help"):
            continue
        if "default" not in block:
            missing.append(flag)
    assert blocks, out
    return missing
