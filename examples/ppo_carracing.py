"""PPO on pixel CarRacing with the streaming collector: Rust workers collect while PyTorch trains.

    pip install torch matplotlib tqdm     # matplotlib and tqdm are optional
    python examples/ppo_carracing.py --total-steps 300000 --out out/ppo_carracing

`engine.collect_stream` runs the games and calls `infer` in a background thread, so the next
batch is being collected while the main thread runs the PPO epochs on the current one. The two
threads never share a network: `infer` uses an "actor" copy, refreshed from the learner under a
lock after every update, followed by `engine.weights_updated()` so that batches carry the
version of the weights that collected them (`policy_lag`). The importance ratio is taken against
`batch.behavior_log_probs`, so batches collected by slightly older weights are still valid PPO
data. Writes `scalars.csv` (one row per update) and `curve.png` (mean episode return vs env steps)
into `--out`.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import threading
import time
from collections.abc import Generator, Iterator
from pathlib import Path

import numpy as np

import reinfors_gym as rf

sys.path.insert(0, str(Path(__file__).resolve().parent))  # evaluate.py: the checkpoint format

try:
    import torch
    import torch.nn as nn
    from torch.distributions import Independent
    from torch.distributions.normal import Normal
except ImportError:
    sys.exit(
        "This example needs PyTorch: pip install torch (or pip install 'reinfors-gym[examples]')"
    )

COLUMNS = [
    "update", "env_steps", "mean_return", "episodes", "policy_loss", "value_loss", "entropy",
    "approx_kl", "clipfrac", "lr", "env_steps_per_s", "collect_s", "infer_s", "wait_s",
    "train_s", "policy_lag", "wall_s", "mean_length", "gymnasium_return",
]  # fmt: skip


def add_ppo_arguments(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """The streaming PPO loop's options (`stream_updates`, `ppo_update`), shared with train.py."""
    p.add_argument("--n-games", type=int, default=16, help="parallel games")
    p.add_argument("--n-threads", type=int, default=2, help="collector worker threads")
    p.add_argument("--collect-size", type=int, default=2048, help="records (decisions) per batch")
    p.add_argument(
        "--overlap",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="collect the next batch in the collector's thread while training on this one",
    )
    p.add_argument("--depth", type=int, default=1, help="finished batches that may wait")
    p.add_argument("--lr", type=float, default=3e-4, help="Adam learning rate (annealed to 0)")
    p.add_argument("--epochs", type=int, default=4, help="PPO epochs per batch (at most)")
    p.add_argument("--minibatch-size", type=int, default=256, help="records per gradient step")
    p.add_argument("--clip", type=float, default=0.2, help="PPO ratio clipping")
    p.add_argument("--ent-coef", type=float, default=0.0, help="entropy bonus coefficient")
    p.add_argument("--vf-coef", type=float, default=0.5, help="value loss coefficient")
    p.add_argument("--max-grad-norm", type=float, default=0.5, help="gradient norm clipping")
    p.add_argument("--value-scale", type=float, default=100.0, help="returns are learned / this")
    p.add_argument("--gamma", type=float, default=0.99, help="discount per decision")
    p.add_argument("--lam", type=float, default=0.95, help="GAE lambda")
    p.add_argument("--torch-threads", type=int, default=2, help="torch.set_num_threads")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--total-steps", type=int, default=300_000, help="env steps in all")
    add_ppo_arguments(p)
    p.add_argument("--init-log-std", type=float, default=-0.5, help="initial Gaussian log std")
    p.add_argument("--seed", type=int, default=1, help="seeds the games and torch")
    p.add_argument("--out", type=Path, default=Path("out/ppo_carracing"), help="output folder")
    # The observation options, native in the collector and reproduced on Gymnasium's own env by
    # examples/evaluate.py (its wrappers give the same frames).
    p.add_argument("--frame-skip", type=int, default=1, help="simulation steps per decision")
    p.add_argument("--stack-num", type=int, default=1, help="frames stacked per observation")
    p.add_argument("--grayscale", action="store_true", help="one luminance channel")
    # The training reward; `gymnasium_return` in the scalars is always Gymnasium's score.
    p.add_argument(
        "--step-reward",
        type=float,
        default=-0.1,
        help="reward per simulation step (Gymnasium's: -0.1). A smaller time penalty weighs a "
        "missed tile more against the time a shortcut saves",
    )
    p.add_argument(
        "--off-road-reward",
        type=float,
        default=0.0,
        help="reward per wheel on no road tile, per simulation step (Gymnasium has none). A "
        "penalty makes cutting a corner or sliding off the road cost at once",
    )
    p.add_argument("--export", type=Path, help="save the final policy here (evaluate.py format)")
    p.add_argument("--init-from", type=Path, help="start from a policy saved with --export")
    p.add_argument(
        "--final-log-std",
        type=float,
        help="anneal the Gaussian log std linearly from its initial value to this one instead "
        "of learning it (the mean must then learn what the noise did, e.g. when to brake)",
    )
    return p.parse_args(argv)


