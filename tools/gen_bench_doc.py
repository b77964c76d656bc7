"""Regenerates docs/benchmarks.md from a benchmark results JSON (`reinfors-gym bench --out`).

    python tools/gen_bench_doc.py [docs/benchmarks.json] [docs/benchmarks.md]

Tables with ratios (ours vs each anchor), machine provenance, the commands to reproduce, and the
conditions of each comparison. The 'Where the time goes' section of an existing page is kept.
Charts are linked from `img/` beside the page when they exist there; the soak's memory table
comes from bench/soak_results.json (bench/soak.py) when it exists. Writing docs/benchmarks.md
also refreshes the figures README.md and the other pages quote from the same JSON
(tools/gen_figures.py).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gen_figures import BENCH
from gen_figures import main as gen_figures

from reinfors_gym.benchmarks.harness import load
from reinfors_gym.benchmarks.report import CHARTS, existing_time_goes, markdown

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", type=Path, nargs="?", default=ROOT / "docs" / "benchmarks.json")
    parser.add_argument("out", type=Path, nargs="?", default=ROOT / "docs" / "benchmarks.md")
    parser.add_argument(
        "--soak", type=Path, default=ROOT / "bench" / "soak_results.json", help="soak results"
    )
    args = parser.parse_args(argv)
    doc = load(args.json)
    soak = json.loads(args.soak.read_text()) if args.soak.exists() else None
    img = args.out.parent / "img"
    text = markdown(
        doc,
        img_rel="img",
        time_goes=existing_time_goes(args.out),
        charts_available={name for name in CHARTS.values() if (img / name).exists()},
        soak=soak,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"wrote {args.out}")
    if args.json.resolve() == BENCH:
        gen_figures([])


if __name__ == "__main__":
    main()
