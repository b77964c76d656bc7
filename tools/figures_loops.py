"""The figures of docs/async_loops.json (`reinfors-gym bench --loops --out docs`): the table of
the policy loops, README's sentence on the overlap, the measured effects of `OMP_WAIT_POLICY`
and of glibc keeping freed memory, and where the synchronous loop's time goes when the policy
holds every core.

tools/gen_figures.py merges `FIGURES` into its own, so `python tools/gen_figures.py` writes these
regions with the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from figures_records import from_record
from figures_records import paragraph as para
from markdown_table import table

LOOPS = Path(__file__).resolve().parent.parent / "docs" / "async_loops.json"
#: The same bench on a newer machine of the same model name (CPU family 26, Zen 5).
LOOPS_FAMILY26 = LOOPS.with_name("async_loops_family26.json")


def _loops_run(d: dict[str, Any]) -> str:
    """When and how the loops were measured, and whether the machine was busy."""
    cfg, m = d["config"], d["machine"]
    load = d["load_average"]
    peak = max(float(str(load[k]).split()[0]) for k in ("before", "after"))
    busy = (
        f" The machine was busy (load average up to {peak:.1f} on {m['cores']} cores): the "
        "ratios, from interleaved trials, hold better than the rates."
        if peak > float(m["cores"])
        else ""
    )
    # Records from before 2026-12-07 name the model only.
    cpu = ", ".join(m[k] for k in ("cpu", "cpu id") if k in m)
    return (
        f"`reinfors-gym bench --loops` on {d['created'][:10]}, {m['cores']} cores "
        f"({cpu}): env steps/s, medians of {cfg['trials']} interleaved trials of "
        f"{cfg['seconds']:g} s; {cfg['num_envs']} sub-envs in batches of {cfg['batch_size']} "
        f"for the asynchronous loops, {cfg['batch_size']} for the synchronous one; in "
        f"parentheses, the share of the policy alone.{busy}"
    )


def _loop_cell(s: dict[str, float], key: str) -> str:
    """A loop's median rate, with its share of the policy alone in parentheses."""
    if key not in s:
        return "—"
    share = s.get("bound_of_ceiling" if key == "serial_bound" else f"{key}_of_ceiling")
    return f"{s[key]:,.0f}" + ("" if share is None else f" ({share:.2f})")


def async_table(d: dict[str, Any]) -> str:
    """Issue 34's table: each policy's loops beside the policy alone."""
    head = [
        "policy", "the policy alone (ceiling)", "async", "sync", "serial bound", "EnvPool async"
    ]  # fmt: skip
    loops = ("ceiling", "async", "sync", "serial_bound", "envpool_async")
    rows = [
        [g["title"], *(_loop_cell(d["summary"][g["name"]], key) for key in loops)]
        for g in d["groups"]
    ]
    return para(_loops_run(d)) + "\n\n" + table(head, rows)


def async_overlap(d: dict[str, Any]) -> str:
    """README's sentence: how close the asynchronous loop comes to the policy alone."""
    s = d["summary"]
    dev, one, every = s["device"], s["cnn-1"], s["cnn-all"]
    return para(f"""Measured side by side (`reinfors-gym bench --loops`, {d["created"][:10]}): with a
policy that holds the loop {d["groups"][0]["title"].split("holds the loop ")[1].split(" without")[0]}
without a core, as a GPU does, the asynchronous loop reaches {dev["async_of_ceiling"]:.2f} of the
policy alone, {dev["async_over_sync"]:.2f}× the synchronous loop and
{dev["async_over_envpool"]:.1f}× EnvPool's asynchronous loop; with a Nature CNN on 1 torch thread,
{one["async_of_ceiling"]:.2f} of the policy alone ({one["async_over_sync"]:.2f}× sync). With the
CNN on every core the asynchronous loop runs at {every["async_over_sync"]:.2f}× the synchronous
one, which reaches {every["sync_of_bound"]:.2f} of its serial bound (the policy alone plus the
step alone).{_kept_sentence(d)}""")


def _kept_sentence(d: dict[str, Any]) -> str:
    """README's sentence on glibc keeping freed memory (empty where the group was not run)."""
    kept, every = d["summary"].get("cnn-all-kept"), d["summary"]["cnn-all"]
    if not kept or "sync" not in kept:
        return ""
    return f""" With glibc keeping the memory the policy frees (`reinfors_gym.keep_freed_memory()`,
or its environment variables), the synchronous loop runs {kept["sync"] / every["sync"]:.2f}×
as fast and reaches {kept["sync_of_bound"]:.2f} of its bound."""


