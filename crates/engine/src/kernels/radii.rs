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
use rayon::prelude::*;
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, Result};

use crate::frontier::ThreadBuffers;
use crate::property::{PropertyVec, U32Array, property_vec};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: false,
    weights: false,
    out_heads: false,
};

/// Bytes of this kernel's own arrays (for the plan): two visited masks (16), estimates (4), the frontier, its growth and sorted copy (16), per vertex.
pub fn property_bytes(vertices: u64, _arcs: u64) -> u64 {
    36 * vertices
}

/// Bytes of each fixed-size array this kernel makes, in the order it makes them, so
/// the runner can reserve them before the graph is loaded: visited and next-visited masks (8 each), radii (4).
pub fn property_arrays(vertices: u64) -> Vec<u64> {
    vec![8 * vertices, 8 * vertices, 4 * vertices]
}

/// Sources sampled at most (bits in a mask).
pub const MAX_SOURCES: usize = 64;
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
    let vertices = store.num_vertices();
    let sources = &sources[..sources.len().min(MAX_SOURCES)];
    let visited: PropertyVec<AtomicU64> = property_vec(vertices, || AtomicU64::new(0));
    let next_visited: PropertyVec<AtomicU64> = property_vec(vertices, || AtomicU64::new(0));
    let radii = U32Array::filled(vertices, UNREACHED);
    for (bit, &source) in sources.iter().enumerate() {
        visited[source as usize].fetch_or(1 << bit, Ordering::Relaxed);
        next_visited[source as usize].fetch_or(1 << bit, Ordering::Relaxed);
        radii.set(source, 0);
    }
    let mut frontier: Vec<u32> = sources.to_vec();
    frontier.sort_unstable();
    frontier.dedup();
    let mut rounds = 0;
    while !frontier.is_empty() {
        rounds += 1;
        let mut next = ThreadBuffers::new();
        store.gather(EdgeDirection::Out, &frontier, &|vertex, list| {
            let mask = visited[vertex as usize].load(Ordering::Relaxed);
            for &neighbor in list.neighbors {
                let slot = &next_visited[neighbor as usize];
                if mask & !slot.load(Ordering::Relaxed) != 0 {
                    let before = slot.fetch_or(mask, Ordering::Relaxed);
                    // Only the thread that first changes the mask this round enqueues the vertex.
                    if before | mask != before
                        && before == visited[neighbor as usize].load(Ordering::Relaxed)
                    {
                        radii.set(neighbor, rounds);
                        next.push(neighbor, 0);
                    }
                }
            }
        })?;
        frontier = next.drain().0;
        frontier.par_iter().for_each(|&vertex| {
            let mask = next_visited[vertex as usize].load(Ordering::Relaxed);
            visited[vertex as usize].store(mask, Ordering::Relaxed);
        });
    }
    Ok(RadiiResult {
        radii: radii.into_values(),
        sources: sources.to_vec(),
        rounds,
    })
}

/// Bytes [`verify`] holds besides the result: the reference estimates (4 a vertex) and
/// one serial BFS's depths and queue (8).
pub fn verifier_bytes(vertices: u64) -> u64 {
    12 * vertices
}

/// Checks estimates against serial BFS from each source: each vertex's estimate
/// is its largest distance from a source that reaches it.
pub fn verify(
    graph: &GraphFile,
    sources: &[u32],
    radii: &[u32],
) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    let mut reference = vec![UNREACHED; vertices];
    for &source in &sources[..sources.len().min(MAX_SOURCES)] {
        let depth = super::serial_depths(graph, source);
        for (slot, &d) in reference.iter_mut().zip(&depth) {
            if d != u32::MAX {
                *slot = if *slot == UNREACHED {
                    d
                } else {
                    (*slot).max(d)
                };
            }
        }
    }
    match (0..vertices).find(|&v| radii[v] != reference[v]) {
        Some(v) => Err(format!(
            "vertex {v} has estimate {} but serial BFS gives {}",
            radii[v], reference[v]
        )),
        None => Ok(()),
    }
}
