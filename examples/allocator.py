"""`--keep-freed-memory`: glibc's allocator keeps the memory PyTorch frees, for the next tensor.

The settings and why are `reinfors_gym.allocator`'s (`reinfors_gym.keep_freed_memory`); this
module is the training scripts' option for them.
"""

from __future__ import annotations

import argparse

from reinfors_gym.allocator import SETTINGS, keep_freed_memory

__all__ = ["SETTINGS", "add_argument", "apply", "keep_freed_memory"]


def add_argument(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument(
        "--keep-freed-memory",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="have glibc's allocator keep freed tensors' memory for the next ones instead of "
        "returning it to the kernel (fewer page faults; glibc only, a no-op elsewhere)",
    )


def apply(args: argparse.Namespace) -> str | None:
    """`--keep-freed-memory`'s effect, printed; done as early as the run can (before its first
    tensors, which would otherwise be laid out under the adaptive thresholds)."""
    if not args.keep_freed_memory:
        return None
    line = keep_freed_memory()
    print(line, flush=True)
    return line
