"""Smoke test of an installed wheel, run by `tools/check_wheel.py` in a fresh virtualenv.

Not a pytest module (the main suite tests the development build): a plain script that exits
non-zero on the first failed check. It must run where no Rust toolchain is reachable, from a
folder outside the source tree, so the package it imports is the wheel's.
"""

from __future__ import annotations

import shutil
import sys
import sysconfig
import warnings
from pathlib import Path


def main() -> None:
    for tool in ("cargo", "rustc", "rustup"):
        assert shutil.which(tool) is None, f"{tool} is on PATH: {shutil.which(tool)}"

    import gymnasium as gym
    import numpy as np
    from gymnasium.utils.env_checker import check_env

    import reinfors_gym as rf

    site = Path(sysconfig.get_paths()["platlib"]).resolve()
    where = Path(rf.__file__).resolve()
    assert site in where.parents, f"imported {where}, not the wheel installed in {site}"
    print(f"reinfors_gym {rf.__version__} from {where.parent}")
    print(f"python {sys.version.split()[0]}, gymnasium {gym.__version__}, numpy {np.__version__}")

    # The single env: Gymnasium's checker, warnings as errors (as in tests/test_env_api.py).
    # Its render check opens every render mode, "human" included, which needs pygame (the
    # `human` extra, not installed here): the two array modes are checked by hand instead.
    for continuous in (True, False):
        env = gym.make("reinfors/CarRacing-v0", continuous=continuous)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env.unwrapped, skip_render_check=True)
        env.close()
    for mode, shape in (("rgb_array", (400, 600, 3)), ("state_pixels", (96, 96, 3))):
        env = gym.make("reinfors/CarRacing-v0", render_mode=mode)
        env.reset(seed=1)
        frame = env.render()
        assert frame.shape == shape and frame.dtype == np.uint8, (mode, frame.shape)
        env.close()
    print("check_env: passed (continuous and discrete); rgb_array and state_pixels render")

    # The vector env: 100 steps of random actions, shapes and values sane.
    envs = gym.make_vec("reinfors/CarRacing-v0", num_envs=4, num_threads=2)
    assert type(envs).__name__ == "CarRacingVectorEnv", type(envs)
    obs, _ = envs.reset(seed=0)
    envs.action_space.seed(0)
    total = np.zeros(4)
    for _ in range(100):
        obs, reward, terminated, truncated, _ = envs.step(envs.action_space.sample())
        total += reward
    assert obs.shape == (4, 96, 96, 3) and obs.dtype == np.uint8, (obs.shape, obs.dtype)
    assert np.isfinite(total).all() and obs.std() > 0, total
    envs.close()
    print(f"vector env: 100 steps x 4 envs, returns {np.round(total, 2).tolist()}")

    # The collector: one batch with a fixed policy.
    engine = rf.Engine(game=rf.games.CarRacing(channels_first=True), n_games=4, n_threads=2, seed=0)

    def infer(o: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = len(o)
        policy = np.tile(np.array([0.0, 0.5, 0.0, -1.0, -1.0, -2.0], np.float32), (n, 1))
        return policy, np.zeros(n, np.float32)

    batch = engine.collect(64, infer)
    assert batch.obs.shape == (16, 4, 3, 96, 96), batch.obs.shape
    assert batch.actions.shape == (16, 4, 3) and len(batch) == 64
    assert np.isfinite(batch.advantages).all() and np.isfinite(batch.returns).all()
    print(f"Engine.collect: {len(batch)} records, obs {batch.obs.shape}")
    print("smoke test: passed")


if __name__ == "__main__":
    main()
