"""The figures quoted from the smaller record files: the soak runs, the SB3 and RLlib speed tables,
and the single numbers the prose of docs/ takes from the benchmark, parity and training records.

tools/gen_figures.py merges `FIGURES` into its own, so `python tools/gen_figures.py` writes these
regions with the rest. The records read here:

- bench/soak_results.json (`bench/soak.py --out`): the soak page's machine, tables and counts;
- docs/soak_first_run.json: the first, failing soak run (bench/soak_results.json as committed with
  it), and the probe without renders that the page quoted, transcribed;
- docs/sb3_rollouts.json, docs/rllib_cast_cost.json: the integrations pages' speed tables,
  transcribed from the pages as first published (their bench output was not kept);
- docs/scene_mad.json: the renderer's test scenes against Gymnasium's frames (`cargo test
  --test render_vs_gymnasium -- --nocapture state_frames` prints it);
- docs/training_levers.json (`bench/profile_update.py --levers --json`): the learner's levers;
- docs/training_levers_avx2.json (the same bench on an AVX2-only CPU): emulated bfloat16;
- docs/training_levers_amx.json (the same bench on a Xeon with AMX): bfloat16 on AMX;
- docs/training_allocator.json (`bench/profile_update.py --allocator --json`): an update with
  and without `--keep-freed-memory`;
- docs/training_allocator_e2e.json (`bench/bench_training.py --sides
  reinfors-gym,reinfors-gym-adaptive --json`): train.py end to end, both ways;
- docs/benchmarks.json, docs/parity_summary.json, docs/training_variants.json: single figures.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SOAK = ROOT / "bench" / "soak_results.json"
SOAK_FIRST = DOCS / "soak_first_run.json"
SB3 = DOCS / "sb3_rollouts.json"
RLLIB_CAST = DOCS / "rllib_cast_cost.json"
BENCH = DOCS / "benchmarks.json"
PARITY = DOCS / "parity_summary.json"
TRAINING_VARIANTS = DOCS / "training_variants.json"
SCENE_MAD = DOCS / "scene_mad.json"
TRAINING_LEVERS = DOCS / "training_levers.json"
TRAINING_LEVERS_AVX2 = DOCS / "training_levers_avx2.json"
TRAINING_LEVERS_AMX = DOCS / "training_levers_amx.json"
TRAINING_ALLOCATOR = DOCS / "training_allocator.json"
TRAINING_ALLOCATOR_E2E = DOCS / "training_allocator_e2e.json"

WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}


def paragraph(text: str) -> str:
    """`text` as one Markdown paragraph wrapped at 100 columns."""
    return textwrap.fill(
        " ".join(text.split()), 100, break_long_words=False, break_on_hyphens=False
    )


def mib(kib: float) -> str:
    return f"{kib / 1024:.1f}"


def millions(steps: int) -> str:
    return f"{steps / 1e6:g}M"


# The soak runs (bench/soak.py).

RUN_LABELS = {"single": "single env", "vector": "vector env, {n} envs"}


def run_label(name: str, run: dict[str, Any]) -> str:
    return RUN_LABELS[name].format(n=run["num_envs"])


def soak_machine(d: dict[str, Any]) -> str:
    """The machine table: CPU and cores, memory, OS, versions, the commit measured."""
    m = d["machine"]
    usable = f"{m['usable_cores']} usable"
    if m["usable_cores"] == m["logical_cores"]:
        usable = "both usable" if m["logical_cores"] == 2 else "all usable"
    system, arch_glibc = m["os"].split("-with-")
    kernel = re.match(r"(\w+)-(\d+\.\d+)", system)
    assert kernel, m["os"]
    arch = system.rsplit("-", 1)[1]
    tree = "uncommitted changes" if m["tracked_changes"] else "clean tree"
    rows = [
        ("CPU", f"{m['cpu']}, {m['logical_cores']} logical cores ({usable})"),
        ("Memory", f"{m['memory_gib']} GiB"),
        ("OS", f"{kernel[1]} {kernel[2]} {arch}, {arch_glibc.replace('glibc', 'glibc ')}"),
        ("Python / NumPy / Gymnasium", f"{m['python']} / {m['numpy']} / {m['gymnasium']}"),
        (
            "reinfors-gym",
            f"{m['reinfors_gym']}, commit `{m['commit'][:7]}` ({tree}), {d['date_utc'][:10]}",
        ),
    ]
    return "| | |\n|---|---|\n" + "\n".join(f"| {k} | {v} |" for k, v in rows)


def soak_rss(d: dict[str, Any]) -> str:
    """Each run's RSS at the start and at every millionth step."""
    runs = d["runs"]
    labels = [run_label(k, r) for k, r in runs.items()]
    head = "| env steps | " + " | ".join(f"{x}{',' * (',' in x)} RSS (MiB)" for x in labels)
    at = {k: {s["steps"]: s["rss_kib"] for s in r["samples"]} for k, r in runs.items()}
    steps = sorted(s for s in next(iter(at.values())) if s % 1_000_000 == 0)
    rows = [
        f"| {millions(s) if s else '0 (after the first reset)'} | "
        + " | ".join(mib(at[k][s]) for k in runs)
        + " |"
        for s in steps
    ]
    return "\n".join([head + " |", "|---:|" + "---:|" * len(runs), *rows])


