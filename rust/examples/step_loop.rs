//! A plain loop of env steps + 96x96 frames, for profilers (`valgrind --tool=callgrind`,
//! `perf`): `cargo run --release --example step_loop -- 2000`.
//!
//! It mirrors the benchmark harness's single-env loop: uniform random actions (steer in
//! [-1, 1], gas and brake in [0, 1]) from a seeded generator, episodes cut at 1000 steps.

use rand::{RngExt, SeedableRng};
use reinfors_gym::env::{Action, CarRacing, Config, OBS_BYTES};
use reinfors_gym::rng::NumpyGenerator;

const EPISODE_STEPS: usize = 1000;

fn main() {
    let steps: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let mut env = CarRacing::new(Config::default(), NumpyGenerator::from_seed(0)).expect("config");
    let mut actions = rand_pcg::Pcg64::seed_from_u64(0);
    env.reset(None);
    let mut frame = vec![0u8; OBS_BYTES];
    let mut checksum = 0u64;
    let mut t = 0;
    for i in 0..steps {
        let action = [
            actions.random_range(-1.0..=1.0),
            actions.random_range(0.0..=1.0),
            actions.random_range(0.0..=1.0),
        ];
        let out = env.step(Action::Continuous(action)).expect("valid action");
        env.render_state(&mut frame).expect("frame buffer");
        checksum = checksum.wrapping_add(frame[i % OBS_BYTES] as u64);
        t += 1;
        if out.terminated || t == EPISODE_STEPS {
            env.reset(None);
            t = 0;
        }
    }
    println!("{steps} steps, checksum {checksum}");
}
