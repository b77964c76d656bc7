//! When the executor's helpers join a batch, and how long they stay awake after it.
//!
//! Two measured facts drive this (docs/architecture.md, "Threads"):
//! - Waking a sleeping thread costs tens of microseconds on a VM, a large share of a short
//!   batch issued back to back (a tight stepping loop). So when batches do arrive back to back,
//!   helpers keep polling for the next one for about the length of the recent gaps.
//! - When the caller runs a multithreaded policy network between batches, its threads (e.g.
//!   torch's OpenMP workers, which spin for milliseconds after each call) hold the other cores,
//!   and a helper competing for them can make the whole loop slower than the caller stepping
//!   every sub-env alone. So the executor times whole cycles (batch start to next batch start,
//!   the caller's own work included) with and without helpers, uses whichever is faster, and
//!   re-checks the other choice now and then.

use std::time::{Duration, Instant};

/// Longest gap between batches for which helpers stay awake: beyond it the caller is doing
/// real work of its own between batches and gets the cores.
const BACK_TO_BACK_GAP: Duration = Duration::from_micros(150);
/// Longest time a helper stays awake after a batch.
const MAX_LINGER: Duration = Duration::from_micros(300);
/// Cycles remembered per choice (their median decides).
const WINDOW: usize = 5;
/// Samples per choice before the medians are trusted.
const MIN_SAMPLES: usize = 3;
/// The choice that is not in use is tried again for a burst of `PROBE_LEN` cycles (the first
/// cycle after a switch is not timed: helpers that were asleep, or are still polling, make it
/// unrepresentative of either choice): soon after the best choice changed (a few slow cycles
/// can tip it wrongly), then half as often after each probe that confirms it.
const FIRST_PROBE: u32 = 16;
const PROBE_EVERY: u32 = 512;
/// The same while the choice not in use measured clearly (`CLEARLY_WORSE`) slower at its last
/// probe: helpers contending with a policy's threads make each probe cycle cost much more.
const PROBE_EVERY_WHEN_WORSE: u32 = 4096;
/// Going alone is not re-tried while the cycles it would give, estimated from the caller's
/// own share of each batch, are this much longer than the measured cycles together: probing
/// a choice that is that clearly worse costs more than it can reveal.
const CLEARLY_WORSE: (u32, u32) = (5, 4);
const PROBE_LEN: u32 = 1 + MIN_SAMPLES as u32;
/// Cycles longer than this say nothing about stepping (the caller paused, or trained).
const MAX_CYCLE: Duration = Duration::from_millis(100);

/// Whether helpers join a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The calling thread runs every job.
    Alone,
    /// Helpers join the calling thread.
    Together,
}

impl Mode {
    fn index(self) -> usize {
        match self {
            Mode::Alone => 0,
            Mode::Together => 1,
        }
    }

    fn other(self) -> Mode {
        match self {
            Mode::Alone => Mode::Together,
            Mode::Together => Mode::Alone,
        }
    }
}

/// Recent cycle times of one choice.
#[derive(Debug, Clone, Default)]
struct Window {
    samples: [Duration; WINDOW],
    len: usize,
    next: usize,
}

impl Window {
    fn push(&mut self, d: Duration) {
        self.samples[self.next] = d;
        self.next = (self.next + 1) % WINDOW;
        self.len = (self.len + 1).min(WINDOW);
    }

    fn median(&self) -> Option<Duration> {
        if self.len < MIN_SAMPLES {
            return None;
        }
        let mut s = self.samples[..self.len].to_vec();
        s.sort_unstable();
        Some(s[self.len / 2])
    }
}

/// The pacing state of one executor.
#[derive(Debug, Clone)]
pub struct Pacer {
    windows: [Window; 2],
    since_probe: u32,
    /// Cycles between probes now, and the choice they confirmed.
    probe_interval: u32,
    best: Mode,
    /// Cycles left in the burst of the current choice (probe or first evidence).
    burst: u32,
    /// Start and choice of the batch in flight or last run.
    last_start: Option<(Instant, Mode)>,
    /// The batch in flight runs the same way as the one before it (its cycle is timed).
    settled: bool,
    last_end: Option<Instant>,
    /// Smoothed gap between a batch's end and the next one's start.
    gap: Option<Duration>,
    /// Estimated cycles alone, from cycles together.
    estimates: Window,
    /// How much longer than it took the last batch would have taken alone (ns; may be < 0).
    pending_delta: Option<i128>,
}

impl Default for Pacer {
    fn default() -> Self {
        Pacer {
            windows: [Window::default(), Window::default()],
            since_probe: 0,
            probe_interval: FIRST_PROBE,
            best: Mode::Together,
            burst: 0,
            last_start: None,
            settled: false,
            last_end: None,
            gap: None,
            estimates: Window::default(),
            pending_delta: None,
        }
    }
}

