"""The figures quoted from docs/training_variants.json: the training variants tried on the
validation seeds, how their policies drive, their returns by track length, and snapshot selection.

tools/gen_figures.py merges `FIGURES` into its own, so `python tools/gen_figures.py` writes these
regions with the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from markdown_table import table

ROOT = Path(__file__).resolve().parent.parent
TRAINING_VARIANTS = ROOT / "docs" / "training_variants.json"


def training_variants_table(v: dict[str, Any]) -> str:
    head = [
        "variant", "training", "decisions", "validation, mean actions", "episodes ≥ 900",
        "validation, sampled",
    ]  # fmt: skip
    rows = []
    for r in v["variants"]:
        name = f"**{r['variant']}** (chosen)" if r["variant"] == v["chosen"] else r["variant"]
        mean, sampled = r["mean_actions"], r["sampled"]
        rows.append([
            name, f"seed {r['training_seed']}, {r['wall_clock_s'] / 60:.1f} min",
            f"{r['decisions']:,}", f"{mean['mean']:.1f}",
            f"{mean['solved_episodes']} of {len(mean['returns'])}", f"{sampled['mean']:.1f}",
        ])  # fmt: skip
    return table(head, rows)


def variants_with(v: dict[str, Any], field: str) -> list[tuple[dict[str, Any], Any]]:
    """The validated variants that recorded `field`, each with its value."""
    return [(r, r[field]) for r in v["variants"] if r.get(field)]


def training_laps(v: dict[str, Any]) -> str:
    """How the validated policies drive (tools/lap_stats.py, mean actions, on ours): the laps
    ended inside the time limit, their steps, and the mean gas and brake."""
    head = [
        "variant", "training seed", "validation, mean actions", "laps ended in time",
        "steps per ended lap", "mean gas", "mean brake",
    ]  # fmt: skip
    rows = []
    for r, laps in variants_with(v, "laps"):
        ended = [lap for lap in laps if lap["lap_ended"]]
        steps = sum(lap["steps"] for lap in ended) / len(ended) if ended else float("nan")
        gas = sum(lap["gas"] for lap in laps) / len(laps)
        brake = sum(lap["brake"] for lap in laps) / len(laps)
        rows.append([
            r["variant"], str(r["training_seed"]), f"{r['mean_actions']['mean']:.1f}",
            f"{len(ended)} of {len(laps)}", f"{steps:.0f}", f"{gas:.2f}", f"{brake:.3f}",
        ])  # fmt: skip
    return table(head, rows)


def training_wide_validation(v: dict[str, Any]) -> str:
    """The runs also scored on 200 more validation seeds of ours (2050-2249): the mean and the
    episodes below 700, with mean and with sampled actions, beside the 50 seeds' means."""
    head = [
        "variant", "training seed", "the 50 seeds, mean / sampled", "the 200 seeds, mean actions",
        "below 700", "the 200 seeds, sampled", "below 700",
    ]  # fmt: skip
    rows = []
    for r, wide in variants_with(v, "validation_wide"):
        cells = []
        for key in ("mean_actions", "sampled"):
            returns = wide[key]["returns"]
            cells += [
                f"{wide[key]['mean']:.1f}",
                f"{sum(x < 700 for x in returns)} of {len(returns)}",
            ]
        rows.append([
            r["variant"], str(r["training_seed"]),
            f"{r['mean_actions']['mean']:.1f} / {r['sampled']['mean']:.1f}", *cells,
        ])  # fmt: skip
    return table(head, rows)


#: Track lengths (tiles) that split the validation seeds into the track-length table's rows.
TRACK_BINS = (280, 310, 340)


def training_track_length(v: dict[str, Any]) -> str:
    """Every validated run's returns by the validation track's length: per band of tiles, the
    median over runs of the band's mean return (mean and sampled actions), and the episodes
    below 800."""
    tiles = v["validation_track_tiles"]["tiles"]
    runs = v["variants"]
    edges = [min(tiles), *TRACK_BINS, max(tiles) + 1]
    head = [
        "track length", "validation seeds", "mean actions, median over runs",
        "sampled, median over runs", "episodes below 800, mean actions / sampled",
    ]  # fmt: skip
    rows = []
    for low, high in zip(edges, edges[1:]):
        band = [i for i, n in enumerate(tiles) if low <= n < high]
        if not band:
            continue
        cells = []
        for key in ("mean_actions", "sampled"):
            means = sorted(sum(r[key]["returns"][i] for i in band) / len(band) for r in runs)
            cells.append(f"{means[len(means) // 2]:.1f}")
        low_counts = [
            sum(r[key]["returns"][i] < 800 for r in runs for i in band)
            for key in ("mean_actions", "sampled")
        ]
        lengths = [tiles[i] for i in band]
        rows.append([
            f"{min(lengths)}–{max(lengths)} tiles", str(len(band)), *cells,
            f"{low_counts[0]} / {low_counts[1]} of {len(band) * len(runs)}",
        ])  # fmt: skip
    return table(head, rows)


