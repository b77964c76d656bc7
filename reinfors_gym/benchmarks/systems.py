"""The systems under comparison and their like-for-like measurement loops.

Every function here runs inside a fresh worker process (see `worker.py`) and returns a dict of
numbers. Loops are written the same way for every system: actions are drawn up front from a
seeded generator (uniform over the continuous box, or uniform over the 5 discrete actions), the
observation frame is produced every step as each env does it, episodes end at 1000 steps (or
earlier by the env's own rules) and are reset, a warm-up is run and discarded, then the clock
runs for `seconds`.

Systems are grouped in families (`--systems` selects families):

- ``ours``: reinfors-gym (this package);
- ``gymnasium``: Gymnasium's ``CarRacing-v3`` (``gymnasium[box2d]``);
- ``envpool``: EnvPool's ``CarRacing-v3`` (``envpool.make_gymnasium``);
- ``reinfors``: reinfors' ``car_racing`` game (``reinfors.Env`` / ``reinfors.Engine``).
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EPISODE_STEPS = 1000
CHUNK = 64  # steps between clock reads


class Skip(Exception):
    """Raised by a measurement that cannot run here (reported as skipped, never a failure)."""


@dataclass(frozen=True)
class Variant:
    """One way of running one system (a row label in reports)."""

    name: str
    family: str
    label: str
    requires: tuple[str, ...] = ()


FAMILIES = {
    "ours": "reinfors-gym (this package)",
    "gymnasium": "Gymnasium CarRacing-v3",
    "envpool": "EnvPool CarRacing-v3",
    "reinfors": "reinfors car_racing",
}

VARIANTS = {
    v.name: v
    for v in (
        Variant("ours-gym", "ours", "reinfors-gym, gym.make"),
        Variant("ours-raw", "ours", "reinfors-gym, raw CarRacingEnv"),
        Variant("ours-vector", "ours", "reinfors-gym CarRacingVectorEnv"),
        Variant("ours-vector-discrete", "ours", "reinfors-gym vector env (discrete, raw loop)"),
        Variant("ours-engine", "ours", "reinfors-gym Engine (zero-cost infer)"),
        Variant("policy-alone", "ours", "the policy alone, no env (ceiling)", ("torch",)),
        Variant("gymnasium", "gymnasium", "Gymnasium CarRacing-v3", ("gymnasium", "Box2D")),
        Variant("gymnasium-async", "gymnasium", "Gymnasium AsyncVectorEnv", ("gymnasium", "Box2D")),
        Variant("envpool", "envpool", "EnvPool CarRacing-v3", ("envpool",)),
        Variant("reinfors", "reinfors", "reinfors Env (discrete, float CHW)", ("reinfors",)),
        Variant("reinfors-engine", "reinfors", "reinfors Engine (zero-cost infer)", ("reinfors",)),
    )
}


def missing_requirement(variant: str) -> str | None:
    """The first module `variant` needs that is not importable here, or None."""
    for module in VARIANTS[variant].requires:
        if importlib.util.find_spec(module) is None:
            return module
    return None


# --------------------------------------------------------------------------- helpers


def _quiet_gym() -> None:
    import gymnasium as gym

    gym.logger.min_level = 40  # EnvPool's spaces warn about float64 bounds at every make


def _continuous_actions(shape: tuple[int, ...], seed: int = 0):
    import numpy as np

    rng = np.random.default_rng(seed)
    low = np.array([-1.0, 0.0, 0.0], np.float32)
    high = np.array([1.0, 1.0, 1.0], np.float32)
    return rng.uniform(low, high, size=(*shape, 3)).astype(np.float32)


def _timed(step_chunk: Callable[[], int], seconds: float, warmup: float) -> dict[str, float]:
    """Runs `step_chunk` (which returns env steps done) for `warmup` seconds (discarded), then
    for `seconds`; returns steps/s."""

    def run(duration: float) -> tuple[int, float]:
        steps, start = 0, time.perf_counter()
        while True:
            steps += step_chunk()
            elapsed = time.perf_counter() - start
            if elapsed >= duration:
                return steps, elapsed

    if warmup > 0:
        run(warmup)
    steps, elapsed = run(seconds)
    return {"steps_per_s": steps / elapsed, "steps": float(steps), "seconds": elapsed}


def _memory_kib(pid: int) -> int:
    """Proportional set size of one process (shared pages split between sharers), else RSS."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def tree_memory_bytes() -> int:
    """Memory of this process and all its descendants (PSS where the kernel reports it)."""
    pid = os.getpid()
    return 1024 * sum(_memory_kib(p) for p in [pid, *_descendants(pid)])


