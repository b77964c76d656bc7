"""Argument checks of `CarRacingVectorEnv`: each turns what a caller passed (an autoreset mode,
seeds, reset options, actions, sub-env ids, a timeout) into what the core takes, or raises the
package's named error before anything changes.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from ._rng import check_seed, seed_words
from .errors import InvalidAction, InvalidConfig, InvalidEnvId, InvalidSeed

CORE_AUTORESET_MODES = {
    AutoresetMode.NEXT_STEP: "next_step",
    AutoresetMode.SAME_STEP: "same_step",
    AutoresetMode.DISABLED: "disabled",
}
"""The core's name of each autoreset mode."""

RENDER_MODES = (None, "rgb_array", "state_pixels")

# Sub-env id arrays the core takes as they are.
_ID_DTYPES = (np.dtype(np.int64), np.dtype(np.int32))


def parse_autoreset_mode(mode: object) -> AutoresetMode:
    """An `AutoresetMode`, or its value or name in any case ("NextStep", "next_step", ...)."""
    if isinstance(mode, AutoresetMode):
        return mode
    if isinstance(mode, str):
        key = mode.replace("_", "").replace("-", "").lower()
        for m in AutoresetMode:
            if key in (m.value.lower(), m.name.replace("_", "").lower()):
                return m
    raise InvalidConfig(
        f"autoreset_mode must be one of {[m.value for m in AutoresetMode]}, got {mode!r}"
    )


def check_render_mode(render_mode: str | None) -> str | None:
    if render_mode not in RENDER_MODES:
        raise InvalidConfig(
            f"render_mode must be None, 'rgb_array' or 'state_pixels', got {render_mode!r}"
        )
    return render_mode


def check_batch_size(batch_size: object, num_envs: int) -> int:
    """Sub-envs per `recv`: 1 to `num_envs` (None: `num_envs`)."""
    if batch_size is None:
        return num_envs
    if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral):
        raise InvalidConfig(f"batch_size must be an int or None, got {batch_size!r}")
    if not 1 <= batch_size <= num_envs:
        raise InvalidConfig(
            f"batch_size must be between 1 and num_envs={num_envs}, got {batch_size}"
        )
    return int(batch_size)


def seed_list(seed: object, num_envs: int) -> list[int | None]:
    """Gymnasium's vector rule: an int seeds sub-env i with `seed + i`; a list gives each
    sub-env its own (None: not reseeded). Each seed follows the single env's rule."""
    if seed is None:
        return [None] * num_envs
    if isinstance(seed, numbers.Integral):
        base = check_seed(seed)
        assert base is not None
        return [base + i for i in range(num_envs)]
    if isinstance(seed, (list, tuple)):
        if len(seed) != num_envs:
            raise InvalidSeed(
                f"If seeds are passed as a list the length must match num_envs="
                f"{num_envs} but got length={len(seed)}."
            )
        return [check_seed(s) for s in seed]
    raise InvalidSeed(f"seed must be None, an int or a list of ints, got {seed!r}")


def check_reset_mask(mask: object, num_envs: int) -> np.ndarray:
    if not isinstance(mask, np.ndarray):
        raise TypeError(f"`options['reset_mask']` must be a numpy array, got {type(mask)}")
    if mask.shape != (num_envs,):
        raise ValueError(
            f"`options['reset_mask']` must have shape `({num_envs},)`, got {mask.shape}"
        )
    if mask.dtype != np.bool_:
        raise TypeError(f"`options['reset_mask']` must have `dtype=np.bool_`, got {mask.dtype}")
    if not mask.any():
        raise ValueError("`options['reset_mask']` must contain at least one True value")
    return mask.copy()


