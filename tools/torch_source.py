"""Which PyTorch wheel a training virtualenv gets: pip's options for torch on stdout, and one
line on stderr that says which wheel and why.

    python tools/torch_source.py            # e.g. "--index-url https://download.pytorch.org/whl/cpu"

PyPI's Linux torch wheel depends on ~5 GB of CUDA libraries. On a machine without an NVIDIA GPU
(no `nvidia-smi` on PATH) they are dead weight, so the CPU-only wheel from PyTorch's own index is
chosen when that index answers; where it cannot be reached (a network that allows PyPI only),
PyPI's default wheel is the fallback. A machine with a GPU gets PyPI's default wheel, which runs
on it. The Makefile uses this unless TORCH_PIP_ARGS is given.

`REINFORS_TORCH_CPU_INDEX` overrides the CPU index's address (tests point it at a local server).
"""

from __future__ import annotations

import os
import shutil
import sys
import urllib.error
import urllib.request
from collections.abc import Callable

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
TIMEOUT_S = 10.0


def cpu_index() -> str:
    return os.environ.get("REINFORS_TORCH_CPU_INDEX", CPU_INDEX)


def has_nvidia_gpu() -> bool:
    """An NVIDIA driver is installed: `nvidia-smi` is on PATH (as PyTorch's docs check)."""
    return shutil.which("nvidia-smi") is not None


def answers(index: str, timeout: float = TIMEOUT_S) -> bool:
    """The index serves torch's page (a simple-repository index: `INDEX/torch/`)."""
    try:
        with urllib.request.urlopen(f"{index.rstrip('/')}/torch/", timeout=timeout) as reply:
            return 200 <= reply.status < 300
    except (urllib.error.URLError, OSError, ValueError):
        return False


def choose(gpu: bool, index: str, index_answers: Callable[[str], bool]) -> tuple[list[str], str]:
    """pip's options for torch and the line that says which wheel; `index_answers` is asked
    only on a machine without a GPU."""
    if gpu:
        return [], "torch: PyPI's default wheel (CUDA), since this machine has an NVIDIA GPU"
    if index_answers(index):
        return ["--index-url", index], f"torch: the CPU-only wheel from {index} (no GPU here)"
    return [], (
        f"torch: PyPI's default wheel (with ~5 GB of CUDA libraries): there is no GPU here, but "
        f"the CPU-only index {index} could not be reached"
    )


def main() -> int:
    args, line = choose(has_nvidia_gpu(), cpu_index(), answers)
    print(line, file=sys.stderr)
    print(" ".join(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
