//! Why a run could not start or finish, in kinds that carry their data; the front ends
//! put them in their own words (`--memory` for the command line, `memory=` for Python).

use swapless_format::FormatError;
use swapless_store::StoreError;

/// An option of a run, named apart from how any front end spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunOption {
    /// Timed trials.
    Trials,
    /// Worker threads.
    Threads,
    /// The fraction of each property array on huge pages.
    HugePageFraction,
    /// The source vertex of bfs and sssp.
    Source,
    /// Bytes per scan read.
    ChunkBytes,
    /// Reads kept in flight.
    QueueDepth,
    /// The share of the list cache kept for gathers.
    GatherCacheFraction,
    /// The tier, asked for by name.
    Tier,
}

impl RunOption {
    /// The option in words, for a library's own sentences.
    pub fn words(self) -> &'static str {
        match self {
            RunOption::Trials => "trials",
            RunOption::Threads => "threads",
            RunOption::HugePageFraction => "the huge-page fraction",
            RunOption::Source => "the source",
            RunOption::ChunkBytes => "the chunk size",
            RunOption::Tier => "the tier",
            RunOption::QueueDepth => "the queue depth",
            RunOption::GatherCacheFraction => "the gather cache fraction",
        }
    }
}

/// Why a run could not start or finish.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// An option's value is out of range; `detail` says what it must be.
    #[error("{} {detail}", option.words())]
    InvalidOption {
        /// The option.
        option: RunOption,
        /// What its value must be ("must be at least 1").
        detail: String,
    },
    /// A kernel's parameter missing, out of range, or given to a kernel that takes none.
    #[error(transparent)]
    Parameter(#[from] swapless_engine::parameters::ParameterError),
    /// A source was given to a kernel that takes none.
    #[error("{kernel} takes no {}", option.words().trim_start_matches("the "))]
    NotTaken {
        /// The kernel.
        kernel: &'static str,
        /// The option it does not take.
        option: RunOption,
    },
    /// The source is not a vertex of the graph.
    #[error("source {source_id} is not a vertex (the graph has ids 0..{})", vertices.saturating_sub(1))]
    NotAVertex {
        /// The source asked for (original id).
        source_id: u64,
        /// Vertices in the graph.
        vertices: u64,
    },
    /// The graph has no edges, so no source can be picked.
    #[error("the graph has no edges between two vertices, so {kernel} has no source")]
    NoSource {
        /// The kernel.
        kernel: &'static str,
    },
    /// The graph has a negative weight, which the kernel cannot handle.
    #[error(
        "the graph has negative edge weights, which shortest paths by delta-stepping cannot handle"
    )]
    NegativeWeights,
    /// An edge of weight 0 lies on a shortest path whose count the kernel needs.
    #[error(
        "an edge of weight 0 lies on a shortest path, where counting shortest paths by weight depends on the order ties are visited"
    )]
    ZeroWeightPaths,
    /// The kernel runs on undirected graphs only, and this one is directed.
    #[error("{kernel} runs on undirected graphs only (as networkx's), and this graph is directed")]
    Directed {
        /// The kernel's name.
        kernel: &'static str,
    },
    /// The system would not start the worker threads.
    #[error("cannot start {threads} threads: {detail}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// What the system said.
        detail: String,
    },
    /// More threads than the run accepts for the cores it may use.
    #[error(
        "{threads} threads is more than {most} ({per_core} for each of the {cores} cores this process may use); more would only wait for the cores, and each thread's stack takes memory"
    )]
    TooManyThreads {
        /// Threads asked for.
        threads: usize,
        /// The most accepted.
        most: usize,
        /// Accepted per core.
        per_core: usize,
        /// Cores this process may use.
        cores: usize,
    },
    /// The graph file could not be read or failed a check.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The budget cannot hold the run ([`StoreError::Budget`], which has the least).
    #[error("{0}")]
    Budget(StoreError),
    /// Reading the graph failed while the kernel ran.
    #[error("{0}")]
    Store(StoreError),
    /// Memory for the kernel's property arrays could not be mapped.
    #[error("cannot reserve {bytes} bytes for the kernel's vertex arrays ({source})")]
    Reserve {
        /// Bytes asked for.
        bytes: u64,
        /// What the system said.
        source: std::io::Error,
    },
    /// The serial verifier disagreed with the kernel.
    #[error("verification failed: {0}")]
    Verification(String),
    /// Checkpoints could not be written, or the run could not resume from them.
    #[error(transparent)]
    Checkpoint(#[from] crate::checkpoint::CheckpointError),
    /// The run's cancel flag was set; it stopped at the next scan or gather.
    #[error("interrupted")]
    Interrupted,
}

impl RunError {
    /// An option's value is out of range.
    pub(crate) fn invalid(option: RunOption, detail: impl Into<String>) -> RunError {
        RunError::InvalidOption {
            option,
            detail: detail.into(),
        }
    }
}

impl From<swapless_engine::kernel::Refusal> for RunError {
    fn from(refusal: swapless_engine::kernel::Refusal) -> Self {
        match refusal {
            swapless_engine::kernel::Refusal::NegativeWeights => RunError::NegativeWeights,
            swapless_engine::kernel::Refusal::ZeroWeightPaths => RunError::ZeroWeightPaths,
        }
    }
}

impl From<StoreError> for RunError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Format(error) => RunError::Format(error),
            budget @ StoreError::Budget { .. } => RunError::Budget(budget),
            StoreError::Interrupted => RunError::Interrupted,
            StoreError::InvalidPlacement { option, detail } => RunError::InvalidOption {
                option: match option {
                    swapless_store::PlacementOption::ChunkBytes => RunOption::ChunkBytes,
                    swapless_store::PlacementOption::QueueDepth => RunOption::QueueDepth,
                    swapless_store::PlacementOption::GatherCacheFraction => {
                        RunOption::GatherCacheFraction
                    }
                },
                detail,
            },
            other => RunError::Store(other),
        }
    }
}
