//! Where a graph's edges live while kernels run, behind one trait.
//!
//! [`EdgeStore`] offers the only two ways a kernel reaches edges: [`EdgeStore::scan`]
//! (every vertex of a range, dense) and [`EdgeStore::gather`] (a frontier's lists,
//! sparse, in any order). Three tiers implement both, so kernels never know which
//! serves them: [`DramStore`] (everything in memory), [`MmapStore`] (the OS's page
//! cache, with hints and prefetch) and [`DirectStore`] (the read pipeline, into a
//! budgeted cache, over a [`sources::PageSource`]: the file through io_uring, `O_DIRECT`
//! where the file system allows, or a source of another crate, such as a graph in far
//! memory on Redis). Where the graph comes from is its [`origin`], apart from the tier.
//! [`budget`] decides which tier, and what lives where; where io_uring is refused, it
//! picks mmap instead of direct.

mod aligned;
pub mod budget;
mod dram;
mod elias_fano;
mod error;
pub mod fault;
mod lists;
mod mmap;
mod offsets;
pub mod origin;
mod pipeline;
mod sigbus;
pub mod sources;
mod stats;
mod units;

use std::ops::Range;

use offsets::WIDENED_ON_STACK;
use units::{ENTRY_BYTES, HEAD_GAP_PAGES, PAGE, SKIP_GAP_PAGES};

pub use aligned::AlignedBuffer;
pub use budget::{PlacementOption, Plan, PlanRequest, Tier};
pub use dram::DramStore;
pub use error::{IoUringFailure, PipelineFailure, StoreError};
pub use lists::read_plan::ascending;
pub use mmap::MmapStore;
pub use offsets::{OffsetForm, OffsetSlice, Offsets, offsets_bytes, offsets_fit_narrow};
pub use origin::{GraphOrigin, LocalFile, OriginOptions, VerifyCopy};
pub use pipeline::DirectStore;
pub use sources::io_uring_refusal;
pub use stats::IoStats;
pub use units::HUGE_PAGE;

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

/// The lists of consecutive vertices, handed to a [`EdgeStore::scan_blocks`] callback
/// in one call so that a kernel's inner loop runs without a call per vertex.
#[derive(Clone, Copy, Debug)]
pub struct ListBlock<'a> {
    first: u32,
    /// Where each list starts in its section, plus where the last one ends.
    offsets: &'a [u64],
    /// The section position of `neighbors[0]`.
    base: u64,
    neighbors: &'a [u32],
    weights: Option<&'a [f32]>,
}

impl<'a> ListBlock<'a> {
    /// The lists of `first..first + offsets.len() - 1`: list `i` is the entries
    /// `offsets[i]..offsets[i + 1]` of the section, and `neighbors` (and `weights`)
    /// hold the section's entries from position `base` on, covering all of them.
    pub fn new(
        first: u32,
        offsets: &'a [u64],
        base: u64,
        neighbors: &'a [u32],
        weights: Option<&'a [f32]>,
    ) -> ListBlock<'a> {
        debug_assert!(!offsets.is_empty() && offsets[0] >= base);
        debug_assert!(offsets[offsets.len() - 1] - base <= neighbors.len() as u64);
        ListBlock {
            first,
            offsets,
            base,
            neighbors,
            weights,
        }
    }

    /// The vertices whose lists the block holds.
    #[inline]
    pub fn vertices(&self) -> Range<u32> {
        self.first..self.first + (self.offsets.len() - 1) as u32
    }

    /// The list of the block's `index`-th vertex (vertex `first + index`).
    #[inline]
    pub fn list(&self, index: usize) -> Adjacency<'a> {
        let entries = (self.offsets[index] - self.base) as usize
            ..(self.offsets[index + 1] - self.base) as usize;
        Adjacency {
            neighbors: &self.neighbors[entries.clone()],
            weights: self.weights.map(|weights| &weights[entries]),
        }
    }

    /// Starts loading the head of the block's `index`-th list into the cache, for a
    /// caller that reads only some of the lists (bfs's bottom-up steps): without it each
    /// one's first cache line is waited for in turn, as the CPU cannot see that far ahead.
    #[inline]
    pub fn prefetch_list(&self, index: usize) {
        if let Some(head) = self
            .neighbors
            .get((self.offsets[index] - self.base) as usize)
        {
            prefetch(head);
        }
    }

    /// Each vertex of the block with its list, in order.
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = (u32, Adjacency<'a>)> + '_ {
        (0..self.offsets.len() - 1).map(|index| (self.first + index as u32, self.list(index)))
    }

    /// The entries of every list in the block, back to back.
    pub fn all_neighbors(&self) -> &'a [u32] {
        &self.neighbors[(self.offsets[0] - self.base) as usize
            ..(self.offsets[self.offsets.len() - 1] - self.base) as usize]
    }
}

