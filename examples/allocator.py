"""`--keep-freed-memory`: glibc's allocator keeps the memory PyTorch frees, for the next tensor.

By default glibc returns a freed block to the kernel when it is large (above a threshold that
adapts, up to 32 MiB) or when the free space at the top of its heap passes twice that. A PPO
update allocates and frees activations of several MiB in every minibatch, so the kernel hands
the same memory back page by page, zeroed, through a page fault each time: millions of faults
a minute, and system time the convolutions do not get. Fixed thresholds (set through `mallopt`,
as `MALLOC_MMAP_THRESHOLD_` and friends would at start-up) keep those blocks in the heap.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import platform

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


def add_argument(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument(
        "--keep-freed-memory",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="have glibc's allocator keep freed tensors' memory for the next ones instead of "
        "returning it to the kernel (fewer page faults; glibc only, a no-op elsewhere)",
    )


def keep_freed_memory() -> str:
    """Sets glibc's thresholds (`SETTINGS`) in this process; what it did, as one line. Where the
    C library is not glibc it changes nothing and says so."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return "allocator: unchanged (not glibc)"
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    refused = [name for name, (param, value) in SETTINGS.items() if libc.mallopt(param, value) != 1]
    if refused:
        raise OSError(f"glibc's mallopt refused the {', '.join(refused)}")
    settings = ", ".join(f"{name} {value // MIB} MiB" for name, (_, value) in SETTINGS.items())
    return f"allocator: glibc keeps freed memory ({settings})"


def apply(args: argparse.Namespace) -> str | None:
    """`--keep-freed-memory`'s effect, printed; done as early as the run can (before its first
    tensors, which would otherwise be laid out under the adaptive thresholds)."""
    if not args.keep_freed_memory:
        return None
    line = keep_freed_memory()
    print(line, flush=True)
    return line
