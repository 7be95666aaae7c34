//! Connected components (weakly connected for directed graphs) by Afforest
//! (Sutton, Ben-Nun, Barak, IPDPS'18), as in GAP.
//!
//! Output: a label per vertex (int64); two vertices have the same label exactly
//! when they are in the same component. The label is the original id of one
//! member, the same whatever the thread count.
//!
//! Each vertex first links to its first two neighbors only, which on real graphs
//! already joins most of the giant component; the remaining edges are then
//! processed only for vertices outside the component that a sample says is the
//! largest. Links always hook the larger root under the smaller, so every
//! component ends up rooted at its smallest internal id.

use super::Reads;
use crate::edge_map::few_enough_to_gather;
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
    count_labelled_groups, labels_output,
};
use crate::parameters::ParameterValues;
use crate::saved_state::{StateError, StateReader, StateWriter};
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, ListsNeeded, OffsetSlice, Result};

use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use crate::frontier::select_blocks;
use crate::property::{PropertyVec, U32Array};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: true,
    weights: false,
    out_heads: true,
};

/// At most one vertex in this many is listed for a gather of the lists left to link.
const OUTSIDE_LIST_DIVISOR: u64 = 8;

/// Neighbors per vertex linked before sampling.
const NEIGHBOR_ROUNDS: usize = 2;
/// Vertices sampled to find the largest component.
const SAMPLES: usize = 1024;

/// What a CC run found.
pub struct ComponentsResult {
    /// Root (smallest internal id of the component) per vertex, internal ids.
    pub labels: PropertyVec<u32>,
    /// Number of components.
    pub components: u64,
}

/// Joins the trees of `u` and `v`, hooking the larger root under the smaller.
fn link(labels: &U32Array, u: u32, v: u32) {
    let mut first = labels.get(u);
    let mut second = labels.get(v);
    while first != second {
        let (high, low) = if first > second {
            (first, second)
        } else {
            (second, first)
        };
        let high_parent = labels.get(high);
        if high_parent == low {
            break;
        }
        if high_parent == high && labels.compare_exchange(high, high, low) {
            break;
        }
        first = labels.get(labels.get(high));
        second = labels.get(low);
    }
}

/// Points every vertex of `vertices` straight at its root.
fn compress(labels: &U32Array, vertices: std::ops::Range<u32>) {
    for vertex in vertices {
        while labels.get(vertex) != labels.get(labels.get(vertex)) {
            labels.set(vertex, labels.get(labels.get(vertex)));
        }
    }
}

/// Points every vertex straight at its root.
fn compress_all(labels: &U32Array) {
    select_blocks(labels.len() as u32)
        .into_par_iter()
        .for_each(|block| compress(labels, block));
}

/// The root of `vertex`'s tree.
fn root(labels: &U32Array, mut vertex: u32) -> u32 {
    while labels.get(vertex) != vertex {
        vertex = labels.get(vertex);
    }
    vertex
}

/// The most frequent root among a fixed sample of vertices.
fn most_frequent_label(labels: &U32Array) -> u32 {
    let vertices = labels.len() as u64;
    let mut counts = std::collections::HashMap::new();
    let mut state = 0x00c0_ffeeu64;
    for _ in 0..SAMPLES {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let vertex = ((state >> 33) % vertices) as u32;
        *counts.entry(root(labels, vertex)).or_insert(0u32) += 1;
    }
    counts
        .into_iter()
        .max_by_key(|&(label, count)| (count, std::cmp::Reverse(label)))
        .map_or(0, |(label, _)| label)
}

