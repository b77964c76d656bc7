"""One validated description of a CarRacing configuration, shared by the single env, the vector
env and the Engine.

Every argument is checked here, once, before any per-env work or allocation, and each error
names the argument and its bound. The Rust core receives the checked spec as one mapping (by
keyword) and re-checks the same bounds, which it exports, so the two never disagree.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from . import _core
from .errors import InvalidConfig

# Bounds: the core's own, read from it (it refuses anything beyond them too).
MAX_NUM_ENVS: int = _core.MAX_NUM_ENVS
"""Most sub-envs (or Engine games) one pool holds; each keeps a track, a car and buffers."""
MAX_BATCH_BYTES: int = _core.MAX_BATCH_BYTES
"""Most bytes one observation batch (``num_envs x stack_num x frame``) may take. A vector env
keeps about four such batches alive (the latest and final observations, the pool's frame
stacks, the array each step hands out), so this bounds its observation memory at ~4 GiB."""
MAX_ROLLOUT_BYTES: int = 4 * 2**30
"""Most observation bytes one Engine batch (``collect_size x observation``) may hold."""
MAX_OBS_BYTES: int = _core.MAX_OBS_BYTES
"""Most bytes one observation (``stack_num x frame``) may take."""
MAX_STACK_NUM: int = _core.MAX_STACK_NUM
MAX_FRAME_SIDE: int = _core.MAX_FRAME_SIDE
MAX_FRAME_SKIP: int = _core.MAX_FRAME_SKIP
MAX_EPISODE_STEPS = 2**32 - 1
MAX_THREADS = 2**63 - 1
"""Larger thread counts are refused; any count above the cores is accepted and capped."""


LAP_COMPLETE_RULES = ("first_visit", "every_contact")
"""`lap_complete_rule` values. ``"first_visit"`` (the default) is every Gymnasium release's rule
to date: `lap_complete_percent` is checked only on the first touch of the start tile, which
happens during reset (Gymnasium issue #1269). ``"every_contact"`` is Gymnasium PR #1670's (open):
checked on every wheel contact with the start tile."""


def installed_gymnasium_version() -> str:
    """The version of the Gymnasium this process imports."""
    import gymnasium

    return str(gymnasium.__version__)


def gymnasium_release(version: object) -> str:
    """The release line, ``"1.2"``, ``"1.3"`` or ``"1.4"``, whose `CarRacing-v3` Gymnasium
    `version` ships (a string such as ``"1.2"``, ``"1.2.2"`` or ``"1.4.0rc1"``).

    Releases differ only in the score drawn on the frame (docs/parity.md, "Gymnasium
    versions"): 1.0 to 1.2.x draw ``"%04i"`` with pygame, 1.3.x ``f"{reward:04}"`` and 1.4
    ``f"{reward:04.0f}"``, both with pygame-ce. Later versions get 1.4's rendering, the newest
    known; versions before 1.0 (no `CarRacing-v3`) are refused.
    """
    if not isinstance(version, str):
        raise InvalidConfig(
            f"gymnasium_version must be a version string such as '1.2', got "
            f"{type(version).__name__} {version!r}"
        )
    found = re.match(r"\s*(\d+)\.(\d+)([.+\-0-9A-Za-z]*)\s*$", version)
    if not found:
        raise InvalidConfig(
            f"gymnasium_version must be a version string such as '1.2' or '1.2.2', got {version!r}"
        )
    major, minor = int(found.group(1)), int(found.group(2))
    if major < 1:
        raise InvalidConfig(
            f"gymnasium_version must be 1.0 or later (CarRacing-v3 first shipped in 1.0), got "
            f"{version!r}"
        )
    if major == 1 and minor <= 2:
        return "1.2"
    if major == 1 and minor == 3:
        return "1.3"
    return "1.4"


def check_flag(name: str, value: object) -> bool:
    """A bool (or NumPy bool, or the ints 0 and 1)."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    if isinstance(value, numbers.Integral) and int(value) in (0, 1):
        return bool(value)
    raise InvalidConfig(f"{name} must be a bool, got {type(value).__name__} {value!r}")


def check_int(name: str, value: object, low: int, high: int) -> int:
    """An int (not a bool) between `low` and `high`, both included."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidConfig(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if not low <= int(value) <= high:
        raise InvalidConfig(f"{name} must be between {low} and {high}, got {int(value)}")
    return int(value)


def check_real(name: str, value: object, low: float, high: float) -> float:
    """A finite real number (not a bool) within `[low, high]`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidConfig(f"{name} must be a number, got {type(value).__name__} {value!r}")
    v = float(value)
    if not (math.isfinite(v) and low <= v <= high):
        bound = "" if math.isinf(low) and math.isinf(high) else f" within [{low}, {high}]"
        raise InvalidConfig(f"{name} must be a finite number{bound}, got {v}")
    return v


@dataclass(frozen=True)
class CarRacingSpec:
    """A checked CarRacing configuration (build it with :meth:`create`).

    Attributes:
        continuous: ``Box(3)`` actions (True) or ``Discrete(5)``.
        domain_randomize: random colours per episode (Gymnasium's option).
        lap_complete_percent: share of tiles visited for a lap to count; any finite number,
            as Gymnasium takes it (above 1 no lap ever completes).
        max_episode_steps: truncation after this many simulation steps (None: never).
        frame_skip: simulation steps per agent step, 1 to 1,000 (rewards summed).
        stack_num: frames stacked per observation, 1 to 64.
        grayscale: one luminance channel (Gymnasium's ``GrayscaleObservation`` weights).
        obs_size: ``(height, width)`` of the frames, each 1 to 4,096.
        channels_first: ``(3, H, W)`` frames instead of ``(H, W, 3)``.
        gymnasium_version: the Gymnasium whose `CarRacing-v3` the frames reproduce where
            releases differ (the score's text); ``create`` resolves None to the installed one.
        lap_complete_rule: when `lap_complete_percent` is checked (`LAP_COMPLETE_RULES`).
    """

    continuous: bool = True
    domain_randomize: bool = False
    lap_complete_percent: float = 0.95
    max_episode_steps: int | None = 1000
    frame_skip: int = 1
    stack_num: int = 1
    grayscale: bool = False
    obs_size: tuple[int, int] = (96, 96)
    channels_first: bool = False
    gymnasium_version: str = "1.4.0"
    lap_complete_rule: str = "first_visit"

    @classmethod
    def create(
        cls,
        *,
        continuous: object = True,
        domain_randomize: object = False,
        lap_complete_percent: object = 0.95,
        max_episode_steps: object = 1000,
        frame_skip: object = 1,
        stack_num: object = 1,
        grayscale: object = False,
        obs_size: object = (96, 96),
        channels_first: object = False,
        gymnasium_version: object = None,
        lap_complete_rule: object = "first_visit",
    ) -> CarRacingSpec:
        """Checks every argument; raises :class:`InvalidConfig` naming the first bad one.
        `gymnasium_version=None` follows the installed Gymnasium."""
        if gymnasium_version is None:
            gymnasium_version = installed_gymnasium_version()
        gymnasium_release(gymnasium_version)
        if lap_complete_rule not in LAP_COMPLETE_RULES:
            raise InvalidConfig(
                f"lap_complete_rule must be one of {LAP_COMPLETE_RULES}, got {lap_complete_rule!r}"
            )
        if max_episode_steps is not None:
            max_episode_steps = check_int(
                "max_episode_steps", max_episode_steps, 1, MAX_EPISODE_STEPS
            )
        if not isinstance(obs_size, (tuple, list)) or len(obs_size) != 2:
            raise InvalidConfig(f"obs_size must be (height, width), got {obs_size!r}")
        size = (
            check_int("obs_size height", obs_size[0], 1, MAX_FRAME_SIDE),
            check_int("obs_size width", obs_size[1], 1, MAX_FRAME_SIDE),
        )
        spec = cls(
            continuous=check_flag("continuous", continuous),
            domain_randomize=check_flag("domain_randomize", domain_randomize),
            lap_complete_percent=check_real(
                "lap_complete_percent", lap_complete_percent, -math.inf, math.inf
            ),
            max_episode_steps=max_episode_steps,  # type: ignore[arg-type]
            frame_skip=check_int("frame_skip", frame_skip, 1, MAX_FRAME_SKIP),
            stack_num=check_int("stack_num", stack_num, 1, MAX_STACK_NUM),
            grayscale=check_flag("grayscale", grayscale),
            obs_size=size,
            channels_first=check_flag("channels_first", channels_first),
            gymnasium_version=str(gymnasium_version).strip(),
            lap_complete_rule=str(lap_complete_rule),
        )
        if spec.obs_bytes > MAX_OBS_BYTES:
            raise InvalidConfig(
                f"one observation of {spec.obs_shape} would take {spec.obs_bytes / 2**20:.0f} "
                f"MiB, more than the {MAX_OBS_BYTES / 2**20:.0f} MiB bound (reduce stack_num "
                "or obs_size)"
            )
        return spec

    @classmethod
    def from_arguments(cls, arguments: Mapping[str, object]) -> CarRacingSpec:
        """:meth:`create` with each option read from `arguments` under its own name: the
        keyword arguments of a constructor that takes every option (and others, ignored)."""
        return cls.create(**{option.name: arguments[option.name] for option in fields(cls)})

    @property
    def gymnasium_release(self) -> str:
        """The release line (``"1.2"``, ``"1.3"``, ``"1.4"``) of `gymnasium_version`."""
        return gymnasium_release(self.gymnasium_version)

    @property
    def frame_shape(self) -> tuple[int, ...]:
        height, width = self.obs_size
        if self.grayscale:
            return (height, width)
        return (3, height, width) if self.channels_first else (height, width, 3)

    @property
    def obs_shape(self) -> tuple[int, ...]:
        """One observation: the frame, or ``(stack_num, *frame)`` when stacking."""
        return self.frame_shape if self.stack_num == 1 else (self.stack_num, *self.frame_shape)

    @property
    def obs_bytes(self) -> int:
        return math.prod(self.obs_shape)

    def check_batch(self, num_envs: object, name: str = "num_envs") -> int:
        """Checks a sub-env count against `MAX_NUM_ENVS` and the batch memory bound."""
        n = check_int(name, num_envs, 1, MAX_NUM_ENVS)
        if n * self.obs_bytes > MAX_BATCH_BYTES:
            raise InvalidConfig(
                f"{name}={n} observations of {self.obs_shape} would take "
                f"{n * self.obs_bytes / 2**30:.2f} GiB per batch, more than the "
                f"{MAX_BATCH_BYTES / 2**30:.0f} GiB bound (reduce {name}, stack_num or obs_size)"
            )
        return n

    def core_args(self) -> dict[str, Any]:
        """The mapping the Rust core takes (`spec=...`)."""
        args = asdict(self)
        height, width = args.pop("obs_size")
        del args["gymnasium_version"]
        return {
            **args,
            "height": height,
            "width": width,
            "gymnasium_release": self.gymnasium_release,
        }


def check_threads(name: str, value: object) -> int:
    """A worker-thread count: None is the cores available; above the cores is capped later."""
    if value is None:
        import os

        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    return check_int(name, value, 1, MAX_THREADS)
