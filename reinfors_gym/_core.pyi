"""Type stubs for the Rust extension module `reinfors_gym._core`."""

from typing import Any

import numpy as np
import numpy.typing as npt

RngState = tuple[int, int, bool, int]

STATE_SHAPE: tuple[int, int, int]
VIDEO_SHAPE: tuple[int, int, int]
WINDOW_SHAPE: tuple[int, int, int]
__version__: str

def seeded_rng_state(seed: int) -> RngState:
    """NumPy's `PCG64(SeedSequence(seed)).state` computed in Rust."""

class CarRacingCore:
    def __init__(
        self,
        continuous: bool,
        domain_randomize: bool,
        lap_complete_percent: float,
        rng_state: RngState,
    ) -> None: ...
    def rng_state(self) -> RngState: ...
    def reset(
        self, rng_state: RngState, randomize: bool | None, obs: npt.NDArray[np.uint8]
    ) -> RngState: ...
    def step_continuous(
        self, steer: float, gas: float, brake: float, obs: npt.NDArray[np.uint8]
    ) -> tuple[float, bool, bool | None]: ...
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
    def palette(
        self,
    ) -> tuple[
        tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]
    ]: ...
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
    def has_episode(self) -> bool: ...