def reset_args(
    seed: object, options: object, num_envs: int
) -> tuple[list[int | None], np.ndarray | None, bool | None]:
    """A reset's seeds (one per sub-env), its mask (None: every sub-env) and its `randomize`
    option (None: not given)."""
    seeds = seed_list(seed, num_envs)
    mask = None
    randomize = None
    if options is not None:
        if not isinstance(options, dict):
            raise TypeError(f"options must be a dict or None, got {type(options).__name__}")
        if "reset_mask" in options:
            # Popped from the caller's dict, as Gymnasium's vector envs do: wrappers read
            # it after the env's reset (RecordEpisodeStatistics then resets every sub-env's
            # statistics, not the masked ones).
            mask = check_reset_mask(options.pop("reset_mask"), num_envs)
        if "randomize" in options:
            randomize = bool(options["randomize"])
    return seeds, mask, randomize


def masked_seed_words(seeds: list[int | None], mask: np.ndarray | None) -> list[list[int] | None]:
    """Each sub-env's seed as the core takes it; None where it is not reseeded or masked out."""
    return [
        None if s is None or (mask is not None and not mask[i]) else seed_words(s)
        for i, s in enumerate(seeds)
    ]


def coerce_actions(actions: Any, n: int, continuous: bool, check_values: bool = True) -> np.ndarray:
    """The actions for `n` sub-envs as the core takes them: `(n, 3)` float64 or `(n,)`
    int64, C-contiguous. Shapes and dtypes are always checked; values (NaN/inf, the
    discrete range) only with `check_values`, as the core checks them too before it
    touches any sub-env."""
    a = actions if type(actions) is np.ndarray else np.asarray(actions)
    kind = a.dtype.kind
    if continuous:
        if a.shape != (n, 3):
            raise InvalidAction(f"actions must have shape ({n}, 3), got {a.shape}")
        if kind not in "fiu":
            raise InvalidAction(f"actions must be a float array, got dtype {a.dtype}")
        if a.dtype != np.float64 or not a.flags.c_contiguous:
            a = np.ascontiguousarray(a, dtype=np.float64)
        if check_values and not np.isfinite(a).all():
            bad = sorted({int(i) for i in np.argwhere(~np.isfinite(a))[:, 0]})
            raise InvalidAction(f"actions must be finite; sub-envs {bad} have NaN/inf")
        return a
    if a.shape != (n,) or kind not in "iu":
        raise InvalidAction(
            f"discrete actions must be integers of shape ({n},), got {a.shape} {a.dtype}"
        )
    if check_values and ((a < 0) | (a >= 5)).any():
        raise InvalidAction(f"discrete actions must be in {{0, 1, 2, 3, 4}}, got {a.tolist()}")
    if a.dtype != np.int64 or not a.flags.c_contiguous:
        a = np.ascontiguousarray(a, dtype=np.int64)
    return a


def env_id_array(env_id: Any, num_envs: int) -> np.ndarray:
    """`env_id` as a 1-D int32/int64 array (the core checks range, repeats and flight)."""
    if type(env_id) is np.ndarray and env_id.ndim == 1 and env_id.dtype in _ID_DTYPES:
        return env_id
    ids = np.asarray(env_id)
    if ids.ndim == 0:
        ids = ids.reshape(1)
    if ids.ndim != 1 or ids.dtype.kind not in "iu":
        raise InvalidEnvId(f"env_id must be integers of shape (k,), got {ids.shape} {ids.dtype}")
    if ids.dtype.kind == "u" and len(ids) and ids.max() >= num_envs:
        bad = sorted({int(i) for i in ids if i >= num_envs})
        raise InvalidEnvId(f"env_id {bad} out of range: sub-envs are 0 to {num_envs - 1}")
    return ids.astype(np.int64, copy=False)


def checked_timeout(timeout: object) -> float | None:
    """A wait's timeout in seconds (None: no limit)."""
    if timeout is not None and not (isinstance(timeout, numbers.Real) and timeout >= 0):
        raise ValueError(f"timeout must be a non-negative number of seconds, got {timeout!r}")
    return None if timeout is None else float(timeout)
