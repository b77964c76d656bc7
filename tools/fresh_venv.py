"""A fresh virtualenv that sees no Rust toolchain, for checks of the built wheel
(tools/check_wheel.py, tools/check_python.py): whatever installs there must come as a binary."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

RUST_TOOLS = ("cargo", "rustc", "rustup")


def toolchain_free_path() -> str:
    """This PATH minus every folder that holds a Rust tool."""
    keep = [
        d
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if d and not any((Path(d) / t).exists() for t in RUST_TOOLS)
    ]
    return os.pathsep.join(keep)


def fresh_venv(python: str, venv: Path) -> tuple[str, list[str], dict[str, str]]:
    """Recreates `venv` with `python`; returns its interpreter, its quiet `pip install` command
    and an environment without Rust (PATH, CARGO_*, RUSTUP_*) or the caller's virtualenv."""
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CARGO", "RUSTUP"))}
    env.pop("VIRTUAL_ENV", None)
    env["PATH"] = os.pathsep.join([str(venv / "bin"), toolchain_free_path()])
    env["SDL_VIDEODRIVER"] = env["SDL_AUDIODRIVER"] = "dummy"
    py = str(venv / "bin" / "python")
    return py, [py, "-m", "pip", "install", "-q", "--disable-pip-version-check"], env
