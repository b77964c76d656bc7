"""The `reinfors-gym` command.

reinfors-gym bench --quick                # < 1 minute preview: the comparison table
reinfors-gym bench --out docs             # full run: docs/benchmarks.json + docs/img/*.png
reinfors-gym bench --loops --out docs     # async stepping's policy loops: docs/async_loops.json
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path


def _csv(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(",") if v.strip())


def _parser() -> argparse.ArgumentParser:
    from .benchmarks.harness import SECTIONS_ORDER
    from .benchmarks.systems import FAMILIES

    parser = argparse.ArgumentParser(
        prog="reinfors-gym", description="reinfors-gym: Gymnasium's CarRacing in Rust."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    bench = sub.add_parser(
        "bench",
        help="benchmark reinfors-gym beside Gymnasium, EnvPool and reinfors",
        description=(
            "Side-by-side benchmarks, each measurement in its own process, trials alternating "
            "in order, warm-up discarded, median and range of the trials. Systems that are not "
            "installed (or fail) are reported as skipped."
        ),
    )
    bench.add_argument(
        "--quick",
        action="store_true",
        help="a < 60 s preview: one short trial per measurement, fewer configurations",
    )
    bench.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="write DIR/benchmarks.json and PNG charts in DIR/img/ (matplotlib, if installed)",
    )
    bench.add_argument(
        "--systems",
        type=_csv,
        metavar="LIST",
        help=f"comma-separated families to run (default: all of {','.join(FAMILIES)})",
    )
    bench.add_argument(
        "--sections",
        type=_csv,
        metavar="LIST",
        help=f"comma-separated sections (default: all of {','.join(SECTIONS_ORDER)})",
    )
    bench.add_argument(
        "--loops",
        action="store_true",
        help=(
            "instead: the policy loops of asynchronous stepping (a device-like policy, a "
            "Nature CNN on 1 torch thread and on every core; ceiling, step alone, sync, async, "
            "EnvPool async), written to DIR/async_loops.json with --out (needs torch)"
        ),
    )
    bench.add_argument(
        "--trials", type=int, help="trials per measurement (default 3, loops 5; quick 1)"
    )
    bench.add_argument(
        "--seconds", type=float, help="timed seconds per trial (default 5; quick 0.6)"
    )
    bench.add_argument("--warmup", type=float, help="discarded warm-up seconds (default 1)")
    return parser


def bench_loops(args: argparse.Namespace, argv: list[str]) -> int:
    from .benchmarks import harness, loops

    config = loops.Config(quick=args.quick)
    if args.quick:
        config.trials, config.seconds, config.warmup = 1, 0.6, 0.2
    for key in ("trials", "seconds", "warmup"):
        if getattr(args, key) is not None:
            setattr(config, key, getattr(args, key))
    if config.trials < 1 or config.seconds <= 0:
        print("reinfors-gym bench: trials must be >= 1 and seconds > 0", file=sys.stderr)
        return 2
    harness.print_machine_info()
    start = time.perf_counter()
    doc = loops.run(config, command="reinfors-gym " + " ".join(shlex.quote(a) for a in argv))
    print(loops.console(doc))
    if args.out:
        path = args.out / "async_loops.json"
        loops.dump(doc, path)
        print(f"\nwrote {path}")
    print(f"\ndone in {time.perf_counter() - start:.0f} s")
    return 0


def bench(args: argparse.Namespace, argv: list[str]) -> int:
    if args.loops:
        return bench_loops(args, argv)
    from .benchmarks import harness, report
    from .progress import ProgressBar

    overrides = {
        k: v
        for k, v in (
            ("trials", args.trials),
            ("seconds", args.seconds),
            ("warmup", args.warmup),
            ("systems", args.systems),
            ("sections", args.sections),
        )
        if v is not None
    }
    config = harness.Config.quick_config(**overrides) if args.quick else harness.Config(**overrides)
    try:
        config = config.resolved()
    except ValueError as e:
        print(f"reinfors-gym bench: {e}", file=sys.stderr)
        return 2
    harness.print_machine_info()
    start = time.perf_counter()
    command = "reinfors-gym " + " ".join(shlex.quote(a) for a in argv)
    # On a terminal: a bar with the trial running and the time left, each trial's figure above
    # it. Elsewhere (logs, CI): quiet until the report.
    with ProgressBar(0, "trial") as bar:
        doc = harness.run_benchmarks(
            config, progress=bar.note if bar.enabled else None, command=command, bar=bar
        )
    print(report.console(doc))
    if args.out:
        path = args.out / "benchmarks.json"
        harness.dump(doc, path)
        print(f"\nwrote {path}")
        written, note = report.charts(doc, args.out / "img")
        for p in written:
            print(f"wrote {p}")
        if note:
            print(note)
    print(f"\ndone in {time.perf_counter() - start:.0f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = _parser().parse_args(argv)
    if args.command == "bench":
        return bench(args, argv)
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":
    sys.exit(main())
