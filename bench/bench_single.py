"""Single-env, single-thread stepping: reinfors-gym (through gym.make and raw) beside Gymnasium's
CarRacing-v3, EnvPool and reinfors, each in its own process (random actions, frame every step).

    python bench/bench_single.py [--trials 3] [--seconds 5] [--warmup 1] [--json PATH]

The logic lives in `reinfors_gym.benchmarks` (`reinfors-gym bench` runs every section).
"""

from reinfors_gym.benchmarks.scripts import single_main

if __name__ == "__main__":
    single_main()
