//! Micro-benchmarks of the per-step hot paths: `cargo bench --bench hot_paths`.
//!
//! Each bench is kept short (about 2 s of measurement, 30 samples) so the whole run stays
//! under a minute.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use reinfors_gym::sim::car::Car;
use reinfors_gym::sim::env::{Action, CarRacing, Config, OBS_BYTES};
use reinfors_gym::sim::rng::NumpyGenerator;
use reinfors_gym::sim::track;

/// Steps taken before timing a frame, so the car is mid-episode at full zoom (t = 3 s).
const WARMUP_STEPS: usize = 150;
/// Steps per timed slice of the step-and-render bench (4 s of episode time).
const SLICE_STEPS: u64 = 200;
/// Straight ahead at half throttle.
const CRUISE: Action = Action::Continuous([0.0, 0.5, 0.0]);

/// An environment `WARMUP_STEPS` steps into a seeded episode.
fn mid_episode_env() -> CarRacing {
    let mut env = CarRacing::new(Config::default(), NumpyGenerator::from_seed(0))
        .expect("default config is valid");
    env.reset(None);
    for _ in 0..WARMUP_STEPS {
        env.step(CRUISE).expect("valid action after reset");
    }
    env
}

fn track_generation(c: &mut Criterion) {
    let mut seed = 0u64;
    c.bench_function("track_generate", |b| {
        b.iter(|| {
            // A fresh seed each time: retries and track lengths vary by seed, as in resets.
            seed += 1;
            let mut rng = NumpyGenerator::from_seed(seed);
            black_box(track::generate(&mut rng))
        })
    });
}

fn physics_step(c: &mut Criterion) {
    let mut car = Car::new(0.0, 0.0, 0.0);
    c.bench_function("physics_step", |b| {
        b.iter(|| {
            car.gas(0.5);
            car.steer(0.1);
            car.step(1.0 / 50.0, [true; 4]);
            car.solve(0.02);
        })
    });
    black_box(car.state());
}

fn frame_render(c: &mut Criterion) {
    let mut env = mid_episode_env();
    let mut buf = vec![0u8; OBS_BYTES];
    c.bench_function("render_state_96x96", |b| {
        b.iter(|| {
            env.render_state(&mut buf).expect("episode is running");
            black_box(&buf);
        })
    });
}

fn env_step_and_render(c: &mut Criterion) {
    let base = mid_episode_env();
    let mut buf = vec![0u8; OBS_BYTES];
    c.bench_function("env_step_and_render", |b| {
        b.iter_custom(|iters| {
            // Drive from the mid-episode state in slices of `SLICE_STEPS` steps, restarting
            // (untimed) between slices so the car stays on a typical stretch of track.
            let mut elapsed = Duration::ZERO;
            let mut left = iters;
            while left > 0 {
                let mut env = base.clone();
                let n = left.min(SLICE_STEPS);
                let t0 = Instant::now();
                for _ in 0..n {
                    black_box(env.step(CRUISE).expect("valid action"));
                    env.render_state(&mut buf).expect("episode is running");
                    black_box(&buf);
                }
                elapsed += t0.elapsed();
                left -= n;
            }
            elapsed
        })
    });
}

fn quick() -> Criterion {
    Criterion::default()
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500))
        .sample_size(30)
}

criterion_group! {
    name = hot_paths;
    config = quick();
    targets = track_generation, physics_step, frame_render, env_step_and_render
}
criterion_main!(hot_paths);
