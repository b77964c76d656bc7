"""glibc's allocator keeping freed memory for the next allocation, instead of returning it.

By default glibc returns a freed block to the kernel when it is large (above a threshold that
adapts, up to 32 MiB) or when the free space at the top of its heap passes twice that. A
policy's forward pass and a PPO update allocate and free blocks of hundreds of KiB to several
MiB each call, and the step between two calls allocates and frees its own, so the heap's top is
handed back and taken again: the next tensors come back from the kernel one zeroed page at a
time, each through a page fault. Fixed thresholds (`mallopt`, as ``MALLOC_MMAP_THRESHOLD_`` and
friends would at start-up) keep those blocks in the heap. The settings hold for the whole
process and cannot be undone; they only make it keep more of what it frees.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

__all__ = ["ENVIRONMENT", "SETTINGS", "keep_freed_memory"]

# mallopt's parameter numbers (glibc's malloc.h).
M_TRIM_THRESHOLD = -1
M_TOP_PAD = -2
M_MMAP_THRESHOLD = -3

MIB = 1 << 20
#: The settings: blocks up to glibc's largest mmap threshold come from the heap; the heap's top
#: is returned to the kernel only past 1 GiB free; each time the heap grows, it grows by 256 MiB
#: more than asked (address space: pages cost memory only once touched).
SETTINGS = {
    "mmap threshold": (M_MMAP_THRESHOLD, 32 * MIB),
    "trim threshold": (M_TRIM_THRESHOLD, 1024 * MIB),
    "top pad": (M_TOP_PAD, 256 * MIB),
}
#: The environment variable glibc reads at start-up for each `mallopt` parameter.
_VARIABLES = {
    M_MMAP_THRESHOLD: "MALLOC_MMAP_THRESHOLD_",
    M_TRIM_THRESHOLD: "MALLOC_TRIM_THRESHOLD_",
    M_TOP_PAD: "MALLOC_TOP_PAD_",
}
#: The same settings as environment variables, for a process started without a code change.
ENVIRONMENT = {_VARIABLES[param]: str(value) for param, value in SETTINGS.values()}


def keep_freed_memory() -> str:
    """Sets glibc's thresholds (`SETTINGS`) in this process and says what it did, in one line.

    Call it before the first large allocations (the policy's first tensors), which would
    otherwise be laid out under the adaptive thresholds. Where the C library is not glibc it
    changes nothing and says so. Raises `OSError` if glibc refuses a setting.
    """
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return "allocator: unchanged (not glibc)"
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    refused = [name for name, (param, value) in SETTINGS.items() if libc.mallopt(param, value) != 1]
    if refused:
        raise OSError(f"glibc's mallopt refused the {', '.join(refused)}")
    settings = ", ".join(f"{name} {value // MIB} MiB" for name, (_, value) in SETTINGS.items())
    return f"allocator: glibc keeps freed memory ({settings})"