# --------------------------------------------------------------------------- single env


def _make_single(variant: str):
    """(reset(), step(i) -> done) closures over one env of `variant`."""
    if variant in ("ours-gym", "gymnasium"):
        import gymnasium as gym

        if variant == "ours-gym":
            import reinfors_gym  # noqa: F401  (registers the id)
        env = gym.make("reinfors/CarRacing-v0" if variant == "ours-gym" else "CarRacing-v3")
        actions = _continuous_actions((4096,))

        def step(i: int) -> bool:
            _, _, terminated, truncated, _ = env.step(actions[i % 4096])
            return terminated or truncated

        return env, (lambda: env.reset(seed=0)), step, (lambda: False)

    if variant == "ours-raw":
        from reinfors_gym import CarRacingEnv

        env = CarRacingEnv()
        actions = _continuous_actions((4096,))

        def step_raw(i: int) -> bool:
            _, _, terminated, truncated, _ = env.step(actions[i % 4096])
            return terminated or truncated

        return env, (lambda: env.reset(seed=0)), step_raw, (lambda: True)

    if variant == "envpool":
        import envpool

        _quiet_gym()
        env = envpool.make_gymnasium("CarRacing-v3", num_envs=1, num_threads=1, batch_size=1)
        batched = _continuous_actions((4096, 1))

        def step_pool(i: int) -> bool:
            env.step(batched[i % 4096])  # EnvPool resets finished episodes itself
            return False

        return env, (lambda: env.reset()), step_pool, (lambda: False)

    if variant == "reinfors":
        import numpy as np
        import reinfors

        env = reinfors.Env(reinfors.games.CarRacing(max_ticks=EPISODE_STEPS), seed=0)
        discrete = np.random.default_rng(0).integers(0, 5, size=4096).tolist()

        def step_rf(i: int) -> bool:
            env.step({0: discrete[i % 4096]})
            env.observe(0)  # reinfors draws the frame when it is observed
            return env.done()

        return env, env.reset, step_rf, (lambda: False)

    raise ValueError(f"no single-env loop for {variant!r}")


def single(variant: str, seconds: float, warmup: float) -> dict[str, float]:
    """Single env, single thread: env steps/s with random actions and every frame drawn."""
    env, reset, step, count_episode = _make_single(variant)
    reset()
    state = {"i": 0, "t": 0}
    limit_here = count_episode()  # only the raw env needs the 1000-step limit applied by us

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

    out = _timed(chunk, seconds, warmup)
    if hasattr(env, "close"):
        env.close()
    return out


# --------------------------------------------------------------------------- vector envs


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

        _quiet_gym()
        return envpool.make_gymnasium(
            "CarRacing-v3", num_envs=num_envs, num_threads=threads, batch_size=num_envs
        )
    raise ValueError(f"no vector env for {variant!r}")


def vector(
    variant: str, num_envs: int, threads: int, seconds: float, warmup: float
) -> dict[str, float]:
    """Synchronous batched stepping: env steps/s (each env's frame drawn every step)."""
    env = make_vector(variant, num_envs, threads)
    actions = _continuous_actions((32, num_envs))
    env.reset(seed=0)

    def chunk() -> int:
        for a in actions:
            env.step(a)
        return len(actions) * num_envs

    out = _timed(chunk, seconds, warmup)
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
    actions = _continuous_actions((20, num_envs))
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


# --------------------------------------------------------------------------- collectors


def zero_infer_factory(n_outputs: int) -> Callable[[Any], tuple[Any, Any]]:
    """An `infer` that costs nothing: cached zero logits/values for each batch size."""
    import numpy as np

    cache: dict[int, tuple[Any, Any]] = {}

    def infer(obs: Any) -> tuple[Any, Any]:
        n = len(obs)
        if n not in cache:
            cache[n] = (np.zeros((n, n_outputs), np.float32), np.zeros(n, np.float32))
        return cache[n]

    return infer


def _require_collector_core() -> None:
    from reinfors_gym import _core

    if not hasattr(_core, "CollectorCore"):
        raise Skip("the built extension has no CollectorCore yet (rebuild with `make build`)")