def layer_init(layer: nn.Module, std: float = np.sqrt(2)) -> nn.Module:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.zeros_(layer.bias)
    return layer


class Agent(nn.Module):
    """Small CNN trunk (stride-4 first conv) shared by a Gaussian policy and a value head.

    Takes observations as `gym.make` and Gymnasium's wrappers give them (channels last, stacked
    frames first): `(n, 96, 96, 3)`, `(n, k, 96, 96, 3)`, `(n, 96, 96)` or `(n, k, 96, 96)`
    grayscale; the stacked frames' channels become the trunk's input channels."""

    def __init__(self, value_scale: float, init_log_std: float, stack_num: int = 1,
                 grayscale: bool = False):  # fmt: skip
        super().__init__()
        self.grayscale = grayscale
        channels = stack_num * (1 if grayscale else 3)
        self.trunk = nn.Sequential(
            layer_init(nn.Conv2d(channels, 16, 8, stride=4)),  # (c, 96, 96) -> (16, 23, 23)
            nn.ReLU(),
            layer_init(nn.Conv2d(16, 32, 4, stride=2)),  # -> (32, 10, 10)
            nn.ReLU(),
            layer_init(nn.Conv2d(32, 32, 3, stride=1)),  # -> (32, 8, 8)
            nn.ReLU(),
            nn.Flatten(),
            layer_init(nn.Linear(32 * 8 * 8, 256)),
            nn.ReLU(),
        )
        self.mean = layer_init(nn.Linear(256, 3), std=0.01)
        self.log_std = nn.Parameter(torch.full((3,), init_log_std))
        self.value = layer_init(nn.Linear(256, 1), std=1.0)
        self.value_scale = value_scale

    def forward(self, obs: torch.Tensor):
        """uint8 observations -> mean (n, 3), log_std (n, 3), value (n,) in reward units."""
        return self.heads(self.preprocess(obs))

    def preprocess(self, obs: torch.Tensor) -> torch.Tensor:
        """uint8 observations -> the trunk's float input (no parameters: `ppo_update` runs it
        once per batch, not once per epoch)."""
        return channels_first(obs, self.grayscale)

    def heads(self, x: torch.Tensor):
        """`preprocess`'s output -> mean (n, 3), log_std (n, 3), value (n,)."""
        hidden = self.trunk(x)
        mean = self.mean(hidden)
        value = self.value(hidden).squeeze(-1) * self.value_scale
        return mean, self.log_std.expand_as(mean), value

    @staticmethod
    def distribution(mean: torch.Tensor, log_std: torch.Tensor) -> Independent:
        """The policy's distribution over actions from the first two outputs of `forward`: the
        collector's diagonal Gaussian (`rf.policies.Ppo()`)."""
        return Independent(Normal(mean, log_std.exp()), 1)


def frames_first(obs: torch.Tensor, grayscale: bool) -> torch.Tensor:
    """uint8 observations as `gym.make` and Gymnasium's wrappers give them (channels last,
    stacked frames first) -> uint8 (n, channels, height, width)."""
    n = obs.shape[0]
    if grayscale:
        return obs.reshape(n, -1, obs.shape[-2], obs.shape[-1])
    if obs.dim() == 4:
        return obs.permute(0, 3, 1, 2)
    return obs.permute(0, 1, 4, 2, 3).reshape(n, -1, obs.shape[2], obs.shape[3])


def pooled_frames(frames: torch.Tensor, factor: int) -> torch.Tensor:
    """uint8 `(n, c, h, w)` frames -> float32 means of their `factor` x `factor` blocks, scaled
    to [0, 1]: the numbers `avg_pool2d(frames.float(), factor) / 255` gives (rows and columns
    past the last whole block dropped), at a fraction of its cost.

    The blocks are summed as 16-bit integers, exactly, so only their sums become floats; a
    sum divided by the block's size is then the same float `avg_pool2d` computes."""
    if factor == 1:
        return frames.float() * (1.0 / 255.0)
    if factor * factor * 255 > torch.iinfo(torch.int16).max:
        raise ValueError(f"a pooling factor of {factor} overflows 16-bit sums")
    n, c = frames.shape[:2]
    h, w = frames.shape[2] // factor, frames.shape[3] // factor
    blocks = frames[:, :, : h * factor, : w * factor].reshape(n, c, h, factor, w * factor)
    rows = blocks[:, :, :, 0].to(torch.int16)
    for i in range(1, factor):
        rows = rows + blocks[:, :, :, i]
    rows = rows.reshape(n, c, h, w, factor)
    sums = rows[..., 0]
    for i in range(1, factor):
        sums = sums + rows[..., i]
    return sums.float() / (factor * factor) * (1.0 / 255.0)


