"""Writes the figures that README.md and docs/ quote from the measurement files.

    python tools/gen_figures.py            # rewrite the generated regions in place
    python tools/gen_figures.py --check    # exit 1 if any region differs from its source

A generated region is the text between `<!-- gen:NAME -->` and `<!-- /gen -->` (inline or over
several lines). Its content is `FIGURES[NAME]`, computed from docs/benchmarks.json (the latest
`reinfors-gym bench --out docs` run), docs/parity_summary.json (written by
tools/gen_parity_doc.py after `make parity`), docs/policy_loop_profile.json, or the training
records (docs/training_runs.json from tools/gen_training_runs.py), docs/training_profile.json,
docs/training_bench.json, and the records tools/figures_records.py reads (its docstring lists
them: the soak runs, the integrations' speed tables); tools/figures_loops.py writes those of
docs/async_loops.json (`reinfors-gym bench --loops --out docs`); tools/figures_variants.py the
tables of docs/training_variants.json. tools/gen_bench_doc.py and tools/gen_parity_doc.py
call this after writing their pages; tests/test_figures.py checks that every region matches and
that no figure is copied by hand outside one.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import figures_loops
import figures_records
import figures_variants
from markdown_table import table

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "docs" / "benchmarks.json"
PARITY = ROOT / "docs" / "parity_summary.json"
PROFILE = ROOT / "docs" / "policy_loop_profile.json"
TRAINING_RUNS = ROOT / "docs" / "training_runs.json"
RECIPE10_RUNS = ROOT / "docs" / "training_runs_recipe10.json"
RECIPE10_FIRST = ROOT / "docs" / "training_runs_recipe10_first.json"
RECIPE11_RUNS = ROOT / "docs" / "training_runs_recipe11.json"
#: The recipe-10 run whose export is examples/checkpoints/carracing_ppo.pt2 (the rule
#: rule_shipped_policy_recipe10 in docs/training_variants.json).
SHIPPED_RECIPE10_SEED = 4
#: The one-command check of recipe 10 from a fresh clone (docs/training_variants.json's
#: fresh_clone_recipe10_seed6): its run.json as make train wrote it.
FRESH_CLONE_RUN = ROOT / "examples" / "checkpoints" / "runs" / "recipe10-fresh-seed6" / "run.json"
TRAINING_PROFILE = ROOT / "docs" / "training_profile.json"
TRAINING_BENCH = ROOT / "docs" / "training_bench.json"
#: The pages that quote figures; benchmarks.md and parity.md are generated whole.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
GENERATED_PAGES = {ROOT / "docs" / "benchmarks.md", ROOT / "docs" / "parity.md"}
REGION = re.compile(r"<!-- gen:([a-z0-9-]+) -->(.*?)<!-- /gen -->", re.DOTALL)


class Bench:
    """Medians and ratios of one benchmark results file."""

    def __init__(self, doc: dict[str, Any]):
        self.doc = doc
        self.rows = {r["id"]: r for r in doc["rows"]}

    def median(self, row: str) -> float:
        stats = self.rows[row]["stats"]
        metric = self.doc["sections"][self.rows[row]["section"]]["metric"]
        return float(stats[metric]["median"])

    def ratio(self, ours: str, anchor: str) -> float:
        for c in self.doc["comparisons"]:
            if c["ours"] == ours and c["anchor"] == anchor:
                return float(c["ratio"])
        raise KeyError(f"no comparison {ours} vs {anchor}")

    @property
    def date(self) -> str:
        return str(self.doc["created"])[:10]


def span(lo: float, hi: float, fmt: str) -> str:
    """`lo–hi` in `fmt`, or one value when both print the same."""
    a, b = fmt.format(min(lo, hi)), fmt.format(max(lo, hi))
    return a if a == b else f"{a}–{b}"


def para(text: str) -> str:
    """`text` as one Markdown paragraph wrapped at 100 columns."""
    return textwrap.fill(
        " ".join(text.split()), 100, break_long_words=False, break_on_hyphens=False
    )


def x(value: float, fmt: str = "{:.2g}") -> str:
    return fmt.format(value) + "×"


GYM, RAW = "single:ours-gym", "single:ours-raw"
T1, T2 = "threads:ours-vector:num_envs=8,threads=1", "threads:ours-vector:num_envs=8,threads=2"
POLICY = "policy:ours-vector:threads=0,num_envs=8"
CEILING = "policy:policy-alone:threads=0,num_envs=8"
ASYNC = "policy:ours-vector:threads=0,num_envs=16,batch_size=8"
ASYNC_ENVPOOL = "policy:envpool:threads=2,num_envs=16,batch_size=8"


def serial_bound(b: Bench, step_row: str) -> float:
    """Highest share of the policy-alone rate a serial loop can reach: forward pass time over
    forward pass plus the 8-env step (each per batch of 8)."""
    forward = 1.0 / b.median(CEILING)
    step = 1.0 / b.median(step_row)
    return forward / (forward + step)


def single_rates(b: Bench) -> str:
    return span(b.median(GYM), b.median(RAW), "{:,.0f}")


def single_vs(b: Bench, anchor: str, fmt: str) -> str:
    return span(b.ratio(GYM, anchor), b.ratio(RAW, anchor), fmt) + "×"


def readme_performance(b: Bench) -> str:
    mem = [b.median(f"memory:ours-vector:num_envs={n}") for n in (16, 64, 256)]
    return para(f"""On this project's 2-core x86-64 machine (latest full run, {b.date}): one env on
