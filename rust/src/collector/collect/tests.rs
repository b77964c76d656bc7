//! The collector's rollouts: progress cuts, refused steps that change nothing, `finish`.

use super::*;

/// `num_envs` continuous games with tiny grayscale frames.
fn tiny_spec(num_envs: usize, max_episode_steps: Option<u32>) -> PoolSpec {
    PoolSpec {
        num_envs,
        config: crate::sim::env::Config::default(),
        max_episode_steps,
        autoreset: AutoresetMode::SameStep,
        frame_skip: 1,
        stack_num: 1,
        grayscale: true,
        width: 16,
        height: 16,
        channels_first: false,
    }
}

fn two_games(max_episode_steps: Option<u32>) -> (Collector, Vec<u8>) {
    let spec = tiny_spec(2, max_episode_steps);
    let entropy = vec![vec![1], vec![2]];
    let mut c = Collector::new(
        spec,
        1,
        &entropy,
        7,
        RewardWeights::GYMNASIUM,
        PolicyKind::Gaussian,
    )
    .unwrap();
    let mut obs = vec![0u8; 2 * c.obs_bytes()];
    c.reset(&[Some(vec![0]), Some(vec![1])], &mut obs).unwrap();
    (c, obs)
}

const GAS: [f32; 12] = [
    0.0, 0.5, 0.0, -1.0, -1.0, -1.0, 0.0, 0.5, 0.0, -1.0, -1.0, -1.0,
];

fn rollout_lengths(c: &Collector) -> [usize; 6] {
    let r = &c.rollout;
    [
        r.values.len(),
        r.actions_f32.len(),
        r.behavior_log_probs.len(),
        r.rewards.len(),
        r.obs.len(),
        r.steps,
    ]
}

/// Both games stand still: no gas, full brake (Gaussian means; the noise is tiny).
const STAND: [f32; 12] = [
    0.0, -1.0, 1.0, -9.0, -9.0, -9.0, 0.0, -1.0, 1.0, -9.0, -9.0, -9.0,
];

#[test]
fn a_game_without_a_new_tile_for_the_limit_is_cut_and_restarts() {
    let (mut c, mut obs) = two_games(None);
    c.cut_without_progress(Some(5)).unwrap();
    for round in 0..2 {
        for step in 0..4 {
            let cut = c.step(&STAND, &[0.0, 0.0], &mut obs).unwrap();
            assert!(cut.is_empty(), "round {round}, step {step}: cut {cut:?}");
        }
        let cut = c.step(&STAND, &[0.0, 0.0], &mut obs).unwrap();
        assert_eq!(
            cut,
            vec![0, 1],
            "the fifth step without a new tile cuts both"
        );
        let b = c.obs_bytes();
        assert_ne!(
            c.final_obs(0),
            &obs[..b],
            "game 0 restarted: a new first frame"
        );
        assert_ne!(c.final_obs(1), &obs[b..], "game 1 restarted");
        c.set_final_values(&cut, &[3.0, 4.0]).unwrap();
    }
    let r = &c.rollout;
    let cut_rows: Vec<usize> = (0..r.truncations.len())
        .filter(|&i| r.truncations[i])
        .collect();
    assert_eq!(cut_rows, vec![8, 9, 18, 19], "steps 4 and 9 of both games");
    assert!(r.terminations.iter().all(|&t| !t));
    assert_eq!(r.episode_lengths, vec![5, 5, 5, 5]);
    let batch = c.finish(&[0.0, 0.0], 0.99, 0.95).unwrap();
    assert_eq!(batch.final_values[8], 3.0);
    assert_eq!(batch.final_values[19], 4.0);
}

#[test]
fn a_terminal_cut_ends_the_episode_without_a_bootstrap() {
    let (mut c, mut obs) = two_games(None);
    c.cut_without_progress(Some(5)).unwrap();
    c.cut_is_terminal(true);
    for _ in 0..4 {
        assert!(c.step(&STAND, &[0.0, 0.0], &mut obs).unwrap().is_empty());
    }
    let cut = c.step(&STAND, &[0.0, 0.0], &mut obs).unwrap();
    assert!(
        cut.is_empty(),
        "a terminal cut asks for no final value: {cut:?}"
    );
    let r = &c.rollout;
    let ended: Vec<usize> = (0..r.terminations.len())
        .filter(|&i| r.terminations[i])
        .collect();
    assert_eq!(ended, vec![8, 9], "step 4 of both games terminates");
    assert!(r.truncations.iter().all(|&t| !t));
    assert_eq!(r.episode_lengths, vec![5, 5]);
    let b = c.obs_bytes();
    assert_ne!(c.final_obs(0), &obs[..b], "game 0 restarted");
    let batch = c.finish(&[0.0, 0.0], 0.99, 0.95).unwrap();
    assert!(batch.final_values.iter().all(|v| v.is_nan()));
}

#[test]
fn a_game_that_keeps_finding_tiles_is_not_cut() {
    let (mut c, mut obs) = two_games(None);
    c.cut_without_progress(Some(40)).unwrap();
    for step in 0..150 {
        let cut = c.step(&GAS, &[0.0, 0.0], &mut obs).unwrap();
        assert!(cut.is_empty(), "step {step}: cut {cut:?}");
    }
    assert!(c.rollout.episode_lengths.is_empty(), "no episode ended");
}

