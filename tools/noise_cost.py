"""What each action dimension's noise costs a Beta policy: per set of dimensions, the mean return
when only those are sampled and the others take the policy's mean.

    .venv-train/bin/python tools/noise_cost.py CHECKPOINT [--env reinfors] [--seeds 2000-2049]

Every episode draws its samples as `examples/evaluate.py --sample` does (the same stream per seed
and `--sample-seed`, all three dimensions drawn at every decision), so the set of all three
dimensions is evaluate.py's sampled run and the empty set its mean-action run; the sets between
them tell which dimension's noise the sampled score pays for. Use validation seeds, never a test
block.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import evaluate  # noqa: E402 - after the path

DIMENSIONS = ("steer", "gas", "brake")


ALL_SETS = [
    tuple(c) for k in range(len(DIMENSIONS) + 1) for c in itertools.combinations(DIMENSIONS, k)
]


def parse_dimensions(text: str) -> tuple[str, ...] | None:
    """`steer+brake` -> ("steer", "brake"); `none` -> (); `all` -> None (every set)."""
    if text == "none":
        return ()
    if text == "all":
        return None
    names = tuple(text.split("+"))
    unknown = [n for n in names if n not in DIMENSIONS]
    if unknown or len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(
            f"{text!r}: want 'none', 'all' or dimensions of {DIMENSIONS} joined by '+', each once"
        )
    return tuple(n for n in DIMENSIONS if n in names)


# A worker process loads the checkpoint once, not once per episode.
load_policy = functools.lru_cache(maxsize=1)(evaluate.load_policy)


@torch.no_grad()
def episode(job: tuple[str, str, int, int, tuple[str, ...]]) -> float:
    """One episode's return with the dimensions in `sampled` drawn, the others at the mean."""
    which, path, seed, sample_seed, sampled = job
    torch.set_num_threads(1)
    policy, preprocessing, _ = load_policy(path)
    drawn = np.array([name in sampled for name in DIMENSIONS])
    env = evaluate.make_env(which, preprocessing)
    try:
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(evaluate.stream_seed(sample_seed, seed))
        low, high = env.action_space.low, env.action_space.high
        total, done = 0.0, False
        while not done:
            first, second, _ = policy(torch.from_numpy(np.asarray(obs)[None]))
            alpha, beta = first[0].double().numpy(), second[0].double().numpy()
            draw = rng.beta(alpha, beta)  # every dimension, so that the stream stays aligned
            x = np.where(drawn, draw, alpha / (alpha + beta))
            obs, reward, terminated, truncated, _ = env.step(
                np.clip(low + (high - low) * x, low, high)
            )
            total += float(reward)
            done = terminated or truncated
    finally:
        env.close()
    return total


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("checkpoint", help="a Beta policy's .pt2 file (evaluate.save_checkpoint)")
    p.add_argument(
        "--env", choices=sorted(evaluate.ENV_IDS), default="reinfors", help="the env to run on"
    )
    p.add_argument("--seeds", default="2000-2049", help="A-B inclusive, or a comma list")
    p.add_argument("--sample-seed", type=int, default=0, help="evaluate.py's --sample-seed")
    p.add_argument(
        "--sets",
        nargs="+",
        default=["none", "steer", "gas", "brake", "steer+gas+brake"],
        metavar="SET",
        help="sets of sampled dimensions: 'none', names joined by '+' (steer+brake), or 'all' "
        "for all eight",
    )
    p.add_argument("--workers", type=int, default=2, help="processes")
    p.add_argument("--json", action="store_true", help="end with one JSON line of the returns")
    args = p.parse_args(argv)
    try:
        sets = [parse_dimensions(text) for text in args.sets]
    except argparse.ArgumentTypeError as error:
        p.error(f"--sets: {error}")
    if None in sets:
        sets = ALL_SETS
    if not Path(args.checkpoint).is_file():
        p.error(f"no checkpoint file {args.checkpoint}")
    try:
        seeds = evaluate.parse_seeds(args.seeds)
        _, _, distribution = load_policy(args.checkpoint)
    except (ValueError, OSError, RuntimeError) as error:
        p.error(str(error))
    if distribution != "beta":
        p.error(f"{args.checkpoint}: a {distribution} policy; this tool reads Beta policies")
    results = {}
    with ProcessPoolExecutor(max(1, args.workers)) as pool:
        for sampled in sets:
            jobs = [(args.env, args.checkpoint, s, args.sample_seed, sampled) for s in seeds]
            results["+".join(sampled) or "none"] = list(pool.map(episode, jobs))
    print("sampled dimensions   mean return   episodes below 850")
    for name, returns in results.items():
        below = sum(r < 850 for r in returns)
        print(f"{name:<20} {np.mean(returns):11.1f}   {below:3d} of {len(returns)}")
    if args.json:
        print(json.dumps({"env": args.env, "checkpoint": args.checkpoint, "seeds": seeds,
                          "returns": results}))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