/// How a batch runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub mode: Mode,
    /// How long helpers should stay awake after their share of this batch, waiting for the
    /// next one (`None`: batches do not come back to back, let them sleep).
    pub linger: Option<Duration>,
}

impl Pacer {
    /// A batch starts now: records the cycle that just ended and plans this batch.
    pub fn begin(&mut self, now: Instant) -> Plan {
        let previous = self.last_start.map(|(_, mode)| mode);
        if let Some((start, mode)) = self.last_start {
            let cycle = now.saturating_duration_since(start);
            if cycle <= MAX_CYCLE && self.settled {
                self.windows[mode.index()].push(cycle);
                if let Some(delta) = self.pending_delta.filter(|_| mode == Mode::Together) {
                    let alone = (cycle.as_nanos() as i128 + delta).max(0) as u64;
                    self.estimates.push(Duration::from_nanos(alone));
                }
            }
        }
        if let Some(end) = self.last_end {
            let gap = now.saturating_duration_since(end);
            // Smoothed over ~4 batches, so one slow gap does not stop the lingering.
            self.gap = Some(match self.gap {
                Some(g) => (g * 3 + gap) / 4,
                None => gap,
            });
        }
        let mode = self.choose(previous);
        // A cycle is timed only if the batch before it ran the same way.
        self.settled = previous == Some(mode);
        self.last_start = Some((now, mode));
        let back_to_back = self.gap.filter(|&g| g <= BACK_TO_BACK_GAP);
        Plan {
            mode,
            linger: back_to_back
                .filter(|_| mode == Mode::Together)
                .map(|g| (g * 4).min(MAX_LINGER)),
        }
    }

    fn choose(&mut self, previous: Option<Mode>) -> Mode {
        if self.burst > 0 {
            self.burst -= 1;
            return previous.unwrap_or(Mode::Together);
        }
        let [alone, together] = [&self.windows[0], &self.windows[1]];
        let (a, t) = match (alone.median(), together.median()) {
            (Some(a), Some(t)) => (a, t),
            // Not enough evidence yet: a burst of the choice with fewer samples.
            _ => {
                self.burst = PROBE_LEN - 1;
                return if together.len <= alone.len {
                    Mode::Together
                } else {
                    Mode::Alone
                };
            }
        };
        let best = if t <= a { Mode::Together } else { Mode::Alone };
        if best != self.best {
            self.best = best;
            self.probe_interval = FIRST_PROBE;
            self.since_probe = 0;
        }
        self.since_probe += 1;
        let (num, den) = CLEARLY_WORSE;
        if self.since_probe >= self.probe_interval {
            self.since_probe = 0;
            let (best_median, other_median) = if best == Mode::Together {
                (t, a)
            } else {
                (a, t)
            };
            let cap = if other_median * den > best_median * num {
                PROBE_EVERY_WHEN_WORSE
            } else {
                PROBE_EVERY
            };
            self.probe_interval = (self.probe_interval * 2).min(cap);
            let alone_clearly_worse = best == Mode::Together
                && self.estimates.median().is_some_and(|e| e * den > t * num);
            if !alone_clearly_worse {
                self.burst = PROBE_LEN - 1;
                return best.other();
            }
        }
        best
    }

    /// Whether helpers are the choice the timings favour (also before there are any).
    pub fn helpers_pay(&self) -> bool {
        self.best == Mode::Together
    }

    /// A pacer whose timings have found helpers slower (for tests of what depends on it).
    #[cfg(test)]
    pub fn finding_helpers_slower() -> Pacer {
        Pacer {
            best: Mode::Alone,
            ..Pacer::default()
        }
    }

    /// A batch outside the regular cycle ran (a reset): the cycle in flight is not timed.
    pub fn interrupt(&mut self) {
        self.settled = false;
        self.last_start = None;
        self.last_end = None;
    }

