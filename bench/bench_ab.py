"""A/B of two builds of reinfors-gym on the loops users run, interleaved in one run.

    python bench/bench_ab.py --a /path/to/old/checkout --b . [--trials 5] [--seconds 3]

Each side is a directory holding a `reinfors_gym` package with its built extension (a checkout
after `make build`, or a copy of one). Every measurement runs in a fresh process with that
directory first on `PYTHONPATH`, through the package's own benchmark worker, so both sides run
the same loop code. Trials alternate the order of A and B; the table gives medians and B/A.

Loops: the single env through `gym.make`; the vector env's tight loop at 8 and 64 envs on 1 and
2 threads; the policy in the loop (a Nature CNN between steps, 8 envs) at default and 1 thread,
beside the policy alone (needs torch in this interpreter); the asynchronous and synchronous
loops with a device-like policy (it holds the loop 2 ms without a core), as env steps/s and as
the caller's CPU time per iteration outside the policy (bench/async_probe.py, lower is better:
CPU time, which a busy machine's waits do not inflate). `--only "single;vector"` runs the tight
loops alone.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reinfors_gym.benchmarks.harness import print_machine_info  # noqa: E402


def _vector(num_envs: int, threads: int) -> dict:
    return {"variant": "ours-vector", "num_envs": num_envs, "threads": threads}


LOOPS = [
    ("single env, gym.make", "single", {"variant": "ours-gym"}),
    ("vector, 8 envs, 1 thread", "vector", _vector(8, 1)),
    ("vector, 8 envs, 2 threads", "vector", _vector(8, 2)),
    ("vector, 64 envs, 1 thread", "vector", _vector(64, 1)),
    ("vector, 64 envs, 2 threads", "vector", _vector(64, 2)),
    ("policy loop, 8 envs, 1 thread", "policy", _vector(8, 1)),
    ("policy loop, 8 envs, default", "policy", _vector(8, 0)),  # 0: the env's default
    ("policy alone (ceiling)", "policy", {"variant": "policy-alone", "num_envs": 8, "threads": 0}),
    ("async loop, device 2 ms", "probe:async", {"metric": "steps_per_s"}),
    ("sync loop, device 2 ms", "probe:sync", {"metric": "steps_per_s"}),
    ("async caller CPU us/iter", "probe:async", {"metric": "caller_cpu_us"}),
    ("sync caller CPU us/iter", "probe:sync", {"metric": "caller_cpu_us"}),
]
PROBE = ROOT / "bench" / "async_probe.py"


def measure(side: Path, kind: str, params: dict, seconds: float) -> float:
    env = dict(os.environ, PYTHONPATH=str(side), SDL_VIDEODRIVER="dummy")
    args = {**params, "seconds": seconds, "warmup": 1.0}
    metric = args.pop("metric", "steps_per_s")
    command = [sys.executable, "-m", "reinfors_gym.benchmarks.worker", kind, json.dumps(args)]
    if kind.startswith("probe:"):
        command = [sys.executable, str(PROBE), kind.split(":", 1)[1], json.dumps(args)]
    out = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=env,
        cwd=side,
        timeout=300,
    )
    line = (out.stdout.strip().splitlines() or ["{}"])[-1]
    result = json.loads(line)
    if metric not in result:
        raise SystemExit(f"{side}: {kind} {params}: {result or out.stderr[-500:]}")
    return float(result[metric])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--a", type=Path, required=True, help="the baseline build's directory")
    p.add_argument("--b", type=Path, default=ROOT, help="the candidate build's directory")
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--only", default="", help="semicolon-separated substrings of loop names")
    args = p.parse_args()
    print_machine_info()
    sides = {"A": args.a.resolve(), "B": args.b.resolve()}
    print(f"A = {sides['A']}\nB = {sides['B']}\n{args.trials} trials x {args.seconds} s")
    wanted = [s for s in args.only.split(";") if s]
    loops = [loop for loop in LOOPS if not wanted or any(w in loop[0] for w in wanted)]
    results: dict[tuple[str, str], list[float]] = {}
    for trial in range(args.trials):
        order = ["A", "B"] if trial % 2 == 0 else ["B", "A"]
        for name, kind, params in loops:
            for side in order:
                if params.get("variant") == "policy-alone" and side == "B":
                    continue  # no env in it: one side is enough
                rate = measure(sides[side], kind, params, args.seconds)
                results.setdefault((name, side), []).append(rate)
                print(f"  trial {trial + 1} {side} {name}: {rate:,.1f}", flush=True)
    print(f"\n{'loop':<32} {'A median':>10} {'B median':>10} {'B/A':>7}  (ranges)")
    for name, _, _ in loops:
        a = results.get((name, "A"), [])
        b = results.get((name, "B"), [])
        ma = statistics.median(a) if a else float("nan")
        mb = statistics.median(b) if b else float("nan")
        ratio = f"{mb / ma:.3f}" if a and b else ""
        rng = f"A {min(a):,.0f}-{max(a):,.0f}" + (f", B {min(b):,.0f}-{max(b):,.0f}" if b else "")
        shown_b = f"{mb:,.0f}" if b else "-"
        print(f"{name:<32} {ma:>10,.0f} {shown_b:>10} {ratio:>7}  ({rng})")


if __name__ == "__main__":
    main()
