"""The policy loops of asynchronous stepping, side by side: how close each loop comes to the
policy alone (its ceiling), for policies that leave cores free and one that does not.

    reinfors-gym bench --loops [--trials 5] [--seconds 4] [--out docs]
    python bench/bench_loops.py [--trials 5] [--seconds 4] [--json docs/async_loops.json]

Policies (each a group of loops):

- ``device``: holds the loop 2 ms without a core (a sleep), as a GPU or an inference server
  does, then returns its actions;
- ``cnn-1``: CleanRL's Nature CNN on one torch thread (a core left free), and ``cnn-1-kept``
  with glibc keeping freed memory (`reinfors_gym.keep_freed_memory`, called before anything
  else in the measuring process), so that no loop's rate hangs on where glibc's page faults fall;
- ``cnn-all``: the same CNN on every core (nothing left free), ``cnn-all-passive`` with
  ``OMP_WAIT_POLICY=PASSIVE`` (PyTorch's OpenMP workers sleep between kernels instead of
  spinning), and ``cnn-all-kept`` with glibc keeping freed memory.

Loops, 16 sub-envs in batches of 8: ``ceiling`` (the policy alone on a fixed batch of 8),
``step`` (the 8-env step alone, default threads), ``step-1`` (the same on the calling thread
alone, as when the policy's threads hold every other core), ``sync`` (8 envs: obs, policy, step),
``async`` (16 envs: ``recv`` 8, policy, ``send``) and ``envpool-async`` (EnvPool's loop, the
same). For the CNN, two probes of the policy alone on its fixed batch, each call preceded by
`INTERPOSED_MS` of other work on the calling thread, timed apart from the policy:
``ceiling-busy`` spins (no memory touched), ``ceiling-touch`` reads a `TOUCH_BYTES` buffer for
as long; the pair tells whether the policy slows in the synchronous loop because of the pause
between its calls or because the work in that pause evicts its data from the caches. The serial
bound is a loop that overlaps nothing: the policy alone plus the step alone, both measured in the
same run; the one-core bound takes the step on one thread instead. Each measurement also reports
the CPU its threads used per iteration (`thread_cpu`): the calling thread, the pool's helpers,
and the others (the policy's OpenMP workers, EnvPool's threads), and the process's page faults
per iteration (memory the allocator handed back to the kernel and took again).

Every measurement runs in its own process; each trial runs all of them, the order reversed
from one trial to the next; reports give medians and ranges.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from . import documents, thread_cpu
from .documents import RunStart, check_header, check_stats, requirement
from .loop_ratios import checks, summarize_group
from .method import alternating, run_worker, trial_stats
from .provenance import print_machine_info, usable_cores

SCHEMA = "reinfors-gym-loops/1"
DEVICE_MS = 2.0
NUM_ENVS, BATCH = 16, 8
LOOPS = ("ceiling", "step", "step-1", "sync", "async", "envpool-async")
#: Probes of the CNN alone with other work between its calls (not loops with an env).
PROBES = ("ceiling-busy", "ceiling-touch")
#: The work between two calls of a probe: about the 8-env step inside the synchronous loop.
INTERPOSED_MS = 0.4
#: The buffer `ceiling-touch` reads, in slices, larger than the caches of the cores it runs on.
TOUCH_BYTES = 64 << 20
TOUCH_SLICE = 256 << 10


@dataclass(frozen=True)
class Group:
    """One policy and how it runs."""

    name: str
    title: str
    policy: str  # "device" or "cnn"
    torch_threads: int = 0
    omp_wait_policy: str | None = None
    keep_freed_memory: bool = False


def groups(cores: int) -> list[Group]:
    return [
        Group("device", f"device-like: holds the loop {DEVICE_MS:g} ms without a core", "device"),
        Group("cnn-1", "Nature CNN on 1 torch thread", "cnn", 1),
        Group(
            "cnn-1-kept",
            "the same, glibc keeps freed memory (1 torch thread)",
            "cnn",
            1,
            keep_freed_memory=True,
        ),
        Group("cnn-all", f"Nature CNN on {cores} torch threads (every core)", "cnn", cores),
        Group(
            "cnn-all-passive",
            f"the same, OMP_WAIT_POLICY=PASSIVE ({cores} torch threads)",
            "cnn",
            cores,
            "PASSIVE",
        ),
        Group(
            "cnn-all-kept",
            f"the same, glibc keeps freed memory ({cores} torch threads)",
            "cnn",
            cores,
            keep_freed_memory=True,
        ),
    ]


# --------------------------------------------------------------------------- in the worker


def make_policy(policy: str, torch_threads: int) -> Callable[[Any], Any]:
    """`act(obs) -> actions`, clipped to the action box as CleanRL clips before stepping."""
    import numpy as np

    low = np.array([-1.0, 0.0, 0.0], np.float32)
    high = np.array([1.0, 1.0, 1.0], np.float32)
    if policy == "device":
        actions: dict[int, Any] = {}

        def device(obs: Any) -> Any:
            time.sleep(DEVICE_MS / 1000)  # the device works; this thread holds no core
            n = len(obs)
            if n not in actions:
                actions[n] = np.tile(np.array([0.0, 0.5, 0.0], np.float32), (n, 1))
            return actions[n]

        return device
    if policy == "cnn":
        from .policy_loops import nature_cnn_agent

        cnn = nature_cnn_agent(torch_threads)
        return lambda obs: np.clip(cnn(obs), low, high)
    raise ValueError(f"no policy {policy!r}")


def busy_for(seconds: float) -> None:
    """Holds the calling thread `seconds` without touching memory beyond its own stack."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def read_memory_for(buffer: Any, seconds: float, start: int) -> tuple[int, int]:
    """Reads `buffer` (1-D uint8) slice by slice from byte `start`, wrapping around, for at
    least one slice and then until `seconds` have passed: what other work between two calls
    of the policy does to the caches. Returns the bytes read and where the next read starts."""
    size = len(buffer)
    end = time.perf_counter() + seconds
    read, at = 0, start % size
    while read == 0 or time.perf_counter() < end:
        part = buffer[at : at + TOUCH_SLICE]
        part.max()  # a vectorized pass over every byte of the slice
        read += len(part)
        at = (at + len(part)) % size
    return read, at


