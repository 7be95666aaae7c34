//! Core numbers (k-core decomposition) on the undirected view of the graph, by parallel
//! peeling level by level (the bucketed peeling of Dhulipala, Blelloch and Shun's
//! Julienne, SPAA'17, with one bucket open at a time).
//!
//! Output: the core number per vertex (int64): the largest k such that the vertex
//! belongs to a subgraph in which every vertex has degree at least k. A vertex's degree
//! counts its out- and in-lists' entries (each arc once from each end, as networkx
//! counts a directed graph's), self-loops left out.
//!
//! Level k removes every vertex whose remaining degree is at most k, in sub-rounds:
//! each removed vertex takes one from the degree of each neighbor still in, and a
//! neighbor brought down to k is removed in the next sub-round. A sub-round's pushes go
//! through `edge_map`, so a few removed vertices gather their lists and many scan them.
//! The result does not depend on the order of removals, so it is the same on every tier
//! and thread count.
//!
//! The run also keeps the sub-round each vertex was removed in, a certificate the
//! verifier checks in one pass over the lists (see [`verify`]) rather than peeling again:
//! a serial peeling follows degrees, and through a map bounded by the budget it read
//! the lists of a graph larger than memory at random, again and again.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{Adjacency, EdgeDirection, EdgeStore, Result};

use super::Reads;
use crate::edge_map::{edge_map, edge_map_bytes};
use crate::frontier::{Bitmap, ThreadBuffers};
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
};
use crate::kernels::to_original_order;
use crate::parameters::ParameterValues;
use crate::property::{PropertyVec, property_vec};
use crate::saved_state::{StateError, StateReader, StateWriter};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: true,
    weights: false,
    out_heads: false,
};

/// What a core decomposition found.
pub struct CoreResult {
    /// The core number per vertex (internal ids).
    pub cores: Vec<u32>,
    /// The largest core number (the graph's degeneracy).
    pub degeneracy: u32,
    /// Levels peeled (distinct values of k with vertices removed).
    pub levels: u32,
    /// The sub-round of the peeling each vertex was removed in (internal ids), counted
    /// across levels: with the core numbers, what the verifier checks.
    pub removed_at: Vec<u32>,
}

/// Computes every vertex's core number.
pub fn core_numbers(store: &dyn EdgeStore) -> Result<CoreResult> {
    let mut state = CoreNumber.start(store, &KernelOptions::default())?;
    while CoreNumber.step(store, &mut state)? == Step::More {}
    Ok(CoreNumber.finish(state))
}

/// The peeling's state between levels.
pub struct CoreState {
    /// A vertex's remaining degree while it is in, its core number once removed.
    degrees: PropertyVec<AtomicU32>,
    /// The vertices removed.
    removed: Bitmap,
    /// The vertices still in (removed ones are dropped at the next level's start).
    remaining: Vec<u32>,
    /// The sub-round each removed vertex was removed in.
    removed_at: PropertyVec<AtomicU32>,
    /// Sub-rounds taken, over every level.
    sub_rounds: u32,
    /// The level peeled last.
    level: u32,
    levels: u32,
}

/// The directions whose lists make a vertex's neighbors in the undirected view.
fn directions(store: &dyn EdgeStore) -> &'static [EdgeDirection] {
    match store.directed() {
        true => &[EdgeDirection::Out, EdgeDirection::In],
        false => &[EdgeDirection::Out],
    }
}

/// How many entries of `neighbors` are not `vertex` itself.
fn entries_but_self(vertex: u32, neighbors: &[u32]) -> u32 {
    neighbors
        .iter()
        .filter(|&&neighbor| neighbor != vertex)
        .count() as u32
}

