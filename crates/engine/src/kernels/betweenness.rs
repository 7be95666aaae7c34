//! Betweenness centrality by Brandes' algorithm from sampled sources, as GAP, counting
//! hops (`bc`) or, by edge weight, as networkx's `weight=` counts paths (`wbc`, whose
//! searches are in `betweenness_weighted`).
//!
//! Output: a score per vertex (float64) normalized so the largest is 1 (all
//! zeros if no vertex lies on a shortest path). With `K` sources the scores
//! estimate betweenness; with every vertex as a source they are exact (up to
//! the normalization). The report's `largest_dependency` is what the scores were
//! divided by, so that a caller can scale them as its own library does.
//!
//! Per source: a level-synchronous BFS counts shortest paths (`gather` on each
//! level), then levels are walked back from the deepest, each vertex collecting
//! the dependencies of its successors.

use super::Reads;
use super::betweenness_weighted::{accumulate_weighted_from, serial_weighted_scores};
use super::closeness_weighted::EACH_SEARCH_DELTA;
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
    reorder_property,
};
use crate::kernels::pick_sources;
use crate::parameters::{Parameter, ParameterKind, ParameterValues};
use crate::saved_state::{StateError, StateReader, StateWriter};
use rayon::prelude::*;
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, Result};

use super::sssp::Sssp;
use crate::edge_map::{edge_map, edge_map_bytes};
use crate::frontier::ThreadBuffers;
use crate::property::{F64Array, PropertyArrays, PropertyVec, U32Array};

/// The lists this kernel reads, for the placement plan (`wbc` reads the weights too).
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: false,
    weights: false,
    out_heads: false,
};

/// Its parameters: where the searches start, and for `wbc` the delta-stepping width.
const PARAMETERS: [Parameter; 2] = [
    Parameter {
        flag: "sources",
        keyword: "sources",
        help: "how many sampled sources, or `all` for exact betweenness",
        kind: ParameterKind::CountOrAll,
        default: Some("1"),
    },
    Parameter {
        flag: "source-ids",
        keyword: "source_ids",
        help: "these sources, by the input's ids, instead of sampled ones (a caller's \
               own sample, such as networkx's)",
        kind: ParameterKind::Vertices { picked: false },
        default: None,
    },
];

/// `wbc`'s parameters: `bc`'s and the width of each search's delta-stepping.
const WEIGHTED_PARAMETERS: [Parameter; 3] = [PARAMETERS[0], PARAMETERS[1], EACH_SEARCH_DELTA];

const UNSEEN: u32 = u32::MAX;

/// What a BC run found.
pub struct BetweennessResult {
    /// Score per vertex, internal ids, normalized by the maximum.
    pub scores: PropertyVec<f64>,
    /// The largest sum of dependencies, which the scores were divided by (0 when
    /// every sum is 0).
    pub largest_dependency: f64,
    /// Sources used.
    pub sources: Vec<u32>,
}

/// How many entries ahead in a list the search fetches its neighbors' depths (and path
/// counts): each is a read at random, and without the hint they are waited for in turn.
const NEIGHBOR_PREFETCH: usize = 16;

/// Calls `fetch` with the neighbor [`NEIGHBOR_PREFETCH`] entries past `index`, if any.
#[inline]
fn prefetch_ahead(neighbors: &[u32], index: usize, fetch: impl FnOnce(u32)) {
    if let Some(&ahead) = neighbors.get(index + NEIGHBOR_PREFETCH) {
        fetch(ahead);
    }
}

