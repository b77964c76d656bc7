//! The board of asynchronous work: which sub-envs are queued, running or done, for
//! EnvPool-style `send`/`recv` on a [`crate::pool::Pool`].
//!
//! Jobs are taken in the order they were sent, by whichever thread is free (the pool's
//! helpers in the background, the caller while it waits in `recv`); a finished sub-env joins
//! the done list in the order it finished. What each job does depends only on its own
//! sub-env, so the order changes which sub-envs a `recv` returns, never their results.

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
        let b = self.lock();
        b.queue.len() + b.running + b.done.len()
    }

    /// Checks that every `id` is a sub-env, appears once and is idle. Nothing changes.
    pub fn check_sendable(&self, ids: &[usize]) -> Result<()> {
        let b = self.lock();
        let n = b.stage.len();
        let mut seen = vec![false; n];
        for &i in ids {
            if i >= n {
                return Err(Error::InvalidArgument(format!(
                    "env_id {i} is out of range: the pool has sub-envs 0 to {}",
                    n - 1
                )));
            }
            if std::mem::replace(&mut seen[i], true) {
                return Err(Error::InvalidArgument(format!(
                    "env_id {i} appears more than once"
                )));
            }
            if b.stage[i] != Stage::Idle {
                return Err(Error::InvalidState(format!(
                    "sub-env {i} is already in flight; recv() its result before sending it again"
                )));
            }
        }
        Ok(())
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

    /// Waits until `count` sub-envs are done and hands them over (now idle) with their
    /// outcomes, in the order they finished. While it waits, the calling thread runs queued
    /// jobs itself with `run`. Refuses at once, changing nothing, when fewer than `count` are
    /// in flight (it would wait forever); after `timeout`, it gives up and leaves them in
    /// flight.
    pub fn receive(
        &self,
        count: usize,
        timeout: Option<Duration>,
        run: impl Fn(usize, Job) -> Result<SlotResult>,
    ) -> Result<Vec<(usize, Result<SlotResult>)>> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut b = self.lock();
        let in_flight = b.queue.len() + b.running + b.done.len();
        if count == 0 || in_flight < count {
            return Err(Error::InvalidState(if in_flight == 0 {
                "recv() with nothing in flight: send() actions (or async_reset()) first".into()
            } else {
                format!(
                    "recv() needs {count} sub-envs in flight, but only {in_flight} are; send() more first"
                )
            }));
        }
        while b.done.len() < count {
            if let Some((i, job)) = take_next(&mut b) {
                drop(b);
                let outcome = run(i, job);
                b = self.lock();
                finish_in(&mut b, i, outcome);
                continue;
            }
            b = match deadline {
                None => self.finished.wait(b).unwrap_or_else(|p| p.into_inner()),
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(Error::Timeout(format!(
                            "recv() timed out after {:?} with {} of {count} sub-envs done; \
                             they stay in flight",
                            timeout.unwrap_or_default(),
                            b.done.len()
                        )));
                    }
                    self.finished
                        .wait_timeout(b, left)
                        .unwrap_or_else(|p| p.into_inner())
                        .0
                }
            };
        }
        let mut out = Vec::with_capacity(count);
        for _ in 0..count {
            let i = b.done.pop_front().expect("counted above");
            b.stage[i] = Stage::Idle;
            let outcome = b.outcomes[i].take().expect("a done sub-env has an outcome");
            out.push((i, outcome));
        }
        Ok(out)
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
}

impl Flight {
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

    #[test]
    fn send_checks_ids_before_anything_changes() {
        let f = Flight::new(4);
        assert!(f.check_sendable(&[0, 4]).is_err());
        assert!(f.check_sendable(&[1, 1]).is_err());
        assert_eq!(f.in_flight(), 0);
        f.queue([(2, step())]);
        let err = f.check_sendable(&[0, 2]).unwrap_err();
        assert!(matches!(err, Error::InvalidState(_)), "{err:?}");
        assert_eq!(f.in_flight(), 1);
    }

    #[test]
    fn recv_refuses_what_could_never_arrive() {
        let f = Flight::new(4);
        assert!(matches!(
            f.receive(1, None, ok),
            Err(Error::InvalidState(_))
        ));
        f.queue([(0, step()), (1, step())]);
        assert!(f.receive(3, None, ok).is_err());
        assert_eq!(f.in_flight(), 2, "a refused recv leaves the work in flight");
        let got = f.receive(2, None, ok).unwrap();
        assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(f.in_flight(), 0);
        f.check_sendable(&[0, 1]).unwrap();
    }

    #[test]
    fn the_caller_runs_queued_jobs_while_it_waits() {
        let f = Flight::new(3);
        f.queue([(2, step()), (0, step()), (1, step())]);
        let got = f.receive(2, None, ok).unwrap();
        assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), [2, 0]);
        assert_eq!(f.in_flight(), 1);
        assert_eq!(f.take().map(|t| t.0), Some(1));
    }

    #[test]
    fn a_timeout_leaves_running_work_in_flight() {
        let f = Flight::new(1);
        f.queue([(0, step())]);
        let (i, _) = f.take().unwrap(); // "running" on a helper that never finishes
        let err = f
            .receive(1, Some(Duration::from_millis(20)), ok)
            .unwrap_err();
        assert!(matches!(err, Error::Timeout(_)), "{err:?}");
        f.finish(i, Ok(SlotResult::default()));
        assert_eq!(f.receive(1, None, ok).unwrap().len(), 1);
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
