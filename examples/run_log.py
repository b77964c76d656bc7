"""What a training run shows and writes while it runs: the progress bar, `scalars.csv` and
TensorBoard's event files, one row of scalars per update in each; and the machine and versions
its `run.json` names.

The progress bar counts whatever ends the run: minutes under a time budget, decisions
otherwise, with the decisions, the recent score and the rate in its postfix. TensorBoard's files
go beside `scalars.csv` (`tensorboard --logdir OUT`), holding the same scalars against the
decisions trained; without the `tensorboard` package they are skipped with a note.
"""

from __future__ import annotations

import csv
import math
import os
import platform
from pathlib import Path
from typing import Any

# tqdm's default format with the count shown as minutes of the budget.
MINUTES_FORMAT = "{l_bar}{bar}| {n:.1f}/{total:.3g} min [{elapsed}<{remaining}{postfix}]"


def _tqdm() -> Any:
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


class ProgressBar:
    """The run's progress bar: `minutes` > 0 counts minutes to the end of the run, else
    `decisions` decisions. The run ends at whichever budget it reaches first, so with both the
    total is the nearer end: the minutes, or the time the decisions take at the rate so far.
    Falls back to a printed line per update without tqdm."""

    def __init__(self, decisions: int, minutes: float = 0.0):
        self.by_time = minutes > 0
        self.minutes = float(minutes)
        self.decisions = decisions
        self.total = float(minutes) if self.by_time else float(decisions)
        self.unit = "min" if self.by_time else "decision"
        tqdm = _tqdm()
        self.bar = None
        if tqdm is not None:
            if self.by_time:
                self.bar = tqdm(
                    total=self.total,
                    unit="min",
                    bar_format=MINUTES_FORMAT,
                )
            else:
                self.bar = tqdm(total=int(self.total), unit="decision", unit_scale=True)

    def update(self, decisions: int, elapsed_s: float, postfix: str) -> None:
        if self.by_time and decisions > 0:
            at_this_rate = elapsed_s / 60.0 * self.decisions / decisions
            self.total = min(self.minutes, at_this_rate)
            if self.bar is not None:
                self.bar.total = self.total
        done = min(elapsed_s / 60.0, self.total) if self.by_time else min(decisions, self.total)
        if self.bar is None:
            total = f"{self.total:.3g}" if self.by_time else f"{self.total:.0f}"
            print(f"{done:.1f}/{total} {self.unit}  {postfix}", flush=True)
            return
        self.bar.n = done if self.by_time else int(done)
        self.bar.set_postfix_str(postfix, refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class ScalarLog:
    """`scalars.csv` (one row per update, `columns` in order) and TensorBoard's event files
    in `out`, the same scalars in both (TensorBoard's step: the row's `step_key`)."""

    def __init__(self, out: Path, columns: list[str], step_key: str):
        self.columns = columns
        self.step_key = step_key
        self.csv_file = open(out / "scalars.csv", "w", newline="")
        self.writer = csv.DictWriter(self.csv_file, fieldnames=columns)
        self.writer.writeheader()
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError:
            print("tensorboard is not installed: no event files (pip install tensorboard)")
            self.board = None
        else:
            self.board = SummaryWriter(log_dir=str(out))

    def write(self, row: dict[str, Any]) -> None:
        self.writer.writerow({k: f"{v:.6g}" if isinstance(v, float) else v for k, v in row.items()})
        self.csv_file.flush()
        if self.board is not None:
            step = int(row[self.step_key])
            for name in self.columns:
                value = row.get(name)
                if name != self.step_key and isinstance(value, (int, float)):
                    if not math.isnan(value):
                        self.board.add_scalar(name, value, step)

    def close(self) -> None:
        self.csv_file.close()
        if self.board is not None:
            self.board.close()


def machine() -> dict[str, Any]:
    """What a run record names of the CPU: its model name, its family, model and stepping (one
    model name covers several generations) and its count of cores."""
    from reinfors_gym.benchmarks.provenance import cpu_id, cpu_model

    return {"cpu_model": cpu_model(), "cpu_id": cpu_id(), "cpu_count": os.cpu_count()}


def versions() -> dict[str, str]:
    import gymnasium
    import numpy as np
    import torch

    import reinfors_gym as rf

    return {
        "torch": torch.__version__,
        "gymnasium": gymnasium.__version__,
        "numpy": np.__version__,
        "reinfors_gym": getattr(rf, "__version__", "unknown"),
        "python": platform.python_version(),
    }
