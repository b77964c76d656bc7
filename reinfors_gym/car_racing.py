"""`reinfors/CarRacing-v0`: Gymnasium's CarRacing-v3, simulated and drawn by the Rust core.

Python only checks arguments and hands out arrays; the track, physics, contacts, rewards and
the 96x96 frame are all computed in Rust with the GIL released.
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle

from . import _core
from ._guard import CallGuard
from ._rng import check_seed, export_state, import_state
from .errors import (
    ClosedEnvironmentError,
    InvalidAction,
    InvalidConfig,
    ReadOnlyAttributeError,
    ResetNeeded,
)
from .spec import CarRacingSpec, check_flag, check_real

STATE_SHAPE: tuple[int, int, int] = tuple(_core.STATE_SHAPE)  # type: ignore[assignment]
VIDEO_SHAPE: tuple[int, int, int] = tuple(_core.VIDEO_SHAPE)  # type: ignore[assignment]
WINDOW_SHAPE: tuple[int, int, int] = tuple(_core.WINDOW_SHAPE)  # type: ignore[assignment]
FPS = 50
# Gymnasium's line, character for character: its two string literals are joined without a space.
RETRY_MESSAGE = "retry to generate track (normal if there are not manyinstances of this message)"

READ_ONLY_ATTRIBUTES = frozenset(
    {
        "continuous",
        "track",
        "tile_visited",
        "tile_visited_count",
        "road_colors",
        "reward",
        "t",
        "new_lap",
        "road_color",
        "bg_color",
        "grass_color",
        "car_state",
        "gymnasium_version",
        "lap_complete_rule",
    }
)
"""Attributes a write to which is refused with `ReadOnlyAttributeError`: Gymnasium's own would
take the write (they are plain attributes there) and then diverge silently from the simulation,
which lives in the Rust core here. `continuous` fixes the action space at construction, and
`gymnasium_version` and `lap_complete_rule` (ours, not Gymnasium's) the core's rules."""


def continuous_action_space() -> spaces.Box:
    """Gymnasium's `[steer, gas, brake]` box."""
    return spaces.Box(
        np.array([-1, 0, 0]).astype(np.float32), np.array([+1, +1, +1]).astype(np.float32)
    )


def observation_space() -> spaces.Box:
    return spaces.Box(low=0, high=255, shape=STATE_SHAPE, dtype=np.uint8)


def coerce_continuous(action: Any) -> tuple[float, float, float]:
    """Checks a continuous action and returns it as float64s, as Gymnasium's `astype` does."""
    # Fast path for the usual case (a float array of shape (3,)): `tolist` widens float32 to
    # float64 exactly like `astype(np.float64)`, at a fraction of the cost.
    if type(action) is np.ndarray and action.shape == (3,) and action.dtype.kind == "f":
        steer, gas, brake = action.tolist()
        if math.isfinite(steer) and math.isfinite(gas) and math.isfinite(brake):
            return steer, gas, brake
    a = np.asarray(action)
    if a.shape != (3,):
        raise InvalidAction(
            f"continuous action must have shape (3,) [steer, gas, brake], got shape {a.shape}"
        )
    if a.dtype == np.bool_ or not (
        np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.integer)
    ):
        raise InvalidAction(f"continuous action must be a float array, got dtype {a.dtype}")
    a = a.astype(np.float64)
    if not np.isfinite(a).all():
        raise InvalidAction(f"continuous action must be finite, got {a.tolist()}")
    return float(a[0]), float(a[1]), float(a[2])


def coerce_discrete(action: Any) -> int:
    """Checks a `Discrete(5)` action (an int, NumPy integer or 0-d integer array)."""
    a = np.asarray(action)
    if a.shape != () or not (np.issubdtype(a.dtype, np.integer) or a.dtype == np.bool_):
        raise InvalidAction(
            "discrete action must be an integer in {0, 1, 2, 3, 4}, "
            f"got {type(action).__name__} {action!r}"
        )
    value = int(a)
    if not 0 <= value < 5:
        raise InvalidAction(
            f"discrete action {value} is outside Discrete(5) "
            "(0 nothing, 1 steer right, 2 steer left, 3 gas, 4 brake)"
        )
    return value


