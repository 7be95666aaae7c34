//! A bound on the pages a serial reader of a [`crate::GraphFile`] keeps mapped.
//!
//! Pages of a file map that a process has touched count in its resident set (VmRSS)
//! until they are unmapped, however clean they are: a verifier that reads every list
//! of a 1 GiB graph through the map would hold 1 GiB, whatever budget the run kept.
//! The bound looks at the process's resident file pages now and then and drops the
//! map's pages (`MADV_DONTNEED`: they stay in the page cache, and a later read maps
//! them again) once they pass half the bound.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU64, Ordering};

use memmap2::Mmap;

/// Bytes one read fault can map: Linux maps the cached pages around the faulting one
/// within an aligned window of `fault_around_bytes` (64 KiB unless changed in debugfs).
const FAULT_AROUND_BYTES: u64 = 64 << 10;

/// Bytes of a page.
const PAGE_BYTES: u64 = 4096;

/// Streams of reads whose last window the bound remembers (one per section kind).
pub(crate) const STREAMS: usize = 8;

/// Keeps the pages a map holds under `limit_bytes` (see the module comment).
pub(crate) struct MappedBound {
    limit_bytes: u64,
    /// Bytes the reads since the last look could have mapped, at most.
    unlooked_bytes: AtomicU64,
    /// The last fault-around window each stream of reads (a section) touched: a read
    /// in the window its stream's last read touched maps nothing new, so passes in
    /// vertex order count each window once.
    last_window: [AtomicU64; STREAMS],
    /// `/proc/self/statm`, kept open: its third field counts resident file pages.
    statm: File,
    /// That count when the bound was set (the binary's pages and other maps').
    baseline_pages: u64,
}

impl MappedBound {
    /// A bound of `limit_bytes` for the maps this process opens from now on; `None`
    /// where `/proc/self/statm` cannot be read (not Linux), so no bound can be kept.
    pub(crate) fn new(limit_bytes: u64) -> Option<MappedBound> {
        let statm = File::open("/proc/self/statm").ok()?;
        let baseline_pages = resident_file_pages(&statm)?;
        Some(MappedBound {
            limit_bytes,
            unlooked_bytes: AtomicU64::new(0),
            last_window: std::array::from_fn(|_| AtomicU64::new(u64::MAX)),
            statm,
            baseline_pages,
        })
    }

    /// Called before a read of `length` bytes from byte `start` of `map`: looks at the
    /// resident file pages once the reads since the last look could have mapped a
    /// quarter of the bound, and drops the map's pages when they hold half of it. So the
    /// map holds at most three quarters of the bound, or half of it and one read longer
    /// than a quarter (beside the pages of slices a reader still holds and touches again
    /// after a drop, which the plan counts as four longest lists).
    ///
    /// `stream` (below [`STREAMS`]) names the section read, whose last window is
    /// counted only once.
    pub(crate) fn before_read(&self, map: &Mmap, stream: usize, start: u64, length: u64) {
        let first = start / FAULT_AROUND_BYTES;
        let last = (start + length.max(1) - 1) / FAULT_AROUND_BYTES;
        let previous = self.last_window[stream % STREAMS].swap(last, Ordering::Relaxed);
        let mut windows = last - first + 1;
        if previous == first || previous == last {
            windows -= 1;
        }
        if windows == 0 {
            return;
        }
        let could_map = windows * FAULT_AROUND_BYTES;
        let unlooked = self.unlooked_bytes.fetch_add(could_map, Ordering::Relaxed) + could_map;
        if unlooked < self.limit_bytes / 4 {
            return;
        }
        // This read is not mapped yet: it counts toward the next look.
        self.unlooked_bytes.store(could_map, Ordering::Relaxed);
        let mapped_pages = resident_file_pages(&self.statm)
            .map(|pages| pages.saturating_sub(self.baseline_pages))
            // Unreadable: drop the pages to be sure.
            .unwrap_or(u64::MAX);
        if mapped_pages.saturating_mul(PAGE_BYTES) >= self.limit_bytes / 2 {
            // SAFETY: the map is read-only and backed by a file, so MADV_DONTNEED only
            // unmaps its pages; a later access maps the same bytes again from the page
            // cache (or the file), so slices borrowed from the map stay valid. A failure
            // leaves the pages mapped, which only weakens the bound.
            let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }
}

/// The process's resident file-backed and shared pages, from `/proc/self/statm`.
fn resident_file_pages(statm: &File) -> Option<u64> {
    let mut buffer = [0u8; 256];
    let length = statm.read_at(&mut buffer, 0).ok()?;
    let text = std::str::from_utf8(&buffer[..length]).ok()?;
    text.split_whitespace().nth(2)?.parse().ok()
}
