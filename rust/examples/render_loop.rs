//! Render-only timing, for A/B comparisons of renderer changes on a noisy machine: 64
//! distinct mid-episode states (seeds 0..64, random actions, past the zoom-in), each drawn
//! 20 times per batch; prints the best batch's time per frame and a hash of the frames.
//!
//! `cargo run --release --example render_loop`

use std::time::Instant;

use rand::{RngExt, SeedableRng};
use reinfors_gym::sim::env::{Action, CarRacing, Config, OBS_BYTES};
use reinfors_gym::sim::rng::NumpyGenerator;

fn main() {
    let mut actions = rand_pcg::Pcg64::seed_from_u64(0);
    let mut envs: Vec<CarRacing> = (0..64u64)
        .map(|seed| {
            let mut env =
                CarRacing::new(Config::default(), NumpyGenerator::from_seed(seed)).expect("config");
            env.reset(None);
            for _ in 0..60 + 7 * seed {
                let a = [
                    actions.random_range(-1.0..=1.0),
                    actions.random_range(0.0..=1.0),
                    actions.random_range(0.0..=1.0),
                ];
                env.step(Action::Continuous(a)).expect("valid action");
            }
            env
        })
        .collect();
    let mut frame = vec![0u8; OBS_BYTES];
    let mut best = f64::MAX;
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for _ in 0..15 {
        let start = Instant::now();
        for _ in 0..20 {
            for env in &mut envs {
                env.render_state(&mut frame).expect("frame buffer");
            }
        }
        best = best.min(start.elapsed().as_secs_f64() * 1e6 / (20.0 * envs.len() as f64));
        hash = frame.iter().fold(hash, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    }
    println!("render {best:.2} us per frame (best batch); hash {hash:016x}");
}
