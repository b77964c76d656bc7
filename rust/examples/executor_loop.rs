//! Batches of busy jobs with a short caller gap between them, as a tight stepping loop issues
//! them: prints the median and percentiles of batch wall time per thread count, to A/B the
//! executor's hand-off without the noise of env stepping.
//!
//! `cargo run --release --example executor_loop -- [jobs] [job_us] [gap_us] [batches]`

use std::time::{Duration, Instant};

use reinfors_gym::runtime::executor::Executor;

fn busy(d: Duration) {
    let start = Instant::now();
    while start.elapsed() < d {
        std::hint::spin_loop();
    }
}

fn main() {
    let arg = |i: usize, d: u64| {
        std::env::args()
            .nth(i)
            .and_then(|s| s.parse().ok())
            .unwrap_or(d)
    };
    let (jobs, job_us, gap_us, batches) = (arg(1, 8), arg(2, 30), arg(3, 15), arg(4, 4000));
    for threads in [1, 2] {
        let mut ex = Executor::new(threads).expect("threads");
        let mut times = Vec::with_capacity(batches as usize);
        for _ in 0..batches {
            let start = Instant::now();
            ex.run_batch((0..jobs).collect(), |_| {
                busy(Duration::from_micros(job_us));
                Ok(())
            })
            .expect("jobs");
            times.push(start.elapsed());
            busy(Duration::from_micros(gap_us));
        }
        times.sort_unstable();
        let q = |p: f64| times[((times.len() - 1) as f64 * p) as usize].as_secs_f64() * 1e6;
        println!(
            "threads {threads}: batch p10 {:.1} us, median {:.1} us, p90 {:.1} us, p99 {:.1} us",
            q(0.1),
            q(0.5),
            q(0.9),
            q(0.99)
        );
    }
}
