"""The memory a measurement adds: this process and its descendants (the worker processes of an
`AsyncVectorEnv`), read from /proc."""

from __future__ import annotations

import os
from pathlib import Path


def _memory_kib(pid: int) -> int:
    """Proportional set size of one process (shared pages split between sharers), else RSS."""
    for name, field in (("smaps_rollup", "Pss:"), ("status", "VmRSS:")):
        kib = _field_kib(Path(f"/proc/{pid}/{name}"), field)
        if kib is not None:
            return kib
    return 0


def _field_kib(path: Path, field: str) -> int | None:
    """The KiB of the line starting with `field` in a /proc file, or None."""
    try:
        for line in path.read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def tree_memory_bytes() -> int:
    """Memory of this process and all its descendants (PSS where the kernel reports it)."""
    pid = os.getpid()
    return 1024 * sum(_memory_kib(p) for p in [pid, *_descendants(pid)])