def _make_env(loop: str, num_envs: int, batch_size: int):
    if loop == "envpool-async":
        import envpool

        from .measuring import quiet_gym

        quiet_gym()
        return envpool.make_gymnasium(
            "CarRacing-v3", num_envs=num_envs, batch_size=batch_size, num_threads=usable_cores()
        )
    import reinfors_gym

    if loop == "async":
        return reinfors_gym.CarRacingVectorEnv(num_envs, batch_size=batch_size)
    if loop == "step-1":
        return reinfors_gym.CarRacingVectorEnv(batch_size, num_threads=1)
    return reinfors_gym.CarRacingVectorEnv(batch_size)


def measure(
    policy: str,
    loop: str,
    torch_threads: int,
    num_envs: int,
    batch_size: int,
    seconds: float,
    warmup: float,
    omp_wait_policy: str | None = None,
    interposed_ms: float = INTERPOSED_MS,
    keep_freed_memory: bool = False,
) -> dict[str, float]:
    """One loop for `seconds` after `warmup`: env steps/s, and the medians of its phases per
    iteration (ms): the policy, and the env (a step, or recv plus send; for a probe, its work
    between the policy's calls)."""
    if keep_freed_memory:
        from ..allocator import keep_freed_memory as keep

        keep()  # before the loop's first arrays and tensors
    if omp_wait_policy:
        # Read by the OpenMP runtime when torch loads it, which is below.
        os.environ["OMP_WAIT_POLICY"] = omp_wait_policy
    import numpy as np

    act = make_policy(policy, torch_threads)
    clock = time.perf_counter
    # The policy-alone loops' fixed batch.
    obs0 = np.random.default_rng(0).integers(0, 256, (batch_size, 96, 96, 3), np.uint8)
    if loop == "ceiling":

        def iteration() -> tuple[float, float]:
            t0 = clock()
            act(obs0)
            return clock() - t0, 0.0

        return _timed(iteration, batch_size, seconds, warmup)
    if loop in PROBES:
        gap = interposed_ms / 1000
        memory = np.ones(TOUCH_BYTES, np.uint8) if loop == "ceiling-touch" else None
        cursor = {"at": 0}

        def iteration() -> tuple[float, float]:
            t0 = clock()
            if memory is None:
                busy_for(gap)
            else:
                cursor["at"] = read_memory_for(memory, gap, cursor["at"])[1]
            t1 = clock()
            act(obs0)
            return clock() - t1, t1 - t0

        return _timed(iteration, batch_size, seconds, warmup)
    env = _make_env(loop, num_envs, batch_size)
    if loop in ("step", "step-1"):
        fixed = np.tile(np.array([0.0, 0.3, 0.0]), (batch_size, 1))
        env.reset(seed=0)

        def iteration() -> tuple[float, float]:
            t0 = clock()
            env.step(fixed)
            return 0.0, clock() - t0

    elif loop == "sync":
        state = {"obs": env.reset(seed=0)[0]}

        def iteration() -> tuple[float, float]:
            t0 = clock()
            actions = act(state["obs"])
            t1 = clock()
            state["obs"] = env.step(actions)[0]
            return t1 - t0, clock() - t1

    elif loop in ("async", "envpool-async"):
        env.async_reset()

        def iteration() -> tuple[float, float]:
            t0 = clock()
            obs, _, _, _, info = env.recv()
            t1 = clock()
            actions = act(obs)
            t2 = clock()
            env.send(actions, info["env_id"])
            return t2 - t1, (t1 - t0) + (clock() - t2)

    else:
        raise ValueError(f"no loop {loop!r}")
    try:
        return _timed(iteration, batch_size, seconds, warmup)
    finally:
        env.close()


