"""The finish the training tools' learning-curve figures share (tools/gen_training_curve.py,
tools/gen_training_runs.py): two panels, one return axis under Gymnasium's reward."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def finish_return_figure(fig: Any, axes: Any, path: Path, ylabel: str, title: str) -> None:
    """Labels the shared return axis (from -100 up to 1000, beyond the solved line at 900),
    puts the legend on the right panel, titles the figure and writes it to `path`."""
    axes[0].set_ylabel(ylabel)
    axes[0].set_ylim(-100, 1000)
    axes[1].legend(loc="lower right", fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
