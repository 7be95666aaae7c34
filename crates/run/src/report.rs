//! What a run reports (the CLI's `--json`, Python's `last_report`), as a typed struct.

use serde::Serialize;
use serde_json::Value;
use swapless_store::Plan;

/// A run's report: times, memory, I/O, faults and the result's figures.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// The kernel's short name.
    pub kernel: &'static str,
    /// The graph file.
    pub graph: String,
    /// Vertices.
    pub vertices: usize,
    /// Stored arcs.
    pub arcs: u64,
    /// The tier that served the edges.
    pub tier: &'static str,
    /// Where the graph came from: `file`, or another origin's kind (`far`).
    pub origin: &'static str,
    /// Whether list reads bypassed the page cache; `None` for a tier that reads nothing.
    pub direct_io: Option<bool>,
    /// The source (original id), for kernels that take one.
    pub source: Option<u64>,
    /// Worker threads.
    pub threads: usize,
    /// Timed trials.
    pub trials: u32,
    /// The median trial's seconds.
    pub seconds: f64,
    /// Each trial's seconds.
    pub trial_seconds: Vec<f64>,
    /// Seconds to open the graph and the tier.
    pub load_seconds: f64,
    /// The whole run's peak resident set, the phases after the trials included.
    pub peak_rss_bytes: u64,
    /// The process's resident set when the run began: the peak less this is what the
    /// run itself took (in Python, the interpreter and its modules are in both).
    pub rss_at_start_bytes: u64,
    /// Bytes read per trial.
    pub bytes_read: u64,
    /// Read requests per trial.
    pub read_requests: u64,
    /// Mean reads in flight.
    pub mean_queue_depth: f64,
    /// Scans' calls, seconds, bytes and rates per trial.
    pub scan_io: Value,
    /// Gathers' calls, seconds, bytes and rates per trial.
    pub gather_io: Value,
    /// Most reads in flight.
    pub max_queue_depth: u64,
    /// Share of list reads the cache served.
    pub cache_hit_ratio: f64,
    /// Seconds per trial that compute waited for reads.
    pub io_wait_seconds: f64,
    /// Seconds per trial of compute (the trial's less its waits).
    pub compute_seconds: f64,
    /// Peak bytes on transparent huge pages while trials ran (machine-wide, above before).
    pub huge_page_bytes: u64,
    /// The fraction of each property array advised onto huge pages.
    pub huge_page_fraction: f64,
    /// Bytes advised onto huge pages.
    pub huge_page_advised_bytes: u64,
    /// Bytes of hot arrays reserved before the graph loaded.
    pub property_reserved_bytes: u64,
    /// Bytes of property arrays no reserved slot fitted (made from the heap).
    pub property_unreserved_bytes: u64,
    /// Major page faults during the trials.
    pub major_faults: u64,
    /// Minor page faults during the trials.
    pub minor_faults: u64,
    /// `Some(true)` when the serial verifier agreed; `None` when it did not run.
    pub verified: Option<bool>,
    /// Checks that the graph file was unchanged, over all trials and the last.
    pub file_checks: u64,
    /// The kernel's own figures (reached, iterations, triangles, ...).
    pub result: Value,
    /// The step a run resumed after, from a checkpoint; `None` for a run from the start.
    pub resumed_from_step: Option<u64>,
    /// Checkpoints this run wrote.
    pub checkpoints_written: u64,
    /// Seconds spent writing them (within `seconds`).
    pub checkpoint_seconds: f64,
    /// Seconds spent checking and reading the checkpoint the run resumed from (within
    /// `seconds`).
    pub restore_seconds: f64,
    /// The origin's own figures under its kind's name, none for a local file. `far`: a
    /// far graph's traffic over the whole run (bytes and requests per node), requests
    /// sent again after a redirection or failover, the seconds the reads waited on the
    /// network, and the reads a fallback file served.
    #[serde(flatten)]
    pub origin_figures: serde_json::Map<String, Value>,
    /// The plan's figures.
    #[serde(flatten)]
    pub plan: PlanFigures,
}

/// The plan's figures that both a run's report and `plan --json` give.
#[derive(Clone, Debug, Serialize)]
pub struct PlanFigures {
    /// The budget the run kept to.
    pub memory_budget_bytes: u64,
    /// What the run would hold with the whole graph in memory.
    pub footprint_bytes: u64,
    /// Bytes of lists kept in memory.
    pub edge_cache_bytes: u64,
    /// Bytes of the list cache kept for gathers.
    pub gather_cache_bytes: u64,
    /// How offsets are held (`plain` or `compressed`).
    pub offsets: &'static str,
    /// Bytes of I/O buffers.
    pub io_buffer_bytes: u64,
    /// Bytes per scan read.
    pub chunk_bytes: u64,
    /// Reads kept in flight.
    pub queue_depth: usize,
    /// Whether the plan treats the run as a search on a banded graph.
    pub banded_search: bool,
    /// Why io_uring was refused, when it was.
    pub io_uring_refused: Option<String>,
    /// Whether any of the kernel's optional bytes were held.
    pub optional_property_held: bool,
    /// Bytes of the kernel's optional memory held (bfs's kept lists).
    pub optional_property_bytes: u64,
}

impl PlanFigures {
    /// The figures of `plan`.
    pub fn of(plan: &Plan) -> PlanFigures {
        PlanFigures {
            memory_budget_bytes: plan.budget_bytes(),
            footprint_bytes: plan.footprint_bytes(),
            edge_cache_bytes: plan.cached_list_bytes().0 + plan.cached_list_bytes().1,
            gather_cache_bytes: plan.gather_cache_bytes(),
            offsets: plan.offset_form().name(),
            io_buffer_bytes: plan.io_buffer_bytes(),
            chunk_bytes: plan.chunk_bytes(),
            queue_depth: plan.queue_depth(),
            banded_search: plan.banded_search(),
            io_uring_refused: plan.io_uring_refused().map(str::to_string),
            optional_property_held: plan.optional_property_held(),
            optional_property_bytes: plan.optional_property_bytes(),
        }
    }
}

impl RunReport {
    /// The report as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
