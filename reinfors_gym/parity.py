"""Side-by-side runs of Gymnasium's CarRacing-v3 and reinfors/CarRacing-v0.

Both environments get the same seed and, for open-loop families, the same actions; the
closed-loop family drives each env with its own `TrackFollower` (a policy-transfer check).
Per step we compare reward, termination, info, the car's state and the 96x96 frame.

    python -m reinfors_gym.parity --seeds 100 --out out/parity/results.json

needs `gymnasium[box2d]`. Gymnasium spends ~98% of a step drawing; to keep long runs
affordable its frame is computed only on the steps we compare (`frame_every`), which does not
change its simulation (drawing has no side effects there).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .progress import ProgressBar
from .testing import TrackFollower

#: Action families, each a different way of driving (see `family_actions`).
FAMILIES = (
    "random_smooth",
    "throttle_sweep",
    "hard_braking",
    "closed_loop",
    "discrete",
    "domain_randomize",
)
#: Steps over which hull positions are compared for the position criterion.
POSITION_WINDOW = 300


@dataclass
class EpisodeRecord:
    """What one side-by-side episode showed."""

    family: str
    seed: int
    track_equal: bool
    tiles: tuple[int, int]
    #: (ours, Gymnasium): episode length and how it ended ("lap", "off", "time").
    length: tuple[int, int]
    ending: tuple[str, str]
    episode_return: tuple[float, float]
    #: Largest |Δ step reward| over the steps both envs ran.
    max_reward_diff: float
    #: Largest hull position error over the first POSITION_WINDOW steps (world units).
    max_hull_error_window: float
    #: Largest hull position error over the whole episode.
    max_hull_error: float
    #: First step where any compared car quantity differs by more than 1e-6 (None: never).
    first_state_divergence: int | None
    #: Frame mean absolute differences (0-255) on compared steps while the states agreed
    #: (hull error < 1e-3), and on the others.
    frame_mad_agreeing: list[float] = field(default_factory=list)
    frame_mad_diverged: list[float] = field(default_factory=list)
    seconds: float = 0.0


def family_actions(family: str, seed: int, steps: int = 1000) -> np.ndarray | None:
    """Open-loop actions of a family (None for the closed-loop one)."""
    rng = np.random.default_rng(10_000 + seed)
    t = np.arange(steps)
    if family in ("random_smooth", "domain_randomize"):
        raw = rng.uniform([-1, 0, 0], [1, 1, 0.3], size=(steps + 30, 3))
        k = np.ones(30) / 30
        return np.stack([np.convolve(raw[:, i], k, mode="valid")[:steps] for i in range(3)], 1)
    if family == "throttle_sweep":
        period = rng.uniform(80, 200)
        steer = np.sin(2 * math.pi * t / period) * rng.uniform(0.3, 1.0)
        return np.stack([steer, np.ones(steps), np.zeros(steps)], 1)
    if family == "hard_braking":
        phase = (t // rng.integers(40, 80)) % 2
        gas = np.where(phase == 0, 0.8, 0.0)
        brake = np.where(phase == 1, rng.choice([0.5, 0.95, 1.0]), 0.0)
        steer = np.clip(np.cumsum(rng.normal(0, 0.05, steps)), -0.5, 0.5)
        return np.stack([steer, gas, brake], 1)
    if family == "discrete":
        # Actions held for a few steps, like a human pressing keys.
        hold = rng.integers(3, 15, size=steps)
        choice = rng.choice(5, size=steps, p=[0.2, 0.15, 0.15, 0.35, 0.15])
        out = np.repeat(choice, hold)[:steps]
        return out.astype(np.int64)
    if family == "closed_loop":
        return None
    raise ValueError(f"unknown family {family!r}")


def _gym_car_state(env: Any) -> dict[str, np.ndarray]:
    car = env.unwrapped.car
    hull = car.hull
    return {
        "hull_position": np.array(hull.position, dtype=np.float64),
        "hull_angle": np.float64(hull.angle),
        "hull_linear_velocity": np.array(hull.linearVelocity, dtype=np.float64),
        "hull_angular_velocity": np.float64(hull.angularVelocity),
        "joint_angle": np.array([w.joint.angle for w in car.wheels], dtype=np.float64),
        "wheel_omega": np.array([w.omega for w in car.wheels], dtype=np.float64),
    }


_COMPARED = (
    "hull_position",
    "hull_angle",
    "hull_linear_velocity",
    "hull_angular_velocity",
    "joint_angle",
    "wheel_omega",
)


def _state_diff(ours: dict[str, Any], ref: dict[str, np.ndarray]) -> float:
    return max(float(np.max(np.abs(np.asarray(ours[k], np.float64) - ref[k]))) for k in _COMPARED)


class _LazyFrames:
    """Makes Gymnasium draw its state frame only when asked for it."""

    def __init__(self, env: Any):
        self.env = env.unwrapped
        self.original = self.env._render
        self.wanted = True

        def render(mode: str) -> Any:
            if mode == "state_pixels" and not self.wanted:
                return None
            return self.original(mode)

        self.env._render = render


def _ending(terminated: bool, truncated: bool, info: dict[str, Any]) -> str:
    if terminated:
        return "lap" if info.get("lap_finished") else "off"
    return "time" if truncated else "running"


@dataclass
class _Side:
    """One simulator's side of an episode: its env, latest observation and running totals."""

    env: Any
    obs: Any
    done: bool = False
    episode_return: float = 0.0
    length: int = 0
    ending: str = "running"

    def step(self, action: Any, step: int) -> float:
        """Steps the env unless its episode has ended; the step's reward (0.0 once ended)."""
        if self.done:
            return 0.0
        self.obs, reward, terminated, truncated, info = self.env.step(action)
        self.episode_return += reward
        self.length = step
        if terminated or truncated:
            self.done, self.ending = True, _ending(terminated, truncated, info)
        return reward


