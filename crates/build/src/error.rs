use std::path::PathBuf;

use swapless_format::FormatError;

/// Everything that can go wrong while importing, generating or building a graph.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Reading an input or writing a temporary or output file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A line of a text input could not be understood.
    #[error("{path}:{line}: {detail}: `{text}`")]
    Parse {
        /// The input file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// The offending text (shortened when long).
        text: String,
        /// What is wrong with it.
        detail: String,
    },
    /// The input is well-formed text but not a usable graph (empty, inconsistent, wrong kind).
    #[error("{path}: {detail}")]
    BadInput {
        /// The input file.
        path: PathBuf,
        /// What is wrong and what to do.
        detail: String,
    },
    /// The memory budget is too small for even the smallest build.
    #[error("a memory budget of {} is too small: this build needs at least {}", swapless_system::format_bytes(*budget_bytes), swapless_system::format_bytes_up(*needed_bytes))]
    BudgetTooSmall {
        /// The budget given.
        budget_bytes: u64,
        /// The least that works.
        needed_bytes: u64,
    },
    /// An option was given a value it cannot take.
    #[error("{option} {detail}")]
    InvalidOption {
        /// The option's name as the library spells it (`scale`, `degree`, `rows`).
        option: &'static str,
        /// What is wrong with its value ("must be at least 1").
        detail: String,
    },
    /// The budget is more than the system will let this process allocate.
    #[error("the memory budget of {} is more than this process can allocate (its arc buffer alone takes {}); give a budget within the machine's memory", swapless_system::format_bytes(*budget_bytes), swapless_system::format_bytes(*buffer_bytes))]
    BudgetBeyondMachine {
        /// The budget given.
        budget_bytes: u64,
        /// The arc buffer the system refused.
        buffer_bytes: u64,
    },
    /// Input arrays (the Python API's) hold a value the build cannot use.
    #[error("{0}")]
    InvalidArray(String),
    /// Weights were asked for, but the input has none.
    #[error("{}{}: weights were asked for, but {found}", path.display(), line.map(|line| format!(":{line}")).unwrap_or_default())]
    NoWeights {
        /// The input file.
        path: PathBuf,
        /// The 1-based line that showed it, for a text input.
        line: Option<u64>,
        /// What the input is instead.
        found: &'static str,
    },
    /// An `auto` build found ids that call for compacting: the caller reads the input
    /// again with compacted ids ([`crate::build_input`] does).
    #[error("the input's ids need compacting ({0}); build it with compacted ids")]
    IdsNeedCompacting(crate::ids::CompactReason),
    /// The distinct ids of an input to compact need more memory than the budget leaves.
    #[error("{}: its distinct ids took {} before the input was read through, beyond the {} the memory budget leaves for them; give a larger budget", path.display(), swapless_system::format_bytes(*held_bytes), swapless_system::format_bytes(*allowance_bytes))]
    IdsBeyondBudget {
        /// The input file.
        path: PathBuf,
        /// What the ids held when the allowance was passed.
        held_bytes: u64,
        /// What the budget leaves for them.
        allowance_bytes: u64,
    },
    /// Compacting an input's ids within the budget would read the input too many times.
    #[error("{}: compacting its {ids} distinct ids within this memory budget would read it {} more times, beyond the {} a build may", path.display(), passes, crate::ids::MOST_RANGES)]
    IdsNeedPasses {
        /// The input file.
        path: PathBuf,
        /// Its distinct ids.
        ids: u64,
        /// The passes the budget would need beyond the first.
        passes: u64,
        /// The least budget that needs no more than the most passes allowed.
        least_budget_bytes: u64,
    },
    /// The user pressed Ctrl-C; temporary files were removed.
    #[error("interrupted; no output was written and temporary files were removed")]
    Interrupted,
    /// Writing the `.sl` file failed.
    #[error(transparent)]
    Format(#[from] FormatError),
}

impl BuildError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        BuildError::Io {
            path: path.into(),
            source,
        }
    }

    /// A bad-input error about `path`.
    pub fn bad_input(path: impl Into<PathBuf>, detail: impl Into<String>) -> Self {
        BuildError::BadInput {
            path: path.into(),
            detail: detail.into(),
        }
    }
}
