"""`reinfors_gym.keep_freed_memory`: glibc keeps the memory a loop frees for its next
allocations, which takes the page faults out of a policy's calls between steps. Each measuring
case runs in its own process: the settings hold for a whole process and cannot be undone."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

import reinfors_gym as rf
from reinfors_gym import allocator

glibc_only = pytest.mark.skipif(
    platform.libc_ver()[0] != "glibc", reason="the settings are glibc's; elsewhere a no-op"
)

# A synchronous loop: blocks shaped as a small CNN's activations on a batch of 8 frames (the
# float frames, the first convolution's output), freed before the step, then the step. Prints
# the page faults per iteration once warm.
LOOP = """
import resource
import numpy as np
import reinfors_gym
if {keep}:
    reinfors_gym.keep_freed_memory()
env = reinfors_gym.CarRacingVectorEnv(8)
obs = env.reset(seed=0)[0]
def policy(obs):
    frames = obs.astype(np.float32) / 255.0
    hidden = np.ones((8, 32, 23, 23), np.float32)
    del frames, hidden
    return np.tile([0.0, 0.3, 0.0], (8, 1))
def rounds(n):
    global obs
    for _ in range(n):
        obs = env.step(policy(obs))[0]
rounds(20)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
rounds(100)
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 100)
"""


def faults_per_iteration(keep: bool, env: dict[str, str] | None = None) -> float:
    done = subprocess.run(
        [sys.executable, "-c", LOOP.format(keep=keep)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return float(done.stdout.split()[-1])


@glibc_only
def test_keeping_freed_memory_takes_the_page_faults_out_of_a_policy_loop():
    """Adaptive thresholds hand the frames' blocks back every iteration and fault them in again
    (about 400 pages an iteration, measured); the fixed ones keep them."""
    adaptive = faults_per_iteration(keep=False)
    kept = faults_per_iteration(keep=True)
    assert adaptive > 100, adaptive
    assert kept < 5, (kept, adaptive)


@glibc_only
def test_the_environment_variables_are_the_same_settings_without_a_code_change():
    assert faults_per_iteration(keep=False, env=allocator.ENVIRONMENT) < 5


def test_the_environment_variables_are_glibcs_names_with_the_settings_values():
    assert allocator.ENVIRONMENT == {
        "MALLOC_MMAP_THRESHOLD_": "33554432",
        "MALLOC_TRIM_THRESHOLD_": "1073741824",
        "MALLOC_TOP_PAD_": "268435456",
    }


@glibc_only
def test_it_says_what_it_set():
    # In this process too: the settings only make glibc keep more of what is freed.
    assert rf.keep_freed_memory() == (
        "allocator: glibc keeps freed memory "
        "(mmap threshold 32 MiB, trim threshold 1024 MiB, top pad 256 MiB)"
    )


def test_elsewhere_it_changes_nothing_and_says_so(monkeypatch):
    monkeypatch.setattr(platform, "libc_ver", lambda: ("musl", "1.2"))

    def no_library(*_args, **_kwargs):
        raise AssertionError("no C library may be loaded where it is not glibc")

    monkeypatch.setattr(allocator.ctypes, "CDLL", no_library)
    assert rf.keep_freed_memory() == "allocator: unchanged (not glibc)"


def test_a_refused_setting_is_an_error_that_names_it(monkeypatch):
    class Refusing:
        @staticmethod
        def mallopt(param: int, _value: int) -> int:
            return 0 if param == allocator.M_TOP_PAD else 1

    monkeypatch.setattr(platform, "system", lambda: "Linux")
    monkeypatch.setattr(platform, "libc_ver", lambda: ("glibc", "2.36"))
    monkeypatch.setattr(allocator.ctypes, "CDLL", lambda *_a, **_k: Refusing())
    with pytest.raises(OSError, match="refused the top pad"):
        rf.keep_freed_memory()


def test_the_docs_quote_the_environment_variables_as_they_are():
    from pathlib import Path

    docs = Path(__file__).resolve().parent.parent / "docs"
    line = " ".join(f"{name}={value}" for name, value in allocator.ENVIRONMENT.items())
    for page in ("vector_env.md", "troubleshooting.md", "training.md"):
        text = " ".join((docs / page).read_text().split())  # lines wrapped anywhere
        assert line in text, page
