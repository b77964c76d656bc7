//! Frame hashes over fixed runs, against values recorded on x86-64, where the AVX2 and the
//! baseline copies of the hot loops both give them. On another target (aarch64 under qemu:
//! `make test-aarch64`) this checks that the portable fallbacks of the SIMD rows, the
//! quantizer and the solver produce the same bytes, frame by frame.
//!
//! The first run is `rust/examples/step_loop.rs`'s loop, so
//! `cargo run --release --example step_loop -- 1500` prints [`STEP_LOOP_1500`] too.

use rand::{RngExt, SeedableRng};
use reinfors_gym::sim::car::CarState;
use reinfors_gym::sim::env::{Action, CarRacing, Config, OBS_BYTES};
use reinfors_gym::sim::rng::NumpyGenerator;

/// Frame hash of step_loop's first 1500 steps: one episode cut at 1000 steps, a reset, and 500
/// steps of the next.
const STEP_LOOP_1500: u64 = 0xdec7_f4f3_a15f_173a;
/// Rewards, endings and car states of the same run.
const STEP_LOOP_1500_OUTCOMES: u64 = 0xcc01_3843_1edf_cc2b;
/// Frames of a discrete, domain-randomized run (300 steps) and its last 600x400 video frame.
const DISCRETE_RANDOMIZED: u64 = 0xdf0f_e0aa_d868_e550;

/// FNV-1a over 8-byte words (step_loop's hash): any change in any byte changes it.
#[derive(Clone, Copy)]
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn word(&mut self, w: u64) {
        self.0 = (self.0 ^ w).wrapping_mul(0x0100_0000_01b3);
    }

    fn frame(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks_exact(8) {
            self.word(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        }
    }

    fn state(&mut self, s: &CarState) {
        let f32s = [s.hull_angle, s.hull_angular_velocity]
            .into_iter()
            .chain(s.hull_position)
            .chain(s.hull_linear_velocity)
            .chain(s.wheel_position.into_iter().flatten())
            .chain(s.wheel_linear_velocity.into_iter().flatten())
            .chain(s.wheel_angle)
            .chain(s.wheel_angular_velocity)
            .chain(s.joint_angle);
        for v in f32s {
            self.word(u64::from(v.to_bits()));
        }
        for v in s.wheel_omega.into_iter().chain(s.wheel_phase) {
            self.word(v.to_bits());
        }
    }
}

/// Prints every `(what, got, recorded)` first, so one run shows all the new values, and which
/// copies of the hot loops ran (read by `avx2_and_baseline_copies_give_the_recorded_hashes`).
fn check(hashes: &[(&str, u64, u64)]) {
    for (what, got, recorded) in hashes {
        println!("{what}: {got:016x} (recorded on x86-64: {recorded:016x})");
    }
    println!(
        "AVX2 copies used: {}",
        reinfors_gym::support::cpu::avx2_used()
    );
    for &(what, got, recorded) in hashes {
        assert_eq!(
            got, recorded,
            "{what}: hash {got:016x}, recorded {recorded:016x} on x86-64"
        );
    }
}

#[test]
fn step_loop_frames_match_the_x86_64_record() {
    let mut env = CarRacing::new(Config::default(), NumpyGenerator::from_seed(0)).expect("config");
    let mut actions = rand_pcg::Pcg64::seed_from_u64(0);
    env.reset(None);
    let mut frame = vec![0u8; OBS_BYTES];
    let (mut frames, mut outcomes) = (Fnv::new(), Fnv::new());
    let mut t = 0;
    for _ in 0..1500 {
        let action = [
            actions.random_range(-1.0..=1.0),
            actions.random_range(0.0..=1.0),
            actions.random_range(0.0..=1.0),
        ];
        let out = env.step(Action::Continuous(action)).expect("valid action");
        env.render_state(&mut frame).expect("frame buffer");
        frames.frame(&frame);
        outcomes.word(out.reward.to_bits());
        outcomes.word(u64::from(out.terminated) | (out.new_tiles as u64) << 8);
        outcomes.state(&env.car_state().expect("episode running"));
        t += 1;
        if out.terminated || t == 1000 {
            env.reset(None);
            t = 0;
        }
    }
    check(&[
        ("step_loop frames", frames.0, STEP_LOOP_1500),
        ("step_loop outcomes", outcomes.0, STEP_LOOP_1500_OUTCOMES),
    ]);
}

#[test]
fn discrete_randomized_frames_match_the_x86_64_record() {
    let config = Config {
        continuous: false,
        domain_randomize: true,
        ..Config::default()
    };
    let mut env = CarRacing::new(config, NumpyGenerator::from_seed(7)).expect("config");
    let mut actions = NumpyGenerator::from_seed(8);
    env.reset(None);
    let mut frame = vec![0u8; OBS_BYTES];
    let mut frames = Fnv::new();
    for _ in 0..300 {
        // Mostly gas, so the car moves and repaints tiles.
        let a = actions.integers(0, 8).min(3);
        let out = env.step(Action::Discrete(a)).expect("valid action");
        env.render_state(&mut frame).expect("frame buffer");
        frames.frame(&frame);
        frames.word(out.reward.to_bits());
        if out.terminated {
            env.reset(None);
        }
    }
    let mut video = vec![0u8; 600 * 400 * 3];
    env.render(&mut video, 600, 400, true).expect("video frame");
    frames.frame(&video);
    check(&[("discrete randomized frames", frames.0, DISCRETE_RANDOMIZED)]);
}

/// On x86-64 the tests above run the AVX2 copies where the CPU has them; this runs them again
/// in two child processes, one as is and one with the baseline copies forced, and checks that
/// each side really ran the copies it claims: on a CPU without AVX2 both would be baseline and
/// the comparison empty, so that fails unless `REINFORS_GYM_ALLOW_NO_AVX2=1` accepts it.
#[cfg(target_arch = "x86_64")]
#[test]
fn avx2_and_baseline_copies_give_the_recorded_hashes() {
    use reinfors_gym::support::cpu::{no_avx2_allowed, ALLOW_NO_AVX2_ENV, DISABLE_AVX2_ENV};
    let run = |disable_avx2: bool| {
        let mut cmd = std::process::Command::new(std::env::current_exe().expect("test binary"));
        cmd.env_remove(DISABLE_AVX2_ENV);
        if disable_avx2 {
            cmd.env(DISABLE_AVX2_ENV, "1");
        }
        let out = cmd
            .args(["--exact", "--test-threads=1", "--nocapture"])
            .args([
                "step_loop_frames_match_the_x86_64_record",
                "discrete_randomized_frames_match_the_x86_64_record",
            ])
            .output()
            .expect("run the test binary");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        println!("{text}");
        let side = if disable_avx2 { "baseline" } else { "AVX2" };
        assert!(out.status.success(), "{side} run failed:\n{text}");
        assert!(
            text.contains("2 passed"),
            "{side} run did not run both tests:\n{text}"
        );
        text
    };
    let baseline = run(true);
    assert!(
        !baseline.contains("AVX2 copies used: true"),
        "the baseline run ran AVX2 copies:\n{baseline}"
    );
    let avx2 = run(false);
    if avx2.contains("AVX2 copies used: false") {
        assert!(
            no_avx2_allowed(),
            "the AVX2 copies never ran (no AVX2 on this CPU?), so baseline was compared with \
             baseline; set {ALLOW_NO_AVX2_ENV}=1 to accept that"
        );
    }
}
