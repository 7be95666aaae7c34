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
        "the graph needs {needed_bytes} bytes in memory but the budget is {budget_bytes}; raise --memory"
    )]
    Budget {
        /// What the tier needs.
        needed_bytes: u64,
        /// The budget.
        budget_bytes: u64,
    },
}
