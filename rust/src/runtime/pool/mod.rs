//! Many environments stepped in parallel by an [`Executor`] of threads, writing one batch.
//!
//! Each slot is independent (its own generator, track and car), so results do not depend on
//! the number of threads or on which thread steps which slot. Observations are written
//! straight into the caller's preallocated `(num_envs, ...)` buffer.
//!
//! The pool's synchronous side (construction, `reset`, `step`, accessors) is here; the folder
//! holds one concern per file:
//! - `spec`: the [`PoolSpec`], the autoreset mode and the limits.
//! - `slot`: one sub-env's state machine; `pixels`: the kernels that convert its frames.
//! - `send_recv`: the asynchronous side, on the board of work in flight (`flight`).

use std::sync::{Arc, Mutex, MutexGuard};

use crate::runtime::append::append_chunks;
use crate::runtime::executor::{effective_threads, Executor};
use crate::runtime::flight::Flight;
use crate::runtime::job::SlotResult;
use crate::sim::env::{validate, Action, CarRacing};
use crate::support::error::{Error, Result};

mod pixels;
mod send_recv;
mod slot;
mod spec;

pub use slot::Fault;
use slot::{lock, step_into, Slot};
pub use spec::{
    AutoresetMode, PoolSpec, MAX_BATCH_BYTES, MAX_ENVS, MAX_FRAME_SIDE, MAX_FRAME_SKIP,
    MAX_OBS_BYTES, MAX_STACK_NUM,
};

/// What the pool's threads share with the background jobs of `send`.
struct Shared {
    spec: PoolSpec,
    /// One lock per sub-env: uncontended in synchronous steps (nanoseconds against a step of
    /// tens of microseconds); asynchronous jobs and accessors take it in turn.
    slots: Vec<Mutex<Slot>>,
    flight: Flight,
}

impl Shared {
    fn slot(&self, i: usize) -> MutexGuard<'_, Slot> {
        lock(&self.slots[i])
    }

    /// Each sub-env's slot beside its row of the observation batch `obs`.
    fn slots_and_rows<'a>(
        &'a self,
        obs: &'a mut [u8],
    ) -> impl Iterator<Item = (&'a Mutex<Slot>, &'a mut [u8])> {
        self.slots.iter().zip(obs.chunks_mut(self.spec.obs_bytes()))
    }
}

/// The pool: slots plus the threads that step them.
pub struct Pool {
    spec: PoolSpec,
    shared: Arc<Shared>,
    /// The calling thread and its helpers.
    executor: Executor,
    /// The last `send` left its jobs queued instead of handing them to the helpers.
    deferred: bool,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("spec", &self.spec)
            .field("threads", &self.executor.threads())
            .finish()
    }
}

impl Pool {
    /// `entropy[i]` seeds sub-env `i`'s generator until its first seeded reset (Gymnasium's
    /// unseeded `np_random` comes from OS entropy; the caller supplies it). `num_threads` is an
    /// upper bound: the pool uses at most one thread per sub-env and per available core.
    pub fn new(spec: PoolSpec, num_threads: usize, entropy: &[Vec<u32>]) -> Result<Self> {
        spec.check()?;
        if entropy.len() != spec.num_envs {
            return Err(Error::InvalidArgument(format!(
                "need one entropy seed per sub-env ({}), got {}",
                spec.num_envs,
                entropy.len()
            )));
        }
        if num_threads == 0 {
            return Err(Error::InvalidArgument(
                "num_threads must be at least 1".into(),
            ));
        }
        let slots = entropy
            .iter()
            .map(|words| Slot::new(&spec, words).map(Mutex::new))
            .collect::<Result<Vec<_>>>()?;
        let executor = Executor::new(effective_threads(num_threads, spec.num_envs))?;
        let shared = Arc::new(Shared {
            spec,
            slots,
            flight: Flight::new(spec.num_envs),
        });
        Ok(Pool {
            spec,
            shared,
            executor,
            deferred: false,
        })
    }

    pub fn spec(&self) -> &PoolSpec {
        &self.spec
    }

    /// Threads that step the sub-envs, the caller included.
    pub fn num_threads(&self) -> usize {
        self.executor.threads()
    }

    /// See [`Executor::abandon_helpers`]: for a forked child about to drop this pool. Work
    /// in flight is forgotten too: the threads that ran it exist only in the parent.
    pub fn abandon_threads(&mut self) {
        self.executor.abandon_helpers();
        self.shared.flight.abandon();
    }

    /// Runs `f` on sub-env `i`, for accessors and drawing. Refused while it is in flight: a
    /// job queued or running would race the access, and one done holds results not yet
    /// received.
    pub fn with_env<T>(&self, i: usize, f: impl FnOnce(&mut CarRacing) -> T) -> Result<T> {
        if i >= self.spec.num_envs {
            return Err(Error::InvalidArgument(format!("no sub-env {i}")));
        }
        if self.shared.flight.is_in_flight(i) {
            return Err(Error::AsyncOrder(format!(
                "sub-env {i} is in flight (sent with send(), step_async() or async_reset()); \
                 recv() it before reading or changing it"
            )));
        }
        Ok(f(&mut self.shared.slot(i).env))
    }

    /// For tests of the asynchronous machinery only: every later step of sub-env `i` first
    /// sleeps `fault.delay`, then panics if `fault.panic` (see [`Fault`]).
    pub fn inject_fault(&self, i: usize, fault: Fault) -> Result<()> {
        self.with_env(i, |_| ())?;
        self.shared.slot(i).fault = fault;
        Ok(())
    }

