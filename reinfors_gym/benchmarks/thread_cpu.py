"""Who used the CPU during a measurement: the calling thread, the pool's helper threads, and
every other thread of the process (a policy's OpenMP workers, EnvPool's threads), read from
/proc/self/task. A loop whose other threads burn a core's worth of CPU per iteration left its
env step no second core, whatever the step could do with one. Beside it, the process's page
faults (`page_faults`): CPU time the kernel spends handing memory back to the measurement.

Linux only: elsewhere `snapshot` is empty and `split` gives nothing (`page_faults` also counts
on other POSIX systems).
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass
from pathlib import Path

#: The pool's helper threads carry this name (rust/src/runtime/executor.rs).
HELPER_PREFIX = "reinfors-gym"
TASKS = Path("/proc/self/task")


@dataclass(frozen=True)
class ThreadTimes:
    name: str
    cpu_ns: int
    involuntary_switches: int


def _read(task: Path) -> ThreadTimes | None:
    try:
        name = (task / "comm").read_text().strip()
        cpu_ns = int((task / "schedstat").read_text().split()[0])
        status = (task / "status").read_text()
    except (OSError, ValueError, IndexError):
        return None  # the thread ended, or this kernel keeps no schedstat
    switches = next(
        (int(line.split()[1]) for line in status.splitlines() if line.startswith("nonvoluntary")),
        0,
    )
    return ThreadTimes(name, cpu_ns, switches)


def snapshot() -> dict[int, ThreadTimes]:
    """Each live thread's CPU time and involuntary context switches so far, by thread id."""
    if not TASKS.is_dir():
        return {}
    out = {}
    for task in TASKS.iterdir():
        times = _read(task)
        if times is not None:
            out[int(task.name)] = times
    return out


def split(
    before: dict[int, ThreadTimes],
    after: dict[int, ThreadTimes],
    iterations: int,
    caller: int | None = None,
) -> dict[str, float]:
    """CPU milliseconds per iteration between two snapshots, by role (`caller_cpu_ms`,
    `helpers_cpu_ms`, `others_cpu_ms`), and the process's involuntary context switches per
    iteration. `caller` is the calling thread's id (default: this thread). A thread that
    started between the snapshots counts from zero; one that ended is not counted."""
    if not before or not after or iterations <= 0:
        return {}
    caller = threading.get_native_id() if caller is None else caller
    cpu = {"caller_cpu_ms": 0.0, "helpers_cpu_ms": 0.0, "others_cpu_ms": 0.0}
    switches = 0
    for tid, end in after.items():
        start = before.get(tid, ThreadTimes(end.name, 0, 0))
        if tid == caller:
            role = "caller_cpu_ms"
        elif end.name.startswith(HELPER_PREFIX):
            role = "helpers_cpu_ms"
        else:
            role = "others_cpu_ms"
        cpu[role] += (end.cpu_ns - start.cpu_ns) / 1e6
        switches += end.involuntary_switches - start.involuntary_switches
    out = {role: ms / iterations for role, ms in cpu.items()}
    out["involuntary_switches"] = switches / iterations
    return out


def page_faults() -> int | None:
    """The process's page faults so far that needed no disk (the kernel handing it a zeroed
    page, say, for memory the allocator gave back and took again); None where the platform
    keeps no such count."""
    if sys.platform == "win32":
        return None
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