def run_episode(
    family: str, seed: int, max_steps: int = 1000, frame_every: int = 1
) -> EpisodeRecord:
    """One episode of `family` from `seed` in both simulators."""
    import gymnasium as gym

    import reinfors_gym  # noqa: F401  (registers our id)

    start = time.perf_counter()
    kwargs: dict[str, Any] = {
        "continuous": family != "discrete",
        "domain_randomize": family == "domain_randomize",
        "max_episode_steps": max_steps,
        # The checker would inspect Gymnasium's skipped (None) frames.
        "disable_env_checker": True,
    }
    ref = gym.make("CarRacing-v3", **kwargs)
    ours = gym.make("reinfors/CarRacing-v0", **kwargs)
    frames = _LazyFrames(ref)
    theirs = _Side(ref, ref.reset(seed=seed)[0])
    mine = _Side(ours, ours.reset(seed=seed)[0])
    ref_track = np.array(ref.unwrapped.track)
    our_track = ours.unwrapped.track
    track_equal = ref_track.shape == our_track.shape and bool(
        np.max(np.abs(ref_track - our_track)) <= 1e-9
    )
    actions = family_actions(family, seed, max_steps)
    drivers = (TrackFollower(our_track), TrackFollower(ref_track))
    record = EpisodeRecord(
        family=family,
        seed=seed,
        track_equal=track_equal,
        tiles=(len(our_track), len(ref_track)),
        length=(0, 0),
        ending=("running", "running"),
        episode_return=(0.0, 0.0),
        max_reward_diff=0.0,
        max_hull_error_window=0.0,
        max_hull_error=0.0,
        first_state_divergence=None,
    )

    def compare_frames(step: int, hull_error: float) -> None:
        mad = float(np.mean(np.abs(mine.obs.astype(np.int16) - theirs.obs.astype(np.int16))))
        (record.frame_mad_agreeing if hull_error < 1e-3 else record.frame_mad_diverged).append(mad)

    compare_frames(0, 0.0)
    for step in range(1, max_steps + 1):
        frames.wanted = step % frame_every == 0
        if actions is not None:
            a_ours = a_ref = actions[step - 1]
            if family != "discrete":
                a_ours = a_ref = a_ours.astype(np.float32)
        else:
            a_ours = drivers[0].act_ours(ours).astype(np.float32)
            a_ref = drivers[1].act_gymnasium(ref).astype(np.float32)
        r_ours = mine.step(a_ours, step)
        r_ref = theirs.step(a_ref, step)
        if mine.done != theirs.done:
            record.first_state_divergence = record.first_state_divergence or step
        if mine.done or theirs.done:
            if mine.done and theirs.done:
                record.max_reward_diff = max(record.max_reward_diff, abs(r_ours - r_ref))
                break
            continue
        record.max_reward_diff = max(record.max_reward_diff, abs(r_ours - r_ref))
        s_ours = ours.unwrapped.car_state()
        s_ref = _gym_car_state(ref)
        hull_error = float(np.max(np.abs(s_ours["hull_position"] - s_ref["hull_position"])))
        record.max_hull_error = max(record.max_hull_error, hull_error)
        if step <= POSITION_WINDOW:
            record.max_hull_error_window = max(record.max_hull_error_window, hull_error)
        if record.first_state_divergence is None and _state_diff(s_ours, s_ref) > 1e-6:
            record.first_state_divergence = step
        if frames.wanted:
            compare_frames(step, hull_error)
    record.length = (mine.length, theirs.length)
    record.ending = (mine.ending, theirs.ending)
    record.episode_return = (mine.episode_return, theirs.episode_return)
    record.seconds = time.perf_counter() - start
    ours.close()
    ref.close()
    return record


def _run_one(job: tuple[str, int, int, int]) -> dict[str, Any]:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    return asdict(run_episode(*job))


