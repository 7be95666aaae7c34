//! The k-truss of an undirected graph, as networkx's `k_truss` means it: the largest
//! subgraph in which every edge lies in at least k - 2 triangles of the subgraph, its
//! isolated vertices left out. Self-loops lie in no triangle and are left out.
//!
//! Output: the edges kept, each a pair of original ids, the smaller first, sorted.
//!
//! Each entry of the oriented lists (`oriented_lists.rs`), which is one edge, carries
//! its support (the triangles it lies in among the edges kept) and a bit that says it
//! is kept. The first round counts every edge's support. Each round after it drops,
//! all at once, every kept edge whose support is below k - 2, as networkx's rounds do,
//! and takes from the edges kept the triangles they lost: a dropped edge's triangles are
//! found from its two ends' whole lists (the lists of lower ranks, [`LowerLists`], kept
//! beside the oriented ones), and a triangle that lost more than one edge at once is
//! taken away once, by the dropped edge of least index. So the rounds after the first
//! cost what the triangles they drop cost, not a count each. The subgraph the rounds end
//! at does not depend on the order edges are dropped in (it is the union of every
//! subgraph in which each edge has k - 2 triangles), so the result is the same on every
//! tier and thread count.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeStore, Result};

use super::Reads;
use super::oriented_lists::{OrientedLists, ViewKeeps, bit, each_common, oriented_lists};
use crate::frontier::Bitmap;
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
    original_id,
};
use crate::parameters::{Parameter, ParameterKind, ParameterValues};
use crate::property::PropertyArrays;
use crate::saved_state::{StateError, StateReader, StateWriter};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: false,
    weights: false,
    out_heads: false,
};

/// Counting steps the supports take: each counts the triangles of a block of ranks.
const COUNT_STEPS: u32 = 64;

/// The parameters `ktruss` declares.
const PARAMETERS: &[Parameter] = &[Parameter {
    flag: "k",
    keyword: "k",
    help: "the order of the truss: every edge kept lies in at least k - 2 triangles of \
           the edges kept (k of 2 or less keeps every edge)",
    kind: ParameterKind::Count {
        min: 0,
        max: u32::MAX as u64,
    },
    default: Some("3"),
}];

/// What a k-truss run found.
pub struct TrussResult {
    /// The oriented lists, with the vertex of each rank.
    lists: OrientedLists,
    /// A bit per entry of the lists: whether its edge is kept.
    kept: Vec<u64>,
    /// The order of the truss.
    pub k: u32,
    /// Edges kept.
    pub edges: u64,
    /// Vertices with an edge kept.
    pub vertices: u64,
    /// Rounds of dropping taken.
    pub rounds: u32,
}

impl TrussResult {
    /// The kept edges of `rank`'s list, each as the internal ids of its ends.
    fn edges_of(&self, rank: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let start = self.lists.start(rank);
        let vertex = self.lists.vertex_of_rank[rank as usize];
        self.lists
            .list(rank)
            .iter()
            .enumerate()
            .filter(move |&(position, _)| bit(&self.kept, start + position))
            .map(move |(_, &other)| (vertex, self.lists.vertex_of_rank[other as usize]))
    }

    /// Every kept edge, each as the internal ids of its ends, in parallel.
    fn each_edge(&self) -> impl ParallelIterator<Item = (u32, u32)> + '_ {
        let ranks = self.lists.vertex_of_rank.len() as u32;
        (0..ranks)
            .into_par_iter()
            .flat_map_iter(move |rank| self.edges_of(rank))
    }
}

/// The k-truss's state between steps.
pub struct TrussState {
    /// `None` until the first step has built them.
    lists: Option<OrientedLists>,
    /// The lists of lower ranks, built with the oriented ones.
    lower: LowerLists,
    /// Per entry: the triangles its edge lies in among the kept edges.
    support: Vec<AtomicU32>,
    /// A bit per entry: whether its edge is kept.
    kept: Vec<AtomicU64>,
    /// The ranks whose edges' supports are counted are `0..counted`.
    counted: u32,
    /// Rounds of dropping finished.
    rounds: u32,
    /// The order of the truss.
    k: u32,
    /// Where the first step makes its arrays.
    arrays: PropertyArrays,
}

