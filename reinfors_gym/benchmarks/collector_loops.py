"""PPO collectors: records/s of our `Engine` and of reinfors' with an `infer` that costs nothing
(beside our raw vector env's steps/s), and how much streaming overlaps collecting with training."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .measuring import EPISODE_STEPS, Skip


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
