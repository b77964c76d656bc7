"""The sections of a benchmark run: what each measures (its metric and unit), which way is
better, and the order reports show them in."""

from __future__ import annotations

from dataclasses import dataclass

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
