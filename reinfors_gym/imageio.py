"""Writing frames as PNG without extra dependencies (zlib and struct are in the stdlib)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def encode_png(image: np.ndarray) -> bytes:
    """PNG bytes of an `(H, W, 3)` uint8 RGB image."""
    img = np.ascontiguousarray(image)
    if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 image, got {img.shape} {img.dtype}")
    h, w, _ = img.shape
    # Filter type 0 (none) before every row.
    raw = np.concatenate([np.zeros((h, 1), np.uint8), img.reshape(h, w * 3)], axis=1)
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(raw.tobytes(), 6))
        + _chunk(b"IEND", b"")
    )


def write_png(path: str | Path, image: np.ndarray) -> Path:
    """Writes `image` to `path` (parents created) and returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode_png(image))
    return path


def frame_strip(frames: list[np.ndarray], gap: int = 4, scale: int = 1) -> np.ndarray:
    """Frames side by side on a white background, each enlarged `scale` times."""
    frames = [np.repeat(np.repeat(f, scale, axis=0), scale, axis=1) for f in frames]
    h = max(f.shape[0] for f in frames)
    w = sum(f.shape[1] for f in frames) + gap * (len(frames) - 1)
    strip = np.full((h, w, 3), 255, np.uint8)
    x = 0
    for f in frames:
        strip[: f.shape[0], x : x + f.shape[1]] = f
        x += f.shape[1] + gap
    return strip
