"""The PPO epochs' arithmetic: float32, or bfloat16 autocast where it is the faster of the two.

bfloat16 halves the bytes and, on CPUs with native bfloat16 (AVX-512 BF16, AMX) and on recent
GPUs, doubles the matmul rate; on other CPUs it is emulated and slower. `--precision auto` takes
the precision from what the device says about itself, so that a seed trains the same way on a
machine every time; only on CPUs whose flags it cannot read does it time both."""

from __future__ import annotations

import argparse
import copy
import time
from pathlib import Path

import torch

PRECISIONS = ("fp32", "bf16", "auto")

#: Recipe 6's options where recipe 10's differ, besides the precision: the recipe validated with
#: float32 epochs (docs/training.md), which a CPU run takes when `--precision auto` keeps float32.
FP32_RECIPE: dict[str, object] = {
    "max_minutes": 28.0,
    "total_decisions": 4_000_000,
    "gamma": 0.99,
    "overlap": True,
}

#: /proc/cpuinfo flags of x86 CPUs that run bfloat16 arithmetic natively.
NATIVE_BF16_FLAGS = ("avx512_bf16", "amx_bf16")


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> tuple[str, set[str]] | None:
    """The CPU's vendor and flags from `cpuinfo`, or None where it has no x86 flags line (no
    /proc/cpuinfo, or an ARM one: its flags say nothing about AVX-512 or AMX)."""
    try:
        lines = cpuinfo.read_text().splitlines()
    except OSError:
        return None
    fields: dict[str, str] = {}
    for line in lines:
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    flags = set(fields.get("flags", "").split())
    if "avx2" not in flags and "sse2" not in flags:
        return None
    return fields.get("vendor_id", ""), flags


def native_bf16(device: torch.device, cpuinfo: Path = Path("/proc/cpuinfo")) -> bool | None:
    """Whether `device` runs bfloat16 natively: True, False, or None where it cannot tell (a
    CPU without /proc/cpuinfo, or not x86). Without it autocast emulates bfloat16, many times
    slower than float32 (docs/training.md)."""
    if device.type == "cuda":
        try:
            return torch.cuda.is_bf16_supported(including_emulation=False)
        except TypeError:  # an older torch, whose check has no such option
            return torch.cuda.is_bf16_supported()
    cpu = cpu_flags(cpuinfo)
    if cpu is None:
        return None
    return any(flag in cpu[1] for flag in NATIVE_BF16_FLAGS)


def flag_precision(
    device: torch.device, cpuinfo: Path = Path("/proc/cpuinfo")
) -> tuple[str, str] | None:
    """`--precision auto`'s choice from what the device says about itself, with the reason;
    None where it cannot tell (then the two are timed). The rule follows the CPUs measured in
    docs/training.md: AMX (Intel Xeon) and AVX-512 BF16 on AMD EPYC made an update faster in
    bfloat16; AVX-512 BF16 on an Intel Xeon without AMX made it slower; without either,
    autocast emulates bfloat16 and an update took 16 times as long."""
    if device.type == "cuda":
        if native_bf16(device):
            return "bf16", "the GPU runs bfloat16 natively"
        return "fp32", "the GPU only emulates bfloat16"
    if device.type != "cpu" or (cpu := cpu_flags(cpuinfo)) is None:
        return None
    vendor, flags = cpu
    if "amx_bf16" in flags:
        return "bf16", "the CPU has AMX"
    if "avx512_bf16" in flags:
        if vendor == "AuthenticAMD":
            return "bf16", "an AMD CPU with AVX-512 BF16"
        return "fp32", "AVX-512 BF16 without AMX made an Intel Xeon's update slower"
    return "fp32", "the CPU has no native bfloat16: autocast would emulate it"


def bf16_warning(device: torch.device, cpuinfo: Path = Path("/proc/cpuinfo")) -> str | None:
    """The line to print when bfloat16 is asked for on a device that only emulates it."""
    if native_bf16(device, cpuinfo) is not False:
        return None
    return (
        "warning: --precision bf16 on a CPU without native bfloat16 (no AVX-512 BF16 or AMX): "
        "autocast emulates it, many times slower than fp32; --precision auto takes fp32 here"
    )


def autocast_heads(heads, device: torch.device):
    """`heads` under bfloat16 autocast, its outputs back in float32: the convolutions and
    matmuls of the epochs' forward and backward passes run in bfloat16, while the weights, the
    optimizer and the losses (float64 Beta log-probabilities) stay as they are."""

    def bf16_heads(x: torch.Tensor):
        with torch.autocast(device.type, dtype=torch.bfloat16):
            outputs = heads(x)
        return tuple(t.float() for t in outputs)

    return bf16_heads


def epoch_heads(learner, args):
    """What the PPO epochs call in place of `learner.heads` (None: `learner.heads` itself):
    compiled with `args.compile`, under bfloat16 autocast with `args.precision == "bf16"`."""
    # Compiled for the training's minibatches (one shape); acting stays eager.
    heads = torch.compile(learner.heads) if getattr(args, "compile", False) else None
    if getattr(args, "precision", "fp32") == "bf16":
        heads = autocast_heads(heads or learner.heads, next(learner.parameters()).device)
    return heads


