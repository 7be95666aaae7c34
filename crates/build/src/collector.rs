//! The arc buffer of a build: arcs collected up to a budget-sized capacity, then
//! sorted, deduplicated and spilled to a run file.

use crate::builder::Context;
use crate::journal::RunFile;
use crate::record::Record;
use crate::run_file::{SpilledRun, write_run};
use crate::runs::sort_and_deduplicate;
use crate::{BuildError, Result};

/// Collects arcs, spilling sorted runs when the buffer is full.
pub(crate) struct ArcCollector<R: Record> {
    pub(crate) buffer: Vec<R>,
    capacity: usize,
    /// The runs spilled so far.
    pub(crate) runs: Vec<SpilledRun>,
    /// Arcs pushed so far.
    pub(crate) pushed: u64,
}

impl<R: Record> ArcCollector<R> {
    pub(crate) fn new(capacity: usize) -> Self {
        ArcCollector {
            buffer: Vec::new(),
            capacity,
            runs: Vec::new(),
            pushed: 0,
        }
    }

    /// Adds `record`; the caller spills first when the buffer has no room for it.
    pub(crate) fn push(&mut self, record: R, context: &mut Context) -> Result<()> {
        debug_assert!(self.buffer.len() < self.capacity);
        if self.buffer.capacity() == 0 {
            // A budget beyond what the system will map (`--memory 100T`, which is warned
            // of) is refused here in a sentence rather than aborting the process.
            let bytes = self.capacity as u64 * std::mem::size_of::<R>() as u64;
            self.buffer.try_reserve_exact(self.capacity).map_err(|_| {
                BuildError::BudgetBeyondMachine {
                    budget_bytes: context.options.memory_bytes,
                    buffer_bytes: bytes,
                }
            })?;
        }
        self.buffer.push(record);
        self.pushed += 1;
        Ok(())
    }

    /// Whether `arcs` more arcs fit in the buffer.
    pub(crate) fn has_room_for(&self, arcs: usize) -> bool {
        self.buffer.len() + arcs <= self.capacity
    }

    /// Sorts the buffer and writes it as a run; its journal entry, if it held any arcs.
    pub(crate) fn spill(&mut self, context: &mut Context) -> Result<Option<RunFile>> {
        if self.buffer.is_empty() {
            return Ok(None);
        }
        context.check_cancelled()?;
        sort_and_deduplicate(&mut self.buffer);
        let path = context.new_run_path();
        let run = write_run(&self.buffer, &path)?;
        let entry = run.journal_entry();
        self.runs.push(run);
        context.report.runs_spilled += 1;
        self.buffer.clear();
        Ok(Some(entry))
    }
}
