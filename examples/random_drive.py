"""Drive reinfors/CarRacing-v0 along the track, report steps/s beside Gymnasium's CarRacing-v3,
and save a labelled strip of frames to out/random_drive.png.

A scripted track follower (`reinfors_gym.testing.TrackFollower`: pure-pursuit steering on
`env.unwrapped.track`, a speed governor on `car_state()`) drives our env; its actions are
recorded, then replayed on both envs. The strip's top row is ours, the bottom row Gymnasium's,
same seed and same actions: the same car on the same track, frame for frame.

    python examples/random_drive.py [--steps 3000] [--out out/random_drive.png]

`make demo` runs it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import reinfors_gym
from reinfors_gym.imageio import frame_strip, write_png
from reinfors_gym.testing import TrackFollower

#: Frames in the strip.
FRAMES = 8
#: Pixels per frame pixel in the strip.
SCALE = 2


def follow_track(n: int, seed: int) -> np.ndarray:
    """`n` actions of a track follower driving our env from `seed` (seed + 1, ... after an
    episode ends)."""
    env = reinfors_gym.CarRacingEnv()
    actions = np.zeros((n, 3), np.float64)
    i, episode = 0, 0
    while i < n:
        env.reset(seed=seed + episode)
        driver = TrackFollower(env.track)
        for _ in range(1000):  # the registered time limit
            car = env.car_state()
            actions[i] = driver.act(
                car["hull_position"], car["hull_angle"], car["hull_linear_velocity"]
            )
            _, _, terminated, _, _ = env.step(actions[i])
            i += 1
            if terminated or i == n:
                break
        episode += 1
    env.close()
    return actions


def drive(
    env_id: str, actions: np.ndarray, seed: int, keep_every: int
) -> tuple[float, list[np.ndarray]]:
    """Steps/s over `actions` and the observations every `keep_every` steps (and the first)."""
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


def labelled(strip: np.ndarray, title: str, captions: list[str], frame_width: int) -> np.ndarray:
    """`strip` under a title line, with a caption under each frame (Pillow draws the text;
    without Pillow the strip is returned as is)."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        return strip
    font = ImageFont.load_default(size=13)
    band, caption = 20, 18
    canvas = Image.new("RGB", (strip.shape[1], band + strip.shape[0] + caption), "white")
    canvas.paste(Image.fromarray(strip), (0, band))
    draw = ImageDraw.Draw(canvas)
    draw.text((2, 3), title, fill="black", font=font)
    for k, text in enumerate(captions):
        draw.text(
            (k * (frame_width + 4) + 2, band + strip.shape[0] + 2), text, fill="dimgray", font=font
        )
    return np.asarray(canvas)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0].rstrip(","),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--steps", type=int, default=3000, help="steps timed on reinfors-gym")
    parser.add_argument("--gym-steps", type=int, default=350, help="steps timed on Gymnasium")
    parser.add_argument("--seed", type=int, default=0, help="the track's seed")
    parser.add_argument("--out", type=Path, default=Path("out/random_drive.png"), help="PNG")
    args = parser.parse_args()

    actions = follow_track(max(args.steps, args.gym_steps), args.seed)
    ours_rate, _ = drive(reinfors_gym.ENV_ID, actions[: args.steps], args.seed, 10**9)
    print(f"{reinfors_gym.ENV_ID}: {ours_rate:9.1f} steps/s ({args.steps} steps, 1 env, 1 thread)")

    strip_actions = actions[: args.gym_steps]
    keep = max(1, args.gym_steps // (FRAMES - 1))
    _, ours_frames = drive(reinfors_gym.ENV_ID, strip_actions, args.seed, keep)
    try:
        gym_rate, gym_frames = drive("CarRacing-v3", strip_actions, args.seed, keep)
    except gym.error.DependencyNotInstalled as e:
        print(f"Gymnasium CarRacing-v3 unavailable ({e}); install gymnasium[box2d] to compare")
        gym_frames = []
    else:
        print(f"Gymnasium CarRacing-v3:  {gym_rate:9.1f} steps/s ({args.gym_steps} steps)")
        print(f"speed-up: {ours_rate / gym_rate:.1f}x")

    width = ours_frames[0].shape[1] * SCALE
    captions = [f"step {k * keep}" for k in range(len(ours_frames))]
    rows = [
        labelled(
            frame_strip(ours_frames, scale=SCALE),
            f"reinfors-gym, {reinfors_gym.ENV_ID} (seed {args.seed}, driven by a track follower)",
            captions,
            width,
        )
    ]
    if gym_frames:
        rows.append(
            labelled(
                frame_strip(gym_frames, scale=SCALE),
                "Gymnasium CarRacing-v3 (same seed, same actions)",
                captions,
                width,
            )
        )
    path = write_png(args.out, np.concatenate(rows, axis=0))
    print(f"frames every {keep} steps (top: reinfors-gym, bottom: Gymnasium): {path}")


if __name__ == "__main__":
    main()
