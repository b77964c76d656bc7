//! The board of work in flight, driven by a fake worker: orders, refusals, failures, closing.

use super::*;
use crate::sim::env::Action;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn step() -> Job {
    Job::Step(Action::Discrete(0))
}

/// A worker whose jobs return their sub-env's number as the reward (sub-env `bad` fails,
/// each job takes `job`), and whose rows are the sub-env's number, one byte each.
#[derive(Default)]
struct Fake {
    bad: Option<usize>,
    job: Duration,
    ran: AtomicUsize,
    packs: AtomicUsize,
}

impl Worker for Fake {
    fn run_job(&self, i: usize, _: Job) -> Result<SlotResult> {
        self.ran.fetch_add(1, Ordering::Relaxed);
        std::thread::sleep(self.job);
        if Some(i) == self.bad {
            return Err(Error::Internal("boom".into()));
        }
        Ok(SlotResult {
            reward: i as f64,
            truncated: true,
            ..SlotResult::default()
        })
    }

    fn pack(&self, ids: &[usize], _: &[Result<SlotResult>]) -> (Vec<u8>, Vec<u8>) {
        self.packs.fetch_add(1, Ordering::Relaxed);
        (ids.iter().map(|&i| i as u8).collect(), Vec::new())
    }
}

fn ok() -> Fake {
    Fake::default()
}

fn fails_on(bad: usize) -> Fake {
    Fake {
        bad: Some(bad),
        ..Fake::default()
    }
}

/// The batch's ids, after checking that its rows and results are theirs.
fn ids(got: Batch) -> Vec<usize> {
    let rows: Vec<usize> = got.obs.iter().map(|&r| r as usize).collect();
    assert_eq!(rows, got.ids);
    assert!(got.ids.windows(2).all(|w| w[0] < w[1]), "{:?}", got.ids);
    assert!(got
        .ids
        .iter()
        .zip(&got.results)
        .all(|(&i, r)| r.reward == i as f64));
    got.ids
}

#[test]
fn send_checks_ids_before_anything_changes() {
    let f = Flight::new(4);
    assert!(matches!(
        f.check_sendable(&[0, 4]),
        Err(Error::InvalidEnvId(_))
    ));
    assert!(matches!(
        f.check_sendable(&[1, 1]),
        Err(Error::InvalidEnvId(_))
    ));
    assert!(matches!(f.check_sendable(&[]), Err(Error::InvalidEnvId(_))));
    assert_eq!(f.in_flight(), 0);
    f.queue([(2, step())]);
    let err = f.check_sendable(&[0, 2]).unwrap_err();
    assert!(matches!(err, Error::AsyncOrder(_)), "{err:?}");
    assert_eq!(f.in_flight(), 1);
    assert!(f.is_in_flight(2) && !f.is_in_flight(0));
    assert!(matches!(f.check_at_rest("step"), Err(Error::AsyncOrder(_))));
}

#[test]
fn recv_refuses_what_could_never_arrive() {
    let f = Flight::new(4);
    assert!(matches!(
        f.receive(Want::First(1), None, &ok()),
        Err(Error::AsyncOrder(_))
    ));
    assert!(matches!(
        f.receive(Want::All, None, &ok()),
        Err(Error::AsyncOrder(_))
    ));
    f.queue([(0, step()), (1, step())]);
    assert!(f.receive(Want::First(3), None, &ok()).is_err());
    assert_eq!(f.in_flight(), 2, "a refused recv leaves the work in flight");
    assert!(f.check_receivable(3, 1).is_ok());
    assert_eq!(ids(f.receive(Want::First(2), None, &ok()).unwrap()), [0, 1]);
    assert_eq!(f.in_flight(), 0);
    f.check_sendable(&[0, 1]).unwrap();
}

#[test]
fn the_caller_runs_queued_jobs_while_it_waits() {
    let f = Flight::new(3);
    f.queue([(2, step()), (0, step()), (1, step())]);
    let w = ok();
    assert_eq!(ids(f.receive(Want::First(2), None, &w).unwrap()), [0, 2]);
    assert_eq!(
        w.ran.load(Ordering::Relaxed),
        2,
        "it ran only what it needed"
    );
    assert_eq!(f.in_flight(), 1);
    assert_eq!(ids(f.receive(Want::All, None, &w).unwrap()), [1]);
}

#[test]
fn a_helper_packs_the_batch_it_completes_and_recv_hands_it_over() {
    let f = Arc::new(Flight::new(6));
    f.pack_batches_of(3);
    let w = Arc::new(Fake {
        job: Duration::from_millis(5),
        ..Fake::default()
    });
    f.queue([5, 1, 3, 0, 4, 2].map(|i| (i, step())));
    let helper = {
        let (f, w) = (Arc::clone(&f), Arc::clone(&w));
        std::thread::spawn(move || f.work_off(&*w))
    };
    helper.join().unwrap();
    assert_eq!(w.packs.load(Ordering::Relaxed), 2, "two batches of three");
    assert_eq!(f.in_flight(), 6);
    // In the order they finished; each batch ascending.
    assert_eq!(
        ids(f.receive(Want::First(3), None, &*w).unwrap()),
        [1, 3, 5]
    );
    assert_eq!(
        ids(f.receive(Want::First(3), None, &*w).unwrap()),
        [0, 2, 4]
    );
    assert_eq!(
        w.packs.load(Ordering::Relaxed),
        2,
        "recv copied nothing itself"
    );
    assert_eq!(f.in_flight(), 0);
}