/// Each rank's neighbors of lower rank (those whose oriented list holds it), sorted:
/// with its oriented list, a vertex's whole list, in rank order.
#[derive(Default)]
struct LowerLists {
    lower: Vec<u32>,
    offsets: Vec<u64>,
}

impl LowerLists {
    /// The lower lists of `lists`: their transpose, filled in rank order, so sorted.
    fn of(lists: &OrientedLists) -> LowerLists {
        let ranks = lists.vertex_of_rank.len();
        let mut offsets = vec![0u64; ranks + 1];
        for rank in 0..ranks as u32 {
            for &higher in lists.list(rank) {
                offsets[higher as usize + 1] += 1;
            }
        }
        for rank in 0..ranks {
            offsets[rank + 1] += offsets[rank];
        }
        let mut next: Vec<u64> = offsets[..ranks].to_vec();
        let mut lower = vec![0u32; lists.entries()];
        for rank in 0..ranks as u32 {
            for &higher in lists.list(rank) {
                lower[next[higher as usize] as usize] = rank;
                next[higher as usize] += 1;
            }
        }
        LowerLists { lower, offsets }
    }

    /// The lower list of `rank`.
    fn list(&self, rank: u32) -> &[u32] {
        &self.lower[self.offsets[rank as usize] as usize..self.offsets[rank as usize + 1] as usize]
    }
}

/// The index of the edge between ranks `low < high`, if there is one.
fn edge(lists: &OrientedLists, low: u32, high: u32) -> Option<usize> {
    let position = lists.list(low).binary_search(&high).ok()?;
    Some(lists.start(low) + position)
}

/// Whether entry `index` is kept.
fn kept(words: &[AtomicU64], index: usize) -> bool {
    words[index / 64].load(Ordering::Relaxed) & (1 << (index % 64)) != 0
}

/// Every entry of `entries` kept.
fn all_kept(entries: usize) -> Vec<AtomicU64> {
    (0..entries.div_ceil(64))
        .map(|word| {
            let bits = (entries - word * 64).min(64);
            AtomicU64::new(if bits == 64 {
                u64::MAX
            } else {
                (1 << bits) - 1
            })
        })
        .collect()
}

/// Counts the triangles of the ranks `ranks`: each triangle `r < s < t` is found once,
/// from `r`, and adds one to the support of each of its three edges. The counts of r's
/// own entries add up in a buffer of the thread's and reach the shared supports once a
/// rank: only the edge `s t`, in another rank's list, takes an atomic add at once.
fn count_block(state: &TrussState, lists: &OrientedLists, ranks: std::ops::Range<u32>) {
    let support = &state.support;
    ranks
        .into_par_iter()
        .with_min_len(64)
        .for_each_init(Vec::new, |own: &mut Vec<u32>, r| {
            let mine = lists.list(r);
            own.clear();
            own.resize(mine.len(), 0);
            for (position, &s) in mine.iter().enumerate() {
                let (after, s_base) = (position + 1, lists.start(s));
                let mut rs = 0;
                each_common(&mine[after..], lists.list(s), |i, j| {
                    rs += 1;
                    own[after + i] += 1;
                    support[s_base + j].fetch_add(1, Ordering::Relaxed);
                });
                own[position] += rs;
            }
            let base = lists.start(r);
            for (position, &count) in own.iter().enumerate() {
                if count > 0 {
                    support[base + position].fetch_add(count, Ordering::Relaxed);
                }
            }
        });
}

