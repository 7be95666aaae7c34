//! Triangle counting on the undirected view of the graph, each triangle counted
//! once, with edges oriented from lower to higher rank (degree, then id) so that
//! every vertex keeps at most about sqrt(2m) "higher" neighbors and hubs do the
//! least work (the classic O(m^1.5) algorithm; GAP relabels by degree for the
//! same reason).
//!
//! Output: the number of triangles.
//!
//! Scans build the oriented lists `H(r)` (higher-ranked neighbors, as ranks, sorted)
//! in memory, m/2 entries; then each triangle `r < s < t` (by rank) is found once as
//! `t ∈ H(r) ∩ H(s)` for `s ∈ H(r)`.

use super::Reads;
use super::oriented_lists::{OrientedLists, ViewKeeps, counting_step, oriented_lists};
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
};
use crate::parameters::ParameterValues;
use crate::saved_state::{StateError, StateReader, StateWriter};
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeStore, Result};

use crate::property::PropertyArrays;

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: true,
    weights: false,
    out_heads: false,
};

/// Counts triangles.
pub fn triangle_count(store: &dyn EdgeStore) -> Result<u64> {
    let mut state = TriangleCount.start(store, &KernelOptions::default())?;
    while TriangleCount.step(store, &mut state)? == Step::More {}
    Ok(TriangleCount.finish(state))
}

/// Triangle counting's state between steps.
pub struct TriangleState {
    /// `None` until the first step has built them.
    oriented: Option<OrientedLists>,
    /// The ranks counted so far are `0..counted`.
    counted: u32,
    triangles: u64,
    /// Where the first step makes its arrays.
    arrays: PropertyArrays,
}

/// Counts triangles serially on the file's undirected view and compares.
pub fn verify(
    graph: &GraphFile,
    triangles: u64,
    block_bytes: u64,
) -> std::result::Result<(), String> {
    let mut reference = 0u64;
    each_triangle(graph, block_bytes, |_, _, _| reference += 1);
    if reference == triangles {
        Ok(())
    } else {
        Err(format!(
            "counted {triangles} triangles but the serial count is {reference}"
        ))
    }
}

/// Calls `found(u, v, w)` serially for each triangle of the file's undirected view,
/// once, as u < v < w by id. Each vertex's undirected list is merged from its out- and
/// in-list where it is read.
///
/// Of a triangle, the middle vertex v holds w among the ids above it, and u holds both.
/// The middle vertices go in blocks whose ids above them fit `block_bytes` (at least one
/// vertex a block), copied once into memory; then each vertex u below the block's last
/// stamps the ids above it and counts, for each middle vertex of the block among them,
/// its stamped ids. Every list is read in file order, once a block: reading the middle
/// vertices' lists as the count came to them, at random, faulted the pages of a verifier
/// under a budget in again and again (checking took many times the run).
pub(crate) fn each_triangle(
    graph: &GraphFile,
    block_bytes: u64,
    mut found: impl FnMut(u32, u32, u32),
) {
    let directed = graph.flags().directed;
    let vertices = graph.num_vertices();
    // A vertex's lists in the undirected view: its out-list and, on a directed graph,
    // its in-list (both sorted).
    let lists = |v: usize| match directed {
        true => (graph.out_neighbors_of(v), graph.in_neighbors_of(v)),
        false => (
            graph.out_neighbors_of(v),
            std::borrow::Cow::Borrowed(&[][..]),
        ),
    };
    // Bytes of a block: its ids above their vertices (4 each) and where each ends (8).
    let entries = graph.num_arcs() * if directed { 2 } else { 1 };
    let mut block_lists: Vec<u32> = Vec::with_capacity(entries.min(block_bytes as usize / 4));
    let mut block_ends: Vec<usize> = Vec::new();
    let mut stamp = vec![u32::MAX; vertices];
    let mut start = 0;
    while start < vertices {
        block_lists.clear();
        block_ends.clear();
        let mut end = start;
        while end < vertices {
            let before = block_lists.len();
            let (first, second) = lists(end);
            block_lists.extend(above((&first, &second), end as u32));
            let bytes = block_lists.len() * 4 + (block_ends.len() + 1) * 8;
            if end > start && bytes as u64 > block_bytes {
                block_lists.truncate(before);
                break;
            }
            block_ends.push(block_lists.len());
            end += 1;
        }
        let middle = start as u32..end as u32;
        let block_list = |v: u32| {
            let index = (v - middle.start) as usize;
            let from = if index == 0 { 0 } else { block_ends[index - 1] };
            &block_lists[from..block_ends[index]]
        };
        for u in 0..end.saturating_sub(1) {
            // u's ids in the block, found by binary search (ids above u and above the
            // vertex before the block).
            let from = (u as u32).max(middle.start.saturating_sub(1));
            let (first, second) = lists(u);
            let mut in_block = above((&first, &second), from)
                .take_while(|&v| v < middle.end)
                .peekable();
            if in_block.peek().is_none() {
                continue;
            }
            // Stamps from an earlier block's pass are u's own ids above it, the same.
            for v in above((&first, &second), u as u32) {
                stamp[v as usize] = u as u32;
            }
            for v in in_block {
                for &w in block_list(v) {
                    if stamp[w as usize] == u as u32 {
                        found(u as u32, v, w);
                    }
                }
            }
        }
        start = end;
    }
}

