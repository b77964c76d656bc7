"""Nothing in our install path needs box2d-py or pygame, run against an installed wheel.

Not a pytest module: a plain script run by `tools/check_wheel.py` and `tools/check_python.py`
in a fresh virtualenv that holds the wheel and its own dependencies only. It checks that
1. no Box2D binding (box2d-py, box2d), no pygame (pygame, pygame-ce) and no swig is installed:
   the wheel's dependencies pulled none of them;
2. the wheel's metadata asks for them in no default dependency (only extras may);
3. with their imports blocked, every array-producing path works: the single env in both
   array render modes and both action spaces, the vector env, the Engine's collector;
4. and none of them was imported along the way.
Gymnasium's own Box2D envs cannot install where box2d-py has no build; ours needs none.
"""

from __future__ import annotations

import importlib.abc
import importlib.metadata as md
import re
import sys

BINDINGS = ("box2d-py", "box2d", "pygame", "pygame-ce", "swig")
MODULES = ("Box2D", "pygame")


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


class Blocker(importlib.abc.MetaPathFinder):
    """Refuses to import Box2D and pygame, so any use of them fails loudly."""

    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in MODULES:
            raise ImportError(f"{fullname} is blocked: reinfors_gym must not need it")
        return None


def main() -> None:
    installed = {normalize(d.metadata["Name"]) for d in md.distributions()}
    found = sorted(installed & set(BINDINGS))
    assert not found, f"installed alongside the wheel: {found}"
    requires = md.requires("reinfors-gym") or []
    default = [r for r in requires if "extra ==" not in r]
    named = [r for r in default if normalize(re.split(r"[ ;<>=!~\[]", r)[0]) in BINDINGS]
    assert not named, f"default dependencies name {named}"
    print(f"installed: {len(installed)} distributions, none of {', '.join(BINDINGS)}")
    print(f"default dependencies: {', '.join(default)}")

    sys.meta_path.insert(0, Blocker())
    import gymnasium as gym
    import numpy as np

    import reinfors_gym as rf

    for continuous in (True, False):
        for mode in ("state_pixels", "rgb_array"):
            env = gym.make(rf.ENV_ID, continuous=continuous, render_mode=mode)
            env.reset(seed=0)
            action = np.array([0.0, 0.5, 0.0], np.float32) if continuous else 3
            for _ in range(20):
                obs, *_ = env.step(action)
            assert obs.shape == (96, 96, 3) and env.render().ndim == 3
            env.close()
    envs = gym.make_vec(rf.ENV_ID, num_envs=2, num_threads=2)
    envs.reset(seed=0)
    for _ in range(20):
        envs.step(np.tile([0.0, 0.5, 0.0], (2, 1)).astype(np.float32))
    envs.close()
    engine = rf.Engine(game=rf.games.CarRacing(), n_games=2, n_threads=1, seed=0)

    def infer(o: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = len(o)
        return np.tile([0.0, 0.5, 0.0, -1.0, -1.0, -2.0], (n, 1)), np.zeros(n)

    assert len(engine.collect(16, infer)) == 16
    imported = sorted(m for m in sys.modules if m.split(".")[0] in MODULES)
    assert not imported, f"imported: {imported}"
    print("single env, vector env and Engine ran with Box2D and pygame blocked: passed")


if __name__ == "__main__":
    main()
