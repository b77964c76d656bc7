//! Runs a batch of independent jobs on a rayon thread pool, the calling thread included.
//!
//! A vector-env step is a short batch (a few envs × ~40 µs) issued again and again with Python
//! work in between, often a policy network that needs every core. So the calling thread works
//! on the batch itself from the first moment (it never waits for a helper to wake up), helpers
//! join through rayon's `in_place_scope`, and [`Pacer`] decides, from measured cycle times,
//! whether helpers join at all and whether they stay awake between batches (only while batches
//! arrive back to back); otherwise rayon's workers sleep, off the cores the caller needs.
//!
//! Soundness rests on rayon's scope: every job spawned in it finishes before the scope
//! returns, and a panic anywhere is carried to the caller after that. Each job also runs under
//! `catch_unwind`, so a panicking job becomes an [`Error::Internal`] of its own and the others
//! still run: who runs which job, and how many threads there are, never changes the outcome.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::runtime::pacing::{Mode, Pacer, Plan};
use crate::support::error::{panic_text, Error, Result};

/// Threads worth using for `requested` threads on batches of at most `max_jobs` jobs: never
/// more than the jobs, nor more than the cores this process may run on (more threads than
/// cores only adds context switches in the middle of a batch).
pub fn effective_threads(requested: usize, max_jobs: usize) -> usize {
    requested.min(max_jobs).min(available_cores()).max(1)
}

/// Cores this process may run on (affinity mask and cgroup quota included).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// How long the caller polls for helpers to finish their last jobs before it sleeps.
const CALLER_POLL: Duration = Duration::from_micros(100);

/// A batch runner: the calling thread plus `threads - 1` rayon workers.
pub struct Executor {
    /// The helpers; `None` when the calling thread does everything.
    helpers: Option<Helpers>,
    threads: usize,
}

struct Helpers {
    pool: rayon::ThreadPool,
    /// The helper threads, so that dropping the executor can join them.
    threads: Vec<std::thread::JoinHandle<()>>,
    /// Counts batches: a helper that stays awake after a batch polls it for the next one.
    batches: Arc<AtomicU64>,
    pacer: Pacer,
    /// Whether helpers take work handed out in the background (`spawn_paced`), timed apart
    /// from the batches: a cycle there is the caller's whole loop around one hand-out.
    background_pacer: Pacer,
}

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("threads", &self.threads)
            .finish()
    }
}