/// One round: drops every kept edge whose support is below `need`, all at once, and
/// takes from each kept edge's support the triangles it lost; returns how many edges
/// it dropped.
///
/// A dropped edge `r s` (`r < s`) finds its triangles' third rank `t` above `s` in both
/// oriented lists, between them in r's oriented list and s's lower list, and below `r`
/// in both lower lists. A triangle counts if its edges were all kept as the round began
/// (kept, or dropped in it), and only from the dropped edge of least index among its own.
fn peel_round(state: &TrussState, lists: &OrientedLists, lower: &LowerLists, need: u32) -> u64 {
    let ranks = lists.vertex_of_rank.len() as u32;
    let (support, kept_bits) = (&state.support, &state.kept);
    let dropping: Vec<AtomicU64> = (0..kept_bits.len()).map(|_| AtomicU64::new(0)).collect();
    let dropped: u64 = (0..ranks)
        .into_par_iter()
        .with_min_len(64)
        .map(|r| {
            let base = lists.start(r);
            let mut dropped = 0;
            for entry in base..base + lists.list(r).len() {
                if kept(kept_bits, entry) && support[entry].load(Ordering::Relaxed) < need {
                    kept_bits[entry / 64].fetch_and(!(1 << (entry % 64)), Ordering::Relaxed);
                    dropping[entry / 64].fetch_or(1 << (entry % 64), Ordering::Relaxed);
                    dropped += 1;
                }
            }
            dropped
        })
        .sum();
    if dropped == 0 {
        return 0;
    }
    (0..ranks).into_par_iter().with_min_len(64).for_each(|r| {
        let (mine, base) = (lists.list(r), lists.start(r));
        for (position, &s) in mine.iter().enumerate() {
            let e = base + position;
            // An edge in no kept triangle takes none from any other.
            if !kept(&dropping, e) || support[e].load(Ordering::Relaxed) == 0 {
                continue;
            }
            let lose = |first: usize, second: usize| {
                let at_start = |x: usize| kept(kept_bits, x) || kept(&dropping, x);
                let before = |x: usize| kept(&dropping, x) && x < e;
                if !at_start(first) || !at_start(second) || before(first) || before(second) {
                    return;
                }
                for x in [first, second] {
                    if kept(kept_bits, x) {
                        support[x].fetch_sub(1, Ordering::Relaxed);
                    }
                }
            };
            let s_base = lists.start(s);
            each_common(&mine[position + 1..], lists.list(s), |i, j| {
                lose(e + 1 + i, s_base + j)
            });
            each_common(&mine[..position], lower.list(s), |i, _| {
                if let Some(ts) = edge(lists, mine[i], s) {
                    lose(base + i, ts);
                }
            });
            let below = lower.list(r);
            each_common(below, lower.list(s), |i, _| {
                if let (Some(tr), Some(ts)) = (edge(lists, below[i], r), edge(lists, below[i], s)) {
                    lose(tr, ts);
                }
            });
        }
    });
    dropped
}

/// The k-truss as the runner drives it.
pub struct KTruss;

impl KTruss {
    /// The state once the lists are built: every edge kept, none counted.
    fn fresh(lists: OrientedLists, arrays: &PropertyArrays, k: u32) -> TrussState {
        TrussState {
            support: (0..lists.entries()).map(|_| AtomicU32::new(0)).collect(),
            kept: all_kept(lists.entries()),
            lower: LowerLists::of(&lists),
            lists: Some(lists),
            counted: 0,
            rounds: 0,
            k,
            arrays: arrays.clone(),
        }
    }
}

/// The keeps of the lists: the vertex of each rank, to name the edges kept.
const KEEPS: ViewKeeps = ViewKeeps {
    order: true,
    reciprocal: false,
    self_loops: false,
    weights: false,
};

impl Kernel for KTruss {
    type State = TrussState;
    type Result = TrussResult;
    type Parameters = u32;

