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
    #[error("a memory budget of {} is too small: this build needs at least {}; raise --memory", crate::memory::format_bytes(*budget_bytes), crate::memory::format_bytes_up(*needed_bytes))]
    BudgetTooSmall {
        /// The budget given.
        budget_bytes: u64,
        /// The least that works.
        needed_bytes: u64,
    },
    /// A generator or option was given values it cannot use.
    #[error("{0}")]
    InvalidOption(String),
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
