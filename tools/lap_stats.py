"""How a policy checkpoint drives its laps: per seed, the return, the simulation steps used, the
track's tiles and the share of them visited, whether the lap ended before the time limit, and the
mean gas and brake of its mean actions.

    .venv-train/bin/python tools/lap_stats.py CHECKPOINT [--env reinfors] [--seeds 2000-2049]

A return short of 900 comes from a lap that did not end inside CarRacing's 1,000 steps (too
slow, or tiles skipped) or from tiles skipped on a lap that did; these columns tell which. The
summary's pace (steps per tile on the laps that ended) says how long a track the policy can
finish: CarRacing's tracks differ in length, and a lap of more tiles than 1,000 steps allow at
that pace cannot end. Use validation seeds, never a test block.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import evaluate  # noqa: E402 - after the path

SIMULATION_FPS = 50  # CarRacing's FPS: its clock `t` advances 1/50 s per simulation step


def mean_action(first: Any, second: Any, distribution: str, low: Any, high: Any) -> np.ndarray:
    """The policy's deterministic action on the box, as `evaluate.run_episode` takes it."""
    a, b = first[0].double().numpy(), second[0].double().numpy()
    if distribution == "beta":
        return np.clip(low + (high - low) * a / (a + b), low, high)
    return np.clip(a, low, high)


@torch.no_grad()
def lap(job: tuple[str, str, int]) -> dict[str, Any]:
    which, path, seed = job
    torch.set_num_threads(1)
    policy, preprocessing, distribution = evaluate.load_policy(path)
    env = evaluate.make_env(which, preprocessing)
    try:
        obs, _ = env.reset(seed=seed)
        low, high = env.action_space.low, env.action_space.high
        total, actions = 0.0, []
        terminated = truncated = lap_finished = False
        while not (terminated or truncated):
            first, second, _ = policy(torch.from_numpy(np.asarray(obs)[None]))
            action = mean_action(first, second, distribution, low, high)
            actions.append(action)
            obs, reward, terminated, truncated, info = env.step(action)
            # Gymnasium's flag: the lap ended, not the car leaving the playfield.
            lap_finished = bool(info.get("lap_finished", False))
            total += float(reward)
        track = env.unwrapped
        track_tiles = len(track.track)
        tiles = int(track.tile_visited_count) / track_tiles
        # The simulation clock, not decisions x frame_skip: the last decision stops early
        # when the episode ends inside it. The clock also counts the step `reset` takes.
        steps = round(float(track.t) * SIMULATION_FPS) - 1
    finally:
        env.close()
    taken = np.array(actions)
    return {
        "seed": seed,
        "return": total,
        "steps": steps,
        "track_tiles": track_tiles,
        "tiles": tiles,
        "lap_ended": lap_finished,
        "gas": float(taken[:, 1].mean()),
        "brake": float(taken[:, 2].mean()),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("checkpoint", help="a .pt2 file (evaluate.save_checkpoint)")
    p.add_argument(
        "--env", choices=sorted(evaluate.ENV_IDS), default="reinfors", help="the env to run on"
    )
    p.add_argument("--seeds", default="2000-2049", help="A-B inclusive, or a comma list")
    p.add_argument("--workers", type=int, default=2, help="processes")
    p.add_argument("--json", action="store_true", help="end with one JSON line of the laps")
    args = p.parse_args(argv)
    jobs = [(args.env, args.checkpoint, s) for s in evaluate.parse_seeds(args.seeds)]
    with ProcessPoolExecutor(max(1, args.workers)) as pool:
        rows = list(pool.map(lap, jobs))
    print("seed    return  steps  track  tiles  lap ended   gas  brake")
    for r in rows:
        print(f"{r['seed']:>4} {r['return']:9.1f} {r['steps']:6d} {r['track_tiles']:6d} "
              f"{r['tiles']:6.3f} "
              f"{str(r['lap_ended']):>10} {r['gas']:5.2f} {r['brake']:6.3f}")  # fmt: skip
    ended = [r for r in rows if r["lap_ended"]]
    steps_to_end = np.mean([r["steps"] for r in ended]) if ended else float("nan")
    pace = (
        sum(r["steps"] for r in ended) / sum(r["track_tiles"] for r in ended)
        if ended
        else float("nan")
    )
    print(
        f"{len(rows)} laps: mean return {np.mean([r['return'] for r in rows]):.1f}; "
        f"{len(ended)} ended inside the time limit, in {steps_to_end:.0f} steps on average "
        f"({pace:.2f} steps per tile); "
        f"mean gas {np.mean([r['gas'] for r in rows]):.3f}, "
        f"brake {np.mean([r['brake'] for r in rows]):.3f}"
    )
    if args.json:
        print(json.dumps({"env": args.env, "checkpoint": args.checkpoint, "laps": rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
