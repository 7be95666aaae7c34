//! What a plan is asked for, and the one check of its placement options.

use super::Tier;
use crate::units::PAGE;
use crate::{OffsetForm, Result, StoreError};

/// What a plan is asked for.
#[derive(Clone, Debug)]
pub struct PlanRequest {
    /// The kernel's name, for the printout.
    pub kernel: String,
    /// Bytes of the kernel's own per-vertex arrays (hot data).
    pub property_bytes: u64,
    /// Bytes the run's worker threads touch (stacks, thread-local state) beyond those
    /// the fixed runtime allowance covers: counted as hot, since they live all run.
    pub thread_bytes: u64,
    /// The run's worker threads: each decodes compressed lists into buffers of its own.
    pub threads: usize,
    /// Bytes the graph's origin holds all run (a far graph's connections' receive
    /// buffers; 0 for a local file): counted as hot.
    pub network_bytes: u64,
    /// Bytes the kernel can use besides to read less (bfs's kept lists): held when the
    /// budget has room for them beyond the least, so they never raise the least budget.
    pub optional_property_bytes: u64,
    /// Bytes held after the run, when the graph's data is released and the result
    /// becomes the output array (the result and the output array).
    pub output_bytes: u64,
    /// With `--verify`: bytes the serial verifier holds after the run, when the graph's
    /// data is released (the result and the verifier's own arrays), besides the pages of
    /// the file it maps; `None` without verification.
    pub verification_bytes: Option<u64>,
    /// Whether the kernel reads out-lists.
    pub out_lists: bool,
    /// Whether the kernel reads in-lists (the same lists on an undirected graph).
    pub in_lists: bool,
    /// Whether the kernel reads edge weights (the weights of a weighted graph are held
    /// and read only then).
    pub weights: bool,
    /// Whether a pass of the kernel needs only the heads of the out-lists (cc's first
    /// links), which a disk tier then reads from the `out_heads` section if the file has it.
    pub out_heads: bool,
    /// Share of the direct tier's list cache given to a page cache for gathers instead of
    /// the pinned prefix (0 to 1): worth it where a search's steps reread the pages of the
    /// steps before (a grid's BFS), not where a prefix of hubs serves every step. `None`:
    /// all of it for a search on a banded graph, else none.
    pub gather_cache_fraction: Option<f64>,
    /// Whether the kernel is a search: its steps gather a frontier's lists.
    pub searches: bool,
    /// `--memory`, if given.
    pub budget_bytes: Option<u64>,
    /// The budget when none is given (half of the memory the process may use).
    pub default_budget_bytes: u64,
    /// `--tier`, if given.
    pub tier: Option<Tier>,
    /// `--offsets`, if given: how a disk tier holds offsets (the dram tier always plain).
    pub offset_form: Option<OffsetForm>,
    /// Bytes per scan read; `None`: [`super::BANDED_SEARCH_CHUNK_BYTES`] for a search on a
    /// banded graph, else [`super::DEFAULT_CHUNK_BYTES`].
    pub chunk_bytes: Option<u64>,
    /// Reads in flight at most.
    pub queue_depth: usize,
}

/// A placement option, named apart from how any front end spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlacementOption {
    /// Bytes per scan read.
    ChunkBytes,
    /// Reads kept in flight.
    QueueDepth,
    /// The share of the list cache kept for gathers.
    GatherCacheFraction,
}

impl PlacementOption {
    /// The option in words, for a library's own sentences.
    pub fn words(self) -> &'static str {
        match self {
            PlacementOption::ChunkBytes => "the chunk size",
            PlacementOption::QueueDepth => "the queue depth",
            PlacementOption::GatherCacheFraction => "the gather cache fraction",
        }
    }
}

impl PlanRequest {
    /// Checks the placement options: the one place they are checked.
    pub(super) fn check(&self) -> Result<()> {
        let invalid = |option, detail: &str| {
            Err(StoreError::InvalidPlacement {
                option,
                detail: detail.to_string(),
            })
        };
        if let Some(chunk) = self.chunk_bytes
            && (!(4 << 10..=4 << 20).contains(&chunk) || !chunk.is_multiple_of(PAGE))
        {
            return invalid(
                PlacementOption::ChunkBytes,
                "must be a multiple of 4K between 4K and 4M",
            );
        }
        if !(1..=4096).contains(&self.queue_depth) {
            return invalid(PlacementOption::QueueDepth, "must be between 1 and 4096");
        }
        if let Some(fraction) = self.gather_cache_fraction
            && !(0.0..=1.0).contains(&fraction)
        {
            return invalid(
                PlacementOption::GatherCacheFraction,
                "must be between 0 and 1",
            );
        }
        Ok(())
    }
}
