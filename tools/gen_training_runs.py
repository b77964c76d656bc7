"""Collects the one-command recipe's training runs (`make train SEED=S OUT=DIR`) into the files
docs/training.md quotes: one record, one CSV of every update and one learning-curve figure.

    python tools/gen_training_runs.py out/train-1 out/train-2 out/train-3 \\
        --json docs/training_runs.json --csv docs/training_runs.csv \\
        --png docs/img/training_runs_curve.png

Each DIR holds `run.json` and `scalars.csv` as `examples/train.py` writes them. The record is
`{"runs": [{"seed", "wall_clock_s", "decisions", "env_steps", "gymnasium_mean",
"gymnasium_mean_sampled", "ours_mean", ...}], "median_seed": S}`, runs in seed order; each run
keeps its per-seed returns, intervals, versions and machine. The median seed is the run whose
Gymnasium mean (mean actions) is the median of the runs'. The figure has every seed's batch
means under Gymnasium's reward (training, sampled actions) against decisions and against
wall-clock minutes, the solved line (900) and the 15-minute budget (`--budget-minutes`).
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
from return_figure import finish_return_figure

#: run.json's evaluation names -> the record's field names.
EVALUATIONS = {
    "gymnasium_mean_actions": "gymnasium",
    "gymnasium_sampled": "gymnasium_sampled",
    "ours_mean_actions": "ours",
}


def read_run(folder: Path) -> tuple[dict[str, Any], list[dict[str, float]]]:
    record = json.loads((folder / "run.json").read_text())
    with open(folder / "scalars.csv") as f:
        rows = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]
    return record, rows


def summarize(record: dict[str, Any]) -> dict[str, Any]:
    """The record's headline fields, then its evaluations in full."""
    evaluation = record["evaluation"]
    missing = set(EVALUATIONS) - set(evaluation)
    if missing:
        raise ValueError(f"run of seed {record['seed']} lacks evaluations {sorted(missing)}")
    run: dict[str, Any] = {
        "seed": record["seed"],
        "wall_clock_s": record["wall_clock_s"],
        # make train's set-up before the script, and the closing evaluation after the export:
        # with wall_clock_s, the whole time of the command.
        "setup_s": record.get("setup_s"),
        "evaluation_s": record.get("evaluation_s"),
        "decisions": record["decisions"],
        "decisions_per_s": record["decisions"] / record["wall_clock_s"],
        "env_steps": record["env_steps"],
        "updates": record["updates"],
        "gymnasium_mean": evaluation["gymnasium_mean_actions"]["mean"],
        "gymnasium_mean_sampled": evaluation["gymnasium_sampled"]["mean"],
        "ours_mean": evaluation["ours_mean_actions"]["mean"],
    }
    run["ours_vs_gymnasium"] = run["ours_mean"] / run["gymnasium_mean"] - 1.0
    for name, short in EVALUATIONS.items():
        returns = evaluation[name]["returns"]
        run[f"{short}_ci95"] = evaluation[name]["ci95"]
        run[f"{short}_solved_episodes"] = int(np.sum(np.asarray(returns) >= 900))
        run[f"{short}_returns"] = returns
    run["eval_seeds"] = [min(record["eval_seeds"]), max(record["eval_seeds"])]
    # A run trained without evaluation and scored later by `train.py --evaluate-only`.
    run["evaluated_after_training"] = record.get("evaluated_after_training", False)
    for key in ("versions", "cpu_model", "cpu_count", "device", "options"):
        run[key] = record[key]
    if "cpu_id" in record:  # runs recorded before 2026-12-07 name the model only
        run["cpu_id"] = record["cpu_id"]
    return run


#: scalars.csv columns summarized per run (means over the updates after the first, whose
#: collection has no update to hide behind).
TELEMETRY = ("collect_s", "infer_s", "train_s", "wait_s", "policy_lag")


