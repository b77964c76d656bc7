//! The pool's synchronous stepping and its spec.

use super::*;
use crate::sim::env::Config;

#[test]
fn step_recording_appends_the_pre_step_frames_and_steps_like_step() {
    let spec = PoolSpec {
        num_envs: 3,
        channels_first: true,
        ..state_frames_spec()
    };
    let entropy: Vec<Vec<u32>> = (0..3).map(|i| vec![i as u32 + 7]).collect();
    let mut pools = [
        Pool::new(spec, 2, &entropy).unwrap(),
        Pool::new(spec, 2, &entropy).unwrap(),
    ];
    let len = 3 * spec.obs_bytes();
    let mut obs = [vec![0u8; len], vec![0u8; len]];
    let mut fin = vec![0u8; len];
    let mut res = [SlotResult::default(); 3];
    for (pool, o) in pools.iter_mut().zip(&mut obs) {
        pool.reset(&[None, None, None], None, None, o).unwrap();
    }
    let mut record = vec![42u8; 5]; // appended to, never overwritten
    for t in 0..4 {
        let actions = [Action::Continuous([0.3 * t as f64 - 0.5, 0.6, 0.0]); 3];
        let before = obs[1].clone();
        pools[0]
            .step(&actions, &mut obs[0], &mut fin, &mut res)
            .unwrap();
        pools[1]
            .step_recording(&actions, &mut obs[1], &mut fin, &mut res, &mut record)
            .unwrap();
        assert_eq!(obs[0], obs[1]);
        assert_eq!(&record[5 + t * len..], &before[..]);
    }
    assert_eq!(&record[..5], &[42; 5]);
    // A refused step appends nothing.
    let bad = [Action::Continuous([f64::NAN, 0.0, 0.0]); 3];
    let kept = record.len();
    assert!(pools[1]
        .step_recording(&bad, &mut obs[1], &mut fin, &mut res, &mut record)
        .is_err());
    assert_eq!(record.len(), kept);
}

/// One env of plain 96x96 RGB state frames, Gymnasium's defaults.
fn state_frames_spec() -> PoolSpec {
    PoolSpec {
        num_envs: 1,
        config: Config::default(),
        max_episode_steps: Some(1000),
        autoreset: AutoresetMode::NextStep,
        frame_skip: 1,
        stack_num: 1,
        grayscale: false,
        width: 96,
        height: 96,
        channels_first: false,
    }
}

#[test]
fn obs_shape_matches_obs_bytes() {
    let mut spec = state_frames_spec();
    assert_eq!(spec.obs_shape(), vec![96, 96, 3]);
    spec.channels_first = true;
    assert_eq!(spec.obs_shape(), vec![3, 96, 96]);
    spec.grayscale = true;
    spec.stack_num = 4;
    assert_eq!(spec.obs_shape(), vec![4, 96, 96]);
    assert_eq!(spec.obs_shape().iter().product::<usize>(), spec.obs_bytes());
}

#[test]
fn spec_rejects_nonsense() {
    let spec = state_frames_spec();
    assert!(spec.check().is_ok());
    assert!(PoolSpec {
        num_envs: 0,
        ..spec
    }
    .check()
    .is_err());
    assert!(PoolSpec {
        frame_skip: 0,
        ..spec
    }
    .check()
    .is_err());
    assert!(PoolSpec {
        stack_num: 0,
        ..spec
    }
    .check()
    .is_err());
    assert!(PoolSpec { width: 0, ..spec }.check().is_err());
    assert!(PoolSpec {
        max_episode_steps: Some(0),
        ..spec
    }
    .check()
    .is_err());
}