/// Calls `each(vertex, edges)` for every vertex of `range` outside the `largest`
/// component with edges left to link (out-edges past the first [`NEIGHBOR_ROUNDS`], and
/// in-edges on a directed graph), decoding the offsets a block at a time: from
/// Elias-Fano offsets a degree looked up alone costs two selects, and cc looks at every
/// vertex up to three times here.
fn each_with_edges_left(
    store: &dyn EdgeStore,
    labels: &U32Array,
    largest: u32,
    range: std::ops::Range<u32>,
    each: &mut dyn FnMut(u32, u64),
) {
    const BLOCK: u32 = OffsetSlice::BLOCK_VERTICES as u32;
    let mut start = range.start;
    while start < range.end {
        let block = start..start.saturating_add(BLOCK).min(range.end);
        let entries = block.start as usize..block.end as usize;
        let mut visit = |out: &[u64], incoming: Option<&[u64]>| {
            for (index, vertex) in block.clone().enumerate() {
                if labels.get(vertex) == largest {
                    continue;
                }
                let out_degree = out[index + 1] - out[index];
                let in_degree = incoming.map_or(0, |offsets| offsets[index + 1] - offsets[index]);
                let edges = out_degree.saturating_sub(NEIGHBOR_ROUNDS as u64) + in_degree;
                if edges > 0 {
                    each(vertex, edges);
                }
            }
        };
        let out_offsets = store.offsets(EdgeDirection::Out).vertices(entries.clone());
        out_offsets.widened(|out| match store.directed() {
            true => store
                .offsets(EdgeDirection::In)
                .vertices(entries.clone())
                .widened(|incoming| visit(out, Some(incoming))),
            false => visit(out, None),
        });
        start = block.end;
    }
}

/// Finds the connected components.
pub fn connected_components(store: &dyn EdgeStore) -> Result<ComponentsResult> {
    let mut state = ConnectedComponents.start(store, &KernelOptions::default())?;
    while ConnectedComponents.step(store, &mut state)? == Step::More {}
    Ok(ConnectedComponents.finish(state))
}

/// Where a run of Afforest is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Next: link each vertex to its first neighbors.
    Heads,
    /// Next: link the other edges of the vertices outside the largest component.
    Rest,
    /// Every edge is linked and the labels compressed.
    Done,
}

/// The components' state between phases.
pub struct ComponentsState {
    /// Each vertex's parent in its tree; its root once compressed.
    labels: U32Array,
    phase: Phase,
}

/// The first phase: each vertex links to its first NEIGHBOR_ROUNDS neighbors.
///
/// GAP links one neighbor per round with a compress between rounds; one pass that
/// links the first NEIGHBOR_ROUNDS neighbors reads the lists once instead of twice, and
/// joins the same trees. It needs only the start of each list, so a disk tier skips the
/// pages of long lists past their heads.
fn link_heads(store: &dyn EdgeStore, labels: &U32Array) -> Result<()> {
    store.scan_partial(
        EdgeDirection::Out,
        0..store.num_vertices() as u32,
        ListsNeeded::Heads(NEIGHBOR_ROUNDS as u64),
        &|block| {
            for (vertex, list) in block.iter() {
                for &neighbor in list.neighbors.iter().take(NEIGHBOR_ROUNDS) {
                    link(labels, vertex, neighbor);
                }
            }
        },
    )
}

