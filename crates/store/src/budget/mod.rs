//! The budget (DESIGN §4): from a graph's section sizes, a kernel's declared memory and
//! a memory budget, decide the tier and where every segment lives, before anything is
//! allocated, so a run that cannot fit fails at the start, not halfway. Every placement
//! option is checked here, once. The [`Plan`] hands each tier a grant of what it may
//! hold (its lists, buffers, caches) rather than the whole plan.

mod grants;
mod io_buffers;
mod placement;
mod request;
mod sections;
mod segments;

use std::fmt;

pub use grants::{KernelArraysGrant, Plan, Segment, VerificationGrant};
pub use io_buffers::SlotGeometry;
pub use placement::plan;
pub use request::{PlacementOption, PlanRequest};
pub use sections::{BANDED_SHARE, band_share};

/// Where edges are served from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// The whole graph in memory.
    Dram,
    /// The file mapped, the page cache holding what the budget allows.
    Mmap,
    /// The read pipeline into the store's own cache, over the origin's page source:
    /// the file through io_uring (`O_DIRECT` where the file system allows), or a far
    /// graph's values.
    Direct,
}

impl Tier {
    /// The tier's name in reports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Dram => "dram",
            Tier::Mmap => "mmap",
            Tier::Direct => "direct",
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// Bytes of the graph file's pages the serial verifier keeps mapped at most besides the
/// lists it reads at once (see `GraphFile::open_bounded`).
pub const VERIFY_MAPPED_BYTES: u64 = 1 << 20;

/// Bytes the process holds besides every segment the plan places: the binary and its
/// libraries, the first eight worker threads' stacks, the allocator's slack, the tiers'
/// small state, and on the mmap tier the pages the kernel maps around each fault. The
/// budget is the whole process, so the plan counts them; the figure is the most a run
/// was measured over its budget before it did (BENCHMARKS.md), rounded up. The same on
/// every tier, so a least budget typed back on another tier is accepted there too.
pub const PROCESS_BYTES: u64 = 12 << 20;

/// Bytes one read fault can map (Linux's default `fault_around_bytes`).
pub(super) const FAULT_AROUND_BYTES: u64 = 64 << 10;

/// Bytes per scan read unless asked otherwise.
pub const DEFAULT_CHUNK_BYTES: u64 = 256 << 10;

/// Bytes per read for a search on a banded graph: its gathers read a page or two a
/// list, so big slots would only take memory from the page cache that serves them.
pub const BANDED_SEARCH_CHUNK_BYTES: u64 = 16 << 10;
