//! The pool's asynchronous side: EnvPool's `send`/`recv` and Gymnasium's
//! `step_async`/`step_wait`, on the board of work in flight (`flight`). Jobs run in the
//! background on the helper threads, or on the caller while it waits.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{AutoresetMode, Pool, Shared};
use crate::runtime::flight::{Batch, Want, Worker};
use crate::runtime::job::{Job, SlotResult};
use crate::sim::env::Action;
use crate::support::error::{Error, Result};

impl Worker for Shared {
    /// Runs sub-env `i`'s job on this thread, its panic turned into an error (and the
    /// sub-env marked broken).
    fn run_job(&self, i: usize, job: Job) -> Result<SlotResult> {
        self.slot(i)
            .guarded(|slot| slot.run_async_job(&self.spec, job))
    }

    fn pack(&self, ids: &[usize], outcomes: &[Result<SlotResult>]) -> (Vec<u8>, Vec<u8>) {
        let mut obs = Vec::with_capacity(ids.len() * self.spec.obs_bytes());
        let mut final_obs = Vec::new();
        let same_step = self.spec.autoreset == AutoresetMode::SameStep;
        for (&i, outcome) in ids.iter().zip(outcomes) {
            let slot = self.slot(i);
            obs.extend_from_slice(&slot.stack);
            if same_step && outcome.as_ref().is_ok_and(|r| r.reset) {
                final_obs.extend_from_slice(&slot.final_stack);
            }
        }
        (obs, final_obs)
    }
}

impl Pool {
    /// Sub-envs sent and not yet received.
    pub fn in_flight(&self) -> usize {
        self.shared.flight.in_flight()
    }

    /// EnvPool's `send`: sub-env `ids[k]` steps with `actions[k]` in the background, on the
    /// pool's helper threads (and on the caller's, while it waits in [`Pool::recv`]). The
    /// actions are copied. Everything is checked before any job is queued: ids in range, each
    /// once and not in flight, the actions, the autoreset mode's rules.
    pub fn send(&mut self, ids: &[usize], actions: &[Action]) -> Result<()> {
        self.check_sendable(ids, actions.len(), "actions")?;
        self.check_actions(ids.iter().copied(), actions.iter())?;
        self.dispatch(ids.iter().zip(actions).map(|(&i, &a)| (i, Job::Step(a))));
        Ok(())
    }

    /// Resets sub-envs `ids` in the background (EnvPool's `async_reset`); `seeds[k]` reseeds
    /// sub-env `ids[k]`. Their first observations arrive through [`Pool::recv`].
    pub fn send_reset(
        &mut self,
        ids: &[usize],
        seeds: &[Option<Vec<u32>>],
        randomize: Option<bool>,
    ) -> Result<()> {
        self.check_sendable(ids, seeds.len(), "seeds")?;
        self.dispatch(ids.iter().zip(seeds).map(|(&i, seed)| {
            (
                i,
                Job::Reset {
                    seed: seed.clone(),
                    randomize,
                },
            )
        }));
        Ok(())
    }

    /// Refuses, changing nothing, a send of `ids` with `given` entries of `what` (one per id
    /// is needed), or of ids that are not idle sub-envs, each named once.
    fn check_sendable(&self, ids: &[usize], given: usize, what: &str) -> Result<()> {
        if ids.len() != given {
            return Err(Error::InvalidArgument(format!(
                "{given} {what} for {} env ids",
                ids.len()
            )));
        }
        self.shared.flight.check_sendable(ids)
    }

    fn dispatch(&mut self, jobs: impl Iterator<Item = (usize, Job)>) {
        self.shared.flight.queue(jobs);
        let shared = Arc::clone(&self.shared);
        // Each helper (when they pay, see `spawn_paced`) takes jobs until none is left; the
        // caller takes the rest in `recv`. When helpers stepping beside the caller's own work
        // do not pay, the jobs wait for `recv`, which steps them as a synchronous step would.
        let handed = self
            .executor
            .spawn_paced(move || shared.flight.work_off(&*shared));
        self.deferred = !handed;
    }

    /// Packs the observations of every `batch` sub-envs done into one block as soon as they
    /// are done, on the thread that finishes the last of them, for `recv(batch)` to hand over
    /// as it is (0: never). The vector env's `batch_size`.
    pub fn pack_batches_of(&mut self, batch: usize) {
        self.shared.flight.pack_batches_of(batch);
    }

    /// EnvPool's `recv`: waits until `count` sub-envs sent earlier are done and hands them
    /// over, ascending: their ids, results and observations (`count` rows), and the last
    /// observations of the episodes `SameStep` reset (a row for each result with `reset`
    /// set). The calling thread steps queued sub-envs itself while it waits.
    ///
    /// Refused at once, nothing moving, when fewer than `count` are in flight. A timeout
    /// leaves everything in flight. A failed job is the error, naming its sub-env (now idle,
    /// and refused until reset); the others it finished with stay done for the next `recv`.
    pub fn recv(&mut self, count: usize, timeout: Option<Duration>) -> Result<Batch> {
        self.shared.flight.check_receivable(count, 0)?;
        self.receive(Want::First(count), timeout)
    }

    /// Gymnasium's `step_wait`/`reset_wait`: waits for every sub-env in flight, then writes
    /// every sub-env's latest observation into `obs` (all `num_envs` rows) and hands over
    /// those received, as [`Pool::recv`] does (its `obs` then empty). All or nothing: after a
    /// failed job every sub-env is idle and the caller must reset.
    pub fn wait_all(&mut self, timeout: Option<Duration>, obs: &mut [u8]) -> Result<Batch> {
        self.check_obs(obs, self.spec.num_envs)?;
        let mut got = self.receive(Want::All, timeout)?;
        if got.ids.len() == self.spec.num_envs {
            obs.copy_from_slice(&got.obs); // every sub-env, ascending: the whole batch
        } else {
            self.observe(obs)?;
        }
        got.obs = Vec::new();
        Ok(got)
    }

    fn receive(&mut self, want: Want, timeout: Option<Duration>) -> Result<Batch> {
        if self.deferred && timeout.is_none() {
            self.step_due(want);
        }
        let deadline = timeout.map(|t| Instant::now() + t);
        self.shared.flight.receive(want, deadline, &*self.shared)
    }

    /// Steps the jobs `send` left queued that `want` still needs, as one batch on the
    /// executor's paced path: helpers join when that pays, as in a synchronous step (with the
    /// caller's policy between batches, stepping on one thread can be faster). A job's failure
    /// is recorded on the board, which `recv` then reports.
    fn step_due(&mut self, want: Want) {
        let jobs = self.shared.flight.take_due(want);
        if jobs.is_empty() {
            return;
        }
        let shared = &*self.shared;
        // Each job catches its own panic (`Shared::run_job`), so the batch itself cannot fail.
        let _ = self.executor.run_batch(jobs, |(i, job)| {
            shared.flight.finish(i, shared.run_job(i, job), shared);
            Ok(())
        });
    }

    /// Refuses, changing nothing, a `recv` of `count` that could never complete once `extra`
    /// more sub-envs are sent: EnvPool's `step(actions, env_id)` checks this before it sends.
    pub fn check_receivable(&self, count: usize, extra: usize) -> Result<()> {
        self.shared.flight.check_receivable(count, extra)
    }
}
