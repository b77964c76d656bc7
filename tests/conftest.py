"""Shared fixtures: headless pygame, and Gymnasium's reference CarRacing-v3 side by side."""

from __future__ import annotations

import os
import warnings

# Gymnasium's reference env and our human mode use pygame; CI has no display or audio.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest  # noqa: E402

BOX2D_HINT = "the side-by-side tests need gymnasium[box2d]: pip install -e '.[test]'"


@pytest.fixture(scope="session")
def gym_car_racing():
    """A factory of Gymnasium's own (unwrapped) CarRacing, the behaviour reference."""
    # A declared test dependency: a broken install must fail, not turn into green skips.
    try:
        # As importorskip did: SWIG's import-time DeprecationWarnings, errors under this
        # suite's filterwarnings, crash the module's initialisation.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import Box2D  # noqa: F401
    except ImportError as e:
        pytest.fail(f"Box2D does not import ({e}); {BOX2D_HINT}", pytrace=False)
    from gymnasium.envs.box2d.car_racing import CarRacing

    envs = []

    def make(**kwargs):
        env = CarRacing(**kwargs)
        envs.append(env)
        return env

    yield make
    for env in envs:
        env.close()
