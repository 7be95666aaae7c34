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

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::Reads;
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
};
use crate::parameters::ParameterValues;
use crate::saved_state::{StateError, StateReader, StateWriter};
use rayon::prelude::*;
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, Result};

use crate::frontier::Bitmap;
use crate::property::{PropertyArrays, PropertyVec, property_vec};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: true,
    weights: false,
    out_heads: false,
};

/// |a ∩ b| for ascending lists: a branch-free merge when the sizes are alike (the
/// branches of a plain merge are mispredicted about half the time), binary search
/// of the longer list when one is far shorter.
fn intersection_size(a: &[u32], b: &[u32]) -> u64 {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.len() * 32 < long.len() {
        return short
            .iter()
            .filter(|w| long.binary_search(w).is_ok())
            .count() as u64;
    }
    let (mut i, mut j, mut count) = (0, 0, 0u64);
    while i < short.len() && j < long.len() {
        let (x, y) = (short[i], long[j]);
        count += (x == y) as u64;
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
    count
}

/// Calls `found(i, j)` for each entry `mine[i] == theirs[j]` of two ascending lists (the
/// per-vertex counts tally by `i`, clustering also reads `j`'s mark): a
/// merge when their sizes are alike, binary search of the longer when one is far shorter.
pub(crate) fn each_common(mine: &[u32], theirs: &[u32], mut found: impl FnMut(usize, usize)) {
    if mine.len() * 32 < theirs.len() {
        for (i, entry) in mine.iter().enumerate() {
            if let Ok(j) = theirs.binary_search(entry) {
                found(i, j);
            }
        }
        return;
    }
    if theirs.len() * 32 < mine.len() {
        for (j, entry) in theirs.iter().enumerate() {
            if let Ok(i) = mine.binary_search(entry) {
                found(i, j);
            }
        }
        return;
    }
    let (mut i, mut j) = (0, 0);
    while i < mine.len() && j < theirs.len() {
        let (x, y) = (mine[i], theirs[j]);
        if x == y {
            found(i, j);
        }
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
}

/// Counts triangles.
pub fn triangle_count(store: &dyn EdgeStore) -> Result<u64> {
    let mut state = TriangleCount.start(store, &KernelOptions::default())?;
    while TriangleCount.step(store, &mut state)? == Step::More {}
    Ok(TriangleCount.finish(state))
}

/// Each vertex's higher-ranked neighbors (as ranks, sorted), back to back, and where
/// each rank's list starts (plus where the last ends).
pub(crate) struct OrientedLists {
    higher: Vec<u32>,
    offsets: Vec<u64>,
    /// The vertex of each rank, when asked to keep it (empty otherwise).
    pub(crate) vertex_of_rank: Vec<u32>,
    /// A bit per entry of `higher`: whether the pair is linked both ways (arcs u -> w
    /// and w -> u of a directed graph), when asked for (empty otherwise).
    reciprocal: Vec<u64>,
    /// The ranks whose vertex has a self-loop, when asked for and the graph has any.
    self_looped: Option<Bitmap>,
}

impl OrientedLists {
    /// Whether the vertex of `rank` has a self-loop (false unless the lists were built
    /// with [`ViewKeeps::self_loops`]).
    pub(crate) fn self_looped(&self, rank: u32) -> bool {
        self.self_looped
            .as_ref()
            .is_some_and(|looped| looped.contains(rank))
    }

    /// Whether the entry at `position` of `rank`'s list links both ways (false unless
    /// the lists were built with [`ViewKeeps::reciprocal`]).
    pub(crate) fn reciprocal(&self, rank: u32, position: usize) -> bool {
        bit(
            &self.reciprocal,
            self.offsets[rank as usize] as usize + position,
        )
    }

    /// The list of `rank`.
    pub(crate) fn list(&self, rank: u32) -> &[u32] {
        &self.higher[self.offsets[rank as usize] as usize..self.offsets[rank as usize + 1] as usize]
    }

    /// Triangles r < s < t (by rank) whose lowest rank r is in `ranks`, each once: t in
    /// H(r) ∩ H(s) for s in H(r). Every t in H(s) ranks above s, so only the part of
    /// H(r) after s can match.
    fn count(&self, ranks: std::ops::Range<u32>) -> u64 {
        ranks
            .into_par_iter()
            .with_min_len(64)
            .map(|rank| {
                let mine = self.list(rank);
                mine.iter()
                    .enumerate()
                    .map(|(position, &s)| intersection_size(&mine[position + 1..], self.list(s)))
                    .sum::<u64>()
            })
            .sum()
    }
}

/// Counting steps a run takes after building the oriented lists: each counts the
/// triangles of a block of ranks.
const COUNT_STEPS: u32 = 64;

/// One step of a count over the oriented lists, for tc and the per-vertex triangles:
/// the first builds them (keeping what `keeps` asks for); each after it
/// hands the next block of ranks to `count`, which returns the triangles it found.
pub(crate) fn counting_step(
    store: &dyn EdgeStore,
    arrays: &PropertyArrays,
    oriented: &mut Option<OrientedLists>,
    keeps: ViewKeeps,
    counted: &mut u32,
    triangles: &mut u64,
    count: impl FnOnce(&OrientedLists, std::ops::Range<u32>) -> u64,
) -> Result<Step> {
    let vertices = store.num_vertices() as u32;
    let Some(lists) = oriented.as_ref() else {
        *oriented = Some(oriented_lists(store, arrays, keeps)?);
        return Ok(match vertices {
            0 => Step::Done,
            _ => Step::More,
        });
    };
    let block = vertices.div_ceil(COUNT_STEPS).max(1);
    let end = counted.saturating_add(block).min(vertices);
    *triangles += count(lists, *counted..end);
    *counted = end;
    Ok(match end < vertices {
        true => Step::More,
        false => Step::Done,
    })
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

/// Bit `index` of `bits` (false past their end; entries may number more than a
/// [`Bitmap`]'s `u32` vertices).
fn bit(bits: &[u64], index: usize) -> bool {
    bits.get(index / 64)
        .is_some_and(|word| word & (1 << (index % 64)) != 0)
}

/// Sets bit `index` of `bits`.
fn set_bit(bits: &[AtomicU64], index: usize) {
    bits[index / 64].fetch_or(1 << (index % 64), Ordering::Relaxed);
}

/// What the oriented lists keep beyond the lists.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ViewKeeps {
    /// Which vertex has each rank.
    pub order: bool,
    /// Which entries link both ways (a directed graph's reciprocal arcs).
    pub reciprocal: bool,
    /// Which vertices have a self-loop (which the lists leave out, as every triangle
    /// count does).
    pub self_loops: bool,
}

/// The sorted entries both `a` and `b` (ascending) hold.
fn common(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (mut i, mut j, mut both) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            both.push(a[i]);
        }
        let (x, y) = (a[i], b[j]);
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
    both
}

/// Builds the oriented lists H(r): each vertex's neighbors in the undirected view that
/// rank above it by (degree, id), as ranks, sorted; and what `keeps` asks for. Its
/// arrays are made through `arrays`.
pub(crate) fn oriented_lists(
    store: &dyn EdgeStore,
    arrays: &PropertyArrays,
    keeps: ViewKeeps,
) -> Result<OrientedLists> {
    let vertices = store.num_vertices();
    let directed = store.directed();
    let all = 0..vertices as u32;
    let reciprocal = keeps.reciprocal && directed;
    // A directed graph's undirected view needs each vertex's in-list beside its out-list;
    // `visit` takes the view's list and, when asked for, the neighbors linked both ways.
    let view =
        |vertex: u32, out_list: &[u32], visit: &mut dyn FnMut(&[u32], &[u32])| -> Result<()> {
            if !directed {
                visit(out_list, &[]);
                return Ok(());
            }
            let in_list = Mutex::new(Vec::new());
            store.gather(EdgeDirection::In, &[vertex], &|_, list| {
                if let Ok(mut in_list) = in_list.lock() {
                    in_list.extend_from_slice(list.neighbors);
                }
            })?;
            let mut merged = in_list.into_inner().unwrap_or_default();
            let both = match reciprocal {
                true => common(&merged, out_list),
                false => Vec::new(),
            };
            merged.extend_from_slice(out_list);
            merged.sort_unstable();
            merged.dedup();
            visit(&merged, &both);
            Ok(())
        };
    let failure = Mutex::new(None);
    let remember = |result: Result<()>| {
        if let (Err(error), Ok(mut slot)) = (result, failure.lock()) {
            slot.get_or_insert(error);
        }
    };

    // Degrees in the undirected view (parallel arcs u->v and v->u count once).
    let degrees: Vec<u32> = if directed {
        let counted: PropertyVec<AtomicU32> = property_vec(arrays, vertices, || AtomicU32::new(0));
        store.scan(EdgeDirection::Out, all.clone(), &|vertex, list| {
            remember(view(vertex, list.neighbors, &mut |neighbors, _| {
                counted[vertex as usize].store(neighbors.len() as u32, Ordering::Relaxed)
            }));
        })?;
        counted.into_vec(|value| value.load(Ordering::Relaxed))
    } else {
        (0..vertices as u32)
            .into_par_iter()
            .map(|v| store.degree(EdgeDirection::Out, v))
            .collect()
    };

    // Rank: position in the order by (degree, id). Lists hold ranks, not ids, so that
    // "higher" is one comparison, every list is sorted by rank, and the lists of the
    // hubs, read most often, sit together at the end (GAP relabels for the same reason).
    let mut order: Vec<u32> = (0..vertices as u32).collect();
    order.par_sort_unstable_by_key(|&vertex| (degrees[vertex as usize], vertex));
    let rank_of: Vec<u32> = {
        let rank_of: PropertyVec<AtomicU32> = property_vec(arrays, vertices, || AtomicU32::new(0));
        order.par_iter().enumerate().for_each(|(rank, &vertex)| {
            rank_of[vertex as usize].store(rank as u32, Ordering::Relaxed)
        });
        rank_of.into_vec(|value| value.load(Ordering::Relaxed))
    };
    if !keeps.order {
        order = Vec::new();
    }
    drop(degrees);

    // Oriented lists H(r) by rank: count, prefix-sum into offsets, fill, sort.
    // The reciprocal ones among them go to lists of their own, RH(r), to mark them.
    let higher_counts: PropertyVec<AtomicU32> =
        property_vec(arrays, vertices, || AtomicU32::new(0));
    let both_counts: PropertyVec<AtomicU32> =
        property_vec(arrays, if reciprocal { vertices } else { 0 }, || {
            AtomicU32::new(0)
        });
    let above = |rank: u32, neighbors: &[u32]| -> Vec<u32> {
        let ranks = neighbors.iter().map(|&w| rank_of[w as usize]);
        ranks.filter(|&w| w > rank).collect()
    };
    // From the heap, as the clustering kernel declares it.
    let self_looped = (keeps.self_loops && store.self_loops() > 0)
        .then(|| Bitmap::new(&PropertyArrays::default(), vertices));
    store.scan(EdgeDirection::Out, all.clone(), &|u, list| {
        remember(view(u, list.neighbors, &mut |neighbors, both| {
            let rank = rank_of[u as usize];
            if let Some(looped) = &self_looped
                && neighbors.binary_search(&u).is_ok()
            {
                looped.insert(rank);
            }
            let count = |list: &[u32]| list.iter().filter(|&&w| rank_of[w as usize] > rank).count();
            higher_counts[rank as usize].store(count(neighbors) as u32, Ordering::Relaxed);
            if reciprocal {
                both_counts[rank as usize].store(count(both) as u32, Ordering::Relaxed);
            }
        }));
    })?;
    let offsets = prefix_sums(&higher_counts);
    let both_offsets = prefix_sums(&both_counts);
    drop((higher_counts, both_counts));
    let total = offsets[vertices];
    let higher: PropertyVec<AtomicU32> = property_vec(arrays, total as usize, || AtomicU32::new(0));
    let both_total = both_offsets.last().copied().unwrap_or(0) as usize;
    let both_higher: PropertyVec<AtomicU32> =
        property_vec(arrays, both_total, || AtomicU32::new(0));
    store.scan(EdgeDirection::Out, all, &|u, list| {
        remember(view(u, list.neighbors, &mut |neighbors, both| {
            let rank = rank_of[u as usize];
            let start = offsets[rank as usize] as usize;
            for (slot, w) in above(rank, neighbors).into_iter().enumerate() {
                higher[start + slot].store(w, Ordering::Relaxed);
            }
            if reciprocal {
                let start = both_offsets[rank as usize] as usize;
                for (slot, w) in above(rank, both).into_iter().enumerate() {
                    both_higher[start + slot].store(w, Ordering::Relaxed);
                }
            }
        }));
    })?;
    if let Some(error) = failure.into_inner().ok().flatten() {
        return Err(error);
    }
    drop(rank_of);
    let mut higher: Vec<u32> = higher.into_vec(|value| value.load(Ordering::Relaxed));
    sort_each_list(&mut higher, &offsets);
    let reciprocal = match reciprocal {
        true => {
            let mut both: Vec<u32> = both_higher.into_vec(|value| value.load(Ordering::Relaxed));
            sort_each_list(&mut both, &both_offsets);
            mark_reciprocal(&higher, &offsets, &both, &both_offsets)
        }
        false => Vec::new(),
    };
    Ok(OrientedLists {
        higher,
        offsets,
        vertex_of_rank: order,
        reciprocal,
        self_looped,
    })
}

/// Where each of the lists `counts` counts starts, and where the last ends.
fn prefix_sums(counts: &[AtomicU32]) -> Vec<u64> {
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    offsets.push(0u64);
    let mut total = 0u64;
    for count in counts {
        total += count.load(Ordering::Relaxed) as u64;
        offsets.push(total);
    }
    offsets
}

/// A bit per entry of `higher`, set where the entry is also in the same rank's list of
/// `both` (a sorted subset of it).
fn mark_reciprocal(
    higher: &[u32],
    offsets: &[u64],
    both: &[u32],
    both_offsets: &[u64],
) -> Vec<u64> {
    let bits: Vec<AtomicU64> = (0..higher.len().div_ceil(64))
        .map(|_| AtomicU64::new(0))
        .collect();
    (0..offsets.len() - 1).into_par_iter().for_each(|rank| {
        let start = offsets[rank] as usize;
        let list = &higher[start..offsets[rank + 1] as usize];
        let linked = &both[both_offsets[rank] as usize..both_offsets[rank + 1] as usize];
        let mut position = 0;
        for &w in linked {
            while list[position] != w {
                position += 1;
            }
            set_bit(&bits, start + position);
        }
    });
    bits.into_iter().map(|word| word.into_inner()).collect()
}

/// Sorts each list `offsets[i] - offsets[0]..offsets[i + 1] - offsets[0]` of `values`,
/// in parallel by halving the lists (no per-list allocation).
fn sort_each_list(values: &mut [u32], offsets: &[u64]) {
    const SERIAL_LISTS: usize = 1024;
    let lists = offsets.len().saturating_sub(1);
    if lists <= SERIAL_LISTS {
        let base = offsets.first().copied().unwrap_or(0);
        for pair in offsets.windows(2) {
            values[(pair[0] - base) as usize..(pair[1] - base) as usize].sort_unstable();
        }
        return;
    }
    let middle = lists / 2;
    let (left, right) = values.split_at_mut((offsets[middle] - offsets[0]) as usize);
    rayon::join(
        || sort_each_list(left, &offsets[..=middle]),
        || sort_each_list(right, &offsets[middle..]),
    );
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
