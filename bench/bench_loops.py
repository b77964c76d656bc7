"""The policy loops of asynchronous stepping (issue 34's table): a device-like policy that holds
the loop 2 ms without a core, a Nature CNN on 1 torch thread and on every core (also with
OMP_WAIT_POLICY=PASSIVE); each beside the policy alone, the step alone, our sync and async
loops and EnvPool's async loop (16 envs, batches of 8, interleaved trials, medians).

    python bench/bench_loops.py [--trials 5] [--seconds 4] [--groups device,cnn-1]
                                [--json docs/async_loops.json]

Needs torch (and envpool for its loop) in this interpreter: `make test-integrations` builds
.venv-sb3 with both. `reinfors-gym bench --loops --out docs` runs the same.
"""

from reinfors_gym.benchmarks.loops import main

if __name__ == "__main__":
    main()
