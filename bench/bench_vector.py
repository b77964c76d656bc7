"""Vector stepping: CarRacingVectorEnv over 1..cores threads beside EnvPool (same env and thread
counts) and Gymnasium's AsyncVectorEnv, and memory per env.

    python bench/bench_vector.py [--trials 3] [--seconds 4] [--warmup 1] [--num-envs 8]
                                 [--json PATH]

The logic lives in `reinfors_gym.benchmarks` (`reinfors-gym bench` runs every section).
"""

from reinfors_gym.benchmarks.scripts import vector_main

if __name__ == "__main__":
    vector_main()