/// The second phase: the vertices outside the largest component (as a sample finds it)
/// link their other edges, and every label is compressed to its root.
fn link_rest_outside_largest(store: &dyn EdgeStore, labels: &U32Array) -> Result<()> {
    let vertices = store.num_vertices();
    let all = 0..vertices as u32;
    if vertices > 0 {
        // The sample follows its vertices to their roots, so one pass can then both
        // compress every vertex and count, block by block, the vertices outside the
        // largest component with edges left to link, listing them while they fit the
        // plan's count of them (one vertex in OUTSIDE_LIST_DIVISOR): one pass over the
        // vertices instead of two, each a sizeable share of the run.
        let largest = most_frequent_label(labels);
        let room = vertices.div_ceil(OUTSIDE_LIST_DIVISOR as usize);
        let listed: Vec<AtomicU32> = (0..room).map(|_| AtomicU32::new(0)).collect();
        let next_slot = AtomicUsize::new(0);
        let outside_edges: u64 = select_blocks(vertices as u32)
            .into_par_iter()
            .map(|block| {
                compress(labels, block.clone());
                let mut edges_left = 0u64;
                let mut outside = Vec::new();
                each_with_edges_left(store, labels, largest, block, &mut |vertex, edges| {
                    outside.push(vertex);
                    edges_left += edges;
                });
                let first = next_slot.fetch_add(outside.len(), Ordering::Relaxed);
                if let Some(slots) = listed.get(first..first + outside.len()) {
                    for (slot, &vertex) in slots.iter().zip(&outside) {
                        slot.store(vertex, Ordering::Relaxed);
                    }
                }
                edges_left
            })
            .sum();
        let outside_vertices = next_slot.into_inner();
        // Only vertices outside the largest component link their other edges: out-lists
        // past the neighbors already linked and, for weak connectivity on a directed
        // graph, whole in-lists. When those lists are few, read only them (a gather)
        // instead of scanning every list.
        let directed = store.directed();
        let passes = [
            (EdgeDirection::Out, NEIGHBOR_ROUNDS),
            (EdgeDirection::In, 0),
        ];
        let passes = &passes[..if directed { 2 } else { 1 }];
        let link_rest = |vertex: u32, neighbors: &[u32], skip: usize| {
            for &neighbor in neighbors.iter().skip(skip) {
                link(labels, vertex, neighbor);
            }
        };
        // The list of those vertices is held only when it is short enough for the plan's
        // count (its working bytes); a longer one is scanned for instead.
        if few_enough_to_gather(store, outside_edges) && outside_vertices <= room {
            // In place: an AtomicU32 is a u32.
            let mut outside: Vec<u32> = listed.into_iter().map(AtomicU32::into_inner).collect();
            outside.truncate(outside_vertices);
            outside.par_sort_unstable();
            for &(direction, skip) in passes {
                store.gather(direction, &outside, &|vertex, list| {
                    link_rest(vertex, list.neighbors, skip)
                })?;
            }
        } else {
            for &(direction, skip) in passes {
                store.scan_blocks(direction, all.clone(), &|block| {
                    for (vertex, list) in block.iter() {
                        if labels.get(vertex) != largest {
                            link_rest(vertex, list.neighbors, skip);
                        }
                    }
                })?;
            }
        }
        compress_all(labels);
    }
    Ok(())
}

/// Checks labels against a serial union-find over every edge of the file: the two
/// partitions must be the same. Without a map between the two sets of labels (which
/// would take memory by the component): every edge's ends share a label, so each
/// labelled group is a union of components; every label is a vertex that carries it,
/// so the vertices that are their own label count the groups; and there are as many
/// groups as the union-find finds components.
pub fn verify(graph: &GraphFile, labels: &[u32]) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    let mut parent: Vec<u32> = (0..vertices as u32).collect();
    fn find(parent: &mut [u32], mut vertex: u32) -> u32 {
        while parent[vertex as usize] != vertex {
            parent[vertex as usize] = parent[parent[vertex as usize] as usize];
            vertex = parent[vertex as usize];
        }
        vertex
    }
    for vertex in 0..vertices {
        for &neighbor in graph.out_neighbors_of(vertex).iter() {
            if labels[vertex] != labels[neighbor as usize] {
                return Err(format!(
                    "vertices {vertex} and {neighbor} share an edge but have labels {} and {}",
                    labels[vertex], labels[neighbor as usize]
                ));
            }
            let (a, b) = (
                find(&mut parent, vertex as u32),
                find(&mut parent, neighbor),
            );
            if a != b {
                parent[a.max(b) as usize] = a.min(b);
            }
        }
    }
    let mut groups = 0u64;
    for (vertex, &label) in labels.iter().enumerate().take(vertices) {
        if labels.get(label as usize) != Some(&label) {
            return Err(format!(
                "vertex {vertex} has label {label}, which is not a vertex with that label"
            ));
        }
        groups += u64::from(label as usize == vertex);
    }
    let components = (0..vertices)
        .filter(|&vertex| parent[vertex] as usize == vertex)
        .count() as u64;
    if groups != components {
        return Err(format!(
            "the labels make {groups} groups but the serial union-find finds {components} components"
        ));
    }
    Ok(())
}

