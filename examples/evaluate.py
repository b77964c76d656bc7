"""Evaluates a CarRacing policy checkpoint for full episodes, on ours or on Gymnasium's own env.

    python examples/evaluate.py --env gymnasium --checkpoint policy.pt2 --seeds 1000-1099
    python examples/evaluate.py --env reinfors --checkpoint policy.pt2 --seeds 1000-1099 --json

The checkpoint is an exported program (`torch.export`, any batch size) mapping a uint8
observation batch to the policy's two distribution parameters and its value, with the
observation options it was trained on in an extra file `preprocessing.json`: `{"frame_skip": k,
"stack_num": n, "grayscale": bool}` (frames 96x96, channels last, as `gym.make` gives them), and
its action distribution in `policy.json`: `{"distribution": "normal"}` (outputs `(mean (n, 3),
log_std (n, 3), value (n,))`, the default when the file is absent) or `"beta"` (outputs
`(alpha (n, 3), beta (n, 3), value (n,))`, a Beta per dimension on the action's box, as the
collector's `rf.policies.Ppo(distribution="beta")`). Loading it needs torch alone, not the code
that defined the network. `save_checkpoint` writes one.

Both envs get the same preprocessing, from Gymnasium's own wrappers (`GrayscaleObservation`,
`FrameStackObservation`) plus an action repeat written here, so the very same policy runs on
both; they equal the vector env's native `grayscale`, `stack_num` and `frame_skip`. With
`--env gymnasium` nothing is imported from `reinfors_gym`. Episodes end as `CarRacing-v3`'s do
(termination, or truncation after 1000 simulation steps). Prints each seed's return and the
mean with a 95% interval; `--json` ends with one JSON line
`{"env": ..., "seeds": [...], "returns": [...], "mean": ...}`. `--video PATH` also writes the
first seed's episode as an mp4 (every simulation step's 600x400 `rgb_array` frame, 50 fps;
needs `imageio` and `imageio-ffmpeg`).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import sys
from typing import Any

import gymnasium as gym
import numpy as np

try:
    import torch
except ImportError:
    sys.exit("evaluate.py needs PyTorch: pip install torch (or 'reinfors-gym[examples]')")

ENV_IDS = {"gymnasium": "CarRacing-v3", "reinfors": "reinfors_gym:reinfors/CarRacing-v0"}
PREPROCESSING_FILE = "preprocessing.json"
DEFAULT_PREPROCESSING = {"frame_skip": 1, "stack_num": 1, "grayscale": False}
POLICY_FILE = "policy.json"
DISTRIBUTIONS = ("normal", "beta")
VIDEO_FPS = 50  # CarRacing's render_fps: one frame per simulation step


class VideoFrames(gym.Wrapper):
    """Appends the env's `rgb_array` frame after the reset and after every simulation step to an
    open `imageio` writer (wrap the env directly, below any action repeat)."""

    def __init__(self, env: gym.Env, writer: Any):
        super().__init__(env)
        self.writer = writer

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        out = self.env.reset(**kwargs)
        self.writer.append_data(self.env.render())
        return out

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        out = self.env.step(action)
        self.writer.append_data(self.env.render())
        return out


class ActionRepeat(gym.Wrapper):
    """Repeats each action `k` times, summing the rewards and returning the last frame; stops
    early when the episode ends (the vector env's native `frame_skip`)."""

    def __init__(self, env: gym.Env, k: int):
        super().__init__(env)
        self.k = k

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        total = 0.0
        for _ in range(self.k):
            obs, reward, terminated, truncated, info = self.env.step(action)
            total += float(reward)
            if terminated or truncated:
                break
        return obs, total, terminated, truncated, info


def frame_shape(preprocessing: dict[str, Any]) -> tuple[int, ...]:
    """One observation's shape under `preprocessing` (what the policy receives per env)."""
    shape: tuple[int, ...] = (96, 96) if preprocessing["grayscale"] else (96, 96, 3)
    if preprocessing["stack_num"] > 1:
        shape = (preprocessing["stack_num"], *shape)
    return shape


def save_checkpoint(
    module: torch.nn.Module,
    path: str,
    preprocessing: dict[str, Any],
    distribution: str = "normal",
) -> None:
    """Exports `module` (on the CPU) for any batch size and saves it with its preprocessing
    options and action distribution."""
    unknown = set(preprocessing) - set(DEFAULT_PREPROCESSING)
    if unknown:
        raise ValueError(f"unknown preprocessing options {sorted(unknown)}")
    if distribution not in DISTRIBUTIONS:
        raise ValueError(f"distribution must be one of {DISTRIBUTIONS}, got {distribution!r}")
    options = {**DEFAULT_PREPROCESSING, **preprocessing}
    example = torch.zeros((2, *frame_shape(options)), dtype=torch.uint8)
    batch = torch.export.Dim("batch", min=1, max=65536)
    program = torch.export.export(module.eval(), (example,), dynamic_shapes=({0: batch},))
    extra = {
        PREPROCESSING_FILE: json.dumps(options),
        POLICY_FILE: json.dumps({"distribution": distribution}),
    }
    torch.export.save(program, path, extra_files=extra)


def load_policy(path: str) -> tuple[Any, dict[str, Any], str]:
    """The policy (a callable module), its preprocessing options and its distribution."""
    extra = {PREPROCESSING_FILE: "", POLICY_FILE: ""}
    program = torch.export.load(path, extra_files=extra)
    preprocessing = {**DEFAULT_PREPROCESSING, **json.loads(extra[PREPROCESSING_FILE] or "{}")}
    distribution = json.loads(extra[POLICY_FILE] or "{}").get("distribution", "normal")
    if distribution not in DISTRIBUTIONS:
        raise ValueError(f"{path}: unknown distribution {distribution!r}")
    return program.module(), preprocessing, distribution


def load_checkpoint(path: str) -> tuple[Any, dict[str, Any]]:
    """The policy (a callable module) and its preprocessing options."""
    module, preprocessing, _ = load_policy(path)
    return module, preprocessing


def make_env(which: str, preprocessing: dict[str, Any], video: Any = None) -> gym.Env:
    """The env with the policy's preprocessing; `video`: an open `imageio` writer that receives
    every simulation step's 600x400 frame."""
    env = gym.make(ENV_IDS[which], render_mode=None if video is None else "rgb_array")
    if video is not None:
        env = VideoFrames(env, video)
    if preprocessing["frame_skip"] > 1:
        env = ActionRepeat(env, preprocessing["frame_skip"])
    if preprocessing["grayscale"]:
        env = gym.wrappers.GrayscaleObservation(env)
    if preprocessing["stack_num"] > 1:
        env = gym.wrappers.FrameStackObservation(env, preprocessing["stack_num"])
    return env


def parse_seeds(text: str) -> list[int]:
    """`A-B` (inclusive), `A`, or a comma list of those."""
    seeds: list[int] = []
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        lo, hi = int(first), int(last or first)
        if lo < 0 or hi < lo:
            raise ValueError(f"bad seed range {part!r}: want A-B with 0 <= A <= B")
        seeds.extend(range(lo, hi + 1))
    return seeds


def seed_text(seeds: list[int]) -> str:
    """The inverse of `parse_seeds`: `A-B` for a block of consecutive seeds, else the seeds
    (the first few)."""
    if len(seeds) > 1 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}-{seeds[-1]}"
    shown = ", ".join(map(str, seeds[:5]))
    return shown + (f", ... ({len(seeds)} seeds)" if len(seeds) > 5 else "")


