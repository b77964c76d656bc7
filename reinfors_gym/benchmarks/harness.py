"""Benchmark plumbing: machine provenance, isolated worker processes, robust statistics, the plan
of measurements, and the results' JSON schema.

Method: every measurement runs in its own Python process (imports, allocators and caches do not
leak from one system into another); the order of the measurements in a section alternates from
trial to trial (forward, then reversed), so slow drift of the machine does not favour one
system; each worker runs a warm-up that is discarded; reports give the median and the range
(min-max) of the trials.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .systems import FAMILIES, VARIANTS, missing_requirement

if TYPE_CHECKING:
    from ..progress import ProgressBar

SCHEMA = "reinfors-gym-bench/1"
PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent
SECTIONS_ORDER = (
    "single",
    "threads",
    "policy",
    "oversub",
    "num_envs",
    "reset",
    "memory",
    "collector",
    "overlap",
)


@dataclass(frozen=True)
class Section:
    title: str
    metric: str
    unit: str
    higher_is_better: bool


SECTIONS = {
    "single": Section("Single env, single thread", "steps_per_s", "steps/s", True),
    "threads": Section("Vector env: steps/s vs threads", "steps_per_s", "steps/s", True),
    "policy": Section(
        "Policy in the loop (CleanRL-style rollout, Nature CNN)", "steps_per_s", "steps/s", True
    ),
    "oversub": Section("Vector env: more threads than cores", "steps_per_s", "steps/s", True),
    "num_envs": Section("Vector env: steps/s vs num_envs", "steps_per_s", "steps/s", True),
    "reset": Section("Reset cost", "ms_per_reset", "ms/reset", False),
    "memory": Section("Memory per env", "mib_per_env", "MiB/env", False),
    "collector": Section("PPO collector, zero-cost infer", "rate", "records/s", True),
    "overlap": Section(
        "Collect/train overlap (streaming)", "stream_over_bound", "x max(collect, train)", False
    ),
}


# --------------------------------------------------------------------------- provenance


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
    def git(*args: str) -> str:
        out = subprocess.run(
            ["git", "--no-optional-locks", *args],
            cwd=PACKAGE_ROOT,
            capture_output=True,
            text=True,
            timeout=10,
        )
        return out.stdout.strip() if out.returncode == 0 else ""

    try:
        commit = git("rev-parse", "--short", "HEAD")
        if not commit:
            return "unknown"
        dirty = git("status", "--porcelain", "--untracked-files=no")
        return commit + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def load_average() -> str:
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


def _simd_path() -> str:
    """Which copies of its hottest loops reinfors-gym runs here: the core picks AVX2 at run time
    where the CPU has it (and `REINFORS_GYM_DISABLE_AVX2` is unset), else the x86-64 baseline."""
    try:
        flags = next(
            (
                line
                for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("flags")
            ),
            "",
        ).split()
    except OSError:
        return "unknown"
    if "avx2" not in flags:
        return "baseline (no AVX2 on this CPU)"
    if os.environ.get("REINFORS_GYM_DISABLE_AVX2") is not None:
        return "baseline (REINFORS_GYM_DISABLE_AVX2 set)"
    return "AVX2 (run-time dispatch; same bytes as baseline)"


def machine_info() -> dict[str, str]:
    """Where and with what the numbers were measured."""
    return {
        "cpu": _cpu_model(),
        "cores": str(usable_cores()),
        "reinfors-gym simd": _simd_path(),
        "os": f"{platform.system()} {platform.release()} {platform.machine()}",
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "gymnasium": _version("gymnasium"),
        "pygame-ce": _version("pygame-ce"),
        "box2d": _version("Box2D"),
        "envpool": _version("envpool"),
        "reinfors": _version("reinfors"),
        "reinfors-gym": _version("reinfors-gym"),
        "commit": _commit(),
    }


def print_machine_info(info: dict[str, str] | None = None) -> None:
    info = info or machine_info()
    print("machine: " + "; ".join(f"{k}={v}" for k, v in info.items()))


# --------------------------------------------------------------------------- statistics


def summarize(values: Iterable[float]) -> dict[str, float]:
    """Median and range of the trials."""
    vals = [float(v) for v in values]
    if not vals:
        raise ValueError("no values to summarize")
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def relative_spread(summary: dict[str, float]) -> float:
    """(max - min) / median: how much the trials disagree (0 for a single trial)."""
    med = summary["median"]
    return (summary["max"] - summary["min"]) / med if med else float("inf")


def ratio(ours: float, anchor: float, higher_is_better: bool) -> float:
    """How many times better ours is: ours/anchor for rates, anchor/ours for costs."""
    if higher_is_better:
        return ours / anchor if anchor else float("inf")
    return anchor / ours if ours else float("inf")


def alternating(items: list, trial: int) -> list:
    """The measurement order of `trial`: forward on even trials, reversed on odd ones."""
    return list(items) if trial % 2 == 0 else list(reversed(items))


# --------------------------------------------------------------------------- workers


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


# --------------------------------------------------------------------------- the plan


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


# --------------------------------------------------------------------------- running


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
    stats = {}
    if m.trials:
        for key in m.trials[0]:
            stats[key] = summarize(t[key] for t in m.trials if key in t)
    return {
        "id": m.id,
        "section": m.section,
        "kind": m.kind,
        "variant": m.variant,
        "family": v.family,
        "label": v.label,
        "params": m.params,
        "trials": m.trials,
        "stats": stats,
        "skipped": m.skipped,
    }


def comparisons(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ours against each anchor measured under the same conditions, as 'times better'."""
    live = [r for r in rows if not r["skipped"] and r["stats"]]

    def find(
        section: str, variant: str, kind: str | None = None, **params: Any
    ) -> dict[str, Any] | None:
        for r in live:
            if kind is not None and r.get("kind", r["section"]) != kind:
                continue
            if (r["section"], r["variant"]) == (section, variant) and all(
                r["params"].get(k) == v for k, v in params.items()
            ):
                return r
        return None

    out: list[dict[str, Any]] = []

    def add(what: str, ours: dict | None, anchor: dict | None, meaning: str = "") -> None:
        if ours is None or anchor is None:
            return
        section = SECTIONS[ours["section"]]
        o = ours["stats"][section.metric]["median"]
        a = anchor["stats"][section.metric]["median"]
        out.append(
            {
                "section": ours["section"],
                "what": what,
                "ours": ours["id"],
                "anchor": anchor["id"],
                "ours_median": o,
                "anchor_median": a,
                "unit": section.unit,
                "ratio": ratio(o, a, section.higher_is_better),
                "meaning": meaning or ("faster" if section.higher_is_better else "less"),
            }
        )

    for anchor in ("gymnasium", "envpool", "reinfors"):
        for ours in ("ours-gym", "ours-raw"):
            add(
                f"{VARIANTS[ours].label} vs {VARIANTS[anchor].label}",
                find("single", ours),
                find("single", anchor),
            )
    for r in live:
        if r["section"] == "threads" and r["family"] != "ours":
            p = r["params"]
            threads = f"{p['threads']} thread" + ("s" if p["threads"] != 1 else "")
            what = f"vector, {p['num_envs']} envs, {threads}: vs {r['label']}"
            if r["variant"] == "gymnasium-async":
                what = (
                    f"vector, {p['num_envs']} envs, {p['threads']} cores: vs {r['label']} "
                    f"({p['num_envs']} processes)"
                )
            add(what, find("threads", "ours-vector", **p), r)
    ours_async = find("policy", "ours-vector", kind="policy-async")
    if ours_async is not None:
        p = ours_async["params"]
        head = f"async loop, {p['num_envs']} envs, batch {p['batch_size']}: vs "
        for anchor, what, meaning in (
            (
                find("policy", "policy-alone", num_envs=p["batch_size"]),
                f"the policy alone at batch {p['batch_size']}",
                "of the ceiling",
            ),
            (
                find("policy", "ours-vector", kind="policy", threads=0),
                "our synchronous loop",
                "faster",
            ),
            (find("policy", "envpool", kind="policy-async"), "EnvPool's async loop", "faster"),
        ):
            add(head + what, ours_async, anchor, meaning=meaning)
    ours_policy = find("policy", "ours-vector", kind="policy", threads=0)
    policy_envs = ours_policy["params"]["num_envs"] if ours_policy else None
    for anchor, meaning in (
        (find("policy", "policy-alone", num_envs=policy_envs), "of the ceiling"),
        (find("policy", "ours-vector", kind="policy", threads=1), "of num_threads=1"),
        (find("policy", "envpool", kind="policy"), "faster"),
        (find("policy", "gymnasium-async"), "faster"),
    ):
        if anchor is not None:
            what = f"policy in the loop, {anchor['params']['num_envs']} envs, default threads: "
            what += f"vs {anchor['label']}" + (
                ", num_threads=1" if anchor["variant"] == "ours-vector" else ""
            )
            add(what, ours_policy, anchor, meaning=meaning)
    two = find("oversub", "ours-vector", threads=2)
    for r in live:
        if r["section"] == "oversub" and r["params"]["threads"] > 2:
            add(
                f"{r['params']['num_envs']} envs, num_threads={r['params']['threads']} "
                "vs num_threads=2",
                r,
                two,
                meaning="of the 2-thread rate",
            )
    add(
        "reset(seed) vs Gymnasium CarRacing-v3",
        find("reset", "ours-gym"),
        find("reset", "gymnasium"),
    )
    ours_memory = [r for r in live if r["section"] == "memory" and r["variant"] == "ours-vector"]
    for r in live:
        if r["section"] == "memory" and r["family"] != "ours" and ours_memory:
            n = r["params"]["num_envs"]
            ours = min(ours_memory, key=lambda o: abs(o["params"]["num_envs"] - n))
            what = f"memory per env vs {r['label']} at {n} envs"
            if ours["params"]["num_envs"] != n:
                what += f" (ours at {ours['params']['num_envs']})"
            add(what, ours, r)
    add(
        "Engine vs reinfors Engine (discrete, zero-cost infer)",
        find("collector", "ours-engine"),
        find("collector", "reinfors-engine"),
    )
    add(
        "Engine records/s vs our raw vector env steps/s (share kept)",
        find("collector", "ours-engine"),
        find("collector", "ours-vector-discrete"),
        meaning="of the raw env's rate",
    )
    return out


