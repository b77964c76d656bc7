"""Shared fixtures: headless pygame, and Gymnasium's reference CarRacing-v3 side by side."""

from __future__ import annotations

import os

# Gymnasium's reference env and our human mode use pygame; CI has no display or audio.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def gym_car_racing():
    """A factory of Gymnasium's own (unwrapped) CarRacing, the behaviour reference."""
    pytest.importorskip("Box2D", reason="gymnasium[box2d] is needed for side-by-side tests")
    from gymnasium.envs.box2d.car_racing import CarRacing

    envs = []

    def make(**kwargs):
        env = CarRacing(**kwargs)
        envs.append(env)
        return env

    yield make
    for env in envs:
        env.close()
