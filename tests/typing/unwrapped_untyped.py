"""`env.unwrapped.car_state()` straight off `gym.make`: mypy cannot know it (gym.make returns a
`gymnasium.Env`), which is why `reinfors_gym.car_racing_env` exists."""

import gymnasium as gym

env = gym.make("reinfors/CarRacing-v0")
env.unwrapped.car_state()
