"""The `infer` contract's checks (see `engine`'s docstring): the caller's callable, and what it
returns turned into the float32 arrays the core takes, or refused with an error naming what is
wrong before a game steps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Infer = Callable[[np.ndarray], Any]
"""``infer(obs) -> (policy_outputs, values)``: the caller's network."""


def check_infer(infer: object) -> None:
    if not callable(infer):
        raise TypeError(
            "infer must be callable: infer(obs) -> (policy_outputs, values), got "
            f"{type(infer).__name__}"
        )


def checked_outputs(
    out: Any, n: int, policy_outputs: int, continuous: bool, distribution: str
) -> tuple[np.ndarray, np.ndarray]:
    """`infer`'s return value for `n` observations as `(policy (n, policy_outputs), values
    (n,))`, C-contiguous float32, checked against the contract."""
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(
            "infer must return (policy_outputs, values); got "
            f"{type(out).__name__}{'' if not hasattr(out, '__len__') else f' of {len(out)}'}"
        )
    policy, values = out
    k = policy_outputs
    first, second = ("alpha", "beta") if distribution == "beta" else ("mean", "log_std")
    if continuous and isinstance(policy, (tuple, list)) and not _has_shape(policy, (n, k)):
        # A (mean, log_std) or (alpha, beta) pair; any other sequence (a list of n rows of
        # 6 numbers) is an array-like read as one array below.
        if len(policy) != 2:
            raise ValueError(
                f"continuous policy outputs must be ({n}, 6) or ({first}, {second}), got a "
                f"{type(policy).__name__} of {len(policy)}"
            )
        head = _as_f32(policy[0], first)
        tail = np.broadcast_to(_as_f32(policy[1], second), head.shape)
        policy = np.concatenate([head, tail], axis=-1)
    policy = _as_f32(policy, "policy outputs")
    if policy.shape != (n, k):
        what = "logits over 5 actions" if k == 5 else f"{first}[3] then {second}[3]"
        raise ValueError(
            f"infer must return policy outputs of shape ({n}, {k}) ({what}), got {policy.shape}"
        )
    values = _as_f32(values, "values")
    if values.shape == (n, 1):
        values = values[:, 0]
    if values.shape != (n,):
        raise ValueError(
            f"infer must return values of shape ({n},) or ({n}, 1), got {values.shape}"
        )
    if not (np.isfinite(policy).all() and np.isfinite(values).all()):
        raise ValueError("infer returned NaN or infinite policy outputs or values")
    return np.ascontiguousarray(policy), np.ascontiguousarray(values)


def _has_shape(x: Any, shape: tuple[int, ...]) -> bool:
    """Whether `x` reads as one numeric array of `shape` (a ragged sequence does not)."""
    try:
        return bool(np.shape(x) == shape)
    except ValueError:  # ragged, e.g. (mean (n, 3), log_std (3,))
        return False


def _as_f32(x: Any, what: str) -> np.ndarray:
    try:
        arr = np.asarray(x)
    except Exception as e:  # noqa: BLE001 - e.g. CUDA tensors
        raise TypeError(
            f"infer's {what} must be NumPy-convertible (for PyTorch: .detach().cpu().numpy())"
        ) from e
    if not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise TypeError(f"infer's {what} must be numeric, got dtype {arr.dtype}")
    # Beyond float32's range a value becomes inf, which the finiteness check then refuses.
    with np.errstate(over="ignore", invalid="ignore"):
        return arr.astype(np.float32, copy=False)
