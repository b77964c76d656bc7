"""Gymnasium's vector `infos` of a step, built from the core's step results: `final_obs` /
`final_info` in `SAME_STEP`, `lap_finished`, each with its `_key` mask.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from . import _core


def step_infos(res: _core.StepResults, autoreset_mode: AutoresetMode) -> dict[str, Any]:
    """Gymnasium's vector infos of a step's results (over the sub-envs they cover)."""
    infos: dict[str, Any] = {}
    if not (res.any_reset or res.any_lap):
        return infos  # most steps: the core built none of the arrays below
    lap = res.lap_finished
    assert lap is not None
    if autoreset_mode == AutoresetMode.SAME_STEP:
        if res.any_reset:
            done, rows = res.was_reset, res.final_obs
            assert done is not None and rows is not None
            final_obs = np.full(len(done), None, dtype=object)
            for i, row in zip(np.flatnonzero(done), rows, strict=True):
                final_obs[i] = row
            final_info: dict[str, Any] = {}
            lap_mask = done & (lap >= 0)
            if lap_mask.any():
                final_info["lap_finished"] = lap == 1
                final_info["_lap_finished"] = lap_mask
            infos.update(
                final_obs=final_obs, _final_obs=done, final_info=final_info, _final_info=done
            )
    elif res.any_lap:
        infos["lap_finished"] = lap == 1
        infos["_lap_finished"] = lap >= 0
    return infos
