"""examples/allocator.py, train.py's `--keep-freed-memory`: glibc keeps the memory of freed
tensors for the next ones (`reinfors_gym.keep_freed_memory`, whose page faults
`tests/test_allocator.py` counts), and that changes no number of a PPO update. Each case runs in
its own process: the allocator's settings hold for a whole process and cannot be undone."""

from __future__ import annotations

import argparse
import importlib.util
import platform
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

pytestmark = pytest.mark.skipif(
    platform.libc_ver()[0] != "glibc", reason="the settings are glibc's; elsewhere a no-op"
)

# A few of the recipe's PPO updates on fixed random frames; prints the weights' bytes' hash.
UPDATES = """
import hashlib, sys
import numpy as np, torch
sys.path.insert(0, {examples!r})
import allocator, train
from ppo_carracing import ppo_update
if {keep}:
    allocator.keep_freed_memory()
torch.manual_seed(0)
torch.set_num_threads(2)
args = train.parse_args(["--precision", "fp32", "--epochs", "2", "--collect-size", "512"])
agent = train.BetaAgent(args)
optimizer = train.make_optimizer(agent, args.lr)
rng = np.random.default_rng(0)
n = args.collect_size
flat = {{
    "obs": rng.integers(0, 256, (n, args.stack_num, 96, 96), dtype=np.uint8),
    "actions": (rng.uniform(0.05, 0.95, (n, 3)) * [2, 1, 1] - [1, 0, 0]).astype(np.float32),
    "behavior_log_probs": rng.normal(-1.0, 0.1, n).astype(np.float32),
    "advantages": rng.normal(0.0, 1.0, n).astype(np.float32),
    "returns": rng.normal(0.0, 1.0, n).astype(np.float32),
}}
class Batch:
    def flat(self):
        return flat
for _ in range(3):
    ppo_update(agent, optimizer, Batch(), args, rng)
digest = hashlib.sha256()
for p in agent.parameters():
    digest.update(p.detach().numpy().tobytes())
print(digest.hexdigest())
"""


def run(script: str, keep: bool) -> str:
    code = script.format(examples=str(EXAMPLES), keep=keep)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.split()[-1]


def load_allocator():
    spec = importlib.util.spec_from_file_location("allocator", EXAMPLES / "allocator.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_keeping_freed_memory_changes_no_number_of_an_update():
    assert run(UPDATES, keep=True) == run(UPDATES, keep=False)


def test_the_option_is_the_recipe_and_says_what_it_did(capsys):
    allocator = load_allocator()
    parser = argparse.ArgumentParser()
    allocator.add_argument(parser)
    assert parser.parse_args([]).keep_freed_memory is True
    assert allocator.apply(parser.parse_args(["--no-keep-freed-memory"])) is None
    assert capsys.readouterr().out == ""
    # In this process too: the settings only make glibc keep more of what is freed.
    line = allocator.apply(parser.parse_args([]))
    assert line == (
        "allocator: glibc keeps freed memory "
        "(mmap threshold 32 MiB, trim threshold 1024 MiB, top pad 256 MiB)"
    )
    assert capsys.readouterr().out == line + "\n"