def run_benchmarks(
    config: Config,
    progress: Callable[[str], None] | None = print,
    command: str | None = None,
    bar: ProgressBar | None = None,
) -> dict[str, Any]:
    """Runs a whole benchmark and returns the results document (see `validate`). `bar`, if
    given, counts the trials (see `run_plan`)."""
    c = config.resolved()
    started = datetime.now(timezone.utc)
    load_before = load_average()
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
        "schema": SCHEMA,
        "created": started.isoformat(timespec="seconds"),
        "duration_s": round((datetime.now(timezone.utc) - started).total_seconds(), 1),
        "command": command or "reinfors-gym bench",
        "machine": machine_info(),
        "load_average": {"before": load_before, "after": load_average()},
        "config": cfg,
        "sections": {k: asdict(v) for k, v in SECTIONS.items() if k in c.sections},
        "rows": rows,
        "comparisons": comparisons(rows),
    }


# --------------------------------------------------------------------------- schema


def validate(doc: Any) -> dict[str, Any]:
    """Checks a results document's shape; returns it, or raises ValueError."""

    def need(cond: bool, what: str) -> None:
        if not cond:
            raise ValueError(f"not a reinfors-gym benchmark result: {what}")

    need(isinstance(doc, dict), "top level must be an object")
    need(doc.get("schema") == SCHEMA, f"schema must be {SCHEMA!r}, got {doc.get('schema')!r}")
    for key, kind in (
        ("machine", dict),
        ("config", dict),
        ("sections", dict),
        ("rows", list),
        ("comparisons", list),
        ("command", str),
    ):
        need(isinstance(doc.get(key), kind), f"{key!r} must be a {kind.__name__}")
    for row in doc["rows"]:
        need(isinstance(row, dict), "rows must be objects")
        for key in ("id", "section", "variant", "family", "label", "params", "trials", "stats"):
            need(key in row, f"row lacks {key!r}")
        need(row["section"] in doc["sections"], f"row {row['id']} in an unknown section")
        need(row["skipped"] is None or isinstance(row["skipped"], str), "skipped: str or null")
        for name, s in row["stats"].items():
            need(
                isinstance(s, dict) and {"median", "min", "max"} <= set(s),
                f"stats {name!r} of {row['id']} need median/min/max",
            )
            need(s["min"] <= s["median"] <= s["max"], f"stats {name!r} of {row['id']} unordered")
    for comp in doc["comparisons"]:
        for key in ("section", "what", "ours", "anchor", "ratio", "unit"):
            need(key in comp, f"comparison lacks {key!r}")
    return doc


def dump(doc: dict[str, Any], path: Path) -> None:
    validate(doc)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n")


def load(path: Path) -> dict[str, Any]:
    return validate(json.loads(Path(path).read_text()))