impl Executor {
    /// An executor of exactly `threads` threads (the caller counts as one). Use
    /// [`effective_threads`] to choose `threads`.
    pub fn new(threads: usize) -> Result<Self> {
        let threads = threads.max(1);
        let helpers = if threads > 1 {
            // rayon starts its threads through this handler (during `build`), so their handles
            // are ours to join.
            let handles = Mutex::new(Vec::with_capacity(threads - 1));
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads - 1)
                .spawn_handler(|thread| {
                    let handle = std::thread::Builder::new()
                        .name(format!("reinfors-gym-{}", thread.index()))
                        .spawn(|| thread.run())?;
                    handles
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(handle);
                    Ok(())
                })
                .build()
                .map_err(|e| Error::InvalidArgument(format!("cannot start threads: {e}")))?;
            Some(Helpers {
                pool,
                threads: handles.into_inner().unwrap_or_else(|p| p.into_inner()),
                batches: Arc::new(AtomicU64::new(0)),
                pacer: Pacer::default(),
                background_pacer: Pacer::default(),
            })
        } else {
            None
        };
        Ok(Executor { helpers, threads })
    }

    /// Threads that work on a batch, the caller included.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Lets go of the helper threads without tearing them down, and works alone from now on.
    /// For a process forked from the one that started them: the threads exist only in the
    /// parent, so their pool's destructor must not run here. Its memory is left to the exit.
    pub fn abandon_helpers(&mut self) {
        if let Some(helpers) = self.helpers.take() {
            std::mem::forget(helpers);
        }
        self.threads = 1;
    }

    /// Hands `task` to every helper thread to run in the background, and returns at once,
    /// when that pays: the pacer times the caller's cycles from one hand-out to the next with
    /// and without helpers and keeps the faster. Without them (or with no helpers at all) the
    /// caller is expected to do the work itself later (e.g. while it waits for results). A
    /// multithreaded policy that holds every core between hand-outs is the case where helpers
    /// working beside it slow the loop down. Returns whether the helpers were given the task.
    ///
    /// `task` must catch its own panics (an uncaught one aborts the process) and must not wait
    /// for the caller.
    pub fn spawn_paced(&mut self, task: impl Fn() + Send + Sync + 'static) -> bool {
        let Some(h) = &mut self.helpers else {
            return false;
        };
        if !h.pacer.helpers_pay() {
            // Helpers joining the batches the caller steps itself were measured slower: the
            // caller's own threads hold the cores between batches. Stepping beside that work
            // would contend with it as well, and a cycle's timing cannot tell the two choices
            // apart there (docs/vector_env.md), so none is handed out and this cycle is not
            // timed.
            h.background_pacer.interrupt();
            return false;
        }
        let together = h.background_pacer.begin(Instant::now()).mode == Mode::Together;
        if together {
            h.batches.fetch_add(1, Ordering::Release); // a helper still polling stops and takes it
            h.pool.spawn_broadcast(move |_| task());
        }
        h.background_pacer.end(Instant::now(), None);
        together
    }

    /// Runs `work` on every job, each exactly once, and returns when all have finished. Jobs
    /// are taken one at a time by whichever thread is free, so a helper that starts late or a
    /// slow job simply leaves more to the others. Every job runs even if others fail; the
    /// error of the lowest-numbered failing job is returned (a panic becomes
    /// [`Error::Internal`]).
    ///
    /// For batches issued again and again (steps): the [`Pacer`] decides from the timing of
    /// earlier calls whether helpers join. See [`Executor::run_together`] for one-off batches.
    pub fn run_batch<T: Send>(
        &mut self,
        jobs: Vec<T>,
        work: impl Fn(T) -> Result<()> + Sync,
    ) -> Result<()> {
        let Some(h) = &mut self.helpers else {
            return run_alone(jobs, work);
        };
        let Plan { mode, linger } = h.pacer.begin(Instant::now());
        let (outcome, alone) = match mode {
            Mode::Alone => {
                h.batches.fetch_add(1, Ordering::Release); // no helper needs to stay awake
                (run_alone(jobs, work), None)
            }
            Mode::Together => run_together(h, self.threads, jobs, work, linger),
        };
        h.pacer.end(Instant::now(), alone);
        outcome
    }

    /// [`Executor::run_batch`] with every helper joining, for batches that are not part of a
    /// regular cycle (resets): long enough that helpers always pay, and kept out of the
    /// pacer's timing.
    pub fn run_together<T: Send>(
        &mut self,
        jobs: Vec<T>,
        work: impl Fn(T) -> Result<()> + Sync,
    ) -> Result<()> {
        match &mut self.helpers {
            None => run_alone(jobs, work),
            Some(h) => {
                h.pacer.interrupt();
                run_together(h, self.threads, jobs, work, None).0
            }
        }
    }
}

impl Drop for Executor {
    /// Ends the helper threads and joins them, so that no thread of a dropped pool outlives
    /// it. Each finishes the job it is running first (milliseconds at most).
    fn drop(&mut self) {
        if let Some(Helpers { pool, threads, .. }) = self.helpers.take() {
            drop(pool); // tells the threads to exit once their queued work is done
            for t in threads {
                // A helper's panic was already reported through its job's error.
                let _ = t.join();
            }
        }
    }
}

/// Every job on the calling thread.
fn run_alone<T>(jobs: Vec<T>, work: impl Fn(T) -> Result<()>) -> Result<()> {
    let failures = Failures::default();
    for (k, job) in jobs.into_iter().enumerate() {
        failures.record(k, run_caught(&work, job));
    }
    failures.into_result()
}