def _timed(
    iteration: Callable[[], tuple[float, float]], batch: int, seconds: float, warmup: float
) -> dict[str, float]:
    def run(duration: float) -> tuple[int, float, list[float], list[float]]:
        policy, env = [], []
        start = time.perf_counter()
        while True:
            p, e = iteration()
            policy.append(p)
            env.append(e)
            elapsed = time.perf_counter() - start
            if elapsed >= duration:
                return len(policy), elapsed, policy, env

    if warmup > 0:
        run(warmup)
    before, faults = thread_cpu.snapshot(), thread_cpu.page_faults()
    n, elapsed, policy, env = run(seconds)
    cpu = thread_cpu.split(before, thread_cpu.snapshot(), n)
    faulted = {} if faults is None else {"page_faults": (thread_cpu.page_faults() - faults) / n}
    return {
        "steps_per_s": n * batch / elapsed,
        "policy_ms": 1e3 * statistics.median(policy),
        "env_ms": 1e3 * statistics.median(env),
        **cpu,
        **faulted,
    }


# --------------------------------------------------------------------------- the plan


@dataclass
class Config:
    trials: int = 5
    seconds: float = 4.0
    warmup: float = 1.0
    num_envs: int = NUM_ENVS
    batch_size: int = BATCH
    groups: tuple[str, ...] = ()  # default: all
    quick: bool = False


@dataclass
class Row:
    group: str
    loop: str
    params: dict[str, Any]
    trials: list[dict[str, float]] = field(default_factory=list)
    skipped: str | None = None

    @property
    def id(self) -> str:
        return f"{self.group}:{self.loop}"


def plan(config: Config, cores: int | None = None) -> tuple[list[Group], list[Row]]:
    every = groups(cores or usable_cores())
    chosen = [g for g in every if g.name in config.groups or not config.groups]
    rows = []
    for g in chosen:
        for loop in LOOPS + (PROBES if g.policy == "cnn" else ()):
            params = {
                "policy": g.policy,
                "loop": loop,
                "torch_threads": g.torch_threads,
                "num_envs": config.num_envs,
                "batch_size": config.batch_size,
                "seconds": config.seconds,
                "warmup": config.warmup,
            }
            if g.omp_wait_policy:
                params["omp_wait_policy"] = g.omp_wait_policy
            if g.keep_freed_memory:
                params["keep_freed_memory"] = True
            if loop in PROBES:
                params["interposed_ms"] = INTERPOSED_MS
            rows.append(Row(g.name, loop, params))
    return chosen, rows


def _missing(row: Row) -> str | None:
    import importlib.util

    need = ["torch"] if row.params["policy"] == "cnn" else []
    need += ["envpool"] if row.loop == "envpool-async" else []
    for module in need:
        if importlib.util.find_spec(module) is None:
            return f"not installed ({module})"
    return None


Worker = Callable[[str, dict[str, Any], float], dict[str, Any]]


def run_rows(
    rows: list[Row],
    trials: int,
    progress: Callable[[str], None] | None = print,
    worker: Worker | None = None,
) -> list[Row]:
    """Every row `trials` times; each trial runs all rows, in reverse order every other trial.
    `worker` runs one measurement (default: in its own process)."""
    say = progress or (lambda _msg: None)
    worker = worker or run_worker
    for r in rows:
        r.skipped = _missing(r)
    for trial in range(trials):
        for r in alternating(rows, trial):
            if r.skipped:
                continue
            out = worker("loop", r.params, 120.0 + 4 * r.params["seconds"])
            if "skipped" in out or "error" in out:
                r.skipped = out.get("skipped") or f"failed: {out['error']}"
                say(f"{r.id}: skipped ({r.skipped})")
                continue
            r.trials.append({k: float(v) for k, v in out.items()})
            say(f"trial {trial + 1}/{trials} {r.id}: {out['steps_per_s']:,.0f} steps/s")
    return rows


def _row_doc(r: Row) -> dict[str, Any]:
    return {
        "id": r.id,
        "group": r.group,
        "loop": r.loop,
        "params": r.params,
        "trials": r.trials,
        "stats": trial_stats(r.trials),
        "skipped": r.skipped,
    }


