//! A small crew of persistent helper threads that run batches of independent jobs with the
//! calling thread, with a hand-off measured in nanoseconds rather than a thread wake-up.
//!
//! Why not a general pool (rayon): a vector env step is a short batch (a few envs × ~60 µs)
//! issued again and again with a little Python work in between. A pool whose workers sleep as
//! soon as they run out of work pays a futex wake-up (30–100 µs on a VM vCPU) to start each
//! helper and another one to wake the caller at the end: at 8 envs on 2 threads that ate half of
//! the second core (1.27× instead of ~1.9×). Here helpers spin for a short window after each
//! batch, so back-to-back batches start at once; only after the window do they park.
//!
//! The protocol: the caller publishes a batch as one ticket word `epoch | n | next` and a
//! pointer to the job function. Anyone (caller or helper) claims job `next` with a CAS on the
//! ticket, runs it, and counts it done. The caller claims jobs too, then waits until all `n`
//! are done. A helper dereferences the job function only after claiming a job of the current
//! epoch, and the caller does not return before that job is counted, so the borrowed function
//! outlives every use. Who runs which job never changes results: jobs are independent.

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long an idle helper keeps polling for the next batch before it parks. Longer than the
/// Python work between two steps of a tight loop; short enough not to steal much CPU from a
/// trainer that runs between steps.
const SPIN_WINDOW: Duration = Duration::from_micros(300);

/// Ticket layout: 24-bit epoch, 20-bit job count, 20-bit next job.
const FIELD_BITS: u32 = 20;
const FIELD_MASK: u64 = (1 << FIELD_BITS) - 1;
/// Most jobs one batch may hold (the pool holds at most 65,536 envs).
pub const MAX_JOBS: usize = FIELD_MASK as usize;

/// The job function of the batch in flight: called with job indices `0..n`.
type Task<'a> = &'a (dyn Fn(usize) + Sync);

struct Shared {
    ticket: AtomicU64,
    /// Points at the caller's `Task` for the current epoch (valid while jobs are unclaimed
    /// or running, see the module notes).
    task: AtomicPtr<Task<'static>>,
    done: AtomicUsize,
    /// Helpers parked (or about to park); the caller unparks them when it publishes.
    parked: AtomicUsize,
    shutdown: AtomicBool,
}

impl Shared {
    /// Claims the next job of the batch in `ticket`, if any is left: returns its index.
    fn claim(&self) -> Option<usize> {
        let mut t = self.ticket.load(Ordering::Acquire);
        loop {
            let (n, next) = ((t >> FIELD_BITS) & FIELD_MASK, t & FIELD_MASK);
            if next >= n {
                return None;
            }
            match self
                .ticket
                .compare_exchange_weak(t, t + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Some(next as usize),
                Err(now) => t = now,
            }
        }
    }

    /// Claims and runs jobs until none is left.
    fn drain(&self) {
        while let Some(k) = self.claim() {
            // SAFETY: a job of the current epoch was claimed and is not yet counted done, so
            // the caller is still inside `Crew::run` and its task reference is alive.
            let task: Task<'_> = unsafe { *self.task.load(Ordering::Acquire) };
            task(k);
            self.done.fetch_add(1, Ordering::Release);
        }
    }
}

/// `helpers` persistent threads that join the calling thread on each [`Crew::run`].
pub struct Crew {
    shared: Arc<Shared>,
    handles: Vec<JoinHandle<()>>,
    epoch: u64,
}

impl std::fmt::Debug for Crew {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Crew")
            .field("helpers", &self.handles.len())
            .finish()
    }
}

