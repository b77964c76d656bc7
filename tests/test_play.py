"""`python -m reinfors_gym.play`: keyboard driving, tested with scripted key events.

The events go through pygame's own queue (`pygame.event.post`, then `pygame.event.get`, as the
script reads them) under SDL's dummy video driver, and the car's state says what they did.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
import pygame  # noqa: E402  (after the SDL drivers are chosen)

from reinfors_gym import CarRacingEnv  # noqa: E402
from reinfors_gym.play import BRAKE, main, play  # noqa: E402


def key(kind: int, k: int) -> Any:
    return pygame.event.Event(kind, key=k)


class Script:
    """Posts each step's scripted events to pygame's queue and reads the queue back; records
    the car's state before every step."""

    def __init__(self, env: CarRacingEnv, script: dict[int, list[Any]]):
        self.env, self.script, self.step = env, script, 0
        self.states: list[dict[str, Any]] = []

    def __call__(self) -> Iterator[Any]:
        self.states.append(self.env.car_state())
        for event in self.script.get(self.step, []):
            pygame.event.post(event)
        self.step += 1
        return iter(pygame.event.get())


@pytest.fixture
def env() -> Iterator[CarRacingEnv]:
    env = CarRacingEnv(render_mode="human")
    # Play at full speed: the window's clock would hold the test to 50 steps/s.
    env.metadata = {**env.metadata, "render_fps": 0}
    yield env
    env.close()


def speed(state: dict[str, Any]) -> float:
    return float(np.hypot(*state["hull_linear_velocity"]))


def test_keys_accelerate_steer_brake_and_quit(env: CarRacingEnv) -> None:
    down, up = pygame.KEYDOWN, pygame.KEYUP
    script = Script(
        env,
        {
            0: [key(down, pygame.K_UP)],
            60: [key(up, pygame.K_UP), key(down, pygame.K_RIGHT)],
            80: [key(up, pygame.K_RIGHT), key(down, pygame.K_LEFT)],
            100: [key(up, pygame.K_LEFT), key(down, pygame.K_DOWN)],
            130: [key(down, pygame.K_ESCAPE)],
        },
    )
    lines: list[str] = []
    returns = play(env, events=script, seed=1, log=lines.append)
    s = script.states  # s[i]: before step i, i.e. after the events of steps < i
    assert len(returns) == 1 and script.step == 131  # Esc ends the episode and the loop
    assert speed(s[0]) == 0.0
    # Up: the rear wheels get gas and the car speeds up, going straight.
    assert s[60]["wheel_gas"][2:].min() > 0.5 and s[60]["wheel_steer"][0] == 0.0
    assert speed(s[60]) > 20.0
    # Right: steer +1 (the front wheels get -1, Gymnasium's sign) and the car turns clockwise;
    # left: the other way.
    assert s[61]["wheel_steer"][0] == -1.0 and s[61]["wheel_gas"][2:].max() == 0.0
    assert s[70]["hull_angular_velocity"] < 0 and s[80]["hull_angle"] < s[60]["hull_angle"] - 0.1
    assert s[81]["wheel_steer"][0] == 1.0
    assert s[90]["hull_angular_velocity"] > 0 and s[100]["hull_angle"] > s[80]["hull_angle"] + 0.05
    # Down: every wheel brakes at 0.8 and the car slows.
    assert s[101]["wheel_steer"][0] == 0.0
    assert np.all(s[101]["wheel_brake"] == BRAKE)
    assert speed(s[130]) < 0.5 * speed(s[100])
    assert lines[-1].startswith("step 131 action [+0.00 +0.00 +0.80]")


def test_enter_restarts_and_closing_the_window_quits(env: CarRacingEnv) -> None:
    script = Script(
        env,
        {
            0: [key(pygame.KEYDOWN, pygame.K_UP)],
            30: [key(pygame.KEYDOWN, pygame.K_RETURN)],
            40: [pygame.event.Event(pygame.QUIT)],
        },
    )
    returns = play(env, events=script, seed=1, log=lambda line: None)
    assert len(returns) == 2  # Enter ended the first episode, the window's close the second
    assert returns[0] > 0  # tiles touched while driving forward
    # The restart put the car back at rest on a new track, the up arrow still held.
    assert speed(script.states[30]) > 10.0 and speed(script.states[31]) == 0.0
    assert speed(script.states[40]) > 0.0


def test_help_lists_the_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "(default: None)" in capsys.readouterr().out
