//! One sub-environment's state machine: its env, the frames it stacks, its time limit, and
//! what the autoreset mode does when its episode ends; a job of it (step or reset) runs
//! under its lock, a panic turned into its own error.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use super::pixels::{grayscale_into, hwc_to_chw};
use super::{AutoresetMode, PoolSpec};
use crate::runtime::executor::panic_message;
use crate::runtime::job::{Job, SlotResult};
use crate::sim::env::{Action, CarRacing, StepOutcome};
use crate::sim::rng::NumpyGenerator;
use crate::support::error::{Error, Result};

/// A fault injected into a sub-env's steps, for tests of the asynchronous machinery only
/// (`PoolCore._inject_fault`): long jobs that a test can see overlap (or not), and failing
/// ones. Never set outside tests.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Fault {
    /// Each step first sleeps this long (holding no core).
    pub delay: Duration,
    /// Each step then panics, as a bug in the simulation would.
    pub panic: bool,
}

/// One sub-environment and its bookkeeping.
#[derive(Debug, Clone)]
pub(super) struct Slot {
    pub(super) env: CarRacing,
    /// Simulation steps since the last reset (the time limit's counter).
    elapsed: u32,
    /// Finished at the previous step (NextStep resets it on the next call).
    needs_reset: bool,
    /// The stacked frames, oldest first (`stack_num * frame_bytes`).
    pub(super) stack: Vec<u8>,
    /// RGB scratch for grayscale conversion.
    rgb: Vec<u8>,
    /// The last observation of an episode that an asynchronous `SameStep` job reset (empty
    /// in other modes; synchronous steps write it into the caller's batch instead).
    pub(super) final_stack: Vec<u8>,
    /// A job of it failed (its state may be half-updated): it steps again only after a reset.
    broken: bool,
    pub(super) fault: Fault,
}

/// A slot's lock. Every job catches its panics inside the lock, so a poisoned slot is only
/// ever one whose job failed: the caller learns that from the job's error, and a reset mends it.
pub(super) fn lock(slot: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    slot.lock().unwrap_or_else(|p| p.into_inner())
}

/// A synchronous step of the sub-env behind `slot`: its observation is copied into `out`, its
/// row of the caller's batch (and a finished `SameStep` episode's last one into `final_obs`).
pub(super) fn step_into(
    slot: &Mutex<Slot>,
    spec: &PoolSpec,
    action: Action,
    final_obs: &mut [u8],
    out: &mut [u8],
) -> Result<SlotResult> {
    let mut slot = lock(slot);
    let result = slot.guarded(|s| s.step(spec, action, final_obs))?;
    out.copy_from_slice(&slot.stack);
    Ok(result)
}

impl Slot {
    /// A sub-env at rest (never reset), its generator seeded by entropy `words`, with the
    /// buffers `spec`'s observations need.
    pub(super) fn new(spec: &PoolSpec, words: &[u32]) -> Result<Self> {
        Ok(Slot {
            env: CarRacing::new(spec.config, NumpyGenerator::from_entropy_words(words))?,
            elapsed: 0,
            needs_reset: false,
            stack: vec![0; spec.obs_bytes()],
            rgb: if spec.grayscale || spec.channels_first {
                vec![0; spec.width * spec.height * 3]
            } else {
                Vec::new()
            },
            final_stack: if spec.autoreset == AutoresetMode::SameStep {
                vec![0; spec.obs_bytes()]
            } else {
                Vec::new()
            },
            broken: false,
            fault: Fault::default(),
        })
    }