/// Advises the OS to back the first `bytes` of `values` with huge pages, as far as whole
/// 2 MiB pages lie inside them, and returns the bytes advised: 0 when none fit or when the
/// OS refuses (a kernel without transparent huge pages). The advice changes only how the
/// pages are backed; given before they are first touched, it takes effect at once.
pub fn advise_huge_pages_prefix<T>(values: &[T], bytes: usize) -> u64 {
    let start = values.as_ptr() as usize;
    let aligned_start = start.next_multiple_of(HUGE_PAGE);
    let end = (start + bytes.min(std::mem::size_of_val(values))) / HUGE_PAGE * HUGE_PAGE;
    if end <= aligned_start {
        return 0;
    }
    // SAFETY: the range lies inside `values`' own allocation and is 2 MiB aligned, and
    // MADV_HUGEPAGE changes only how the kernel backs those pages, never their contents.
    let status = unsafe {
        libc::madvise(
            aligned_start as *mut libc::c_void,
            end - aligned_start,
            libc::MADV_HUGEPAGE,
        )
    };
    if status == 0 {
        (end - aligned_start) as u64
    } else {
        0
    }
}

/// Hints the CPU to load `value`'s cache line; nothing else happens, and on targets
/// without the hint nothing at all.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of x86_64's baseline, and a prefetch only hints the cache: it
    // never faults or changes memory, and the address is a live reference's.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Calls `with` on the lists of `vertices` in blocks of at most [`BLOCK_VERTICES`]:
/// `offsets` are the direction's, widened to u64 on the stack for each block, and
/// `neighbors` (and `weights`) hold the section's entries from position `base` on.
///
/// A read's lists can belong to any number of vertices: between ids a graph never used
/// (an input whose ids are sparse) lie runs of empty lists, so a 256 KiB read can span
/// millions of vertices. As one block, its offsets would be widened on the heap, 8 bytes
/// a vertex of the span, memory no plan counts.
pub(crate) fn for_each_block(
    offsets: OffsetSlice,
    vertices: Range<u32>,
    base: u64,
    neighbors: &[u32],
    weights: Option<&[f32]>,
    mut with: impl FnMut(ListBlock<'_>),
) {
    let mut start = vertices.start;
    while start < vertices.end {
        let end = vertices.end.min(start + BLOCK_VERTICES);
        offsets
            .vertices(start as usize..end as usize)
            .widened(|offsets| with(ListBlock::new(start, offsets, base, neighbors, weights)));
        start = end;
    }
}

/// Vertices of a block [`for_each_block`] hands out at most: their offsets (one entry
/// more) fit [`OffsetSlice::widened`]'s stack copy.
pub(crate) const BLOCK_VERTICES: u32 = WIDENED_ON_STACK as u32 - 1;

/// The callback a kernel hands to `scan` and `gather`: `visit(vertex, its list)`.
pub type Visit<'a> = dyn Fn(u32, Adjacency<'_>) + Sync + 'a;

/// The callback a kernel hands to `scan_blocks`: `visit_block(lists of consecutive vertices)`.
pub type VisitBlock<'a> = dyn Fn(ListBlock<'_>) + Sync + 'a;

/// `visit` called for each vertex of a block, in order: how a tier that works in
/// blocks serves a per-vertex callback.
pub(crate) fn per_vertex<'a>(visit: &'a Visit<'a>) -> impl Fn(ListBlock<'_>) + Sync + 'a {
    move |block| {
        for (vertex, list) in block.iter() {
            visit(vertex, list);
        }
    }
}

/// Vertices per block of a scan over lists in memory (dram, direct's pinned prefix,
/// mmap's kept prefix): enough to amortize the callback and scheduling, few enough
/// that work stealing evens out skewed degrees.
pub(crate) const SCAN_BLOCK: u32 = 256;

/// `range` cut into consecutive blocks of at most `size` vertices, as a parallel iterator.
pub(crate) fn block_ranges(
    range: Range<u32>,
    size: u32,
) -> impl rayon::iter::IndexedParallelIterator<Item = Range<u32>> {
    use rayon::prelude::*;
    let blocks = range.end.saturating_sub(range.start).div_ceil(size);
    (0..blocks).into_par_iter().map(move |block| {
        let start = range.start + block * size;
        start..start.saturating_add(size).min(range.end)
    })
}

/// What a partial scan ([`EdgeStore::scan_partial`]) needs of each list.
#[derive(Clone, Copy)]
pub enum ListsNeeded<'a> {
    /// The first `entries` of every list (CC's first links): a long list may come cut
    /// short to its head.
    Heads(u64),
    /// Every list except those of the vertices `unneeded` holds for (BFS's visited
    /// vertices), which may come whole, empty or cut short.
    AllBut(&'a (dyn Fn(u32) -> bool + Sync)),
}