def omp_wait_policy(d: dict[str, Any]) -> str:
    """The measured effect of OMP_WAIT_POLICY=PASSIVE on the CNN on every core."""
    s, p = d["summary"]["cnn-all"], d["summary"]["cnn-all-passive"]
    rows = {r["id"]: r for r in d["rows"]}

    def env_ms(group: str, loop: str) -> float:
        return float(rows[f"{group}:{loop}"]["stats"]["env_ms"]["median"])

    return para(f"""Measured with the CNN on every core (`reinfors-gym bench --loops`,
{d["created"][:10]}): `OMP_WAIT_POLICY=PASSIVE` makes the policy alone run at
{p["ceiling"] / s["ceiling"]:.2f}× its default rate, and the 8-env step inside the synchronous
loop take {env_ms("cnn-all-passive", "sync"):.2f} ms instead of {env_ms("cnn-all", "sync"):.2f} ms; the
synchronous loop runs at {p["sync"] / s["sync"]:.2f}× and the asynchronous one at
{p["async"] / s["async"]:.2f}× their rates with the default.""")


def sync_contention(d: dict[str, Any]) -> str:
    """Where the synchronous loop's time goes with the CNN on every core: whose threads use
    the CPU during an iteration, and the step inside the loop against the step alone."""
    s = d["summary"]["cnn-all"]
    rows = {r["id"]: r["stats"] for r in d["rows"]}
    sync, ceiling = rows["cnn-all:sync"], rows["cnn-all:ceiling"]

    def ms(stats: dict[str, Any], key: str) -> float:
        return float(stats[key]["median"])

    iteration = 1e3 * d["config"]["batch_size"] / s["sync"]
    others, helpers = ms(sync, "others_cpu_ms"), ms(sync, "helpers_cpu_ms")
    step_in_loop = ms(sync, "env_ms")
    spins = (
        " (a core's worth: it spins on the second core through the step as well)"
        if others >= 0.9 * iteration
        else f" ({others / iteration:.0%} of a core)"
    )
    who = (
        "so the step runs on the calling thread alone"
        if helpers < 0.1 * step_in_loop
        else "so the helpers step beside the spinning worker"
    )
    faults = (
        f" (with {s['page_faults_in_sync']:,.0f} page faults an iteration against "
        f"{s['page_faults_alone']:,.0f} alone: *glibc's allocator* below)"
        if "page_faults_in_sync" in s and "page_faults_alone" in s
        else ""
    )
    return para(f"""Where the synchronous loop's time goes with the CNN on every core (the same
run, each thread's CPU time read from `/proc`): an iteration takes {iteration:.2f} ms, in which
the policy's other threads (PyTorch's OpenMP worker) use {others:.2f} ms of CPU{spins} and the
pool's helper threads {helpers:.2f} ms, {who}: {step_in_loop:.2f} ms, against
{ms(rows["cnn-all:step"], "env_ms"):.2f} ms alone on every core and
{ms(rows["cnn-all:step-1"], "env_ms"):.2f} ms alone on one thread. The policy takes
{ms(sync, "policy_ms"):.2f} ms in the loop{faults} and {ms(ceiling, "policy_ms"):.2f} ms alone. The serial
bound gives the step every core, which it cannot have while the worker spins: the loop reaches
{s["sync_of_bound"]:.2f} of that bound, and {s["sync_of_one_core_bound"]:.2f} of the bound with the
step on one thread.{_pause_probes(s, d["rows"])}""")


def _pause_probes(s: dict[str, float], rows: list[dict[str, Any]]) -> str:
    """What the probes say about the policy's time in the loop: the policy alone with other
    work between its calls, spinning or reading memory (empty where they were not run)."""
    keys = ("policy_alone_ms", "policy_after_busy_ms", "policy_after_touch_ms", "policy_in_sync_ms")
    probe = next((r for r in rows if r["id"] == "cnn-all:ceiling-busy"), None)
    if not all(k in s for k in keys) or probe is None:
        return ""
    alone, busy, touch, in_sync = (s[k] for k in keys)
    gap = probe["params"]["interposed_ms"]
    slowest = max(busy, touch) / alone - 1.0
    reading = (
        f"a pause alone slows it by up to {slowest:.0%}, so that part of its time in the loop "
        "belongs to any loop that works between its calls, and the serial bound, which times it "
        "back to back, is above what such a loop can reach"
        if slowest > 0.05
        else "a pause alone costs it under 5%, so its slowdown in the loop comes with the step"
    )
    return f""" The policy alone with {gap:g} ms of other work on the calling thread before each
call, timed apart from it, takes {busy:.2f} ms after spinning (no memory touched) and
{touch:.2f} ms after reading memory, against {alone:.2f} ms back to back and {in_sync:.2f} ms
between steps in the loop: {reading}."""


