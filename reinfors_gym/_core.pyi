"""Type stubs for the Rust extension module `reinfors_gym._core` (checked by mypy.stubtest)."""

from typing import Any, TypeAlias, final

import numpy as np
import numpy.typing as npt

# NumPy's PCG64 state: (state, inc, has_uint32, uinteger).
_RngState: TypeAlias = tuple[int, int, bool, int]
_Color: TypeAlias = tuple[float, float, float]
# `reinfors_gym.spec.CarRacingSpec.core_args()`: continuous, domain_randomize,
# lap_complete_percent, max_episode_steps, frame_skip, stack_num, grayscale, height, width,
# channels_first.
_Spec: TypeAlias = dict[str, Any]
# Each seed as the 32-bit words of SeedSequence's entropy (None: not reseeded).
_SeedWords: TypeAlias = list[list[int] | None]

__all__ = [
    "CarRacingCore",
    "PoolCore",
    "StepResults",
    "CollectorCore",
    "seeded_rng_state",
    "avx2_used",
    "MAX_BATCH_BYTES",
    "MAX_FRAME_SIDE",
    "MAX_FRAME_SKIP",
    "MAX_NUM_ENVS",
    "MAX_OBS_BYTES",
    "MAX_STACK_NUM",
    "STATE_SHAPE",
    "VIDEO_SHAPE",
    "WINDOW_SHAPE",
    "__version__",
]

MAX_BATCH_BYTES: int
MAX_FRAME_SIDE: int
MAX_FRAME_SKIP: int
MAX_NUM_ENVS: int
MAX_OBS_BYTES: int
MAX_STACK_NUM: int
STATE_SHAPE: tuple[int, int, int]
VIDEO_SHAPE: tuple[int, int, int]
WINDOW_SHAPE: tuple[int, int, int]
__version__: str

def seeded_rng_state(seed: int) -> _RngState:
    """NumPy's `PCG64(SeedSequence(seed)).state` computed in Rust."""

def avx2_used() -> bool:
    """Whether any hot loop has run its AVX2 copy in this process."""

@final
class CarRacingCore:
    """One CarRacing environment (the engine behind `reinfors_gym.CarRacingEnv`)."""

    def __new__(
        cls,
        *,
        spec: _Spec,
        rng_state: _RngState,
    ) -> CarRacingCore: ...
    def touch_tile(self, tile: int) -> bool: ...
    def rng_state(self) -> _RngState: ...
    def reset(
        self, rng_state: _RngState, randomize: bool | None, obs: npt.NDArray[np.uint8]
    ) -> _RngState: ...
    def step_continuous(
        self, steer: float, gas: float, brake: float, obs: npt.NDArray[np.uint8]
    ) -> tuple[float, bool, bool | None]: ...
    def step_fast(
        self, action: object
    ) -> tuple[npt.NDArray[np.uint8], float, bool, bool, dict[str, Any]] | None: ...
    def step_discrete(
        self, action: int, obs: npt.NDArray[np.uint8]
    ) -> tuple[float, bool, bool | None]: ...
    def render(self, width: int, height: int, skid_marks: bool) -> npt.NDArray[np.uint8]: ...
    def wheel_tiles(self, wheel: int) -> list[int]: ...
    def car_state(self) -> dict[str, Any]: ...
    @property
    def track(self) -> npt.NDArray[np.float64]: ...
    @property
    def tile_visited(self) -> npt.NDArray[np.bool_]: ...
    @property
    def road_colors(self) -> npt.NDArray[np.uint8]: ...
    @property
    def palette(self) -> tuple[_Color, _Color, _Color]: ...
    @property
    def reward(self) -> float: ...
    @property
    def tile_visited_count(self) -> int: ...
    @property
    def t(self) -> float: ...
    @property
    def new_lap(self) -> bool: ...
    @property
    def track_retries(self) -> int: ...
    @property
    def track_attempts(self) -> list[tuple[tuple[int, int] | None, bool]]: ...
    def set_reset_options(self, lap_complete_percent: float, domain_randomize: bool) -> None: ...
    @property
    def has_episode(self) -> bool: ...

