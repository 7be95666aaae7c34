use swapless_format::FormatError;

/// What can go wrong reading edges.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The graph file could not be read or failed a check.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The memory budget cannot hold what the tier needs.
    #[error(
        "this run needs at least {} MiB of memory on the {tier} tier but the budget is {} MiB; raise --memory to at least {} MiB",
        needed_bytes.div_ceil(1 << 20),
        budget_bytes >> 20,
        needed_bytes.div_ceil(1 << 20)
    )]
    Budget {
        /// What the tier needs.
        needed_bytes: u64,
        /// The budget.
        budget_bytes: u64,
        /// The tier asked for.
        tier: &'static str,
    },
    /// The run was asked to stop (Ctrl-C) and did, at a scan or gather.
    #[error("interrupted")]
    Interrupted,
    /// Reading the graph failed while a kernel ran.
    #[error("reading {path} failed: {source}")]
    Io {
        /// The graph file.
        path: std::path::PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}