def run_suite(
    families: tuple[str, ...] = FAMILIES,
    seeds: range = range(100),
    max_steps: int = 1000,
    frame_every: int = 4,
    workers: int = 1,
) -> Iterator[dict[str, Any]]:
    """All (family, seed) episodes, in a process pool; yields records as they finish."""
    jobs = [(f, s, max_steps, frame_every) for f in families for s in seeds]
    if workers <= 1:
        yield from map(_run_one, jobs)
        return
    with ProcessPoolExecutor(workers) as pool:
        yield from pool.map(_run_one, jobs)


@dataclass
class Criterion:
    """One acceptance criterion of the parity suite and what was observed."""

    name: str
    tolerance: str
    observed: str
    passed: bool


def _share(flags: list[bool]) -> float:
    return float(np.mean(flags)) if flags else 1.0


def _returns_close(rec: dict[str, Any]) -> bool:
    """Episode returns within 1% (relative to |Gymnasium's return|, floored at 1 reward unit)."""
    ours, ref = rec["episode_return"]
    return abs(ours - ref) <= 0.01 * max(abs(ref), 1.0)


def _same_ending(rec: dict[str, Any]) -> bool:
    return (
        rec["track_equal"]
        and rec["tiles"][0] == rec["tiles"][1]
        and rec["length"][0] == rec["length"][1]
        and rec["ending"][0] == rec["ending"][1]
    )


def evaluate(records: list[dict[str, Any]]) -> list[Criterion]:
    """The suite's five acceptance criteria over `records` (dicts of `EpisodeRecord`)."""
    out = []
    same = _share([_same_ending(r) for r in records])
    out.append(
        Criterion(
            "identical track, tile count, termination step and reason",
            ">= 95% of episodes",
            f"{same:.1%} of {len(records)}",
            same >= 0.95,
        )
    )
    close = _share([_returns_close(r) for r in records])
    out.append(
        Criterion(
            "episode return within 1% of Gymnasium's",
            ">= 95% of episodes",
            f"{close:.1%}",
            close >= 0.95,
        )
    )
    pos = _share([r["max_hull_error_window"] <= 0.05 for r in records])
    out.append(
        Criterion(
            f"hull position within 0.05 for the first {POSITION_WINDOW} steps",
            ">= 90% of episodes",
            f"{pos:.1%}",
            pos >= 0.90,
        )
    )
    mads = [m for r in records for m in r["frame_mad_agreeing"]]
    frames_ok = _share([m <= 2.0 for m in mads])
    out.append(
        Criterion(
            "frame MAD <= 2.0 (0-255) while car states agree",
            ">= 99% of compared frames",
            f"{frames_ok:.2%} of {len(mads)} frames",
            frames_ok >= 0.99,
        )
    )
    loop = [r for r in records if r["family"] == "closed_loop"]
    if loop:
        ours = float(np.mean([r["episode_return"][0] for r in loop]))
        ref = float(np.mean([r["episode_return"][1] for r in loop]))
        rel = abs(ours - ref) / max(abs(ref), 1e-9)
        out.append(
            Criterion(
                "closed-loop driver: mean return, ours vs Gymnasium",
                "differ by < 2%",
                f"{ours:.2f} vs {ref:.2f} ({rel:.3%})",
                rel < 0.02,
            )
        )
    return out


def main(argv: list[str] | None = None, progress: Callable[[str], None] = print) -> None:
    """Runs the suite, writes the results and prints the criteria. A progress bar (episodes
    done, time left) is drawn while it runs, on a terminal only."""
    parser = argparse.ArgumentParser(
        prog="python -m reinfors_gym.parity",
        description="Side-by-side parity with Gymnasium's CarRacing",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--seeds", type=int, default=100, help="seeds per family (0..N-1)")
    parser.add_argument(
        "--families", nargs="*", default=list(FAMILIES), choices=FAMILIES, help="action families"
    )
    parser.add_argument("--max-steps", type=int, default=1000, help="steps per episode at most")
    parser.add_argument(
        "--frame-every", type=int, default=4, help="compare the 96x96 frames every N steps"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="processes (default: the cores here, %(default)s)",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("out/parity/results.json"), help="results JSON"
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    records = []
    start = time.perf_counter()
    total = len(args.families) * args.seeds
    with ProgressBar(total, "episode") as bar:
        bar.running(f"parity: {', '.join(args.families)}")
        for rec in run_suite(
            tuple(args.families), range(args.seeds), args.max_steps, args.frame_every, args.workers
        ):
            records.append(rec)
            bar.advance()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "seeds": args.seeds,
        "families": args.families,
        "max_steps": args.max_steps,
        "frame_every": args.frame_every,
        "seconds": time.perf_counter() - start,
    }
    args.out.write_text(json.dumps({"meta": meta, "episodes": records}))
    progress(f"wrote {args.out} ({total} episodes in {time.perf_counter() - start:.0f} s)")
    for c in evaluate(records):
        progress(f"{'PASS' if c.passed else 'FAIL'}  {c.name}: {c.observed} ({c.tolerance})")


if __name__ == "__main__":
    main()
