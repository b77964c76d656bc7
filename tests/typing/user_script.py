"""What a user writes with the accessors beyond Gymnasium's API; `tests/test_typing.py` runs mypy
on it (strict about calls, so a wrong keyword or a missing accessor is an error)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

import reinfors_gym as rf

env = gym.make("reinfors/CarRacing-v0", continuous=True)
obs, info = env.reset(seed=0)
car = rf.car_racing_env(env)  # env.unwrapped, typed as CarRacingEnv
state: dict[str, object] = car.car_state()
track: np.ndarray = car.track
visited: np.ndarray = car.tile_visited
count: int = car.tile_visited_count
reward: float = car.reward
colors: np.ndarray = car.road_colors
seconds: float = car.t
lap: bool = car.new_lap
car.lap_complete_percent = 0.5
car.domain_randomize = True
env.close()

shaped = rf.Reward(tile=1000.0, step=-0.05, off_playfield=-100.0, off_road=-0.25, skipped_tile=-5.0)
weights: tuple[float, float, float, float, float] = shaped.weights()
game = rf.games.CarRacing(continuous=True, channels_first=True)
engine = rf.Engine(game=game, reward=shaped, n_games=2, n_threads=1, seed=0)