@final
class StepResults:
    """The results of one `PoolCore.step` or `recv`, one entry per sub-env it covers."""

    @property
    def env_ids(self) -> npt.NDArray[np.int32]: ...
    @property
    def rewards(self) -> npt.NDArray[np.float64]: ...
    @property
    def terminated(self) -> npt.NDArray[np.bool_]: ...
    @property
    def truncated(self) -> npt.NDArray[np.bool_]: ...
    @property
    def lap_finished(self) -> npt.NDArray[np.int8] | None: ...
    @property
    def was_reset(self) -> npt.NDArray[np.bool_] | None: ...
    @property
    def final_obs(self) -> npt.NDArray[np.uint8] | None: ...
    @property
    def obs(self) -> npt.NDArray[np.uint8] | None: ...
    @property
    def any_lap(self) -> bool: ...
    @property
    def any_reset(self) -> bool: ...

@final
class PoolCore:
    """Many CarRacing environments stepped in parallel (behind `CarRacingVectorEnv`)."""

    def __new__(
        cls,
        *,
        spec: _Spec,
        num_envs: int,
        num_threads: int,
        autoreset_mode: str,
        entropy: list[int],
        batch_size: int,
    ) -> PoolCore: ...
    @property
    def num_threads(self) -> int: ...
    @property
    def in_flight(self) -> int: ...
    def check_at_rest(self, call: str) -> None:
        """Raises `AsyncOrderError` naming `call` while any sub-env is in flight."""
    def check_receivable(self, count: int, extra: int) -> None:
        """Raises `AsyncOrderError` if a `recv` of `count` could never complete once `extra`
        more sub-envs are sent."""
    def _inject_fault(self, env_id: int, *, delay: float, fail: bool) -> None:
        """For tests only: every later step of sub-env `env_id` first sleeps `delay` seconds,
        then fails as a bug would if `fail`."""
    def abandon(self) -> None:
        """Lets go of the worker threads without tearing them down (in a forked child)."""
    def close(self) -> None:
        """Drops queued work, waits for running jobs, ends the worker threads."""
    def reset(
        self,
        *,
        seeds: _SeedWords,
        mask: list[bool] | None,
        randomize: bool | None,
        obs: npt.NDArray[np.uint8],
    ) -> None: ...
    def observe(self, *, obs: npt.NDArray[np.uint8]) -> None: ...
    def step(
        self,
        *,
        actions: npt.NDArray[np.float64] | npt.NDArray[np.int64],
        obs: npt.NDArray[np.uint8],
    ) -> StepResults: ...
    def send(
        self,
        *,
        actions: npt.NDArray[np.float64] | npt.NDArray[np.int64],
        env_ids: npt.NDArray[np.int64] | npt.NDArray[np.int32],
    ) -> None: ...
    def send_reset(
        self,
        *,
        env_ids: npt.NDArray[np.int64] | npt.NDArray[np.int32],
        seeds: _SeedWords,
        randomize: bool | None,
    ) -> None: ...
    def recv(
        self, *, count: int, obs: npt.NDArray[np.uint8] | None, timeout: float | None
    ) -> StepResults: ...
    def wait(self, *, obs: npt.NDArray[np.uint8], timeout: float | None) -> StepResults: ...
    def render(
        self, i: int, width: int, height: int, skid_marks: bool
    ) -> npt.NDArray[np.uint8]: ...
    def attribute(self, i: int, name: str) -> Any: ...
    def set_reset_options(
        self, i: int, lap_complete_percent: float, domain_randomize: bool
    ) -> None: ...
    def set_rng_state(self, i: int, state: _RngState) -> None: ...

@final
class CollectorCore:
    """The PPO collector (behind `reinfors_gym.Engine`)."""

    def __new__(
        cls,
        *,
        spec: _Spec,
        n_games: int,
        n_threads: int,
        entropy: list[int],
        sampling_seed: int,
        reward: tuple[float, float, float, float, float],
        distribution: str = "normal",
        cut_without_progress: int | None = None,
        cut_is_terminal: bool = False,
    ) -> CollectorCore: ...
    @property
    def num_threads(self) -> int: ...
    def discard(self) -> None:
        """Drops any partial rollout (at a collection's start, or when one ends early); the
        games carry on."""
    def reset(self, seeds: _SeedWords, obs: npt.NDArray[np.uint8]) -> None: ...
    def step(
        self,
        policy: npt.NDArray[np.float32],
        values: npt.NDArray[np.float32],
        obs: npt.NDArray[np.uint8],
    ) -> list[int]: ...
    def final_obs(self, games: list[int]) -> npt.NDArray[np.uint8]: ...
    def set_final_values(self, games: list[int], values: list[float]) -> None: ...
    def finish(
        self, bootstrap_values: list[float], gamma: float, lam: float
    ) -> dict[str, npt.NDArray[Any]]: ...