def minibatch_seconds(agent, heads, x: torch.Tensor, trials: int) -> list[float]:
    """Wall-clock seconds of `trials` forward and backward passes of `heads` over `x`."""
    times = []
    for _ in range(trials):
        start = time.perf_counter()
        loss = sum(t.float().sum() for t in heads(x))
        agent.zero_grad(set_to_none=True)
        loss.backward()
        if x.device.type == "cuda":
            torch.cuda.synchronize(x.device)
        times.append(time.perf_counter() - start)
    return times


def pick_precision(
    agent, obs_shape: tuple[int, ...], minibatch_size: int, trials: int = 5
) -> tuple[str, dict[str, float]]:
    """The precision to train in: "bf16" when a minibatch's forward and backward passes run
    faster under bfloat16 autocast than in float32 on this machine, else "fp32"; with the two
    medians in seconds. `obs_shape`: one observation's shape as the collector gives it (uint8).

    Times a copy of `agent` (its weights and gradients are left alone) on frames from a
    generator of its own (the training's random streams are left alone), warm-up discarded,
    the two precisions interleaved. bfloat16 must win by a tenth: a tie keeps float32. Where
    bfloat16 has no kernels at all, float32 with an empty dict (nothing was timed)."""
    probe = copy.deepcopy(agent)
    device = next(probe.parameters()).device
    gen = torch.Generator().manual_seed(0)
    frames = torch.randint(0, 256, (minibatch_size, *obs_shape), generator=gen)
    with torch.no_grad():
        x = probe.preprocess(frames.to(torch.uint8).to(device))
    heads = {"fp32": probe.heads, "bf16": autocast_heads(probe.heads, device)}
    seconds: dict[str, list[float]] = {name: [] for name in heads}
    try:
        for h in heads.values():
            minibatch_seconds(probe, h, x, 2)  # warm-up: kernel selection, allocations
        for _ in range(trials):
            for name, h in heads.items():
                seconds[name] += minibatch_seconds(probe, h, x, 1)
    except RuntimeError:  # no bfloat16 kernels on this device
        return "fp32", {}
    medians = {name: sorted(s)[len(s) // 2] for name, s in seconds.items()}
    return ("bf16" if medians["bf16"] < 0.9 * medians["fp32"] else "fp32"), medians


def auto_precision(
    agent,
    obs_shape: tuple[int, ...],
    minibatch_size: int,
    cpuinfo: Path = Path("/proc/cpuinfo"),
) -> tuple[str, str, dict[str, float] | None]:
    """`--precision auto`: the precision, the reason, and the timed medians (None unless
    timed). The device's own flags decide where they can (`flag_precision`): a choice that
    followed a timing would flip with the machine's load, and a seed would train two ways."""
    device = next(agent.parameters()).device
    if (decided := flag_precision(device, cpuinfo)) is not None:
        return (*decided, None)
    chosen, seconds = pick_precision(agent, obs_shape, minibatch_size)
    if not seconds:
        return chosen, "bf16 has no kernels on this device", seconds
    return (
        chosen,
        f"timed, as the device's flags say nothing: a minibatch's forward and backward passes "
        f"took {seconds['bf16'] * 1e3:.0f} ms in bf16, {seconds['fp32'] * 1e3:.0f} ms in fp32",
        seconds,
    )


def precision_line(chosen: str, reason: str) -> str:
    """What `--precision auto` prints about its choice."""
    return f"precision: {chosen} ({reason})"


def fp32_recipe_line(changes: dict[str, object]) -> str:
    """What a CPU run that `--precision auto` put on float32 prints: recipe 10's minutes were
    validated with bfloat16 epochs, so it trains with recipe 6's options instead, those that
    the command line left to their defaults (`changes`)."""
    if not changes:
        return "float32 epochs: the options that recipe 6 sets were all given, and are kept"
    given = " ".join(as_option(name, value) for name, value in changes.items())
    return (
        "float32 epochs: recipe 10's 13.5 minutes were validated with bfloat16 epochs only, so "
        f"this run trains with recipe 6's options, the float32 recipe (docs/training.md): {given}"
    )


def as_option(name: str, value: object) -> str:
    """`name = value` as train.py's command line spells it."""
    flag = "--" + name.replace("_", "-")
    if isinstance(value, bool):
        return flag if value else f"--no-{flag[2:]}"
    return f"{flag} {value}"


def given_options(parser: argparse.ArgumentParser, argv: list[str] | None = None) -> set[str]:
    """The options `argv` sets itself (their `args` names) on `parser`, whatever their values.
    `parser` is changed: pass a fresh one."""
    for action in parser._actions:  # an option left out then leaves no attribute
        action.default = argparse.SUPPRESS
    parser._defaults.clear()  # set_defaults' values (recipe 10's discount and overlap)
    return set(vars(parser.parse_args(argv)))


def use_fp32_recipe(args: argparse.Namespace, given: set[str]) -> dict[str, object]:
    """Recipe 6's budget, discount and overlap for the options not in `given`; the changes."""
    changes = {k: v for k, v in FP32_RECIPE.items() if k not in given and getattr(args, k) != v}
    for name, value in changes.items():
        setattr(args, name, value)
    return changes
