"""The section scripts behind bench/bench_single.py, bench/bench_vector.py and
bench/bench_collector.py: the same options as before, each running one part of the harness."""

from __future__ import annotations

import argparse
import json
import os
import sys
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


def _medians(doc: dict[str, Any], section: str, key_of) -> dict[str, Any]:
    metric = doc["sections"][section]["metric"]
    return {
        key_of(r): r["stats"][metric]
        for r in doc["rows"]
        if r["section"] == section and not r["skipped"]
    }


def _write(path: Path | None, payload: dict[str, Any]) -> None:
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(payload, indent=2))


def single_main(argv: list[str] | None = None) -> None:
    """Single env, single thread: every installed system (random actions, frame every step)."""
    parser = argparse.ArgumentParser(description=single_main.__doc__)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    config = Config(
        trials=args.trials, seconds=args.seconds, warmup=args.warmup, sections=("single",)
    )
    doc = _run(config, argv, "bench/bench_single.py")
    names = {"ours-gym": "reinfors-gym"}
    _write(args.json, _medians(doc, "single", lambda r: names.get(r["variant"], r["variant"])))


def vector_main(argv: list[str] | None = None) -> None:
    """Vector stepping at equal env and thread counts (ours over 1..cores threads, EnvPool,
    AsyncVectorEnv), and resident memory per env."""
    parser = argparse.ArgumentParser(description=vector_main.__doc__)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    config = Config(
        trials=args.trials,
        seconds=args.seconds,
        warmup=args.warmup,
        vector_envs=args.num_envs,
        sections=("threads", "memory"),
    )
    doc = _run(config, argv, "bench/bench_vector.py")
    speed = _medians(doc, "threads", lambda r: f"{r['variant']} threads={r['params']['threads']}")
    memory = {
        f"{r['variant']} num_envs={r['params']['num_envs']}": {
            k: v["median"] for k, v in r["stats"].items()
        }
        for r in doc["rows"]
        if r["section"] == "memory" and not r["skipped"]
    }
    _write(args.json, {"speed": speed, "memory": memory})


def collector_main(argv: list[str] | None = None) -> None:
    """Collector records/s (zero-cost infer) beside the raw vector env and reinfors' Engine, and
    the collect/train overlap of streaming."""
    parser = argparse.ArgumentParser(description=collector_main.__doc__)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or usable_cores())
    parser.add_argument("--collect-size", type=int, default=1024)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--updates", type=int, default=8)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    config = Config(
        trials=args.trials,
        seconds=args.seconds,
        games=args.games,
        env_threads=args.threads,
        collect_size=args.collect_size,
        updates=args.updates,
        sections=("collector", "overlap"),
    )
    doc = _run(config, argv, "bench/bench_collector.py")
    overlap = next(
        (
            {k: v["median"] for k, v in r["stats"].items()}
            for r in doc["rows"]
            if r["section"] == "overlap" and not r["skipped"]
        ),
        None,
    )
    _write(
        args.json,
        {"throughput": _medians(doc, "collector", lambda r: r["variant"]), "overlap": overlap},
    )