/// Accumulates (unnormalized) dependencies from `source` into `scores`, the arrays of
/// one source made through `arrays`.
fn accumulate_from(
    store: &dyn EdgeStore,
    arrays: &PropertyArrays,
    source: u32,
    scores: &F64Array,
) -> Result<()> {
    let vertices = store.num_vertices();
    let depth = U32Array::filled(arrays, vertices, UNSEEN);
    let paths = F64Array::filled(arrays, vertices, 0.0);
    let dependency = F64Array::filled(arrays, vertices, 0.0);
    depth.set(source, 0);
    paths.set(source, 1.0);
    let mut levels = vec![vec![source]];
    loop {
        let frontier = levels.last().expect("at least the source level");
        let level = levels.len() as u32 - 1;
        let mut next = ThreadBuffers::new();
        edge_map(store, EdgeDirection::Out, frontier, &|vertex, list| {
            let my_paths = paths.get(vertex);
            for (index, &neighbor) in list.neighbors.iter().enumerate() {
                prefetch_ahead(list.neighbors, index, |ahead| {
                    depth.prefetch(ahead);
                    paths.prefetch(ahead);
                });
                if depth.get(neighbor) == UNSEEN
                    && depth.compare_exchange(neighbor, UNSEEN, level + 1)
                {
                    next.push(neighbor, 0);
                }
                if depth.get(neighbor) == level + 1 {
                    paths.fetch_add(neighbor, my_paths);
                }
            }
        })?;
        let (next, _) = next.drain();
        if next.is_empty() {
            break;
        }
        levels.push(next);
    }
    for (level, members) in levels.iter().enumerate().rev().skip(1) {
        let level = level as u32;
        edge_map(store, EdgeDirection::Out, members, &|vertex, list| {
            let my_paths = paths.get(vertex);
            let mut total = 0.0;
            for (index, &neighbor) in list.neighbors.iter().enumerate() {
                prefetch_ahead(list.neighbors, index, |ahead| depth.prefetch(ahead));
                if depth.get(neighbor) == level + 1 {
                    total += my_paths / paths.get(neighbor) * (1.0 + dependency.get(neighbor));
                }
            }
            dependency.set(vertex, total);
            if vertex != source {
                scores.set(vertex, scores.get(vertex) + total);
            }
        })?;
    }
    Ok(())
}

/// Runs Brandes from each of `sources` (internal ids).
pub fn betweenness(store: &dyn EdgeStore, sources: &[u32]) -> Result<BetweennessResult> {
    let arrays = PropertyArrays::default();
    let mut state = BetweennessState {
        scores: F64Array::filled(&arrays, store.num_vertices(), 0.0),
        sources: sources.to_vec(),
        done: 0,
        delta: 1.0,
        arrays,
    };
    while Betweenness::<false>.step(store, &mut state)? == Step::More {}
    Ok(Betweenness::<false>.finish(state))
}

/// Betweenness as the runner drives it, counting hops or (`WEIGHTED`) shortest paths by
/// edge weight: one step is one source.
pub struct Betweenness<const WEIGHTED: bool>;

/// Betweenness's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct BetweennessOptions {
    /// Where the searches start.
    pub sources: Sources,
    /// `wbc`: the bucket width of each search's delta-stepping.
    pub delta: f64,
}

/// Where Brandes' searches start.
#[derive(Clone, Debug, PartialEq)]
pub enum Sources {
    /// Every vertex (exact betweenness).
    All,
    /// This many, sampled as GAP samples them.
    Sampled(u64),
    /// These (internal ids), as the caller chose them.
    Given(Vec<u32>),
}

/// Betweenness's state between sources.
pub struct BetweennessState {
    /// Dependencies summed over the sources done (not yet normalized).
    scores: F64Array,
    sources: Vec<u32>,
    /// Sources done.
    done: usize,
    /// `wbc`: the bucket width of each search's delta-stepping.
    delta: f64,
    /// Where each source's arrays come from.
    arrays: PropertyArrays,
}

impl<const WEIGHTED: bool> Kernel for Betweenness<WEIGHTED> {
    type State = BetweennessState;
    type Result = BetweennessResult;
    type Parameters = BetweennessOptions;

    const INFO: KernelInfo = KernelInfo {
        name: if WEIGHTED { "wbc" } else { "bc" },
        about: if WEIGHTED {
            "Betweenness centrality by edge weight (Brandes over shortest paths by weight, networkx's weight=): score per vertex"
        } else {
            "Betweenness centrality (Brandes from sampled sources): score per vertex"
        },
        reads: Reads {
            weights: WEIGHTED,
            ..READS
        },
        column: Column {
            name: "centrality",
            vertices: false,
        },
        result: ResultKind::Float64,
        takes_source: false,
        searches: true,
        verifier_copies_lists: false,
        deterministic: false,
        every_vertex_a_source: false,
        undirected_only: false,
        counts_self_loops: false,
        parameters: if WEIGHTED {
            &WEIGHTED_PARAMETERS
        } else {
            &PARAMETERS
        },
    };

