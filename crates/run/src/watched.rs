//! The store as a run's kernels see it: each scan and gather can be cancelled, is
//! counted as a pass for the progress display, checks now and then that the graph file
//! is unchanged, and adds its time and I/O to its access pattern's figures.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use serde_json::{Value, json};
use swapless_format::FileWatch;
use swapless_store::{EdgeStore, IoStats, StoreError};

use crate::Progress;

/// The store as kernels see it: every scan and gather stops with
/// [`StoreError::Interrupted`] once `cancel` is set (where a kernel reaches its edges is
/// where a run can stop cleanly, without a check in any kernel), and is counted as a pass
/// for the progress display.
pub(crate) struct Watched<'a> {
    inner: &'a dyn EdgeStore,
    cancel: Option<&'a AtomicBool>,
    /// The graph file as it was opened; a run that finds it changed stops.
    watch: &'a FileWatch,
    /// Times the file was checked during passes, for the report.
    file_checks: AtomicU64,
    progress: &'a dyn Progress,
    /// Passes in the running trial.
    passes: AtomicU64,
    /// When the progress display last heard; `None` before the first pass.
    last_report: Mutex<Option<Instant>>,
    /// Scans and gathers running now (triangle counting gathers inside a scan; such a
    /// nested call is counted with the call around it).
    active: AtomicU64,
    /// I/O of scans and of gathers, indexed by [`Pattern`].
    patterns: Mutex<[PatternIo; 2]>,
}

/// How often the progress display hears of passes.
const PROGRESS_INTERVAL: std::time::Duration = std::time::Duration::from_millis(100);

/// The two ways kernels reach edges, for the report's per-pattern I/O figures.
#[derive(Clone, Copy)]
pub(crate) enum Pattern {
    Scan = 0,
    Gather = 1,
}

/// I/O while one access pattern ran, summed over its calls: what the targets
/// are stated in (scan bandwidth, gather IOPS and queue depth), which whole-trial
/// figures blur.
#[derive(Clone, Copy, Default)]
pub(crate) struct PatternIo {
    calls: u64,
    seconds: f64,
    io: IoStats,
}

impl PatternIo {
    /// Adds one call that took `seconds` and did `io`.
    fn add(&mut self, seconds: f64, io: &IoStats) {
        self.calls += 1;
        self.seconds += seconds;
        self.io.bytes_read += io.bytes_read;
        self.io.read_requests += io.read_requests;
        self.io.queue_depth_seconds += io.queue_depth_seconds;
        self.io.busy_seconds += io.busy_seconds;
    }

    /// The report's entry: totals per trial, rates over the time inside the calls.
    fn json(&self, trials: u32) -> Value {
        let per_second = |value: u64| {
            if self.seconds > 0.0 {
                value as f64 / self.seconds
            } else {
                0.0
            }
        };
        let trials = trials.max(1) as u64;
        json!({
            "calls": self.calls / trials,
            "seconds": self.seconds / trials as f64,
            "bytes_read": self.io.bytes_read / trials,
            "read_requests": self.io.read_requests / trials,
            "bytes_per_second": per_second(self.io.bytes_read),
            "requests_per_second": per_second(self.io.read_requests),
            "mean_queue_depth": self.io.mean_queue_depth(),
        })
    }
}

impl<'a> Watched<'a> {
    /// `inner` as a run's kernels see it, checked against `watch`, stopped by `cancel`.
    pub(crate) fn new(
        inner: &'a dyn EdgeStore,
        watch: &'a FileWatch,
        cancel: Option<&'a AtomicBool>,
        progress: &'a dyn Progress,
    ) -> Watched<'a> {
        Watched {
            inner,
            cancel,
            watch,
            file_checks: AtomicU64::new(0),
            progress,
            passes: AtomicU64::new(0),
            last_report: Mutex::new(None),
            active: AtomicU64::new(0),
            patterns: Mutex::new([PatternIo::default(); 2]),
        }
    }

    /// Times the file was checked during passes.
    pub(crate) fn file_checks(&self) -> u64 {
        self.file_checks.load(Ordering::Relaxed)
    }

    /// A trial ended: the next one's passes count from 0.
    pub(crate) fn trial_done(&self) {
        self.passes.store(0, Ordering::Relaxed);
    }

    /// The I/O figures of one access pattern over `trials` trials, for the report.
    pub(crate) fn pattern_json(&self, pattern: Pattern, trials: u32) -> Value {
        let patterns = self
            .patterns
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        patterns[pattern as usize].json(trials)
    }

    fn check(&self) -> swapless_store::Result<()> {
        if self
            .cancel
            .is_some_and(|cancel| cancel.load(Ordering::Relaxed))
        {
            return Err(StoreError::Interrupted);
        }
        Ok(())
    }

    /// Runs one scan or gather unless the run was cancelled, counts it as a pass, and
    /// adds its time and I/O to its pattern's.
    fn pass(
        &self,
        pattern: Pattern,
        run: impl FnOnce() -> swapless_store::Result<()>,
    ) -> swapless_store::Result<()> {
        self.check()?;
        let outermost = self.active.fetch_add(1, Ordering::Relaxed) == 0;
        let before = outermost.then(|| (Instant::now(), self.inner.io_stats()));
        let result = run();
        self.active.fetch_sub(1, Ordering::Relaxed);
        if let Some((started, io)) = before {
            let io = self.inner.io_stats().since(&io);
            let mut patterns = self
                .patterns
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            patterns[pattern as usize].add(started.elapsed().as_secs_f64(), &io);
        }
        if result.is_err() {
            // A page written during the run reads as damaged (on mmap, where a page checked
            // once is read again from the map); a file that changed says so instead.
            self.watch.unchanged()?;
        }
        result?;
        self.pass_done()
    }

    /// Counts a finished pass, tells the progress display and checks that the file has
    /// not changed, unless that was done lately (tc on a directed graph gathers once per
    /// vertex).
    fn pass_done(&self) -> swapless_store::Result<()> {
        let passes = self.passes.fetch_add(1, Ordering::Relaxed) + 1;
        let Ok(mut last) = self.last_report.try_lock() else {
            return Ok(());
        };
        if last.is_none_or(|last| last.elapsed() >= PROGRESS_INTERVAL) {
            *last = Some(Instant::now());
            drop(last);
            self.progress
                .pass_done(passes, self.inner.io_stats().bytes_read);
            self.file_checks.fetch_add(1, Ordering::Relaxed);
            self.watch.unchanged()?;
        }
        Ok(())
    }
}

impl EdgeStore for Watched<'_> {
    swapless_store::describe_as!(inner);

    fn scan_blocks(
        &self,
        direction: swapless_store::EdgeDirection,
        range: std::ops::Range<u32>,
        visit_block: &swapless_store::VisitBlock,
    ) -> swapless_store::Result<()> {
        self.pass(Pattern::Scan, || {
            self.inner.scan_blocks(direction, range, visit_block)
        })
    }
    fn scan_partial(
        &self,
        direction: swapless_store::EdgeDirection,
        range: std::ops::Range<u32>,
        needed: swapless_store::ListsNeeded,
        visit_block: &swapless_store::VisitBlock,
    ) -> swapless_store::Result<()> {
        self.pass(Pattern::Scan, || {
            self.inner
                .scan_partial(direction, range, needed, visit_block)
        })
    }
    fn gather(
        &self,
        direction: swapless_store::EdgeDirection,
        vertices: &[u32],
        visit: &swapless_store::Visit,
    ) -> swapless_store::Result<()> {
        self.pass(Pattern::Gather, || {
            self.inner.gather(direction, vertices, visit)
        })
    }
}
