use swapless_format::FormatError;

/// What can go wrong reading edges.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The graph file could not be read or failed a check.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The memory budget cannot hold what the tier needs.
    #[error("{}", budget_message(*needed_bytes, *budget_bytes, tier, *verifying))]
    Budget {
        /// What the tier needs.
        needed_bytes: u64,
        /// The budget.
        budget_bytes: u64,
        /// The tier asked for.
        tier: &'static str,
        /// Whether the verification after the run (`--verify`) is what needs the most.
        verifying: bool,
    },
    /// A placement option's value is out of range; `detail` says what it must be.
    #[error("{} {detail}", option.words())]
    InvalidPlacement {
        /// The option.
        option: crate::PlacementOption,
        /// What its value must be.
        detail: String,
    },
    /// The run was asked to stop (Ctrl-C) and did, at a scan or gather.
    #[error("interrupted")]
    Interrupted,
    /// The system refused the memory for a tier's buffers or cache.
    #[error(
        "the system refused {} MiB of memory for the tier's buffers ({source})",
        bytes.div_ceil(1 << 20)
    )]
    NoMemory {
        /// The bytes asked for.
        bytes: u64,
        /// What the system said.
        source: std::io::Error,
    },
    /// io_uring, which the direct tier reads through, is refused or failed (the mmap tier
    /// reads without it).
    #[error("{}: io_uring {failure}", path.display())]
    IoUring {
        /// The graph file.
        path: std::path::PathBuf,
        /// What went wrong.
        failure: IoUringFailure,
    },
    /// The read pipeline failed, whatever source it reads.
    #[error("{graph}: the read pipeline {failure}")]
    Pipeline {
        /// The graph as its source names it (a file's path, a far graph's address).
        graph: String,
        /// What went wrong.
        failure: PipelineFailure,
    },
    /// A page source or graph origin outside this crate failed (a far graph's server):
    /// its own error, which a front end finds again by its type to word it.
    #[error(transparent)]
    Source(Box<dyn std::error::Error + Send + Sync + 'static>),
    /// Reading the graph failed while a kernel ran.
    #[error("reading {path} failed: {source}")]
    Io {
        /// The graph file.
        path: std::path::PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

/// How io_uring failed the direct tier.
#[derive(Debug, thiserror::Error)]
pub enum IoUringFailure {
    /// The system refused to set up a ring (a kernel without io_uring, or a seccomp
    /// policy, as in many containers).
    #[error("is not available here ({0})")]
    Unavailable(std::io::Error),
    /// The ring stopped accepting reads during this run.
    #[error("stopped accepting reads ({0})")]
    Stopped(std::io::Error),
}

/// How the read pipeline failed, whatever its source.
#[derive(Debug, thiserror::Error)]
pub enum PipelineFailure {
    /// The source's queue failed earlier in this run, with reads in flight, and is not
    /// used again.
    #[error("failed earlier in this run")]
    FailedEarlier,
    /// Lists split between two reads were not put back together: a bug, which the
    /// mmap tier does not have.
    #[error("left {0} lists split between two reads unjoined (a bug in swapless)")]
    ListsNotJoined(usize),
}

/// The sentence of [`StoreError::Budget`].
fn budget_message(needed_bytes: u64, budget_bytes: u64, tier: &str, verifying: bool) -> String {
    let needed = needed_bytes.div_ceil(1 << 20);
    let budget = budget_in_mebibytes(budget_bytes);
    match verifying {
        false => format!(
            "this run needs at least {needed} MiB of memory on the {tier} tier but the budget is {budget}"
        ),
        true => format!(
            "verifying this run's result needs at least {needed} MiB of memory but the budget is {budget}"
        ),
    }
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
                verifying: false,
            }
            .to_string()
        };
        assert!(message(96 << 20).ends_with("the budget is 96 MiB"));
        assert!(message((106 << 20) - 1).ends_with("the budget is 105.9 MiB"));
        assert!(message(1 << 10).ends_with("the budget is 1 KiB"));
        assert!(message(96 << 20).contains("needs at least 106 MiB"));
    }
}