def telemetry(rows: list[dict[str, float]]) -> dict[str, float]:
    """Means of the stream's telemetry, and decisions per second of training wall-clock."""
    after_first = rows[1:] or rows
    means = {k: float(np.mean([r[k] for r in after_first])) for k in TELEMETRY}
    means["first_wait_s"] = rows[0]["wait_s"]
    means["decisions_per_s"] = rows[-1]["env_steps"] / rows[-1]["wall_s"]
    return means


def median_seed(runs: list[dict[str, Any]]) -> int:
    """The seed whose Gymnasium mean (mean actions) is the median (the lower one of an even
    count)."""
    ranked = sorted(runs, key=lambda r: r["gymnasium_mean"])
    return ranked[(len(ranked) - 1) // 2]["seed"]


def plot(
    curves: dict[int, list[dict[str, float]]], path: Path, budget_min: float, frame_skip: int
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, key, scale, label in (
        (axes[0], "env_steps", 1e6, f"decisions ({frame_skip} simulation steps each), millions"),
        (axes[1], "wall_s", 60.0, "wall-clock minutes (training included)"),
    ):
        for i, (seed, rows) in enumerate(sorted(curves.items())):
            done = [r for r in rows if r["episodes"] > 0]
            x = np.array([r[key] for r in done]) / scale
            y = np.array([r["gymnasium_return"] for r in done])
            ax.plot(x, y, color=f"C{i}", lw=0.6, alpha=0.35)
            ax.plot(x, smooth(y), color=f"C{i}", lw=1.8, label=f"seed {seed}")
        ax.axhline(900, color="0.3", ls="--", lw=1, label="solved (900)")
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[1].axvline(budget_min, color="C3", ls=":", lw=1, label=f"{budget_min:.0f}-minute budget")
    finish_return_figure(
        fig,
        axes,
        path,
        "episode return, Gymnasium's reward\n(training batches, sampled actions)",
        "make train: every training seed (thin: batch means; thick: 20-batch mean)",
    )


def smooth(values: np.ndarray, window: int = 20) -> np.ndarray:
    """Trailing mean over up to `window` values."""
    totals = np.cumsum(np.insert(values, 0, 0.0))
    idx = np.arange(1, len(values) + 1)
    start = np.maximum(idx - window, 0)
    return (totals[idx] - totals[start]) / (idx - start)


def write_csv(curves: dict[int, list[dict[str, float]]], path: Path) -> None:
    columns = ["seed", *next(iter(curves.values()))[0].keys()]
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        for seed, rows in sorted(curves.items()):
            for row in rows:
                writer.writerow({"seed": seed, **{k: f"{v:.6g}" for k, v in row.items()}})


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", type=Path, nargs="+", help="the output folders of `make train`")
    p.add_argument("--json", type=Path, required=True, help="the record of every run")
    p.add_argument("--csv", type=Path, help="every update of every run, with a seed column")
    p.add_argument("--png", type=Path, help="the learning curves")
    p.add_argument("--budget-minutes", type=float, default=15.0)
    args = p.parse_args()
    records, curves = [], {}
    for folder in args.runs:
        record, rows = read_run(folder)
        records.append({**summarize(record), "telemetry": telemetry(rows)})
        curves[record["seed"]] = rows
    records.sort(key=lambda r: r["seed"])
    doc = {"runs": records, "median_seed": median_seed(records)}
    args.json.write_text(json.dumps(doc, indent=1) + "\n")
    if args.csv:
        write_csv(curves, args.csv)
    if args.png:
        plot(curves, args.png, args.budget_minutes, records[0]["options"]["frame_skip"])
    for r in records:
        print(
            f"seed {r['seed']}: {r['wall_clock_s']:.0f} s, {r['decisions']} decisions, "
            f"Gymnasium {r['gymnasium_mean']:.1f} (sampled {r['gymnasium_mean_sampled']:.1f}), "
            f"ours {r['ours_mean']:.1f}"
        )
    print(f"median seed: {doc['median_seed']}")


if __name__ == "__main__":
    main()
