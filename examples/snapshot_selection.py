"""Chooses the policy a training run exports: the best of its late snapshots, scored on
selection seeds of our env with mean actions and, by default, with sampled actions too.

A run's last update is not always its best policy: two runs of one recipe and one training seed
ended ~28 points apart on validation (docs/training.md). Scoring snapshots as the run goes, and
exporting the best, is what SB3's `EvalCallback(best_model_save_path=...)` does. The selection
seeds are a block of their own, apart from the validation and test blocks, so neither is spent
on the choice.

Each seed's return is `examples/evaluate.py`'s on our env (`--env reinfors`, mean actions, or
`--sample` with the same per-seed draws) for the same seeds, computed in one batch: one vector
env with the run's native frame skip, grayscale and frame stack (equal to evaluate.py's
Gymnasium wrappers), one forward pass per decision for all the seeds. With sampled scoring, a
snapshot's score is the average of its mean-action and sampled means: a policy whose mean drives
well but whose noise does not is not the one a user who samples wants.
"""

from __future__ import annotations

import copy
from typing import Any

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
from evaluate import stream_seed

import reinfors_gym as rf


class SnapshotSelector:
    """Scores snapshots of a Beta policy (`forward(obs) -> alpha, beta, value`) on `seeds` and
    keeps a copy of the best one's weights.

    Args:
        seeds: one episode per seed, each on its own sub-env.
        preprocessing: `{"frame_skip", "stack_num", "grayscale"}`, as the policy was trained.
        num_threads: the vector env's worker threads.
        max_decisions: cut the episodes short (quick checks); `None` plays them out.
        sampled: score with sampled actions as well as mean actions.
        sample_seed: seeds the draws, per episode as evaluate.py's `--sample-seed` does.
    """

    def __init__(
        self,
        seeds: list[int],
        preprocessing: dict[str, Any],
        num_threads: int = 2,
        max_decisions: int | None = None,
        sampled: bool = False,
        sample_seed: int = 0,
    ):
        if not seeds:
            raise ValueError("snapshot selection needs at least one seed")
        self.sampled = sampled
        # evaluate.py's per-episode stream of draws for each seed.
        self.stream_seeds = [stream_seed(sample_seed, seed) for seed in seeds]
        # The element type reset() takes (Gymnasium's: a seed or None per sub-env).
        self.seeds: list[int | None] = list(seeds)
        self.max_decisions = max_decisions
        self.env = rf.CarRacingVectorEnv(
            len(self.seeds),
            num_threads=num_threads,
            frame_skip=preprocessing["frame_skip"],
            stack_num=preprocessing["stack_num"],
            grayscale=preprocessing["grayscale"],
        )
        # The Beta's (0, 1) maps onto the env's box, as in the collector and evaluate.py.
        space = self.env.single_action_space
        assert isinstance(space, gym.spaces.Box), space
        self.low, self.high = space.low.astype(np.float64), space.high.astype(np.float64)
        self.snapshots: list[dict[str, Any]] = []
        self.best_state: dict[str, torch.Tensor] | None = None
        self.best_index: int | None = None

    @torch.no_grad()
    def returns(self, policy: nn.Module, sample: bool = False) -> np.ndarray:
        """Each seed's return (Gymnasium's reward) with the policy's mean action, or with a draw
        of its Beta (`sample`) from the seed's own stream, as evaluate.py draws it."""
        device = next(policy.parameters()).device
        obs, _ = self.env.reset(seed=self.seeds)
        n = len(self.seeds)
        streams = [np.random.default_rng(seed) for seed in self.stream_seeds]
        totals = np.zeros(n)
        running = np.ones(n, dtype=bool)
        decisions = 0
        while running.any() and (self.max_decisions is None or decisions < self.max_decisions):
            alpha, beta, _ = policy(torch.from_numpy(obs).to(device))
            alpha, beta = alpha.double().cpu().numpy(), beta.double().cpu().numpy()
            x = alpha / (alpha + beta)
            if sample:
                # Ended episodes draw nothing: their steps are not scored.
                for i in np.flatnonzero(running):
                    x[i] = streams[i].beta(alpha[i], beta[i])
            action = self.low + (self.high - self.low) * x
            obs, reward, terminated, truncated, _ = self.env.step(
                np.clip(action, self.low, self.high)
            )
            # Each sub-env plays one episode; what follows its end (the autoreset) is not scored.
            totals += np.where(running, reward, 0.0)
            running &= ~(terminated | truncated)
            decisions += 1
        return totals

    def score(self, policy: nn.Module, **context: Any) -> float:
        """Scores `policy` and keeps its weights if no earlier snapshot scored higher (a tie
        goes to the later, longer-trained one). `context` (update, progress, ...) is recorded
        with the means and the score: the mean-action mean, or with `sampled` the average of
        it and the sampled mean."""
        mean = float(self.returns(policy).mean())
        record: dict[str, Any] = {**context, "mean": mean}
        if self.sampled:
            record["sampled"] = float(self.returns(policy, sample=True).mean())
            record["score"] = (mean + record["sampled"]) / 2
        else:
            record["score"] = mean
        self.snapshots.append(record)
        if self.best_index is None or record["score"] >= self.best()["score"]:
            self.best_index = len(self.snapshots) - 1
            self.best_state = copy.deepcopy(policy.state_dict())
        return record["score"]

    def best(self) -> dict[str, Any]:
        """The best snapshot's record (its context, means and score)."""
        if self.best_index is None:
            raise RuntimeError("no snapshot was scored")
        return self.snapshots[self.best_index]

    def close(self) -> None:
        self.env.close()