class CarRacingEnv(gym.Env[np.ndarray, Any], EzPickle):
    """Gymnasium's CarRacing-v3 with the same rules, spaces, keyword arguments and seeding.

    Two options beyond Gymnasium's: `gymnasium_version` (the Gymnasium whose `CarRacing-v3` is
    reproduced where releases differ, the score drawn on the frame; None follows the installed
    one) and `lap_complete_rule` (``"first_visit"``, every Gymnasium release's rule, or
    ``"every_contact"``, Gymnasium PR #1670's).

    Extra read-only accessors for tests and analysis: `car_state()`, `track`, `tile_visited`,
    `tile_visited_count`, `road_colors`, `reward`.

    Attribute writes behave as Gymnasium's: `lap_complete_percent` and `domain_randomize` take
    effect at the next `reset()` (which is where Gymnasium reads them), `verbose` and
    `render_mode` at once; each is checked as the constructor checks it (`InvalidConfig`).
    Writing `continuous` or an accessor (`READ_ONLY_ATTRIBUTES`) raises
    `ReadOnlyAttributeError`.
    """

    metadata = {"render_modes": ["human", "rgb_array", "state_pixels"], "render_fps": FPS}
    #: The Gymnasium version whose `CarRacing-v3` the frames reproduce (fixed at construction).
    gymnasium_version: str
    #: ``"first_visit"`` or ``"every_contact"`` (fixed at construction).
    lap_complete_rule: str

    def __init__(
        self,
        render_mode: str | None = None,
        verbose: bool = False,
        lap_complete_percent: float = 0.95,
        domain_randomize: bool = False,
        continuous: bool = True,
        gymnasium_version: str | None = None,
        lap_complete_rule: str = "first_visit",
    ):
        # Gymnasium's five arguments as it records them; ours only when given, so that a
        # default env pickles (and compares, see reinfors_gym.testing) as CarRacing-v3 does.
        ours = {
            k: v
            for k, v in (
                ("gymnasium_version", gymnasium_version),
                ("lap_complete_rule", lap_complete_rule),
            )
            if v != {"gymnasium_version": None, "lap_complete_rule": "first_visit"}[k]
        }
        EzPickle.__init__(
            self, render_mode, verbose, lap_complete_percent, domain_randomize, continuous, **ours
        )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidConfig(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        spec = CarRacingSpec.create(
            continuous=continuous,
            domain_randomize=domain_randomize,
            lap_complete_percent=lap_complete_percent,
            gymnasium_version=gymnasium_version,
            lap_complete_rule=lap_complete_rule,
        )
        self.render_mode = render_mode
        self.verbose = verbose
        self.lap_complete_percent = spec.lap_complete_percent
        self.domain_randomize = spec.domain_randomize
        object.__setattr__(self, "continuous", spec.continuous)
        object.__setattr__(self, "gymnasium_version", spec.gymnasium_version)
        object.__setattr__(self, "lap_complete_rule", spec.lap_complete_rule)
        self.action_space = continuous_action_space() if self.continuous else spaces.Discrete(5)
        self.observation_space = observation_space()
        self._guard = CallGuard("environment")
        # Gymnasium draws domain-randomised colours at construction, from the generator that
        # np_random lazily creates; doing the same keeps unseeded resets on the same stream.
        self._core = _core.CarRacingCore(
            spec=spec.core_args(), rng_state=export_state(self.np_random)
        )
        import_state(self.np_random, self._core.rng_state())
        self._closed = False
        self._window: Any = None
        self._clock: Any = None

    def __setattr__(self, name: str, value: Any) -> None:
        """Checks writes of the attributes Gymnasium reads (see the class docstring)."""
        if name in READ_ONLY_ATTRIBUTES:
            why = (
                "it fixes the action space at construction; create a new env with "
                f"continuous={value!r}"
                if name == "continuous"
                else "it reports the simulation's state, which lives in the Rust core"
            )
            if name in ("gymnasium_version", "lap_complete_rule"):
                why = f"it fixes the core's rules at construction; create a new env with {name}="
            raise ReadOnlyAttributeError(f"CarRacingEnv.{name} cannot be set: {why}")
        if name == "lap_complete_percent":
            value = check_real(name, value, -math.inf, math.inf)
        elif name in ("domain_randomize", "verbose"):
            value = check_flag(name, value)
        elif name == "render_mode" and value is not None:
            if value not in self.metadata["render_modes"]:
                raise InvalidConfig(
                    f"render_mode must be None or one of {self.metadata['render_modes']}, "
                    f"got {value!r}"
                )
        object.__setattr__(self, name, value)

    # ----------------------------------------------------------------- Gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        self._guard.enter("reset")
        try:
            return self._reset(seed, options)
        finally:
            self._guard.exit()

    def _reset(self, seed: object, options: object) -> tuple[np.ndarray, dict[str, Any]]:
        self._check_open()
        seed = check_seed(seed)
        super().reset(seed=seed)
        randomize = None
        if isinstance(options, dict) and "randomize" in options:
            randomize = bool(options["randomize"])
        obs = np.empty(STATE_SHAPE, dtype=np.uint8)
        # Gymnasium reads these two attributes at every reset.
        self._core.set_reset_options(self.lap_complete_percent, self.domain_randomize)
        import_state(self.np_random, self._core.reset(export_state(self.np_random), randomize, obs))
        if self.verbose:
            self._print_track_attempts()
        if self.render_mode == "human":
            self._render()
        return obs, {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self._guard.enter("step")
        try:
            # The usual call (a float array of three finite values, episode running) is done
            # in one call to the core; anything else, errors included, takes the checked path.
            if not self._closed:
                out = self._core.step_fast(action)
                if out is not None:
                    if self.render_mode == "human":
                        self._render()
                    return out
            return self._step_checked(action)
        finally:
            self._guard.exit()

    def _step_checked(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self._check_open()
        if not self._core.has_episode:
            raise ResetNeeded("step() called before reset(); call reset() first")
        obs = np.empty(STATE_SHAPE, dtype=np.uint8)
        if self.continuous:
            steer, gas, brake = coerce_continuous(action)
            reward, terminated, lap_finished = self._core.step_continuous(steer, gas, brake, obs)
        else:
            reward, terminated, lap_finished = self._core.step_discrete(
                coerce_discrete(action), obs
            )
        info: dict[str, Any] = {} if lap_finished is None else {"lap_finished": lap_finished}
        if self.render_mode == "human":
            self._render()
        return obs, reward, terminated, False, info

    def render(self) -> np.ndarray | None:  # type: ignore[override]
        self._guard.enter("render")
        try:
            return self._render()
        finally:
            self._guard.exit()

    def _render(self) -> np.ndarray | None:
        self._check_open()
        if self.render_mode is None:
            gym.logger.warn(
                "You are calling render method without specifying any render mode. "
                "You can specify the render_mode at initialization, "
                f'e.g. gym.make("{self.spec.id if self.spec else "reinfors/CarRacing-v0"}", '
                'render_mode="rgb_array")'
            )
            return None
        if not self._core.has_episode:
            return None  # Gymnasium draws nothing before the first reset either.
        if self.render_mode == "rgb_array":
            return self._core.render(VIDEO_SHAPE[1], VIDEO_SHAPE[0], True)
        if self.render_mode == "state_pixels":
            return self._core.render(STATE_SHAPE[1], STATE_SHAPE[0], False)
        self._show_window()
        return None

    def close(self) -> None:
        """Closes the env: safe from any thread at any time (a running call is waited for),
        idempotent."""
        guard = getattr(self, "_guard", None)
        if guard is None:  # construction failed before the core existed
            return
        guard.enter_closing()
        try:
            if self._window is not None:
                import pygame

                pygame.display.quit()
                pygame.quit()
                self._window = None
            self._closed = True
        finally:
            guard.exit()

    # ----------------------------------------------------------------- accessors

    @property
    def track(self) -> np.ndarray:
        """Gymnasium's `track`: `(N, 4)` float64 rows of `(alpha, beta, x, y)`."""
        return self._query("track", lambda core: core.track)

    @property
    def tile_visited(self) -> np.ndarray:
        """Whether each tile has been visited (bool, one per track row)."""
        return self._query("tile_visited", lambda core: core.tile_visited)

    @property
    def road_colors(self) -> np.ndarray:
        """Current colour of each drawn road polygon (tiles and kerbs, draw order)."""
        return self._query("road_colors", lambda core: core.road_colors)

    @property
    def reward(self) -> float:
        """Accumulated episode reward (Gymnasium's `env.reward`)."""
        return self._query("reward", lambda core: core.reward)

    @property
    def tile_visited_count(self) -> int:
        return self._query("tile_visited_count", lambda core: core.tile_visited_count)

    @property
    def t(self) -> float:
        """Episode time. Seconds."""
        return self._query("t", lambda core: core.t)

    @property
    def new_lap(self) -> bool:
        return self._query("new_lap", lambda core: core.new_lap)

    @property
    def road_color(self) -> np.ndarray:
        return np.array(self._query("road_color", lambda core: core.palette[0]))

    @property
    def bg_color(self) -> np.ndarray:
        return np.array(self._query("bg_color", lambda core: core.palette[1]))

    @property
    def grass_color(self) -> np.ndarray:
        return np.array(self._query("grass_color", lambda core: core.palette[2]))

    def _touch_tile(self, tile: int) -> None:
        """For tests: what a wheel's contact with `tile` does (begin then end), as Gymnasium's
        own tests drive its contact listener: repaint, first-visit reward, the lap check. The
        car does not move."""

        def touch(core: Any) -> None:
            if not core.touch_tile(tile):
                raise ValueError(f"no tile {tile} (reset first; tiles: {len(core.track)})")

        self._query("_touch_tile", touch)

    def car_state(self) -> dict[str, Any]:
        """A read-only snapshot of the car, in Box2D's float32 values widened to float64.

        Keys: ``hull_position`` (2,), ``hull_angle``, ``hull_linear_velocity`` (2,),
        ``hull_angular_velocity``, ``wheel_position`` (4, 2), ``wheel_angle`` (4,),
        ``wheel_linear_velocity`` (4, 2), ``wheel_angular_velocity`` (4,), ``joint_angle`` (4,)
        and Gymnasium's per-wheel floats ``wheel_omega``, ``wheel_phase``, ``wheel_gas``,
        ``wheel_brake``, ``wheel_steer`` (4,). Wheels are front-left, front-right, rear-left,
        rear-right. Units: world units, radians, seconds.
        """

        def read(core: Any) -> dict[str, Any]:
            if not core.has_episode:
                raise ResetNeeded("car_state() needs reset() first")
            return core.car_state()

        return self._query("car_state", read)

    # ----------------------------------------------------------------- internals

    def _query(self, name: str, read: Any) -> Any:
        """A read of the core's state, admitted like any other call (one at a time); after
        `close()` it raises `ClosedEnvironmentError`."""
        self._guard.enter(name)
        try:
            self._check_open()
            return read(self._core)
        finally:
            self._guard.exit()

    def _print_track_attempts(self) -> None:
        """Gymnasium's verbose lines for the reset's track attempts, in its order: the lap
        found (if any), then the retry line for every attempt that failed."""
        for lap, succeeded in self._core.track_attempts:
            if lap is not None:
                i1, i2 = lap
                print(f"Track generation: {i1}..{i2} -> {i2 - i1}-tiles track")
            if not succeeded:
                print(RETRY_MESSAGE)

    def _check_open(self) -> None:
        if self._closed:
            raise ClosedEnvironmentError("this environment is closed; create a new one")

    def _show_window(self) -> None:
        try:
            import pygame
        except ImportError as e:  # pragma: no cover - depends on the install
            raise gym.error.DependencyNotInstalled(
                'render_mode="human" needs pygame: pip install "reinfors-gym[human]"'
            ) from e
        if self._window is None:
            pygame.init()
            pygame.display.init()
            self._window = pygame.display.set_mode((WINDOW_SHAPE[1], WINDOW_SHAPE[0]))
            self._clock = pygame.time.Clock()
        frame = self._core.render(WINDOW_SHAPE[1], WINDOW_SHAPE[0], True)
        pygame.event.pump()
        self._clock.tick(self.metadata["render_fps"])
        pygame.surfarray.blit_array(self._window, frame.swapaxes(0, 1))
        pygame.display.flip()


def car_racing_env(env: gym.Env[Any, Any]) -> CarRacingEnv:
    """`env.unwrapped` typed as `CarRacingEnv`, for the accessors beyond Gymnasium's API.

    `gym.make` returns a `gymnasium.Env`, so a type checker does not know
    `env.unwrapped.car_state()`; `car_racing_env(env).car_state()` it does. Raises `TypeError`
    when `env` does not wrap a `CarRacingEnv`.
    """
    inner = env.unwrapped
    if not isinstance(inner, CarRacingEnv):
        raise TypeError(
            f"car_racing_env expects an env made by gym.make('reinfors/CarRacing-v0') (or a "
            f"wrapper of a CarRacingEnv), got {type(inner).__name__}"
        )
    return inner