/// Connected components as the runner drives them.
pub struct ConnectedComponents;

impl Kernel for ConnectedComponents {
    type State = ComponentsState;
    type Result = ComponentsResult;
    type Parameters = ();

    const INFO: KernelInfo = KernelInfo {
        name: "cc",
        about: "Connected components (weak, Afforest): label per vertex",
        reads: READS,
        column: Column {
            name: "component",
            vertices: true,
        },
        result: ResultKind::Int64,
        takes_source: false,
        searches: false,
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
            // Labels (4 a vertex).
            hot_arrays: vec![4 * vertices],
            // The vertices outside the largest component with edges left to link, when
            // they are gathered (at most one in OUTSIDE_LIST_DIVISOR, 4 each), and the
            // long lists a disk tier's first pass cuts short.
            working_bytes: 4 * vertices.div_ceil(OUTSIDE_LIST_DIVISOR)
                + ListsNeeded::heads_held_bytes(shape.arcs),
            // The verifier's union-find parents.
            verifier_bytes: 4 * vertices,
            result_bytes_per_vertex: 4,
            output_bytes_per_vertex: 8,
            released_as_copied: true,
            ..KernelMemory::default()
        }
    }
    fn start(&self, store: &dyn EdgeStore, options: &KernelOptions<()>) -> Result<ComponentsState> {
        let vertices = store.num_vertices();
        let labels = U32Array::filled(&options.arrays, vertices, 0);
        (0..vertices as u32)
            .into_par_iter()
            .for_each(|vertex| labels.set(vertex, vertex));
        Ok(ComponentsState {
            labels,
            phase: Phase::Heads,
        })
    }
    /// One phase of Afforest: the heads, then the rest.
    fn step(&self, store: &dyn EdgeStore, state: &mut ComponentsState) -> Result<Step> {
        state.phase = match state.phase {
            Phase::Heads => {
                link_heads(store, &state.labels)?;
                Phase::Rest
            }
            Phase::Rest | Phase::Done => {
                link_rest_outside_largest(store, &state.labels)?;
                Phase::Done
            }
        };
        Ok(match state.phase {
            Phase::Done => Step::Done,
            _ => Step::More,
        })
    }
    fn save(&self, state: &mut ComponentsState, out: &mut StateWriter) -> std::io::Result<()> {
        out.array("labels", state.labels.cells())?;
        out.number("phase", state.phase as u64)
    }
    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<()>,
        saved: &mut StateReader,
    ) -> std::result::Result<ComponentsState, StateError> {
        let vertices = store.num_vertices();
        let labels = U32Array::filled(&options.arrays, vertices, 0);
        saved.fill("labels", labels.cells())?;
        // A label past the graph would send a later link out of bounds.
        if let Some(label) = (0..vertices as u32)
            .map(|v| labels.get(v))
            .find(|&l| l as usize >= vertices)
        {
            return Err(StateError::Invalid {
                name: "labels".to_string(),
                detail: format!("vertex {label} of a graph of {vertices}"),
            });
        }
        let phase = match saved.number_at_most("phase", Phase::Done as u64)? {
            0 => Phase::Heads,
            1 => Phase::Rest,
            _ => Phase::Done,
        };
        Ok(ComponentsState { labels, phase })
    }
    fn finish(&self, state: ComponentsState) -> ComponentsResult {
        let labels = state.labels.into_values();
        let components = count_labelled_groups(&labels);
        ComponentsResult { labels, components }
    }
    fn summary(
        &self,
        result: &ComponentsResult,
        _: &KernelOptions<()>,
        _: &dyn Fn(u32) -> u64,
    ) -> Value {
        json!({"components": result.components})
    }
    fn verify(
        &self,
        graph: &GraphFile,
        _options: &KernelOptions<()>,
        result: &ComponentsResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        verify(graph, &result.labels)
    }
    fn output(&self, result: ComponentsResult, permutation: Option<&[u32]>) -> Output {
        labels_output(result.labels, permutation)
    }
}