one thread steps at {single_rates(b)} steps/s including the 96×96 frame. That is
{single_vs(b, "single:gymnasium", "{:.0f}")} Gymnasium's `CarRacing-v3`,
{single_vs(b, "single:envpool", "{:.1f}")} EnvPool's and {single_vs(b, "single:reinfors", "{:.1f}")}
reinfors'. The vector env is {x(b.ratio(T2, "threads:gymnasium-async:num_envs=8,threads=2"), "{:.0f}")}
`AsyncVectorEnv` at equal env and core counts, scales {x(b.median(T2) / b.median(T1), "{:.2f}")}
from 1 to 2 threads at 8 envs, keeps its 2-thread rate with up to 64 threads on 2 cores, and
stays flat from 16 to 1,024 envs; a reset costs
{b.median("reset:ours-gym:resets=30"):.2f} ms; a sub-env needs {span(min(mem), max(mem), "{:.2f}")} MiB
beyond its observation buffer. In the loop users run (a Nature-CNN policy in PyTorch between
steps, 8 envs) it reaches {x(b.ratio(POLICY, CEILING))} of the policy alone (the serial loop's
bound here is {span(serial_bound(b, T1), serial_bound(b, T2), "{:.2f}")}×;
[architecture](docs/architecture.md#threads) explains),
{x(b.ratio(POLICY, "policy:envpool:threads=2,num_envs=8"))} EnvPool and
{x(b.ratio(POLICY, "policy:gymnasium-async:threads=2,num_envs=8"))} `AsyncVectorEnv`; default
threads and `num_threads=1` are equal within noise
({x(b.ratio(POLICY, "policy:ours-vector:threads=1,num_envs=8"))}).""")


def index_table(b: Bench) -> str:
    def rate(row: str) -> str:
        return f"{b.median(row):,.0f}"

    reset_ours, reset_gym = "reset:ours-gym:resets=30", "reset:gymnasium:resets=30"
    mem_ours, mem_pool = "memory:ours-vector:num_envs=64", "memory:envpool:num_envs=64"
    async8 = "threads:gymnasium-async:num_envs=8,threads=2"
    pool_policy = "policy:envpool:threads=2,num_envs=8"
    return f"""| | reinfors-gym | anchor | ratio |
|---|---|---|---|
| one env, one thread, frames included (`gym.make`) | {rate(GYM)} steps/s | Gymnasium `CarRacing-v3`: {rate("single:gymnasium")} | **{x(b.ratio(GYM, "single:gymnasium"), "{:.0f}")}** |
| the same | {rate(GYM)} steps/s | EnvPool `CarRacing-v3`: {rate("single:envpool")} | **{x(b.ratio(GYM, "single:envpool"), "{:.1f}")}** |
| vector env, 8 envs, 2 threads | {rate(T2)} steps/s | `AsyncVectorEnv`, 8 processes: {rate(async8)} | **{x(b.ratio(T2, async8), "{:.0f}")}** |
| a Nature-CNN policy between steps, 8 envs | {rate(POLICY)} steps/s | EnvPool: {rate(pool_policy)}; the policy alone: {rate(CEILING)} | **{x(b.ratio(POLICY, pool_policy))}**; {x(b.ratio(POLICY, CEILING))} of the ceiling |
| `reset(seed)` | {b.median(reset_ours):.2f} ms | Gymnasium: {b.median(reset_gym):.1f} ms | **{x(b.ratio(reset_ours, reset_gym), "{:.0f}")}** less |
| memory per sub-env, 64 envs | {b.median(mem_ours):.2f} MiB | EnvPool: {b.median(mem_pool):.2f} MiB | **{x(b.ratio(mem_ours, mem_pool))}** less |"""


def architecture_ceiling(b: Bench) -> str:
    forward_ms = 8_000.0 / b.median(CEILING)
    step1_ms, step2_ms = 8_000.0 / b.median(T1), 8_000.0 / b.median(T2)
    return para(f"""In the latest full benchmark run the policy alone ran at {b.median(CEILING):,.0f} steps/s
({forward_ms:.2f} ms per forward pass of 8 frames), and ours reaches {x(b.ratio(POLICY, CEILING))}
of it. The loop is serial: the policy needs the step's observations, the step needs the policy's
actions, so an env step's time adds to the forward pass's. The 8-env step takes
{step1_ms:.2f} ms on one thread ({step2_ms:.2f} ms on two, when torch leaves the second core
alone), which bounds the loop at {serial_bound(b, T1):.0%} ({serial_bound(b, T2):.0%}) of the
ceiling here.""")


def async_loop(b: Bench) -> str:
    return para(f"""In the latest full benchmark run, our asynchronous loop (16 envs, batch 8,
the same policy on every core) ran at {b.median(ASYNC):,.0f} steps/s here: {x(b.ratio(ASYNC, CEILING))} of the policy
alone at batch 8, {x(b.ratio(ASYNC, POLICY), "{:.2f}")} our synchronous loop at 8 envs and
{x(b.ratio(ASYNC, ASYNC_ENVPOOL))} EnvPool's own asynchronous loop ({b.median(ASYNC_ENVPOOL):,.0f}
steps/s).""")


def loop_profile(p: dict[str, Any]) -> str:
    loops = p["loops"]
    alone, env = loops["policy alone"], loops["env alone"]
    sync, asy = loops["sync loop"], loops["async loop"]
    split = loops["step_async, 64 envs"]
    x = p["step_excess"]
    caller_slowed = x["caller_after_policy_ms"] - x["caller_alone_ms"]
    in_loop_us = x["helpers_save_in_loop_ms"] * 1e3
    saved_in_loop = f"{'save' if in_loop_us >= 0 else 'cost'} {abs(in_loop_us):.0f} µs"
    text = para(f"""`bench/profile_policy_loop.py` ({p["trials"]} interleaved trials, medians; {p["machine"]["cpu"]},
{p["machine"]["cores"]} cores) times each phase. The policy alone takes {alone["policy_ms"]:.2f} ms per batch of
{p["envs"]} and keeps {alone["cores_busy"]:.2f} of the 2 cores busy (PyTorch's OpenMP workers spin between
kernels); the {p["envs"]}-env step alone takes {env["step_ms"]:.3f} ms, which bounds a serial loop at
{p["serial_bound"]:.0%} of the ceiling. In the loop the step takes {sync["step_ms"]:.3f} ms,
{sync["step_ms"] / env["step_ms"]:.1f}× as long, for two reasons that the same step with `num_threads=1`
(the calling thread alone, no helper) tells apart. The caller's own stepping is slower after a
forward pass: {x["caller_alone_ms"]:.3f} ms alone, {x["caller_after_policy_ms"]:.3f} ms in the loop
({caller_slowed * 1e3:+.0f} µs); a {x["flush_mb"]} MB write before each step, which evicts the step's data
from the caches with no other thread running, accounts for {(x["caller_flushed_ms"] - x["caller_alone_ms"]) * 1e3:+.0f} µs of
that. And the helpers, which save {x["helpers_save_alone_ms"] * 1e3:.0f} µs of the step alone, {saved_in_loop} in the loop: no core is idle for them while PyTorch's workers spin.
So a serial loop's bound, which adds the step alone and hot to the policy alone, is one no loop
around this policy reaches here. The synchronous loop reaches {p["sync_of_ceiling"]:.0%} of the ceiling and the
asynchronous one {p["async_of_ceiling"]:.0%}: with no idle core to step on, helpers stepping beside the
policy slow its forward pass by more than they save, so the pacer leaves the stepping to `recv`,
which steps the batch as a synchronous step would. The overlap pays where the policy leaves cores
free (fewer torch threads than cores, or a GPU policy). `step_async` on 64 envs returns in
{split["step_async_ms"]:.3f} ms, {p["step_async_of_step_64"]:.0%} of a {split["step_ms"]:.2f} ms step. (Phases are
medians; an iteration is the mean wall time, which the slow outliers of a shared machine lift.)""")
    phases = ("policy_ms", "step_ms", "recv_ms", "send_ms", "iteration_ms")
    rows = [
        [name, *(f"{m[k]:.3f}" if k in m else "" for k in phases)]
        for name, m in (
            ("sync loop", sync),
            ("sync loop, num_threads=1", loops["sync loop, caller only"]),
            ("async loop", asy),
        )
    ]
    head = ["loop", "policy (ms)", "step (ms)", "recv (ms)", "send (ms)", "iteration (ms)"]
    return text + "\n\n" + table(head, rows)


def frame_mad(p: dict[str, Any]) -> str:
    mad = p["frame_mad_agreeing"]
    return f"{mad['min']:.2g}–{mad['max']:.2g} (median {mad['median']:.2g})"


def frame_count(p: dict[str, Any]) -> str:
    return f"{p['frames_compared']:,}"


def training_headline(t: dict[str, Any]) -> str:
    runs = t["runs"]
    minutes = [r["wall_clock_s"] / 60 for r in runs]
    gym = [r["gymnasium_mean"] for r in runs]
    sampled = [r["gymnasium_mean_sampled"] for r in runs]
    gap = [abs(r["ours_vs_gymnasium"]) for r in runs]
    tested = len(runs[0]["gymnasium_returns"])
    seeds = f"{len(runs)} training seed{'s' if len(runs) > 1 else ''}"
    return para(f"""{seeds}, each one `make train` on the 2-core machine:
{span(min(minutes), max(minutes), "{:.1f}")} minutes from the start to the exported policy. On
Gymnasium's own `CarRacing-v3`, over the {tested} seeds of the test block, the policies
score {span(min(gym), max(gym), "{:.1f}")} with mean actions and
{span(min(sampled), max(sampled), "{:.1f}")} with sampled actions; ours scores each within
{max(gap):.2%} of Gymnasium's mean.{whole_command(runs)}""")


def whole_command(runs: list[dict[str, Any]], lead: str = "The whole command") -> str:
    """The whole `make train`, where the runs recorded its set-up and evaluation: set-up,
    training to the export, then the closing evaluation (empty for older records). The recipes'
    runs trained with the evaluation skipped and ran it after their validation, by
    `--evaluate-only`, so the whole is the sum of the parts as they were timed."""
    if any(r.get("setup_s") is None or r.get("evaluation_s") is None for r in runs):
        return ""
    setup = [r["setup_s"] / 60 for r in runs]
    evaluation = [r["evaluation_s"] / 60 for r in runs]
    whole = [(r["setup_s"] + r["wall_clock_s"] + r["evaluation_s"]) / 60 for r in runs]
    return f""" {lead} took {span(min(whole), max(whole), "{:.1f}")} minutes:
{span(min(setup), max(setup), "{:.1f}")} of set-up (the virtualenv already built), the training,
and {span(min(evaluation), max(evaluation), "{:.1f}")} of the closing evaluation (run apart, by
`--evaluate-only`, after the export)."""


def training_runs_table(t: dict[str, Any]) -> str:
    head = [
        "seed", "start to export", "decisions", "Gymnasium, mean actions", "episodes ≥ 900",
        "Gymnasium, sampled", "ours, mean actions", "ours vs Gymnasium",
    ]  # fmt: skip
    rows = [
        [
            str(r["seed"]),
            f"{r['wall_clock_s'] / 60:.1f} min", f"{r['decisions']:,}",
            f"**{r['gymnasium_mean']:.1f}** ± {r['gymnasium_ci95']:.1f}",
            f"{r['gymnasium_solved_episodes']} of {len(r['gymnasium_returns'])}",
            f"{r['gymnasium_mean_sampled']:.1f} ± {r['gymnasium_sampled_ci95']:.1f}",
            f"{r['ours_mean']:.1f} ± {r['ours_ci95']:.1f}", f"{r['ours_vs_gymnasium']:+.2%}",
        ]
        for r in t["runs"]
    ]  # fmt: skip
    return table(head, rows)


def recipe10_runs(full: dict[str, Any], first: dict[str, Any]) -> list[dict[str, Any]]:
    """Recipe 10's runs in seed order: those kept in full, and the first ones whose means
    alone were kept (their run folders were lost)."""
    return sorted(full["runs"] + first["runs"], key=lambda r: r["seed"])


def recipe_runs_table(runs: list[dict[str, Any]], shipped_seed: int | None = None) -> str:
    """A recipe's `make train` runs, one row each: machine, time to the export, decisions and
    the test block's scores."""
    head = [
        "seed", "CPU (2 cores)", "start to export", "decisions", "decisions/s",
        "Gymnasium, mean actions", "episodes ≥ 900", "Gymnasium, sampled", "ours vs Gymnasium",
    ]  # fmt: skip
    rows = [
        [
            f"{r['seed']}{' (shipped)' if r['seed'] == shipped_seed else ''}",
            r.get("cpu") or r["cpu_model"],
            f"{r['wall_clock_s'] / 60:.1f} min", f"{r['decisions']:,}",
            f"{r['decisions_per_s']:,.0f}", f"**{r['gymnasium_mean']:.1f}**",
            f"{r['gymnasium_solved_episodes']} of 100", f"{r['gymnasium_mean_sampled']:.1f}",
            f"{r['ours_vs_gymnasium']:+.2%}",
        ]
        for r in runs
    ]  # fmt: skip
    return table(head, rows)


def recipe10_table(full: dict[str, Any], first: dict[str, Any]) -> str:
    return recipe_runs_table(recipe10_runs(full, first), SHIPPED_RECIPE10_SEED)


def recipe11_table(full: dict[str, Any]) -> str:
    return recipe_runs_table(sorted(full["runs"], key=lambda r: r["seed"]))


def recipe_headline(runs: list[dict[str, Any]], kept: list[dict[str, Any]], machine: str) -> str:
    """A recipe's runs in one paragraph: minutes to the export, the test block's score ranges
    and the whole command where `kept` (the runs kept in full) recorded its parts."""
    minutes = [r["wall_clock_s"] / 60 for r in runs]
    gym = [r["gymnasium_mean"] for r in runs]
    sampled = [r["gymnasium_mean_sampled"] for r in runs]
    gap = [abs(r["ours_vs_gymnasium"]) for r in runs]
    lead = (
        "The whole command"
        if len(kept) == len(runs)
        else f"For seeds {' and '.join(str(r['seed']) for r in kept)} the whole command"
    )
    return para(f"""{len(runs)} training seeds, each one `make train` on {machine}:
{span(min(minutes), max(minutes), "{:.1f}")} minutes from the start to the
exported policy. On Gymnasium's own `CarRacing-v3`, over the 100 seeds of the test block, the
policies score
{span(min(gym), max(gym), "{:.1f}")} with mean actions and
{span(min(sampled), max(sampled), "{:.1f}")} with sampled actions; ours scores each within
{max(gap):.2%} of Gymnasium's mean.{whole_command(kept, lead)}""")


def recipe10_headline(full: dict[str, Any], first: dict[str, Any]) -> str:
    # Only the runs kept in full recorded their set-up and evaluation times.
    return recipe_headline(
        recipe10_runs(full, first), full["runs"], "a 2-core machine with\nnative bfloat16"
    )


def recipe11_headline(full: dict[str, Any]) -> str:
    machine = "the 2-core AMD EPYC of CPU family 26"
    return recipe_headline(sorted(full["runs"], key=lambda r: r["seed"]), full["runs"], machine)


def fresh_clone_run(run: dict[str, Any]) -> str:
    """The whole `make train` from a fresh clone, its parts, and what its policy scored."""
    e = run["evaluation"]
    gym, sampled = e["gymnasium_mean_actions"]["mean"], e["gymnasium_sampled"]["mean"]
    ours = e["ours_mean_actions"]["mean"]
    parts = [run["setup_s"] / 60, run["wall_clock_s"] / 60, run["evaluation_s"] / 60]
    solved = "over both lines" if gym >= 900 and sampled >= 880 else "short of a line"
    return para(f"""From a fresh clone, `make train SEED={run["seed"]}` (a training seed no variant
used) took {sum(parts):.1f} minutes in all: {parts[0]:.1f} of set-up (the virtualenvs, torch and
the extension's release build), {parts[1]:.1f} from the start of training to the export, and
{parts[2]:.1f} of the closing evaluation. Its policy scored {gym:.1f} with mean actions and
{sampled:.1f} sampled on Gymnasium's env over the test block ({solved}); ours
{(ours - gym) / gym:+.2%}.""")


def training_telemetry(t: dict[str, Any]) -> str:
    head = [
        "seed", "decisions/s, end to end", "train_s", "collect_s", "infer_s",
        "wait_s (first batch)", "policy_lag",
    ]  # fmt: skip
    rows = []
    for r in t["runs"]:
        m = r["telemetry"]
        rows.append([
            str(r["seed"]), f"{m['decisions_per_s']:,.0f}",
            *(f"{m[k]:.2f} s" for k in ("train_s", "collect_s", "infer_s")),
            f"{m['wait_s']:.3f} s ({m['first_wait_s']:.2f} s)", f"{m['policy_lag']:.2f}",
        ])  # fmt: skip
    return table(head, rows)


def training_anchors(bench: dict[str, Any], t: dict[str, Any]) -> str:
    """The recipe's decisions/s on each loop, and the wall-clock each would need for the
    median training run's decisions."""
    median_run = next(r for r in t["runs"] if r["seed"] == t["median_seed"])
    decisions = median_run["decisions"]
    head = [
        "loop", f"decisions/s (median of {bench['trials']})", "range",
        "reinfors-gym ÷ this loop", f"time to {decisions:,} decisions",
    ]  # fmt: skip
    rows = []
    for side, label in bench["labels"].items():
        rate, (lo, hi) = bench["medians"][side], bench["ranges"][side]
        ratio = bench["ratios"].get(side)
        minutes = decisions / rate / 60
        duration = f"{minutes / 60:.1f} h" if minutes >= 120 else f"{minutes:.0f} min"
        ratio_cell = "—" if ratio is None else f"{ratio:.1f}×"
        rows.append([label, f"{rate:,.0f}", f"{lo:,.0f}–{hi:,.0f}", ratio_cell, duration])
    if "precision" not in bench:  # a record from before the recipe chose its precision
        return table(head, rows)
    return (
        table(head, rows)
        + "\n\n"
        + para(f"""The PPO epochs ran in {bench["precision"]} on every
loop but the learner before's (float32): `--precision auto` chose it at the start of the run.
Measured on {bench["machine"]["cpu"]} ({bench["machine"]["cores"]} cores).""")
    )


def training_limit(bench: dict[str, Any]) -> str:
    """The learner before and after its rework, end to end and alone, beside the FLOP-bound
    limit at the matmul peak measured in the same run (bench/bench_training.py)."""
    limit, medians = bench["limit"], bench["medians"]
    flops, rate = limit["flops_per_decision"], limit["limit_decisions_per_s"]
    cells = {
        "end to end (train.py, the streaming collector)": ("reinfors-gym-before", "reinfors-gym"),
        "the policy alone, no env": ("policy-alone-before", "policy-alone"),
    }
    rows = []
    for label, (before, after) in cells.items():
        b, a = medians[before], medians[after]
        share = [f"{v:,.0f} ({v / rate:.0%} of the limit)" for v in (b, a)]
        rows.append([label, *share, f"{a / b:.2f}×"])
    epochs_peak = limit["epochs_peak_gflops"]
    epochs_matmul = "a bfloat16" if bench["precision"] == "bf16" else "a float32"
    rows.append([
        f"FLOP-bound limit: {flops['total'] / 1e6:.1f} MFLOP a decision, "
        f"{flops['act'] / 1e6:.1f} to act at {limit['peak_gflops']:.0f} GFLOP/s (a float32 "
        f"matmul) and {flops['train'] / 1e6:.1f} to train at {epochs_peak:.0f} GFLOP/s "
        f"({epochs_matmul} matmul)", f"{rate:,.0f}", f"{rate:,.0f}", "1.00×",
    ])  # fmt: skip
    return table(["decisions/s", "before", "after", "after ÷ before"], rows)


def training_profile(profile: dict[str, Any]) -> str:
    """One update's seconds by phase, the learner before and after (bench/profile_update.py)."""
    medians, totals = profile["median_seconds"], profile["totals"]
    head = [f"phase (median of {len(profile['trials']['before'])} trials)", "before", "after"]
    phases = sorted(
        medians["before"], key=lambda g: -max(medians["before"][g], medians["after"][g])
    )
    rows = [[g, f"{medians['before'][g]:.2f} s", f"{medians['after'][g]:.2f} s"] for g in phases]
    totals_cells = [f"**{totals[learner]:.2f} s**" for learner in ("before", "after")]
    rows.append(["**one update of 2,048 decisions**", *totals_cells])
    return table(head, rows)


def _bench(f: Callable[[Bench], str]) -> Callable[[], str]:
    return lambda: f(Bench(json.loads(BENCH.read_text())))


def _parity(f: Callable[[dict[str, Any]], str]) -> Callable[[], str]:
    return lambda: f(json.loads(PARITY.read_text()))


def _records(f: Callable[..., str], *paths: Path) -> Callable[[], str]:
    """`f` applied to the JSON documents at `paths`, read when the figure is made."""
    return lambda: f(*(json.loads(path.read_text()) for path in paths))


#: Region name -> its text, computed from the measurement files.
FIGURES: dict[str, Callable[[], str]] = {
    "readme-performance": _bench(readme_performance),
    "index-table": _bench(index_table),
    "architecture-ceiling": _bench(architecture_ceiling),
    "async-loop": _bench(async_loop),
    "loop-profile": lambda: loop_profile(json.loads(PROFILE.read_text())),
    "frame-mad": _parity(frame_mad),
    "frames-compared": _parity(frame_count),
    "training-headline": _records(training_headline, TRAINING_RUNS),
    "training-runs": _records(training_runs_table, TRAINING_RUNS),
    "recipe10-runs": _records(recipe10_table, RECIPE10_RUNS, RECIPE10_FIRST),
    "recipe10-headline": _records(recipe10_headline, RECIPE10_RUNS, RECIPE10_FIRST),
    "recipe11-runs": _records(recipe11_table, RECIPE11_RUNS),
    "recipe11-headline": _records(recipe11_headline, RECIPE11_RUNS),
    "fresh-clone-run": _records(fresh_clone_run, FRESH_CLONE_RUN),
    "training-telemetry": _records(training_telemetry, TRAINING_RUNS),
    "training-anchors": _records(training_anchors, TRAINING_BENCH, RECIPE10_RUNS),
    "training-limit": _records(training_limit, TRAINING_BENCH),
    "training-profile": _records(training_profile, TRAINING_PROFILE),
}
FIGURES.update(figures_loops.FIGURES)
FIGURES.update(figures_records.FIGURES)
FIGURES.update(figures_variants.FIGURES)


def render(text: str, figures: dict[str, str]) -> str:
    """`text` with every generated region's content replaced by its figure."""

    def fill(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in figures:
            raise KeyError(f"unknown generated region {name!r} (known: {sorted(figures)})")
        body = figures[name]
        # A region spanning lines is a block: blank lines keep the markers out of the
        # paragraph or table that Markdown parses between them.
        if "\n" in m.group(2):
            body = f"\n\n{body}\n\n"
        return f"<!-- gen:{name} -->{body}<!-- /gen -->"

    return REGION.sub(fill, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--check", action="store_true", help="only report stale regions")
    args = parser.parse_args(argv)
    figures = {name: make() for name, make in FIGURES.items()}
    stale = []
    for page in PAGES:
        text = page.read_text()
        new = render(text, figures)
        if new != text:
            stale.append(page.relative_to(ROOT))
            if not args.check:
                page.write_text(new)
    verb = "stale" if args.check else "rewrote"
    for page in stale:
        print(f"{verb}: {page}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
