//! The board of asynchronous work: which sub-envs are queued, running or done, for
//! EnvPool-style `send`/`recv` on a [`crate::pool::Pool`]. It is the one record of what is in
//! flight: the Python layer asks it, and keeps no copy.
//!
//! Jobs are taken in the order they were sent, by whichever thread is free (the pool's
//! helpers in the background, the caller while it waits in `recv`); a finished sub-env joins
//! the done list in the order it finished. What each job does depends only on its own
//! sub-env, so the order changes which sub-envs a `recv` returns, never their results.
//!
//! Every refusal happens before anything changes: a refused call leaves the board as it was.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::env::Action;
use crate::error::{Error, Result};
use crate::pool::SlotResult;

/// What a sub-env is asked to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Job {
    Step(Action),
    /// `seed`: entropy words that reseed the generator (`None`: its stream continues).
    Reset {
        seed: Option<Vec<u32>>,
        randomize: Option<bool>,
    },
}

/// Where a sub-env stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Its last result was received (or it was never sent): the caller may send it.
    Idle,
    Queued,
    Running,
    /// Finished; waiting for `recv`.
    Done,
}

/// How many done sub-envs a receive hands over, and what a failed job among them does to
/// the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// EnvPool's `recv`: the first `k` to finish. If one of them failed, the others stay done
    /// (the next receive hands them over, results intact) and the failed ones become idle.
    First(usize),
    /// Gymnasium's `step_wait`/`reset_wait`: everything in flight, all or nothing. If a job
    /// failed, every sub-env becomes idle (the caller must reset them all).
    All,
}

struct Board {
    stage: Vec<Stage>,
    /// Jobs of queued sub-envs (taken out when they start).
    jobs: Vec<Option<Job>>,
    /// Outcomes of done sub-envs.
    outcomes: Vec<Option<Result<SlotResult>>>,
    /// Queued sub-envs, in the order they were sent.
    queue: VecDeque<usize>,
    /// Done sub-envs, in the order they finished.
    done: VecDeque<usize>,
    running: usize,
    /// No job starts any more: the pool is being dropped.
    closing: bool,
}

impl Board {
    fn in_flight(&self) -> usize {
        self.queue.len() + self.running + self.done.len()
    }
}

/// The board behind one lock, with a condition for "a job finished".
pub struct Flight {
    board: Mutex<Board>,
    finished: Condvar,
}