/// The calling thread and up to `threads - 1` helpers take jobs until none is left; then
/// helpers stay awake for `linger`, if given. Also returns how long the caller alone would
/// have taken: its own time per job, times the jobs.
fn run_together<T: Send>(
    h: &Helpers,
    threads: usize,
    jobs: Vec<T>,
    work: impl Fn(T) -> Result<()> + Sync,
    linger: Option<Duration>,
) -> (Result<()>, Option<Duration>) {
    let count = jobs.len();
    if count <= 1 {
        h.batches.fetch_add(1, Ordering::Release); // nothing for a helper that stays awake
        let start = Instant::now();
        let outcome = run_alone(jobs, work);
        return (outcome, Some(start.elapsed()));
    }
    let failures = Failures::default();
    let queue = JobQueue::new(jobs);
    let drain = || {
        while let Some((k, job)) = queue.take() {
            failures.record(k, run_caught(&work, job));
        }
    };
    // Helpers that have not yet finished their share (or not yet started).
    let unfinished = AtomicUsize::new(threads - 1);
    let mut caller_time = None;
    h.pool.in_place_scope(|scope| {
        // One job in each helper's own queue, where it looks first.
        scope.spawn_broadcast(|_, _| {
            drain();
            unfinished.fetch_sub(1, Ordering::Release);
        });
        // Only now, with the jobs queued, does a helper still awake from the last batch stop
        // polling: it finds them at once instead of searching an empty queue.
        h.batches.fetch_add(1, Ordering::Release);
        let mut own = (Duration::ZERO, 0u32);
        while let Some((k, job)) = queue.take() {
            let start = Instant::now();
            failures.record(k, run_caught(&work, job));
            own = (own.0 + start.elapsed(), own.1 + 1);
        }
        caller_time = (own.1 > 0).then(|| own.0 / own.1 * count as u32);
        // Queued now, while helpers finish their last jobs: each runs it after its share.
        if let Some(linger) = linger {
            stay_awake(h, linger);
        }
        // The last jobs run on helpers and take microseconds: wait for them by polling, not
        // by sleeping in the scope's latch, whose wake-up costs as much again. A helper that
        // has not even started soon is asleep: then the scope's blocking wait takes over.
        let start = Instant::now();
        let mut polls = 0u32;
        while unfinished.load(Ordering::Acquire) > 0 {
            polls = polls.wrapping_add(1);
            if polls % 64 == 0 && start.elapsed() >= CALLER_POLL {
                break;
            }
            std::hint::spin_loop();
        }
    });
    (failures.into_result(), caller_time)
}

/// Keeps every helper polling for the next batch for up to `linger`, instead of going to
/// sleep (whose wake-up would cost the next batch tens of microseconds). A helper stops as
/// soon as the next batch starts, and the batch's jobs then reach it without a wake-up.
fn stay_awake(h: &Helpers, linger: Duration) {
    let batches = Arc::clone(&h.batches);
    let seen = batches.load(Ordering::Acquire);
    let deadline = Instant::now() + linger;
    h.pool.spawn_broadcast(move |_| {
        let mut polls = 0u32;
        while batches.load(Ordering::Acquire) == seen {
            polls = polls.wrapping_add(1);
            if polls % 64 == 0 && Instant::now() >= deadline {
                return;
            }
            std::hint::spin_loop();
        }
    });
}

/// `work(job)`, with a panic turned into an error.
fn run_caught<T>(work: &impl Fn(T) -> Result<()>, job: T) -> Result<()> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(job)))
        .unwrap_or_else(|panic| Err(Error::Internal(panic_message(&*panic))))
}

/// Jobs handed out in order, each at most once.
struct JobQueue<T> {
    next: AtomicUsize,
    /// One uncontended lock per job (nanoseconds) against a job of tens of microseconds.
    jobs: Vec<Mutex<Option<T>>>,
}

impl<T> JobQueue<T> {
    fn new(jobs: Vec<T>) -> Self {
        JobQueue {
            next: AtomicUsize::new(0),
            jobs: jobs.into_iter().map(|j| Mutex::new(Some(j))).collect(),
        }
    }

    fn take(&self) -> Option<(usize, T)> {
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        let slot = self.jobs.get(k)?;
        let job = slot.lock().unwrap_or_else(|p| p.into_inner()).take()?;
        Some((k, job))
    }
}

/// The failure of the lowest-numbered job seen so far.
#[derive(Default)]
struct Failures(Mutex<Option<(usize, Error)>>);

impl Failures {
    fn record(&self, k: usize, outcome: Result<()>) {
        if let Err(e) = outcome {
            let mut first = self.0.lock().unwrap_or_else(|p| p.into_inner());
            if first.as_ref().is_none_or(|(i, _)| k < *i) {
                *first = Some((k, e));
            }
        }
    }

    fn into_result(self) -> Result<()> {
        match self.0.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }
}

