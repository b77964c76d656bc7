"""Collector throughput (zero-cost infer) beside the raw vector env and reinfors' Engine, and the
collect/train overlap of `collect_stream`.

    python bench/bench_collector.py [--games 16] [--threads N] [--collect-size 1024]
                                    [--trials 3] [--seconds 5] [--updates 8] [--json PATH]

The logic lives in `reinfors_gym.benchmarks` (`reinfors-gym bench` runs every section).
"""

from reinfors_gym.benchmarks.scripts import collector_main

if __name__ == "__main__":
    collector_main()
