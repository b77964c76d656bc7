"""SB3 PPO rollout collection: `make_sb3_vec_env(8)` beside `SubprocVecEnv` over CarRacing-v3.

    make bench-sb3                     # or, in .venv-sb3: python bench/bench_sb3.py

Both sides run the same `PPO("CnnPolicy")` (NatureCNN on 96x96 RGB, CPU torch, SB3's own
`VecTransposeImage` in front of both) and time `collect_rollouts` of `n_steps` vector steps:
policy inference, action sampling and the env steps, i.e. what `.learn` spends outside the
gradient updates. Trials alternate between the systems (so a drifting machine load hits both),
the first trial of each is a discarded warm-up, and the medians are printed with the spread.
A second table times the env alone (`VecEnv.step` with random actions), without the policy.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # Gymnasium's CarRacing draws with pygame
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import numpy as np  # noqa: E402

try:
    import stable_baselines3
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv, VecEnv
except ImportError:
    sys.exit('This benchmark needs SB3: pip install "reinfors-gym[sb3]" "gymnasium[box2d]"')

import reinfors_gym  # noqa: E402
from reinfors_gym.integrations.sb3 import make_sb3_vec_env  # noqa: E402


def machine_info() -> str:
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if "model name" in line)
    except (OSError, StopIteration):
        pass
    return (
        f"{platform.platform()}, {cpu}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, torch {torch.__version__} ({torch.get_num_threads()} "
        f"threads), SB3 {stable_baselines3.__version__}, reinfors-gym {reinfors_gym.__version__}"
    )


def make_systems(num_envs: int) -> dict[str, VecEnv]:
    return {
        f"reinfors-gym make_sb3_vec_env({num_envs})": make_sb3_vec_env(num_envs, seed=0),
        f"Gymnasium CarRacing-v3 SubprocVecEnv({num_envs})": make_vec_env(
            "CarRacing-v3", n_envs=num_envs, seed=0, vec_env_cls=SubprocVecEnv
        ),
    }


def rollout_timer(env: VecEnv, n_steps: int):
    """A function timing one `collect_rollouts` of a PPO CnnPolicy on `env` (steps/s)."""
    model = PPO("CnnPolicy", env, n_steps=n_steps, batch_size=64, device="cpu", seed=0)
    _, callback = model._setup_learn(10**9, callback=None)
    callback.on_training_start(locals(), globals())

    def trial() -> float:
        start = time.perf_counter()
        model.collect_rollouts(model.env, callback, model.rollout_buffer, n_steps)
        return n_steps * env.num_envs / (time.perf_counter() - start)

    return trial


def env_timer(env: VecEnv, n_steps: int):
    """A function timing `n_steps` vector steps with random actions (steps/s)."""
    env.reset()
    rng = np.random.default_rng(0)
    actions = rng.uniform(-1, 1, (n_steps, env.num_envs, 3)).astype(np.float32)
    actions[..., 1:] = np.abs(actions[..., 1:])

    def trial() -> float:
        start = time.perf_counter()
        for a in actions:
            env.step(a)
        return n_steps * env.num_envs / (time.perf_counter() - start)

    return trial


def run(timers: dict, trials: int) -> dict[str, list[float]]:
    results: dict[str, list[float]] = {name: [] for name in timers}
    for t in range(trials + 1):
        for name, timer in timers.items():
            sps = timer()
            if t:  # the first round warms up (allocations, torch kernels, caches)
                results[name].append(sps)
    return results


def report(title: str, results: dict[str, list[float]]) -> None:
    print(f"\n{title}")
    for name, values in results.items():
        med = statistics.median(values)
        print(
            f"  {name:<48} {med:8.0f} steps/s  (min {min(values):.0f}, max {max(values):.0f}, "
            f"{len(values)} trials)"
        )
    names = list(results)
    ratio = statistics.median(results[names[0]]) / statistics.median(results[names[1]])
    print(f"  ratio: {ratio:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--n-steps", type=int, default=64, help="vector steps per rollout")
    parser.add_argument("--trials", type=int, default=5)
    args = parser.parse_args()
    print("machine:", machine_info())
    systems = make_systems(args.num_envs)
    try:
        rollouts = {name: rollout_timer(env, args.n_steps) for name, env in systems.items()}
        report(
            f"PPO('CnnPolicy') collect_rollouts, {args.num_envs} envs x {args.n_steps} steps",
            run(rollouts, args.trials),
        )
        steps = {name: env_timer(env, args.n_steps) for name, env in systems.items()}
        report(
            f"env alone (VecEnv.step, random actions), {args.num_envs} envs x {args.n_steps}",
            run(steps, args.trials),
        )
    finally:
        for env in systems.values():
            env.close()


if __name__ == "__main__":
    main()
