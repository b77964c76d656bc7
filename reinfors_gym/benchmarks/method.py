"""The measurement method: every trial in a fresh worker process, the trials of a group in
alternating order, and their median and range as the result.

Every measurement runs in its own Python process (imports, allocators and caches do not leak
from one system into another); the order of the measurements in a section alternates from
trial to trial (forward, then reversed), so slow drift of the machine does not favour one
system; each worker runs a warm-up that is discarded; reports give the median and the range
(min-max) of the trials.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Iterable
from typing import Any


def run_worker(kind: str, params: dict[str, Any], timeout: float = 600) -> dict[str, Any]:
    """Runs one measurement in a fresh interpreter (`python -m reinfors_gym.benchmarks.worker`);
    its last stdout line is JSON. Failures come back as ``{"error": ...}``."""
    env = dict(os.environ)
    env.setdefault("SDL_VIDEODRIVER", "dummy")
    env.setdefault("SDL_AUDIODRIVER", "dummy")
    env.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "reinfors_gym.benchmarks.worker", kind, json.dumps(params)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"error": (proc.stderr.strip().splitlines() or ["worker failed"])[-1]}
    try:
        return json.loads(lines[-1])
    except json.JSONDecodeError:
        return {"error": f"unreadable worker output: {lines[-1][:200]}"}


def alternating(items: list, trial: int) -> list:
    """The measurement order of `trial`: forward on even trials, reversed on odd ones."""
    return list(items) if trial % 2 == 0 else list(reversed(items))


def summarize(values: Iterable[float]) -> dict[str, float]:
    """Median and range of the trials."""
    vals = [float(v) for v in values]
    if not vals:
        raise ValueError("no values to summarize")
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def trial_stats(trials: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    """`summarize` of each number the trials report (those of the first trial), over the
    trials that report it."""
    if not trials:
        return {}
    return {key: summarize(t[key] for t in trials if key in t) for key in trials[0]}


def relative_spread(summary: dict[str, float]) -> float:
    """(max - min) / median: how much the trials disagree (0 for a single trial)."""
    med = summary["median"]
    return (summary["max"] - summary["min"]) / med if med else float("inf")


def ratio(ours: float, anchor: float, higher_is_better: bool) -> float:
    """How many times better ours is: ours/anchor for rates, anchor/ours for costs."""
    if higher_is_better:
        return ours / anchor if anchor else float("inf")
    return anchor / ours if ours else float("inf")
