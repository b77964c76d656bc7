//! A plain loop of env steps + 96x96 frames, for profilers (`valgrind --tool=callgrind`,
//! `perf`) and for checking that an optimisation leaves every frame byte unchanged:
//! `cargo run --release --example step_loop -- 20000` prints the time per step split into
//! simulation and drawing, and a hash of every frame.
//!
//! It mirrors the benchmark harness's single-env loop: uniform random actions (steer in
//! [-1, 1], gas and brake in [0, 1]) from a seeded generator, episodes cut at 1000 steps.

use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use reinfors_gym::sim::env::{Action, CarRacing, Config, OBS_BYTES};
use reinfors_gym::sim::rng::NumpyGenerator;

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
    // FNV-1a over every frame (8 bytes at a time): any change in any pixel changes it.
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let (mut sim, mut draw) = (Duration::ZERO, Duration::ZERO);
    let mut t = 0;
    for _ in 0..steps {
        let action = [
            actions.random_range(-1.0..=1.0),
            actions.random_range(0.0..=1.0),
            actions.random_range(0.0..=1.0),
        ];
        let start = Instant::now();
        let out = env.step(Action::Continuous(action)).expect("valid action");
        let mid = Instant::now();
        env.render_state(&mut frame).expect("frame buffer");
        draw += mid.elapsed();
        sim += mid - start;
        for word in frame.chunks_exact(8) {
            let w: [u8; 8] = word.try_into().expect("8 bytes");
            hash = (hash ^ u64::from_le_bytes(w)).wrapping_mul(0x0100_0000_01b3);
        }
        t += 1;
        if out.terminated || t == EPISODE_STEPS {
            env.reset(None);
            t = 0;
        }
    }
    let us = |d: Duration| d.as_secs_f64() * 1e6 / steps as f64;
    println!(
        "{steps} steps: simulate {:.1} us + draw {:.1} us per step; frame hash {hash:016x}",
        us(sim),
        us(draw)
    );
}
