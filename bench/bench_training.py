"""End-to-end PPO throughput of examples/train.py's recipe beside AsyncVectorEnv and EnvPool.

The one-command recipe trains with the streaming collector; the anchors run the same network
and PPO on Gymnasium's `AsyncVectorEnv` and on EnvPool, in the usual synchronous loop.

    python bench/bench_training.py --updates 6 --trials 3      # needs torch (the examples' deps)
    python bench/bench_training.py --sides reinfors-gym,envpool --decisions 4000000 --json r.json

Every side trains the recipe at `train.py`'s defaults: its `BetaAgent` (a Beta per action
dimension, mapped onto the box steer [-1, 1], gas [0, 1], brake [0, 1]) and `ppo_update` (4
epochs of minibatches of 256, stopped early past the target KL of 0.03, the learning rate
annealed to 0 over the trial's updates), on batches of 2048 decisions from 16 games, on the same
observations: 4 simulation steps per decision, grayscale, the last 2 frames.

Each side's `--sides` name is in parentheses.

- **reinfors-gym** (`reinfors-gym`): `examples/train.py` itself in a subprocess, evaluation
  skipped, on the CPU as the anchors; the collector runs the games and the actor on 2 threads
  while the main thread trains. This is the recipe as shipped.
- **reinfors-gym, glibc's adaptive allocator** (`reinfors-gym-adaptive`): the same with
  `--no-keep-freed-memory`, so that one run shows what keeping freed memory gives end to end.
- **Gymnasium** (`gymnasium`): `AsyncVectorEnv` over 16 `CarRacing-v3` (one process each),
  each wrapped as `examples/evaluate.py`'s `make_env` wraps it (its action repeat, Gymnasium's
  `GrayscaleObservation` and `FrameStackObservation`), with the same-step autoreset: what a
  Gymnasium user runs, and the env the exported policy is evaluated on.
- **EnvPool** (`envpool`): `envpool.make_gymnasium("CarRacing-v3")`, 16 envs stepped as one
  synchronous batch on 2 threads (the collector's): the fastest vector env commonly used in its
  place. EnvPool has no preprocessing for CarRacing, so it is done here in NumPy: 4 `step`
  calls per decision with the same action, Gymnasium's luminance grayscale of the last frame, a
  2-frame stack (see `EnvPoolGames` in bench/anchor_games.py for the episode ends).
- **The policy alone** (`policy-alone`): the same synchronous loop with no env (`NoGames`: the
  same frames every decision, no reward, no episode end). Its rate is the physical limit of a
  loop that runs the policy's forward passes and updates one after the other on these cores.
- **reinfors-gym, the learner before** (`reinfors-gym-before`): `examples/` as of commit
  `LEARNER_BEFORE`, before the learner's rework, run the same way (it needs this checkout's git
  history): the 28-minute recipe's learner, end to end.
- **The policy alone, the learner before** (`policy-alone-before`): the same loop with the
  learner as it was before the profile (`FramesEachMinibatch`: the frames converted, scaled and
  pooled as floats in every minibatch's forward pass, in that order as at `LEARNER_BEFORE`, not
  once per batch) and its Adam (one kernel per tensor operation, not the fused one), so that one
  run gives the learner's own rate before and after.

Every measurement runs in a process of its own: train.py's sides in train.py, the loops this
file runs (`LOOPS`) through `--measure`. The allocator's settings hold for a whole process, and
so each side has its own: today's learner keeps freed memory as train.py does by default
(`examples/allocator.py`), the learner before does not.

Each trial also measures this machine's matmul peaks (`matmul_gflops`): float32's, at which a
decision is acted on, and that of the precision the PPO epochs run in (bfloat16 where
`--precision auto` takes it). With the
FLOPs of one decision (`flops_per_decision`: its forward pass while collecting, plus its share
of the epochs' forward and backward passes) they give the FLOP-bound limit in decisions/s, and
each side's fraction of it (`learner_limit`).

The two anchors run the usual synchronous PPO loop (collect a batch with one forward pass per
decision, then train on it): actions sampled as the collector samples them, GAE in NumPy
(examples/gae.py, the collector's recurrence), and a truncated episode bootstrapped from its
final frame. They are trained on Gymnasium's reward;
the recipe's off-road shaping has no Gymnasium counterpart, and it does not change the cost of
a step (the update's cost may differ a little where the target KL stops the epochs at another
point).

The rate of each trial is decisions per second of wall-clock, training included, over the
updates after the first (start-up and the first batch are a warm-up). Trials interleave the
sides, in a new order each trial; medians are printed with their ranges, and the ratios of ours
to each anchor. With `--decisions N` the table ends with the projected wall-clock for N
decisions on each side.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from reinfors_gym.benchmarks import harness

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    sys.exit("This benchmark needs PyTorch: pip install torch")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # anchor_games.py
import allocator  # noqa: E402
import train  # noqa: E402
from anchor_games import EnvPoolGames, Games, GymnasiumGames, NoGames, Transition  # noqa: E402
from gae import gae, next_values  # noqa: E402
from ppo_carracing import channels_first, ppo_update  # noqa: E402
from precision import auto_precision, epoch_heads  # noqa: E402

RECIPE = train.parse_args([])  # every option at the recipe's default
# The collector keeps a Beta sample this far inside (0, 1), so that the stored float32 action is
# strictly inside the box and its log-density finite (rust/src/collector/policy.rs).
BETA_EDGE = 1e-6


def machine_info() -> dict[str, str]:
    return {**harness.machine_info(), "torch": torch.__version__}


# --------------------------------------------------------------------------- reinfors-gym


def decisions_per_second(scalars_csv: Path) -> float:
    """Decisions/s between the first and the last update of a `scalars.csv`."""
    with open(scalars_csv) as f:
        rows = list(csv.DictReader(f))
    first, last = rows[0], rows[-1]
    decisions = int(last["env_steps"]) - int(first["env_steps"])
    return decisions / (float(last["wall_s"]) - float(first["wall_s"]))


def resolve_precision(args: argparse.Namespace) -> None:
    """The recipe's `--precision auto`, resolved once for every side of the run as train.py
    resolves it at the start of a run, so that ours and the anchors run the same epochs."""
    if args.precision == "auto":
        obs_shape = (args.stack_num, 96, 96) + (() if args.grayscale else (3,))
        agent = train.BetaAgent(args)
        args.precision, _, _ = auto_precision(agent, obs_shape, args.minibatch_size)


def train_py_rate(examples: Path, updates: int, options: tuple[str, ...] = ()) -> float:
    """Decisions/s of `examples/train.py` (from the folder `examples`) over its updates after
    the first, with `options` added."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [
            sys.executable, str(examples / "train.py"), *options,
            "--total-decisions", str(updates * RECIPE.collect_size),
            "--max-minutes", "0",  # the decisions alone end the run
            "--eval-seeds", "",  # no evaluation: only training is measured
            # No snapshot scored between updates (they would count in the rate); the last
            # update's, after the loop, does not.
            "--select-snapshots", "0",
            "--device", "cpu",  # where the anchors train
            "--out", out,
        ]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{examples}/train.py failed ({done.returncode}):\n{done.stderr[-4000:]}")
        return decisions_per_second(Path(out) / "scalars.csv")