def selection_score(snapshot: dict[str, Any]) -> float:
    """A snapshot's selection score; runs before `--select-by` scored the mean action only."""
    return float(snapshot.get("score", snapshot["mean"]))


def training_selection(v: dict[str, Any]) -> str:
    """Snapshot selection in the validated runs that used it: which snapshot each exported, its
    score and the last update's on the selection seeds (the mean-action mean, or its average
    with the sampled mean where the run scored both), and both policies on validation."""
    head = [
        "variant", "training seed", "snapshots scored", "exported: after update",
        "selection score, exported / last", "validation, exported / last",
        "episodes ≥ 900, exported / last", "validation sampled, exported / last",
    ]  # fmt: skip
    rows = []
    for r, selection in variants_with(v, "selection"):
        snapshots, exported = selection["snapshots"], selection["exported"]
        last = snapshots[-1]
        mean = r["mean_actions"]
        # A run whose last update is its best exports that one: validation is then the same.
        same = last == exported
        last_validation = r.get("last_update_mean_actions", mean if same else None)
        sampled = r["sampled"]["mean"]
        last_sampled = r.get("last_update_sampled", r["sampled"] if same else None)
        sampled_cell = f"{sampled:.1f} / " + (
            f"{last_sampled['mean']:.1f}" if last_sampled else "not scored"
        )
        n = len(mean["returns"])
        validation_cell, solved_cell = (
            (f"{last_validation['mean']:.1f}", f"{last_validation['solved_episodes']} of {n}")
            if last_validation
            else ("not scored", "not scored")
        )
        rows.append([
            r["variant"], str(r["training_seed"]), str(len(snapshots)),
            f"{exported['update']} of {last['update']}",
            f"{selection_score(exported):.1f} / {selection_score(last):.1f}",
            f"{mean['mean']:.1f} / {validation_cell}",
            f"{mean['solved_episodes']} of {n} / {solved_cell}", sampled_cell,
        ])  # fmt: skip
    return table(head, rows)


#: The runs of recipe 10's defaults on the CPU family 26 EPYC, by their variant's name.
FAMILY26_DEFAULTS = "10: recipe 10's defaults on the CPU family 26 EPYC"


def recipe10_family26(v: dict[str, Any]) -> str:
    """What recipe 10's defaults did on the CPU family 26 EPYC: each run's time to the export,
    decisions and rate, and its validation scores (no test block scored them)."""
    runs = [r for r in v["variants"] if r["variant"].startswith(FAMILY26_DEFAULTS)]
    parts = []
    for r in runs:
        wide = r["validation_wide"]
        parts.append(
            f"seed {r['training_seed']} made {r['decisions']:,} decisions "
            f"({r['decisions'] / r['wall_clock_s']:,.0f} a second from the start) and exported "
            f"{r['wall_clock_s'] / 60:.1f} minutes after the start; on our validation seeds it "
            f"scored {r['mean_actions']['mean']:.1f} with mean actions and "
            f"{r['sampled']['mean']:.1f} sampled on the first 50, "
            f"{wide['mean_actions']['mean']:.1f} and {wide['sampled']['mean']:.1f} on the 200 "
            f"further seeds"
        )
    return "; ".join(parts)


def _variants(f: Callable[[dict[str, Any]], str]) -> Callable[[], str]:
    return lambda: f(json.loads(TRAINING_VARIANTS.read_text()))


#: Region name -> its text, computed from docs/training_variants.json.
FIGURES: dict[str, Callable[[], str]] = {
    "training-variants": _variants(training_variants_table),
    "training-laps": _variants(training_laps),
    "training-wide-validation": _variants(training_wide_validation),
    "training-track-length": _variants(training_track_length),
    "training-selection": _variants(training_selection),
    "recipe10-family26": _variants(recipe10_family26),
}