def stream_seed(sample_seed: int, seed: int) -> int:
    """The seed of one episode's stream of draws: each episode draws its own, so a seed's samples
    are the same on either env, in any order, in any process."""
    return sample_seed * 1_000_003 + seed


@torch.no_grad()
def run_episode(
    env: gym.Env,
    policy: Any,
    seed: int,
    sample: bool,
    sample_seed: int,
    distribution: str = "normal",
    max_decisions: int | None = None,
) -> float:
    """One episode's return; the policy's mean action, or a sample of its distribution.
    `max_decisions` cuts the episode short (quick checks)."""
    obs, _ = env.reset(seed=seed)
    rng = torch.Generator().manual_seed(stream_seed(sample_seed, seed))
    beta_rng = np.random.default_rng(stream_seed(sample_seed, seed))
    assert isinstance(env.action_space, gym.spaces.Box), env.action_space
    low, high = env.action_space.low, env.action_space.high
    total, done, decisions = 0.0, False, 0
    while not done and (max_decisions is None or decisions < max_decisions):
        first, second, _ = policy(torch.from_numpy(np.asarray(obs)[None]))
        if distribution == "beta":
            # Beta(alpha, beta) on (0, 1) per dimension, mapped onto the box; its mean, or a draw.
            alpha, beta = first[0].double().numpy(), second[0].double().numpy()
            x = beta_rng.beta(alpha, beta) if sample else alpha / (alpha + beta)
            action_np = low + (high - low) * x
        else:
            action = first
            if sample:
                action = first + second.exp() * torch.randn(first.shape, generator=rng)
            action_np = action[0].numpy().astype(np.float64)
        # As in training: the env receives the action clipped to the box.
        obs, reward, terminated, truncated, _ = env.step(np.clip(action_np, low, high))
        total += float(reward)
        done = terminated or truncated
        decisions += 1
    return total