def ours(updates: int) -> float:
    return train_py_rate(EXAMPLES, updates, ("--precision", RECIPE.precision))


def ours_adaptive_allocator(updates: int) -> float:
    """train.py with glibc's adaptive thresholds (`--no-keep-freed-memory`)."""
    options = ("--precision", RECIPE.precision, "--no-keep-freed-memory")
    return train_py_rate(EXAMPLES, updates, options)


#: The last commit before the learner's rework (issue 37): its examples/ run the recipe of the
#: 28-minute runs with the learner as it was, on today's package.
LEARNER_BEFORE = "d44ae49"


def ours_before(updates: int) -> float:
    """`examples/train.py` as of `LEARNER_BEFORE` (needs this checkout's git history)."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "-C", str(EXAMPLES.parent), "archive", LEARNER_BEFORE, "examples"],
            capture_output=True,
        )
        if archive.returncode != 0:
            sys.exit(f"git archive {LEARNER_BEFORE} failed: {archive.stderr.decode()[-2000:]}")
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        return train_py_rate(Path(tmp) / "examples", updates)


# --------------------------------------------------------------------------- the anchors' PPO loop


class NumpyBatch:
    """What `ppo_update` reads from a `reinfors_gym.Batch`: `flat()` arrays."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        self.arrays = arrays

    def flat(self) -> dict[str, np.ndarray]:
        return self.arrays