/// The message of a panic caught in a job.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    format!("internal error in a sub-env: {}", panic_text(panic))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::time::Duration;

    #[test]
    fn paced_hand_outs_run_on_helpers_or_are_left_to_the_caller() {
        let mut alone = Executor::new(1).unwrap();
        assert!(!alone.spawn_paced(|| unreachable!("no helper to run it")));
        let mut ex = Executor::new(2).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let tx = Mutex::new(tx);
        // With no timing yet the pacer tries helpers first.
        assert!(ex.spawn_paced(move || tx.lock().unwrap().send(()).unwrap()));
        rx.recv_timeout(Duration::from_secs(10))
            .expect("the helper ran the task");
    }

    #[test]
    fn nothing_is_handed_out_while_helpers_slow_the_batches_down() {
        let mut ex = Executor::new(2).unwrap();
        ex.helpers.as_mut().unwrap().pacer = Pacer::finding_helpers_slower();
        let ran = Arc::new(AtomicUsize::new(0));
        for _ in 0..100 {
            let ran = Arc::clone(&ran);
            let handed = ex.spawn_paced(move || {
                ran.fetch_add(1, Ordering::Relaxed);
            });
            assert!(!handed, "left to the caller");
        }
        assert_eq!(ran.load(Ordering::Relaxed), 0);
        // Once helpers pay for the batches again, hand-outs resume.
        ex.helpers.as_mut().unwrap().pacer = Pacer::default();
        let (tx, rx) = std::sync::mpsc::channel();
        let tx = Mutex::new(tx);
        assert!(ex.spawn_paced(move || tx.lock().unwrap().send(()).unwrap()));
        rx.recv_timeout(Duration::from_secs(10))
            .expect("the helper ran the task");
    }

    #[test]
    fn runs_every_job_exactly_once() {
        for threads in 1..=4 {
            let mut ex = Executor::new(threads).unwrap();
            for n in [0, 1, 2, 7, 64] {
                let hits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
                ex.run_batch((0..n).collect(), |k: usize| {
                    hits[k].fetch_add(1, Ordering::Relaxed);
                    Ok(())
                })
                .unwrap();
                assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
            }
        }
    }

    #[test]
    fn reports_the_lowest_failing_job_and_still_runs_the_rest() {
        for threads in 1..=3 {
            let mut ex = Executor::new(threads).unwrap();
            let ran = AtomicUsize::new(0);
            let err = ex.run_batch((0..10).collect(), |i: usize| {
                ran.fetch_add(1, Ordering::Relaxed);
                if i % 4 == 3 {
                    Err(Error::InvalidState(format!("job {i}")))
                } else {
                    Ok(())
                }
            });
            assert_eq!(err, Err(Error::InvalidState("job 3".into())));
            assert_eq!(ran.load(Ordering::Relaxed), 10);
        }
    }

    /// A panic in a job on the calling thread or on a helper: the call returns an error,
    /// nothing hangs, every other job ran, and the executor keeps working.
    #[test]
    fn a_panicking_job_becomes_an_error_on_any_thread() {
        let mut ex = Executor::new(2).unwrap();
        let caller = std::thread::current().id();
        for panic_on_caller in [true, false] {
            let ran = AtomicUsize::new(0);
            let panicked_on = Mutex::new(None);
            let err = ex.run_batch((0..8).collect(), |i: usize| {
                ran.fetch_add(1, Ordering::Relaxed);
                let here = std::thread::current().id();
                // Slow jobs so that both threads take some.
                std::thread::sleep(Duration::from_millis(2));
                let mut p = panicked_on.lock().unwrap();
                if p.is_none() && (here == caller) == panic_on_caller {
                    *p = Some((i, here));
                    drop(p);
                    panic!("boom in job {i}");
                }
                Ok(())
            });
            let (i, thread) = panicked_on.into_inner().unwrap().expect("a job panicked");
            assert_eq!(thread == caller, panic_on_caller);
            assert!(
                matches!(&err, Err(Error::Internal(m)) if m.contains(&format!("boom in job {i}"))),
                "{err:?}"
            );
            assert_eq!(ran.load(Ordering::Relaxed), 8);
            assert_eq!(ex.run_batch((0..8).collect(), |_: usize| Ok(())), Ok(()));
        }
    }

    #[test]
    fn helpers_share_the_work() {
        let mut ex = Executor::new(2).unwrap();
        let threads = Mutex::new(HashSet::new());
        for _ in 0..50 {
            ex.run_batch((0..16).collect(), |_: usize| {
                threads.lock().unwrap().insert(std::thread::current().id());
                std::thread::sleep(Duration::from_micros(200));
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(threads.into_inner().unwrap().len(), 2);
    }

    #[test]
    fn jobs_may_borrow_from_the_callers_stack() {
        let mut ex = Executor::new(3).unwrap();
        let mut out = vec![0u32; 32];
        let input: Vec<u32> = (0..32).collect();
        let jobs: Vec<_> = out.iter_mut().zip(&input).collect();
        ex.run_batch(jobs, |(o, i)| {
            *o = i * 2;
            Ok(())
        })
        .unwrap();
        assert_eq!(out, input.iter().map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn effective_threads_is_capped_by_jobs_and_cores() {
        let cores = available_cores();
        assert_eq!(effective_threads(1, 100), 1);
        assert_eq!(effective_threads(64, 100), cores.min(64));
        assert_eq!(effective_threads(64, 1), 1);
        assert_eq!(effective_threads(0, 8), 1);
        assert!(effective_threads(usize::MAX, usize::MAX) <= cores);
    }
}