#[test]
fn no_cut_unless_asked_and_zero_steps_is_refused() {
    let (mut c, mut obs) = two_games(None);
    for _ in 0..50 {
        assert!(c.step(&STAND, &[0.0, 0.0], &mut obs).unwrap().is_empty());
    }
    let err = c.cut_without_progress(Some(0)).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument(m) if m.contains("at least 1")),
        "{err:?}"
    );
    c.cut_without_progress(None).unwrap();
}

#[test]
fn a_refused_sample_leaves_the_rollout_as_it_was() {
    let (mut c, mut obs) = two_games(None);
    c.step(&GAS, &[0.0, 0.0], &mut obs).unwrap();
    let before = rollout_lengths(&c);
    let before_obs = obs.clone();
    for bad in [90.0f32, -25.0] {
        let mut policy = GAS;
        policy[10] = bad; // game 1's second log_std
        let err = c.step(&policy, &[0.0, 0.0], &mut obs).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.contains("log_std") && m.contains("game 1")),
            "{err:?}"
        );
        assert_eq!(rollout_lengths(&c), before);
        assert_eq!(obs, before_obs, "no game stepped");
    }
    c.step(&GAS, &[0.0, 0.0], &mut obs).unwrap();
    let batch = c.finish(&[0.0, 0.0], 0.99, 0.95).unwrap();
    assert_eq!(batch.steps, 2);
    assert!(batch.behavior_log_probs.iter().all(|v| v.is_finite()));
    assert!(batch.actions_f32.iter().all(|v| v.is_finite()));
}

#[test]
fn a_refused_step_leaves_every_sampling_stream_where_it_was() {
    // Two collectors on the same seeds; one is handed a refused call in between, whose
    // game 1 has a log_std out of bounds: game 0's stream must not have advanced either.
    let actions = |refuse: bool| {
        let (mut c, mut obs) = two_games(None);
        c.step(&GAS, &[0.0, 0.0], &mut obs).unwrap();
        if refuse {
            let mut bad_log_std = GAS;
            bad_log_std[10] = 90.0;
            assert!(c.step(&bad_log_std, &[0.0, 0.0], &mut obs).is_err());
        }
        for _ in 0..3 {
            c.step(&GAS, &[0.0, 0.0], &mut obs).unwrap();
        }
        c.finish(&[0.0, 0.0], 0.99, 0.95).unwrap().actions_f32
    };
    assert_eq!(actions(true), actions(false));
}

#[test]
fn finish_refuses_before_handing_the_rollout_out() {
    let (mut c, mut obs) = two_games(Some(1));
    let truncated = c.step(&GAS, &[0.0, 0.0], &mut obs).unwrap();
    assert_eq!(truncated, vec![0, 1]);
    let before = rollout_lengths(&c);
    assert!(matches!(
        c.finish(&[0.0, 0.0], 0.99, 0.95),
        Err(Error::InvalidState(_))
    ));
    assert_eq!(rollout_lengths(&c), before, "the rollout was kept");
    c.set_final_values(&truncated, &[1.0, 2.0]).unwrap();
    let batch = c.finish(&[0.0, 0.0], 0.99, 0.95).unwrap();
    assert_eq!(
        (batch.steps, batch.final_values.clone()),
        (1, vec![1.0, 2.0])
    );
}

#[test]
fn discarding_starts_the_next_rollout_empty() {
    let (mut c, mut obs) = two_games(None);
    for _ in 0..3 {
        c.step(&GAS, &[0.0, 0.0], &mut obs).unwrap();
    }
    assert_eq!(c.rollout.steps, 3);
    c.discard_partial();
    assert_eq!(rollout_lengths(&c), [0; 6]);
    c.step(&GAS, &[0.0, 0.0], &mut obs).unwrap();
    let batch = c.finish(&[0.0, 0.0], 0.99, 0.95).unwrap();
    assert_eq!(batch.steps, 1);
    assert_eq!(batch.obs.len(), 2 * c.obs_bytes());
}

#[test]
fn beta_outputs_out_of_range_are_refused_before_any_game_steps() {
    let spec = tiny_spec(1, None);
    let weights = RewardWeights::GYMNASIUM;
    let mut c = Collector::new(spec, 1, &[vec![1]], 7, weights, PolicyKind::Beta).unwrap();
    let mut obs = vec![0u8; c.obs_bytes()];
    c.reset(&[Some(vec![0])], &mut obs).unwrap();
    let good = [2.0f32, 3.0, 1.1, 2.0, 2.0, 20.0];
    c.step(&good, &[0.0], &mut obs).unwrap();
    let before = (rollout_lengths(&c), obs.clone());
    for (i, bad) in [(0, 0.0f32), (4, -1.0), (5, 1e7), (2, 1e-4)] {
        let mut policy = good;
        policy[i] = bad;
        let err = c.step(&policy, &[0.0], &mut obs).unwrap_err();
        let name = if i < 3 { "alpha" } else { "beta" };
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.contains(name) && m.contains("game 0")),
            "{err:?}"
        );
        assert_eq!(
            (rollout_lengths(&c), obs.clone()),
            before,
            "nothing stepped"
        );
    }
    let mut nan = good;
    nan[1] = f32::NAN;
    assert!(c.step(&nan, &[0.0], &mut obs).is_err());
    assert_eq!(
        (rollout_lengths(&c), obs.clone()),
        before,
        "nothing stepped"
    );
    // A Beta policy needs a continuous game.
    let mut discrete = spec;
    discrete.config.continuous = false;
    let err = Collector::new(discrete, 1, &[vec![1]], 7, weights, PolicyKind::Beta);
    assert!(matches!(err, Err(Error::InvalidArgument(_))));
}
