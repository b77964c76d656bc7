//! Many environments stepped in parallel by an [`Executor`] of threads, writing one batch.
//!
//! Each slot is independent (its own generator, track and car), so results do not depend on
//! the number of threads or on which thread steps which slot. Observations are written
//! straight into the caller's preallocated `(num_envs, ...)` buffer.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::runtime::append::append_chunks;
use crate::runtime::executor::{effective_threads, panic_message, Executor};
use crate::runtime::flight::{Batch, Flight, Want, Worker};
use crate::runtime::job::{Job, SlotResult};
use crate::sim::env::{validate, Action, CarRacing, Config, StepOutcome};
use crate::sim::rng::NumpyGenerator;
use crate::support::cpu::avx2_dispatch;
use crate::support::error::{Error, Result};

/// Largest pool accepted (each sub-env holds a track, a car and frame buffers).
pub const MAX_ENVS: usize = 1 << 16;
/// Largest observation of one sub-env accepted (stack x frame). Bytes.
pub const MAX_OBS_BYTES: usize = 1 << 28;
/// Most frames stacked per observation.
pub const MAX_STACK_NUM: usize = 64;
/// Longest side of a frame. Pixels.
pub const MAX_FRAME_SIDE: usize = 4096;
/// Most simulation steps per agent step.
pub const MAX_FRAME_SKIP: u32 = 1000;
/// Largest observation batch accepted (the pool and the Python side keep about four such
/// buffers alive). Bytes.
pub const MAX_BATCH_BYTES: u128 = 1 << 30;

/// Gymnasium 1.x vector autoreset modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoresetMode {
    /// A finished sub-env is reset by the following `step` call (which ignores its action).
    NextStep,
    /// A finished sub-env is reset in the same `step`; its last frame goes to `final_obs`.
    SameStep,
    /// Finished sub-envs wait for `reset` with a mask.
    Disabled,
}

/// How the pool builds each observation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoolSpec {
    pub num_envs: usize,
    pub config: Config,
    /// Truncate after this many simulation steps (`None`: never).
    pub max_episode_steps: Option<u32>,
    pub autoreset: AutoresetMode,
    /// Simulation steps per agent step; rewards are summed, only the last frame is drawn.
    pub frame_skip: u32,
    /// Frames stacked per observation (1: no stacking).
    pub stack_num: usize,
    /// One luminance channel (Gymnasium's `GrayscaleObservation` weights) instead of RGB.
    pub grayscale: bool,
    /// Frame size, drawn natively at this resolution. Pixels.
    pub width: usize,
    pub height: usize,
    /// Channels first (`(3, H, W)`, PyTorch's layout) instead of Gymnasium's `(H, W, 3)`.
    /// Irrelevant for grayscale frames, which have no channel axis.
    pub channels_first: bool,
}

impl PoolSpec {
    /// Bytes of one frame (one stack entry).
    pub fn frame_bytes(&self) -> usize {
        self.width * self.height * if self.grayscale { 1 } else { 3 }
    }

    /// Bytes of one sub-env's observation.
    pub fn obs_bytes(&self) -> usize {
        self.frame_bytes() * self.stack_num
    }

    /// Shape of one sub-env's observation: the frame (`(H, W)` grayscale, `(3, H, W)` channels
    /// first, else `(H, W, 3)`), behind a leading `stack_num` axis when stacking.
    pub fn obs_shape(&self) -> Vec<usize> {
        let (h, w) = (self.height, self.width);
        let frame = if self.grayscale {
            vec![h, w]
        } else if self.channels_first {
            vec![3, h, w]
        } else {
            vec![h, w, 3]
        };
        if self.stack_num == 1 {
            frame
        } else {
            [vec![self.stack_num], frame].concat()
        }
    }

