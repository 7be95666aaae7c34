//! How many huge pages a run's property arrays held: the machine-wide counter, sampled
//! while the trials run.
//!
//! Arrays made from the heap (those no reserved slot fits) hold huge pages only while a
//! trial runs, so the counter is sampled then; it is the machine-wide one (cheap to read;
//! reading this process's smaps_rollup instead walks its page tables and slows kernels
//! down). The peak is reported above what the machine held before the reservation.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use swapless_system::system_anon_huge_page_bytes;

/// How often the counter is read.
const SAMPLE_INTERVAL: Duration = Duration::from_millis(2);

/// The machine's anonymous huge-page bytes now, the baseline a sampler counts above.
pub(crate) fn huge_page_bytes_now() -> u64 {
    system_anon_huge_page_bytes().unwrap_or(0)
}

/// A thread that samples the counter until stopped.
pub(crate) struct HugePageSampler {
    sampling: Arc<AtomicBool>,
    thread: Option<JoinHandle<u64>>,
}

impl HugePageSampler {
    /// Starts sampling; the peak is counted above `before` bytes.
    pub(crate) fn start(before: u64) -> HugePageSampler {
        let sampling = Arc::new(AtomicBool::new(true));
        let thread = {
            let sampling = sampling.clone();
            std::thread::spawn(move || {
                let mut most = 0;
                while sampling.load(Ordering::Relaxed) {
                    most = most.max(huge_page_bytes_now());
                    std::thread::sleep(SAMPLE_INTERVAL);
                }
                most.saturating_sub(before)
            })
        };
        HugePageSampler {
            sampling,
            thread: Some(thread),
        }
    }

    /// Stops sampling; the peak above the baseline.
    pub(crate) fn stop(mut self) -> u64 {
        self.sampling.store(false, Ordering::Relaxed);
        self.thread
            .take()
            .and_then(|thread| thread.join().ok())
            .unwrap_or(0)
    }
}

impl Drop for HugePageSampler {
    /// A run that ends early (an error, a panic) stops its sampler too.
    fn drop(&mut self) {
        self.sampling.store(false, Ordering::Relaxed);
    }
}
