//! What the format's benches share: speeds in the thread's own CPU time, so that other
//! work on a shared machine does not count.

/// Rounds a speed is the median of.
pub const ROUNDS: usize = 5;

/// Seconds of CPU time this thread has used.
pub fn thread_seconds() -> f64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid timespec for the call to fill.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    assert_eq!(status, 0, "the thread's CPU clock is readable on Linux");
    time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9
}

/// Median ids a second of `round`'s CPU time; `round` returns the ids it decoded.
pub fn ids_per_second(mut round: impl FnMut() -> u64) -> f64 {
    let mut rates: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let started = thread_seconds();
            let ids = round();
            ids as f64 / (thread_seconds() - started)
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    rates[ROUNDS / 2]
}
