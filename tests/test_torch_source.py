"""tools/torch_source.py: the torch wheel `make train` (and the integration virtualenvs) install.

The script runs as the Makefile runs it, with PATH and the CPU index's address set per case: a
fake `nvidia-smi` stands for a GPU, a local HTTP server for a reachable index, a closed port
for an unreachable one. Nothing is downloaded.
"""

from __future__ import annotations

import http.server
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools" / "torch_source.py"


class _TorchPage(http.server.BaseHTTPRequestHandler):
    """A simple-repository index that has a page for torch only."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.send_response(200 if self.path.rstrip("/").endswith("/torch") else 404)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def index() -> Iterator[str]:
    server = http.server.HTTPServer(("127.0.0.1", 0), _TorchPage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/whl/cpu"
    server.shutdown()
    server.server_close()


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/whl/cpu"  # nothing listens there once closed


def run(tmp_path: Path, gpu: bool, index: str) -> tuple[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    if gpu:
        fake = bin_dir / "nvidia-smi"
        fake.write_text("#!/bin/sh\nexit 0\n")
        fake.chmod(0o755)
    env = {**os.environ, "PATH": str(bin_dir), "REINFORS_TORCH_CPU_INDEX": index}
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout.strip(), done.stderr.strip()


def test_no_gpu_and_a_reachable_cpu_index_picks_the_cpu_wheel(tmp_path, index):
    args, line = run(tmp_path, gpu=False, index=index)
    assert args == f"--index-url {index}"
    assert line == f"torch: the CPU-only wheel from {index} (no GPU here)"


def test_no_gpu_and_an_unreachable_index_falls_back_to_pypi(tmp_path):
    url = closed_port_url()
    args, line = run(tmp_path, gpu=False, index=url)
    assert args == ""
    assert "PyPI's default wheel" in line and f"{url} could not be reached" in line


def test_a_gpu_gets_pypis_default_wheel_even_where_the_cpu_index_answers(tmp_path, index):
    args, line = run(tmp_path, gpu=True, index=index)
    assert args == ""
    assert line == "torch: PyPI's default wheel (CUDA), since this machine has an NVIDIA GPU"


def make_dry_run(tmp_path: Path, index: str) -> subprocess.CompletedProcess[str]:
    """`make -n -B` of the training virtualenv: its recipe and the torch layer's, expanded
    (running torch_source.py, installing nothing)."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}
    env["REINFORS_TORCH_CPU_INDEX"] = index
    env.pop("TORCH_PIP_ARGS", None)
    venv = tmp_path / "venv-train"
    return subprocess.run(
        ["make", "-n", "-B", f"{venv}/.requirements-installed", f"VENV_TRAIN={venv}",
         f"PY={sys.executable}"],
        cwd=ROOT, capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip


def torch_pins() -> dict[str, str]:
    files = [
        "examples/requirements-train.txt",
        "tests/integrations/requirements-sb3.txt",
        "tests/integrations/requirements-rllib.txt",
    ]
    return {
        name: line
        for name in files
        for line in (ROOT / name).read_text().splitlines()
        if line.startswith("torch==")
    }


def test_make_train_installs_torch_from_the_cpu_index_on_a_machine_without_a_gpu(tmp_path, index):
    done = make_dry_run(tmp_path, index)
    install = [line for line in done.stdout.splitlines() if "--target .torch-" in line]
    assert len(install) == 1, done.stdout
    layer_install = f"pip install -q --no-cache-dir --target .torch-2.15.0 --index-url {index} "
    assert layer_install in install[0]
    assert f"torch: the CPU-only wheel from {index} (no GPU here)" in done.stderr


def test_every_torch_virtualenv_takes_torch_from_the_one_layer(tmp_path, index):
    """torch is unpacked once: the virtualenv names the layer in a .pth file, and its own pip
    install (the requirements file) finds torch there instead of installing it again."""
    done = make_dry_run(tmp_path, index)
    venv_lines = [line for line in done.stdout.splitlines() if "creating " in line]
    assert len(venv_lines) == 1, done.stdout
    assert f"echo {ROOT}/.torch-2.15.0 > " in venv_lines[0]
    assert "reinfors-torch-layer.pth" in venv_lines[0]
    assert '"^torch=="' not in venv_lines[0], "torch is installed into the virtualenv itself"


def test_the_three_torch_virtualenvs_pin_the_same_torch():
    """One layer serves them all, so the pins must agree (make refuses a file that differs)."""
    pins = torch_pins()
    assert len(pins) == 3, pins
    assert set(pins.values()) == {"torch==2.15.0"}, pins