    const INFO: KernelInfo = KernelInfo {
        name: "ktruss",
        about: "The k-truss (networkx's k_truss): the edges kept when each lies in at least \
                k - 2 triangles of the edges kept",
        reads: READS,
        column: Column {
            name: "edge",
            vertices: true,
        },
        result: ResultKind::Edges,
        takes_source: false,
        searches: false,
        verifier_copies_lists: false,
        deterministic: true,
        every_vertex_a_source: false,
        undirected_only: true,
        counts_self_loops: false,
        parameters: PARAMETERS,
    };

    fn parameters(&self, values: &ParameterValues) -> u32 {
        values.count("k").unwrap_or(3) as u32
    }
    fn memory(&self, shape: GraphShape) -> KernelMemory {
        let vertices = shape.vertices;
        let edges = if shape.directed {
            shape.arcs
        } else {
            shape.arcs / 2
        };
        let kept_bytes = edges.div_ceil(64) * 8;
        KernelMemory {
            // One array of counts or ranks at a time while the lists are built (4).
            hot_arrays: vec![4 * vertices],
            // Building: degrees (4), the other of counts or ranks (4), offsets (8) and
            // the vertex of each rank (4); the oriented and lower lists (4 an edge
            // each), the lower lists' offsets (8) and, while they are filled, where each
            // is filled to (8); each edge's support (4), kept bit, and, in a round, the
            // bit of the edges it drops.
            working_bytes: 36 * vertices + 12 * edges + 2 * kept_bytes,
            // The serial peeling's copy of the lists (4 an arc), offsets (8 a vertex),
            // each arc's support (4) and state (1), and a queue of edges (8 each).
            verifier_bytes: 8 * (vertices + 1) + 13 * shape.arcs,
            // The lists, their offsets, the vertex of each rank and the kept bits.
            result_edge_bytes: 4 * edges + 12 * (vertices + 1) + kept_bytes,
            // Two u32 ids an edge kept (front ends widen them as they write them).
            output_edge_bytes: 8 * edges,
            ..KernelMemory::default()
        }
    }
    fn start(&self, _store: &dyn EdgeStore, options: &KernelOptions<u32>) -> Result<TrussState> {
        Ok(TrussState {
            lists: None,
            support: Vec::new(),
            kept: Vec::new(),
            lower: LowerLists::default(),
            counted: 0,
            rounds: 0,
            k: options.parameters,
            arrays: options.arrays.clone(),
        })
    }
    /// The first step builds the lists; each after it counts the supports of a block of
    /// ranks until all are counted, and then each is a round of dropping.
    fn step(&self, store: &dyn EdgeStore, state: &mut TrussState) -> Result<Step> {
        let Some(lists) = state.lists.take() else {
            let lists = oriented_lists(store, &state.arrays, KEEPS)?;
            *state = KTruss::fresh(lists, &state.arrays, state.k);
            return Ok(Step::More);
        };
        let need = state.k.saturating_sub(2);
        let ranks = lists.vertex_of_rank.len() as u32;
        let step = if need == 0 || lists.entries() == 0 {
            Step::Done
        } else if state.counted < ranks {
            let end = state
                .counted
                .saturating_add(ranks.div_ceil(COUNT_STEPS))
                .min(ranks);
            count_block(state, &lists, state.counted..end);
            state.counted = end;
            Step::More
        } else if peel_round(state, &lists, &state.lower, need) == 0 {
            Step::Done
        } else {
            state.rounds += 1;
            Step::More
        };
        state.lists = Some(lists);
        Ok(step)
    }
    /// The lists are not saved: they are the graph's, rebuilt on restore.
    fn save(&self, state: &mut TrussState, out: &mut StateWriter) -> std::io::Result<()> {
        out.number("built", state.lists.is_some() as u64)?;
        out.array("support", &state.support)?;
        out.array("kept", &state.kept)?;
        out.number("counted", state.counted as u64)?;
        out.number("rounds", state.rounds as u64)
    }
    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<u32>,
        saved: &mut StateReader,
    ) -> std::result::Result<TrussState, StateError> {
        if saved.number_at_most("built", 1)? == 0 {
            return Ok(self.start(store, options)?);
        }
        let lists = oriented_lists(store, &options.arrays, KEEPS)?;
        let state = KTruss::fresh(lists, &options.arrays, options.parameters);
        saved.fill("support", &state.support)?;
        saved.fill("kept", &state.kept)?;
        let ranks = store.num_vertices() as u64;
        Ok(TrussState {
            counted: saved.number_at_most("counted", ranks)? as u32,
            rounds: saved.number_at_most("rounds", u32::MAX as u64)? as u32,
            ..state
        })
    }
    fn finish(&self, state: TrussState) -> TrussResult {
        drop((state.lower, state.support));
        let kept: Vec<u64> = state.kept.into_iter().map(AtomicU64::into_inner).collect();
        let lists = state.lists.unwrap_or_default();
        let mut result = TrussResult {
            edges: kept.iter().map(|word| word.count_ones() as u64).sum(),
            lists,
            kept,
            k: state.k,
            vertices: 0,
            rounds: state.rounds,
        };
        // The vertices of the truss: those with an edge kept (the lower lists' memory,
        // released just before, holds their bitmap).
        let ends = Bitmap::new(
            &PropertyArrays::default(),
            result.lists.vertex_of_rank.len(),
        );
        result.each_edge().for_each(|(u, v)| {
            ends.insert(u);
            ends.insert(v);
        });
        result.vertices = ends.sum_over(|_| 1);
        result
    }
    fn summary(
        &self,
        result: &TrussResult,
        _: &KernelOptions<u32>,
        _: &dyn Fn(u32) -> u64,
    ) -> Value {
        json!({
            "k": result.k,
            "edges": result.edges,
            "vertices": result.vertices,
            "rounds": result.rounds,
        })
    }
    fn verify(
        &self,
        graph: &GraphFile,
        _options: &KernelOptions<u32>,
        result: &TrussResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        verify(graph, result)
    }
    fn output(&self, result: TrussResult, permutation: Option<&[u32]>) -> Output {
        // Filled in place to its known length: a parallel collect of an unindexed
        // iterator would hold its pieces and the whole at once, twice the output.
        let mut edges: Vec<[u32; 2]> = Vec::with_capacity(result.edges as usize);
        let ranks = result.lists.vertex_of_rank.len() as u32;
        edges.extend(
            (0..ranks)
                .flat_map(|rank| result.edges_of(rank))
                .map(|(u, v)| {
                    let (u, v) = (original_id(permutation, u), original_id(permutation, v));
                    [u.min(v), u.max(v)]
                }),
        );
        edges.par_sort_unstable();
        Output::Edges(edges)
    }
}