def verdict_row(name: str, r: dict[str, Any], tolerance: str) -> str:
    """One run against the criterion; its peak is the highest RSS seen (the kernel's peak, or a
    sample above it: the kernel updates its peak lazily)."""
    peak = max(r["peak_rss_kib"], r["rss_max_after_ref_kib"])
    verdict = "passes" if r["within_tolerance"] else "**fails**"
    return (
        f"| {run_label(name, r)} | {mib(r['rss_ref_kib'])} → {mib(r['rss_end_kib'])} MiB "
        f"| {r['rss_change_pct']:+.2f}% | {mib(peak)} MiB | {r['steps_per_s']:,} "
        f"| {verdict} the {tolerance} criterion |"
    )


def soak_verdict(d: dict[str, Any]) -> str:
    """Each run against the criterion: RSS at the reference step and at the end, its change, the
    highest RSS, the whole-run rate."""
    first = next(iter(d["runs"].values()))
    span = f"{millions(first['rss_ref_steps'])} → {millions(first['steps'])}"
    head = (
        f"| run | RSS {span} | change | peak RSS | steps/s (whole run) | verdict |\n"
        "|---|---|---:|---:|---:|---|"
    )
    tolerance = f"{d['config']['tolerance']:.0%}"
    rows = [verdict_row(name, r, tolerance) for name, r in d["runs"].items()]
    return "\n".join([head, *rows])


def soak_counts(d: dict[str, Any]) -> str:
    """What each run did, and what the single env holds after the reference step."""
    single, vector = d["runs"]["single"], d["runs"]["vector"]
    held = single["rss_ref_kib"] - single["samples"][0]["rss_kib"]
    return paragraph(f"""The single-env run played {single["episodes"]:,} episodes
({single["terminated"]:,} terminated, {single["truncated"]:,} truncated) with
{single["seeded_resets"]:,} seeded resets and {single["renders"]:,} renders. The vector run
finished {vector["episodes_finished"]:,} episodes and made {vector["seeded_resets"]:,} seeded
resets and {vector["renders"]:,} renders ({vector["renders"] * vector["num_envs"]:,} frames). What
is held after the first {millions(single["rss_ref_steps"])} steps is the render canvas of each env
that renders at 600×400 (about {held / 1024:.0f} MiB: its image and at most eight layer
accumulators), drawn once and then reused.""")


def soak_first_run(d: dict[str, Any]) -> str:
    """The first run's failure, and the probe without renders beside it."""
    single, vector = d["runs"]["single"], d["runs"]["vector"]
    bare = d["without_renders"]

    def grew(r: dict[str, Any]) -> str:
        return f"from {mib(r['rss_ref_kib'])} to {mib(r['rss_end_kib'])} MiB"

    return paragraph(f"""The first full run (commit `{d["machine"]["commit"][:7]}`)
{"passed" if d["pass"] else "failed"} the criterion: the single env went {grew(single)} between
{millions(single["rss_ref_steps"])} and {millions(single["steps"])} steps
(+{single["rss_change_pct"]:.3g}%), the {vector["num_envs"]}-env vector env {grew(vector)}
(+{vector["rss_change_pct"]:.3g}%). Without renders both were flat
(+{bare["single"]["rss_change_pct"]:g}% and +{bare["vector"]["rss_change_pct"]:g}% over
{millions(bare["steps"])} steps), so the growth came from the `rgb_array` frames:""")


# The integrations pages' speed tables.