impl Flight {
    pub fn new(num_envs: usize) -> Self {
        Flight {
            board: Mutex::new(Board {
                stage: vec![Stage::Idle; num_envs],
                jobs: vec![None; num_envs],
                outcomes: vec![None; num_envs],
                queue: VecDeque::new(),
                done: VecDeque::new(),
                running: 0,
                closing: false,
            }),
            finished: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Board> {
        // Jobs run outside the lock and catch their panics, so a poisoned lock still holds
        // a consistent board.
        self.board.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sub-envs sent and not yet received.
    pub fn in_flight(&self) -> usize {
        self.lock().in_flight()
    }

    /// Whether sub-env `i` is in flight (queued, running, or done and not yet received).
    pub fn is_in_flight(&self, i: usize) -> bool {
        self.lock().stage.get(i).is_some_and(|&s| s != Stage::Idle)
    }

    /// Refuses `call` while any sub-env is in flight (synchronous calls and accessors need
    /// every sub-env at rest).
    pub fn check_at_rest(&self, call: &str) -> Result<()> {
        match self.in_flight() {
            0 => Ok(()),
            k => Err(Error::AsyncOrder(format!(
                "{call}() while {k} sub-envs are in flight (sent with send(), step_async() or \
                 async_reset()); recv() them first"
            ))),
        }
    }

    /// Checks that every `id` is a sub-env, appears once and is idle. Nothing changes.
    pub fn check_sendable(&self, ids: &[usize]) -> Result<()> {
        let b = self.lock();
        let n = b.stage.len();
        if ids.is_empty() {
            return Err(Error::InvalidEnvId(
                "env_id is empty: send() at least one sub-env".into(),
            ));
        }
        let mut seen = vec![false; n];
        let mut busy = Vec::new();
        for &i in ids {
            if i >= n {
                let bad: Vec<usize> = ids.iter().copied().filter(|&i| i >= n).collect();
                return Err(Error::InvalidEnvId(format!(
                    "env_id {bad:?} out of range: sub-envs are 0 to {}",
                    n - 1
                )));
            }
            if std::mem::replace(&mut seen[i], true) {
                return Err(Error::InvalidEnvId(format!(
                    "env_id [{i}] appears more than once"
                )));
            }
            if b.stage[i] != Stage::Idle {
                busy.push(i);
            }
        }
        if !busy.is_empty() {
            return Err(Error::AsyncOrder(format!(
                "sub-envs {busy:?} are already in flight; recv() their results before sending \
                 them again"
            )));
        }
        Ok(())
    }

    /// Refuses a `recv` of `count` that could never complete once `extra` more sub-envs are
    /// sent (it would wait forever). Nothing changes.
    pub fn check_receivable(&self, count: usize, extra: usize) -> Result<()> {
        receivable(&self.lock(), count, extra)
    }

    /// Queues one job per sub-env (checked with [`Flight::check_sendable`] first).
    pub fn queue(&self, jobs: impl IntoIterator<Item = (usize, Job)>) {
        let mut b = self.lock();
        for (i, job) in jobs {
            debug_assert_eq!(b.stage[i], Stage::Idle);
            b.stage[i] = Stage::Queued;
            b.jobs[i] = Some(job);
            b.queue.push_back(i);
        }
    }

    /// The next queued job, now running; `None` when the queue is empty or closing.
    pub fn take(&self) -> Option<(usize, Job)> {
        let mut b = self.lock();
        take_next(&mut b)
    }

    /// Records the outcome of a job that [`Flight::take`] handed out.
    pub fn finish(&self, i: usize, outcome: Result<SlotResult>) {
        let mut b = self.lock();
        finish_in(&mut b, i, outcome);
        drop(b);
        self.finished.notify_all();
    }

    /// Waits until the sub-envs `want` names are done and hands them over (now idle) with
    /// their results, in the order they finished. While it waits, the calling thread runs
    /// queued jobs itself with `run`, one at a time, and starts none once `deadline` has
    /// passed. Refuses at once, changing nothing, when fewer than wanted are in flight (it
    /// would wait forever); at the deadline it gives up and leaves everything in flight.
    ///
    /// A failed job is reported as the error, naming its sub-env, which is handed back idle;
    /// what happens to the others received with it depends on `want` (see [`Want`]).
    pub fn receive(
        &self,
        want: Want,
        deadline: Option<Instant>,
        run: impl Fn(usize, Job) -> Result<SlotResult>,
    ) -> Result<Vec<(usize, SlotResult)>> {
        let mut b = self.lock();
        let count = match want {
            Want::First(k) => k,
            Want::All => b.in_flight(),
        };
        receivable(&b, count, 0)?;
        while b.done.len() < count {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(Error::Timeout(format!(
                    "recv() timed out with {} of {count} sub-envs done; they stay in flight",
                    b.done.len()
                )));
            }
            if let Some((i, job)) = take_next(&mut b) {
                drop(b);
                let outcome = run(i, job);
                b = self.lock();
                finish_in(&mut b, i, outcome);
                continue;
            }
            b = match deadline {
                None => self.finished.wait(b).unwrap_or_else(|p| p.into_inner()),
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    let left = left.max(Duration::from_micros(1));
                    self.finished
                        .wait_timeout(b, left)
                        .unwrap_or_else(|p| p.into_inner())
                        .0
                }
            };
        }
        let got: Vec<usize> = b.done.drain(..count).collect();
        let mut received = Vec::with_capacity(count);
        let mut failed = None;
        for &i in &got {
            match b.outcomes[i].take().expect("a done sub-env has an outcome") {
                Ok(r) => received.push((i, r)),
                Err(e) => {
                    b.stage[i] = Stage::Idle;
                    failed.get_or_insert((i, e));
                }
            }
        }
        let Some((i, e)) = failed else {
            for &(i, _) in &received {
                b.stage[i] = Stage::Idle;
            }
            return Ok(received);
        };
        let kept = match want {
            Want::First(_) => {
                // Back at the front, in the order they finished, for the next receive.
                for &(j, r) in received.iter().rev() {
                    b.outcomes[j] = Some(Ok(r));
                    b.done.push_front(j);
                }
                Some(received.len())
            }
            Want::All => {
                for &(j, _) in &received {
                    b.stage[j] = Stage::Idle;
                }
                None
            }
        };
        Err(failure(i, e, kept))
    }

    /// Stops every queued job (those sub-envs become idle, their results never come) and
    /// waits until the running ones have finished. Afterwards nothing runs, and [`Flight::take`]
    /// hands out nothing.
    pub fn close(&self) {
        let mut b = self.lock();
        b.closing = true;
        while let Some(i) = b.queue.pop_front() {
            b.stage[i] = Stage::Idle;
            b.jobs[i] = None;
        }
        while b.running > 0 {
            b = self.finished.wait(b).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// For a forked child: the jobs running in the parent's threads never finish here, so
    /// nothing is waited for; every sub-env becomes idle and nothing runs any more.
    pub fn abandon(&self) {
        let mut b = self.lock();
        b.closing = true;
        b.queue.clear();
        b.done.clear();
        b.running = 0;
        b.stage.fill(Stage::Idle);
        b.jobs.fill(None);
        b.outcomes.fill(None);
    }
}

/// The error of sub-env `i`'s failed job `e`, saying what became of the `kept` others
/// received with it: [`Error::SubEnvFailed`] when they stay in flight, else `e`'s kind.
fn failure(i: usize, e: Error, kept: Option<usize>) -> Error {
    let reset = format!("sub-env {i}'s job failed ({e}); reset it before stepping it again");
    match kept {
        Some(k) => Error::SubEnvFailed(format!(
            "{reset}; the {k} other sub-envs done with it stay in flight, results intact, for \
             the next recv()"
        )),
        None => {
            let text = format!("{reset}; every sub-env's result of this call is lost");
            match e {
                Error::Internal(_) => Error::Internal(text),
                _ => Error::ResetNeeded(text),
            }
        }
    }
}

fn receivable(b: &Board, count: usize, extra: usize) -> Result<()> {
    let in_flight = b.in_flight() + extra;
    if count > 0 && in_flight >= count {
        return Ok(());
    }
    Err(Error::AsyncOrder(if in_flight == 0 {
        "recv() with nothing in flight: send() actions or async_reset() first".into()
    } else {
        let are = if extra == 0 {
            "are"
        } else {
            "would be after this send"
        };
        format!(
            "recv() needs batch_size={count} sub-envs in flight, but only {in_flight} {are}; \
             send() more first"
        )
    }))
}

fn take_next(b: &mut Board) -> Option<(usize, Job)> {
    if b.closing {
        return None;
    }
    let i = b.queue.pop_front()?;
    b.stage[i] = Stage::Running;
    b.running += 1;
    let job = b.jobs[i].take().expect("a queued sub-env has a job");
    Some((i, job))
}

fn finish_in(b: &mut Board, i: usize, outcome: Result<SlotResult>) {
    debug_assert_eq!(b.stage[i], Stage::Running);
    b.running -= 1;
    b.stage[i] = Stage::Done;
    b.outcomes[i] = Some(outcome);
    b.done.push_back(i);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step() -> Job {
        Job::Step(Action::Discrete(0))
    }

    fn ok(_: usize, _: Job) -> Result<SlotResult> {
        Ok(SlotResult::default())
    }

    fn ids(got: &[(usize, SlotResult)]) -> Vec<usize> {
        got.iter().map(|g| g.0).collect()
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
            f.receive(Want::First(1), None, ok),
            Err(Error::AsyncOrder(_))
        ));
        assert!(matches!(
            f.receive(Want::All, None, ok),
            Err(Error::AsyncOrder(_))
        ));
        f.queue([(0, step()), (1, step())]);
        assert!(f.receive(Want::First(3), None, ok).is_err());
        assert_eq!(f.in_flight(), 2, "a refused recv leaves the work in flight");
        assert!(f.check_receivable(3, 1).is_ok());
        let got = f.receive(Want::First(2), None, ok).unwrap();
        assert_eq!(ids(&got), [0, 1]);
        assert_eq!(f.in_flight(), 0);
        f.check_sendable(&[0, 1]).unwrap();
    }

    #[test]
    fn the_caller_runs_queued_jobs_while_it_waits() {
        let f = Flight::new(3);
        f.queue([(2, step()), (0, step()), (1, step())]);
        let got = f.receive(Want::First(2), None, ok).unwrap();
        assert_eq!(ids(&got), [2, 0]);
        assert_eq!(f.in_flight(), 1);
        assert_eq!(f.take().map(|t| t.0), Some(1));
    }

    #[test]
    fn receive_hands_over_the_first_to_finish() {
        let f = Flight::new(4);
        f.queue([(0, step()), (1, step()), (2, step()), (3, step())]);
        // Helpers take 0 and 1; 1 finishes first, then 3 (which the caller never runs).
        let (a, b) = (f.take().unwrap().0, f.take().unwrap().0);
        let (c, d) = (f.take().unwrap().0, f.take().unwrap().0);
        assert_eq!([a, b, c, d], [0, 1, 2, 3]);
        f.finish(1, ok(1, step()));
        f.finish(3, ok(3, step()));
        let got = f.receive(Want::First(2), None, ok).unwrap();
        assert_eq!(ids(&got), [1, 3]);
        f.finish(0, ok(0, step()));
        f.finish(2, ok(2, step()));
        assert_eq!(ids(&f.receive(Want::All, None, ok).unwrap()), [0, 2]);
    }

    fn fails_on(bad: usize) -> impl Fn(usize, Job) -> Result<SlotResult> {
        move |i, _| {
            if i == bad {
                Err(Error::Internal("boom".into()))
            } else {
                Ok(SlotResult {
                    reward: i as f64,
                    truncated: true,
                    ..SlotResult::default()
                })
            }
        }
    }

    #[test]
    fn a_failed_job_keeps_the_others_results_for_the_next_receive() {
        let f = Flight::new(6);
        f.queue((0..6).map(|i| (i, step())));
        let err = f.receive(Want::First(3), None, fails_on(1)).unwrap_err();
        assert!(
            matches!(&err, Error::SubEnvFailed(m) if m.contains("sub-env 1") && m.contains("boom")),
            "{err:?}"
        );
        // 0 and 2 are still done, 3..6 still queued; 1 is idle.
        assert_eq!(f.in_flight(), 5);
        assert!(!f.is_in_flight(1) && f.is_in_flight(0) && f.is_in_flight(2));
        f.check_sendable(&[1]).unwrap();
        assert!(f.check_sendable(&[0]).is_err());
        let got = f.receive(Want::First(3), None, fails_on(1)).unwrap();
        assert_eq!(ids(&got), [0, 2, 3]);
        assert!(got
            .iter()
            .all(|(i, r)| r.truncated && r.reward == *i as f64));
        assert_eq!(ids(&f.receive(Want::All, None, ok).unwrap()), [4, 5]);
        assert_eq!(f.in_flight(), 0);
    }

    #[test]
    fn a_failed_job_in_a_wait_for_all_hands_everything_back() {
        let f = Flight::new(4);
        f.queue((0..4).map(|i| (i, step())));
        let err = f.receive(Want::All, None, fails_on(2)).unwrap_err();
        assert!(matches!(&err, Error::Internal(m) if m.contains("sub-env 2")));
        assert_eq!(f.in_flight(), 0);
        f.check_sendable(&[0, 1, 2, 3]).unwrap();
    }

    #[test]
    fn a_timeout_leaves_running_work_in_flight() {
        let f = Flight::new(1);
        f.queue([(0, step())]);
        let (i, _) = f.take().unwrap(); // "running" on a helper that never finishes
        let deadline = Instant::now() + Duration::from_millis(20);
        let err = f.receive(Want::First(1), Some(deadline), ok).unwrap_err();
        assert!(matches!(err, Error::Timeout(_)), "{err:?}");
        f.finish(i, Ok(SlotResult::default()));
        assert_eq!(f.receive(Want::First(1), None, ok).unwrap().len(), 1);
    }

    #[test]
    fn the_caller_starts_no_job_after_the_deadline() {
        let f = Flight::new(8);
        f.queue((0..8).map(|i| (i, step())));
        let ran = std::sync::atomic::AtomicUsize::new(0);
        let slow = |_: usize, _: Job| {
            ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            std::thread::sleep(Duration::from_millis(30));
            Ok(SlotResult::default())
        };
        let start = Instant::now();
        let err = f
            .receive(Want::All, Some(start + Duration::from_millis(40)), slow)
            .unwrap_err();
        assert!(matches!(err, Error::Timeout(_)), "{err:?}");
        // Jobs of 30 ms: it started two (at 0 and 30 ms), not all eight (240 ms).
        let ran = ran.load(std::sync::atomic::Ordering::Relaxed);
        assert!((1..=2).contains(&ran), "{ran}");
        assert!(start.elapsed() < Duration::from_millis(200));
        assert_eq!(f.in_flight(), 8, "the timeout left everything in flight");
    }

    #[test]
    fn close_drops_queued_jobs_and_waits_for_running_ones() {
        let f = std::sync::Arc::new(Flight::new(3));
        f.queue([(0, step()), (1, step()), (2, step())]);
        let (i, _) = f.take().unwrap();
        let finished = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let worker = {
            let (f, finished) = (std::sync::Arc::clone(&f), std::sync::Arc::clone(&finished));
            std::thread::spawn(move || {
                // Long enough that a close() that does not wait returns first.
                std::thread::sleep(Duration::from_millis(30));
                finished.store(true, std::sync::atomic::Ordering::SeqCst);
                f.finish(i, Ok(SlotResult::default()));
            })
        };
        f.close();
        assert!(finished.load(std::sync::atomic::Ordering::SeqCst));
        assert_eq!(f.in_flight(), 1, "only the finished job is left, done");
        assert!(f.take().is_none());
        worker.join().unwrap();
    }
}
