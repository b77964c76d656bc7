"""Solves CarRacing from scratch in one command: PPO with a Beta policy, then export and evaluation.

    make train SEED=1 OUT=out/train-1          # or, with torch and gymnasium[box2d] installed:
    python examples/train.py --seed 1 --out out/train-1

One process runs the whole recipe: the streaming collector (`rf.Engine.collect_stream`) with a
Beta policy per action dimension (`rf.policies.Ppo(distribution="beta")`), so the policy's mean
is a valid action that can brake from the first update and no noise has to be annealed away; a
shaped training reward (`rf.Reward(off_road=...)`: a price per wheel off the road, each
simulation step); the collector's native frame skip, grayscale and frame stack; a small CNN that
downsamples the frames itself. Every part of the policy's input has an exact Gymnasium
counterpart (an action repeat, `GrayscaleObservation`, `FrameStackObservation`; the rest happens
inside the network), so the exported file runs on Gymnasium's own `CarRacing-v3` and on ours
through `examples/evaluate.py`.

Training stops at `--total-decisions` or after `--max-minutes`, whichever comes first (the learning
rate anneals to 0 over whichever is nearer). Over the run's second half it scores snapshots on
selection seeds of ours (`--select-seeds`, `--select-by`) and exports the best
(`snapshot_selection.py`; the last update goes to `policy_last.pt2` when it is not the best). It
writes into `--out`: `policy.pt2` (evaluate.py's format), `scalars.csv` (a row per update),
`curve.png` and `run.json` (the seed, `wall_clock_s` to the export, the decisions, the evaluation's
returns on `--eval-seeds` on both envs, versions, CPU and device). Every option's default is the
recipe (`--help`). `--evaluate-only` evaluates the finished run in `--out` and rewrites `run.json`'s
evaluation fields.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

import reinfors_gym as rf
from reinfors_gym.car_racing import continuous_action_space

sys.path.insert(0, str(Path(__file__).resolve().parent))  # ppo_carracing.py, evaluate.py

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.distributions import Beta
    from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn
except ImportError:
    sys.exit("train.py needs PyTorch: pip install torch (see the Makefile's TORCH_PIP_ARGS)")

import allocator  # noqa: E402 - after the path and torch checks
import evaluate  # noqa: E402
import run_log  # noqa: E402
from ppo_carracing import (  # noqa: E402
    add_ppo_arguments,
    frames_first,
    layer_init,
    plot_curve,
    pooled_frames,
    stream_updates,
)
from precision import (  # noqa: E402
    PRECISIONS,
    auto_precision,
    bf16_warning,
    fp32_recipe_line,
    given_options,
    precision_line,
    use_fp32_recipe,
)
from snapshot_selection import SnapshotSelector  # noqa: E402
from train_evaluation import evaluate_finished_run, evaluate_policy  # noqa: E402

# The env's box, onto which the collector maps a Beta sample: steer [-1, 1], gas and brake [0, 1].
ACTION_BOX = continuous_action_space()
# The head's cap on each alpha and beta: well inside the collector's [1e-3, 1e6].
MAX_CONCENTRATION = 1e4


def triple(text: str) -> tuple[float, float, float]:
    """`a,b,c` -> three floats (steer, gas, brake)."""
    values = tuple(float(v) for v in text.split(","))
    if len(values) != 3 or not all(math.isfinite(v) for v in values):
        raise argparse.ArgumentTypeError(f"want three comma-separated finite numbers, got {text!r}")
    return values  # type: ignore[return-value]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--seed", type=int, default=1, help="training seed (tracks, sampling, torch)")
    p.add_argument("--out", type=Path, default=Path("out/train"), help="output folder")
    run = p.add_argument_group("budget")
    run.add_argument(
        "--total-decisions",
        type=int,
        default=1_300_000,
        help="decisions in all; the learning rate anneals over this or --max-minutes, whichever "
        "is nearer",
    )
    run.add_argument(
        "--max-minutes",
        type=float,
        default=13.5,
        help="stop training after this many minutes (0: no limit), so that the export lands "
        "within 15 minutes of the start on two cores with native bfloat16",
    )
    obs = p.add_argument_group("observation (native in the collector, Gymnasium's wrappers)")
    obs.add_argument("--frame-skip", type=int, default=4, help="simulation steps per decision")
    obs.add_argument("--stack-num", type=int, default=2, help="frames stacked per observation")
    obs.add_argument(
        "--grayscale",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="one luminance channel",
    )
    net = p.add_argument_group("network")
    net.add_argument(
        "--downsample", type=int, default=2, help="average-pooling factor inside the network"
    )
    net.add_argument("--first-stride", type=int, default=2, help="the first convolution's stride")
    net.add_argument("--hidden", type=int, default=256, help="units of the shared dense layer")
    net.add_argument(
        "--init-alpha",
        type=triple,
        default=(2.0, 3.0, 1.05),
        help="initial Beta alpha per dimension (steer, gas, brake)",
    )
    net.add_argument(
        "--init-beta",
        type=triple,
        default=(2.0, 2.0, 20.0),
        help="initial Beta beta per dimension: with the alphas, a mean action of straight "
        "ahead, gas 0.6, brake 0.05",
    )
    net.add_argument(
        "--min-concentration",
        type=triple,
        default=(1.0, 1.0, 1.0),
        help="per dimension (steer, gas, brake), the least alpha and the least beta (each is "
        "this + softplus): above 1 it caps the dimension's noise",
    )
    reward = p.add_argument_group("training reward (scalars log Gymnasium's score too)")
    reward.add_argument("--step-reward", type=float, default=-0.1, help="per simulation step")
    reward.add_argument(
        "--off-road-reward",
        type=float,
        default=-0.5,
        help="per wheel on no road tile, per simulation step, from the first update",
    )
    reward.add_argument(
        "--skipped-tile-reward",
        type=float,
        default=-10.0,
        help="per tile passed without a touch, when the car lands beyond it",
    )
    reward.add_argument(
        "--cut-without-progress",
        type=int,
        default=0,
        help="cut a training episode after this many simulation steps without a new tile (a "
        "truncation; rf.learners.Ppo(cut_without_progress=...)); 0 never cuts",
    )
    reward.add_argument(
        "--cut-is-terminal",
        action="store_true",
        help="end that cut as a termination (no bootstrap: a stall is worth what it earned)",
    )
    ppo = p.add_argument_group("PPO")
    add_ppo_arguments(ppo)
    # Recipe 10's (docs/training.md): on two cores, collecting each batch when it is asked for
    # leaves the learner both cores, and a longer horizon than ppo_carracing.py's default.
    p.set_defaults(overlap=False, gamma=0.9925)
    ppo.add_argument(
        "--target-kl",
        type=float,
        default=0.03,
        help="stop a batch's epochs once an epoch's mean approximate KL exceeds this (0: never)",
    )
    ppo.add_argument(
        "--ent-coef-from",
        type=float,
        default=0.0,
        help="fraction of the run (time or decisions) from which --ent-coef applies; before it "
        "the entropy term is 0 (a price set late sharpens a policy that has learned to drive)",
    )
    ppo.add_argument(
        "--compile",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="torch.compile the network for the PPO epochs (needs a C++ compiler)",
    )
    allocator.add_argument(ppo)
    ppo.add_argument(
        "--precision",
        choices=PRECISIONS,
        default="auto",
        help="the PPO epochs' forward and backward passes: float32, or bfloat16 autocast (weights, "
        "Adam and the losses stay float32; acting and the export stay float32); auto: bf16 on a "
        "CPU where it measured faster (AMX, or AMD's AVX-512 BF16) and on a GPU that runs it "
        "natively, else fp32 (on a CPU with recipe 6's --max-minutes, --total-decisions, "
        "--gamma and --overlap where not given)",
    )
    ppo.add_argument(
        "--infer-threads",
        type=int,
        default=2,
        help="torch threads of the collector's forward passes (its own thread; the PPO epochs "
        "use --torch-threads)",
    )
    ppo.add_argument(
        "--device", default="auto", help="torch device; auto: cuda when available, else cpu"
    )
    sel = p.add_argument_group(
        "snapshot selection (examples/snapshot_selection.py): the export is the best snapshot"
    )
    sel.add_argument(
        "--select-seeds",
        default="3000-3049",
        help="seeds of ours that score snapshots (see --select-by), A-B inclusive or a comma "
        "list; a block apart from validation (2000-2049) and test; '' exports the last update",
    )
    sel.add_argument(
        "--select-by",
        choices=("mean+sampled", "mean"),
        default="mean+sampled",
        help="a snapshot's score: the average of its mean-action and sampled means on the "
        "selection seeds, or the mean-action mean alone",
    )
    sel.add_argument(
        "--select-from",
        type=float,
        default=0.5,
        help="fraction of the run (time or decisions) after which snapshots are scored",
    )
    sel.add_argument(
        "--average-weights",
        type=float,
        default=0.0,
        help="decay of a moving average of the weights (torch's AveragedModel), updated after "
        "every update; snapshots and the export are the average's. 0: the weights themselves",
    )
    sel.add_argument(
        "--select-snapshots",
        type=int,
        default=12,
        help="snapshots scored, evenly spread from --select-from to the end, besides the last",
    )
    ev = p.add_argument_group("evaluation of the exported policy (examples/evaluate.py)")
    ev.add_argument(
        "--eval-seeds",
        default="13000-13099",
        help="A-B inclusive, or a comma list; '' skips. The default is the recipe's test block "
        "(docs/training.md): use validation seeds of your own (2000-2049) to compare variants",
    )
    ev.add_argument("--eval-sample-seed", type=int, default=0, help="seed of the sampled run")
    ev.add_argument("--eval-workers", type=int, default=2, help="evaluation processes")
    ev.add_argument(
        "--eval-max-decisions",
        type=int,
        help="cut evaluation and selection episodes short (smoke tests)",
    )
    ev.add_argument(
        "--setup-seconds",
        type=float,
        help="seconds spent setting up before this script (make train passes its own), "
        "recorded in run.json beside the training's and the evaluation's",
    )
    ev.add_argument(
        "--evaluate-only",
        action="store_true",
        help="train nothing: evaluate the finished run in --out (its policy.pt2) on --eval-seeds "
        "and rewrite the evaluation fields of its run.json",
    )
    return p


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = build_parser()
    args = p.parse_args(argv)
    for name in (
        "total_decisions", "frame_skip", "stack_num", "downsample", "first_stride", "hidden",
        "epochs", "torch_threads", "infer_threads",
    ):  # fmt: skip
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if not 0.0 <= args.ent_coef_from <= 1.0:
        p.error("--ent-coef-from must be within [0, 1]")
    if not 0.0 <= args.select_from <= 1.0:
        p.error("--select-from must be within [0, 1]")
    if not 0.0 <= args.average_weights < 1.0:
        p.error("--average-weights must be within [0, 1)")
    try:
        if args.select_seeds:
            evaluate.parse_seeds(args.select_seeds)
    except ValueError as error:
        p.error(f"--select-seeds: {error}")
    if args.select_snapshots < 0:
        p.error("--select-snapshots must be at least 0")
    if args.cut_is_terminal and not args.cut_without_progress:
        p.error("--cut-is-terminal needs --cut-without-progress")
    if args.target_kl <= 0:
        args.target_kl = None  # ppo_update's "never stop early"
    if not all(1.0 <= m < MAX_CONCENTRATION for m in args.min_concentration):
        p.error(
            f"--min-concentration: each must be at least 1 (a unimodal Beta) and under "
            f"{MAX_CONCENTRATION:g} (the head's cap)"
        )
    for name in ("init_alpha", "init_beta"):
        pairs = zip(getattr(args, name), args.min_concentration, strict=True)
        if not all(m < c < MAX_CONCENTRATION for c, m in pairs):
            p.error(
                f"--{name.replace('_', '-')}: each must exceed its --min-concentration "
                f"(alpha, beta = min + softplus) and stay under {MAX_CONCENTRATION:g}"
            )
    try:  # the network itself says whether its last convolution still has pixels to read
        BetaAgent(args)
    except RuntimeError:
        p.error(f"--downsample {args.downsample} --first-stride {args.first_stride}: no pixels")
    return args


class BoxBeta:
    """A Beta per action dimension, mapped affinely onto the action's box: the distribution the
    collector samples for `rf.policies.Ppo(distribution="beta")`. Log-probabilities and entropy
    are summed over the dimensions and computed in float64, as the collector computes
    `behavior_log_probs` from the stored float32 action."""

    def __init__(self, alpha: torch.Tensor, beta: torch.Tensor):
        self.beta = Beta(alpha.double(), beta.double())
        low, width = ACTION_BOX.low, ACTION_BOX.high - ACTION_BOX.low
        self.low = torch.tensor(low, dtype=torch.float64, device=alpha.device)
        self.width = torch.tensor(width, dtype=torch.float64, device=alpha.device)

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        """Log-density of box actions `(n, 3)`: Beta's at `(a - low) / width`, less
        `log(width)` (the affine map's Jacobian)."""
        x = (actions.double() - self.low) / self.width
        return (self.beta.log_prob(x) - self.width.log()).sum(-1)

    def entropy(self) -> torch.Tensor:
        return (self.beta.entropy() + self.width.log()).sum(-1)


class BetaAgent(nn.Module):
    """Shared CNN trunk with a Beta head (alpha, beta = floor + softplus with floors of at least
    1, so every Beta is unimodal and its mean a sensible action) and a value head.

    Takes observations as Gymnasium's wrappers give them (`(n, k, 96, 96)` grayscale stacks, or
    any layout `channels_first` reads) and downsamples them itself (average pooling), so the
    exported program needs no preprocessing beyond the wrappers."""

    def __init__(self, args: argparse.Namespace):
        super().__init__()
        self.grayscale = args.grayscale
        channels = args.stack_num * (1 if args.grayscale else 3)
        self.downsample = args.downsample
        self.trunk = nn.Sequential(  # sizes at the defaults (--downsample 2, --first-stride 2)
            layer_init(nn.Conv2d(channels, 16, 5, stride=args.first_stride)),  # 48x48 -> 22x22
            nn.ReLU(),
            layer_init(nn.Conv2d(16, 32, 3, stride=2)),  # -> 10x10
            nn.ReLU(),
            layer_init(nn.Conv2d(32, 32, 3, stride=1)),  # -> 8x8
            nn.ReLU(),
            nn.Flatten(),
        )
        with torch.no_grad():
            blank = torch.zeros(1, channels, 96, 96, dtype=torch.uint8)
            flat = self.trunk(pooled_frames(blank, self.downsample)).shape[1]
        self.hidden = nn.Sequential(layer_init(nn.Linear(flat, args.hidden)), nn.ReLU())
        self.concentrations = layer_init(nn.Linear(args.hidden, 6), std=0.01)
        # Each alpha and beta is its floor + softplus (alphas first, then betas).
        floor = torch.tensor([*args.min_concentration] * 2)
        self.register_buffer("floor", floor, persistent=False)
        with torch.no_grad():  # softplus^-1(c - floor): the initial alphas and betas
            start = torch.tensor([*args.init_alpha, *args.init_beta]) - self.floor
            self.concentrations.bias.copy_(start + torch.log(-torch.expm1(-start)))
        self.value = layer_init(nn.Linear(args.hidden, 1), std=1.0)
        self.value_scale = args.value_scale

    def forward(self, obs: torch.Tensor):
        """uint8 observations -> alpha (n, 3), beta (n, 3), value (n,) in reward units."""
        return self.heads(self.preprocess(obs))

    def preprocess(self, obs: torch.Tensor) -> torch.Tensor:
        """uint8 observations -> the convolutions' float input, downsampled (no parameters:
        `ppo_update` runs it once per batch, not once per epoch)."""
        return pooled_frames(frames_first(obs, self.grayscale), self.downsample)

    def heads(self, x: torch.Tensor):
        """`preprocess`'s output -> alpha (n, 3), beta (n, 3), value (n,) in reward units."""
        hidden = self.hidden(self.trunk(x))
        c = (self.floor + F.softplus(self.concentrations(hidden))).clamp(max=MAX_CONCENTRATION)
        value = self.value(hidden).squeeze(-1) * self.value_scale
        return c[:, :3], c[:, 3:], value

    @staticmethod
    def distribution(alpha: torch.Tensor, beta: torch.Tensor) -> BoxBeta:
        return BoxBeta(alpha, beta)


def entropy_coefficient(ent_coef: float, start: float, done: float) -> float:
    """The entropy term's coefficient at `done` (the run's fraction): `ent_coef` from `start` on,
    0 before it."""
    return ent_coef if done >= start else 0.0


def make_optimizer(agent: nn.Module, lr: float) -> torch.optim.Optimizer:
    """The recipe's Adam: fused, one kernel per step instead of one per tensor operation."""
    return torch.optim.Adam(agent.parameters(), lr=lr, eps=1e-5, fused=True)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    if args.evaluate_only:
        return evaluate_finished_run(args)
    start = time.perf_counter()
    allocator.apply(args)  # before the run's first tensors
    args.out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    if args.device == "auto":
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    else:
        device = torch.device(args.device)
    print(f"device: {device}", flush=True)
    learner = BetaAgent(args).to(device)
    precision_seconds = precision_reason = None
    if args.precision == "auto":
        obs_shape = (args.stack_num, 96, 96) + (() if args.grayscale else (3,))
        args.precision, precision_reason, precision_seconds = auto_precision(
            learner, obs_shape, args.minibatch_size
        )
        print(precision_line(args.precision, precision_reason), flush=True)
        if args.precision == "fp32" and device.type == "cpu":
            # Recipe 10's minutes were validated with bfloat16 epochs only.
            changes = use_fp32_recipe(args, given_options(build_parser(), argv))
            print(fp32_recipe_line(changes), flush=True)
    elif args.precision == "bf16" and (warning := bf16_warning(device)):
        print(warning, flush=True)

    engine = rf.Engine(
        game=rf.games.CarRacing(
            frame_skip=args.frame_skip, stack_num=args.stack_num, grayscale=args.grayscale
        ),
        reward=rf.Reward(
            step=args.step_reward,
            off_road=args.off_road_reward,
            skipped_tile=args.skipped_tile_reward,
        ),
        policy=rf.policies.Ppo(distribution="beta"),
        learner=rf.learners.Ppo(
            gamma=args.gamma,
            lam=args.lam,
            cut_without_progress=args.cut_without_progress or None,
            cut_is_terminal=args.cut_is_terminal,
        ),
        n_games=args.n_games,
        n_threads=args.n_threads,
        seed=args.seed,
    )
    actor = copy.deepcopy(learner)  # used only by `infer`, in the collector's thread
    actor_lock = threading.Lock()
    optimizer = make_optimizer(learner, args.lr)

    def infer(obs: np.ndarray):
        if torch.get_num_threads() != args.infer_threads:  # this thread's own OpenMP team
            torch.set_num_threads(args.infer_threads)
        with actor_lock, torch.no_grad():
            # A copy: `obs` is read-only (it is what the batch records).
            alpha, beta, value = actor(torch.tensor(obs, device=device))
            policy = torch.cat([alpha, beta], 1)
            return policy.cpu().numpy(), value.cpu().numpy()

    n_updates = max(1, math.ceil(args.total_decisions / args.collect_size))
    budget_s = args.max_minutes * 60.0

    def progress(update: int, elapsed: float) -> float:
        by_time = elapsed / budget_s if budget_s > 0 else 0.0
        return max(update / n_updates, by_time)

    preprocessing = {
        "frame_skip": args.frame_skip,
        "stack_num": args.stack_num,
        "grayscale": args.grayscale,
    }
    select_seeds = evaluate.parse_seeds(args.select_seeds) if args.select_seeds else []
    selector = (
        SnapshotSelector(
            select_seeds,
            preprocessing,
            args.n_threads,
            args.eval_max_decisions,
            sampled=args.select_by == "mean+sampled",
            sample_seed=args.eval_sample_seed,
        )
        if select_seeds
        else None
    )
    # Progress fractions at which a snapshot is scored; the last update is scored after the loop.
    marks = [
        args.select_from + k * (1.0 - args.select_from) / max(1, args.select_snapshots)
        for k in range(args.select_snapshots)
    ]

    # An exponential moving average of the weights, after each update; the policy it scores and
    # exports smooths the update-to-update swings of the weights themselves.
    average = (
        AveragedModel(learner, multi_avg_fn=get_ema_multi_avg_fn(args.average_weights))
        if args.average_weights > 0
        else None
    )

    ent_coef = args.ent_coef

    def before_update(update: int, done: float) -> None:
        # ppo_update reads args.ent_coef at each update.
        args.ent_coef = entropy_coefficient(ent_coef, args.ent_coef_from, done)
        score_snapshot(update, done)

    def score_snapshot(update: int, done: float) -> None:
        if average is not None and update > 0:
            average.update_parameters(learner)
        if selector is None or not marks or done < marks[0]:
            return
        while marks and done >= marks[0]:
            marks.pop(0)
        scored = learner if average is None else average.module
        score = selector.score(
            scored, update=update, decisions=update * args.collect_size, progress=done
        )
        print(f"snapshot after {update} updates: {score:.1f} on the selection seeds", flush=True)

    rows, decisions, train_s = stream_updates(
        engine, infer, learner, actor, actor_lock, optimizer, args, n_updates,
        before_update=before_update, progress=progress, budget_minutes=args.max_minutes,
    )  # fmt: skip
    args.ent_coef = ent_coef  # run.json records the option as given
    if average is not None:  # from here on the learner is the average: scored, exported
        average.update_parameters(learner)
        learner.load_state_dict(average.module.state_dict())
    selection: dict[str, Any] | None = None
    if selector is not None:
        selector.score(learner, update=len(rows), decisions=decisions, progress=1.0)
        selector.close()
        if selector.best_index != len(selector.snapshots) - 1:
            # The last update too, so that a run's choice can be judged on other seeds.
            last = copy.deepcopy(learner).cpu()
            evaluate.save_checkpoint(
                last, str(args.out / "policy_last.pt2"), preprocessing, distribution="beta"
            )
            learner.load_state_dict(selector.best_state)
        selection = {
            "seeds": select_seeds,
            "snapshots": selector.snapshots,
            "exported": selector.best(),
        }
        print(f"exporting the snapshot after {selection['exported']['update']} updates "
              f"({selection['exported']['score']:.1f})", flush=True)  # fmt: skip
    policy_path = args.out / "policy.pt2"
    exported = copy.deepcopy(learner).cpu()
    evaluate.save_checkpoint(exported, str(policy_path), preprocessing, distribution="beta")
    wall_clock_s = time.perf_counter() - start
    print(f"{decisions} decisions in {train_s:.0f} s of training; exported {policy_path} "
          f"{wall_clock_s:.0f} s after the start", flush=True)  # fmt: skip
    plot_curve(rows, args.out / "curve.png")

    record = {
        "seed": args.seed,
        "setup_s": args.setup_seconds,
        "wall_clock_s": wall_clock_s,
        "decisions": decisions,
        # Each decision runs frame_skip simulation steps (fewer when an episode ends inside it).
        "env_steps": decisions * args.frame_skip,
        "updates": len(rows),
        "selection": selection,
        # Why --precision auto chose options.precision, and its timing where it timed.
        "precision_reason": precision_reason,
        "precision_seconds": precision_seconds,
        **evaluate_policy(policy_path, args),
        "versions": run_log.versions(),
        **run_log.machine(),  # cpu_model, cpu_id, cpu_count
        "device": str(device)
        + (f" ({torch.cuda.get_device_name(device)})" if device.type == "cuda" else ""),
        "options": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
    }
    (args.out / "run.json").write_text(json.dumps(record, indent=2) + "\n")
    print(f"run record: {args.out / 'run.json'}", flush=True)
    return record


if __name__ == "__main__":
    main()
