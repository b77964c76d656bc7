//! The board of asynchronous work: which sub-envs are queued, running or done, for
//! EnvPool-style `send`/`recv` on a pool of sub-envs. It is the one record of what is in
//! flight: the Python layer asks it, and keeps no copy.
//!
//! Jobs are taken in the order they were sent, by whichever thread is free (the pool's
//! helpers in the background, the caller while it waits in `recv`); a finished sub-env joins
//! the done list in the order it finished. What each job does depends only on its own
//! sub-env, so the order changes which sub-envs a `recv` returns, never their results.
//!
//! Whoever finishes the last sub-env of a batch (`batch` done, in the order they finished)
//! packs it right away: the batch's observations copied into one block, ascending, which
//! `recv` hands over as it is. A helper that steps in the background thus also does the copy,
//! off the caller's path.
//!
//! Every refusal happens before anything changes: a refused call leaves the board as it was.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::runtime::job::{Job, SlotResult};
use crate::support::error::{Error, Result};

/// What the board needs of the pool: running a job, and copying the observations of done
/// sub-envs out.
pub trait Worker: Sync {
    /// Runs sub-env `i`'s job on this thread (its panic caught and turned into an error).
    fn run_job(&self, i: usize, job: Job) -> Result<SlotResult>;
    /// The observations of done sub-envs `ids` (ascending), one row each, and the `SameStep`
    /// final observations of those their `outcomes` say were reset. `(obs, final_obs)`.
    fn pack(&self, ids: &[usize], outcomes: &[Result<SlotResult>]) -> (Vec<u8>, Vec<u8>);
}

/// Done sub-envs handed over together, their observations copied out.
#[derive(Debug)]
pub struct Batch {
    /// Ascending.
    pub ids: Vec<usize>,
    pub results: Vec<SlotResult>,
    /// One row per sub-env, in `ids` order.
    pub obs: Vec<u8>,
    /// `SameStep`: one row per result with `reset` set, in `ids` order.
    pub final_obs: Vec<u8>,
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

/// A batch taken off the done list: being packed, or packed.
struct Taken {
    ids: Vec<usize>,
    outcomes: Vec<Result<SlotResult>>,
    /// `(obs, final_obs)` once packed.
    packed: Option<(Vec<u8>, Vec<u8>)>,
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
    /// Sub-envs per batch packed as soon as they are done (0: none).
    batch: usize,
    /// Batches taken off `done`, oldest first; `first` numbers the front one.
    taken: VecDeque<Taken>,
    first: u64,
    /// Sub-envs in `taken`.
    held: usize,
    /// Batches being packed outside the lock.
    packing: usize,
    /// No job starts any more: the pool is being dropped.
    closing: bool,
    /// Threads waiting on `finished` (a receive, a close): a finished job wakes them only if
    /// any, since a wake-up is a system call even with nobody to wake.
    waiters: usize,
}

impl Board {
    fn in_flight(&self) -> usize {
        self.queue.len() + self.running + self.done.len() + self.held
    }

    /// Takes the oldest `batch` done sub-envs off the done list to be packed, if there are
    /// that many; returns the batch's number and its ids (ascending).
    fn take_batch(&mut self, batch: usize) -> Option<(u64, Vec<usize>)> {
        if batch == 0 || self.done.len() < batch || self.closing {
            return None;
        }
        let mut ids: Vec<usize> = self.done.drain(..batch).collect();
        ids.sort_unstable();
        let outcomes = ids
            .iter()
            .map(|&i| {
                self.outcomes[i]
                    .take()
                    .expect("a done sub-env has an outcome")
            })
            .collect();
        self.held += batch;
        self.packing += 1;
        self.taken.push_back(Taken {
            ids: ids.clone(),
            outcomes,
            packed: None,
        });
        Some((self.first + self.taken.len() as u64 - 1, ids))
    }

    fn taken_mut(&mut self, number: u64) -> Option<&mut Taken> {
        let k = number.checked_sub(self.first)?;
        self.taken.get_mut(usize::try_from(k).ok()?)
    }