/// Where an edge stands in the serial peeling.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Peeled {
    /// In the truss so far.
    In,
    /// Short of triangles, waiting to be dropped (its triangles still count).
    Queued,
    /// Dropped.
    Out,
}

/// Peels the file's graph serially, one edge at a time from a queue (not in rounds, as
/// the kernel does), and compares the edges left with `result`'s.
///
/// Each arc `u -> v` with `u < v` stands for its edge: its support and state are at the
/// arc's index. Dropping an edge takes one from the support of the two other edges of
/// each triangle it still makes with edges not dropped, so each triangle is taken away
/// once, by the first of its edges to go.
fn verify(graph: &GraphFile, result: &TrussResult) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    // The lists, each sorted, each neighbor once, self-loops left out.
    let mut offsets = Vec::with_capacity(vertices + 1);
    let mut neighbors = Vec::with_capacity(graph.num_arcs());
    offsets.push(0usize);
    for v in 0..vertices {
        let start = neighbors.len();
        for &w in graph.out_neighbors_of(v).iter() {
            if w as usize != v && neighbors[start..].last() != Some(&w) {
                neighbors.push(w);
            }
        }
        offsets.push(neighbors.len());
    }
    let list = |v: u32| &neighbors[offsets[v as usize]..offsets[v as usize + 1]];
    // The index of edge {u, v}: its arc from the smaller end.
    let index = |u: u32, v: u32| -> Option<usize> {
        let (low, high) = (u.min(v), u.max(v));
        let position = list(low).binary_search(&high).ok()?;
        Some(offsets[low as usize] + position)
    };
    let mut support = vec![0u32; neighbors.len()];
    for u in 0..vertices as u32 {
        for (position, &v) in list(u).iter().enumerate() {
            if v < u {
                continue;
            }
            let uv = offsets[u as usize] + position;
            each_common(list(u), list(v), |i, j| {
                let w = list(u)[i];
                if w > v {
                    support[uv] += 1;
                    support[offsets[u as usize] + i] += 1;
                    support[offsets[v as usize] + j] += 1;
                }
            });
        }
    }
    let need = result.k.saturating_sub(2);
    let mut state = vec![Peeled::In; neighbors.len()];
    let mut queue: Vec<(u32, u32)> = Vec::new();
    for u in 0..vertices as u32 {
        for (position, &v) in list(u).iter().enumerate() {
            let uv = offsets[u as usize] + position;
            if v > u && support[uv] < need {
                state[uv] = Peeled::Queued;
                queue.push((u, v));
            }
        }
    }
    while let Some((u, v)) = queue.pop() {
        let Some(uv) = index(u, v) else { continue };
        state[uv] = Peeled::Out;
        let mut others = Vec::new();
        each_common(list(u), list(v), |i, _| others.push(list(u)[i]));
        for w in others {
            let (Some(uw), Some(vw)) = (index(u, w), index(v, w)) else {
                continue;
            };
            if state[uw] == Peeled::Out || state[vw] == Peeled::Out {
                continue;
            }
            for (edge, (a, b)) in [(uw, (u, w)), (vw, (v, w))] {
                support[edge] -= 1;
                if support[edge] < need && state[edge] == Peeled::In {
                    state[edge] = Peeled::Queued;
                    queue.push((a.min(b), a.max(b)));
                }
            }
        }
    }
    let kept = result
        .each_edge()
        .map(|(u, v)| match index(u, v) {
            Some(edge) if state[edge] == Peeled::In => Ok(1u64),
            Some(_) => Err(format!(
                "the truss keeps edge {u}-{v}, which a serial peeling drops"
            )),
            None => Err(format!("the truss keeps {u}-{v}, which is no edge")),
        })
        .try_reduce(|| 0, |a, b| Ok(a + b))?;
    // Each edge once: the arcs from the smaller end.
    let expected = (0..vertices as u32)
        .map(|u| {
            let start = offsets[u as usize];
            list(u)
                .iter()
                .enumerate()
                .filter(|&(position, &v)| v > u && state[start + position] == Peeled::In)
                .count() as u64
        })
        .sum::<u64>();
    match kept == expected {
        true => Ok(()),
        false => Err(format!(
            "the truss keeps {kept} edges but a serial peeling keeps {expected}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use swapless_build::importers::ImportOptions;
    use swapless_store::DramStore;

    /// The k-truss as networkx finds it: rounds that drop, all at once, every edge with
    /// fewer than k - 2 triangles among the edges left.
    fn reference(edges: &BTreeSet<(u32, u32)>, k: u32) -> BTreeSet<(u32, u32)> {
        let mut left = edges.clone();
        loop {
            let linked = |a: u32, b: u32| left.contains(&(a.min(b), a.max(b)));
            let vertices: BTreeSet<u32> = left.iter().flat_map(|&(u, v)| [u, v]).collect();
            let weak: Vec<(u32, u32)> = left
                .iter()
                .copied()
                .filter(|&(u, v)| {
                    let triangles = vertices
                        .iter()
                        .filter(|&&w| linked(u, w) && linked(v, w))
                        .count() as u32;
                    triangles < k.saturating_sub(2)
                })
                .collect();
            if weak.is_empty() {
                return left;
            }
            for edge in weak {
                left.remove(&edge);
            }
        }
    }

    /// The truss of order `k` of the undirected graph of `text`, as the kernel finds it
    /// and checks it, in the input's ids.
    fn truss(text: &str, k: u32) -> (BTreeSet<(u32, u32)>, TrussResult, GraphFile) {
        let dir = tempfile::tempdir().unwrap();
        let options = ImportOptions {
            undirected: true,
            weighted: false,
            ids: swapless_build::ids::IdMode::Dense,
        };
        let graph = super::super::text_graph(&dir, text, options);
        let store = DramStore::load(&dir.path().join("g.sl"), true, true).unwrap();
        let options = KernelOptions {
            parameters: k,
            ..KernelOptions::default()
        };
        let mut state = KTruss.start(&store, &options).unwrap();
        while KTruss.step(&store, &mut state).unwrap() == Step::More {}
        let result = KTruss.finish(state);
        assert_eq!(KTruss.verify(&graph, &options, &result, u64::MAX), Ok(()));
        let kept = result
            .each_edge()
            .map(|(u, v)| (u.min(v), u.max(v)))
            .collect();
        (kept, result, graph)
    }

    #[test]
    fn two_cliques_joined_by_an_edge_keep_their_edges_but_not_the_bridge() {
        // Two K4s, 0-3 and 4-7, joined by 3-4; 8 hangs off 7.
        let mut text = String::new();
        for base in [0, 4] {
            for u in base..base + 4 {
                for v in u + 1..base + 4 {
                    text.push_str(&format!("{u} {v}\n"));
                }
            }
        }
        text.push_str("3 4\n7 8\n");
        let cliques: BTreeSet<(u32, u32)> = (0..8u32)
            .flat_map(|u| (u + 1..8).map(move |v| (u, v)))
            .filter(|&(u, v)| u / 4 == v / 4)
            .collect();
        for (k, expected) in [(2, 14), (3, 12), (4, 12), (5, 0)] {
            let (kept, result, _) = truss(&text, k);
            assert_eq!(kept.len(), expected, "k = {k}");
            if expected == 12 {
                assert_eq!(kept, cliques);
                assert_eq!(result.vertices, 8);
            }
        }
    }

    #[test]
    fn random_graphs_peel_as_networkx_rounds_do() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for (vertices, edges) in [
            (12, 40),
            (30, 150),
            (60, 500),
            (40, 600),
            (25, 250),
            (90, 1800),
        ] {
            let mut set = BTreeSet::new();
            let mut text = String::new();
            for _ in 0..edges {
                let (u, v) = ((next() % vertices) as u32, (next() % vertices) as u32);
                text.push_str(&format!("{u} {v}\n"));
                if u != v {
                    set.insert((u.min(v), u.max(v)));
                }
            }
            for k in 0..9 {
                let (kept, _, _) = truss(&text, k);
                assert_eq!(kept, reference(&set, k), "{vertices} vertices, k = {k}");
            }
        }
    }

    #[test]
    fn the_verifier_refuses_a_kept_edge_the_peeling_drops_and_a_dropped_one_it_keeps() {
        // A triangle 0-1-2 with 2-3: the 3-truss is the triangle.
        let text = "0 1\n1 2\n0 2\n2 3\n";
        let (_, mut result, graph) = truss(text, 3);
        let options = KernelOptions {
            parameters: 3,
            ..KernelOptions::default()
        };
        let entries = result.lists.entries();
        for entry in 0..entries {
            result.kept[entry / 64] ^= 1 << (entry % 64);
            assert!(KTruss.verify(&graph, &options, &result, u64::MAX).is_err());
            result.kept[entry / 64] ^= 1 << (entry % 64);
        }
        assert_eq!(KTruss.verify(&graph, &options, &result, u64::MAX), Ok(()));
    }
}