def _our_engine(games: int, threads: int):
    _require_collector_core()
    import reinfors_gym as rf

    return rf.Engine(
        # CHW frames, as reinfors' engine (the anchor) hands them out.
        game=rf.games.CarRacing(continuous=False, channels_first=True),
        reward=rf.Reward(tile=1000.0, step=-0.1, off_playfield=-100.0),
        policy=rf.policies.Ppo(),
        learner=rf.learners.Ppo(gamma=0.99, lam=0.95),
        n_games=games,
        n_threads=threads,
        seed=0,
    )


def collector(variant: str, games: int, threads: int, size: int, seconds: float) -> dict:
    """Records/s of a PPO collector with a zero-cost `infer` (both engines discrete), or env
    steps/s of our raw vector env at the same games and threads and the same (CHW) frame
    layout as our engine here, so the comparison isolates the collector's own cost."""
    if variant == "ours-vector-discrete":
        import numpy as np

        import reinfors_gym

        env = reinfors_gym.CarRacingVectorEnv(
            games,
            num_threads=threads,
            continuous=False,
            copy=False,
            autoreset_mode="SameStep",
            channels_first=True,
        )
        env.reset(seed=0)
        actions = np.random.default_rng(0).integers(0, 5, size=(64, games))
        for a in actions[:8]:
            env.step(a)
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for a in actions:
                env.step(a)
                steps += games
        return {"rate": steps / (time.perf_counter() - start)}

    if variant == "ours-engine":
        engine = _our_engine(games, threads)
    elif variant == "reinfors-engine":
        import reinfors as rf0

        engine = rf0.Engine(
            game=rf0.games.CarRacing(max_ticks=EPISODE_STEPS),
            reward=rf0.Reward(tile=1000.0, step=-0.1, off_playfield=-100.0),
            policy=rf0.policies.Ppo(),
            learner=rf0.learners.Ppo(gamma=0.99, lam=0.95),
            n_games=games,
            n_threads=threads,
        )
    else:
        raise ValueError(f"no collector for {variant!r}")
    infer = zero_infer_factory(5)
    with engine.collect_stream(collect_size=size, infer=infer) as stream:
        next(stream)  # warm-up
        records, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            next(stream)
            records += size
        rate = records / (time.perf_counter() - start)
    return {"rate": rate}


def overlap(variant: str, games: int, threads: int, size: int, updates: int) -> dict[str, float]:
    """Collect-then-train versus streaming, with training modelled as a GIL-free wait as long as
    one collection (as a GPU update is): streaming should approach max(collect, train)."""
    if variant != "ours-engine":
        raise ValueError(f"no overlap benchmark for {variant!r}")
    engine = _our_engine(games, threads)
    infer = zero_infer_factory(5)
    engine.collect(size, infer)  # warm-up
    start = time.perf_counter()
    for _ in range(3):
        engine.collect(size, infer)
    collect_s = (time.perf_counter() - start) / 3
    train_s = collect_s  # a training step as long as a collection

    start = time.perf_counter()
    for _ in range(updates):
        engine.collect(size, infer)
        time.sleep(train_s)
    sequential = (time.perf_counter() - start) / updates

    with engine.collect_stream(collect_size=size, infer=infer, depth=1) as stream:
        next(stream)
        start = time.perf_counter()
        for _ in range(updates):
            next(stream)
            engine.weights_updated()
            time.sleep(train_s)
        streamed = (time.perf_counter() - start) / updates
    return {
        "collect_s": collect_s,
        "train_s": train_s,
        "sequential_s": sequential,
        "stream_s": streamed,
        "stream_over_bound": streamed / max(collect_s, train_s),
        "speedup": sequential / streamed,
    }


# --------------------------------------------------------------------------- the user's loop


