"""Side-by-side benchmarks of reinfors-gym against Gymnasium, EnvPool and reinfors.

- `systems`: the systems and their like-for-like measurement loops (run in worker processes);
- `worker`: ``python -m reinfors_gym.benchmarks.worker KIND JSON`` runs one measurement;
- `harness`: provenance, the plan of a run, trials in isolated processes, statistics, schema;
- `report`: console tables, PNG charts and the Markdown page;
- `loops`: the policy loops of asynchronous stepping (`reinfors-gym bench --loops`).

Command line: ``reinfors-gym bench [--quick] [--out DIR]`` (see `reinfors_gym.cli`).
"""

from __future__ import annotations

from .harness import SCHEMA, Config, load, machine_info, run_benchmarks, summarize, validate

__all__ = ["SCHEMA", "Config", "load", "machine_info", "run_benchmarks", "summarize", "validate"]
