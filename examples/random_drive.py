"""The main job: drive reinfors/CarRacing-v0 with random actions, report steps/s beside
Gymnasium's CarRacing-v3, and save a strip of frames (ours on top, Gymnasium's below, same
seed and same actions) to out/random_drive.png.

    python examples/random_drive.py [--steps 3000] [--out out/random_drive.png]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import reinfors_gym  # noqa: F401  (registers reinfors/CarRacing-v0)
from reinfors_gym.imageio import frame_strip, write_png


def smooth_random_actions(n: int, seed: int) -> np.ndarray:
    """Random [steer, gas, brake] that change smoothly, so the car actually drives somewhere."""
    rng = np.random.default_rng(seed)
    raw = rng.uniform([-1, 0, 0], [1, 1, 0.3], size=(n + 20, 3))
    kernel = np.ones(20) / 20
    smooth = np.stack([np.convolve(raw[:, i], kernel, mode="valid")[:n] for i in range(3)], 1)
    return smooth.astype(np.float32)


def drive(env_id: str, actions: np.ndarray, seed: int, keep_every: int) -> tuple[float, list]:
    env = gym.make(env_id)
    obs, _ = env.reset(seed=seed)
    frames = [obs]
    start = time.perf_counter()
    for i, a in enumerate(actions):
        obs, _, terminated, truncated, _ = env.step(a)
        if (i + 1) % keep_every == 0:
            frames.append(obs)
        if terminated or truncated:
            obs, _ = env.reset()
    rate = len(actions) / (time.perf_counter() - start)
    env.close()
    return rate, frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000, help="steps for reinfors-gym")
    parser.add_argument("--gym-steps", type=int, default=300, help="steps for Gymnasium")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("out/random_drive.png"))
    args = parser.parse_args()

    actions = smooth_random_actions(max(args.steps, args.gym_steps), args.seed)
    ours_rate, _ = drive("reinfors/CarRacing-v0", actions[: args.steps], args.seed, 10**9)
    print(f"reinfors/CarRacing-v0: {ours_rate:9.1f} steps/s ({args.steps} steps, 1 env, 1 thread)")

    strip_actions = actions[: args.gym_steps]
    keep = max(1, args.gym_steps // 7)
    _, ours_frames = drive("reinfors/CarRacing-v0", strip_actions, args.seed, keep)
    try:
        gym_rate, gym_frames = drive("CarRacing-v3", strip_actions, args.seed, keep)
    except gym.error.DependencyNotInstalled as e:
        print(f"Gymnasium CarRacing-v3 unavailable ({e}); install gymnasium[box2d] to compare")
        gym_rate, gym_frames = float("nan"), []
    else:
        print(f"Gymnasium CarRacing-v3:  {gym_rate:9.1f} steps/s ({args.gym_steps} steps)")
        print(f"speed-up: {ours_rate / gym_rate:.1f}x")

    rows = [frame_strip(ours_frames, scale=2)]
    if gym_frames:
        rows.append(np.full((8, rows[0].shape[1], 3), 255, np.uint8))
        rows.append(frame_strip(gym_frames, scale=2))
    path = write_png(args.out, np.concatenate(rows, axis=0))
    print(f"frames every {keep} steps (top: reinfors-gym, bottom: Gymnasium): {path}")


if __name__ == "__main__":
    main()