    fn check(&self) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidArgument(m));
        if self.num_envs == 0 {
            return bad("num_envs must be at least 1".into());
        }
        if !(1..=MAX_FRAME_SKIP).contains(&self.frame_skip) {
            return bad(format!(
                "frame_skip must be between 1 and {MAX_FRAME_SKIP}, got {}",
                self.frame_skip
            ));
        }
        if !(1..=MAX_STACK_NUM).contains(&self.stack_num) {
            return bad(format!(
                "stack_num must be between 1 and {MAX_STACK_NUM}, got {}",
                self.stack_num
            ));
        }
        let side = 1..=MAX_FRAME_SIDE;
        if !side.contains(&self.width) || !side.contains(&self.height) {
            return bad(format!(
                "each side of obs_size must be between 1 and {MAX_FRAME_SIDE} pixels, got {}x{}",
                self.height, self.width
            ));
        }
        if self.max_episode_steps == Some(0) {
            return bad("max_episode_steps must be positive (or None)".into());
        }
        // A failed allocation aborts the process instead of raising, so refuse absurd sizes.
        if self.num_envs > MAX_ENVS {
            return bad(format!(
                "num_envs must be at most {MAX_ENVS}, got {}",
                self.num_envs
            ));
        }
        if self.obs_bytes() > MAX_OBS_BYTES {
            return bad(format!(
                "one observation would need {} bytes (stack x frame), more than {MAX_OBS_BYTES}",
                self.obs_bytes()
            ));
        }
        let total = (self.obs_bytes() as u128) * (self.num_envs as u128);
        if total > MAX_BATCH_BYTES {
            return bad(format!(
                "observations would need {total} bytes (num_envs x stack x frame), more than {MAX_BATCH_BYTES}"
            ));
        }
        Ok(())
    }
}

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
struct Slot {
    env: CarRacing,
    /// Simulation steps since the last reset (the time limit's counter).
    elapsed: u32,
    /// Finished at the previous step (NextStep resets it on the next call).
    needs_reset: bool,
    /// The stacked frames, oldest first (`stack_num * frame_bytes`).
    stack: Vec<u8>,
    /// RGB scratch for grayscale conversion.
    rgb: Vec<u8>,
    /// The last observation of an episode that an asynchronous `SameStep` job reset (empty
    /// in other modes; synchronous steps write it into the caller's batch instead).
    final_stack: Vec<u8>,
    /// A job of it failed (its state may be half-updated): it steps again only after a reset.
    broken: bool,
    fault: Fault,
}

/// What the pool's threads share with the background jobs of `send`.
struct Shared {
    spec: PoolSpec,
    /// One lock per sub-env: uncontended in synchronous steps (nanoseconds against a step of
    /// tens of microseconds); asynchronous jobs and accessors take it in turn.
    slots: Vec<Mutex<Slot>>,
    flight: Flight,
}

/// A slot's lock. Every job catches its panics inside the lock, so a poisoned slot is only
/// ever one whose job failed: the caller learns that from the job's error, and a reset mends it.
fn lock(slot: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    slot.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    fn slot(&self, i: usize) -> MutexGuard<'_, Slot> {
        lock(&self.slots[i])
    }
}

