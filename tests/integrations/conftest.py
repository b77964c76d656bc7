"""Shared set-up of the integration suites: headless pygame (Gymnasium's reference CarRacing),
and the scripts of examples/ and bench/ loaded as modules."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def load_script() -> Callable[[str, str], ModuleType]:
    """`load_script("examples", "train")`: that script as a fresh module, imported with its
    folder on the path (where its own imports look)."""

    def load(folder: str, name: str) -> ModuleType:
        sys.path.insert(0, str(ROOT / folder))
        try:
            spec = importlib.util.spec_from_file_location(name, ROOT / folder / f"{name}.py")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        finally:
            sys.path.pop(0)
        return module

    return load
