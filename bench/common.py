"""Shared benchmark plumbing: machine provenance, isolated worker processes, robust statistics.

Every system runs in its own Python process (imports, allocators and caches do not leak from
one system into another); trials alternate the order of systems; the warm-up is discarded.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout.strip()
        return out.stdout.strip() + ("+dirty" if dirty else "")
    except OSError:
        return "unknown"


def machine_info() -> dict[str, str]:
    """Where and with what the numbers were measured."""
    return {
        "cpu": _cpu_model(),
        "cores": str(os.cpu_count()),
        "os": f"{platform.system()} {platform.release()} {platform.machine()}",
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "gymnasium": _version("gymnasium"),
        "pygame-ce": _version("pygame-ce"),
        "box2d": _version("box2d"),
        "envpool": _version("envpool"),
        "reinfors": _version("reinfors"),
        "reinfors-gym": _version("reinfors-gym"),
        "commit": _commit(),
    }


def print_machine_info(info: dict[str, str] | None = None) -> None:
    info = info or machine_info()
    print("machine: " + "; ".join(f"{k}={v}" for k, v in info.items()))


def run_worker(script: Path, args: list[str], timeout: float = 600) -> dict:
    """Runs `script --worker ...` in a fresh interpreter; its last stdout line is JSON."""
    env = dict(os.environ)
    env.setdefault("SDL_VIDEODRIVER", "dummy")
    env.setdefault("SDL_AUDIODRIVER", "dummy")
    proc = subprocess.run(
        [sys.executable, str(script), "--worker", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def summarize(values: list[float]) -> dict[str, float]:
    """Median and range of the trials."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}
