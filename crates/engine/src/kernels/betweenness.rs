//! Betweenness centrality by Brandes' algorithm from sampled sources, as GAP.
//!
//! Output: a score per vertex (float64) normalized so the largest is 1 (all
//! zeros if no vertex lies on a shortest path). With `K` sources the scores
//! estimate betweenness; with every vertex as a source they are exact (up to
//! the normalization).
//!
//! Per source: a level-synchronous BFS counts shortest paths (`gather` on each
//! level), then levels are walked back from the deepest, each vertex collecting
//! the dependencies of its successors.

use super::Reads;
use rayon::prelude::*;
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, Result};

use crate::frontier::ThreadBuffers;
use crate::property::{F64Array, PropertyVec, U32Array};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: false,
    weights: false,
    out_heads: false,
};

/// Bytes of this kernel's own arrays (for the plan): depths (4), path counts (8), dependencies (8), scores (8), levels (4) and the gather's sorted copy (4), per vertex.
pub fn property_bytes(vertices: u64, _arcs: u64) -> u64 {
    36 * vertices
}

/// Bytes of each fixed-size array this kernel makes, in the order it makes them, so
/// the runner can reserve them before the graph is loaded: scores (8), and per source depth (4), paths (8), dependency (8).
pub fn property_arrays(vertices: u64) -> Vec<u64> {
    vec![8 * vertices, 4 * vertices, 8 * vertices, 8 * vertices]
}

const UNSEEN: u32 = u32::MAX;

/// What a BC run found.
pub struct BetweennessResult {
    /// Score per vertex, internal ids, normalized by the maximum.
    pub scores: PropertyVec<f64>,
    /// Sources used.
    pub sources: Vec<u32>,
}

/// Accumulates (unnormalized) dependencies from `source` into `scores`.
fn accumulate_from(store: &dyn EdgeStore, source: u32, scores: &F64Array) -> Result<()> {
    let vertices = store.num_vertices();
    let depth = U32Array::filled(vertices, UNSEEN);
    let paths = F64Array::filled(vertices, 0.0);
    let dependency = F64Array::filled(vertices, 0.0);
    depth.set(source, 0);
    paths.set(source, 1.0);
    let mut levels = vec![vec![source]];
    loop {
        let frontier = levels.last().expect("at least the source level");
        let level = levels.len() as u32 - 1;
        let mut next = ThreadBuffers::new();
        store.gather(EdgeDirection::Out, frontier, &|vertex, list| {
            let my_paths = paths.get(vertex);
            for &neighbor in list.neighbors {
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
        store.gather(EdgeDirection::Out, members, &|vertex, list| {
            let my_paths = paths.get(vertex);
            let mut total = 0.0;
            for &neighbor in list.neighbors {
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
    let scores = F64Array::filled(store.num_vertices(), 0.0);
    for &source in sources {
        accumulate_from(store, source, &scores)?;
    }
    let mut scores = scores.into_values();
    normalize(&mut scores);
    Ok(BetweennessResult {
        scores,
        sources: sources.to_vec(),
    })
}

fn normalize(scores: &mut [f64]) {
    let largest = scores.par_iter().cloned().reduce(|| 0.0, f64::max);
    if largest > 0.0 {
        scores.par_iter_mut().for_each(|score| *score /= largest);
    }
}

/// Bytes [`verify`] holds besides the scores: the reference scores (8 a vertex) and one
/// source's depths (4), path counts (8), dependencies (8) and visiting order (4).
pub fn verifier_bytes(vertices: u64) -> u64 {
    32 * vertices
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
            for &neighbor in graph.out_neighbors_of(vertex) {
                if depth[neighbor as usize] == depth[vertex] + 1 {
                    paths[neighbor as usize] += paths[vertex];
                }
            }
        }
        let mut dependency = vec![0.0f64; vertices];
        for &vertex in order.iter().rev() {
            let vertex = vertex as usize;
            for &neighbor in graph.out_neighbors_of(vertex) {
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
    match (0..vertices).find(|&v| (scores[v] - reference[v]).abs() > 1e-9) {
        Some(v) => Err(format!(
            "vertex {v} has score {} but serial Brandes gives {}",
            scores[v], reference[v]
        )),
        None => Ok(()),
    }
}