def sb3_rollouts(d: dict[str, Any]) -> str:
    """PPO's rollouts and the env alone, ours beside SubprocVecEnv, one row per run."""
    head = (
        f"| run ({d['date']}, load average) | `make_sb3_vec_env(8)` "
        "| `SubprocVecEnv(8)` over `CarRacing-v3` | ratio |\n|---|---|---|---|"
    )
    rows = [
        f"| PPO rollouts, {r['trials']} trials ({r['load_average']}) "
        f"| {r['rollouts']['ours']:,} steps/s | {r['rollouts']['subproc']:,} steps/s "
        f"| {r['rollouts']['ratio']:.1f}× |"
        for r in d["runs"]
    ]
    alone = [r["env_alone"] for r in d["runs"]]

    def each(key: str, fmt: str) -> str:
        return " / ".join(fmt.format(a[key]) for a in alone)

    rows.append(
        f"| env alone, same {WORDS[len(alone)]} runs | {each('ours', '{:,}')} steps/s "
        f"| {each('subproc', '{:,}')} steps/s | {each('ratio', '{:.0f}×')} |"
    )
    return "\n".join([head, *rows])


def sb3_machine(d: dict[str, Any]) -> str:
    return str(d["machine"])


def rllib_cast(d: dict[str, Any]) -> str:
    """The float32 cast's µs per vector step beside the native step's."""
    head = "| frames | native step | float32 cast in Python | share |\n|---|---|---|---|"
    rows = [
        f"| {r['frames']} | {r['native_step_us']:,} | {r['cast_us']:,} | {r['share_pct']}% |"
        for r in d["rows"]
    ]
    return "\n".join([head, *rows])


# Single figures from the benchmark, parity and training records.

CEILING = "policy:policy-alone:threads=0,num_envs=8"
ONE_THREAD = "threads:ours-vector:num_envs=8,threads=1"
MEMORY = [f"memory:ours-vector:num_envs={n}" for n in (16, 64, 256)]
#: The share of the policy-alone rate that `ceiling_need` asks of the env step.
TARGET = 0.95


def bench_median(doc: dict[str, Any], row_id: str) -> float:
    row = next(r for r in doc["rows"] if r["id"] == row_id)
    metric = doc["sections"][row["section"]]["metric"]
    return float(row["stats"][metric]["median"])


def subenv_memory(doc: dict[str, Any]) -> str:
    """A sub-env's memory beyond its observation buffer, over the measured pool sizes."""
    lo, hi = sorted(bench_median(doc, row) for row in MEMORY)[:: len(MEMORY) - 1]
    return f"{lo:.2f}–{hi:.2f} MiB" if f"{lo:.2f}" != f"{hi:.2f}" else f"{lo:.2f} MiB"


def ceiling_need(doc: dict[str, Any]) -> str:
    """The env step a serial loop needs to reach `TARGET` of the policy alone, per sub-env,
    beside the measured one-thread step."""
    envs = 8
    forward_s = envs / bench_median(doc, CEILING)
    need_s = forward_s * (1 - TARGET) / TARGET / envs
    step_s = 1 / bench_median(doc, ONE_THREAD)
    # One line: the region sits inline in its paragraph.
    return (
        f"{TARGET:.0%} of the ceiling would need an {envs}-env step of about "
        f"{need_s * 1e6:.0f} µs per sub-env with its frame, {step_s / need_s:.1f}× faster than "
        "our single-thread step"
    )


def parity_episodes(p: dict[str, Any]) -> str:
    return f"{p['episodes']:,} episodes"


def recipe7_decisions(v: dict[str, Any]) -> str:
    """Recipe 7's decisions in its 15 minutes, to two significant digits."""
    run = next(r for r in v["variants"] if r["variant"].endswith("(recipe 7)"))
    return f"about {round(run['decisions'], -4) // 1000:.0f}k"


def scene_mad(d: dict[str, Any]) -> str:
    """The worst of the test scenes' frame differences, and how many scenes there are."""
    mads = d["state_mad"].values()
    return f"{max(mads):.2f} (0–255 scale) on {len(mads)} test scenes"


def update_table(d: dict[str, Any], first: str, columns: list[tuple[str, str]]) -> str:
    """A `profile_update.py` record's medians as a table: the first column's head (`{trials}` in
    it is their count; the medians' names below it), then each (head, format of a median's
    fields) column, and the machine."""
    trials = len(next(iter(d["trials"].values())))
    heads = [first.format(trials=trials)] + [head for head, _ in columns]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for name, m in d["medians"].items():
        lines.append("| " + " | ".join([name] + [cell.format(**m) for _, cell in columns]) + " |")
    machine = d["machine"]
    lines += ["", f"Measured on {machine['cpu']} ({machine['cores']} cores), torch {torch_of(d)}."]
    return "\n".join(lines)


def training_levers(d: dict[str, Any]) -> str:
    """Each lever's update and acting seconds and the learner's rate beside the recipe's."""
    return update_table(d, "the learner (median of {trials} trials)", [
        ("one update", "{update_s:.2f} s"),
        ("acting", "{acting_s:.2f} s"),
        ("decisions/s", "{decisions_per_s:,.0f}"),
        ("÷ the recipe", "{over_recipe:.2f}×"),
    ])  # fmt: skip


