"""Reports of a results document (see `harness.validate`): console tables, PNG charts
(matplotlib, when installed) and the Markdown page docs/benchmarks.md."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

from .sections import SECTIONS

CHARTS = {
    "threads": "bench_threads.png",
    "policy": "bench_policy.png",
    "oversub": "bench_oversub.png",
    "num_envs": "bench_num_envs.png",
    "single": "bench_single.png",
}
TIME_GOES_START = "<!-- where-the-time-goes:start -->"
TIME_GOES_END = "<!-- where-the-time-goes:end -->"


def fmt(value: float) -> str:
    """A number with sensible precision for tables."""
    if value != value:  # NaN
        return "n/a"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}" if abs(value) >= 0.1 else f"{value:.3f}"


def fmt_ratio(value: float) -> str:
    return f"{value:.1f}x" if value >= 10 else f"{value:.2f}x"


def config_text(params: dict[str, Any], variant: str = "") -> str:
    shown = {k: v for k, v in params.items() if k not in ("seconds", "warmup")}
    if shown.get("threads") == 0:
        shown["threads"] = "default"
    if variant == "policy-alone":
        shown.pop("threads", None)
    if variant == "gymnasium-async" and "threads" in shown:
        shown = {
            "num_envs": shown.get("num_envs"),
            "processes": shown.get("num_envs"),
            "cores": shown["threads"],
        }
    return ", ".join(f"{k}={v}" for k, v in shown.items()) or "-"


def section_rows(doc: dict[str, Any], section: str) -> list[dict[str, Any]]:
    return [r for r in doc["rows"] if r["section"] == section]


def _metric(section: str) -> str:
    return SECTIONS[section].metric if section in SECTIONS else "value"


def _ratio_for(doc: dict[str, Any], row: dict[str, Any]) -> str:
    """'ours vs this' for an anchor row (first matching comparison)."""
    parts = []
    for c in doc["comparisons"]:
        if c["anchor"] == row["id"]:
            ours = next((r for r in doc["rows"] if r["id"] == c["ours"]), None)
            who = ours["label"].replace("reinfors-gym", "ours") if ours else "ours"
            parts.append(f"{who}: {fmt_ratio(c['ratio'])}")
    return "; ".join(parts)


# --------------------------------------------------------------------------- console


def console(doc: dict[str, Any]) -> str:
    """The comparison tables as plain text."""
    lines: list[str] = []
    trials = doc["config"].get("trials", "?")
    for key, sec in doc["sections"].items():
        rows = section_rows(doc, key)
        if not rows:
            continue
        lines.append("")
        lines.append(f"{sec['title']} ({sec['unit']}; median [min-max] of {trials} trial(s))")
        for r in rows:
            name = f"  {r['label']:<46} {config_text(r['params'], r['variant']):<30}"
            if r["skipped"]:
                lines.append(f"{name} skipped: {r['skipped']}")
                continue
            s = r["stats"][sec["metric"]]
            extra = _ratio_for(doc, r)
            lines.append(
                f"{name} {fmt(s['median']):>9}  [{fmt(s['min'])}-{fmt(s['max'])}]"
                + (f"  ours vs this: {extra}" if extra else "")
            )
        if key == "overlap":
            for r in rows:
                if not r["skipped"]:
                    st = {k: v["median"] for k, v in r["stats"].items()}
                    lines.append(
                        f"  collect {st['collect_s']:.3f} s + train {st['train_s']:.3f} s: "
                        f"collect-then-train {st['sequential_s']:.3f} s/update, "
                        f"streaming {st['stream_s']:.3f} s/update ({st['speedup']:.2f}x)"
                    )
    if doc["comparisons"]:
        lines.append("")
        lines.append("ours vs anchors (ratio of medians; >1 means ours is better)")
        for c in doc["comparisons"]:
            lines.append(f"  {c['what']:<78} {fmt_ratio(c['ratio']):>8} {c['meaning']}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- charts


def charts(doc: dict[str, Any], img_dir: Path) -> tuple[list[Path], str | None]:
    """Writes the PNG charts; returns (paths, None), or ([], reason) without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter
    except ImportError:
        return [], "matplotlib is not installed: charts skipped (pip install matplotlib)"
    # Rates with thousands separators ("36,000"): bare digits run into each other on an axis.
    thousands = FuncFormatter(lambda v, _pos: f"{v:,.0f}")
    img_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    machine = doc["machine"]
    subtitle = f"{machine.get('cpu', '?')}, {machine.get('cores', '?')} cores"

    def series(section: str, variant: str, x: str) -> tuple[list, list, list, list]:
        pts = sorted(
            (r["params"][x], r["stats"][_metric(section)])
            for r in section_rows(doc, section)
            if r["variant"] == variant and not r["skipped"] and r["stats"]
        )
        return (
            [p[0] for p in pts],
            [p[1]["median"] for p in pts],
            [p[1]["median"] - p[1]["min"] for p in pts],
            [p[1]["max"] - p[1]["median"] for p in pts],
        )

    def label_of(variant: str) -> str:
        return next((r["label"] for r in doc["rows"] if r["variant"] == variant), variant)

    def measured(section: str) -> list[dict[str, Any]]:
        return [r for r in section_rows(doc, section) if not r["skipped"] and r["stats"]]

    def rates(rows: list[dict[str, Any]]) -> tuple[list[float], list[list[float]]]:
        """Each row's median steps/s, and its range as error bars below and above it."""
        med = [r["stats"]["steps_per_s"]["median"] for r in rows]
        lo = [m - r["stats"]["steps_per_s"]["min"] for m, r in zip(med, rows, strict=True)]
        hi = [r["stats"]["steps_per_s"]["max"] - m for m, r in zip(med, rows, strict=True)]
        return med, [lo, hi]

    def save(fig: Any, section: str) -> None:
        """Writes `fig` as the chart of `section`."""
        fig.tight_layout()
        written.append(img_dir / CHARTS[section])
        fig.savefig(written[-1], dpi=110)
        plt.close(fig)

    # throughput vs threads
    rows = measured("threads")
    if rows:
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        n = rows[0]["params"]["num_envs"]
        for variant, marker in (("ours-vector", "o"), ("envpool", "s")):
            xs, ys, lo, hi = series("threads", variant, "threads")
            if xs:
                ax.errorbar(
                    xs, ys, yerr=[lo, hi], marker=marker, capsize=3, label=label_of(variant)
                )
        xs, ys, lo, hi = series("threads", "gymnasium-async", "threads")
        if xs:
            ax.errorbar(
                xs, ys, yerr=[lo, hi], marker="^", linestyle="none", capsize=3,
                label=f"{label_of('gymnasium-async')} ({n} processes)",
            )  # fmt: skip
        ax.set_xlabel("worker threads (AsyncVectorEnv: cores)")
        ax.set_ylabel("env steps/s")
        ax.set_xticks(sorted({r["params"]["threads"] for r in rows}))
        medians = [r["stats"]["steps_per_s"]["median"] for r in rows]
        if max(medians) > 20 * min(medians):
            ax.set_yscale("log")  # anchors an order of magnitude apart stay readable
            ax.set_ylabel("env steps/s (log scale)")
            # Labels at 1, 2 and 5 per decade: a decade or two would show only two.
            ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(thousands)
            ax.yaxis.set_minor_formatter(NullFormatter())
        else:
            ax.set_ylim(bottom=0)
        ax.set_title(f"Throughput vs threads, {n} envs\n{subtitle}", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        save(fig, "threads")

    def log2_line_chart(section: str, x: str, xlabel: str, title: str) -> None:
        """Ours' throughput against a doubling parameter (num_envs, requested threads)."""
        xs, ys, lo, hi = series(section, "ours-vector", x)
        if not xs:
            return
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=label_of("ours-vector"))
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs)
        ax.set_xticklabels([str(v) for v in xs])
        ax.set_xlabel(xlabel)
        ax.set_ylabel("env steps/s")
        ax.set_ylim(bottom=0)
        ax.set_title(f"{title}\n{subtitle}", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        save(fig, section)

    if section_rows(doc, "num_envs"):
        threads = section_rows(doc, "num_envs")[0]["params"]["threads"]
        log2_line_chart(
            "num_envs", "num_envs", "num_envs", f"Throughput vs num_envs, {threads} threads"
        )

    # single env
    rows = measured("single")
    if rows:
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        med, spread = rates(rows)
        colors = ["tab:blue" if r["family"] == "ours" else "tab:gray" for r in rows]
        bars = ax.barh([r["label"] for r in rows], med, xerr=spread, color=colors, capsize=3)
        # Each median written beside its bar: the anchors' bars are too short to read off.
        ax.bar_label(bars, labels=[f"{m:,.0f}" for m in med], padding=6, fontsize=8)
        ax.invert_yaxis()
        ax.xaxis.set_major_locator(MaxNLocator(5))
        ax.xaxis.set_major_formatter(thousands)
        ax.set_xlim(right=max(med) * 1.2)  # room for the largest bar's label
        ax.set_xlabel("env steps/s (single thread)")
        ax.set_title(f"Single env, single thread\n{subtitle}", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
        save(fig, "single")
    # policy in the loop: bars, the ceiling first
    rows = measured("policy")
    if rows:
        fig, ax = plt.subplots(figsize=(8.0, 4.4))
        # Wrapped: the full labels are wider than the figure.
        names = [
            textwrap.fill(f"{r['label']} ({config_text(r['params'], r['variant'])})", 36)
            for r in rows
        ]
        med, spread = rates(rows)
        colors = [
            "tab:green" if r["variant"] == "policy-alone"
            else "tab:blue" if r["family"] == "ours" else "tab:gray"
            for r in rows
        ]  # fmt: skip
        ax.barh(names, med, xerr=spread, color=colors, capsize=3)
        ax.invert_yaxis()
        ax.tick_params(axis="y", labelsize=7)
        ax.set_xlabel("env steps/s, a Nature-CNN policy between steps")
        n = rows[0]["params"]["num_envs"]
        ax.set_title(f"Policy in the loop, batches of {n} envs\n{subtitle}", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
        save(fig, "policy")

    if section_rows(doc, "oversub"):
        n = section_rows(doc, "oversub")[0]["params"]["num_envs"]
        log2_line_chart(
            "oversub",
            "threads",
            f"num_threads requested ({machine.get('cores', '?')} cores)",
            f"More threads than cores, {n} envs",
        )
    return written, None


# --------------------------------------------------------------------------- markdown

CONDITIONS = """\
- **Loops.** Every system runs the same kind of loop in its own fresh process: actions drawn up
  front from a seeded generator (uniform over the continuous box `[-1, 1] x [0, 1] x [0, 1]`, or
  uniform over the 5 discrete actions where only those exist), the observation frame produced
  every step as each env does it, episodes capped at 1000 steps and reset, a warm-up discarded,
  then a fixed wall-clock window. Trials alternate the order of the systems (forward, then
  reversed); tables give the median and the range of the trials. Each worker is started as
  `python -m reinfors_gym.benchmarks.worker`, so it imports this package (and its extension)
  even when it measures another system; the import is outside the timed window.
- **Ours through `gym.make` vs raw.** `gym.make("reinfors/CarRacing-v0")` includes Gymnasium's
  standard wrappers (`PassiveEnvChecker`, `OrderEnforcing`, `TimeLimit`), exactly as
  `gym.make("CarRacing-v3")` does for Gymnasium, so that pair is like-for-like. The raw
  `CarRacingEnv` row has no wrappers (the loop applies the 1000-step limit itself); it shows the
  wrappers' Python overhead, and is not the fair counterpart of Gymnasium's row.
- **Gymnasium `CarRacing-v3`** draws each frame with pygame at 1000x800 and smooth-scales it to
  96x96; we draw 96x96 natively (with exact area-coverage anti-aliasing), so most of the gap is
  rendering, not physics. Both return the same `(96, 96, 3)` uint8 frames and the same tracks.
- **Builds.** Every system runs as installed: Gymnasium/pybox2d, EnvPool and reinfors from their
  PyPI wheels, ours as built by `make setup` (release, LTO, x86-64 baseline). Ours picks AVX2
  copies of its hottest loops at run time where the CPU has them (the machine table says which);
  they give the same bytes as the baseline copies (tested), only faster. We did not check
  which instruction sets the other wheels were compiled for.
- **Gymnasium `AsyncVectorEnv`** runs one process per env (shared-memory observations): with
  more envs than cores the processes time-share the cores; its row is compared with our vector
  env at the same number of envs using all cores. Its memory is the sum over the parent and the
  worker processes, measured as PSS (shared pages split between the processes that share them).
- **EnvPool `CarRacing-v3`** (`envpool.make_gymnasium`) is a C++ reimplementation with its own
  track generator (mt19937: other tracks than Gymnasium's for the same seed) and its own
  rasterizer; it resets finished envs inside `step` (its own autoreset), and is run
  synchronously (`batch_size == num_envs`) with the same env and thread counts as ours. Its
  single-env row is 1 env on 1 thread. That env runs on EnvPool's worker thread while the
  calling thread blocks. Measured, this uses 1.00 core per second of wall time, as our
  single-env loop does, so the pair is like-for-like in CPU. Its rate moves more between runs
  than ours: 922 and 1,121 steps/s in two full runs on the same day.
- **reinfors `car_racing`** offers discrete actions only (5 controls) and float32 CHW
  observations `(3, 96, 96)`; its frame is drawn when observed, so the loop calls `step` then
  `observe` every step. Its tracks differ from Gymnasium's (SplitMix64 seeding). The
  single-env comparison is therefore discrete-with-float-frames vs our continuous-with-uint8
  frames: same simulation work, different action parsing and frame format.
- **Collectors.** Both engines run discrete CarRacing (reinfors has no continuous variant)
  with the same games, threads, collect size and reward weights, and a zero-cost `infer`
  (cached zero logits and values), so the figure is the collector's own cost: stepping,
  sampling, recording and GAE. Our raw vector env row (discrete, `SAME_STEP`, no copies) at
  the same games and threads is the ceiling the collector can approach.
- **Policy in the loop.** The loop users run: a CleanRL-style rollout (obs -> `torch` ->
  action -> `envs.step`) with CleanRL's continuous-action Nature-CNN agent (3 conv layers, a
  512-unit layer, Gaussian and value heads; random weights, `torch.no_grad()`), torch using every
  core (`torch.set_num_threads(cores)`, its default), 8 envs, the Gaussian sample clipped to the
  action box. Every system gets the same agent and the same loop; ours and EnvPool take the
  `(8, 96, 96, 3)` uint8 batch straight, AsyncVectorEnv runs one process per env. "The policy
  alone" runs the agent on a fixed batch with no env at all: the loop's ceiling on this machine.
  Ours is shown with its default `num_threads` (the cores) and with `num_threads=1`.
- **More threads than cores.** The tight vector loop at 16 envs with `num_threads` from 1 to 64
  requested; ours uses at most one thread per available core (and per env), so asking for more
  must not cost anything.
- **Overlap.** A training step is modelled as a GIL-free sleep as long as one collection (as a
  GPU update would be); streaming should approach `max(collect, train)` rather than their sum.
- **Memory** is what a vector env adds to its process(es) after reset and 20 steps, divided by
  the number of envs, including the caller-facing observation batch.
- **Noise.** These are small shared machines; compare ratios measured in one run, and mind
  the load average recorded with the run.
"""


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def existing_time_goes(path: Path) -> str | None:
    """The maintainer's 'Where the time goes' text from an existing page, kept on regeneration."""
    if not path.exists():
        return None
    m = re.search(
        re.escape(TIME_GOES_START) + r"\n(.*?)" + re.escape(TIME_GOES_END),
        path.read_text(),
        re.DOTALL,
    )
    return m.group(1) if m else None


TIME_GOES_PLACEHOLDER = """\
> **Placeholder — to be filled by the maintainer from a profile.** This section is kept as is
> when the page is regenerated (everything between the two HTML comments).

_TODO: per-step breakdown (physics, contact, rasterization, Python binding, wrappers) of ours
and of Gymnasium's CarRacing-v3, from a profile (e.g. `perf` / `py-spy`)._
"""


def markdown(
    doc: dict[str, Any],
    img_rel: str | None = "img",
    time_goes: str | None = None,
    charts_available: set[str] | None = None,
    soak: dict[str, Any] | None = None,
) -> str:
    """docs/benchmarks.md from a results document; charts are linked from `img_rel` (all of
    them, or those named in `charts_available`); `soak` (bench/soak.py's JSON) adds its
    memory table."""
    m, cfg = doc["machine"], doc["config"]
    out: list[str] = [
        "# Benchmarks",
        "",
        "<!-- Generated by tools/gen_bench_doc.py from docs/benchmarks.json: edit those, not this"
        " page (except the 'Where the time goes' section, which regeneration keeps). -->",
        "",
        f"reinfors-gym beside Gymnasium's `CarRacing-v3`, EnvPool and reinfors, measured on "
        f"{m.get('cpu', '?')} ({m.get('cores', '?')} cores) on {doc.get('created', '?')} at "
        f"commit `{m.get('commit', '?')}`. Medians of {cfg.get('trials')} trial(s) "
        f"({cfg.get('seconds')} s each after a {cfg.get('warmup')} s warm-up), each in its own "
        "process; ranges are min-max over the trials. Ratios are 'how many times better ours "
        "is' (faster, or less time or memory) and are only meaningful within one run.",
        "",
    ]
    load = doc.get("load_average", {})
    try:
        peak = max(float(str(load.get(k, "0")).split()[0]) for k in ("before", "after"))
        cores = float(m.get("cores", 0))
    except (ValueError, IndexError):
        peak, cores = 0.0, 0.0
    if cores and peak > cores:
        out += [
            f"> **Noisy run:** the 1-minute load average reached {peak:.1f} on {cores:.0f} "
            "cores (other jobs were running), so absolute figures are below what a quiet "
            "machine gives; the alternating trial order keeps the ratios fairer, but read the "
            "ranges.",
            "",
        ]
    if cfg.get("quick"):
        out += ["> **Quick run** (`--quick`): one short trial per measurement, a preview only.", ""]
    out += ["## Summary: ours vs anchors", ""]
    if doc["comparisons"]:
        rows = []
        for c in doc["comparisons"]:
            rows.append(
                [
                    c["what"],
                    f"{fmt(c['ours_median'])} {c['unit']}",
                    f"{fmt(c['anchor_median'])} {c['unit']}",
                    f"**{fmt_ratio(c['ratio'])}** {c['meaning']}",
                ]
            )
        out += _md_table(["comparison", "ours", "anchor", "ratio"], rows)
    else:
        out.append("_No anchor could be measured in this run._")
    out.append("")

    for key, sec in doc["sections"].items():
        rows_ = section_rows(doc, key)
        if not rows_:
            continue
        out += [f"## {sec['title']}", ""]
        table = []
        for r in rows_:
            if r["skipped"]:
                table.append(
                    [r["label"], config_text(r["params"], r["variant"]), "skipped", "", "",
                     r["skipped"]]
                )  # fmt: skip
                continue
            s = r["stats"][sec["metric"]]
            table.append(
                [
                    r["label"],
                    config_text(r["params"], r["variant"]),
                    fmt(s["median"]),
                    f"{fmt(s['min'])}-{fmt(s['max'])}",
                    str(s.get("n", len(r["trials"]))),
                    _ratio_for(doc, r),
                ]
            )
        out += _md_table(
            ["system", "configuration", f"median ({sec['unit']})", "range", "trials",
             "ours vs this"],
            table,
        )  # fmt: skip
        if key == "overlap":
            for r in rows_:
                if r["skipped"]:
                    continue
                st = {k: v["median"] for k, v in r["stats"].items()}
                out += [
                    "",
                    f"One collection takes {st['collect_s']:.3f} s and the modelled training "
                    f"step {st['train_s']:.3f} s: collect-then-train costs "
                    f"{st['sequential_s']:.3f} s per update, streaming {st['stream_s']:.3f} s "
                    f"({st['speedup']:.2f}x; the lower bound is "
                    f"{max(st['collect_s'], st['train_s']):.3f} s).",
                ]
        if key == "memory":
            out += [
                "",
                "Memory is PSS added by the vector env after reset and 20 steps, per env, "
                "including the observation batch.",
            ]
        if (
            img_rel is not None
            and key in CHARTS
            and (charts_available is None or CHARTS[key] in charts_available)
        ):
            out += ["", f"![{sec['title']}]({img_rel}/{CHARTS[key]})"]
        out.append("")

    out += ["## Conditions: what is and is not like-for-like", "", CONDITIONS]
    out += ["## Where the time goes", "", TIME_GOES_START]
    out.append((time_goes if time_goes is not None else TIME_GOES_PLACEHOLDER).rstrip("\n"))
    out += [TIME_GOES_END, ""]

    out += ["## Machine", ""]
    out += _md_table(["", ""], [[k, f"`{v}`"] for k, v in m.items()])
    out += [
        "",
        f"Load average (1, 5, 15 min) before the run: {load.get('before', '?')}; after: "
        f"{load.get('after', '?')}. The run took {doc.get('duration_s', '?')} s.",
        "",
        "## Reproduce",
        "",
        "```bash",
        "make setup                       # .venv with the extension (release) and test extras",
        '.venv/bin/pip install "envpool>=1.2" "reinfors>=0.4" "matplotlib>=3.7" torch  # [bench], '
        "torch for the policy section",
        f"SDL_VIDEODRIVER=dummy .venv/bin/{doc['command']}",
        ".venv/bin/python tools/gen_bench_doc.py docs/benchmarks.json docs/benchmarks.md",
        "```",
        "",
        "On a terminal a progress bar names the trial running and the time left; off a "
        "terminal the command is quiet until its report. "
        "`reinfors-gym bench --quick` is a < 60 s preview (one short trial each). Single "
        "sections: `python bench/bench_single.py`, `python bench/bench_vector.py`, "
        "`python bench/bench_collector.py`.",
        "",
    ]
    if soak is not None:
        out += soak_section(soak)
    skipped = [r for r in doc["rows"] if r["skipped"]]
    if skipped:
        out += ["## Skipped", ""]
        out += [f"- `{r['id']}`: {r['skipped']}" for r in skipped]
        out.append("")
    return "\n".join(out)


def soak_section(soak: dict[str, Any]) -> list[str]:
    """The soak's verdict: RSS at 1M and at the end of each run (bench/soak.py's JSON)."""
    cfg, m = soak["config"], soak["machine"]
    out = [
        "## Soak: memory over 10M steps",
        "",
        f"`{soak['command']}` at commit `{str(m.get('commit', '?'))[:7]}` "
        f"({soak.get('date_utc', '?')}): each run in its own process, RSS sampled every "
        f"{cfg['sample_every']:,} env steps, with seeded resets, renders every "
        f"{cfg['render_every']:,} steps and fresh observation arrays. Criterion: "
        f"{soak['criterion']}. Details and the full series: [Soak test](soak.md).",
        "",
    ]
    rows = []
    for name, run in soak["runs"].items():
        by_step = {s["steps"]: s["rss_kib"] / 1024 for s in run["samples"]}
        last = max(by_step)
        first = by_step.get(1_000_000)
        if first is None:
            continue
        change = (by_step[last] - first) / first
        verdict = "pass" if abs(change) <= cfg["tolerance"] else "**fail**"
        rows.append(
            [
                f"{name} ({run['make']})",
                f"{first:.1f} MiB",
                f"{by_step[last]:.1f} MiB ({last / 1e6:.0f}M)",
                f"{change:+.2%}",
                verdict,
            ]
        )
    out += _md_table(["run", "RSS at 1M steps", "RSS at the end", "change", "verdict"], rows)
    out.append("")
    return out
