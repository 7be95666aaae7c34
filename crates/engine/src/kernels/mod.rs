//! The kernels, one file each, each with a serial verifier that reads the graph
//! file directly (never through the store it checks).

pub mod betweenness;
pub mod bfs;
pub mod connected_components;
pub mod maximal_independent_set;
pub mod pagerank;
pub mod radii;
pub mod sssp;
pub mod triangle_count;

use swapless_store::{EdgeDirection, EdgeStore};

/// Seed of the reproducible source picker (GAP also uses a fixed seed).
pub const SOURCE_SEED: u64 = 27491095;

/// A reproducible source with non-zero out-degree (as GAP picks them), in internal ids;
/// `trial` picks the next one of the same sequence.
pub fn pick_source(store: &dyn EdgeStore, trial: u64) -> Option<u32> {
    let vertices = store.num_vertices() as u64;
    if vertices == 0 || store.num_arcs() == 0 {
        return None;
    }
    let mut state = SOURCE_SEED;
    let mut found = 0;
    // splitmix64 draws; every vertex with an edge is reachable, so this ends.
    loop {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        let vertex = (z % vertices) as u32;
        if store.degree(EdgeDirection::Out, vertex) > 0 {
            if found == trial {
                return Some(vertex);
            }
            found += 1;
        }
    }
}

/// Up to `count` distinct reproducible sources with out-degree > 0 (fewer if the
/// graph has fewer such vertices), in internal ids.
pub fn pick_sources(store: &dyn EdgeStore, count: usize) -> Vec<u32> {
    let with_edges = (0..store.num_vertices() as u32)
        .filter(|&v| store.degree(EdgeDirection::Out, v) > 0)
        .take(count)
        .count();
    let mut sources = Vec::with_capacity(with_edges);
    let mut trial = 0;
    while sources.len() < with_edges {
        match pick_source(store, trial) {
            Some(source) if !sources.contains(&source) => sources.push(source),
            Some(_) => {}
            None => break,
        }
        trial += 1;
    }
    sources
}

/// Reorders per-vertex values from internal ids to original ids.
pub fn to_original_order<T: Copy + Default>(values: Vec<T>, permutation: Option<&[u32]>) -> Vec<T> {
    match permutation {
        None => values,
        Some(new_to_old) => {
            let mut original = vec![T::default(); values.len()];
            for (new, value) in values.into_iter().enumerate() {
                original[new_to_old[new] as usize] = value;
            }
            original
        }
    }
}

/// Sums `values` in fixed-size chunks and then in order, so the result does not
/// depend on how many threads ran.
pub fn deterministic_sum(values: impl rayon::iter::IndexedParallelIterator<Item = f64>) -> f64 {
    use rayon::prelude::*;
    let partial: Vec<f64> = values
        .chunks(4096)
        .map(|chunk| chunk.into_iter().sum::<f64>())
        .collect();
    partial.into_iter().sum()
}
