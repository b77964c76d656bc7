"""Joins the scalars of a staged PPO run (`examples/ppo_carracing.py`, each stage started with
`--init-from` the previous one's export) into one CSV and one learning-curve figure.

    python tools/gen_training_curve.py STAGE1.csv STAGE2.csv ... --csv OUT.csv --png OUT.png

Env steps and wall-clock continue across stages; the CSV gains a `stage` column. The figure has
the batch means of the return under Gymnasium's reward (`gymnasium_return`, which a stage
trained with another `--step-reward` logs beside its own) and a running mean, against env steps
(left) and against wall-clock minutes (right), the stage boundaries, the solved line (900) and
the 90-minute budget.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np
from return_figure import finish_return_figure


def read_stage(path: Path) -> list[dict[str, float]]:
    with open(path) as f:
        rows = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]
    for row in rows:
        if "wall_s" not in row:  # older scalars: the rate is env steps over time since start
            row["wall_s"] = row["env_steps"] / row["env_steps_per_s"]
        if "gymnasium_return" not in row:  # older scalars: trained on Gymnasium's reward itself
            row["gymnasium_return"] = row["mean_return"]
            row["mean_length"] = float("nan")
    return rows


def join(stages: list[list[dict[str, float]]]) -> list[dict[str, float]]:
    joined: list[dict[str, float]] = []
    steps = wall = 0.0
    for number, rows in enumerate(stages, start=1):
        for row in rows:
            joined.append(
                {
                    **row,
                    "stage": number,
                    "update": len(joined) + 1,
                    "env_steps": steps + row["env_steps"],
                    "wall_s": wall + row["wall_s"],
                }
            )
        steps, wall = joined[-1]["env_steps"], joined[-1]["wall_s"]
    return joined


def running_mean(returns: np.ndarray, counts: np.ndarray, window: int) -> np.ndarray:
    """Episode-weighted mean over the last `window` updates that finished episodes."""
    kernel = np.ones(window)
    totals = np.convolve(returns * counts, kernel)[: len(returns)]
    return totals / np.convolve(counts, kernel)[: len(returns)]


def plot(rows: list[dict[str, float]], path: Path, window: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    done = [r for r in rows if r["episodes"] > 0]
    returns = np.array([r["gymnasium_return"] for r in done])
    counts = np.array([r["episodes"] for r in done])
    smooth = running_mean(returns, counts, window)
    starts = [r for i, r in enumerate(rows) if i > 0 and r["stage"] != rows[i - 1]["stage"]]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, key, scale, label in (
        (axes[0], "env_steps", 1e6, "env steps (decisions), millions"),
        (axes[1], "wall_s", 60.0, "wall-clock minutes (training included)"),
    ):
        x = np.array([r[key] for r in done]) / scale
        ax.scatter(x, returns, s=2 * counts, alpha=0.25, label="batch mean (area: episodes)")
        ax.plot(x, smooth, "C1", lw=1.8, label=f"running mean ({window} batches)")
        ax.axhline(900, color="C2", ls="--", lw=1, label="solved (900)")
        for start in starts:
            ax.axvline(start[key] / scale, color="0.5", ls=":", lw=1)
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[1].axvline(90, color="C3", ls="--", lw=1, label="90-minute budget")
    finish_return_figure(
        fig,
        axes,
        path,
        "episode return, Gymnasium's reward\n(training, sampled actions)",
        "PPO on CarRacing with the streaming collector (dotted: stage starts)",
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("stages", type=Path, nargs="+", help="scalars.csv of each stage, in order")
    p.add_argument("--csv", type=Path, required=True, help="the joined scalars")
    p.add_argument("--png", type=Path, required=True, help="the learning curve")
    p.add_argument("--window", type=int, default=20, help="running-mean window (batches)")
    args = p.parse_args()
    rows = join([read_stage(path) for path in args.stages])
    columns = ["stage", *[k for k in rows[0] if k != "stage"]]
    with open(args.csv, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: f"{row[k]:.6g}" for k in columns})
    plot(rows, args.png, args.window)
    last = rows[-1]
    print(f"{len(rows)} updates, {last['env_steps']:.0f} env steps, {last['wall_s']:.0f} s")


if __name__ == "__main__":
    main()
