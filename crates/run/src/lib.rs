//! One kernel run, end to end: open the graph's origin (a local file, a far graph),
//! plan the placement under the budget, open the tier, run the trials, verify, and turn
//! the result into arrays indexed by original vertex id with a report. The CLI's `run` and the Python API both call [`run`], so a run
//! means the same thing from either. The runner knows no kernel by name: it drives
//! whatever the engine's registry holds through the kernel contract.

pub mod checkpoint;
mod error;
mod huge_pages;
mod kernel;
mod lists;
mod options;
mod origins;
mod placement;
mod report;
mod resume;
mod runner;
mod watched;

pub use error::{RunError, RunOption};
pub use kernel::Kernel;
pub use lists::{ListError, ListReader, ListSide, PairCounts};
pub use options::{RunOptions, THREADS_PER_CORE, parameter_bytes};
pub use origins::open_origin;
pub use placement::{Placement, plan, plan_json, plan_on, thread_bytes};
pub use report::{PlanFigures, RunReport};
pub use runner::{RunOutput, load_vertex_ids, run, run_on};
pub use swapless_engine::kernel::{Column, Output as ResultArray, Warning};
pub use swapless_engine::parameters::{
    Given, Parameter, ParameterError, ParameterKind, ParameterValue, split_weighted,
};

/// Half of the memory this process may use (physical memory, or its cgroup's limit when
/// lower): the budget when none is given.
pub fn default_memory_budget() -> u64 {
    swapless_system::usable_memory_bytes().unwrap_or(8 << 30) / 2
}

/// Tells a run's progress to whoever shows it.
pub trait Progress: Sync {
    /// A trial finished; `bytes_read` is what the store has read so far.
    fn trial_done(&self, _bytes_read: u64) {}
    /// The running trial has made `passes` passes over lists (scans and gathers: a
    /// PageRank iteration, a BFS level) and the store has read `bytes_read` in all;
    /// called at most every 100 ms.
    fn pass_done(&self, _passes: u64, _bytes_read: u64) {}
    /// Something the user should hear of that is not an error (where a run resumed, a
    /// damaged checkpoint it passed over).
    fn note(&self, _message: &str) {}
}

/// Shows nothing.
pub struct Quiet;

impl Progress for Quiet {}

/// The middle value (mean of the two middle ones for an even count).
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.is_empty() {
        f64::NAN
    } else if sorted.len() % 2 == 1 {
        sorted[middle]
    } else {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    }
}

/// Cores this process may run on (its affinity and CPU quota).
pub fn usable_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