/// The ids above `v` in a vertex's two sorted lists, in order, each once.
fn above<'a>((first, second): (&'a [u32], &'a [u32]), v: u32) -> SortedUnion<'a> {
    let from = |list: &[u32]| list.partition_point(|&w| w <= v);
    SortedUnion {
        first: &first[from(first)..],
        second: &second[from(second)..],
        last: None,
    }
}

/// The ids of two sorted lists in order, each once (lists may repeat an id: parallel
/// edges, or an edge stored in both directions).
struct SortedUnion<'a> {
    first: &'a [u32],
    second: &'a [u32],
    /// The id handed out last.
    last: Option<u32>,
}

impl Iterator for SortedUnion<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        loop {
            let next = match (self.first.split_first(), self.second.split_first()) {
                (Some((&x, rest)), Some((&y, _))) if x <= y => {
                    self.first = rest;
                    x
                }
                (_, Some((&y, rest))) => {
                    self.second = rest;
                    y
                }
                (Some((&x, rest)), None) => {
                    self.first = rest;
                    x
                }
                (None, None) => return None,
            };
            if Some(next) != self.last {
                self.last = Some(next);
                return Some(next);
            }
        }
    }
}

/// Triangle counting as the runner drives it.
pub struct TriangleCount;

impl Kernel for TriangleCount {
    type State = TriangleState;
    type Result = u64;
    type Parameters = ();

    const INFO: KernelInfo = KernelInfo {
        name: "tc",
        about: "Triangle count on the undirected view: a number",
        reads: READS,
        column: Column {
            name: "value",
            vertices: false,
        },
        result: ResultKind::Number,
        takes_source: false,
        searches: false,
        verifier_copies_lists: true,
        deterministic: true,
        every_vertex_a_source: false,
        undirected_only: false,
        counts_self_loops: false,
        parameters: &[],
    };

    fn parameters(&self, _values: &ParameterValues) {}
    fn memory(&self, shape: GraphShape) -> KernelMemory {
        let vertices = shape.vertices;
        // One entry (4) per edge of the undirected view: half the arcs of an undirected
        // graph, but perhaps every arc of a directed one.
        let view_edges = if shape.directed {
            shape.arcs
        } else {
            shape.arcs / 2
        };
        KernelMemory {
            // One array of counts or ranks at a time (4).
            hot_arrays: vec![4 * vertices],
            // Degrees (4), the other of counts or ranks (4), oriented offsets (8), and
            // the oriented lists, which are edge data made from the heap.
            working_bytes: 12 * vertices + 4 * view_edges,
            // The verifier's stamps.
            verifier_bytes: 4 * vertices,
            ..KernelMemory::default()
        }
    }
    fn start(&self, _store: &dyn EdgeStore, options: &KernelOptions<()>) -> Result<TriangleState> {
        Ok(TriangleState {
            oriented: None,
            counted: 0,
            triangles: 0,
            arrays: options.arrays.clone(),
        })
    }
    /// The first step builds the oriented lists; each after it counts a block of ranks.
    fn step(&self, store: &dyn EdgeStore, state: &mut TriangleState) -> Result<Step> {
        counting_step(
            store,
            &state.arrays,
            &mut state.oriented,
            ViewKeeps::default(),
            &mut state.counted,
            &mut state.triangles,
            |oriented, ranks| oriented.count(ranks),
        )
    }
    /// The oriented lists are not saved: they are the graph's, rebuilt on restore.
    fn save(&self, state: &mut TriangleState, out: &mut StateWriter) -> std::io::Result<()> {
        out.number("counted", state.counted as u64)?;
        out.number("triangles", state.triangles)
    }
    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<()>,
        saved: &mut StateReader,
    ) -> std::result::Result<TriangleState, StateError> {
        let counted = saved.number_at_most("counted", store.num_vertices() as u64)? as u32;
        let triangles = saved.number("triangles")?;
        Ok(TriangleState {
            oriented: Some(oriented_lists(
                store,
                &options.arrays,
                ViewKeeps::default(),
            )?),
            counted,
            triangles,
            arrays: options.arrays.clone(),
        })
    }
    fn finish(&self, state: TriangleState) -> u64 {
        state.triangles
    }
    fn summary(&self, result: &u64, _: &KernelOptions<()>, _: &dyn Fn(u32) -> u64) -> Value {
        json!({"triangles": result})
    }
    fn verify(
        &self,
        graph: &GraphFile,
        _options: &KernelOptions<()>,
        result: &u64,
        block_bytes: u64,
    ) -> std::result::Result<(), String> {
        verify(graph, *result, block_bytes)
    }
    fn output(&self, _result: u64, _permutation: Option<&[u32]>) -> Output {
        Output::None
    }
}
