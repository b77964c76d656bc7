"""Provenance of a measurement: the machine, the software versions and the commit it ran on,
the cores this process may use and the load average around a run."""

from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent


CPUINFO = Path("/proc/cpuinfo")


def _cpuinfo(cpuinfo: Path) -> dict[str, str]:
    """The first processor's fields of `cpuinfo` (empty where it cannot be read)."""
    fields: dict[str, str] = {}
    try:
        for line in cpuinfo.read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    return fields


def cpu_model(cpuinfo: Path = CPUINFO) -> str:
    """The CPU's model name ("AMD EPYC"), else the platform's processor or machine."""
    name = _cpuinfo(cpuinfo).get("model name")
    return name or platform.processor() or platform.machine() or "unknown"


def cpu_id(cpuinfo: Path = CPUINFO) -> str:
    """The x86 CPU's family, model and stepping: a model name such as "AMD EPYC" covers several
    generations (Zen 4 is family 25, Zen 5 family 26), which measure differently."""
    fields = _cpuinfo(cpuinfo)
    parts = [f"{key} {fields[key]}" for key in ("cpu family", "model", "stepping") if key in fields]
    return ", ".join(parts) or "unknown"


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _commit() -> str:
    def git(*args: str) -> str:
        out = subprocess.run(
            ["git", "--no-optional-locks", *args],
            cwd=PACKAGE_ROOT,
            capture_output=True,
            text=True,
            timeout=10,
        )
        return out.stdout.strip() if out.returncode == 0 else ""

    try:
        commit = git("rev-parse", "--short", "HEAD")
        if not commit:
            return "unknown"
        dirty = git("status", "--porcelain", "--untracked-files=no")
        return commit + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def load_average() -> str:
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


def _simd_path() -> str:
    """Which copies of its hottest loops reinfors-gym runs here: the core picks AVX2 at run time
    where the CPU has it (and `REINFORS_GYM_DISABLE_AVX2` is unset), else the x86-64 baseline."""
    fields = _cpuinfo(CPUINFO)
    if not fields:
        return "unknown"
    flags = fields.get("flags", "").split()
    if "avx2" not in flags:
        return "baseline (no AVX2 on this CPU)"
    if os.environ.get("REINFORS_GYM_DISABLE_AVX2") is not None:
        return "baseline (REINFORS_GYM_DISABLE_AVX2 set)"
    return "AVX2 (run-time dispatch; same bytes as baseline)"


def machine_info() -> dict[str, str]:
    """Where and with what the numbers were measured."""
    return {
        "cpu": cpu_model(),
        "cpu id": cpu_id(),
        "cores": str(usable_cores()),
        "reinfors-gym simd": _simd_path(),
        "os": f"{platform.system()} {platform.release()} {platform.machine()}",
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "gymnasium": _version("gymnasium"),
        "pygame-ce": _version("pygame-ce"),
        "box2d": _version("Box2D"),
        "envpool": _version("envpool"),
        "reinfors": _version("reinfors"),
        "reinfors-gym": _version("reinfors-gym"),
        "commit": _commit(),
    }


def print_machine_info(info: dict[str, str] | None = None) -> None:
    info = info or machine_info()
    print("machine: " + "; ".join(f"{k}={v}" for k, v in info.items()))
