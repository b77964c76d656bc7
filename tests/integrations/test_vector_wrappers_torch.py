"""Gymnasium's NumpyToTorch vector wrapper (it needs torch, which this virtualenv has and the
main suite's does not) on our vector env beside AsyncVectorEnv over CarRacing-v3, in each
autoreset mode, compared as tests/test_vector_wrappers.py compares every other wrapper."""

from __future__ import annotations

import copy
import importlib.util
import sys
import warnings
from pathlib import Path

import gymnasium.wrappers.vector as gwv
import numpy as np
import pytest
import torch
from gymnasium.vector import AutoresetMode

_path = Path(__file__).resolve().parents[1] / "test_vector_wrappers.py"
_spec = importlib.util.spec_from_file_location("vector_wrappers", _path)
assert _spec is not None and _spec.loader is not None
wrappers = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = wrappers  # its dataclasses look their module up there
_spec.loader.exec_module(wrappers)


def _plain(value):
    """Tensors back to arrays, so the main suite's comparison applies."""
    if isinstance(value, torch.Tensor):
        return value.numpy()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value


def _rollout(env, mode):
    out = [copy.deepcopy(_plain(env.reset(seed=0)))]
    for step in range(wrappers.STEPS):
        result = _plain(env.step(torch.from_numpy(wrappers._actions(step))))
        out.append(copy.deepcopy(result))
        done = np.logical_or(result[2], result[3])
        if mode == AutoresetMode.DISABLED and done.any():
            out.append(copy.deepcopy(_plain(env.reset(options={"reset_mask": done}))))
    return out


@pytest.mark.parametrize("mode", wrappers.MODES, ids=lambda m: m.name)
def test_numpy_to_torch_equals_async_vector_env(mode):
    import Box2D  # noqa: F401  (Gymnasium's CarRacing-v3 needs it)

    pair = wrappers._Pair(mode, None)

    def outcome(env):
        # In DISABLED, the wrapper hands the bool reset_mask to torch through DLPack, which
        # refuses bools: an error, which must be the same on both envs.
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return "ok", _rollout(gwv.NumpyToTorch(env), mode)
        except Exception as e:
            return "error", (type(e).__name__, str(e))

    try:
        ours, theirs = outcome(pair.ours), outcome(pair.theirs)
        assert ours[0] == theirs[0], ours if ours[0] == "error" else theirs
        if ours[0] == "ok":
            assert isinstance(gwv.NumpyToTorch(pair.ours).reset(seed=0)[0], torch.Tensor)
            wrappers._compare(ours[1], theirs[1], 1.0)
        else:
            assert ours[1] == theirs[1]
    finally:
        pair.close()