def _nature_cnn_agent(threads: int):
    """CleanRL's continuous-action PPO agent on 96x96 RGB frames (Nature CNN encoder, Gaussian
    head, value head), with `threads` intra-op threads. Returns ``act(obs_uint8_nhwc) ->
    actions (n, 3) float32``: what a rollout calls each step."""
    import numpy as np
    import torch
    from torch import nn

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    encoder = nn.Sequential(
        nn.Conv2d(3, 32, 8, stride=4),
        nn.ReLU(),
        nn.Conv2d(32, 64, 4, stride=2),
        nn.ReLU(),
        nn.Conv2d(64, 64, 3, stride=1),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(64 * 8 * 8, 512),
        nn.ReLU(),
    )
    actor, critic = nn.Linear(512, 3), nn.Linear(512, 1)
    log_std = torch.zeros(3)

    @torch.no_grad()
    def act(obs: Any) -> Any:
        x = torch.from_numpy(np.asarray(obs)).permute(0, 3, 1, 2).float() / 255.0
        hidden = encoder(x)
        mean = actor(hidden)
        critic(hidden)  # the value every PPO rollout also records
        action = torch.normal(mean, log_std.exp().expand_as(mean))
        return action.numpy()

    return act


def policy_loop(
    variant: str, num_envs: int, threads: int, seconds: float, warmup: float
) -> dict[str, float]:
    """The loop users run: a CleanRL-style rollout with a Nature-CNN policy between steps
    (obs -> torch -> action -> step), torch on every core. `threads` is the env's worker
    threads (0: the env's default); `policy-alone` runs the policy on a fixed batch with no
    env, the loop's ceiling. Env steps/s."""
    import numpy as np

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    act = _nature_cnn_agent(cores)
    if variant == "policy-alone":
        obs = np.random.default_rng(0).integers(0, 256, (num_envs, 96, 96, 3), dtype=np.uint8)

        def chunk_alone() -> int:
            for _ in range(8):
                act(obs)
            return 8 * num_envs

        return _timed(chunk_alone, seconds, warmup)
    if variant == "ours-vector":
        import reinfors_gym

        kwargs = {} if threads == 0 else {"num_threads": threads}
        env = reinfors_gym.CarRacingVectorEnv(num_envs, **kwargs)
    else:
        env = make_vector(variant, num_envs, threads)
    obs, _ = env.reset(seed=0)
    low = np.array([-1.0, 0.0, 0.0], np.float32)
    high = np.array([1.0, 1.0, 1.0], np.float32)
    state = {"obs": obs}

    def chunk() -> int:
        for _ in range(8):
            # CleanRL clips the Gaussian sample to the action box before stepping.
            actions = np.clip(act(state["obs"]), low, high)
            state["obs"], *_ = env.step(actions)
        return 8 * num_envs

    out = _timed(chunk, seconds, warmup)
    env.close()
    return out


def policy_async_loop(
    variant: str, num_envs: int, batch_size: int, threads: int, seconds: float, warmup: float
) -> dict[str, float]:
    """EnvPool's asynchronous loop (CleanRL's ``ppo_atari_envpool.py``): ``recv`` the first
    `batch_size` envs to finish, run the policy on them, ``send`` their actions back, while the
    other envs step on the env's threads. `threads`: the env's (0: its default). Env steps/s."""
    import numpy as np

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    act = _nature_cnn_agent(cores)
    if variant == "ours-vector":
        import reinfors_gym

        kwargs = {} if threads == 0 else {"num_threads": threads}
        env = reinfors_gym.CarRacingVectorEnv(num_envs, batch_size=batch_size, **kwargs)
    elif variant == "envpool":
        import envpool

        _quiet_gym()
        env = envpool.make_gymnasium(
            "CarRacing-v3",
            num_envs=num_envs,
            batch_size=batch_size,
            num_threads=threads or cores,
        )
    else:
        raise ValueError(f"no asynchronous env for {variant!r}")
    low = np.array([-1.0, 0.0, 0.0], np.float32)
    high = np.array([1.0, 1.0, 1.0], np.float32)
    env.async_reset()

    def chunk() -> int:
        for _ in range(8):
            obs, _, _, _, info = env.recv()
            env.send(np.clip(act(obs), low, high), info["env_id"])
        return 8 * batch_size

    out = _timed(chunk, seconds, warmup)
    env.close()
    return out


def _loop(**params: Any) -> dict[str, float]:
    """The policy loops of `loops.py` (imported here: it imports this module's harness)."""
    from .loops import measure

    return measure(**params)


KINDS: dict[str, Callable[..., dict]] = {
    "loop": _loop,
    "policy": policy_loop,
    "policy-async": policy_async_loop,
    "single": single,
    "vector": vector,
    "reset": reset_cost,
    "memory": memory,
    "collector": collector,
    "overlap": overlap,
}