/// Peels one level: removes every vertex still in whose degree is at most the least
/// degree among them, and every vertex those removals bring down to it.
fn peel_level(store: &dyn EdgeStore, state: &mut CoreState) -> Result<Step> {
    let (degrees, removed, removed_at) = (&state.degrees, &state.removed, &state.removed_at);
    let degree = |vertex: u32| degrees[vertex as usize].load(Ordering::Relaxed);
    let mut sub_round = state.sub_rounds;
    state.remaining.retain(|&vertex| !removed.contains(vertex));
    let Some(least) = state
        .remaining
        .par_iter()
        .map(|&vertex| degree(vertex))
        .min()
    else {
        return Ok(Step::Done);
    };
    let level = least.max(state.level);
    let (mut frontier, remaining): (Vec<u32>, Vec<u32>) = state
        .remaining
        .par_iter()
        .partition(|&&vertex| degree(vertex) <= level);
    state.remaining = remaining;
    while !frontier.is_empty() {
        frontier.par_iter().for_each(|&vertex| {
            removed.insert(vertex);
            degrees[vertex as usize].store(level, Ordering::Relaxed);
            removed_at[vertex as usize].store(sub_round, Ordering::Relaxed);
        });
        let mut next = ThreadBuffers::new();
        for &direction in directions(store) {
            edge_map(store, direction, &frontier, &|vertex, list: Adjacency| {
                for &neighbor in list.neighbors {
                    if neighbor == vertex || removed.contains(neighbor) {
                        continue;
                    }
                    // Only the removal that brings it down to the level adds it, once.
                    if degrees[neighbor as usize].fetch_sub(1, Ordering::Relaxed) == level + 1 {
                        next.push(neighbor, 0);
                    }
                }
            })?;
        }
        frontier = next.drain().0;
        sub_round += 1;
    }
    state.sub_rounds = sub_round;
    state.level = level;
    state.levels += 1;
    Ok(
        match state
            .remaining
            .iter()
            .all(|&vertex| removed.contains(vertex))
        {
            true => Step::Done,
            false => Step::More,
        },
    )
}

/// Checks core numbers `cores` against the certificate `removed_at` (the sub-round each
/// vertex was removed in), serially, in one pass over the file's lists in order. Each
/// neighbor entry counts (an arc in each direction of a directed graph; self-loops
/// left out), and removals are ordered by (core number, sub-round). Two conditions hold
/// of every vertex v exactly when `cores` are the core numbers, whatever `removed_at`:
///
/// - at least `cores[v]` of its entries have a core number of at least `cores[v]`. Then
///   the vertices of core number k or more have k neighbors each among themselves, so
///   they lie in the k-core: no core number is too large.
/// - at most `cores[v]` of its entries were removed no earlier than v. If some vertex
///   were in a k-core above its core number, the k-core's vertex removed first would have
///   at least k entries removed no earlier and a core number below k: none is too small.
pub fn verify(
    graph: &GraphFile,
    cores: &[u32],
    removed_at: &[u32],
) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    let directed = graph.header().flags.directed;
    let order = |v: usize| (cores[v], removed_at[v]);
    // Per vertex: entries of core number at least its own, and entries removed no earlier.
    let mut at_least = vec![0u32; vertices];
    let mut no_earlier = vec![0u32; vertices];
    let lists: &[bool] = if directed { &[false, true] } else { &[false] };
    for &in_lists in lists {
        for v in 0..vertices {
            let list = match in_lists {
                true => graph.in_neighbors_of(v),
                false => graph.out_neighbors_of(v),
            };
            for &u in list.iter().filter(|&&u| u as usize != v) {
                let u = u as usize;
                at_least[v] += (cores[u] >= cores[v]) as u32;
                no_earlier[v] += (order(u) >= order(v)) as u32;
            }
        }
    }
    for v in 0..vertices {
        if at_least[v] < cores[v] {
            return Err(format!(
                "vertex {v} has core number {} but only {} neighbors of core number at least that",
                cores[v], at_least[v]
            ));
        }
        if no_earlier[v] > cores[v] {
            return Err(format!(
                "vertex {v} has core number {} but {} neighbors were removed no earlier than it",
                cores[v], no_earlier[v]
            ));
        }
    }
    Ok(())
}

/// Core numbers as the runner drives them.
pub struct CoreNumber;

impl Kernel for CoreNumber {
    type State = CoreState;
    type Result = CoreResult;
    type Parameters = ();

    const INFO: KernelInfo = KernelInfo {
        name: "kcore",
        about: "Core numbers (k-core decomposition): core number per vertex",
        reads: READS,
        column: Column {
            name: "core_number",
            vertices: false,
        },
        result: ResultKind::Int64,
        takes_source: false,
        searches: true,
        verifier_copies_lists: false,
        deterministic: true,
        every_vertex_a_source: false,
        undirected_only: false,
        counts_self_loops: false,
        parameters: &[],
    };

