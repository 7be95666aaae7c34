//! What a long build or run has done so far, for a progress bar drawn in Python: the
//! engine's thread records it, and the thread that holds the GIL hands it to the bar,
//! a Python callable (see `swapless/_progress.py`), a few times a second.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use swapless_build::BuildProgress;

/// How often the bar is handed the progress.
const EVERY: Duration = Duration::from_millis(250);

/// Progress so far; build fields stay zero in a run and run fields in a build.
#[derive(Default)]
struct Snapshot {
    /// The build's phase ("reading", "sorting", ...).
    phase: String,
    /// When the phase began.
    phase_started: Option<Instant>,
    /// Work done in the phase, of `total`.
    done: u64,
    total: Option<u64>,
    /// Input edges read so far.
    edges: u64,
    /// Passes over lists in the running trial (iterations, levels).
    passes: u64,
    /// Bytes the store has read in all.
    bytes_read: u64,
    /// Trials finished.
    trials_done: u64,
}

/// The progress of one build or run, written by the engine, read by Python.
#[derive(Default)]
pub(crate) struct SharedProgress {
    snapshot: Mutex<Snapshot>,
}

impl SharedProgress {
    fn snapshot(&self) -> MutexGuard<'_, Snapshot> {
        // A panic while the lock was held leaves numbers that are still fine to show.
        self.snapshot
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

impl BuildProgress for SharedProgress {
    fn phase(&self, name: &str, total: Option<u64>) {
        let mut snapshot = self.snapshot();
        snapshot.phase = name.to_string();
        snapshot.phase_started = Some(Instant::now());
        snapshot.total = total;
        snapshot.done = 0;
        // Edges are read in the first phase; later phases show their own work.
        snapshot.edges = 0;
    }

    fn position(&self, done: u64) {
        self.snapshot().done = done;
    }

    fn edges_read(&self, edges: u64) {
        self.snapshot().edges = edges;
    }
}

impl swapless_run::Progress for SharedProgress {
    fn pass_done(&self, passes: u64, bytes_read: u64) {
        let mut snapshot = self.snapshot();
        snapshot.passes = passes;
        snapshot.bytes_read = bytes_read;
    }

    fn trial_done(&self, bytes_read: u64) {
        let mut snapshot = self.snapshot();
        snapshot.trials_done += 1;
        snapshot.passes = 0;
        snapshot.bytes_read = bytes_read;
    }
}

/// Hands a [`SharedProgress`] to a Python callable at most every [`EVERY`].
pub(crate) struct Reporter {
    progress: Arc<SharedProgress>,
    /// The bar; `None` shows nothing.
    bar: Option<Py<PyAny>>,
    started: Instant,
    last: Instant,
}

impl Reporter {
    /// A reporter of `progress` to `bar` (None: to no one).
    pub(crate) fn new(progress: Arc<SharedProgress>, bar: Option<Py<PyAny>>) -> Reporter {
        let now = Instant::now();
        Reporter {
            progress,
            bar,
            started: now,
            last: now,
        }
    }

    /// Calls the bar with the progress as a dict, if it is time to; an exception the
    /// bar raises ends the work like Ctrl-C.
    pub(crate) fn tick(&mut self, py: Python<'_>) -> PyResult<()> {
        if self.last.elapsed() < EVERY {
            return Ok(());
        }
        self.report(py)
    }

    /// Calls the bar once more when the work is done, so it can show where it ended.
    pub(crate) fn finish(&mut self, py: Python<'_>) -> PyResult<()> {
        self.report(py)
    }

    fn report(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(bar) = &self.bar else {
            return Ok(());
        };
        self.last = Instant::now();
        let state = PyDict::new(py);
        {
            let snapshot = self.progress.snapshot();
            state.set_item("phase", snapshot.phase.as_str())?;
            state.set_item("done", snapshot.done)?;
            state.set_item("total", snapshot.total)?;
            state.set_item("edges", snapshot.edges)?;
            state.set_item("passes", snapshot.passes)?;
            state.set_item("bytes_read", snapshot.bytes_read)?;
            state.set_item("trials_done", snapshot.trials_done)?;
            let phase_seconds = snapshot.phase_started.map(|started| started.elapsed());
            state.set_item(
                "phase_seconds",
                phase_seconds.map(|time| time.as_secs_f64()),
            )?;
        }
        state.set_item("seconds", self.started.elapsed().as_secs_f64())?;
        bar.call1(py, (state,))?;
        Ok(())
    }
}