impl ListsNeeded<'_> {
    /// Bytes a disk tier holds, over a section of `arcs` entries, to know which lists a
    /// pass that needs only their heads cuts short: a kernel that asks for such a pass
    /// counts them in its memory.
    pub fn heads_held_bytes(arcs: u64) -> u64 {
        cut_lists_bytes(arcs, HEAD_GAP_PAGES)
    }

    /// Bytes a disk tier holds, over a section of `arcs` entries, to know which lists a
    /// pass that needs all but some cuts short (see [`ListsNeeded::heads_held_bytes`]).
    pub fn skips_held_bytes(arcs: u64) -> u64 {
        cut_lists_bytes(arcs, SKIP_GAP_PAGES)
    }

    /// Pages past what the scan needs of a list that a disk tier reads rather than cut
    /// the list short: [`HEAD_GAP_PAGES`] past a head, [`SKIP_GAP_PAGES`] past
    /// an unneeded list's first page.
    pub(crate) fn gap_pages(self) -> u64 {
        match self {
            ListsNeeded::Heads(_) => HEAD_GAP_PAGES,
            ListsNeeded::AllBut(_) => SKIP_GAP_PAGES,
        }
    }
}

/// Bytes a disk tier's partial scan over a section of `arcs` entries holds to know
/// which lists it cuts short, where a cut list runs more than `gap_pages` past what the
/// scan needs of it ([`HEAD_GAP_PAGES`] for heads, [`SKIP_GAP_PAGES`] for unneeded lists):
/// those pages are its own, so there is at most one per `gap_pages` pages; 8 bytes each
/// (room for the vector to grow). A kernel that asks for such a scan counts them among
/// its own arrays.
fn cut_lists_bytes(arcs: u64, gap_pages: u64) -> u64 {
    8 * (ENTRY_BYTES * arcs).div_ceil(gap_pages * PAGE)
}

/// Writes out, inside an `impl EdgeStore for Wrapper`, the methods that describe the
/// graph (its facts, offsets, tier, memory and I/O figures) as those of
/// the store in field `$inner`: a wrapper that changes only how lists are read (a
/// watch, a counter) implements the reads itself and nothing else.
#[macro_export]
macro_rules! describe_as {
    ($inner:ident) => {
        fn facts(&self) -> &$crate::GraphFacts {
            self.$inner.facts()
        }
        fn tier(&self) -> &'static str {
            self.$inner.tier()
        }
        fn offsets(&self, direction: $crate::EdgeDirection) -> $crate::OffsetSlice<'_> {
            self.$inner.offsets(direction)
        }
        fn resident_bytes(&self) -> u64 {
            self.$inner.resident_bytes()
        }
        fn direct_io(&self) -> Option<bool> {
            self.$inner.direct_io()
        }
        fn io_stats(&self) -> $crate::IoStats {
            self.$inner.io_stats()
        }
    };
}

/// What every tier knows of its graph besides the lists: counts, what the lists carry,
/// and the permutation.
#[derive(Clone, Debug, Default)]
pub struct GraphFacts {
    /// Number of vertices.
    pub vertices: usize,
    /// Stored out-arcs (an undirected edge counts twice).
    pub arcs: u64,
    /// Whether in-lists differ from out-lists (and the store holds them).
    pub directed: bool,
    /// Whether lists carry weights (the graph has them and the run reads them).
    pub weighted: bool,
    /// New id → original id for reordered graphs.
    pub permutation: Option<Vec<u32>>,
    /// Vertices whose lists hold themselves (the graph was built keeping self-loops).
    pub self_loops: u64,
}

