//! Where a graph's edges live while kernels run, behind one trait.
//!
//! [`EdgeStore`] offers the only two ways a kernel reaches edges: [`EdgeStore::scan`]
//! (every vertex of a range, dense) and [`EdgeStore::gather`] (a frontier's lists,
//! sparse, in any order). Three tiers implement both, so kernels never know which
//! serves them: [`DramStore`] (everything in memory), [`MmapStore`] (the OS's page
//! cache, with hints and prefetch) and [`DirectStore`] (`O_DIRECT` reads through
//! io_uring into a budgeted cache). [`plan`] decides which, and what lives where.

mod aligned;
mod direct;
mod dram;
mod error;
mod layout;
mod mmap;
pub mod plan;
mod stats;

use std::ops::Range;

pub use direct::DirectStore;
pub use dram::DramStore;
pub use error::StoreError;
pub use mmap::MmapStore;
pub use plan::{Plan, PlanRequest, Tier};
pub use stats::IoStats;

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, StoreError>;

/// Which lists to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeDirection {
    /// Out-neighbors (for undirected graphs, the neighbors).
    Out,
    /// In-neighbors (for undirected graphs, the same lists as `Out`).
    In,
}

/// One vertex's list as a kernel sees it.
#[derive(Clone, Copy, Debug)]
pub struct Adjacency<'a> {
    /// Neighbor ids, sorted ascending.
    pub neighbors: &'a [u32],
    /// Edge weights parallel to `neighbors`, for weighted graphs.
    pub weights: Option<&'a [f32]>,
}

impl Adjacency<'static> {
    /// The list of a vertex without edges (with empty weights on a weighted graph).
    pub fn empty(weighted: bool) -> Adjacency<'static> {
        Adjacency {
            neighbors: &[],
            weights: weighted.then_some(&[]),
        }
    }
}

/// The callback a kernel hands to `scan` and `gather`: `visit(vertex, its list)`.
pub type Visit<'a> = dyn Fn(u32, Adjacency<'_>) + Sync + 'a;

/// A graph's edges, wherever they are.
pub trait EdgeStore: Sync {
    /// Number of vertices.
    fn num_vertices(&self) -> usize;
    /// Stored out-arcs (an undirected edge counts twice).
    fn num_arcs(&self) -> u64;
    /// Whether in-lists differ from out-lists.
    fn directed(&self) -> bool;
    /// Whether lists carry weights.
    fn weighted(&self) -> bool;
    /// The tier's name for reports (`dram`, `mmap`, `direct`).
    fn tier(&self) -> &'static str;
    /// Degree of `vertex` in `direction` (offsets are warm data, always at hand).
    fn degree(&self, direction: EdgeDirection, vertex: u32) -> u32;
    /// New id → original id for reordered graphs.
    fn permutation(&self) -> Option<&[u32]>;
    /// Calls `visit` for every vertex in `range` with its list, in parallel.
    fn scan(&self, direction: EdgeDirection, range: Range<u32>, visit: &Visit) -> Result<()>;
    /// Calls `visit` for each vertex in `vertices` with its list, in parallel and any order.
    fn gather(&self, direction: EdgeDirection, vertices: &[u32], visit: &Visit) -> Result<()>;
    /// Bytes of memory the store holds (graph sections resident in DRAM).
    fn resident_bytes(&self) -> u64;
    /// What the store has read so far (all zero for the dram tier).
    fn io_stats(&self) -> IoStats {
        IoStats::default()
    }
}
