//! What a build produced and dropped, and its JSON form (the CLI's `--json`, Python's
//! build report).

use std::path::Path;

use serde_json::{Value, json};

/// What a build produced and dropped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BuildReport {
    /// Vertices in the output.
    pub vertices: u64,
    /// Edges in the output (undirected edges counted once).
    pub edges: u64,
    /// Stored out-neighbor entries.
    pub arcs: u64,
    /// Whether the output is directed.
    pub directed: bool,
    /// Whether the output carries weights.
    pub weighted: bool,
    /// Whether vertices were renumbered.
    pub reordered: bool,
    /// What the output keeps of the input's ids: dense, or compacted integers or names.
    pub ids: swapless_format::IdKind,
    /// Why an `auto` build compacted the ids, when it did.
    pub compacted_because: Option<String>,
    /// Why an `auto` build kept the ids as the vertices, when it did.
    pub kept_dense_because: Option<String>,
    /// Whether the input's weights were dropped, none having been asked for.
    pub weights_ignored: bool,
    /// Ranges the compacted ids were resolved in: 1 when they fit the budget, more
    /// when each range beyond the last took a pass over the input (0 for dense ids).
    pub id_ranges: u64,
    /// Edges the input held.
    pub input_edges: u64,
    /// Input edges from a vertex to itself, dropped (a build that keeps them drops none).
    pub self_loops_dropped: u64,
    /// Vertices whose self-loop the output keeps (repeats of one count as duplicates).
    pub self_loops: u64,
    /// Input edges that repeated an earlier one, dropped (the smallest weight is kept).
    pub duplicate_edges_dropped: u64,
    /// Sorted runs written to disk (0: the build fit in memory).
    pub runs_spilled: u64,
    /// Extra merge passes needed because there were too many runs for one.
    pub merge_passes: u64,
    /// Size of the output file.
    pub output_bytes: u64,
    /// How the output stores its lists.
    pub list_form: swapless_format::ListForm,
    /// Bytes of the output's list sections (ids and weights, both directions).
    pub list_bytes: u64,
    /// Those bytes an arc (see `GraphFile::list_bytes_per_arc`).
    pub list_bytes_per_arc: f64,
    /// The budget the build ran under.
    pub memory_budget_bytes: u64,
    /// Bytes of it given to arc buffers.
    pub working_memory_bytes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Seconds spent in each phase (reading, sorting, merging, ...), in order.
    pub phase_seconds: Vec<(String, f64)>,
    /// Sorted runs of a killed build that this one resumed from, reused.
    pub resumed_runs: u64,
    /// Input edges those runs held, which this build read past instead of sorting again.
    pub resumed_input_edges: u64,
    /// Temporaries of earlier builds that were killed, removed before this one began.
    pub abandoned_temporaries_removed: crate::stale::Removed,
}

impl BuildReport {
    /// The report as JSON, with the output's path and the process's peak resident set.
    pub fn to_json(&self, output: &Path, peak_rss_bytes: u64) -> Value {
        json!({
            "output": output.display().to_string(),
            "vertices": self.vertices,
            "edges": self.edges,
            "arcs": self.arcs,
            "directed": self.directed,
            "weighted": self.weighted,
            "reordered": self.reordered,
            "ids": match self.ids {
                swapless_format::IdKind::Dense => "dense",
                swapless_format::IdKind::Integers => "integers",
                swapless_format::IdKind::Names => "names",
            },
            "compacted_because": self.compacted_because,
            "kept_dense_because": self.kept_dense_because,
            "weights_ignored": self.weights_ignored,
            "id_ranges": self.id_ranges,
            "input_edges": self.input_edges,
            "self_loops_dropped": self.self_loops_dropped,
            "self_loops": self.self_loops,
            "duplicate_edges_dropped": self.duplicate_edges_dropped,
            "runs_spilled": self.runs_spilled,
            "merge_passes": self.merge_passes,
            "resumed_runs": self.resumed_runs,
            "resumed_input_edges": self.resumed_input_edges,
            "output_bytes": self.output_bytes,
            "lists": self.list_form.name(),
            "list_bytes": self.list_bytes,
            "list_bytes_per_arc": self.list_bytes_per_arc,
            "memory_budget_bytes": self.memory_budget_bytes,
            "working_memory_bytes": self.working_memory_bytes,
            "peak_rss_bytes": peak_rss_bytes,
            "seconds": self.seconds,
            "input_edges_per_second": self.input_edges as f64 / self.seconds.max(1e-9),
            "abandoned_temporaries_removed": self.abandoned_temporaries_removed.temporaries,
            "abandoned_bytes_removed": self.abandoned_temporaries_removed.bytes,
            "phase_seconds": self
                .phase_seconds
                .iter()
                .map(|(name, seconds)| json!({"phase": name, "seconds": seconds}))
                .collect::<Vec<_>>(),
        })
    }
}