def sample_actions(alpha: torch.Tensor, beta: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """Box actions `(n, 3)` float32 and their log-densities `(n,)`, drawn as the collector draws
    them for `rf.policies.Ppo(distribution="beta")`; the log-density is the stored float32
    action's, so that `ppo_update` recomputes it exactly."""
    dist = train.BoxBeta(alpha, beta)
    x = dist.beta.sample().clamp(BETA_EDGE, 1.0 - BETA_EDGE)
    actions = (dist.low + dist.width * x).float()
    return actions.numpy(), dist.log_prob(actions).float().numpy()


def final_values(agent: train.BetaAgent, step: Transition) -> np.ndarray:
    """The value of the final observation of each game whose episode was truncated (cut, not
    over) at this decision; NaN elsewhere, as the collector's `final_values`."""
    values = np.full(len(step.rewards), np.nan, np.float32)
    cut = np.flatnonzero(step.truncated & ~step.terminated)
    if len(cut):
        final = np.stack([step.final_obs[i] for i in cut])
        with torch.no_grad():
            values[cut] = agent(torch.from_numpy(final))[2].numpy()
    return values


def collect_rollout(
    agent: train.BetaAgent, games: Games, obs: np.ndarray, steps: int
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """`steps` decisions of every game: time-major arrays, and the observation after them."""
    names = "obs actions log_probs values rewards terminations truncations final_values".split()
    columns: dict[str, list[np.ndarray]] = {k: [] for k in names}
    for _ in range(steps):
        with torch.no_grad():
            alpha, beta, value = agent(torch.from_numpy(obs))
        actions, log_probs = sample_actions(alpha, beta)
        step = games.step(actions)
        columns["obs"].append(obs)
        columns["actions"].append(actions)
        columns["log_probs"].append(log_probs)
        columns["values"].append(value.numpy())
        columns["rewards"].append(step.rewards)
        columns["terminations"].append(step.terminated)
        columns["truncations"].append(step.truncated & ~step.terminated)
        columns["final_values"].append(final_values(agent, step))
        obs = step.obs
    return {k: np.stack(v) for k, v in columns.items()}, obs


def ppo_batch(
    rollout: dict[str, np.ndarray], last_value: np.ndarray, args: argparse.Namespace
) -> NumpyBatch:
    """The rollout with its advantages and returns, flattened as `ppo_update` reads it."""
    r = rollout
    ends = r["terminations"], r["truncations"]
    targets = next_values(r["values"], last_value, *ends, r["final_values"])
    dones = r["terminations"] | r["truncations"]
    advantages, returns = gae(r["rewards"], r["values"], targets, dones, args.gamma, args.lam)
    n = rollout["rewards"].size
    return NumpyBatch({
        "obs": rollout["obs"].reshape(n, *rollout["obs"].shape[2:]),
        "actions": rollout["actions"].reshape(n, 3),
        "behavior_log_probs": rollout["log_probs"].reshape(n),
        "advantages": advantages.reshape(n),
        "returns": returns.reshape(n),
    })  # fmt: skip


class FramesEachMinibatch(train.BetaAgent):
    """The learner before the frames were preprocessed once per batch: each minibatch's forward
    pass converts, scales and pools its raw uint8 frames again, every epoch, as floats (the
    recipe of docs/training_history.md's variant 6)."""

    def preprocess(self, obs: torch.Tensor) -> torch.Tensor:
        return obs

    def heads(self, obs: torch.Tensor):
        frames = channels_first(obs, self.grayscale)
        if self.downsample > 1:
            frames = F.avg_pool2d(frames, self.downsample)
        return super().heads(frames)


def before_optimizer(agent: torch.nn.Module, lr: float) -> torch.optim.Optimizer:
    """The learner before's Adam, as at `LEARNER_BEFORE`: one kernel per tensor operation (the
    fused kernel of `train.make_optimizer` is part of the rework)."""
    return torch.optim.Adam(agent.parameters(), lr=lr, eps=1e-5)


def make_optimizer(agent: torch.nn.Module, lr: float) -> torch.optim.Optimizer:
    """`agent`'s learner's Adam: the learner before's for `FramesEachMinibatch`, else today's."""
    if isinstance(agent, FramesEachMinibatch):
        return before_optimizer(agent, lr)
    return train.make_optimizer(agent, lr)


def synchronous_ppo(
    open_games: Callable[[argparse.Namespace], Games],
    updates: int,
    agent_class: type[train.BetaAgent] = train.BetaAgent,
) -> float:
    """Decisions/s of the recipe's PPO on `open_games(RECIPE)`, collecting then training, over
    the updates after the first."""
    args = RECIPE
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)  # as train.py
    agent = agent_class(args)
    # The learner before the rework trained in float32; today's trains as the recipe says.
    heads = epoch_heads(agent, args) if agent_class is train.BetaAgent else None
    optimizer = make_optimizer(agent, args.lr)
    rng = np.random.default_rng(args.seed)
    steps = args.collect_size // args.n_games
    games = open_games(args)
    try:
        obs = games.reset()
        marks = []
        for update in range(updates):
            rollout, obs = collect_rollout(agent, games, obs, steps)
            with torch.no_grad():
                last_value = agent(torch.from_numpy(obs))[2].numpy()
            # train.py's schedule over the same updates, so the target KL sees the same steps.
            optimizer.param_groups[0]["lr"] = args.lr * (1.0 - update / updates)
            ppo_update(agent, optimizer, ppo_batch(rollout, last_value, args), args, rng, heads)
            marks.append(time.perf_counter())
    finally:
        games.close()
    return (updates - 1) * steps * args.n_games / (marks[-1] - marks[0])


# --------------------------------------------------------------------------- the benchmark


class Side(NamedTuple):
    label: str
    measure: Callable[[int], float]  # updates -> decisions/s


#: The loops this file runs itself, and whether each keeps freed memory as train.py does by
#: default (`--keep-freed-memory`): today's learner does, the learner before did not.
LOOPS: dict[str, tuple[Callable[[int], float], bool]] = {
    "gymnasium": (lambda updates: synchronous_ppo(GymnasiumGames, updates), True),
    "envpool": (lambda updates: synchronous_ppo(EnvPoolGames, updates), True),
    "policy-alone": (lambda updates: synchronous_ppo(NoGames, updates), True),
    "policy-alone-before": (
        lambda updates: synchronous_ppo(NoGames, updates, FramesEachMinibatch),
        False,
    ),
}


def in_fresh_process(loop: str) -> Callable[[int], float]:
    """`LOOPS[loop]` measured in a new process (`--measure`): the allocator's settings hold for
    a whole process, so each loop gets its own, as train.py's subprocess gets its."""

    def measure(updates: int) -> float:
        cmd = [sys.executable, __file__, "--measure", loop, "--updates", str(updates)]
        cmd += ["--precision", RECIPE.precision]  # resolved once, in the parent
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"the {loop} loop failed ({done.returncode}):\n{done.stderr[-4000:]}")
        return float(done.stdout.split()[-1])

    return measure


