"""Mirroring NumPy's PCG64 generator state to and from the Rust core.

The environment's `np_random` stays the single source of truth, as in Gymnasium: the core
imports its state, draws the track from it, and the state after those draws is written back.
"""

from __future__ import annotations

import numbers

import numpy as np

from .errors import InvalidSeed

RngState = tuple[int, int, bool, int]


def export_state(generator: np.random.Generator) -> RngState:
    """`(state, inc, has_uint32, uinteger)` of a PCG64-backed generator."""
    state = generator.bit_generator.state
    if state.get("bit_generator") != "PCG64":
        raise TypeError(
            "np_random must be backed by numpy.random.PCG64 (Gymnasium's default), "
            f"got {state.get('bit_generator')!r}"
        )
    inner = state["state"]
    return (
        int(inner["state"]),
        int(inner["inc"]),
        bool(state["has_uint32"]),
        int(state["uinteger"]),
    )


def import_state(generator: np.random.Generator, rng_state: RngState) -> None:
    """Writes a core generator state back into `generator`."""
    state, inc, has_uint32, uinteger = rng_state
    generator.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": state, "inc": inc},
        "has_uint32": int(has_uint32),
        "uinteger": uinteger,
    }


def check_seed(seed: object) -> int | None:
    """Gymnasium's seed rule: None or a non-negative int of any size (`True` is the int 1, as
    there). NumPy integer scalars are accepted as the ints they hold. One rule for the single
    env, the vector env (per sub-env) and the Engine."""
    if seed is None:
        return None
    if not isinstance(seed, numbers.Integral):
        raise InvalidSeed(
            f"seed must be None or a non-negative int, got {type(seed).__name__} {seed!r}"
        )
    if int(seed) < 0:
        raise InvalidSeed(f"seed must be a non-negative int, got {int(seed)}")
    return int(seed)


def seed_words(seed: int) -> list[int]:
    """The 32-bit words NumPy's `SeedSequence(seed)` hashes (least significant first)."""
    words = [seed & 0xFFFFFFFF]
    seed >>= 32
    while seed:
        words.append(seed & 0xFFFFFFFF)
        seed >>= 32
    return words