    /// Puts a taken batch's sub-envs back at the front of the done list, in its order.
    fn untake_front(&mut self) {
        let t = self.taken.pop_front().expect("a batch to put back");
        self.first += 1;
        self.held -= t.ids.len();
        for (i, outcome) in t.ids.into_iter().zip(t.outcomes).rev() {
            self.outcomes[i] = Some(outcome);
            self.done.push_front(i);
        }
    }
}

/// The board behind one lock, with a condition for "a job finished or a batch was packed".
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
                batch: 0,
                taken: VecDeque::new(),
                first: 0,
                held: 0,
                packing: 0,
                closing: false,
                waiters: 0,
            }),
            finished: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Board> {
        // Jobs and packing run outside the lock and catch their panics, so a poisoned lock
        // still holds a consistent board.
        self.board.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn wait<'a>(
        &self,
        mut b: MutexGuard<'a, Board>,
        deadline: Option<Instant>,
    ) -> MutexGuard<'a, Board> {
        b.waiters += 1;
        let mut b = match deadline {
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
        b.waiters -= 1;
        b
    }

    /// Packs batches of `batch` done sub-envs as soon as they are done (0: never), for
    /// receives of that many.
    pub fn pack_batches_of(&self, batch: usize) {
        self.lock().batch = batch;
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

    /// Takes queued jobs (now running) for the caller to run as one batch, as many as `want`
    /// still lacks: those a `send` left queued because helpers stepping beside the caller's
    /// work would have slowed it. Run each, then [`Flight::finish`] it.
    pub fn take_due(&self, want: Want) -> Vec<(usize, Job)> {
        let mut b = self.lock();
        let ready = b.running + b.done.len() + b.held;
        let due = match want {
            Want::First(k) => k.saturating_sub(ready),
            Want::All => b.queue.len(),
        };
        (0..due).map_while(|_| take_next(&mut b)).collect()
    }

    /// Records the outcome of a job from [`Flight::take_due`] (packing the batch it completes).
    pub fn finish(&self, i: usize, outcome: Result<SlotResult>, w: &impl Worker) {
        let b = self.lock();
        drop(self.finish_in(b, i, outcome, w));
    }

    /// A helper's share of the queued jobs: runs them until none is left, packing each batch
    /// that its jobs complete.
    pub fn work_off(&self, w: &impl Worker) {
        let mut b = self.lock();
        while let Some((i, job)) = take_next(&mut b) {
            drop(b);
            let outcome = w.run_job(i, job);
            b = self.lock();
            b = self.finish_in(b, i, outcome, w);
        }
    }

    /// Records sub-env `i`'s outcome and packs the batch it completes, if it does (the lock
    /// is let go meanwhile); wakes whoever waits.
    fn finish_in<'a>(
        &'a self,
        mut b: MutexGuard<'a, Board>,
        i: usize,
        outcome: Result<SlotResult>,
        w: &impl Worker,
    ) -> MutexGuard<'a, Board> {
        debug_assert_eq!(b.stage[i], Stage::Running);
        b.running -= 1;
        b.stage[i] = Stage::Done;
        b.outcomes[i] = Some(outcome);
        b.done.push_back(i);
        let batch = b.batch;
        if let Some((number, ids)) = b.take_batch(batch) {
            let outcomes: Vec<Result<SlotResult>> = {
                let t = b.taken_mut(number).expect("just taken");
                t.outcomes.clone()
            };
            drop(b);
            let packed = w.pack(&ids, &outcomes);
            b = self.lock();
            b.packing -= 1;
            if let Some(t) = b.taken_mut(number) {
                t.packed = Some(packed);
            }
        }
        if b.waiters > 0 {
            self.finished.notify_all();
        }
        b
    }

    /// Waits until the sub-envs `want` names are done and hands them over (now idle) with
    /// their results and observations, ascending. While it waits, the calling thread runs
    /// queued jobs itself, one at a time, and starts none once `deadline` has passed. Refuses
    /// at once, changing nothing, when fewer than wanted are in flight (it would wait
    /// forever); at the deadline it gives up and leaves everything in flight. Sub-envs are
    /// handed over in the order they finished: a batch packed earlier goes first.
    ///
    /// A failed job is reported as the error, naming its sub-env, which is handed back idle;
    /// what happens to the others received with it depends on `want` (see [`Want`]).
    pub fn receive(&self, want: Want, deadline: Option<Instant>, w: &impl Worker) -> Result<Batch> {
        let mut b = self.lock();
        let count = match want {
            Want::First(k) => k,
            Want::All => b.in_flight(),
        };
        receivable(&b, count, 0)?;
        loop {
            match b.taken.front() {
                Some(t) if t.packed.is_some() && t.ids.len() == count => {
                    let t = b.taken.pop_front().expect("just seen");
                    b.first += 1;
                    b.held -= count;
                    let (obs, final_obs) = t.packed.expect("just seen");
                    return hand_over(&mut b, want, t.ids, t.outcomes, obs, final_obs);
                }
                // Another size (a wait for everything): its sub-envs go back to the done
                // list once packed, in the order they finished before this one's.
                Some(t) if t.packed.is_some() => {
                    b.untake_front();
                    continue;
                }
                Some(_) => {
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        return Err(timeout(&b, count));
                    }
                    b = self.wait(b, deadline); // a helper is packing the oldest batch
                    continue;
                }
                None => {}
            }
            if b.done.len() >= count {
                let mut ids: Vec<usize> = b.done.drain(..count).collect();
                ids.sort_unstable();
                let outcomes: Vec<Result<SlotResult>> = ids
                    .iter()
                    .map(|&i| b.outcomes[i].take().expect("a done sub-env has an outcome"))
                    .collect();
                // Nobody else touches done sub-envs: pack them without the lock.
                drop(b);
                let (obs, final_obs) = w.pack(&ids, &outcomes);
                b = self.lock();
                return hand_over(&mut b, want, ids, outcomes, obs, final_obs);
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(timeout(&b, count));
            }
            if let Some((i, job)) = take_next(&mut b) {
                drop(b);
                let outcome = w.run_job(i, job);
                b = self.lock();
                b = self.finish_in(b, i, outcome, w);
                continue;
            }
            b = self.wait(b, deadline);
        }
    }

    /// Stops every queued job (those sub-envs become idle, their results never come) and
    /// waits until the running ones, and any packing, have finished. Afterwards nothing runs,
    /// and no job is handed out.
    pub fn close(&self) {
        let mut b = self.lock();
        b.closing = true;
        while let Some(i) = b.queue.pop_front() {
            b.stage[i] = Stage::Idle;
            b.jobs[i] = None;
        }
        while b.running > 0 || b.packing > 0 {
            b = self.wait(b, None);
        }
    }

    /// For a forked child: the jobs running in the parent's threads never finish here, so
    /// nothing is waited for; every sub-env becomes idle and nothing runs any more.
    pub fn abandon(&self) {
        let mut b = self.lock();
        b.closing = true;
        b.queue.clear();
        b.done.clear();
        b.taken.clear();
        b.held = 0;
        b.packing = 0;
        b.running = 0;
        b.stage.fill(Stage::Idle);
        b.jobs.fill(None);
        b.outcomes.fill(None);
    }
}

