"""The section scripts behind bench/bench_single.py, bench/bench_vector.py and
bench/bench_collector.py: the same options as before, each running one part of the harness."""

from __future__ import annotations

import json
import os
import sys
from argparse import ArgumentParser, Namespace
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .harness import Config, print_machine_info, run_benchmarks, usable_cores
from .report import console


def _run(config: Config, argv: list[str] | None, script: str) -> dict[str, Any]:
    print_machine_info()
    args = sys.argv[1:] if argv is None else argv
    doc = run_benchmarks(config, command=" ".join(["python", script, *args]))
    print(console(doc))
    return doc


def _parser(main: Callable[..., None], seconds: float, warmup: bool = True) -> ArgumentParser:
    """The options every section script takes: trials, seconds (and warm-up) per measurement,
    and where to write the results."""
    parser = ArgumentParser(description=main.__doc__)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=seconds)
    if warmup:
        parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--json", type=Path, help="also write the results here")
    return parser


def _config(args: Namespace, **fields: Any) -> Config:
    """The run a script's options ask for, with its own `fields` (sections, sizes)."""
    timing = {"trials": args.trials, "seconds": args.seconds}
    if "warmup" in args:
        timing["warmup"] = args.warmup
    return Config(**timing, **fields)


def _measured(doc: dict[str, Any], section: str) -> list[dict[str, Any]]:
    return [r for r in doc["rows"] if r["section"] == section and not r["skipped"]]


def _medians(doc: dict[str, Any], section: str, key_of) -> dict[str, Any]:
    metric = doc["sections"][section]["metric"]
    return {key_of(r): r["stats"][metric] for r in _measured(doc, section)}


def _row_medians(row: dict[str, Any]) -> dict[str, float]:
    return {k: v["median"] for k, v in row["stats"].items()}


def _write(path: Path | None, payload: dict[str, Any]) -> None:
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(payload, indent=2))


def single_main(argv: list[str] | None = None) -> None:
    """Single env, single thread: every installed system (random actions, frame every step)."""
    args = _parser(single_main, seconds=5.0).parse_args(argv)
    doc = _run(_config(args, sections=("single",)), argv, "bench/bench_single.py")
    names = {"ours-gym": "reinfors-gym"}
    _write(args.json, _medians(doc, "single", lambda r: names.get(r["variant"], r["variant"])))


def vector_main(argv: list[str] | None = None) -> None:
    """Vector stepping at equal env and thread counts (ours over 1..cores threads, EnvPool,
    AsyncVectorEnv), and resident memory per env."""
    parser = _parser(vector_main, seconds=4.0)
    parser.add_argument("--num-envs", type=int, default=8)
    args = parser.parse_args(argv)
    config = _config(args, vector_envs=args.num_envs, sections=("threads", "memory"))
    doc = _run(config, argv, "bench/bench_vector.py")
    speed = _medians(doc, "threads", lambda r: f"{r['variant']} threads={r['params']['threads']}")
    memory = {
        f"{r['variant']} num_envs={r['params']['num_envs']}": _row_medians(r)
        for r in _measured(doc, "memory")
    }
    _write(args.json, {"speed": speed, "memory": memory})


def collector_main(argv: list[str] | None = None) -> None:
    """Collector records/s (zero-cost infer) beside the raw vector env and reinfors' Engine, and
    the collect/train overlap of streaming."""
    parser = _parser(collector_main, seconds=5.0, warmup=False)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or usable_cores())
    parser.add_argument("--collect-size", type=int, default=1024)
    parser.add_argument("--updates", type=int, default=8)
    args = parser.parse_args(argv)
    config = _config(
        args,
        games=args.games,
        env_threads=args.threads,
        collect_size=args.collect_size,
        updates=args.updates,
        sections=("collector", "overlap"),
    )
    doc = _run(config, argv, "bench/bench_collector.py")
    overlap = next((_row_medians(r) for r in _measured(doc, "overlap")), None)
    _write(
        args.json,
        {"throughput": _medians(doc, "collector", lambda r: r["variant"]), "overlap": overlap},
    )