    fn check_obs(&self, obs: &[u8], envs: usize) -> Result<()> {
        let want = envs * self.spec.obs_bytes();
        if obs.len() != want {
            return Err(Error::InvalidArgument(format!(
                "observation buffer holds {} bytes, expected {want}",
                obs.len()
            )));
        }
        Ok(())
    }

    /// Synchronous calls and accessors need every sub-env at rest.
    pub fn check_nothing_in_flight(&self, call: &str) -> Result<()> {
        self.shared.flight.check_at_rest(call)
    }

    /// Resets the sub-envs selected by `mask` (all when `None`). `seeds[i]` (entropy words)
    /// reseeds sub-env `i`; `None` continues its stream. Writes every sub-env's observation:
    /// the first of its new episode where selected, else its latest.
    pub fn reset(
        &mut self,
        seeds: &[Option<Vec<u32>>],
        mask: Option<&[bool]>,
        randomize: Option<bool>,
        obs: &mut [u8],
    ) -> Result<()> {
        let n = self.spec.num_envs;
        self.check_obs(obs, n)?;
        self.check_nothing_in_flight("reset")?;
        if seeds.len() != n || mask.is_some_and(|m| m.len() != n) {
            return Err(Error::InvalidArgument(format!(
                "seeds and reset_mask must have one entry per sub-env ({n})"
            )));
        }
        let spec = self.spec;
        let jobs: Vec<_> = self.shared.slots_and_rows(obs).enumerate().collect();
        self.executor.run_together(jobs, |(i, (slot, out))| {
            let mut slot = lock(slot);
            if mask.is_none_or(|m| m[i]) {
                slot.reset(&spec, seeds[i].as_deref(), randomize)?;
            }
            out.copy_from_slice(&slot.stack);
            Ok(())
        })
    }

    /// Writes every sub-env's latest observation into `obs` (none may be in flight).
    pub fn observe(&self, obs: &mut [u8]) -> Result<()> {
        self.check_obs(obs, self.spec.num_envs)?;
        self.check_nothing_in_flight("observe")?;
        for (slot, out) in self.shared.slots_and_rows(obs) {
            out.copy_from_slice(&lock(slot).stack);
        }
        Ok(())
    }

    /// Steps every sub-env with its action. `final_obs` (same size as `obs`) receives the
    /// last observation of episodes that `SameStep` reset during this call.
    pub fn step(
        &mut self,
        actions: &[Action],
        obs: &mut [u8],
        final_obs: &mut [u8],
        results: &mut [SlotResult],
    ) -> Result<()> {
        self.step_inner(actions, obs, final_obs, results, None)
    }

    /// [`Pool::step`] that first appends each sub-env's current observation (what `obs`
    /// holds on entry) to `record`: the collector's rollout. Each worker copies its own
    /// sub-envs' frames straight into the spare capacity, so recording runs in parallel and
    /// nothing is written twice. On error `record` is left as it was.
    pub fn step_recording(
        &mut self,
        actions: &[Action],
        obs: &mut [u8],
        final_obs: &mut [u8],
        results: &mut [SlotResult],
        record: &mut Vec<u8>,
    ) -> Result<()> {
        self.step_inner(actions, obs, final_obs, results, Some(record))
    }

    /// Checks actions for sub-envs `ids` (the mode's rules included) before any of them moves.
    fn check_actions<'a>(
        &self,
        ids: impl Iterator<Item = usize>,
        actions: impl Iterator<Item = &'a Action>,
    ) -> Result<()> {
        for (i, a) in ids.zip(actions) {
            validate(&self.spec.config, a)
                .map_err(|e| Error::InvalidAction(format!("sub-env {i}: {e}")))?;
            self.shared.slot(i).check_steppable(&self.spec, i)?;
        }
        Ok(())
    }

    fn step_inner(
        &mut self,
        actions: &[Action],
        obs: &mut [u8],
        final_obs: &mut [u8],
        results: &mut [SlotResult],
        record: Option<&mut Vec<u8>>,
    ) -> Result<()> {
        let n = self.spec.num_envs;
        self.check_obs(obs, n)?;
        if actions.len() != n || results.len() != n || final_obs.len() != obs.len() {
            return Err(Error::InvalidArgument(format!(
                "actions, results and final_obs must cover all {n} sub-envs"
            )));
        }
        self.check_nothing_in_flight("step")?;
        // Everything is checked first, so a refused step leaves every sub-env untouched.
        self.check_actions(0..n, actions.iter())?;
        let spec = self.spec;
        let ob = spec.obs_bytes();
        let jobs: Vec<_> = self
            .shared
            .slots_and_rows(obs)
            .zip(final_obs.chunks_mut(ob))
            .zip(results.iter_mut())
            .zip(actions.iter())
            .collect();
        match record {
            None => self
                .executor
                .run_batch(jobs, |((((slot, out), fin), res), action)| {
                    *res = step_into(slot, &spec, *action, fin, out)?;
                    Ok(())
                }),
            Some(record) => append_chunks(
                &mut self.executor,
                record,
                ob,
                jobs,
                |((((slot, out), fin), res), action), spare| {
                    let filled = spare.fill_from(out);
                    *res = step_into(slot, &spec, *action, fin, out)?;
                    Ok(filled)
                },
            ),
        }
    }
}

impl Drop for Pool {
    /// Queued jobs are dropped and running ones finish before the slots and threads go.
    fn drop(&mut self) {
        self.shared.flight.close();
    }
}

#[cfg(test)]
mod tests;
