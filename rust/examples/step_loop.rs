//! A plain loop of env steps + 96x96 frames, for profilers (`valgrind --tool=callgrind`,
//! `perf`): `cargo run --release --example step_loop -- 2000`.

use reinfors_gym::env::{Action, CarRacing, Config, OBS_BYTES};
use reinfors_gym::rng::NumpyGenerator;

fn main() {
    let steps: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let mut env = CarRacing::new(Config::default(), NumpyGenerator::from_seed(0)).expect("config");
    env.reset(None);
    let mut frame = vec![0u8; OBS_BYTES];
    let mut checksum = 0u64;
    for i in 0..steps {
        // Gentle throttle with a slow weave keeps the car on and off the road.
        let steer = ((i as f64) * 0.02).sin() * 0.3;
        let out = env
            .step(Action::Continuous([steer, 0.3, 0.0]))
            .expect("valid action");
        env.render_state(&mut frame).expect("frame buffer");
        checksum = checksum.wrapping_add(frame[i % OBS_BYTES] as u64);
        if out.terminated {
            env.reset(None);
        }
    }
    println!("{steps} steps, checksum {checksum}");
}
