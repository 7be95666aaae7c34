//! Counters a disk tier keeps while it reads, for the run report.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// What a store has read, as totals since it opened; subtract two readings with
/// [`IoStats::since`] to get one run's share.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IoStats {
    /// Bytes read from the device (for mmap: the process's `read_bytes`).
    pub bytes_read: u64,
    /// Read requests issued (0 when the OS issued them, as for mmap).
    pub read_requests: u64,
    /// Sum over time of requests in flight (request·seconds).
    pub queue_depth_seconds: f64,
    /// Time the I/O thread had at least one request in flight.
    pub busy_seconds: f64,
    /// Most requests ever in flight at once.
    pub max_queue_depth: u64,
    /// List bytes delivered to kernels from memory held by the store.
    pub cached_bytes: u64,
    /// List bytes delivered to kernels in all.
    pub delivered_bytes: u64,
    /// Time compute threads waited for data to arrive.
    pub io_wait_seconds: f64,
}

impl IoStats {
    /// Mean number of requests in flight while any was.
    pub fn mean_queue_depth(&self) -> f64 {
        if self.busy_seconds > 0.0 {
            self.queue_depth_seconds / self.busy_seconds
        } else {
            0.0
        }
    }

    /// Fraction of delivered list bytes that came from memory rather than the device.
    pub fn cache_hit_ratio(&self) -> f64 {
        if self.delivered_bytes > 0 {
            self.cached_bytes as f64 / self.delivered_bytes as f64
        } else {
            1.0
        }
    }

    /// The change from `earlier` to `self` (the maximum depth is kept as is).
    pub fn since(&self, earlier: &IoStats) -> IoStats {
        IoStats {
            bytes_read: self.bytes_read.saturating_sub(earlier.bytes_read),
            read_requests: self.read_requests.saturating_sub(earlier.read_requests),
            queue_depth_seconds: self.queue_depth_seconds - earlier.queue_depth_seconds,
            busy_seconds: self.busy_seconds - earlier.busy_seconds,
            max_queue_depth: self.max_queue_depth,
            cached_bytes: self.cached_bytes.saturating_sub(earlier.cached_bytes),
            delivered_bytes: self.delivered_bytes.saturating_sub(earlier.delivered_bytes),
            io_wait_seconds: self.io_wait_seconds - earlier.io_wait_seconds,
        }
    }
}

/// The live counters behind [`IoStats`], updated from many threads.
#[derive(Default)]
pub(crate) struct IoCounters {
    pub bytes_read: AtomicU64,
    pub read_requests: AtomicU64,
    pub queue_depth_nanos: AtomicU64,
    pub busy_nanos: AtomicU64,
    pub max_queue_depth: AtomicU64,
    pub cached_bytes: AtomicU64,
    pub delivered_bytes: AtomicU64,
    pub io_wait_nanos: AtomicU64,
}

impl IoCounters {
    /// Adds `value` to `counter`.
    pub fn add(counter: &AtomicU64, value: u64) {
        counter.fetch_add(value, Ordering::Relaxed);
    }

    /// Adds a duration in nanoseconds to `counter`.
    pub fn add_time(counter: &AtomicU64, elapsed: Duration) {
        counter.fetch_add(elapsed.as_nanos() as u64, Ordering::Relaxed);
    }

    /// A consistent-enough reading of every counter.
    pub fn snapshot(&self) -> IoStats {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        IoStats {
            bytes_read: load(&self.bytes_read),
            read_requests: load(&self.read_requests),
            queue_depth_seconds: load(&self.queue_depth_nanos) as f64 * 1e-9,
            busy_seconds: load(&self.busy_nanos) as f64 * 1e-9,
            max_queue_depth: load(&self.max_queue_depth),
            cached_bytes: load(&self.cached_bytes),
            delivered_bytes: load(&self.delivered_bytes),
            io_wait_seconds: load(&self.io_wait_nanos) as f64 * 1e-9,
        }
    }
}
