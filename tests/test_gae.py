"""examples/gae.py, the examples' and benchmarks' GAE, recomputes the streaming collector's
advantages and returns from a batch's rewards, values and episode ends."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import reinfors_gym as rf

_spec = importlib.util.spec_from_file_location(
    "examples_gae", Path(__file__).resolve().parents[1] / "examples" / "gae.py"
)
assert _spec and _spec.loader
examples_gae = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(examples_gae)

GAMMA, LAM = 0.99, 0.95


def gently_forward(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A fixed Gaussian that drives gently forward; values that depend on the frame, so that
    every bootstrap (next step, final observation, after the batch) differs from the others."""
    n = len(obs)
    values = obs.reshape(n, -1)[:, ::97].mean(axis=1).astype(np.float32) / 50.0
    return np.tile([0.0, 0.5, 0.0, -1.0, -1.0, -2.0], (n, 1)), values


# A short time limit truncates episodes inside each batch (bootstrapped from their final
# observations); lap_complete_percent=0 terminates every episode on its first step.
@pytest.mark.parametrize(
    "game, end",
    [({"max_episode_steps": 25}, "truncations"), ({"lap_complete_percent": 0.0}, "terminations")],
)
def test_python_gae_recomputes_the_collectors(game, end):
    engine = rf.Engine(
        game=rf.games.CarRacing(**game),
        learner=rf.learners.Ppo(gamma=GAMMA, lam=LAM),
        n_games=3,
        n_threads=2,
        seed=0,
    )
    with engine.collect_stream(collect_size=3 * 30, infer=gently_forward) as stream:
        for _ in range(2):
            b = next(stream)
            assert getattr(b, end).any()
            targets = examples_gae.next_values(
                b.values, b.bootstrap_values, b.terminations, b.truncations, b.final_values
            )
            dones = b.terminations | b.truncations
            advantages, returns = examples_gae.gae(b.rewards, b.values, targets, dones, GAMMA, LAM)
            assert advantages.dtype == returns.dtype == np.float32
            assert np.allclose(advantages, b.advantages) and np.allclose(returns, b.returns)


def test_next_step_autoreset_bootstraps_from_the_next_value_unless_terminated():
    values = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    terminations = np.array([[True, False], [False, False]])
    targets = examples_gae.next_values(values, np.array([5.0, 6.0], np.float32), terminations)
    np.testing.assert_array_equal(targets, [[0.0, 4.0], [5.0, 6.0]])
    assert targets.dtype == np.float32
