//! Graph radii estimation, as in Ligra: BFS from up to 64 sampled sources at
//! once, one bit per source in a 64-bit mask per vertex.
//!
//! Output: for each vertex (int64), the largest distance from any sampled
//! source that reaches it, a lower bound on its eccentricity; -1 if no sampled
//! source reaches it.
//!
//! Each round, frontier vertices push their masks to out-neighbors (a sparse
//! `gather`); a vertex whose mask gains bits joins the next frontier, and the
//! round number becomes its estimate.

use std::sync::atomic::{AtomicU64, Ordering};

use super::Reads;
use super::bit_search::{BitSearch, SOURCES, push_masks};
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
    reorder_property,
};
use crate::kernels::pick_sources;
use crate::parameters::ParameterValues;
use crate::saved_state::{StateError, StateReader, StateWriter};
use rayon::prelude::*;
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeStore, Result};

use crate::edge_map::edge_map_bytes;
use crate::property::{PropertyArrays, PropertyVec, U32Array, property_vec};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: false,
    weights: false,
    out_heads: false,
};

/// Sources sampled at most (bits in a mask).
pub const MAX_SOURCES: usize = SOURCES;
const UNREACHED: u32 = u32::MAX;

/// What a radii run found.
pub struct RadiiResult {
    /// Estimate per vertex, internal ids; `u32::MAX` for unreached.
    pub radii: PropertyVec<u32>,
    /// The sampled sources.
    pub sources: Vec<u32>,
    /// Rounds taken (the largest estimate + 1).
    pub rounds: u32,
}

/// Runs multi-source BFS from `sources` (at most 64, internal ids).
pub fn radii(store: &dyn EdgeStore, sources: &[u32]) -> Result<RadiiResult> {
    let mut state = RadiiState::new(store, &PropertyArrays::default(), sources);
    while Radii.step(store, &mut state)? == Step::More {}
    Ok(Radii.finish(state))
}

/// The estimate's state between rounds.
pub struct RadiiState {
    /// The sources that reached each vertex, a bit each.
    visited: PropertyVec<AtomicU64>,
    /// The same, with this round's arrivals.
    next_visited: PropertyVec<AtomicU64>,
    /// The round each vertex was last reached in.
    radii: U32Array,
    sources: Vec<u32>,
    /// The vertices whose masks grew last round, ascending.
    frontier: Vec<u32>,
    rounds: u32,
}

impl RadiiState {
    /// The state before the first round, from `sources` (at most 64 are used), its
    /// arrays made through `arrays`.
    fn new(store: &dyn EdgeStore, arrays: &PropertyArrays, sources: &[u32]) -> RadiiState {
        let vertices = store.num_vertices();
        let sources = &sources[..sources.len().min(MAX_SOURCES)];
        let visited: PropertyVec<AtomicU64> = property_vec(arrays, vertices, || AtomicU64::new(0));
        let next_visited: PropertyVec<AtomicU64> =
            property_vec(arrays, vertices, || AtomicU64::new(0));
        let radii = U32Array::filled(arrays, vertices, UNREACHED);
        for (bit, &source) in sources.iter().enumerate() {
            visited[source as usize].fetch_or(1 << bit, Ordering::Relaxed);
            next_visited[source as usize].fetch_or(1 << bit, Ordering::Relaxed);
            radii.set(source, 0);
        }
        let mut frontier: Vec<u32> = sources.to_vec();
        frontier.sort_unstable();
        frontier.dedup();
        RadiiState {
            visited,
            next_visited,
            radii,
            sources: sources.to_vec(),
            frontier,
            rounds: 0,
        }
    }
}

