//! `Pool::send`/`recv` through the crate's public API: results equal a synchronous step's,
//! `recv` hands over the first sub-envs to finish, a failed job loses no other result, a
//! timeout is a deadline, refused calls move nothing, and dropping the pool drops queued work.
//!
//! Long and failing jobs come from the test-only [`Fault`] (a sleep, then a panic).

use std::time::{Duration, Instant};

use reinfors_gym::runtime::job::SlotResult;
use reinfors_gym::runtime::pool::{AutoresetMode, Fault, Pool, PoolSpec};
use reinfors_gym::sim::env::{Action, Config};
use reinfors_gym::support::error::Error;

fn spec(num_envs: usize, autoreset: AutoresetMode, max_episode_steps: u32) -> PoolSpec {
    PoolSpec {
        num_envs,
        config: Config::default(),
        max_episode_steps: Some(max_episode_steps),
        autoreset,
        frame_skip: 1,
        stack_num: 1,
        grayscale: false,
        width: 96,
        height: 96,
        channels_first: false,
    }
}

/// A pool of `spec` on `threads` threads, every sub-env reset with seed words `[i]`.
fn pool(spec: PoolSpec, threads: usize) -> Pool {
    let entropy: Vec<Vec<u32>> = (0..spec.num_envs).map(|i| vec![i as u32]).collect();
    let mut pool = Pool::new(spec, threads, &entropy).unwrap();
    let seeds: Vec<Option<Vec<u32>>> = (0..spec.num_envs).map(|i| Some(vec![i as u32])).collect();
    let mut obs = vec![0; spec.num_envs * spec.obs_bytes()];
    pool.reset(&seeds, None, None, &mut obs).unwrap();
    pool
}

fn action(i: usize) -> Action {
    Action::Continuous([0.1 * i as f64 - 0.3, 0.6, 0.0])
}

fn actions(ids: &[usize]) -> Vec<Action> {
    ids.iter().map(|&i| action(i)).collect()
}

fn slow(ms: u64) -> Fault {
    Fault {
        delay: Duration::from_millis(ms),
        panic: false,
    }
}

/// What a `recv` handed over: the ids, their results and their observation rows.
type Received = (Vec<usize>, Vec<SlotResult>, Vec<u8>);

/// `recv(count)`, its rows checked.
fn recv(pool: &mut Pool, count: usize, timeout: Option<Duration>) -> Result<Received, Error> {
    let got = pool.recv(count, timeout)?;
    assert_eq!(got.obs.len(), count * pool.spec().obs_bytes());
    assert_eq!((got.ids.len(), got.results.len()), (count, count));
    Ok((got.ids, got.results, got.obs))
}

#[test]
fn send_and_recv_give_the_synchronous_results() {
    for mode in [AutoresetMode::NextStep, AutoresetMode::SameStep] {
        let spec = spec(6, mode, 3);
        let (mut sync, mut asy) = (pool(spec, 2), pool(spec, 2));
        asy.pack_batches_of(3);
        let ob = spec.obs_bytes();
        let mut want = vec![0; 6 * ob];
        let mut fin = vec![0; 6 * ob];
        let mut res = vec![SlotResult::default(); 6];
        let all: Vec<usize> = (0..6).collect();
        for _ in 0..5 {
            sync.step(&actions(&all), &mut want, &mut fin, &mut res)
                .unwrap();
            // Two halves sent in turn, received in two batches of three.
            asy.send(&[4, 1, 5], &actions(&[4, 1, 5])).unwrap();
            asy.send(&[0, 3, 2], &actions(&[0, 3, 2])).unwrap();
            assert_eq!(asy.in_flight(), 6);
            for _ in 0..2 {
                let got = asy.recv(3, None).unwrap();
                let ids = &got.ids;
                assert!(ids.windows(2).all(|w| w[0] < w[1]), "ascending: {ids:?}");
                let mut finals = got.final_obs.chunks(ob);
                for (k, &i) in ids.iter().enumerate() {
                    assert_eq!(got.results[k], res[i], "sub-env {i}");
                    assert_eq!(got.obs[k * ob..(k + 1) * ob], want[i * ob..(i + 1) * ob]);
                    if res[i].reset && mode == AutoresetMode::SameStep {
                        assert_eq!(finals.next(), Some(&fin[i * ob..(i + 1) * ob]));
                    }
                }
                assert_eq!(finals.next(), None);
            }
            assert_eq!(asy.in_flight(), 0);
        }
    }
}

#[test]
fn recv_hands_over_the_first_sub_envs_to_finish() {
    let mut pool = pool(spec(4, AutoresetMode::NextStep, 1000), 2);
    if pool.num_threads() < 2 {
        eprintln!("one core: nothing can finish before anything else");
        return;
    }
    pool.inject_fault(0, slow(400)).unwrap();
    let start = Instant::now();
    pool.send(&[0, 1, 2, 3], &actions(&[0, 1, 2, 3])).unwrap();
    // Whichever thread takes sub-env 0 is held 400 ms; the other steps 1, 2 and 3.
    let (ids, ..) = recv(&mut pool, 3, None).unwrap();
    assert_eq!(ids, [1, 2, 3]);
    let (ids, ..) = recv(&mut pool, 1, None).unwrap();
    assert_eq!(ids, [0]);
    assert!(start.elapsed() >= Duration::from_millis(400));
}