impl Crew {
    /// Starts `helpers` threads named `{name}-{i}`.
    pub fn new(helpers: usize, name: &str) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            ticket: AtomicU64::new(0),
            task: AtomicPtr::new(std::ptr::null_mut()),
            done: AtomicUsize::new(0),
            parked: AtomicUsize::new(0),
            shutdown: AtomicBool::new(false),
        });
        let mut crew = Self {
            shared,
            handles: Vec::with_capacity(helpers),
            epoch: 0,
        };
        for i in 0..helpers {
            let shared = Arc::clone(&crew.shared);
            // On failure, dropping `crew` stops the threads already started.
            let handle = std::thread::Builder::new()
                .name(format!("{name}-{i}"))
                .spawn(move || helper_loop(&shared))?;
            crew.handles.push(handle);
        }
        Ok(crew)
    }

    /// Helper threads (the caller makes one more).
    pub fn helpers(&self) -> usize {
        self.handles.len()
    }

    /// Runs `task(k)` for every `k` in `0..n`, on this thread and the helpers; returns when
    /// all have returned. `task` must not panic (callers catch panics per job); `n` is at most
    /// [`MAX_JOBS`].
    pub fn run(&mut self, n: usize, task: &(dyn Fn(usize) + Sync)) {
        assert!(n <= MAX_JOBS, "a batch holds at most {MAX_JOBS} jobs");
        if n == 0 {
            return;
        }
        if self.handles.is_empty() || n == 1 {
            (0..n).for_each(task);
            return;
        }
        let shared = &*self.shared;
        // SAFETY (lifetime erasure): helpers use the reference only while a job of this
        // epoch is outstanding, and this function waits for all of them below.
        let task_ref: Task<'_> = task;
        let task_ref: Task<'static> = unsafe { std::mem::transmute(task_ref) };
        let slot = &task_ref as *const Task<'static> as *mut Task<'static>;
        shared.task.store(slot, Ordering::Release);
        shared.done.store(0, Ordering::Relaxed);
        self.epoch = (self.epoch + 1) & ((1 << 24) - 1);
        let ticket = (self.epoch << (2 * FIELD_BITS)) | ((n as u64) << FIELD_BITS);
        // SeqCst pairs with the helpers' `parked` increment: either we see it and unpark,
        // or the helper sees this ticket before it parks.
        shared.ticket.store(ticket, Ordering::SeqCst);
        if shared.parked.load(Ordering::SeqCst) > 0 {
            for h in &self.handles {
                h.thread().unpark();
            }
        }
        shared.drain();
        // The last jobs run on helpers: wait briefly, spinning (they take microseconds).
        let mut spins = 0u32;
        while shared.done.load(Ordering::Acquire) < n {
            spins = spins.wrapping_add(1);
            if spins % 1024 == 0 {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        shared.task.store(std::ptr::null_mut(), Ordering::Relaxed);
    }
}

fn helper_loop(shared: &Shared) {
    loop {
        shared.drain();
        // Idle: poll for the next batch for a while, then park.
        let start = Instant::now();
        let mut polls = 0u32;
        loop {
            if shared.shutdown.load(Ordering::Acquire) {
                return;
            }
            if has_work(shared) {
                break;
            }
            polls = polls.wrapping_add(1);
            if polls % 64 != 0 || start.elapsed() < SPIN_WINDOW {
                std::hint::spin_loop();
                continue;
            }
            shared.parked.fetch_add(1, Ordering::SeqCst);
            if !has_work(shared) && !shared.shutdown.load(Ordering::SeqCst) {
                std::thread::park();
            }
            shared.parked.fetch_sub(1, Ordering::SeqCst);
            break;
        }
    }
}

fn has_work(shared: &Shared) -> bool {
    let t = shared.ticket.load(Ordering::SeqCst);
    (t & FIELD_MASK) < ((t >> FIELD_BITS) & FIELD_MASK)
}

impl Drop for Crew {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        for h in &self.handles {
            h.thread().unpark();
        }
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn runs_every_job_exactly_once_per_batch() {
        for helpers in 0..4 {
            let mut crew = Crew::new(helpers, "test").unwrap();
            for n in [0, 1, 2, 7, 64, 300] {
                let hits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
                crew.run(n, &|k| {
                    hits[k].fetch_add(1, Ordering::Relaxed);
                });
                assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
            }
        }
    }

    #[test]
    fn batches_after_helpers_park_still_complete() {
        let mut crew = Crew::new(2, "test").unwrap();
        let seen = Mutex::new(Vec::new());
        for round in 0..3 {
            std::thread::sleep(SPIN_WINDOW * 3);
            crew.run(10, &|k| seen.lock().unwrap().push((round, k)));
        }
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        let expect: Vec<_> = (0..3).flat_map(|r| (0..10).map(move |k| (r, k))).collect();
        assert_eq!(seen, expect);
    }

    #[test]
    fn helpers_share_the_work() {
        let mut crew = Crew::new(1, "test").unwrap();
        let threads = Mutex::new(std::collections::HashSet::new());
        for _ in 0..50 {
            crew.run(16, &|_| {
                threads.lock().unwrap().insert(std::thread::current().id());
                std::thread::sleep(Duration::from_micros(200));
            });
        }
        assert_eq!(threads.into_inner().unwrap().len(), 2);
    }
}
