"""The plan of a benchmark run and its running: which measurements a `Config` asks for, their
trials section by section, and the results document (`SCHEMA`, checked by `validate`).

How trials run and are summarized is `method.py`'s; where they ran, `provenance.py`'s; the
comparisons against the anchors, `comparisons.py`'s. Their names are importable from here too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import documents
from .comparisons import comparisons
from .documents import RunStart, check_header, check_stats, requirement
from .method import alternating, ratio, relative_spread, run_worker, summarize, trial_stats
from .provenance import (
    PACKAGE_ROOT,
    load_average,
    machine_info,
    print_machine_info,
    usable_cores,
)
from .sections import SECTIONS, SECTIONS_ORDER, Section
from .systems import FAMILIES, VARIANTS, missing_requirement

if TYPE_CHECKING:
    from ..progress import ProgressBar

__all__ = [
    "PACKAGE_ROOT",
    "SCHEMA",
    "SECTIONS",
    "SECTIONS_ORDER",
    "Config",
    "Measurement",
    "Section",
    "alternating",
    "comparisons",
    "dump",
    "load",
    "load_average",
    "machine_info",
    "missing_requirement",
    "plan",
    "print_machine_info",
    "ratio",
    "relative_spread",
    "run_benchmarks",
    "run_plan",
    "run_worker",
    "summarize",
    "usable_cores",
    "validate",
]

SCHEMA = "reinfors-gym-bench/1"


@dataclass
class Config:
    """What a run measures; `quick()` is the < 60 s preview."""

    trials: int = 3
    seconds: float = 5.0
    warmup: float = 1.0
    systems: tuple[str, ...] = tuple(FAMILIES)
    sections: tuple[str, ...] = SECTIONS_ORDER
    vector_envs: int = 8
    threads: tuple[int, ...] = ()  # default: 1..cores
    env_counts: tuple[int, ...] = (1, 16, 64, 256, 1024)
    env_threads: int = 0  # default: cores
    policy_envs: int = 8
    async_envs: int = 16
    async_batch: int = 8
    oversub_envs: int = 16
    oversub_threads: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)
    memory_envs: tuple[int, ...] = (16, 64, 256)
    async_memory_envs: tuple[int, ...] = (4, 8)
    resets: int = 30
    games: int = 16
    collect_size: int = 1024
    updates: int = 6
    anchor_thread_sweep: bool = True  # False: EnvPool only at all cores
    quick: bool = False

    @classmethod
    def quick_config(cls, **overrides: Any) -> Config:
        base = dict(
            trials=1,
            seconds=0.6,
            warmup=0.2,
            vector_envs=4,
            env_counts=(1, 16, 256),
            oversub_threads=(2, 64),
            memory_envs=(64,),
            async_memory_envs=(2,),
            resets=8,
            collect_size=256,
            updates=2,
            anchor_thread_sweep=False,
            quick=True,
        )
        base.update(overrides)
        return cls(**base)

    def resolved(self) -> Config:
        cores = usable_cores()
        out = Config(**asdict(self))
        if not out.threads:
            out.threads = tuple(range(1, cores + 1))
        if not out.env_threads:
            out.env_threads = cores
        unknown = set(out.systems) - set(FAMILIES)
        if unknown:
            raise ValueError(f"unknown systems {sorted(unknown)}; choose from {list(FAMILIES)}")
        unknown = set(out.sections) - set(SECTIONS)
        if unknown:
            raise ValueError(f"unknown sections {sorted(unknown)}; choose from {list(SECTIONS)}")
        if out.trials < 1 or out.seconds <= 0:
            raise ValueError("trials must be >= 1 and seconds > 0")
        return out


@dataclass
class Measurement:
    section: str
    kind: str
    variant: str
    params: dict[str, Any]
    trials: list[dict[str, float]] = field(default_factory=list)
    skipped: str | None = None

    @property
    def id(self) -> str:
        shown = {k: v for k, v in self.params.items() if k not in ("seconds", "warmup")}
        head = f"{self.section}:{self.variant}"
        return head + (":" + ",".join(f"{k}={v}" for k, v in shown.items()) if shown else "")

    @property
    def timeout(self) -> float:
        return 120.0 + 4 * float(self.params.get("seconds", 5.0))


def plan(config: Config) -> list[Measurement]:
    """Every measurement of a run, grouped by section, for the selected systems."""
    c = config.resolved()
    timing = {"seconds": c.seconds, "warmup": c.warmup}
    cores = usable_cores()
    out: list[Measurement] = []

    def add(section: str, kind: str, variant: str, **params: Any) -> None:
        if section in c.sections and VARIANTS[variant].family in c.systems:
            out.append(Measurement(section, kind, variant, params))

    for v in ("ours-gym", "ours-raw", "gymnasium", "envpool", "reinfors"):
        add("single", "single", v, **timing)
    for t in c.threads:
        add("threads", "vector", "ours-vector", num_envs=c.vector_envs, threads=t, **timing)
    for t in c.threads if c.anchor_thread_sweep else c.threads[-1:]:
        add("threads", "vector", "envpool", num_envs=c.vector_envs, threads=t, **timing)
    # AsyncVectorEnv runs one process per env; `threads` records the cores it had.
    add("threads", "vector", "gymnasium-async", num_envs=c.vector_envs, threads=cores, **timing)
    # The loop users run: threads=0 is each env's default; the policy alone is the ceiling.
    pol = {"num_envs": c.policy_envs, **timing}
    add("policy", "policy", "policy-alone", threads=0, **pol)
    add("policy", "policy", "ours-vector", threads=0, **pol)
    add("policy", "policy", "ours-vector", threads=1, **pol)
    add("policy", "policy", "envpool", threads=cores, **pol)
    add("policy", "policy", "gymnasium-async", threads=cores, **pol)
    # EnvPool's asynchronous loop: num_envs > batch_size, its ceiling the policy at batch_size.
    if c.async_batch != c.policy_envs:
        add("policy", "policy", "policy-alone", threads=0, num_envs=c.async_batch, **timing)
    asy = {"num_envs": c.async_envs, "batch_size": c.async_batch, **timing}
    add("policy", "policy-async", "ours-vector", threads=0, **asy)
    add("policy", "policy-async", "envpool", threads=cores, **asy)
    for t in c.oversub_threads:
        add("oversub", "vector", "ours-vector", num_envs=c.oversub_envs, threads=t, **timing)
    for n in c.env_counts:
        add("num_envs", "vector", "ours-vector", num_envs=n, threads=c.env_threads, **timing)
    add("reset", "reset", "ours-gym", resets=c.resets)
    add("reset", "reset", "gymnasium", resets=c.resets)
    for n in c.memory_envs:
        add("memory", "memory", "ours-vector", num_envs=n)
    for n in c.memory_envs:
        add("memory", "memory", "envpool", num_envs=n)
    for n in c.async_memory_envs:
        add("memory", "memory", "gymnasium-async", num_envs=n)
    coll = {"games": c.games, "threads": c.env_threads, "size": c.collect_size}
    for v in ("ours-vector-discrete", "ours-engine", "reinfors-engine"):
        add("collector", "collector", v, seconds=c.seconds, **coll)
    add("overlap", "overlap", "ours-engine", updates=c.updates, **coll)
    return out


def _describe(m: Measurement, out: dict[str, Any]) -> str:
    section = SECTIONS[m.section]
    value = out.get(section.metric)
    if value is None:
        return "?"
    return f"{value:,.3f} {section.unit}" if value < 10 else f"{value:,.1f} {section.unit}"


def run_plan(
    measurements: list[Measurement],
    trials: int,
    progress: Callable[[str], None] | None = print,
    worker: Callable[[str, dict[str, Any], float], dict[str, Any]] = run_worker,
    retry_s: float | None = 5.0,
    bar: ProgressBar | None = None,
) -> list[Measurement]:
    """Runs every measurement `trials` times, section by section, alternating the order. A
    failed trial is retried once after `retry_s` seconds (None: no retry), then the
    measurement is reported as skipped. `bar`, if given, counts trials and names the one
    running."""
    say = progress or (lambda _msg: None)
    for m in measurements:
        missing = missing_requirement(m.variant)
        if missing:
            m.skipped = f"not installed ({missing})"
    total = trials * sum(1 for m in measurements if not m.skipped)
    done = 0
    if bar is not None:
        bar.set_total(total)
    sections = list(dict.fromkeys(m.section for m in measurements))
    for section in sections:
        group = [m for m in measurements if m.section == section]
        for trial in range(trials):
            for m in alternating(group, trial):
                if m.skipped:
                    continue
                done += 1
                if bar is not None:
                    bar.running(f"{m.id} ({trial + 1}/{trials})")
                start = time.perf_counter()
                out = worker(m.kind, {"variant": m.variant, **m.params}, m.timeout)
                if "error" in out and retry_s is not None:
                    # A failure may be transient (e.g. the extension being rebuilt): retry once.
                    time.sleep(retry_s)
                    out = worker(m.kind, {"variant": m.variant, **m.params}, m.timeout)
                took = time.perf_counter() - start
                head = f"[{done:3d}/{total}] {m.id}  trial {trial + 1}/{trials}"
                if bar is not None:
                    bar.advance()
                if "skipped" in out or "error" in out:
                    m.skipped = out.get("skipped") or f"failed: {out['error']}"
                    total -= trials - trial - 1  # its later trials will not run
                    if bar is not None:
                        bar.shrink(trials - trial - 1)
                    say(f"{head}: skipped ({m.skipped})")
                    continue
                m.trials.append({k: float(v) for k, v in out.items()})
                say(f"{head}: {_describe(m, out)}  ({took:.1f} s)")
    for m in measurements:
        if m.skipped is None and not m.trials:
            m.skipped = "no trials"
    return measurements


def _row(m: Measurement) -> dict[str, Any]:
    v = VARIANTS[m.variant]
    return {
        "id": m.id,
        "section": m.section,
        "kind": m.kind,
        "variant": m.variant,
        "family": v.family,
        "label": v.label,
        "params": m.params,
        "trials": m.trials,
        "stats": trial_stats(m.trials),
        "skipped": m.skipped,
    }


def run_benchmarks(
    config: Config,
    progress: Callable[[str], None] | None = print,
    command: str | None = None,
    bar: ProgressBar | None = None,
) -> dict[str, Any]:
    """Runs a whole benchmark and returns the results document (see `validate`). `bar`, if
    given, counts the trials (see `run_plan`)."""
    c = config.resolved()
    start = RunStart.now()
    measurements = plan(c)
    say = progress or (lambda _msg: None)
    say(f"{len(measurements)} measurements x {c.trials} trial(s), one process each")
    run_plan(measurements, c.trials, progress, bar=bar)
    rows = [_row(m) for m in measurements]
    cfg = asdict(c)
    for key, value in cfg.items():
        if isinstance(value, tuple):
            cfg[key] = list(value)
    return {
        **start.header(SCHEMA, command or "reinfors-gym bench", cfg),
        "sections": {k: asdict(v) for k, v in SECTIONS.items() if k in c.sections},
        "rows": rows,
        "comparisons": comparisons(rows),
    }


def validate(doc: Any) -> dict[str, Any]:
    """Checks a results document's shape; returns it, or raises ValueError."""
    need = requirement("benchmark result")
    check_header(
        doc,
        SCHEMA,
        (
            ("machine", dict),
            ("config", dict),
            ("sections", dict),
            ("rows", list),
            ("comparisons", list),
            ("command", str),
        ),
        need,
    )
    for row in doc["rows"]:
        need(isinstance(row, dict), "rows must be objects")
        for key in ("id", "section", "variant", "family", "label", "params", "trials", "stats"):
            need(key in row, f"row lacks {key!r}")
        need(row["section"] in doc["sections"], f"row {row['id']} in an unknown section")
        need(row["skipped"] is None or isinstance(row["skipped"], str), "skipped: str or null")
        check_stats(row, need)
    for comp in doc["comparisons"]:
        for key in ("section", "what", "ours", "anchor", "ratio", "unit"):
            need(key in comp, f"comparison lacks {key!r}")
    return doc


def dump(doc: dict[str, Any], path: Path) -> None:
    documents.write(doc, path, validate)


def load(path: Path) -> dict[str, Any]:
    return documents.read(path, validate)