def evaluate(
    which: str,
    path: str,
    seeds: list[int],
    sample: bool = False,
    sample_seed: int = 0,
    video: str | None = None,
    max_decisions: int | None = None,
    log: Any = print,
    on_episode: Any = None,
) -> list[float]:
    """Each seed's return of the checkpoint at `path` on env `which`; `video`: an mp4 of the
    first seed's episode. Each seed's line goes to `log`, or `on_episode(seed, ret)` is called
    instead."""
    torch.set_num_threads(1)
    policy, preprocessing, distribution = load_policy(path)
    env = make_env(which, preprocessing)
    returns = []
    try:
        for i, seed in enumerate(seeds):
            if video is not None and i == 0:
                import imageio

                # macro_block_size 8 divides 600x400, so ffmpeg keeps the frame size.
                with imageio.get_writer(video, fps=VIDEO_FPS, macro_block_size=8) as writer:
                    video_env = make_env(which, preprocessing, writer)
                    try:
                        ret = run_episode(
                            video_env, policy, seed, sample, sample_seed, distribution,
                            max_decisions,
                        )  # fmt: skip
                    finally:
                        video_env.close()
            else:
                ret = run_episode(
                    env, policy, seed, sample, sample_seed, distribution, max_decisions
                )
            returns.append(ret)
            if on_episode is None:
                log(f"seed {seed}: {ret:.2f}")
            else:
                on_episode(seed, ret)
    finally:
        env.close()
    return returns


_WORKER: dict[str, Any] = {}


def _start_worker(path: str) -> None:
    """A worker process's policy, loaded once for all its episodes."""
    torch.set_num_threads(1)
    policy, preprocessing, distribution = load_policy(path)
    _WORKER.update(policy=policy, preprocessing=preprocessing, distribution=distribution)


def _worker_episode(
    which: str, seed: int, sample: bool, sample_seed: int, max_decisions: int | None
) -> float:
    """One episode in a worker, on its env for `which` (made at its first episode there)."""
    w = _WORKER
    if which not in w:
        w[which] = make_env(which, w["preprocessing"])
    return run_episode(
        w[which], w["policy"], seed, sample, sample_seed, w["distribution"], max_decisions
    )