def keep_freed_memory(d: dict[str, Any]) -> str:
    """The measured effect of glibc keeping freed memory on the CNN on every core."""
    s, k = d["summary"]["cnn-all"], d["summary"]["cnn-all-kept"]
    faults = next(r for r in d["rows"] if r["id"] == "cnn-all:sync")["stats"]["page_faults"]
    return para(f"""Measured with the CNN on every core (`reinfors-gym bench --loops`,
{d["created"][:10]}): with glibc's default thresholds the process takes
{s["page_faults_in_sync"]:,.0f} page faults an iteration of the synchronous loop (a median:
{faults["min"]:,.0f} to {faults["max"]:,.0f} from one process to the next;
{s["page_faults_alone"]:,.0f} for the policy alone), and the policy takes
{s["policy_in_sync_ms"]:.2f} ms there against {s["policy_alone_ms"]:.2f} ms alone. With
`reinfors_gym.keep_freed_memory()` it takes {k["page_faults_in_sync"]:,.1f}, and the policy
{k["policy_in_sync_ms"]:.2f} ms against {k["policy_alone_ms"]:.2f} ms alone. The synchronous loop
runs at {k["sync"] / s["sync"]:.2f}× its rate with the defaults and reaches
{k["sync_of_bound"]:.2f} of its serial bound ({k["sync_of_one_core_bound"]:.2f} of the bound with
the step on one thread, as it runs while PyTorch's worker spins); the asynchronous loop runs at
{k["async"] / s["async"]:.2f}× its rate with the defaults, {k["async_over_sync"]:.2f}× the
synchronous one.""")


def _widest_range(d: dict[str, Any]) -> float:
    """The largest max/min of a loop's rate across its trials, in this record."""
    spreads = [
        r["stats"]["steps_per_s"]["max"] / r["stats"]["steps_per_s"]["min"]
        for r in d["rows"]
        if r["stats"] and r["stats"]["steps_per_s"]["min"] > 0
    ]
    return max(spreads)


def other_machine(d: dict[str, Any]) -> str:
    """The table on a second machine, and what differs there."""
    dev, cnn = d["summary"]["device"], d["summary"]["cnn-all-kept"]
    spread = _widest_range(d)
    return (
        async_table(d)
        + "\n\n"
        + para(f"""There the Nature CNN alone runs at {cnn["ceiling"]:,.0f}
env steps/s on every core with glibc keeping freed memory, and one loop's trials ranged up to
{spread:.1f}× apart (with the machine's speed and with glibc's page faults): read the ratios
of this table, not its digits. EnvPool's asynchronous loop with the device-like policy reaches
{dev["envpool_async_of_ceiling"]:.2f} of the policy alone there, so no loop can run more than
{1 / dev["envpool_async_of_ceiling"]:.2f}× as fast as it; ours reaches {dev["async_of_ceiling"]:.2f}
({dev["async_over_envpool"]:.2f}× EnvPool's).{_one_thread_kept(d)} With the CNN on every
core and glibc keeping freed memory the synchronous loop reached {cnn["sync_of_bound"]:.2f} of its
serial bound, and the asynchronous loop ran {cnn["async_over_sync"]:.2f}× as fast as it.""")
    )


def _one_thread_kept(d: dict[str, Any]) -> str:
    """The CNN on 1 torch thread with no page faults: how far the asynchronous loop is from the
    policy alone, where its time goes, and the most it could be over the synchronous loop."""
    kept = d["summary"].get("cnn-1-kept")
    if not kept or "async" not in kept:
        return ""
    rows = {r["id"]: r["stats"] for r in d["rows"]}
    most = next(
        c["at_most_here"]
        for c in d["checks"]
        if (c["group"], c["ratio"]) == ("cnn-1-kept", "async_over_sync")
    )
    policy_in_async = rows["cnn-1-kept:async"]["policy_ms"]["median"]
    hand_off = rows["cnn-1-kept:async"]["env_ms"]["median"]
    return f""" With the CNN on 1 torch thread and glibc keeping freed memory (no page faults),
the asynchronous loop reached {kept["async_of_ceiling"]:.2f} of the policy alone: the policy took
{policy_in_async:.2f} ms a call there, with the step on the other core, against
{kept["policy_alone_ms"]:.2f} ms alone, and `recv` plus `send` {hand_off:.3f} ms. It ran
{kept["async_over_sync"]:.2f}× as fast as the synchronous loop, which reached
{kept["sync_of_ceiling"]:.2f} of the policy alone: a loop at the policy alone's rate would have
been {most:.2f}× as fast."""


FIGURES: dict[str, Callable[[], str]] = {
    "async-table": from_record(async_table, LOOPS),
    "async-table-family26": from_record(other_machine, LOOPS_FAMILY26),
    "async-overlap": from_record(async_overlap, LOOPS),
    "omp-wait-policy": from_record(omp_wait_policy, LOOPS),
    "sync-contention": from_record(sync_contention, LOOPS),
    "keep-freed-memory": from_record(keep_freed_memory, LOOPS),
}