    /// The batch ended now; `alone` is how long it would have taken the caller alone (for a
    /// batch run together: the caller's own time per job times the jobs).
    pub fn end(&mut self, now: Instant, alone: Option<Duration>) {
        self.pending_delta = match (self.last_start, alone) {
            (Some((start, _)), Some(alone)) => {
                let took = now.saturating_duration_since(start);
                Some(alone.as_nanos() as i128 - took.as_nanos() as i128)
            }
            _ => None,
        };
        self.last_end = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drives a pacer through `n` cycles where a batch takes `batch(mode)` and the caller's
    /// own work between batches takes `gap`; returns how often each mode ran.
    fn simulate(
        n: usize,
        batch: impl Fn(Mode) -> Duration,
        gap: Duration,
        alone_estimate: impl Fn(Duration) -> Duration,
    ) -> (usize, usize, Pacer) {
        let mut p = Pacer::default();
        let mut now = Instant::now();
        let mut counts = [0usize; 2];
        for _ in 0..n {
            let mode = p.begin(now).mode;
            counts[mode.index()] += 1;
            let took = batch(mode);
            now += took;
            p.end(now, (mode == Mode::Together).then(|| alone_estimate(took)));
            now += gap;
        }
        (counts[0], counts[1], p)
    }

    #[test]
    fn picks_the_faster_choice_and_still_probes_the_other() {
        let us = Duration::from_micros;
        // Helpers save a third of the batch (estimate says alone is only ~20% slower, so
        // going alone keeps being re-tried): mostly together, a few alone probes.
        let (alone, together, _) = simulate(
            2000,
            |m| {
                if m == Mode::Together {
                    us(200)
                } else {
                    us(300)
                }
            },
            us(20),
            |took| took * 6 / 5,
        );
        assert!(
            (2000 / PROBE_EVERY as usize..60).contains(&alone),
            "{alone}"
        );
        assert!(together > 1940, "{together}");
        // Helpers slow the cycle down (they compete with the caller's threads, which the
        // estimate cannot see): mostly alone, a few together probes.
        let (alone, together, _) = simulate(
            2000,
            |m| {
                if m == Mode::Together {
                    us(2400)
                } else {
                    us(1900)
                }
            },
            us(5),
            |took| took,
        );
        assert!(
            (2000 / PROBE_EVERY as usize..60).contains(&together),
            "{together}"
        );
        assert!(alone > 1940, "{alone}");
    }

    #[test]
    fn helpers_pay_follows_the_faster_choice() {
        let us = Duration::from_micros;
        assert!(
            Pacer::default().helpers_pay(),
            "no timings yet: helpers are tried first"
        );
        let batch = |slower: Mode| move |m: Mode| if m == slower { us(2400) } else { us(1900) };
        let (.., p) = simulate(2000, batch(Mode::Together), us(5), |took| took);
        assert!(!p.helpers_pay());
        let (.., p) = simulate(2000, batch(Mode::Alone), us(5), |took| took);
        assert!(p.helpers_pay());
    }

    #[test]
    fn a_clearly_worse_choice_is_probed_less_often() {
        let us = Duration::from_micros;
        // Helpers make every cycle 60% longer (a policy's threads hold the other cores).
        let (alone, together, _) = simulate(
            40_000,
            |m| {
                if m == Mode::Together {
                    us(3200)
                } else {
                    us(2000)
                }
            },
            us(5),
            |took| took,
        );
        // Probes after 16, 32, ... cycles, then every 4096: some seventeen bursts of four,
        // where every 512 would be over eighty.
        assert!(together <= 4 * 20, "{together}");
        assert_eq!(alone + together, 40_000);
    }

    #[test]
    fn going_alone_is_not_probed_while_clearly_worse() {
        let us = Duration::from_micros;
        // Helpers halve the batch and the estimate says so: after the first evidence,
        // no more alone batches.
        let (alone, together, _) = simulate(
            4000,
            |m| {
                if m == Mode::Together {
                    us(150)
                } else {
                    us(300)
                }
            },
            us(20),
            |took| took * 2,
        );
        assert_eq!(alone, PROBE_LEN as usize, "only the first evidence");
        assert_eq!(together, 4000 - alone);
    }

    #[test]
    fn helpers_linger_only_while_batches_come_back_to_back() {
        let us = Duration::from_micros;
        // Batches 20 us apart, helpers halve them: they join, and stay awake in between.
        let mut p = Pacer::default();
        let mut now = Instant::now();
        let mut lingered = 0;
        for _ in 0..200 {
            let plan = p.begin(now);
            if let Some(linger) = plan.linger {
                assert_eq!(plan.mode, Mode::Together, "no helpers, no lingering");
                assert!(linger <= MAX_LINGER && linger >= us(20), "{linger:?}");
                lingered += 1;
            }
            now += if plan.mode == Mode::Together {
                us(100)
            } else {
                us(200)
            };
            p.end(now, None);
            now += us(20);
        }
        assert!(lingered > 180, "{lingered}");
        // The caller works 2 ms between batches: nobody lingers.
        let (.., mut p) = simulate(50, |_| us(100), us(2000), |t| t);
        let later = Instant::now() + Duration::from_secs(1);
        assert_eq!(p.begin(later).linger, None);
    }

    #[test]
    fn long_pauses_are_not_cycles() {
        let mut p = Pacer::default();
        let t0 = Instant::now();
        p.begin(t0);
        p.end(t0, None);
        p.begin(t0 + Duration::from_secs(5));
        assert_eq!(p.windows[1].len, 0);
    }
}
