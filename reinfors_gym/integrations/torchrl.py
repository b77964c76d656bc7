"""TorchRL: a `GymWrapper` over the native vector env, frames under `"pixels"`.

    from reinfors_gym.integrations.torchrl import make_torchrl_env

    env = make_torchrl_env(8, obs_size=(64, 64), channels_first=True)
    rollout = env.rollout(100, break_when_any_done=False)   # rollout["pixels"]: (8, 100, 3, 64, 64)

TorchRL refuses vector envs in Gymnasium's default `NEXT_STEP` autoreset mode. With `DISABLED`
(TorchRL's preferred mode, the default here) TorchRL resets finished sub-envs itself, through
`reset(options={"reset_mask": ...})`; `SAME_STEP` also works (TorchRL then reads `final_obs`).
Over a vector env TorchRL names the frames `"observation"`; a `RenameTransform` puts them under
`"pixels"`, the key TorchRL's image transforms (`ToTensorImage`, `Resize`, ...) read.
"""

from __future__ import annotations

from typing import Any

from . import MODULE_ENV_ID, autoreset_mode, require

require("torchrl", "torchrl")

import gymnasium as gym  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402
from torchrl.envs import EnvBase, GymWrapper, RenameTransform, TransformedEnv  # noqa: E402

__all__ = ["make_torchrl_env"]


def make_torchrl_env(
    num_envs: int,
    *,
    device: Any = "cpu",
    categorical_action_encoding: bool = False,
    pixels_key: str = "pixels",
    **kwargs: Any,
) -> EnvBase:
    """A TorchRL env of batch size `[num_envs]` over one `CarRacingVectorEnv`.

    Args:
        num_envs: number of sub-environments.
        device: the TorchRL device of the tensordicts.
        categorical_action_encoding: discrete actions as integers (True) or one-hot (TorchRL's
            default) when `continuous=False`.
        pixels_key: the key of the frames (TorchRL's convention for images: `"pixels"`).
        **kwargs: `CarRacingVectorEnv` options; `autoreset_mode` may be `DISABLED` (default)
            or `SAME_STEP`.
    """
    # TorchRL refuses NEXT_STEP; with DISABLED it resets finished sub-envs itself.
    mode = autoreset_mode(
        kwargs.pop("autoreset_mode", "Disabled"),
        (AutoresetMode.DISABLED, AutoresetMode.SAME_STEP),
        "TorchRL",
    )
    venv = gym.make_vec(
        MODULE_ENV_ID,
        num_envs=num_envs,
        vectorization_mode="vector_entry_point",
        autoreset_mode=mode,
        **kwargs,
    )
    env = GymWrapper(venv, device=device, categorical_action_encoding=categorical_action_encoding)
    rename = RenameTransform(in_keys=["observation"], out_keys=[pixels_key])
    if isinstance(env, TransformedEnv):  # SAME_STEP: TorchRL added its VecGymEnvTransform
        env.append_transform(rename)
        return env
    return TransformedEnv(env, rename)