#[test]
fn a_wait_for_everything_takes_packed_batches_apart() {
    let f = Flight::new(6);
    f.pack_batches_of(2);
    let w = ok();
    f.queue((0..6).map(|i| (i, step())));
    f.work_off(&w); // three batches packed
    assert_eq!(
        ids(f.receive(Want::All, None, &w).unwrap()),
        [0, 1, 2, 3, 4, 5]
    );
    assert_eq!(f.in_flight(), 0);
}

#[test]
fn receive_hands_over_the_first_to_finish() {
    let f = Arc::new(Flight::new(4));
    f.queue((0..4).map(|i| (i, step())));
    // Sub-env 0 takes long on a helper; the caller runs 1, 2 and 3 meanwhile.
    let helper = {
        let f = Arc::clone(&f);
        std::thread::spawn(move || {
            let mut b = f.lock();
            let (i, job) = take_next(&mut b).unwrap();
            drop(b);
            let w = Fake {
                job: Duration::from_millis(200),
                ..Fake::default()
            };
            let outcome = w.run_job(i, job);
            let b = f.lock();
            drop(f.finish_in(b, i, outcome, &w));
        })
    };
    while f.lock().queue.len() == 4 {
        std::thread::yield_now(); // until the helper holds sub-env 0
    }
    assert_eq!(ids(f.receive(Want::First(2), None, &ok()).unwrap()), [1, 2]);
    assert_eq!(ids(f.receive(Want::First(2), None, &ok()).unwrap()), [0, 3]);
    helper.join().unwrap();
}

#[test]
fn a_failed_job_keeps_the_others_results_for_the_next_receive() {
    for pack in [0, 3] {
        let f = Flight::new(6);
        f.pack_batches_of(pack);
        let w = fails_on(1);
        f.queue((0..6).map(|i| (i, step())));
        let err = f.receive(Want::First(3), None, &w).unwrap_err();
        assert!(
            matches!(&err, Error::SubEnvFailed(m) if m.contains("sub-env 1") && m.contains("boom")),
            "{err:?}"
        );
        // 0 and 2 are still done, 3..6 still queued; 1 is idle.
        assert_eq!(f.in_flight(), 5);
        assert!(!f.is_in_flight(1) && f.is_in_flight(0) && f.is_in_flight(2));
        f.check_sendable(&[1]).unwrap();
        assert!(f.check_sendable(&[0]).is_err());
        assert_eq!(ids(f.receive(Want::First(3), None, &w).unwrap()), [0, 2, 3]);
        assert_eq!(ids(f.receive(Want::All, None, &w).unwrap()), [4, 5]);
        assert_eq!(f.in_flight(), 0);
    }
}

#[test]
fn a_failed_job_in_a_wait_for_all_hands_everything_back() {
    let f = Flight::new(4);
    f.queue((0..4).map(|i| (i, step())));
    let err = f.receive(Want::All, None, &fails_on(2)).unwrap_err();
    assert!(matches!(&err, Error::Internal(m) if m.contains("sub-env 2")));
    assert_eq!(f.in_flight(), 0);
    f.check_sendable(&[0, 1, 2, 3]).unwrap();
}

#[test]
fn a_timeout_leaves_running_work_in_flight() {
    let f = Flight::new(1);
    f.queue([(0, step())]);
    let (i, _) = take_next(&mut f.lock()).unwrap(); // on a helper that never finishes
    let deadline = Instant::now() + Duration::from_millis(20);
    let err = f
        .receive(Want::First(1), Some(deadline), &ok())
        .unwrap_err();
    assert!(matches!(err, Error::Timeout(_)), "{err:?}");
    let b = f.lock();
    drop(f.finish_in(b, i, Ok(SlotResult::default()), &ok()));
    assert_eq!(f.receive(Want::First(1), None, &ok()).unwrap().ids, [0]);
}

#[test]
fn the_caller_starts_no_job_after_the_deadline() {
    let f = Flight::new(8);
    f.queue((0..8).map(|i| (i, step())));
    let w = Fake {
        job: Duration::from_millis(30),
        ..Fake::default()
    };
    let start = Instant::now();
    let err = f
        .receive(Want::All, Some(start + Duration::from_millis(40)), &w)
        .unwrap_err();
    assert!(matches!(err, Error::Timeout(_)), "{err:?}");
    // Jobs of 30 ms: it started one or two (at 0 and 30 ms), not all eight (240 ms).
    let ran = w.ran.load(Ordering::Relaxed);
    assert!((1..=2).contains(&ran), "{ran}");
    assert!(start.elapsed() < Duration::from_millis(200));
    assert_eq!(f.in_flight(), 8, "the timeout left everything in flight");
}

#[test]
fn close_drops_queued_jobs_and_waits_for_running_ones() {
    let f = Arc::new(Flight::new(3));
    f.queue([(0, step()), (1, step()), (2, step())]);
    let (i, _) = take_next(&mut f.lock()).unwrap();
    let finished = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let worker = {
        let (f, finished) = (Arc::clone(&f), Arc::clone(&finished));
        std::thread::spawn(move || {
            // Long enough that a close() that does not wait returns first.
            std::thread::sleep(Duration::from_millis(30));
            finished.store(true, Ordering::SeqCst);
            let b = f.lock();
            drop(f.finish_in(b, i, Ok(SlotResult::default()), &ok()));
        })
    };
    f.close();
    assert!(finished.load(Ordering::SeqCst));
    assert_eq!(f.in_flight(), 1, "only the finished job is left, done");
    assert!(take_next(&mut f.lock()).is_none());
    worker.join().unwrap();
}
