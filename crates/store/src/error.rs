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
        "this run needs at least {} MiB of memory on the {tier} tier but the budget is {}; raise --memory to at least {} MiB",
        needed_bytes.div_ceil(1 << 20),
        budget_in_mebibytes(*budget_bytes),
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

/// A budget in MiB, with a decimal when it is not whole: a budget just under the least
/// must not read as the least itself, nor a 1K budget as "0 MiB".
fn budget_in_mebibytes(bytes: u64) -> String {
    let mebibytes = bytes as f64 / (1u64 << 20) as f64;
    if bytes.is_multiple_of(1 << 20) {
        format!("{mebibytes:.0} MiB")
    } else if mebibytes < 0.1 {
        format!("{} KiB", bytes.div_ceil(1 << 10))
    } else {
        format!("{:.1} MiB", (mebibytes * 10.0).floor() / 10.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_below_the_least_never_reads_as_the_least() {
        let message = |budget_bytes| {
            StoreError::Budget {
                needed_bytes: 106 << 20,
                budget_bytes,
                tier: "direct",
            }
            .to_string()
        };
        assert!(message(96 << 20).contains("the budget is 96 MiB;"));
        assert!(message((106 << 20) - 1).contains("the budget is 105.9 MiB;"));
        assert!(message(1 << 10).contains("the budget is 1 KiB;"));
        assert!(message(96 << 20).ends_with("raise --memory to at least 106 MiB"));
    }
}
