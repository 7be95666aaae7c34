//! What the harness writes of its trials: the columns of trials.csv, a trial as JSON
//! (trials.jsonl and each CSV row), progress labels, and run.json (the command, the
//! machine and what could be enforced).

use std::path::Path;

use serde_json::{Value, json};

use super::*;

/// The columns of trials.csv, in order.
pub(super) const CSV_COLUMNS: &[&str] = &[
    "graph",
    "kernel",
    "mode",
    "ocf",
    "threads",
    "budget_percent",
    "limit_bytes",
    "engine_memory_bytes",
    "chunk",
    "hugepages",
    "trial",
    "status",
    "seconds",
    "slowdown",
    "wall_seconds",
    "load_seconds",
    "peak_rss_bytes",
    "cgroup_peak_bytes",
    "caches_dropped",
    "bytes_read",
    "read_requests",
    "mean_queue_depth",
    "process_major_faults",
    "cpu_user_seconds",
    "cpu_system_seconds",
    "cpu_idle_seconds",
    "cpu_iowait_seconds",
    "cpu_steal_seconds",
    "disk_reads",
    "disk_writes",
    "disk_read_bytes",
    "disk_write_bytes",
    "disk_iops",
    "disk_mean_in_flight",
    "swap_ins",
    "swap_outs",
    "major_faults",
    "message",
];

/// "pr swap ocf 16 at 30%, trial 2" and the like, for progress lines.
pub(super) fn trial_label(spec: &TrialSpec) -> String {
    let mut label = format!("{} {}", spec.kernel.name(), spec.mode.name());
    if spec.mode == Mode::Swap {
        label += &format!(" ocf {}", spec.ocf);
    }
    if let Some(chunk) = &spec.chunk {
        label += &format!(" chunk {chunk}");
    }
    if spec.hugepages > 0.0 {
        label += &format!(" hugepages {}", spec.hugepages);
    }
    if let Some(percent) = spec.budget_percent {
        label += &format!(" at {percent}%");
        if let Some(limit) = spec.limit_bytes {
            label += &format!(" ({})", bytes(limit));
        }
    }
    label + &format!(", trial {}", spec.trial)
}

/// The trial as one flat JSON object: the CSV's columns by name.
pub(super) fn record_json(graph: &Path, record: &TrialRecord) -> Value {
    let spec = &record.spec;
    let report = record.report.as_ref().unwrap_or(&Value::Null);
    let mut row = json!({
        "graph": graph.display().to_string(),
        "kernel": spec.kernel.name(),
        "mode": spec.mode.name(),
        "ocf": spec.ocf,
        "threads": spec.threads,
        "budget_percent": spec.budget_percent,
        "limit_bytes": spec.limit_bytes,
        "engine_memory_bytes": spec.engine_memory_bytes,
        "chunk": spec.chunk,
        "hugepages": spec.hugepages,
        "trial": spec.trial,
        "status": record.status.name(),
        "seconds": record.seconds,
        "slowdown": record.slowdown,
        "wall_seconds": record.wall_seconds,
        "load_seconds": report["load_seconds"],
        "peak_rss_bytes": report["peak_rss_bytes"],
        "cgroup_peak_bytes": record.cgroup_peak_bytes,
        "caches_dropped": record.caches_dropped,
        "bytes_read": report["bytes_read"],
        "read_requests": report["read_requests"],
        "mean_queue_depth": report["mean_queue_depth"],
        "process_major_faults": report["major_faults"],
        "message": record.message,
    });
    if let (Value::Object(row), Ok(Value::Object(system))) =
        (&mut row, serde_json::to_value(&record.system))
    {
        row.extend(system);
    }
    row
}

/// A JSON value as a CSV cell: empty for null, quoted when it holds a comma or quote.
pub(super) fn csv_cell(value: &Value) -> String {
    let text = match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// Writes run.json: the command, the machine and what could be enforced.
pub(super) fn write_environment(
    command: &BenchCommand,
    harness: &Harness,
    cores: usize,
) -> Result<(), CliError> {
    let environment = json!({
        // A far address's password stays out of the record.
        "command": std::env::args()
            .map(|arg| swapless_far::without_password(&arg))
            .collect::<Vec<_>>(),
        "graph": harness.graph.display().to_string(),
        "cores": cores,
        "cgroup": harness.hierarchy.as_ref().map(Hierarchy::version),
        "disk": harness.disk.as_ref().map(|disk| disk.name.clone()),
        "swap_enabled_bytes": swap_file::enabled_swap_bytes(),
        "runtime_allowance_bytes": RUNTIME_ALLOWANCE_BYTES,
        "timeout_seconds": command.timeout,
    });
    crate::commands::write_json(&command.out.join("run.json"), &environment)
}
