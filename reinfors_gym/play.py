"""Drive the car with the keyboard, in a window: Gymnasium's `python car_racing.py` for ours.

    python -m reinfors_gym.play [--seed SEED] [--domain-randomize]

Keys, as in Gymnasium's `car_racing.py`: the left and right arrows steer (-1 and +1 while held),
the up arrow accelerates (gas 1), the down arrow brakes (0.8); Enter restarts the episode, Esc or
closing the window quits. Episodes run until the lap is finished or the car leaves the
playfield (no time limit, as in Gymnasium's script), then the next one starts. The step count and
the episode's return are printed every 200 steps and at the end of each episode.

Needs pygame (`pip install ".[human]"` in a checkout). Without a display, set
`SDL_VIDEODRIVER=dummy`: the window is then drawn off screen.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .car_racing import CarRacingEnv

#: Brake while the down arrow is held (Gymnasium's 0.8; 1.0 would lock the wheels).
BRAKE = 0.8
#: Steps between progress lines.
PRINT_EVERY = 200


class Keyboard:
    """The action the held keys give, and the restart and quit requests, from pygame events."""

    def __init__(self) -> None:
        import pygame

        self._pg = pygame
        #: `[steer, gas, brake]`, updated in place as keys go down and up.
        self.action = np.zeros(3, dtype=np.float64)
        self.restart = False
        self.quit = False

    def handle(self, event: Any) -> None:
        pg = self._pg
        if event.type == pg.KEYDOWN:
            if event.key == pg.K_LEFT:
                self.action[0] = -1.0
            elif event.key == pg.K_RIGHT:
                self.action[0] = +1.0
            elif event.key == pg.K_UP:
                self.action[1] = 1.0
            elif event.key == pg.K_DOWN:
                self.action[2] = BRAKE
            elif event.key == pg.K_RETURN:
                self.restart = True
            elif event.key == pg.K_ESCAPE:
                self.quit = True
        elif event.type == pg.KEYUP:
            if event.key in (pg.K_LEFT, pg.K_RIGHT):
                self.action[0] = 0.0
            elif event.key == pg.K_UP:
                self.action[1] = 0.0
            elif event.key == pg.K_DOWN:
                self.action[2] = 0.0
        elif event.type == pg.QUIT:
            self.quit = True


def play(
    env: CarRacingEnv,
    events: Callable[[], Iterable[Any]] | None = None,
    seed: int | None = None,
    log: Callable[[str], None] = print,
) -> list[float]:
    """Drives `env` from the keyboard until quit; returns each episode's return.

    Args:
        env: the env to drive, usually with `render_mode="human"`.
        events: called once per step for the new input events; pygame's event queue
            (`pygame.event.get`) by default. Tests pass scripted events here.
        seed: the first episode's seed (later episodes continue its stream).
        log: where progress lines go.
    """
    import pygame

    keys = Keyboard()
    poll = events if events is not None else pygame.event.get
    returns: list[float] = []
    while not keys.quit:
        env.reset(seed=seed)
        seed = None
        keys.restart = False
        total, steps = 0.0, 0
        while True:
            for event in poll():
                keys.handle(event)
            _, reward, terminated, truncated, _ = env.step(keys.action)
            total += float(reward)
            steps += 1
            done = terminated or truncated or keys.restart or keys.quit
            if steps % PRINT_EVERY == 0 or done:
                shown = " ".join(f"{v:+0.2f}" for v in keys.action)
                log(f"step {steps} action [{shown}] return {total:+0.2f}")
            if done:
                break
        returns.append(total)
    return returns


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m reinfors_gym.play",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--seed", type=int, default=None, help="the first episode's seed")
    parser.add_argument(
        "--domain-randomize", action="store_true", help="random road and grass colours"
    )
    args = parser.parse_args(argv)
    env = CarRacingEnv(render_mode="human", domain_randomize=args.domain_randomize)
    try:
        play(env, seed=args.seed)
    finally:
        env.close()


if __name__ == "__main__":
    main()