    /// `f` on this slot, its panic caught here (inside the lock, so the lock is not
    /// poisoned) and turned into an error; any failure marks the slot broken.
    pub(super) fn guarded<T>(&mut self, f: impl FnOnce(&mut Slot) -> Result<T>) -> Result<T> {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(self)))
            .unwrap_or_else(|panic| Err(Error::Internal(panic_message(&*panic))));
        self.broken |= outcome.is_err();
        outcome
    }

    /// Draws the current frame as the newest stack entry (or fills the stack after a reset).
    fn capture(&mut self, spec: &PoolSpec, fill: bool) -> Result<()> {
        let fb = spec.frame_bytes();
        let n = self.stack.len();
        if !fill {
            self.stack.copy_within(fb.., 0);
        }
        let newest = &mut self.stack[n - fb..];
        if spec.grayscale {
            self.env
                .render(&mut self.rgb, spec.width, spec.height, false)?;
            grayscale_into(&self.rgb, newest);
        } else if spec.channels_first {
            self.env
                .render(&mut self.rgb, spec.width, spec.height, false)?;
            hwc_to_chw(&self.rgb, newest);
        } else {
            self.env.render(newest, spec.width, spec.height, false)?;
        }
        if fill {
            let (older, newest) = self.stack.split_at_mut(n - fb);
            for chunk in older.chunks_exact_mut(fb) {
                chunk.copy_from_slice(newest);
            }
        }
        Ok(())
    }

    pub(super) fn reset(
        &mut self,
        spec: &PoolSpec,
        seed: Option<&[u32]>,
        randomize: Option<bool>,
    ) -> Result<()> {
        if let Some(words) = seed {
            self.env.set_rng(NumpyGenerator::from_entropy_words(words));
        }
        self.env.reset(randomize);
        self.elapsed = 0;
        self.needs_reset = false;
        self.broken = false;
        self.capture(spec, true)
    }

    /// `frame_skip` simulation steps with one action, stopping at the episode's end.
    fn advance(&mut self, spec: &PoolSpec, action: Action) -> Result<SlotResult> {
        let mut r = SlotResult::default();
        for _ in 0..spec.frame_skip {
            let StepOutcome {
                reward,
                terminated,
                lap_finished,
                new_tiles,
                off_playfield,
                wheels_off_road,
                skipped_tiles,
            } = self.env.step(action)?;
            self.elapsed += 1;
            r.env_steps += 1;
            r.reward += reward;
            r.new_tiles += new_tiles;
            r.off_playfield |= off_playfield;
            r.wheels_off_road += wheels_off_road;
            r.skipped_tiles += skipped_tiles;
            r.terminated = terminated;
            r.lap_finished = lap_finished;
            r.truncated = spec.max_episode_steps.is_some_and(|m| self.elapsed >= m);
            if r.terminated || r.truncated {
                break;
            }
        }
        r.track_tiles = self.env.track().len() as u32;
        self.capture(spec, false)?;
        Ok(r)
    }

    /// One agent step (or, in `NextStep` mode after a finished episode, the reset instead);
    /// the observation is then `stack`. `final_obs` receives the finished episode's last
    /// observation when `SameStep` resets it.
    pub(super) fn step(
        &mut self,
        spec: &PoolSpec,
        action: Action,
        final_obs: &mut [u8],
    ) -> Result<SlotResult> {
        if self.fault != Fault::default() {
            self.inject();
        }
        let result = match spec.autoreset {
            AutoresetMode::NextStep if self.needs_reset => {
                self.reset(spec, None, None)?;
                SlotResult {
                    reset: true,
                    ..SlotResult::default()
                }
            }
            AutoresetMode::Disabled if self.needs_reset => {
                return Err(Error::InvalidState(
                    "a finished sub-environment was stepped with autoreset disabled".into(),
                ))
            }
            AutoresetMode::SameStep => {
                let mut r = self.advance(spec, action)?;
                if r.terminated || r.truncated {
                    final_obs.copy_from_slice(&self.stack);
                    self.reset(spec, None, None)?;
                    r.reset = true;
                }
                r
            }
            _ => self.advance(spec, action)?,
        };
        self.needs_reset = result.terminated || result.truncated;
        Ok(result)
    }

    /// An asynchronous job: its observation stays in `stack` (and `final_stack`) until
    /// `recv` copies it out.
    pub(super) fn run_async_job(&mut self, spec: &PoolSpec, job: Job) -> Result<SlotResult> {
        match job {
            Job::Reset { seed, randomize } => {
                self.reset(spec, seed.as_deref(), randomize)?;
                Ok(SlotResult::default())
            }
            Job::Step(action) => {
                let mut fin = std::mem::take(&mut self.final_stack);
                let result = self.step(spec, action, &mut fin);
                self.final_stack = fin;
                result
            }
        }
    }

    /// The test-only [`Fault`]: sleeps, then panics if asked to.
    #[cold]
    fn inject(&self) {
        std::thread::sleep(self.fault.delay);
        if self.fault.panic {
            panic!("a fault injected by a test");
        }
    }

    /// Whether stepping it now would break the mode's rules (checked before any sub-env moves).
    pub(super) fn check_steppable(&self, spec: &PoolSpec, i: usize) -> Result<()> {
        if !self.env.has_episode() {
            return Err(Error::ResetNeeded(format!(
                "sub-env {i} was never reset; call reset() first"
            )));
        }
        if self.broken {
            return Err(Error::ResetNeeded(format!(
                "sub-env {i} was interrupted by a failed job; reset it first (reset(), or \
                 async_reset() with a reset_mask)"
            )));
        }
        if spec.autoreset == AutoresetMode::Disabled && self.needs_reset {
            return Err(Error::ResetNeeded(format!(
                "sub-env {i} has finished its episode and autoreset is disabled; reset it \
                 first with reset(options={{'reset_mask': mask}})"
            )));
        }
        Ok(())
    }
}