    fn parameters(&self, values: &ParameterValues) -> BetweennessOptions {
        let sources = match (values.vertices("source-ids"), values.count("sources")) {
            ([], None) => Sources::All,
            ([], Some(count)) => Sources::Sampled(count),
            (given, _) => Sources::Given(given.iter().map(|&id| id as u32).collect()),
        };
        let delta = if WEIGHTED {
            values.number("delta")
        } else {
            1.0
        };
        BetweennessOptions { sources, delta }
    }
    fn memory(&self, shape: GraphShape) -> KernelMemory {
        let vertices = shape.vertices;
        if WEIGHTED {
            let search = Sssp.memory(shape);
            let mut hot_arrays = vec![8 * vertices, 8 * vertices, 8 * vertices, 4 * vertices];
            hot_arrays.extend(search.hot_arrays);
            return KernelMemory {
                // Scores (8), and per source paths (8), dependency (8), the tight edges
                // each vertex waits on (4) and the search's distances.
                hot_arrays,
                // The reached vertices, then the rounds (4) and the next round (4), or
                // one search's frontier and bins, and what edge_map's scans hold.
                working_bytes: (8 * vertices).max(search.working_bytes)
                    + edge_map_bytes(shape.arcs),
                // The reference scores (8) and one Dijkstra's distances (8), heap (8),
                // order (4), path counts (8) and dependencies (8).
                verifier_bytes: 44 * vertices,
                result_bytes_per_vertex: 8,
                output_bytes_per_vertex: 8,
                released_as_copied: true,
                ..KernelMemory::default()
            };
        }
        KernelMemory {
            // Scores (8), and per source depth (4), paths (8), dependency (8).
            hot_arrays: vec![8 * vertices, 4 * vertices, 8 * vertices, 8 * vertices],
            // Levels (4) and a pass's sorted copy of a level (4), per vertex, and what
            // edge_map's scans hold.
            working_bytes: 8 * vertices + edge_map_bytes(shape.arcs),
            // The reference scores (8) and one source's depths (4), path counts (8),
            // dependencies (8) and visiting order (4).
            verifier_bytes: 32 * vertices,
            result_bytes_per_vertex: 8,
            output_bytes_per_vertex: 8,
            released_as_copied: true,
            ..KernelMemory::default()
        }
    }
    fn start(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<BetweennessOptions>,
    ) -> Result<BetweennessState> {
        let sources = match &options.parameters.sources {
            Sources::All => (0..store.num_vertices() as u32).collect(),
            Sources::Sampled(count) => {
                pick_sources(store, (*count).min(usize::MAX as u64) as usize)
            }
            Sources::Given(given) => {
                // Each source once: a repeated one would count its paths twice.
                let mut seen = std::collections::HashSet::new();
                given
                    .iter()
                    .copied()
                    .filter(|&source| seen.insert(source))
                    .collect()
            }
        };
        Ok(BetweennessState {
            scores: F64Array::filled(&options.arrays, store.num_vertices(), 0.0),
            sources,
            done: 0,
            delta: options.parameters.delta,
            arrays: options.arrays.clone(),
        })
    }
    fn step(&self, store: &dyn EdgeStore, state: &mut BetweennessState) -> Result<Step> {
        if let Some(&source) = state.sources.get(state.done) {
            if WEIGHTED {
                let (arrays, delta) = (&state.arrays, state.delta);
                if let Some(refusal) =
                    accumulate_weighted_from(store, arrays, source, delta, &state.scores)?
                {
                    return Ok(Step::Refused(refusal));
                }
            } else {
                accumulate_from(store, &state.arrays, source, &state.scores)?;
            }
            state.done += 1;
        }
        Ok(match state.done < state.sources.len() {
            true => Step::More,
            false => Step::Done,
        })
    }
    fn save(&self, state: &mut BetweennessState, out: &mut StateWriter) -> std::io::Result<()> {
        out.array("scores", state.scores.cells())?;
        out.array("sources", &state.sources)?;
        out.number("done", state.done as u64)
    }
    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<BetweennessOptions>,
        saved: &mut StateReader,
    ) -> std::result::Result<BetweennessState, StateError> {
        let scores = F64Array::filled(&options.arrays, store.num_vertices(), 0.0);
        saved.fill("scores", scores.cells())?;
        let sources = saved.vertices("sources", store.num_vertices())?;
        let done = saved.number_at_most("done", sources.len() as u64)?;
        Ok(BetweennessState {
            scores,
            sources,
            done: done as usize,
            delta: options.parameters.delta,
            arrays: options.arrays.clone(),
        })
    }
    fn finish(&self, state: BetweennessState) -> BetweennessResult {
        let mut scores = state.scores.into_values();
        let largest_dependency = normalize(&mut scores);
        BetweennessResult {
            scores,
            largest_dependency,
            sources: state.sources,
        }
    }
    fn summary(
        &self,
        result: &BetweennessResult,
        _: &KernelOptions<BetweennessOptions>,
        original: &dyn Fn(u32) -> u64,
    ) -> Value {
        json!({
            "sources": result.sources.len(),
            "largest_dependency": result.largest_dependency,
            "source_ids": result.sources.iter().map(|&s| original(s)).collect::<Vec<_>>(),
        })
    }
    fn verify(
        &self,
        graph: &GraphFile,
        _options: &KernelOptions<BetweennessOptions>,
        result: &BetweennessResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        if WEIGHTED {
            let mut reference = serial_weighted_scores(graph, &result.sources)?;
            normalize(&mut reference);
            return first_difference(&result.scores, &reference, "serial Brandes by weight");
        }
        verify(graph, &result.sources, &result.scores)
    }
    fn output(&self, result: BetweennessResult, permutation: Option<&[u32]>) -> Output {
        Output::Float64(reorder_property(result.scores, permutation, |&score| score))
    }
}