impl Worker for Shared {
    /// Runs sub-env `i`'s job on this thread, its panic turned into an error (and the
    /// sub-env marked broken).
    fn run(&self, i: usize, job: Job) -> Result<SlotResult> {
        self.slot(i).guarded(|slot| slot.run(&self.spec, job))
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

avx2_dispatch! {
    /// `(H, W, 3)` to `(3, H, W)`. Compiled twice because only with AVX2 does LLVM turn the
    /// stride-3 loads into byte shuffles; the baseline moves bytes one by one.
    fn hwc_to_chw(hwc: &[u8], chw: &mut [u8]) => hwc_to_chw_body
}

#[inline(always)]
fn hwc_to_chw_body(hwc: &[u8], chw: &mut [u8]) {
    let plane = hwc.len() / 3;
    let (r, rest) = chw.split_at_mut(plane);
    let (g, b) = rest.split_at_mut(plane);
    for (((p, r), g), b) in hwc.chunks_exact(3).zip(r).zip(g).zip(b) {
        *r = p[0];
        *g = p[1];
        *b = p[2];
    }
}

avx2_dispatch! {
    /// Gymnasium's `GrayscaleObservation`: `sum(rgb * [0.2125, 0.7154, 0.0721])` cast to
    /// uint8 (vectorized with AVX2: the same f64 operations, no FMA).
    fn grayscale_into(rgb: &[u8], gray: &mut [u8]) => grayscale_into_body
}

#[inline(always)]
fn grayscale_into_body(rgb: &[u8], gray: &mut [u8]) {
    for (g, p) in gray.iter_mut().zip(rgb.chunks_exact(3)) {
        let v = p[0] as f64 * 0.2125 + p[1] as f64 * 0.7154 + p[2] as f64 * 0.0721;
        *g = v as u8;
    }
}

impl Slot {
    /// `f` on this slot, its panic caught here (inside the lock, so the lock is not
    /// poisoned) and turned into an error; any failure marks the slot broken.
    fn guarded<T>(&mut self, f: impl FnOnce(&mut Slot) -> Result<T>) -> Result<T> {
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

    fn reset(
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
    fn step(
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
    fn run(&mut self, spec: &PoolSpec, job: Job) -> Result<SlotResult> {
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
    fn check_steppable(&self, spec: &PoolSpec, i: usize) -> Result<()> {
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
            .map(|words| {
                Ok(Mutex::new(Slot {
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
                }))
            })
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
        let ob = spec.obs_bytes();
        let jobs: Vec<_> = self
            .shared
            .slots
            .iter()
            .zip(obs.chunks_mut(ob))
            .enumerate()
            .collect();
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
        for (slot, out) in self
            .shared
            .slots
            .iter()
            .zip(obs.chunks_mut(self.spec.obs_bytes()))
        {
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
            .slots
            .iter()
            .zip(obs.chunks_mut(ob))
            .zip(final_obs.chunks_mut(ob))
            .zip(results.iter_mut())
            .zip(actions.iter())
            .collect();
        match record {
            None => self
                .executor
                .run(jobs, |((((slot, out), fin), res), action)| {
                    let mut slot = lock(slot);
                    *res = slot.guarded(|s| s.step(&spec, *action, fin))?;
                    out.copy_from_slice(&slot.stack);
                    Ok(())
                }),
            Some(record) => append_chunks(
                &mut self.executor,
                record,
                ob,
                jobs,
                |((((slot, out), fin), res), action), spare| {
                    let filled = spare.fill_from(out);
                    let mut slot = lock(slot);
                    *res = slot.guarded(|s| s.step(&spec, *action, fin))?;
                    out.copy_from_slice(&slot.stack);
                    Ok(filled)
                },
            ),
        }
    }

    /// Sub-envs sent and not yet received.
    pub fn in_flight(&self) -> usize {
        self.shared.flight.in_flight()
    }

    /// EnvPool's `send`: sub-env `ids[k]` steps with `actions[k]` in the background, on the
    /// pool's helper threads (and on the caller's, while it waits in [`Pool::recv`]). The
    /// actions are copied. Everything is checked before any job is queued: ids in range, each
    /// once and not in flight, the actions, the autoreset mode's rules.
    pub fn send(&mut self, ids: &[usize], actions: &[Action]) -> Result<()> {
        if ids.len() != actions.len() {
            return Err(Error::InvalidArgument(format!(
                "{} actions for {} env ids",
                actions.len(),
                ids.len()
            )));
        }
        self.shared.flight.check_sendable(ids)?;
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
        if ids.len() != seeds.len() {
            return Err(Error::InvalidArgument(format!(
                "{} seeds for {} env ids",
                seeds.len(),
                ids.len()
            )));
        }
        self.shared.flight.check_sendable(ids)?;
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
        // Each job catches its own panic (`Shared::run`), so the batch itself cannot fail.
        let _ = self.executor.run(jobs, |(i, job)| {
            shared.flight.finish(i, shared.run(i, job), shared);
            Ok(())
        });
    }

    /// Refuses, changing nothing, a `recv` of `count` that could never complete once `extra`
    /// more sub-envs are sent: EnvPool's `step(actions, env_id)` checks this before it sends.
    pub fn check_receivable(&self, count: usize, extra: usize) -> Result<()> {
        self.shared.flight.check_receivable(count, extra)
    }
}

impl Drop for Pool {
    /// Queued jobs are dropped and running ones finish before the slots and threads go.
    fn drop(&mut self) {
        self.shared.flight.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grayscale_matches_gymnasium_on_fixed_pixels() {
        // (r, g, b) -> Gymnasium's GrayscaleObservation, `np.sum(obs * [0.2125, 0.7154,
        // 0.0721], axis=-1).astype(np.uint8)`, run on these pixels (Gymnasium 1.4, NumPy 2.4)
        // and checked by hand: CarRacing's colours, pure channels (R and B weigh differently,
        // so a BGR mix-up shows) and greys whose f64 sum lands just below k (43 ->
        // 42.99999999999999), which the cast truncates.
        let cases: [([u8; 3], u8); 12] = [
            ([255, 255, 255], 255), // 255.00000000000003
            ([102, 204, 102], 174), // grass: 174.9708
            ([102, 230, 102], 193), // grass stripe: 193.5712
            ([102, 102, 102], 102), // plain road
            ([104, 104, 104], 104), // shaded road
            ([255, 0, 0], 54),      // red kerb: 54.1875
            ([0, 0, 255], 18),      // 18.3855
            ([0, 255, 0], 182),     // 182.427
            ([51, 0, 255], 29),     // 29.223
            ([43, 43, 43], 42),     // 42.99999999999999
            ([86, 86, 86], 85),     // 85.99999999999999
            ([233, 233, 233], 232), // 232.99999999999997
        ];
        let rgb: Vec<u8> = cases.iter().flat_map(|(p, _)| *p).collect();
        let expect: Vec<u8> = cases.iter().map(|&(_, g)| g).collect();
        let (mut dispatched, mut baseline) = (vec![0u8; 12], vec![0u8; 12]);
        grayscale_into(&rgb, &mut dispatched);
        grayscale_into_body(&rgb, &mut baseline);
        assert_eq!(dispatched, expect);
        assert_eq!(baseline, expect);
    }

    #[test]
    fn baseline_and_dispatched_copies_agree() {
        // Every (r, g, b) value class over a 96x96 frame and a ragged length.
        for n in [96 * 96, 1001] {
            let rgb: Vec<u8> = (0..n * 3).map(|i| (i * 97 % 256) as u8).collect();
            let (mut a, mut b) = (vec![0u8; n * 3], vec![0u8; n * 3]);
            hwc_to_chw(&rgb, &mut a);
            hwc_to_chw_body(&rgb, &mut b);
            assert_eq!(a, b);
            let (mut a, mut b) = (vec![0u8; n], vec![0u8; n]);
            grayscale_into(&rgb, &mut a);
            grayscale_into_body(&rgb, &mut b);
            assert_eq!(a, b);
        }
        // Without AVX2 the dispatched copies are the baseline: fail rather than compare a
        // copy with itself. (Other CPUs have no AVX2 copies to test.)
        #[cfg(target_arch = "x86_64")]
        assert!(
            crate::support::cpu::avx2_used() || crate::support::cpu::no_avx2_allowed(),
            "the AVX2 copies never ran, so baseline was compared with baseline; set {}=1 to \
             accept that",
            crate::support::cpu::ALLOW_NO_AVX2_ENV
        );
    }

    #[test]
    fn chw_transposes_planes() {
        let hwc = [1, 2, 3, 4, 5, 6];
        let mut chw = [0u8; 6];
        hwc_to_chw(&hwc, &mut chw);
        assert_eq!(chw, [1, 4, 2, 5, 3, 6]);
    }

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
}
