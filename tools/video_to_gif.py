"""Cuts a short, small GIF from an episode's mp4 (`examples/evaluate.py --video`), for the README
and docs/training.md.

    python examples/evaluate.py --env gymnasium --checkpoint examples/checkpoints/carracing_ppo.pt2 \\
        --seeds 7000 --video out/drive.mp4
    python tools/video_to_gif.py out/drive.mp4 docs/img/train_policy_drive.gif

Keeps `--seconds` from `--start`, every `--every`-th frame, downscaled by `--shrink` (box
average), looping forever. Needs imageio with its ffmpeg plugin (the examples' requirements)
and Pillow.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def shrink(frame: np.ndarray, factor: int) -> np.ndarray:
    """Box-average downscale by an integer factor (edges that do not divide are cropped)."""
    h, w = (frame.shape[0] // factor) * factor, (frame.shape[1] // factor) * factor
    blocks = frame[:h, :w].reshape(h // factor, factor, w // factor, factor, -1)
    return blocks.mean(axis=(1, 3)).round().astype(np.uint8)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("video", type=Path, help="an mp4 from examples/evaluate.py --video")
    p.add_argument("gif", type=Path, help="the GIF to write")
    p.add_argument("--start", type=float, default=0.0, help="seconds into the video")
    p.add_argument("--seconds", type=float, default=10.0, help="length of the clip")
    p.add_argument("--every", type=int, default=3, help="keep every n-th frame")
    p.add_argument("--shrink", type=int, default=2, help="downscale factor")
    args = p.parse_args()

    import imageio.v2 as imageio
    from PIL import Image

    reader = imageio.get_reader(args.video)
    fps = float(reader.get_meta_data()["fps"])
    first, last = int(args.start * fps), int((args.start + args.seconds) * fps)
    frames = [
        Image.fromarray(shrink(np.asarray(frame)[..., :3], args.shrink))
        for i, frame in enumerate(reader)
        if first <= i < last and (i - first) % args.every == 0
    ]
    reader.close()
    if not frames:
        raise SystemExit(f"{args.video}: no frames between {args.start} s and the clip's end")
    frames[0].save(
        args.gif,
        save_all=True,
        append_images=frames[1:],
        duration=round(1000 * args.every / fps),
        loop=0,
        optimize=True,
    )
    size = args.gif.stat().st_size / 1e6
    print(
        f"{args.gif}: {len(frames)} frames, {frames[0].size[0]}x{frames[0].size[1]}, {size:.1f} MB"
    )


if __name__ == "__main__":
    main()
