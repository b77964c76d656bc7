"""The learner's frame pooling (`ppo_carracing.pooled_frames`, `BetaAgent.preprocess`): block
sums in 16-bit integers that give the very floats of `avg_pool2d` on float frames, and
`ppo_update`'s batch preprocessed in slices, which changes no number of an update."""

from __future__ import annotations

import argparse

import numpy as np
import pytest
import torch
import torch.nn.functional as F


@pytest.fixture(scope="module")
def ppo(load_script):
    return load_script("examples", "ppo_carracing")


@pytest.fixture(scope="module")
def train(load_script):
    return load_script("examples", "train")


@pytest.fixture(scope="module")
def random_batch(load_script):
    """bench/profile_update.py's batch of random frames (`flat()`, as `ppo_update` reads it)."""
    return load_script("bench", "profile_update").Batch


def every_block_sum(factor: int) -> torch.Tensor:
    """uint8 frames `(n, 2, 96, 96)` whose `factor` x `factor` blocks take every sum from 0 to
    `factor**2 * 255`, each spread over the block's pixels (no pixel above 255)."""
    side = 96 // factor
    sums = np.arange(factor * factor * 255 + 1)
    per_frame = 2 * side * side
    sums = np.resize(sums, -(-len(sums) // per_frame) * per_frame)  # whole frames
    cells = np.clip(sums[:, None] - 255 * np.arange(factor * factor), 0, 255).astype(np.uint8)
    blocks = cells.reshape(-1, 2, side, side, factor, factor)
    frames = np.zeros((len(blocks), 2, 96, 96), np.uint8)
    pooled_area = blocks.transpose(0, 1, 2, 4, 3, 5).reshape(len(blocks), 2, side * factor, -1)
    frames[:, :, : side * factor, : side * factor] = pooled_area
    return torch.from_numpy(frames)


@pytest.mark.parametrize("factor", [1, 2, 3, 4, 5])
def test_pooled_frames_are_avg_pool2ds_floats_for_every_block_sum(ppo, factor):
    frames = every_block_sum(factor)
    expected = frames.float() if factor == 1 else F.avg_pool2d(frames.float(), factor)
    pooled = ppo.pooled_frames(frames, factor)
    assert pooled.dtype == torch.float32
    assert torch.equal(pooled, expected * (1.0 / 255.0))


def test_no_frames_pool_to_no_frames(ppo):
    pooled = ppo.pooled_frames(torch.zeros(0, 2, 96, 96, dtype=torch.uint8), 2)
    assert pooled.shape == (0, 2, 48, 48) and pooled.dtype == torch.float32


def test_a_factor_whose_sums_overflow_16_bits_is_refused(ppo):
    frames = torch.zeros(1, 2, 96, 96, dtype=torch.uint8)
    with pytest.raises(ValueError, match="overflows"):
        ppo.pooled_frames(frames, 12)


def recipe(train, **changes) -> argparse.Namespace:
    return argparse.Namespace(**{**vars(train.parse_args([])), "target_kl": None, **changes})


def test_the_agent_preprocesses_as_a_float_average_pool(train):
    args = recipe(train)
    agent = train.BetaAgent(args)
    obs = torch.randint(0, 256, (9, 2, 96, 96), dtype=torch.uint8)
    expected = F.avg_pool2d(obs.float(), args.downsample) * (1.0 / 255.0)
    assert torch.equal(agent.preprocess(obs), expected)


def update_weights(ppo, train, batch, rows: int, monkeypatch) -> list[torch.Tensor]:
    monkeypatch.setattr(ppo, "PREPROCESS_ROWS", rows)
    args = recipe(train, collect_size=160, minibatch_size=40, epochs=2)
    torch.manual_seed(0)
    agent = train.BetaAgent(args)
    optimizer = train.make_optimizer(agent, 1e-3)
    before = [p.detach().clone() for p in agent.parameters()]
    ppo.ppo_update(agent, optimizer, batch, args, np.random.default_rng(0))
    after = [p.detach().clone() for p in agent.parameters()]
    assert not any(torch.equal(a, b) for a, b in zip(before, after, strict=True))
    return after


def test_an_update_preprocessed_in_slices_is_the_update_of_the_whole_batch(
    ppo, train, random_batch, monkeypatch
):
    batch = random_batch(160, seed=1)
    sliced = update_weights(ppo, train, batch, 64, monkeypatch)  # 64, 64 and 32 rows
    whole = update_weights(ppo, train, batch, 160, monkeypatch)
    assert all(torch.equal(a, b) for a, b in zip(sliced, whole, strict=True))