/// A graph's edges, wherever they are.
pub trait EdgeStore: Sync {
    /// The counts, flags and permutation of the graph.
    fn facts(&self) -> &GraphFacts;
    /// Number of vertices.
    fn num_vertices(&self) -> usize {
        self.facts().vertices
    }
    /// Stored out-arcs (an undirected edge counts twice).
    fn num_arcs(&self) -> u64 {
        self.facts().arcs
    }
    /// Whether in-lists differ from out-lists.
    fn directed(&self) -> bool {
        self.facts().directed
    }
    /// Vertices whose lists hold themselves: kernels about paths, triangles and cores
    /// leave those entries out.
    fn self_loops(&self) -> u64 {
        self.facts().self_loops
    }
    /// Whether lists carry weights.
    fn weighted(&self) -> bool {
        self.facts().weighted
    }
    /// The tier's name for reports (`dram`, `mmap`, `direct`).
    fn tier(&self) -> &'static str;
    /// Where each list of `direction` starts in its section, plus where the last ends:
    /// warm data, in memory on every tier, so a kernel may read degrees in a tight loop.
    fn offsets(&self, direction: EdgeDirection) -> OffsetSlice<'_>;
    /// Degree of `vertex` in `direction`.
    fn degree(&self, direction: EdgeDirection, vertex: u32) -> u32 {
        self.offsets(direction).degree(vertex as usize) as u32
    }
    /// New id → original id for reordered graphs.
    fn permutation(&self) -> Option<&[u32]> {
        self.facts().permutation.as_deref()
    }
    /// Calls `visit_block` for blocks of consecutive vertices that together cover
    /// `range` once, in parallel: the dense pass a hot kernel loop runs on.
    fn scan_blocks(
        &self,
        direction: EdgeDirection,
        range: Range<u32>,
        visit_block: &VisitBlock,
    ) -> Result<()>;
    /// Calls `visit` for every vertex in `range` with its list, in parallel.
    fn scan(&self, direction: EdgeDirection, range: Range<u32>, visit: &Visit) -> Result<()> {
        self.scan_blocks(direction, range, &per_vertex(visit))
    }
    /// Like [`EdgeStore::scan_blocks`], for a pass that needs only part of the lists
    /// ([`ListsNeeded`]): each list handed over holds at least what the pass needs of it
    /// (perhaps all of it), and the kernel takes what it needs. A disk tier then skips
    /// the pages of long lists that hold nothing the pass needs. Required, not defaulted
    /// to a scan, so that no tier or wrapper reads whole lists for it unawares.
    fn scan_partial(
        &self,
        direction: EdgeDirection,
        range: Range<u32>,
        needed: ListsNeeded<'_>,
        visit_block: &VisitBlock,
    ) -> Result<()>;
    /// Calls `visit` for each vertex in `vertices` with its list, in parallel and any order.
    fn gather(&self, direction: EdgeDirection, vertices: &[u32], visit: &Visit) -> Result<()>;
    /// Bytes of memory the store holds (graph sections resident in DRAM).
    fn resident_bytes(&self) -> u64;
    /// Whether list reads bypass the page cache (`O_DIRECT`); `None` for a tier that
    /// reads nothing while kernels run.
    fn direct_io(&self) -> Option<bool> {
        None
    }
    /// What the store has read so far (all zero for the dram tier).
    fn io_stats(&self) -> IoStats {
        IoStats::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn a_block_hands_out_each_list_relative_to_its_base() {
        // Section entries 10.. hold the lists of vertices 4, 5, 6: [7, 8], [], [9].
        let offsets = [10, 12, 12, 13];
        let neighbors = [1, 7, 8, 9];
        let weights = [0.5, 1.0, 2.0, 3.0];
        let block = ListBlock::new(4, &offsets, 9, &neighbors, Some(&weights));
        assert_eq!(block.vertices(), 4..7);
        let lists: Vec<(u32, Vec<u32>, Vec<f32>)> = block
            .iter()
            .map(|(vertex, list)| {
                (
                    vertex,
                    list.neighbors.to_vec(),
                    list.weights.unwrap().to_vec(),
                )
            })
            .collect();
        assert_eq!(
            lists,
            vec![
                (4, vec![7, 8], vec![1.0, 2.0]),
                (5, vec![], vec![]),
                (6, vec![9], vec![3.0])
            ]
        );
        assert_eq!(block.all_neighbors(), &[7, 8, 9]);
    }

    #[test]
    fn block_ranges_cover_a_range_once_in_order() {
        let blocks: Vec<Range<u32>> = block_ranges(5..1000, 256).collect();
        assert_eq!(blocks, vec![5..261, 261..517, 517..773, 773..1000]);
        assert_eq!(block_ranges(7..7, 256).count(), 0);
        let near_the_top: Vec<Range<u32>> = block_ranges(u32::MAX - 300..u32::MAX, 256).collect();
        assert_eq!(near_the_top.last().map(|r| r.end), Some(u32::MAX));
    }

    #[test]
    fn per_vertex_calls_the_visit_for_every_vertex_of_a_block() {
        let offsets = [0, 1, 3];
        let neighbors = [2, 0, 1];
        let seen = std::sync::Mutex::new(Vec::new());
        let visit = |vertex: u32, list: Adjacency<'_>| {
            seen.lock().unwrap().push((vertex, list.neighbors.len()));
        };
        per_vertex(&visit)(ListBlock::new(0, &offsets, 0, &neighbors, None));
        assert_eq!(*seen.lock().unwrap(), vec![(0, 1), (1, 2)]);
    }
}