class EvaluationPool:
    """Worker processes that play episodes of one checkpoint, on either env: start-up (torch's
    import, the policy's load) is paid once for several evaluations. A context manager."""

    def __init__(self, path: str, workers: int):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.path = path
        context = multiprocessing.get_context("spawn")  # no fork of a process with torch threads
        self.pool = ProcessPoolExecutor(
            workers, mp_context=context, initializer=_start_worker, initargs=(path,)
        )

    def run(
        self,
        which: str,
        seeds: list[int],
        sample: bool = False,
        sample_seed: int = 0,
        max_decisions: int | None = None,
        on_episode: Any = None,
    ) -> list[float]:
        """Each seed's return, in `seeds` order; `on_episode(seed, ret)` as each episode ends
        (else each seed's line is printed)."""
        from concurrent.futures import as_completed

        futures = {
            self.pool.submit(_worker_episode, which, seed, sample, sample_seed, max_decisions): seed
            for seed in seeds
        }
        by_seed: dict[int, float] = {}
        for future in as_completed(futures):
            seed = futures[future]
            by_seed[seed] = future.result()
            if on_episode is None:
                print(f"seed {seed}: {by_seed[seed]:.2f}", flush=True)
            else:
                on_episode(seed, by_seed[seed])
        return [by_seed[seed] for seed in seeds]

    def close(self) -> None:
        self.pool.shutdown()

    def __enter__(self) -> EvaluationPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def evaluate_parallel(
    which: str,
    path: str,
    seeds: list[int],
    workers: int,
    sample: bool = False,
    sample_seed: int = 0,
    max_decisions: int | None = None,
    on_episode: Any = None,
) -> list[float]:
    """`evaluate` over `workers` processes, one episode per task (each seed's episode draws its
    own stream, so the returns are those of one process), in `seeds` order. `on_episode(seed,
    ret)` is called as each episode ends (a progress bar); without it each seed's line is
    printed as `evaluate` prints it."""
    if workers <= 1 or len(seeds) <= 1:
        return evaluate(
            which, path, seeds, sample, sample_seed, None, max_decisions, on_episode=on_episode
        )
    with EvaluationPool(path, min(workers, len(seeds))) as pool:
        return pool.run(which, seeds, sample, sample_seed, max_decisions, on_episode)


def decision_seconds(which: str, path: str, seed: int, decisions: int = 25) -> float:
    """Seconds per decision of the checkpoint on env `which` in this process (one process,
    one thread, the reset included): what an evaluation's estimate is made of."""
    import time

    torch.set_num_threads(1)
    policy, preprocessing, distribution = load_policy(path)
    env = make_env(which, preprocessing)
    try:
        start = time.perf_counter()
        run_episode(env, policy, seed, False, 0, distribution, decisions)
        return (time.perf_counter() - start) / decisions
    finally:
        env.close()


def interval95(values: list[float]) -> float:
    """Half-width of the normal-approximation 95% interval of the mean."""
    if len(values) < 2:
        return float("nan")
    return 1.96 * float(np.std(values, ddof=1)) / math.sqrt(len(values))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--env", choices=sorted(ENV_IDS), required=True, help="the env to run on")
    p.add_argument("--checkpoint", required=True, help="a .pt2 file (save_checkpoint)")
    p.add_argument("--seeds", default="0-99", help="A-B inclusive, or a comma list")
    p.add_argument("--sample", action="store_true", help="sample actions instead of the mean")
    p.add_argument("--sample-seed", type=int, default=0, help="seed of --sample's draws")
    p.add_argument("--json", action="store_true", help="end with one JSON line of results")
    p.add_argument("--video", help="also write the first seed's episode to this mp4 file")
    p.add_argument("--workers", type=int, default=1, help="processes (not with --video)")
    p.add_argument(
        "--max-decisions", type=int, help="stop each episode after this many (quick checks)"
    )
    args = p.parse_args(argv)
    seeds = parse_seeds(args.seeds)
    if args.video is not None and args.workers > 1:
        p.error("--video records in one process: leave --workers at 1")
    if args.workers > 1:
        returns = evaluate_parallel(
            args.env, args.checkpoint, seeds, args.workers, args.sample, args.sample_seed,
            args.max_decisions,
        )  # fmt: skip
    else:
        returns = evaluate(
            args.env, args.checkpoint, seeds, args.sample, args.sample_seed, args.video,
            args.max_decisions, functools.partial(print, flush=True),
        )  # fmt: skip
    mean = float(np.mean(returns))
    print(
        f"{args.env} ({ENV_IDS[args.env]}), {len(seeds)} episodes, "
        f"{'sampled' if args.sample else 'mean'} actions: mean {mean:.2f} "
        f"± {interval95(returns):.2f} (95%)"
    )
    if args.json:
        print(json.dumps({"env": args.env, "seeds": seeds, "returns": returns, "mean": mean}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
