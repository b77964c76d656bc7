"""What the policy-loops benchmark shows (`reinfors-gym bench --loops`): each group's medians,
its serial and one-core bounds, the ratios between its loops, and issue 34's targets on those
ratios, each with the most it could be on the machine measured.
"""

from __future__ import annotations

from typing import Any


def _median(rows: dict[str, dict[str, Any]], loop: str, key: str = "steps_per_s") -> float | None:
    row = rows.get(loop)
    if not row or row["skipped"] or key not in (row["stats"] or {}):
        return None
    return float(row["stats"][key]["median"])


def summarize_group(rows: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Medians and the ratios the issue asks about, from one group's rows keyed by loop."""
    ceiling, step, step_one = (_median(rows, k) for k in ("ceiling", "step", "step-1"))
    sync, asy, pool = _median(rows, "sync"), _median(rows, "async"), _median(rows, "envpool-async")
    out: dict[str, float] = {}
    for key, value in (
        ("ceiling", ceiling),
        ("step", step),
        ("step_one_thread", step_one),
        ("sync", sync),
        ("async", asy),
        ("envpool_async", pool),
    ):
        if value is not None:
            out[key] = value
    if ceiling and step:
        # A batch costs the policy's time plus the step's: rates add as resistances do.
        out["serial_bound"] = 1.0 / (1.0 / ceiling + 1.0 / step)
        out["bound_of_ceiling"] = out["serial_bound"] / ceiling
    if ceiling:
        for key, value in (("async", asy), ("sync", sync), ("envpool_async", pool)):
            if value is not None:
                out[f"{key}_of_ceiling"] = value / ceiling
    if asy and sync:
        out["async_over_sync"] = asy / sync
    if asy and pool:
        out["async_over_envpool"] = asy / pool
    if sync and "serial_bound" in out:
        out["sync_of_bound"] = sync / out["serial_bound"]
    if ceiling and step_one:
        out["one_core_bound"] = 1.0 / (1.0 / ceiling + 1.0 / step_one)
        if sync:
            out["sync_of_one_core_bound"] = sync / out["one_core_bound"]
    # The policy's own time per call: alone, after each probe's work, and in the sync loop.
    for key, loop in (
        ("policy_alone_ms", "ceiling"),
        ("policy_after_busy_ms", "ceiling-busy"),
        ("policy_after_touch_ms", "ceiling-touch"),
        ("policy_in_sync_ms", "sync"),
    ):
        ms = _median(rows, loop, "policy_ms")
        if ms is not None:
            out[key] = ms
    # Page faults per iteration: the policy alone, and the policy with the step between calls.
    for key, loop in (("page_faults_alone", "ceiling"), ("page_faults_in_sync", "sync")):
        faults = _median(rows, loop, "page_faults")
        if faults is not None:
            out[key] = faults
    return out


#: What issue 34 asks of each group: (ratio, at least).
TARGETS = {
    "device": (("async_of_ceiling", 0.97), ("async_over_sync", 1.15), ("async_over_envpool", 2.0)),
    "cnn-1": (("async_of_ceiling", 0.93), ("async_over_sync", 1.2)),
    "cnn-1-kept": (("async_of_ceiling", 0.93), ("async_over_sync", 1.2)),
    "cnn-all": (("async_over_sync", 0.98), ("sync_of_bound", 0.90)),
    "cnn-all-kept": (("async_over_sync", 0.98), ("sync_of_bound", 0.90)),
}


#: Ratios of the asynchronous loop over another loop: (ratio, the other loop's summary key).
#: The asynchronous loop cannot outrun the policy alone, so on the machine measured such a
#: ratio is at most the ceiling over the other loop's rate; a target above that is out of reach
#: there, however the loop is built.
OVER_ANOTHER_LOOP = {"async_over_sync": "sync", "async_over_envpool": "envpool_async"}


def attainable(summary: dict[str, float], ratio: str) -> float | None:
    """The most `ratio` can be on the machine measured (a loop at the policy alone's rate), or
    None where it is not a ratio over another loop or the group lacks a rate it needs."""
    other = OVER_ANOTHER_LOOP.get(ratio)
    ceiling, rate = summary.get("ceiling"), summary.get(other or "")
    if not (ceiling and rate):
        return None
    return ceiling / rate


def checks(summary: dict[str, dict[str, float]]) -> list[dict[str, Any]]:
    out = []
    for group, targets in TARGETS.items():
        for key, least in targets:
            value = summary.get(group, {}).get(key)
            out.append(
                {
                    "group": group,
                    "ratio": key,
                    "at_least": least,
                    "value": value,
                    "met": value is not None and value >= least,
                    "at_most_here": attainable(summary.get(group, {}), key),
                }
            )
    return out