    fn parameters(&self, _values: &ParameterValues) {}
    fn memory(&self, shape: GraphShape) -> KernelMemory {
        let vertices = shape.vertices;
        KernelMemory {
            // Degrees, then core numbers (4 a vertex), the removed vertices' bitmap and
            // the sub-round each was removed in (4).
            hot_arrays: vec![4 * vertices, Bitmap::bytes(vertices), 4 * vertices],
            // The vertices still in (4 a vertex), and a level's frontier with the next
            // one growing in per-thread buffers and drained into one list, which
            // together hold at most the vertices still in twice; plus what edge_map's
            // scans hold.
            working_bytes: 12 * vertices + edge_map_bytes(shape.arcs),
            // The check's two counts (4 a vertex each).
            verifier_bytes: 8 * vertices,
            // Core numbers and sub-rounds.
            result_bytes_per_vertex: 8,
            output_bytes_per_vertex: 8,
            ..KernelMemory::default()
        }
    }
    fn start(&self, store: &dyn EdgeStore, options: &KernelOptions<()>) -> Result<CoreState> {
        let vertices = store.num_vertices();
        let degrees = property_vec(&options.arrays, vertices, || AtomicU32::new(0));
        // Self-loops are no neighbors: the lists are counted, not just their lengths.
        for &direction in directions(store) {
            store.scan(direction, 0..vertices as u32, &|vertex, list: Adjacency| {
                let entries = entries_but_self(vertex, list.neighbors);
                degrees[vertex as usize].fetch_add(entries, Ordering::Relaxed);
            })?;
        }
        Ok(CoreState {
            degrees,
            removed: Bitmap::new(&options.arrays, vertices),
            removed_at: property_vec(&options.arrays, vertices, || AtomicU32::new(0)),
            sub_rounds: 0,
            remaining: (0..vertices as u32).collect(),
            level: 0,
            levels: 0,
        })
    }
    /// One level of the peeling.
    fn step(&self, store: &dyn EdgeStore, state: &mut CoreState) -> Result<Step> {
        peel_level(store, state)
    }
    fn save(&self, state: &mut CoreState, out: &mut StateWriter) -> std::io::Result<()> {
        out.array("degrees", &state.degrees)?;
        out.array("removed", state.removed.words())?;
        out.array("removed_at", &state.removed_at)?;
        out.number("sub_rounds", state.sub_rounds as u64)?;
        out.number("level", state.level as u64)?;
        out.number("levels", state.levels as u64)
    }
    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<()>,
        saved: &mut StateReader,
    ) -> std::result::Result<CoreState, StateError> {
        let vertices = store.num_vertices();
        let degrees = property_vec(&options.arrays, vertices, || AtomicU32::new(0));
        saved.fill("degrees", &degrees)?;
        let removed = Bitmap::new(&options.arrays, vertices);
        saved.fill("removed", removed.words())?;
        let removed_at = property_vec(&options.arrays, vertices, || AtomicU32::new(0));
        saved.fill("removed_at", &removed_at)?;
        let sub_rounds = saved.number_at_most("sub_rounds", u32::MAX as u64)? as u32;
        // The vertices still in are those not removed, ascending, as the next level's
        // start leaves them.
        let remaining = (0..vertices as u32)
            .into_par_iter()
            .filter(|&vertex| !removed.contains(vertex))
            .collect();
        Ok(CoreState {
            degrees,
            removed,
            removed_at,
            sub_rounds,
            remaining,
            level: saved.number_at_most("level", u32::MAX as u64)? as u32,
            levels: saved.number_at_most("levels", u32::MAX as u64)? as u32,
        })
    }
    fn finish(&self, state: CoreState) -> CoreResult {
        let cores = state
            .degrees
            .into_vec(|degree| degree.load(Ordering::Relaxed));
        CoreResult {
            degeneracy: cores.iter().copied().max().unwrap_or(0),
            cores,
            levels: state.levels,
            removed_at: state
                .removed_at
                .into_vec(|sub_round| sub_round.load(Ordering::Relaxed)),
        }
    }
    fn summary(&self, result: &CoreResult, _: &KernelOptions<()>, _: &dyn Fn(u32) -> u64) -> Value {
        json!({"degeneracy": result.degeneracy, "levels": result.levels})
    }
    fn verify(
        &self,
        graph: &GraphFile,
        _options: &KernelOptions<()>,
        result: &CoreResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        verify(graph, &result.cores, &result.removed_at)
    }
    fn output(&self, result: CoreResult, permutation: Option<&[u32]>) -> Output {
        Output::Int64(to_original_order(&result.cores, permutation, |&core| {
            core as i64
        }))
    }
}