/// Hands over received sub-envs `ids` (ascending) with their outcomes and packed rows, or,
/// if a job among them failed, reports it: the failed sub-envs become idle, and the others
/// go back to the front of the done list (`Want::First`) or become idle too (`Want::All`).
fn hand_over(
    b: &mut Board,
    want: Want,
    ids: Vec<usize>,
    outcomes: Vec<Result<SlotResult>>,
    obs: Vec<u8>,
    final_obs: Vec<u8>,
) -> Result<Batch> {
    let Some(k) = outcomes.iter().position(|o| o.is_err()) else {
        for &i in &ids {
            b.stage[i] = Stage::Idle;
        }
        let results = outcomes.into_iter().map(|o| o.expect("no error")).collect();
        return Ok(Batch {
            ids,
            results,
            obs,
            final_obs,
        });
    };
    let (first_failed, e) = (ids[k], outcomes[k].clone().expect_err("failed"));
    let mut kept = 0;
    for (&i, outcome) in ids.iter().zip(outcomes).rev() {
        match (want, outcome) {
            (Want::First(_), Ok(r)) => {
                b.outcomes[i] = Some(Ok(r));
                b.done.push_front(i);
                kept += 1;
            }
            _ => b.stage[i] = Stage::Idle,
        }
    }
    Err(failure(
        first_failed,
        e,
        matches!(want, Want::First(_)).then_some(kept),
    ))
}

fn timeout(b: &Board, count: usize) -> Error {
    Error::Timeout(format!(
        "recv() timed out with {} of {count} sub-envs done; they stay in flight",
        b.done.len() + b.held
    ))
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

#[cfg(test)]
mod tests;