/// Divides `scores` by the largest and returns it.
fn normalize(scores: &mut [f64]) -> f64 {
    let largest = scores.par_iter().cloned().reduce(|| 0.0, f64::max);
    if largest > 0.0 {
        scores.par_iter_mut().for_each(|score| *score /= largest);
    }
    largest
}

/// Checks scores against a serial Brandes on the file from the same sources
/// (each score within 1e-9 of the reference, after both are normalized).
pub fn verify(
    graph: &GraphFile,
    sources: &[u32],
    scores: &[f64],
) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    let mut reference = vec![0.0f64; vertices];
    for &source in sources {
        // Levels in file order (see `serial_levels`); the shortest paths are counted
        // in a second pass over them, each level's counts final before the next's.
        let (depth, order) = super::serial_levels(graph, source);
        let mut paths = vec![0.0f64; vertices];
        paths[source as usize] = 1.0;
        for &vertex in &order {
            let vertex = vertex as usize;
            for &neighbor in graph.out_neighbors_of(vertex).iter() {
                if depth[neighbor as usize] == depth[vertex] + 1 {
                    paths[neighbor as usize] += paths[vertex];
                }
            }
        }
        let mut dependency = vec![0.0f64; vertices];
        for &vertex in order.iter().rev() {
            let vertex = vertex as usize;
            for &neighbor in graph.out_neighbors_of(vertex).iter() {
                let neighbor = neighbor as usize;
                if depth[neighbor] == depth[vertex] + 1 {
                    dependency[vertex] +=
                        paths[vertex] / paths[neighbor] * (1.0 + dependency[neighbor]);
                }
            }
            if vertex != source as usize {
                reference[vertex] += dependency[vertex];
            }
        }
    }
    normalize(&mut reference);
    first_difference(scores, &reference, "serial Brandes")
}

/// The first vertex whose score is more than 1e-9 from the reference's.
fn first_difference(
    scores: &[f64],
    reference: &[f64],
    by: &str,
) -> std::result::Result<(), String> {
    if scores.len() != reference.len() {
        return Err(format!(
            "{} scores for {} vertices",
            scores.len(),
            reference.len()
        ));
    }
    match (0..scores.len()).find(|&v| (scores[v] - reference[v]).abs() > 1e-9) {
        Some(v) => Err(format!(
            "vertex {v} has score {} but {by} gives {}",
            scores[v], reference[v]
        )),
        None => Ok(()),
    }
}
