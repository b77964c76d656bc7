"""Side-by-side benchmarks of reinfors-gym against Gymnasium, EnvPool and reinfors.

- `systems`: the systems under comparison and the measurement kinds a worker runs; their
  like-for-like loops are in `measuring` (what they share), `env_loops`, `collector_loops`,
  `policy_loops` and `process_memory`;
- `worker`: ``python -m reinfors_gym.benchmarks.worker KIND JSON`` runs one measurement;
- `harness`: the plan of a run, its trials section by section, the results' schema; beside it
  `sections`, `provenance`, `method` (isolated processes, trial order, statistics),
  `comparisons` and `documents` (the header, checks and JSON files of every results document);
- `report`: console tables, PNG charts and the Markdown page;
- `loops`: the policy loops of asynchronous stepping (`reinfors-gym bench --loops`).

Command line: ``reinfors-gym bench [--quick] [--out DIR]`` (see `reinfors_gym.cli`).
"""

from __future__ import annotations

from .harness import SCHEMA, Config, load, machine_info, run_benchmarks, summarize, validate

__all__ = ["SCHEMA", "Config", "load", "machine_info", "run_benchmarks", "summarize", "validate"]
