"""Stepping and resetting environments: one env on one thread, vector envs at equal env and
thread counts, the cost of a reset, and the memory a vector env adds (each run in a worker)."""

from __future__ import annotations

import time

from .measuring import CHUNK, EPISODE_STEPS, continuous_actions, quiet_gym, timed
from .process_memory import tree_memory_bytes


def _gymnasium_api(env, limit_here: bool):
    """`_make_single`'s closures over an env with Gymnasium's API."""
    actions = continuous_actions((4096,))

    def step(i: int) -> bool:
        _, _, terminated, truncated, _ = env.step(actions[i % 4096])
        return terminated or truncated

    return env, (lambda: env.reset(seed=0)), step, limit_here


def _make_single(variant: str):
    """One env of `variant`, its `reset()` and `step(i) -> done` closures, and whether the loop
    applies the 1000-step limit itself."""
    if variant in ("ours-gym", "gymnasium"):
        import gymnasium as gym

        if variant == "ours-gym":
            import reinfors_gym  # noqa: F401  (registers the id)
        env = gym.make("reinfors/CarRacing-v0" if variant == "ours-gym" else "CarRacing-v3")
        return _gymnasium_api(env, limit_here=False)

    if variant == "ours-raw":
        from reinfors_gym import CarRacingEnv

        # Made without gym.make, so without its TimeLimit wrapper.
        return _gymnasium_api(CarRacingEnv(), limit_here=True)

    if variant == "envpool":
        import envpool

        quiet_gym()
        env = envpool.make_gymnasium("CarRacing-v3", num_envs=1, num_threads=1, batch_size=1)
        batched = continuous_actions((4096, 1))

        def step_pool(i: int) -> bool:
            env.step(batched[i % 4096])  # EnvPool resets finished episodes itself
            return False

        return env, (lambda: env.reset()), step_pool, False

    if variant == "reinfors":
        import numpy as np
        import reinfors

        env = reinfors.Env(reinfors.games.CarRacing(max_ticks=EPISODE_STEPS), seed=0)
        discrete = np.random.default_rng(0).integers(0, 5, size=4096).tolist()

        def step_rf(i: int) -> bool:
            env.step({0: discrete[i % 4096]})
            env.observe(0)  # reinfors draws the frame when it is observed
            return env.done()

        return env, env.reset, step_rf, False

    raise ValueError(f"no single-env loop for {variant!r}")


def single(variant: str, seconds: float, warmup: float) -> dict[str, float]:
    """Single env, single thread: env steps/s with random actions and every frame drawn."""
    env, reset, step, limit_here = _make_single(variant)
    reset()
    state = {"i": 0, "t": 0}

    def chunk() -> int:
        i = state["i"]
        for k in range(i, i + CHUNK):
            done = step(k)
            state["t"] += 1
            if done or (limit_here and state["t"] >= EPISODE_STEPS):
                reset()
                state["t"] = 0
        state["i"] = i + CHUNK
        return CHUNK

    out = timed(chunk, seconds, warmup)
    if hasattr(env, "close"):
        env.close()
    return out


def make_vector(variant: str, num_envs: int, threads: int):
    """A vector env of `variant` with `num_envs` envs on `threads` threads (AsyncVectorEnv: one
    process per env, `threads` is ignored)."""
    if variant == "ours-vector":
        import reinfors_gym

        return reinfors_gym.CarRacingVectorEnv(num_envs, num_threads=threads)
    if variant == "gymnasium-async":
        import gymnasium as gym

        return gym.make_vec("CarRacing-v3", num_envs=num_envs, vectorization_mode="async")
    if variant == "envpool":
        import envpool

        quiet_gym()
        return envpool.make_gymnasium(
            "CarRacing-v3", num_envs=num_envs, num_threads=threads, batch_size=num_envs
        )
    raise ValueError(f"no vector env for {variant!r}")


def vector(
    variant: str, num_envs: int, threads: int, seconds: float, warmup: float
) -> dict[str, float]:
    """Synchronous batched stepping: env steps/s (each env's frame drawn every step)."""
    env = make_vector(variant, num_envs, threads)
    actions = continuous_actions((32, num_envs))
    env.reset(seed=0)

    def chunk() -> int:
        for a in actions:
            env.step(a)
        return len(actions) * num_envs

    out = timed(chunk, seconds, warmup)
    env.close()
    return out


def reset_cost(variant: str, resets: int) -> dict[str, float]:
    """Milliseconds per `reset(seed=i)` (a new track is generated and drawn each time)."""
    import gymnasium as gym

    if variant in ("ours-gym", "ours"):
        import reinfors_gym  # noqa: F401

        env = gym.make("reinfors/CarRacing-v0")
    elif variant == "gymnasium":
        env = gym.make("CarRacing-v3")
    else:
        raise ValueError(f"no reset loop for {variant!r}")
    for seed in range(2):  # warm-up
        env.reset(seed=1_000_000 + seed)
    start = time.perf_counter()
    for seed in range(resets):
        env.reset(seed=seed)
    elapsed = time.perf_counter() - start
    env.close()
    return {"ms_per_reset": 1000.0 * elapsed / resets, "resets": float(resets)}


def memory(variant: str, num_envs: int) -> dict[str, float]:
    """Memory added by a vector env of `num_envs` envs after reset and 20 steps (this process
    and its children, PSS), per env."""
    import gymnasium  # noqa: F401  (baseline includes the libraries every system loads)
    import numpy as np

    if variant == "ours-vector":
        import reinfors_gym  # noqa: F401
    elif variant == "envpool":
        import envpool  # noqa: F401
    before = tree_memory_bytes()
    threads = 1
    env = make_vector(variant, num_envs, threads)
    obs, _ = env.reset(seed=0)
    actions = continuous_actions((20, num_envs))
    for a in actions:
        env.step(a)
    after = tree_memory_bytes()
    env.close()
    total = after - before
    # The caller-facing batch buffers, which every system must hold in some form.
    buffers = int(np.asarray(obs).nbytes)
    return {
        "mib_per_env": total / num_envs / 2**20,
        "total_mib": total / 2**20,
        "buffers_mib": buffers / 2**20,
    }
