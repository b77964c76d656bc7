"""The anchors' games for bench/bench_training.py: batches of CarRacing games with the recipe's
observations (examples/train.py's), stepped one decision at a time with the same-step autoreset,
on Gymnasium's `AsyncVectorEnv`, on EnvPool, or on no env at all (the policy alone)."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path
from typing import NamedTuple, Protocol

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # Gymnasium's CarRacing draws with pygame
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import evaluate  # noqa: E402  (examples/evaluate.py: the wrappers the exported policy runs in)

# Gymnasium's GrayscaleObservation: these weights in float64, summed and truncated to uint8.
LUMINANCE = np.array([0.2125, 0.7154, 0.0721])


class Transition(NamedTuple):
    """One decision of every game, with the same-step autoreset: `obs` is the next decision's
    observation (a new episode's first where one ended); `final_obs` maps each game whose
    episode ended to that episode's last observation."""

    obs: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    final_obs: dict[int, np.ndarray]


class Games(Protocol):
    """A batch of games with the recipe's observations, stepped one decision at a time."""

    def reset(self) -> np.ndarray: ...
    def step(self, actions: np.ndarray) -> Transition: ...
    def close(self) -> None: ...


def preprocessing(args: argparse.Namespace) -> dict[str, object]:
    return {"frame_skip": args.frame_skip, "stack_num": args.stack_num, "grayscale": args.grayscale}


class GymnasiumGames:
    """`AsyncVectorEnv` over `CarRacing-v3`, each wrapped by `evaluate.make_env`, the wrappers
    the exported policy is evaluated with."""

    def __init__(self, args: argparse.Namespace):
        make = functools.partial(evaluate.make_env, "gymnasium", preprocessing(args))
        self.envs = gym.vector.AsyncVectorEnv(
            [make] * args.n_games, autoreset_mode=gym.vector.AutoresetMode.SAME_STEP
        )
        self.seed = args.seed

    def reset(self) -> np.ndarray:
        return self.envs.reset(seed=self.seed)[0]

    def step(self, actions: np.ndarray) -> Transition:
        obs, rewards, terminated, truncated, info = self.envs.step(actions)
        ended = np.flatnonzero(terminated | truncated)
        final_obs = {int(i): info["final_obs"][i] for i in ended}
        return Transition(obs, rewards.astype(np.float32), terminated, truncated, final_obs)

    def close(self) -> None:
        self.envs.close()


def grayscale(frames: np.ndarray) -> np.ndarray:
    """`(..., 96, 96, 3)` uint8 RGB -> `(..., 96, 96)` luminance, as `GrayscaleObservation`."""
    return np.sum(np.multiply(frames, LUMINANCE), axis=-1).astype(np.uint8)


class EnvPoolGames:
    """EnvPool's `CarRacing-v3` as one synchronous batch, with the recipe's preprocessing here.

    EnvPool resets a game on the `step` call after its episode ended (that call ignores the
    action, returns the new episode's first frame, reward 0 and `elapsed_step` 0), and it cannot
    step part of a synchronous batch. So every decision makes exactly `frame_skip` calls for all
    games. A game's rewards are summed until its episode ends (termination, or truncation after
    1000 simulation steps); the frame of that call is its final frame. The calls left in the
    decision are its reset and the first steps of its new episode with the same action; their
    rewards are not counted. A game that ends on a decision's last call is reset by the next
    decision's first call. Either way, after the decision with the reset, both frames of the
    game's stack are its last frame (`FrameStackObservation` pads a new episode with its first
    frame). The simulation work is the wrappers' to within a step per episode: `frame_skip`
    calls per decision, one of which is the reset once per episode (the wrappers add the reset
    to their steps)."""

    def __init__(self, args: argparse.Namespace, max_episode_steps: int = 1000):
        import envpool

        gym.logger.min_level = 40  # EnvPool's spaces warn about float64 bounds at every make
        self.pool = envpool.make_gymnasium(
            "CarRacing-v3",
            num_envs=args.n_games,
            batch_size=args.n_games,
            num_threads=args.n_threads,  # the collector's threads
            seed=args.seed,
            max_episode_steps=max_episode_steps,
        )
        self.frame_skip = args.frame_skip
        self.stack_num = args.stack_num
        self.stack = np.empty(0, np.uint8)

    def reset(self) -> np.ndarray:
        frames, _ = self.pool.reset()
        gray = grayscale(frames)
        self.stack = np.repeat(gray[:, None], self.stack_num, axis=1)
        return self.stack.copy()

    def step(self, actions: np.ndarray) -> Transition:
        n = len(actions)
        rewards = np.zeros(n, np.float32)
        terminated, truncated = np.zeros(n, bool), np.zeros(n, bool)
        ended, reset = np.zeros(n, bool), np.zeros(n, bool)
        final_frames: dict[int, np.ndarray] = {}
        for _ in range(self.frame_skip):
            frames, reward, term, trunc, info = self.pool.step(actions)
            live = ~ended
            rewards[live] += reward[live]
            reset |= info["elapsed_step"] == 0
            ending = live & (term | trunc)
            for i in np.flatnonzero(ending):
                final_frames[int(i)] = grayscale(frames[i])  # a copy, whatever EnvPool reuses
            terminated |= ending & term
            truncated |= ending & trunc & ~term
            ended |= ending
        final_obs = {
            i: np.concatenate([self.stack[i, 1:], frame[None]]) for i, frame in final_frames.items()
        }
        last = grayscale(frames)
        self.stack = np.concatenate([self.stack[:, 1:], last[:, None]], axis=1)
        self.stack[reset] = last[reset, None]
        return Transition(self.stack.copy(), rewards, terminated, truncated, final_obs)

    def close(self) -> None:
        self.pool.close()


class NoGames:
    """The physical limit: no env at all. Every decision returns the same frames, no reward and
    no episode end, so the loop's time is the policy's alone (a forward pass per decision and
    the PPO update)."""

    def __init__(self, args: argparse.Namespace):
        shape = (args.n_games, args.stack_num if args.grayscale else 3 * args.stack_num, 96, 96)
        self.obs = np.random.default_rng(args.seed).integers(0, 256, shape, dtype=np.uint8)

    def reset(self) -> np.ndarray:
        return self.obs.copy()

    def step(self, actions: np.ndarray) -> Transition:
        n = len(actions)
        none = np.zeros(n, bool)
        return Transition(self.obs.copy(), np.zeros(n, np.float32), none, none.copy(), {})

    def close(self) -> None:
        pass