/// One round: the frontier pushes its masks to its out-neighbors, and those whose masks
/// grew are the next frontier.
fn round(store: &dyn EdgeStore, state: &mut RadiiState) -> Result<Step> {
    if state.frontier.is_empty() {
        return Ok(Step::Done);
    }
    state.rounds += 1;
    let rounds = state.rounds;
    let (visited, next_visited, radii) = (&state.visited, &state.next_visited, &state.radii);
    state.frontier = push_masks(store, &state.frontier, visited, next_visited)?.0;
    state.frontier.par_iter().for_each(|&vertex| {
        let mask = next_visited[vertex as usize].load(Ordering::Relaxed);
        visited[vertex as usize].store(mask, Ordering::Relaxed);
        radii.set(vertex, rounds);
    });
    Ok(match state.frontier.is_empty() {
        true => Step::Done,
        false => Step::More,
    })
}

/// Checks estimates against a serial BFS from all the sources at once: each vertex's
/// estimate is the last level at which a source reaches it, and unreached vertices have
/// none.
pub fn verify(
    graph: &GraphFile,
    sources: &[u32],
    radii: &[u32],
) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    if radii.len() != vertices {
        return Err(format!("{} estimates for {vertices} vertices", radii.len()));
    }
    // Whether a source reaches the vertex, and whether one reaches it at its estimate.
    let mut reached = vec![false; vertices];
    let mut at_estimate = vec![false; vertices];
    let mut wrong = None;
    BitSearch::new(vertices).search(graph, sources, |vertex, _, level| {
        let estimate = radii[vertex as usize];
        if (estimate == UNREACHED || estimate < level) && wrong.is_none() {
            wrong = Some(format!(
                "vertex {vertex} has estimate {} but a source reaches it at distance {level}",
                shown(estimate)
            ));
        }
        reached[vertex as usize] = true;
        at_estimate[vertex as usize] |= estimate == level;
    });
    if let Some(wrong) = wrong {
        return Err(wrong);
    }
    let wrong = (0..vertices).find(|&v| match reached[v] {
        false => radii[v] != UNREACHED,
        true => !at_estimate[v],
    });
    match wrong {
        Some(v) if !reached[v] => Err(format!(
            "vertex {v} has estimate {} but no source reaches it",
            radii[v]
        )),
        Some(v) => Err(format!(
            "vertex {v} has estimate {} but no source is that far from it",
            shown(radii[v])
        )),
        None => Ok(()),
    }
}

/// An estimate as the verifier's messages show it (-1 for unreached, as in the output).
fn shown(estimate: u32) -> i64 {
    match estimate {
        UNREACHED => -1,
        _ => estimate as i64,
    }
}

/// Radii estimation as the runner drives it.
pub struct Radii;

impl Kernel for Radii {
    type State = RadiiState;
    type Result = RadiiResult;
    type Parameters = ();