def training_allocator(d: dict[str, Any]) -> str:
    """An update and its acting, their page faults and system time, with glibc's adaptive
    thresholds and with `--keep-freed-memory`."""
    return update_table(d, f"the allocator ({d['precision']} epochs, median of {{trials}} trials)", [
        ("one update", "{update_s:.2f} s"),
        ("acting", "{acting_s:.2f} s"),
        ("page faults", "{page_faults:,.0f}"),
        ("system time", "{system_s:.2f} s"),
        ("decisions/s", "{decisions_per_s:,.0f}"),
    ])  # fmt: skip


def training_allocator_e2e(d: dict[str, Any]) -> str:
    """train.py's decisions/s end to end with and without `--keep-freed-memory`."""
    kept, adaptive = d["medians"]["reinfors-gym"], d["medians"]["reinfors-gym-adaptive"]
    (lo_k, hi_k), (lo_a, hi_a) = d["ranges"]["reinfors-gym"], d["ranges"]["reinfors-gym-adaptive"]
    return paragraph(
        f"End to end, `train.py` made {kept:,.0f} decisions/s ({lo_k:,.0f}–{hi_k:,.0f}) with "
        f"`--keep-freed-memory` and {adaptive:,.0f} ({lo_a:,.0f}–{hi_a:,.0f}) without it, "
        f"{kept / adaptive:.2f}× (medians of {d['trials']} interleaved trials of "
        f"{d['updates']} updates, {d['precision']} epochs, on {d['machine']['cpu']}, "
        f"`bench/bench_training.py --sides reinfors-gym,reinfors-gym-adaptive`): more than the "
        "update alone gains; there the collector's threads and the actor run beside it."
    )


def update_seconds_bf16_fp32(d: dict[str, Any]) -> tuple[float, float]:
    """A levers record's update seconds with bfloat16 autocast, and in float32 (the recipe)."""
    medians = d["medians"]
    bf16 = next(m for name, m in medians.items() if "--precision bf16" in name)
    return bf16["update_s"], medians["the recipe"]["update_s"]


def bf16_emulated(d: dict[str, Any]) -> str:
    """An update's seconds with bfloat16 autocast beside float32's, where bf16 is emulated."""
    bf16, fp32 = update_seconds_bf16_fp32(d)
    return f"{bf16:.1f} s against float32's {fp32:.2f} s"


def bf16_speedup(d: dict[str, Any]) -> str:
    """How many times faster an update runs with bfloat16 autocast than in float32."""
    bf16, fp32 = update_seconds_bf16_fp32(d)
    return f"{fp32 / bf16:.2f}× as fast"


def torch_of(d: dict[str, Any]) -> str:
    """The torch version a bench record names, or "unrecorded" in records from before it did."""
    return d["machine"].get("torch") or d.get("torch") or "unrecorded"


def from_record(f: Callable[[dict[str, Any]], str], path: Path) -> Callable[[], str]:
    """`f` applied to the JSON document at `path`, read when the figure is made."""
    return lambda: f(json.loads(path.read_text()))


#: Region name -> its text, computed from the record files above.
FIGURES: dict[str, Callable[[], str]] = {
    "soak-machine": from_record(soak_machine, SOAK),
    "soak-rss": from_record(soak_rss, SOAK),
    "soak-verdict": from_record(soak_verdict, SOAK),
    "soak-counts": from_record(soak_counts, SOAK),
    "soak-first-run": from_record(soak_first_run, SOAK_FIRST),
    "sb3-rollouts": from_record(sb3_rollouts, SB3),
    "sb3-machine": from_record(sb3_machine, SB3),
    "rllib-cast": from_record(rllib_cast, RLLIB_CAST),
    "subenv-memory": from_record(subenv_memory, BENCH),
    "ceiling-need": from_record(ceiling_need, BENCH),
    "parity-episodes": from_record(parity_episodes, PARITY),
    "recipe7-decisions": from_record(recipe7_decisions, TRAINING_VARIANTS),
    "scene-mad": from_record(scene_mad, SCENE_MAD),
    "training-levers": from_record(training_levers, TRAINING_LEVERS),
    "bf16-emulated": from_record(bf16_emulated, TRAINING_LEVERS_AVX2),
    "bf16-amx": from_record(bf16_speedup, TRAINING_LEVERS_AMX),
    "training-allocator": from_record(training_allocator, TRAINING_ALLOCATOR),
    "training-allocator-e2e": from_record(training_allocator_e2e, TRAINING_ALLOCATOR_E2E),
}
