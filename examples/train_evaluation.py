"""The closing evaluation of `train.py`'s exported policy on `--eval-seeds`: what it will run
and how long it may take, said before it starts; its progress; `run.json`'s evaluation fields.
`--evaluate-only` runs it again on a finished run."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import evaluate
import numpy as np
import run_log

# run.json's evaluation runs: (name, env, sampled actions).
EVAL_RUNS = (
    ("gymnasium_mean_actions", "gymnasium", False),
    ("gymnasium_sampled", "gymnasium", True),
    ("ours_mean_actions", "reinfors", False),
)
# CarRacing-v3's time limit in simulation steps: an episode's most decisions are this / frame skip.
TIME_LIMIT_STEPS = 1000


def evaluation_estimate_s(policy_path: Path, seeds: list[int], args: argparse.Namespace) -> float:
    """An upper estimate of the evaluation's seconds: every episode as long as the time limit
    allows, at the seconds per decision measured here on each env (25 decisions, one process)."""
    decisions = math.ceil(TIME_LIMIT_STEPS / args.frame_skip)
    if args.eval_max_decisions is not None:
        decisions = min(decisions, args.eval_max_decisions)
    per_decision = {
        which: evaluate.decision_seconds(which, str(policy_path), seeds[0])
        for which in {which for _, which, _ in EVAL_RUNS}
    }
    total = sum(len(seeds) * decisions * per_decision[which] for _, which, _ in EVAL_RUNS)
    return total / max(1, min(args.eval_workers, len(seeds)))


def evaluate_policy(policy_path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """`run.json`'s evaluation fields: the policy's returns on `--eval-seeds`, on Gymnasium's env
    with mean and with sampled actions and on ours with mean actions, and the seconds it took.
    Says what it will run and how long it may take before it starts, and shows its progress."""
    evaluation: dict[str, Any] = {}
    seeds = evaluate.parse_seeds(args.eval_seeds) if args.eval_seeds else []
    if not seeds:
        return {"eval_seeds": [], "eval_max_decisions": args.eval_max_decisions, "evaluation": {}}
    start = time.perf_counter()
    estimate_s = evaluation_estimate_s(policy_path, seeds, args)
    print(
        f"evaluating on seeds {evaluate.seed_text(seeds)}: Gymnasium's CarRacing-v3 with mean and "
        f"with sampled actions, then ours with mean actions, {len(seeds)} episodes each on "
        f"{args.eval_workers} processes; at most ~{estimate_s / 60:.0f} min",
        flush=True,
    )
    tqdm = run_log._tqdm()
    with evaluate.EvaluationPool(str(policy_path), max(1, args.eval_workers)) as pool:
        for name, which, sample in EVAL_RUNS:
            bar = tqdm(total=len(seeds), desc=name, unit="episode") if tqdm else None
            done: list[float] = []

            def on_episode(seed: int, ret: float, bar=bar, done=done) -> None:
                done.append(ret)
                if bar is not None:
                    bar.set_postfix_str(f"mean {np.mean(done):.1f}", refresh=False)
                    bar.update(1)

            returns = pool.run(
                which, seeds, sample, args.eval_sample_seed, args.eval_max_decisions, on_episode
            )
            if bar is not None:
                bar.close()
            evaluation[name] = {
                "mean": float(np.mean(returns)),
                "ci95": evaluate.interval95(returns),
                "returns": returns,
            }
            print(f"{name}: mean {evaluation[name]['mean']:.1f}", flush=True)
    return {
        "eval_seeds": seeds,
        "eval_max_decisions": args.eval_max_decisions,
        "evaluation": evaluation,
        "evaluation_s": time.perf_counter() - start,
        "evaluation_estimate_s": estimate_s,
    }


def evaluate_finished_run(args: argparse.Namespace) -> dict[str, Any]:
    """--evaluate-only: evaluates a finished run's `policy.pt2` and rewrites the evaluation
    fields of its `run.json`; what the training recorded stays as it was."""
    run_path = args.out / "run.json"
    if not run_path.is_file() or not (args.out / "policy.pt2").is_file():
        sys.exit(f"--evaluate-only: {args.out} holds no finished run (policy.pt2 and run.json)")
    record = json.loads(run_path.read_text())
    record.update(evaluate_policy(args.out / "policy.pt2", args))
    record["evaluated_after_training"] = True
    run_path.write_text(json.dumps(record, indent=2) + "\n")
    print(f"run record: {run_path}", flush=True)
    return record