def measure_here(loop: str, updates: int, precision: str) -> float:
    """One measurement of `LOOPS[loop]` in this process, set up as train.py sets up its own."""
    run, keeps_freed_memory = LOOPS[loop]
    if keeps_freed_memory:
        print(allocator.keep_freed_memory(), file=sys.stderr)
    RECIPE.precision = precision
    resolve_precision(RECIPE)  # a child started without the parent's --precision
    return run(updates)


OURS = "reinfors-gym"
SIDES = {
    OURS: Side("reinfors-gym collect_stream", ours),
    "reinfors-gym-before": Side("the same, the learner before", ours_before),
    "reinfors-gym-adaptive": Side("the same, glibc's adaptive allocator", ours_adaptive_allocator),
    "gymnasium": Side("Gymnasium AsyncVectorEnv", in_fresh_process("gymnasium")),
    "envpool": Side("EnvPool CarRacing-v3 (sync)", in_fresh_process("envpool")),
    "policy-alone": Side("the policy alone, no env (sync)", in_fresh_process("policy-alone")),
    "policy-alone-before": Side(
        "the policy alone, the learner before", in_fresh_process("policy-alone-before")
    ),
}


# --------------------------------------------------------------------------- the learner's limit


def matmul_gflops(n: int = 2048, repeats: int = 5, dtype: torch.dtype = torch.float32) -> float:
    """This machine's measured peak: an n x n matmul in `dtype` on train.py's torch threads,
    the best of `repeats` after a warm-up (GFLOP/s)."""
    torch.set_num_threads(RECIPE.torch_threads)
    a, b = torch.randn(n, n).to(dtype), torch.randn(n, n).to(dtype)
    a @ b
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return 2 * n**3 / best / 1e9


