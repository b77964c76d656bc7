"""Where a `copy=True` vector env writes each call's observations: an array it returned before
and that nothing outside holds any more, else a new one.

A loop such as ``obs = env.step(policy(obs))[0]`` drops each batch one call after it gets it.
Allocating a new batch for every call and freeing the old one makes glibc hand memory back to
the kernel and take it again, a page fault per 4 KiB, in the middle of the policy's own
allocations (`docs/vector_env.md`, *glibc's allocator*). Writing into a dropped batch instead
keeps the promise of `copy=True`: no array the caller (or anything it handed the array to: a
view, a tensor, a replay buffer) still refers to is ever written again.
"""

from __future__ import annotations

import sys

import numpy as np

#: Returned arrays kept for reuse; a loop that holds a batch or two (the latest, the one before
#: for a difference) still finds one free.
KEEP = 3


def _references(arrays: list[np.ndarray], i: int) -> int:
    return sys.getrefcount(arrays[i])


#: What `_references` reads for an array that only its list refers to. Interpreters count the
#: temporaries of a call differently (3.14 borrows some), so it is measured, not assumed; any
#: reference from outside adds one.
_ONLY_LISTED = _references([np.empty(0)], 0)


class ObservationArrays:
    """Hands out arrays shaped and typed like `template`: a kept one nobody else refers to,
    else a new one (kept in its place)."""

    def __init__(self, template: np.ndarray, keep: int = KEEP) -> None:
        self._shape, self._dtype = template.shape, template.dtype
        self._keep = keep
        self._arrays: list[np.ndarray] = []

    def next(self) -> np.ndarray:
        for i in range(len(self._arrays)):
            if _references(self._arrays, i) != _ONLY_LISTED:
                continue  # the caller, a view of it or this env's latest batch holds it
            if self._reusable(self._arrays[i]):
                return self._arrays[i]
        fresh = np.empty(self._shape, self._dtype)
        self._arrays.append(fresh)
        if len(self._arrays) > self._keep:
            del self._arrays[0]  # the oldest, held outside: it is the caller's now
        return fresh

    def _reusable(self, array: np.ndarray) -> bool:
        """Whether nothing the caller did to `array` in place (a new shape or dtype, made
        read-only) forbids writing it as a new batch."""
        flags = array.flags
        return (
            array.shape == self._shape
            and array.dtype == self._dtype
            and flags.writeable
            and flags.c_contiguous
            and flags.owndata
        )