def run(
    config: Config,
    progress: Callable[[str], None] | None = print,
    command: str | None = None,
    worker: Worker | None = None,
) -> dict[str, Any]:
    """Runs the loops and returns the results document (see `validate`)."""
    start = RunStart.now()
    chosen, rows = plan(config)
    run_rows(rows, config.trials, progress, worker)
    docs = [_row_doc(r) for r in rows]
    summary = {
        g.name: summarize_group({d["loop"]: d for d in docs if d["group"] == g.name})
        for g in chosen
    }
    cfg = asdict(config)
    cfg["groups"] = [g.name for g in chosen]
    return {
        **start.header(SCHEMA, command or "reinfors-gym bench --loops", cfg),
        "groups": [asdict(g) for g in chosen],
        "rows": docs,
        "summary": summary,
        "checks": checks(summary),
    }


def validate(doc: Any) -> dict[str, Any]:
    """Checks a loops results document's shape; returns it, or raises ValueError."""
    need = requirement("loops result")
    fields = (("machine", dict), ("config", dict), ("groups", list), ("rows", list))
    check_header(doc, SCHEMA, fields, need)
    need(isinstance(doc.get("summary"), dict), "'summary' must be an object")
    names = {g["name"] for g in doc["groups"]}
    for row in doc["rows"]:
        known = row.get("group") in names and row.get("loop") in LOOPS + PROBES
        need(known, f"row {row.get('id')}")
        check_stats(row, need)
    return doc


def dump(doc: dict[str, Any], path: Path) -> None:
    documents.write(doc, path, validate)


def load(path: Path) -> dict[str, Any]:
    return documents.read(path, validate)


# --------------------------------------------------------------------------- the report


def console(doc: dict[str, Any]) -> str:
    """One table per policy, then what the issue asks and whether it holds."""
    cfg = doc["config"]
    lines = [
        f"Policy loops: {cfg['num_envs']} envs, batches of {cfg['batch_size']}; "
        f"medians of {cfg['trials']} interleaved trial(s), env steps/s "
        f"(load average before {doc['load_average']['before']}, after "
        f"{doc['load_average']['after']})"
    ]
    for g in doc["groups"]:
        lines += ["", g["title"]]
        for row in (r for r in doc["rows"] if r["group"] == g["name"]):
            if row["skipped"]:
                lines.append(f"  {row['loop']:<14} skipped: {row['skipped']}")
                continue
            s = row["stats"]
            rate = s["steps_per_s"]
            phases = f"policy {s['policy_ms']['median']:.3f} ms, env {s['env_ms']['median']:.3f} ms"
            if "others_cpu_ms" in s:
                phases += "; CPU ms/iteration: " + ", ".join(
                    f"{role} {s[f'{role}_cpu_ms']['median']:.2f}"
                    for role in ("caller", "helpers", "others")
                )
            if "page_faults" in s:
                phases += f"; page faults/iteration {s['page_faults']['median']:.0f}"
            lines.append(
                f"  {row['loop']:<14} {rate['median']:>8,.0f}  ({rate['min']:,.0f}-"
                f"{rate['max']:,.0f})  {phases}"
            )
        ratios = ", ".join(f"{k} {v:.3f}" for k, v in doc["summary"][g["name"]].items() if "_" in k)
        lines.append(f"  ratios: {ratios}")
    lines += ["", "Issue 34's targets:"]
    for c in doc["checks"]:
        value = "n/a" if c["value"] is None else f"{c['value']:.3f}"
        verdict = "met" if c["met"] else "NOT met"
        target = f"{c['ratio']:<20} {value:>6} >= {c['at_least']}"
        most = c.get("at_most_here")
        if most is not None:
            reach = "" if most >= c["at_least"] else ", out of reach here"
            verdict += f" (at most {most:.3f} with async at the ceiling{reach})"
        lines.append(f"  {c['group']:<12} {target}: {verdict}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """bench/bench_loops.py: the loops, a console report, and the JSON if asked."""
    import argparse
    import shlex
    import sys

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=Config.trials)
    parser.add_argument("--seconds", type=float, default=Config.seconds)
    parser.add_argument("--warmup", type=float, default=Config.warmup)
    parser.add_argument("--groups", default="", help="comma-separated groups (default: all)")
    parser.add_argument("--json", type=Path, help="write the results document here")
    args = parser.parse_args(argv)
    config = Config(
        trials=args.trials,
        seconds=args.seconds,
        warmup=args.warmup,
        groups=tuple(g for g in args.groups.split(",") if g),
    )
    print_machine_info()
    argv = sys.argv[1:] if argv is None else argv
    doc = run(config, command=" ".join(["python bench/bench_loops.py", *map(shlex.quote, argv)]))
    print(console(doc))
    if args.json:
        dump(doc, args.json)
        print(f"wrote {args.json}")