#[test]
fn a_failed_job_loses_no_other_result() {
    // Every step truncates (max_episode_steps=1): a lost result is a lost episode end.
    let spec = spec(4, AutoresetMode::NextStep, 1);
    let mut pool = pool(spec, 1);
    pool.inject_fault(
        1,
        Fault {
            delay: Duration::ZERO,
            panic: true,
        },
    )
    .unwrap();
    pool.send(&[0, 1, 2, 3], &actions(&[0, 1, 2, 3])).unwrap();
    let err = recv(&mut pool, 4, None).unwrap_err();
    assert!(
        matches!(&err, Error::SubEnvFailed(m) if m.contains("sub-env 1") && m.contains("injected")),
        "{err:?}"
    );
    // Sub-env 1 is idle and refused until reset; 0, 2 and 3 are done and keep their results.
    assert_eq!(pool.in_flight(), 3);
    let (ids, got, _) = recv(&mut pool, 3, None).unwrap();
    assert_eq!(ids, [0, 2, 3]);
    assert!(
        got.iter().all(|r| r.truncated && r.env_steps == 1),
        "{got:?}"
    );
    let refused = pool.send(&[1], &actions(&[1])).unwrap_err();
    assert!(matches!(refused, Error::ResetNeeded(_)), "{refused:?}");
    assert_eq!(pool.in_flight(), 0, "the refused send queued nothing");
    pool.inject_fault(1, Fault::default()).unwrap();
    pool.send_reset(&[1], &[None], None).unwrap();
    let (ids, got, _) = recv(&mut pool, 1, None).unwrap();
    assert_eq!((ids, got[0]), (vec![1], SlotResult::default()));
    pool.send(&[1], &actions(&[1])).unwrap();
    assert_eq!(recv(&mut pool, 1, None).unwrap().0, [1]);
}

#[test]
fn a_failed_job_in_wait_all_hands_every_sub_env_back() {
    let spec = spec(3, AutoresetMode::NextStep, 1000);
    let mut pool = pool(spec, 1);
    pool.inject_fault(
        2,
        Fault {
            delay: Duration::ZERO,
            panic: true,
        },
    )
    .unwrap();
    pool.send(&[0, 1, 2], &actions(&[0, 1, 2])).unwrap();
    let mut obs = vec![0; 3 * spec.obs_bytes()];
    let err = pool.wait_all(None, &mut obs).unwrap_err();
    assert!(
        matches!(&err, Error::Internal(m) if m.contains("sub-env 2")),
        "{err:?}"
    );
    assert_eq!(pool.in_flight(), 0);
    let mut fin = vec![0; obs.len()];
    let mut res = [SlotResult::default(); 3];
    let refused = pool
        .step(&actions(&[0, 1, 2]), &mut obs, &mut fin, &mut res)
        .unwrap_err();
    assert!(matches!(refused, Error::ResetNeeded(m) if m.contains("sub-env 2")));
}

#[test]
fn recv_honours_its_deadline() {
    // One thread: the caller steps every queued job itself, 50 ms each.
    let mut pool = pool(spec(8, AutoresetMode::NextStep, 1000), 1);
    let all: Vec<usize> = (0..8).collect();
    for &i in &all {
        pool.inject_fault(i, slow(50)).unwrap();
    }
    pool.send(&all, &actions(&all)).unwrap();
    let start = Instant::now();
    let outcome = recv(&mut pool, 8, Some(Duration::from_millis(75)));
    let took = start.elapsed();
    match outcome {
        Err(Error::Timeout(_)) => {}
        Err(e) => panic!("{e:?}"),
        Ok((ids, ..)) => panic!("no timeout: received {ids:?} after {took:?}"),
    }
    // At most the job running at the deadline overruns it; all eight would take 400 ms.
    assert!(took < Duration::from_millis(250), "{took:?}");
    assert_eq!(pool.in_flight(), 8, "a timeout leaves everything in flight");
    assert_eq!(recv(&mut pool, 8, None).unwrap().0, all);
}

#[test]
fn refused_calls_move_nothing() {
    let spec = spec(4, AutoresetMode::NextStep, 1000);
    let mut pool = pool(spec, 2);
    pool.send(&[0, 1], &actions(&[0, 1])).unwrap();
    let refusals = [
        pool.send(&[2, 1], &actions(&[2, 1])),
        pool.send(&[2, 4], &actions(&[2, 4])),
        pool.send(&[3, 3], &actions(&[3, 3])),
        pool.send(&[], &[]),
        pool.send(&[2], &[Action::Continuous([f64::NAN, 0.0, 0.0])]),
        pool.check_receivable(4, 1),
        pool.with_env(0, |_| ()),
        pool.check_nothing_in_flight("get_attr"),
    ];
    let kinds: Vec<_> = refusals
        .iter()
        .map(|r| match r {
            Err(Error::AsyncOrder(_)) => "order",
            Err(Error::InvalidEnvId(_)) => "id",
            Err(Error::InvalidAction(_)) => "action",
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        ["order", "id", "id", "id", "action", "order", "order", "order"]
    );
    assert_eq!(pool.in_flight(), 2);
    assert!(
        pool.with_env(2, |_| ()).is_ok(),
        "an idle sub-env is open to accessors"
    );
    let (ids, ..) = recv(&mut pool, 2, None).unwrap();
    assert_eq!(ids, [0, 1]);
    assert!(matches!(
        recv(&mut pool, 1, None),
        Err(Error::AsyncOrder(_))
    ));
}

#[test]
fn dropping_the_pool_drops_queued_long_jobs() {
    let all: Vec<usize> = (0..16).collect();
    let mut pool = pool(spec(16, AutoresetMode::NextStep, 1000), 2);
    for &i in &all {
        pool.inject_fault(i, slow(200)).unwrap();
    }
    pool.send(&all, &actions(&all)).unwrap();
    let start = Instant::now();
    drop(pool);
    // Running them all would take 16 x 200 ms / 2 threads = 1.6 s.
    let took = start.elapsed();
    assert!(took < Duration::from_millis(700), "{took:?}");
}
