//! A global allocator that counts, for tests that hold code to the heap its plan counts.
//! A test binary installs it with
//! `#[global_allocator] static ALLOCATOR: common::Counting = common::Counting;`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes live now and the most live since a reset.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; the counters only
// watch.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, passed on as it came.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: a pointer this allocator handed out, with its layout.
        unsafe { System.dealloc(pointer, layout) };
    }
}

/// Bytes of heap `work` took at its peak beyond what was live when it started, with
/// what it returned. The counters are process-wide: tests that use this run one at a
/// time (one test a binary).
pub fn heap_taken_by<R>(work: impl FnOnce() -> R) -> (usize, R) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let result = work();
    (PEAK.load(Ordering::Relaxed) - before, result)
}