def channels_first(obs: torch.Tensor, grayscale: bool) -> torch.Tensor:
    """`frames_first` as float in [0, 1]."""
    return frames_first(obs, grayscale).float() / 255.0


def start_from(agent: Agent, path: Path, options: dict) -> None:
    """Loads the weights of a policy saved with `--export`, which must have been trained on the
    same observation options."""
    from evaluate import load_checkpoint

    module, saved = load_checkpoint(str(path))
    if saved != options:
        sys.exit(f"--init-from {path} was trained with {saved}, this run has {options}")
    agent.load_state_dict(module.state_dict())


class PhaseClock:
    """Seconds spent in each named phase of `ppo_update` (`with clock("forward"): ...`), for
    bench/profile_update.py; `ppo_update` runs without one at no cost."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextlib.contextmanager
    def __call__(self, phase: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            elapsed = time.perf_counter() - start
            self.seconds[phase] = self.seconds.get(phase, 0.0) + elapsed


#: Rows `ppo_update` preprocesses at a time.
PREPROCESS_ROWS = 64


def _no_clock(phase: str) -> contextlib.nullcontext[None]:
    return contextlib.nullcontext()


def ppo_update(
    agent, optimizer, batch: rf.Batch, args, rng, heads=None, clock=None
) -> dict[str, float]:
    """The clipped PPO objective over `epochs` passes of shuffled minibatches.

    `agent(obs)` is `agent.heads(agent.preprocess(obs))`: `preprocess` (no parameters) runs
    once over the batch, `heads` gives two distribution parameters and the value for each
    minibatch; `agent.distribution(p, q)` is the action distribution (summed log-probability
    and entropy per row). With `args.target_kl` set (not None), the epochs stop early once an
    epoch's mean approximate KL exceeds it. `heads` stands in for `agent.heads` (a compiled
    copy of it); a `PhaseClock` as `clock` times the phases."""
    heads = agent.heads if heads is None else heads
    clock = _no_clock if clock is None else clock
    device = next(agent.parameters()).device
    flat = batch.flat()
    with clock("preprocessing the batch"), torch.no_grad():
        frames = torch.from_numpy(flat["obs"]).to(device)
        # In slices that stay in the cache while they are pooled (each row is its own).
        obs = torch.cat([agent.preprocess(part) for part in frames.split(PREPROCESS_ROWS)])
    actions = torch.from_numpy(flat["actions"]).to(device)
    old_log_probs = torch.from_numpy(flat["behavior_log_probs"]).to(device)
    advantages = torch.from_numpy(flat["advantages"]).to(device)
    returns = torch.from_numpy(flat["returns"]).to(device)
    stats: dict[str, list[float]] = {k: [] for k in COLUMNS[4:9]}
    target_kl = getattr(args, "target_kl", None)
    for _ in range(args.epochs):
        order = torch.from_numpy(rng.permutation(len(obs))).to(device)
        epoch_kl: list[float] = []
        for idx in order.split(args.minibatch_size):
            with clock("minibatch gathers"):
                x = obs[idx]
            with clock("forward passes"):
                first, second, value = heads(x)
            with clock("Beta log-probabilities and losses"):
                dist = agent.distribution(first, second)
                log_ratio = dist.log_prob(actions[idx]).float() - old_log_probs[idx]
                ratio = log_ratio.exp()
                adv = advantages[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                clipped = ratio.clamp(1.0 - args.clip, 1.0 + args.clip)
                policy_loss = torch.max(-adv * ratio, -adv * clipped).mean()
                value_loss = 0.5 * (((value - returns[idx]) / args.value_scale) ** 2).mean()
                entropy = dist.entropy().float().mean()
                loss = policy_loss + args.vf_coef * value_loss - args.ent_coef * entropy
            with clock("backward passes"):
                optimizer.zero_grad()
                loss.backward()
            with clock("gradient clipping and Adam"):
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
            with clock("statistics"), torch.no_grad():  # http://joschu.net/blog/kl-approx.html
                approx_kl = ((ratio - 1.0) - log_ratio).mean()
                clipfrac = ((ratio - 1.0).abs() > args.clip).float().mean()
                for k, v in (
                    ("policy_loss", policy_loss),
                    ("value_loss", value_loss),
                    ("entropy", entropy),
                    ("approx_kl", approx_kl),
                    ("clipfrac", clipfrac),
                ):
                    stats[k].append(v.item())
            epoch_kl.append(stats["approx_kl"][-1])
        if target_kl is not None and float(np.mean(epoch_kl)) > target_kl:
            break
    return {k: float(np.mean(v)) for k, v in stats.items()}


def plot_curve(rows: list[dict], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no learning curve (pip install matplotlib)")
        return
    done = [r for r in rows if r["episodes"] > 0]
    if not done:
        print("no episode finished: no learning curve")
        return
    steps = np.array([r["env_steps"] for r in done], dtype=float)
    returns = np.array([r["mean_return"] for r in done])
    counts = np.array([r["episodes"] for r in done], dtype=float)
    # Episode-weighted running mean over the last 5 updates that finished episodes.
    window = np.ones(5)
    totals = np.convolve(returns * counts, window)[: len(done)]
    smooth = totals / np.convolve(counts, window)[: len(done)]
    fig, ax = plt.subplots(figsize=(7, 4.4))
    ax.scatter(steps, returns, s=4 * counts, alpha=0.35, label="batch mean (area: episodes)")
    ax.plot(steps, smooth, "C1", lw=2, label="running mean (5 batches with episodes)")
    ax.axhline(900, color="C2", ls="--", lw=1, label="solved (900)")
    ax.set_xlabel("env steps (decisions)")
    # Wall-clock on a second axis: the run's own pace, training included.
    rate = float(done[-1]["env_steps"]) / float(done[-1]["wall_s"])
    top = ax.secondary_xaxis("top", functions=(lambda x: x / rate / 60.0, lambda m: m * 60 * rate))
    top.set_xlabel("wall-clock minutes")
    ax.set_ylabel("episode return")
    ax.set_title("PPO on CarRacing (reinfors-gym streaming collector)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"learning curve: {path}")


def batches(engine: rf.Engine, infer, args: argparse.Namespace) -> Generator[rf.Batch, None, None]:
    """Batches of `args.collect_size` decisions: with `args.overlap`, from
    `engine.collect_stream`, whose thread collects the next batch while the caller trains on
    this one; without, collected in the caller's thread when asked for (no thread shares the
    cores with the training; `wait_s` is then the whole collection, `policy_lag` 0)."""
    if args.overlap:
        with engine.collect_stream(args.collect_size, infer, depth=args.depth) as stream:
            yield from stream
        return
    while True:
        start = time.perf_counter()
        batch = engine.collect(args.collect_size, infer)
        batch.telemetry.update(wait_seconds=time.perf_counter() - start, policy_lag=0.0)
        yield batch


def stream_updates(
    engine: rf.Engine,
    infer,
    learner: nn.Module,
    actor: nn.Module,
    actor_lock: threading.Lock,
    optimizer: torch.optim.Optimizer,
    args: argparse.Namespace,
    n_updates: int,
    before_update=None,
    progress=None,
    budget_minutes: float = 0.0,
) -> tuple[list[dict], int, float]:
    """The streaming PPO loop: `n_updates` batches from `engine.collect_stream(infer)`, one PPO
    update each, the actor refreshed under `actor_lock` after each; one row per update in
    `args.out / "scalars.csv"` and TensorBoard's files there (`run_log.ScalarLog`), and a
    progress bar that counts minutes when `budget_minutes` is positive (to the nearer end: those
    minutes, or the decisions at the run's rate), else the decisions. The
    learning rate anneals linearly from `args.lr` to 0 over `progress(update, elapsed_s)`, the
    fraction of the run done (default: `update / n_updates`); the loop also ends once that
    reaches 1. `before_update(update, done)` runs before each update, with `done` that fraction.
    Returns the rows, the env steps (decisions) trained on, and the seconds from the start to
    the last update."""
    from precision import epoch_heads
    from run_log import ProgressBar, ScalarLog

    if progress is None:

        def progress(update: int, elapsed: float) -> float:
            return update / n_updates

    rng = np.random.default_rng(args.seed)
    heads = epoch_heads(learner, args)
    bar = ProgressBar(n_updates * args.collect_size, budget_minutes)
    rows: list[dict] = []
    log = ScalarLog(args.out, COLUMNS, step_key="env_steps")
    start = time.perf_counter()
    env_steps = 0
    with contextlib.closing(batches(engine, infer, args)) as stream:
        for update in range(n_updates):
            done = progress(update, time.perf_counter() - start)
            if done >= 1.0:
                break
            batch = next(stream)
            lr = args.lr * (1.0 - done)
            optimizer.param_groups[0]["lr"] = lr
            if before_update is not None:
                before_update(update, done)
            t0 = time.perf_counter()
            stats = ppo_update(learner, optimizer, batch, args, rng, heads)
            with actor_lock:
                actor.load_state_dict(learner.state_dict())
            engine.weights_updated()
            train_s = time.perf_counter() - t0

            env_steps += len(batch)
            tele = batch.telemetry
            episodes = len(batch.episode_returns)
            nan = float("nan")
            elapsed = time.perf_counter() - start
            row = {
                "update": update + 1,
                "env_steps": env_steps,
                "mean_return": float(batch.episode_returns.mean()) if episodes else float("nan"),
                "episodes": episodes,
                **stats,
                "lr": lr,
                "env_steps_per_s": env_steps / elapsed,
                "wall_s": elapsed,
                "collect_s": tele["collect_seconds"],
                "infer_s": tele["infer_seconds"],
                "wait_s": tele["wait_seconds"],
                "train_s": train_s,
                "policy_lag": tele["policy_lag"],
                "mean_length": float(batch.episode_lengths.mean()) if episodes else nan,
                "gymnasium_return": float(batch.episode_scores.mean()) if episodes else nan,
            }
            rows.append(row)
            log.write(row)
            recent = [r for r in rows[-10:] if r["episodes"]]
            score = np.mean([r["gymnasium_return"] for r in recent]) if recent else nan
            bar.update(
                env_steps,
                elapsed,
                f"decisions {env_steps:,}  score {score:6.1f}  "
                f"{row['env_steps_per_s']:4.0f} decisions/s  train {train_s:.2f}s",
            )
    bar.close()
    log.close()
    return rows, env_steps, time.perf_counter() - start


def main() -> None:
    args = parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    n_updates = max(1, -(-args.total_steps // args.collect_size))  # at least total_steps

    engine = rf.Engine(
        game=rf.games.CarRacing(
            frame_skip=args.frame_skip,
            stack_num=args.stack_num,
            grayscale=args.grayscale,
        ),
        reward=rf.Reward(step=args.step_reward, off_road=args.off_road_reward),
        policy=rf.policies.Ppo(),
        learner=rf.learners.Ppo(gamma=args.gamma, lam=args.lam),
        n_games=args.n_games,
        n_threads=args.n_threads,
        seed=args.seed,
    )
    shape = (args.value_scale, args.init_log_std, args.stack_num, args.grayscale)
    learner = Agent(*shape)
    options = {
        "frame_skip": args.frame_skip,
        "stack_num": args.stack_num,
        "grayscale": args.grayscale,
    }
    if args.init_from is not None:
        start_from(learner, args.init_from, options)
    first_log_std = learner.log_std.detach().clone()
    if args.final_log_std is not None:
        learner.log_std.requires_grad_(False)
    actor = Agent(*shape)  # used only by `infer`, in the collector
    actor.load_state_dict(learner.state_dict())
    actor_lock = threading.Lock()
    optimizer = torch.optim.Adam(learner.parameters(), lr=args.lr, eps=1e-5)

    def infer(obs: np.ndarray):
        # log_std is a view of the actor's parameter, which the trainer overwrites after each
        # update: copy it out (torch.cat) before the lock is released.
        with actor_lock, torch.no_grad():
            mean, log_std, value = actor(torch.from_numpy(obs))
            return torch.cat([mean, log_std], 1).numpy(), value.numpy()

    def before_update(update: int, done: float) -> None:
        if args.final_log_std is not None:
            with torch.no_grad():
                frac = update / max(1, n_updates - 1)
                step = frac * (args.final_log_std - first_log_std)
                learner.log_std.copy_(first_log_std + step)

    rows, env_steps, wall = stream_updates(
        engine, infer, learner, actor, actor_lock, optimizer, args, n_updates,
        before_update=before_update,
    )  # fmt: skip
    print(f"{env_steps} env steps in {wall:.0f} s; scalars: {args.out / 'scalars.csv'}")
    plot_curve(rows, args.out / "curve.png")
    if args.export is not None:
        from evaluate import save_checkpoint

        save_checkpoint(learner, str(args.export), options)
        print(f"policy: {args.export} ({options})")


if __name__ == "__main__":
    main()