    const INFO: KernelInfo = KernelInfo {
        name: "radii",
        about: "Graph radii estimate (multi-source BFS from up to 64 sources): eccentricity estimate per vertex",
        reads: READS,
        column: Column {
            name: "eccentricity",
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
            // Visited and next-visited masks (8 each), radii (4).
            hot_arrays: vec![8 * vertices, 8 * vertices, 4 * vertices],
            // The frontier, its growth and sorted copy (16 a vertex), and what
            // edge_map's scans hold.
            working_bytes: 16 * vertices + edge_map_bytes(shape.arcs),
            // The verifier's search (three masks, 24 bytes a vertex, and two levels of
            // vertices, 8) and two flags a vertex.
            verifier_bytes: 34 * vertices,
            result_bytes_per_vertex: 4,
            output_bytes_per_vertex: 8,
            released_as_copied: true,
            ..KernelMemory::default()
        }
    }
    fn start(&self, store: &dyn EdgeStore, options: &KernelOptions<()>) -> Result<RadiiState> {
        Ok(RadiiState::new(
            store,
            &options.arrays,
            &pick_sources(store, MAX_SOURCES),
        ))
    }
    /// One round of the multi-source BFS.
    fn step(&self, store: &dyn EdgeStore, state: &mut RadiiState) -> Result<Step> {
        round(store, state)
    }
    fn save(&self, state: &mut RadiiState, out: &mut StateWriter) -> std::io::Result<()> {
        out.array("visited", &state.visited)?;
        out.array("next_visited", &state.next_visited)?;
        out.array("radii", state.radii.cells())?;
        out.array("sources", &state.sources)?;
        out.array("frontier", &state.frontier)?;
        out.number("rounds", state.rounds as u64)
    }
    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<()>,
        saved: &mut StateReader,
    ) -> std::result::Result<RadiiState, StateError> {
        let vertices = store.num_vertices();
        let visited: PropertyVec<AtomicU64> =
            property_vec(&options.arrays, vertices, || AtomicU64::new(0));
        saved.fill("visited", &visited)?;
        let next_visited: PropertyVec<AtomicU64> =
            property_vec(&options.arrays, vertices, || AtomicU64::new(0));
        saved.fill("next_visited", &next_visited)?;
        let radii = U32Array::filled(&options.arrays, vertices, UNREACHED);
        saved.fill("radii", radii.cells())?;
        let sources = saved.vertices("sources", vertices)?;
        if sources.len() > MAX_SOURCES {
            return Err(StateError::Invalid {
                name: "sources".to_string(),
                detail: format!(
                    "{} sources, above the {MAX_SOURCES} a mask holds",
                    sources.len()
                ),
            });
        }
        Ok(RadiiState {
            visited,
            next_visited,
            radii,
            sources,
            frontier: saved.vertices("frontier", vertices)?,
            rounds: saved.number_at_most("rounds", u32::MAX as u64)? as u32,
        })
    }
    fn finish(&self, state: RadiiState) -> RadiiResult {
        RadiiResult {
            radii: state.radii.into_values(),
            sources: state.sources,
            rounds: state.rounds,
        }
    }
    fn summary(
        &self,
        result: &RadiiResult,
        _: &KernelOptions<()>,
        original: &dyn Fn(u32) -> u64,
    ) -> Value {
        json!({
            "sources": result.sources.len(),
            "source_ids": result.sources.iter().map(|&s| original(s)).collect::<Vec<_>>(),
            "rounds": result.rounds,
        })
    }
    fn verify(
        &self,
        graph: &GraphFile,
        _options: &KernelOptions<()>,
        result: &RadiiResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        verify(graph, &result.sources, &result.radii)
    }
    fn output(&self, result: RadiiResult, permutation: Option<&[u32]>) -> Output {
        Output::Int64(reorder_property(result.radii, permutation, |&radius| {
            if radius == u32::MAX {
                -1
            } else {
                radius as i64
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use swapless_build::importers::ImportOptions;

    #[test]
    fn the_verifier_takes_the_last_level_a_source_reaches_and_refuses_any_other() {
        let dir = tempfile::tempdir().unwrap();
        // The path 0 - 1 - 2 - 3 and vertex 4 on its own (its self-loop is dropped).
        let options = ImportOptions {
            undirected: true,
            weighted: false,
            // Test graphs' ids are their vertices, isolated ones too.
            ids: swapless_build::ids::IdMode::Dense,
        };
        let graph = super::super::text_graph(&dir, "0 1\n1 2\n2 3\n4 4\n", options);
        let sources = [0, 3];
        let right = [3, 2, 2, 3, UNREACHED];
        assert_eq!(verify(&graph, &sources, &right), Ok(()));
        let wrong = [
            ([3, 3, 2, 3, UNREACHED], "no source is that far"),
            ([3, 1, 2, 3, UNREACHED], "reaches it at distance 2"),
            ([3, UNREACHED, 2, 3, UNREACHED], "reaches it at distance 1"),
            ([3, 2, 2, 3, 0], "no source reaches it"),
        ];
        for (estimates, expected) in wrong {
            let error = verify(&graph, &sources, &estimates).unwrap_err();
            assert!(error.contains(expected), "{estimates:?}: {error}");
        }
    }
}