#: The matmul whose peak bounds the PPO epochs, by the recipe's resolved precision (acting and
#: the export stay float32 whatever the epochs run in).
EPOCHS_DTYPE = {"fp32": torch.float32, "bf16": torch.bfloat16}


def flops_per_decision(args: argparse.Namespace = RECIPE) -> dict[str, float]:
    """The recipe's floating-point operations per decision, counted by PyTorch's FlopCounterMode
    (convolutions and matrix products): one forward pass to act, and the decision's share of
    training, `epochs` forward and backward passes (the most; the target KL can stop earlier)."""
    from torch.utils.flop_counter import FlopCounterMode

    agent = train.BetaAgent(args)
    obs = torch.zeros((args.minibatch_size, args.stack_num, 96, 96), dtype=torch.uint8)
    with FlopCounterMode(display=False) as counter:
        with torch.no_grad():
            agent(obs)
    forward = counter.get_total_flops() / args.minibatch_size
    x = agent.preprocess(obs)
    with FlopCounterMode(display=False) as counter:
        alpha, beta, value = agent.heads(x)
        (alpha.sum() + beta.sum() + value.sum()).backward()
    train_pass = counter.get_total_flops() / args.minibatch_size
    return {
        "act": forward,
        "train": args.epochs * train_pass,
        "total": forward + args.epochs * train_pass,
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--updates", type=int, default=6, help="PPO updates per trial (>= 2)")
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--sides", default=",".join(SIDES), help=f"comma list of: {', '.join(SIDES)}")
    p.add_argument("--decisions", type=int, help="project the wall-clock for this many")
    p.add_argument("--json", type=Path, help="also write the results here")
    # in_fresh_process's child: the loop to measure, with the parent's resolved precision.
    p.add_argument("--measure", choices=LOOPS, help=argparse.SUPPRESS)
    p.add_argument("--precision", default="auto", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.updates < 2:
        p.error("--updates must be at least 2 (the first is a warm-up)")
    args.sides = list(dict.fromkeys(s.strip() for s in args.sides.split(",") if s.strip()))
    unknown = sorted(set(args.sides) - set(SIDES))
    if unknown or not args.sides:
        p.error(f"--sides: unknown {unknown}; choose from {', '.join(SIDES)}")
    if "envpool" in args.sides and not args.measure:
        try:
            import envpool  # noqa: F401
        except ImportError:
            p.error("envpool is not installed (pip install envpool); leave it out with --sides")
    return args


def run_trials(
    sides: list[str], updates: int, trials: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Decisions/s per side and trial, the sides in a new order each trial, and the matmul
    peaks measured at the start of each trial (GFLOP/s): float32's (acting), and the PPO
    epochs' precision's."""
    rates: dict[str, list[float]] = {side: [] for side in sides}
    peaks: dict[str, list[float]] = {"fp32": [], RECIPE.precision: []}
    for trial in range(trials):
        for precision, values in peaks.items():
            values.append(matmul_gflops(dtype=EPOCHS_DTYPE[precision]))
            print(
                f"trial {trial + 1}/{trials}  {precision} matmul peak {values[-1]:8.1f} GFLOP/s",
                flush=True,
            )
        for side in harness.alternating(sides, trial):
            rate = SIDES[side].measure(updates)
            rates[side].append(rate)
            label = SIDES[side].label
            print(f"trial {trial + 1}/{trials}  {label:36s} {rate:8.1f} decisions/s", flush=True)
    return rates, peaks


def learner_limit(
    medians: dict[str, float], peak_gflops: float, epochs_peak_gflops: float | None = None
) -> dict[str, object]:
    """The FLOP-bound limit of decisions/s, and each loop's fraction of it: a decision's acting
    at the float32 peak plus its share of training at the peak of the epochs' precision
    (`epochs_peak_gflops`; the float32 peak when the epochs run in float32)."""
    flops = flops_per_decision()
    epochs_peak = peak_gflops if epochs_peak_gflops is None else epochs_peak_gflops
    seconds = flops["act"] / (peak_gflops * 1e9) + flops["train"] / (epochs_peak * 1e9)
    limit = 1 / seconds
    return {
        "flops_per_decision": flops,
        "peak_gflops": peak_gflops,
        "epochs_peak_gflops": epochs_peak,
        "limit_decisions_per_s": limit,
        "fraction_of_limit": {side: rate / limit for side, rate in medians.items()},
    }


def print_table(rates: dict[str, list[float]], medians: dict[str, float]) -> None:
    print(f"\n{'loop':32s} {'decisions/s (median)':>22s} {'range':>18s}")
    for side, values in rates.items():
        spread = f"{min(values):.0f}-{max(values):.0f}"
        print(f"{SIDES[side].label:32s} {medians[side]:22.1f} {spread:>18s}")


def ratios_to_anchors(medians: dict[str, float]) -> dict[str, float]:
    """How many times faster ours trains than each anchor (none without ours)."""
    if OURS not in medians:
        return {}
    return {
        side: harness.ratio(medians[OURS], rate, higher_is_better=True)
        for side, rate in medians.items()
        if side != OURS
    }


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.measure:
        print(measure_here(args.measure, args.updates, args.precision))
        return
    info = machine_info()
    harness.print_machine_info(info)
    resolve_precision(RECIPE)
    print(f"the recipe's PPO epochs: {RECIPE.precision} (--precision auto)", flush=True)
    rates, peaks = run_trials(args.sides, args.updates, args.trials)
    summaries = {side: harness.summarize(values) for side, values in rates.items()}
    medians = {side: s["median"] for side, s in summaries.items()}
    print_table(rates, medians)
    ratios = ratios_to_anchors(medians)
    for side, r in ratios.items():
        print(f"ratio to {SIDES[side].label}: {r:.1f}x")
    peak = {precision: float(np.median(values)) for precision, values in peaks.items()}
    limit = learner_limit(medians, peak["fp32"], peak[RECIPE.precision])
    flops = limit["flops_per_decision"]
    assert isinstance(flops, dict)
    print(
        f"\nthe learner's limit: {flops['total'] / 1e6:.1f} MFLOP per decision "
        f"({flops['act'] / 1e6:.1f} to act at the fp32 matmul peak of {peak['fp32']:.0f} "
        f"GFLOP/s, {flops['train'] / 1e6:.1f} to train at {RECIPE.epochs} epochs at the "
        f"{RECIPE.precision} peak of {peak[RECIPE.precision]:.0f}): "
        f"{limit['limit_decisions_per_s']:.0f} decisions/s"
    )
    fractions = limit["fraction_of_limit"]
    assert isinstance(fractions, dict)
    for side, fraction in fractions.items():
        print(f"{SIDES[side].label:36s} {fraction:6.1%} of the limit")
    result: dict[str, object] = {
        "machine": info,
        "updates": args.updates,
        "trials": args.trials,
        "precision": RECIPE.precision,
        "labels": {side: SIDES[side].label for side in args.sides},
        "rates": rates,
        "medians": medians,
        "ranges": {side: [s["min"], s["max"]] for side, s in summaries.items()},
        "ratios": ratios,
        "matmul_peaks_gflops": peaks["fp32"],
        "epochs_matmul_peaks_gflops": peaks[RECIPE.precision],
        "limit": limit,
    }
    if args.decisions:
        minutes = {side: args.decisions / rate / 60 for side, rate in medians.items()}
        result["decisions"] = args.decisions
        result["projected_minutes"] = minutes
        for side, m in minutes.items():
            label = SIDES[side].label
            print(f"{args.decisions} decisions on {label}: {m:.0f} min ({m / 60:.1f} h)")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
