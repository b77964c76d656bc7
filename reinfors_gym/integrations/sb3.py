"""Stable-Baselines3: a `VecEnv` over the native vector env.

    from stable_baselines3 import PPO
    from reinfors_gym.integrations.sb3 import make_sb3_vec_env

    PPO("CnnPolicy", make_sb3_vec_env(8, seed=0)).learn(100_000)

SB3 takes no Gymnasium `VectorEnv`; this adapter gives it the contract of its own `DummyVecEnv`
over `gym.make("reinfors/CarRacing-v0")` envs, step for step: the native env runs in
`SAME_STEP` autoreset mode (SB3's), rewards are float32, every info has `TimeLimit.truncated`
(truncated and not terminated), a finished episode's info has its `terminal_observation` and
its final step's info (`lap_finished`), and `seed()` seeds the next `reset()` with `seed + i`.

Observations are laid out as SB3's image checks want 3-D images: grayscale frames get a leading
channel axis `(1, H, W)`, and native stacks become channels, in `VecFrameStack`'s order (oldest
frame first): `(k, H, W)` grayscale as is, `(k, 3, H, W)` as `(3k, H, W)` (a free reshape) and
`(k, H, W, 3)` as `(H, W, 3k)` (a copy). Use `channels_first=True` to skip SB3's
`VecTransposeImage`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from . import MODULE_ENV_ID, autoreset_mode, require

require("stable_baselines3", "sb3")

import gymnasium as gym  # noqa: E402
from gymnasium import spaces  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402
from stable_baselines3.common.vec_env.base_vec_env import (  # noqa: E402
    VecEnv,
    VecEnvIndices,
    VecEnvStepReturn,
)

from ..vector import CarRacingVectorEnv  # noqa: E402

__all__ = ["SB3VecEnv", "make_sb3_vec_env"]

# What the native options stand for, as SB3's `env_is_wrapped` asks it of a `DummyVecEnv`
# over `gym.make(...)` envs wrapped by hand.
_NATIVE_WRAPPERS: dict[str, Any] = {
    "TimeLimit": lambda v: v.max_episode_steps is not None,
    "OrderEnforcing": lambda v: True,
    "FrameStackObservation": lambda v: v.stack_num > 1,
    "GrayscaleObservation": lambda v: v.grayscale,
    "ResizeObservation": lambda v: _frame_size(v) != (96, 96),
}


def _frame_size(venv: CarRacingVectorEnv) -> tuple[int, int]:
    """(height, width) of the native frames."""
    shape = venv.single_observation_space.shape
    if venv.grayscale:
        return shape[-2], shape[-1]
    return (shape[-2], shape[-1]) if venv.channels_first else (shape[-3], shape[-2])


def make_sb3_vec_env(num_envs: int, *, seed: int | None = None, **kwargs: Any) -> SB3VecEnv:
    """An SB3 `VecEnv` of `num_envs` native sub-envs.

    Args:
        num_envs: number of sub-environments.
        seed: if given, the next `reset()` seeds sub-env i with `seed + i` (SB3's `make_vec_env`).
        **kwargs: `CarRacingVectorEnv` options (`continuous`, `frame_skip`, `stack_num`,
            `grayscale`, `obs_size`, `channels_first`, `max_episode_steps`, `num_threads`,
            `render_mode`, ...). `autoreset_mode` can only be `SAME_STEP`, SB3's semantics.
    """
    # SB3 resets a finished env within the step that ended it.
    autoreset_mode(kwargs.pop("autoreset_mode", "SameStep"), (AutoresetMode.SAME_STEP,), "SB3")
    venv = gym.make_vec(
        MODULE_ENV_ID,
        num_envs=num_envs,
        vectorization_mode="vector_entry_point",
        autoreset_mode=AutoresetMode.SAME_STEP,
        **kwargs,
    )
    env = SB3VecEnv(venv)
    if seed is not None:
        env.seed(seed)
    return env


class SB3VecEnv(VecEnv):
    """SB3's `VecEnv` API over a `CarRacingVectorEnv` in `SAME_STEP` autoreset mode."""

    def __init__(self, venv: gym.vector.VectorEnv):
        native = venv.unwrapped
        if not isinstance(native, CarRacingVectorEnv):
            raise TypeError(f"expected a CarRacingVectorEnv, got {type(native).__name__}")
        autoreset_mode(native.autoreset_mode, (AutoresetMode.SAME_STEP,), "SB3")
        if venv is not native:
            raise TypeError("wrap the CarRacingVectorEnv itself (vector wrappers would be skipped)")
        self.venv = native
        self._layout, obs_space = _sb3_layout(native)
        self._actions: np.ndarray | None = None
        super().__init__(native.num_envs, obs_space, native.single_action_space)
        self.metadata = dict(native.metadata)

    # ------------------------------------------------------------------ stepping

    def reset(self) -> np.ndarray:
        seeds = None if all(s is None for s in self._seeds) else list(self._seeds)
        options = self._options[0] if self._options else {}
        if any(o != options for o in self._options):
            raise ValueError("the native vector env takes one reset `options` dict for all envs")
        obs, info = self.venv.reset(seed=seeds, options=options or None)
        self.reset_infos = _unbatch(info, self.num_envs)
        self._reset_seeds()
        self._reset_options()
        return self._to_sb3(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, terminated, truncated, info = self.venv.step(self._actions)
        final = info.pop("final_obs", None)
        done_mask = info.pop("_final_obs", None)
        final_info = info.pop("final_info", {})
        info.pop("_final_info", None)
        infos = _unbatch(info, self.num_envs)
        for i, step_info in enumerate(infos):
            step_info["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        if done_mask is not None:
            ended = _unbatch(final_info, self.num_envs)
            for i in np.flatnonzero(done_mask):
                infos[i].update(ended[i])
                infos[i]["terminal_observation"] = self._to_sb3(final[i][None])[0]
                self.reset_infos[i] = {}
        dones = terminated | truncated
        return self._to_sb3(obs), rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        self.venv.close()

    # ------------------------------------------------------------------ the rest of the API

    def get_images(self) -> Sequence[np.ndarray | None]:
        if self.render_mode != "rgb_array":
            warnings.warn(
                f"The render mode is {self.render_mode}, but this method assumes it is "
                "`rgb_array` to obtain images.",
                stacklevel=2,
            )
            return [None] * self.num_envs
        return list(self.venv.render() or ())

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """A sub-env attribute (`track`, `reward`, `render_mode`, ...), else the vector env's
        description of every sub-env (`metadata`, single `observation_space`, `frame_skip`)."""
        values = self._sub_attrs(attr_name)
        return [values[i] for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        targets = list(self._get_indices(indices))
        if sorted(targets) == list(range(self.num_envs)):
            self.venv.set_attr(attr_name, [value] * self.num_envs)
            return
        try:
            values = list(self.venv.get_attr(attr_name))
        except AttributeError as e:
            raise AttributeError(
                f"{attr_name!r} is not set on the other sub-envs: set it on all of them first"
            ) from e
        for i in targets:
            values[i] = value
        self.venv.set_attr(attr_name, values)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        methods = self._sub_attrs(method_name)
        return [methods[i](*method_args, **method_kwargs) for i in self._get_indices(indices)]

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        """Whether the sub-envs act as if wrapped by `wrapper_class`: True for the Gymnasium
        wrappers that a native option replaces (`TimeLimit` for `max_episode_steps`,
        `FrameStackObservation`, `GrayscaleObservation`, `ResizeObservation`) when it is on."""
        wrapped = any(
            issubclass(getattr(gym.wrappers, name), wrapper_class) and on(self.venv)
            for name, on in _NATIVE_WRAPPERS.items()
        )
        return [wrapped for _ in self._get_indices(indices)]

    # ------------------------------------------------------------------ internals

    def _sub_attrs(self, name: str) -> list[Any]:
        try:
            return list(self.venv.get_attr(name))
        except AttributeError:
            if name.startswith("_"):
                raise
        if name in ("observation_space", "action_space"):
            value = getattr(self.venv, "single_" + name)
        else:
            value = getattr(self.venv, name)
        return [value] * self.num_envs

    def _to_sb3(self, obs: np.ndarray) -> np.ndarray:
        """A batch of native frames in SB3's image layout (see the module docstring)."""
        kind, shape = self._layout
        if kind == "reshape":
            return obs.reshape(len(obs), *shape)
        if kind == "channels_last_stack":
            n, k, h, w, c = obs.shape
            return np.ascontiguousarray(obs.transpose(0, 2, 3, 1, 4)).reshape(n, h, w, k * c)
        return obs

    def _get_indices(self, indices: VecEnvIndices) -> Iterable[int]:
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return super()._get_indices(indices)


def _sb3_layout(venv: CarRacingVectorEnv) -> tuple[tuple[str, tuple[int, ...]], spaces.Box]:
    """How native frames map to SB3's 3-D image layout, and the resulting single space."""
    shape = venv.single_observation_space.shape
    if venv.grayscale and venv.stack_num == 1:
        layout: tuple[str, tuple[int, ...]] = ("reshape", (1, *shape))
    elif venv.stack_num > 1 and not venv.grayscale and venv.channels_first:
        k, c, h, w = shape
        layout = ("reshape", (k * c, h, w))
    elif venv.stack_num > 1 and not venv.grayscale:
        k, h, w, c = shape
        layout = ("channels_last_stack", (h, w, k * c))
    else:
        layout = ("same", tuple(shape))
    return layout, spaces.Box(0, 255, layout[1], np.uint8)


def _unbatch(info: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """Gymnasium's batched info dict (values with `_key` masks) as one dict per sub-env."""
    out: list[dict[str, Any]] = [{} for _ in range(n)]
    for key, values in info.items():
        if key.startswith("_"):
            continue
        mask = info.get("_" + key, np.ones(n, np.bool_))
        if isinstance(values, dict):  # a nested batched dict (e.g. an `episode` record)
            for i, sub in enumerate(_unbatch(values, n)):
                if mask[i]:
                    out[i][key] = sub
            continue
        for i in np.flatnonzero(mask):
            value = values[i]
            out[i][key] = value.item() if isinstance(value, np.generic) else value
    return out
