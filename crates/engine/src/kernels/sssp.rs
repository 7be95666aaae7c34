//! Single-source shortest paths by delta-stepping (Meyer and Sanders), with
//! per-thread bins as in GAP.
//!
//! Output: the distance per vertex (float64); +inf for unreached. Unweighted
//! graphs use weight 1 per edge. Negative weights are refused.
//!
//! Vertices wait in bins of width `delta` by tentative distance; the lowest
//! non-empty bin is relaxed (a sparse `gather`) until it stays empty, then the
//! next. Re-inserted vertices whose distance has since dropped below the current
//! bin are skipped.

use std::cell::RefCell;

use super::Reads;
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, Result};
use thread_local::ThreadLocal;

use crate::property::F64Array;

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: false,
};

/// Bytes of this kernel's own arrays (for the plan): distances (8), the frontier and its sorted copy (8) and bins (8), per vertex.
pub fn property_bytes(vertices: u64, _arcs: u64) -> u64 {
    24 * vertices
}

/// What an SSSP run found.
pub struct SsspResult {
    /// Distance per vertex, internal ids; +inf for unreached.
    pub distances: Vec<f64>,
    /// Vertices reached.
    pub reached: u64,
    /// Bin passes taken.
    pub steps: u64,
}

/// Runs delta-stepping from `source` (internal id) with bin width `delta` (> 0).
pub fn sssp(store: &dyn EdgeStore, source: u32, delta: f64) -> Result<SsspResult> {
    let vertices = store.num_vertices();
    let distances = F64Array::filled(vertices, f64::INFINITY);
    distances.set(source, 0.0);
    let mut bins: ThreadLocal<RefCell<Vec<Vec<u32>>>> = ThreadLocal::new();
    let mut frontier = vec![source];
    let mut bin = 0usize;
    let mut steps = 0u64;
    loop {
        let threshold = delta * bin as f64;
        store.gather(EdgeDirection::Out, &frontier, &|vertex, list| {
            let distance = distances.get(vertex);
            if distance < threshold {
                return;
            }
            let mut local = bins.get_or_default().borrow_mut();
            for (index, &neighbor) in list.neighbors.iter().enumerate() {
                let weight = list.weights.map_or(1.0, |weights| weights[index] as f64);
                let candidate = distance + weight;
                if distances.fetch_min(neighbor, candidate) {
                    let target = (candidate / delta) as usize;
                    if local.len() <= target {
                        local.resize_with(target + 1, Vec::new);
                    }
                    local[target].push(neighbor);
                }
            }
        })?;
        steps += 1;
        // The next bin is the lowest non-empty one at or after the current bin.
        let mut locals: Vec<_> = bins.iter_mut().map(RefCell::get_mut).collect();
        let next = locals
            .iter()
            .filter_map(|local| {
                local
                    .iter()
                    .enumerate()
                    .skip(bin)
                    .find(|(_, b)| !b.is_empty())
                    .map(|(i, _)| i)
            })
            .min();
        let Some(next) = next else { break };
        bin = next;
        frontier.clear();
        for local in locals.iter_mut() {
            if let Some(vertices_in_bin) = local.get_mut(bin) {
                frontier.append(vertices_in_bin);
            }
        }
    }
    let distances = distances.into_vec();
    let reached = distances.iter().filter(|d| d.is_finite()).count() as u64;
    Ok(SsspResult {
        distances,
        reached,
        steps,
    })
}

/// Whether every weight of the graph is non-negative (delta-stepping's requirement).
pub fn weights_are_non_negative(graph: &GraphFile) -> swapless_format::Result<bool> {
    // Read in blocks rather than through the map, so the check stays within a budget.
    let mut non_negative = true;
    graph.for_each_block(swapless_format::SectionKind::OutWeights, &mut |block| {
        non_negative &= block
            .chunks_exact(4)
            .all(|bytes| f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) >= 0.0);
    })?;
    Ok(non_negative)
}

/// Checks distances against a serial Dijkstra on the file (relative error 1e-9).
pub fn verify(
    graph: &GraphFile,
    source: u32,
    distances: &[f64],
) -> std::result::Result<(), String> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let vertices = graph.num_vertices();
    let mut reference = vec![f64::INFINITY; vertices];
    reference[source as usize] = 0.0;
    let mut heap = BinaryHeap::from([Reverse((0u64, source))]);
    let offsets = graph.out_offsets();
    while let Some(Reverse((bits, vertex))) = heap.pop() {
        let distance = f64::from_bits(bits);
        if distance > reference[vertex as usize] {
            continue;
        }
        let start = offsets[vertex as usize] as usize;
        for (index, &neighbor) in graph.out_neighbors_of(vertex as usize).iter().enumerate() {
            let weight = graph.out_weights().map_or(1.0, |w| w[start + index] as f64);
            let candidate = distance + weight;
            if candidate < reference[neighbor as usize] {
                reference[neighbor as usize] = candidate;
                // Non-negative f64 bit patterns order like the numbers.
                heap.push(Reverse((candidate.to_bits(), neighbor)));
            }
        }
    }
    for vertex in 0..vertices {
        let (ours, expected) = (distances[vertex], reference[vertex]);
        let agree = if expected.is_finite() {
            (ours - expected).abs() <= 1e-9 * expected.max(1.0)
        } else {
            ours == expected
        };
        if !agree {
            return Err(format!(
                "vertex {vertex} has distance {ours} but Dijkstra gives {expected}"
            ));
        }
    }
    Ok(())
}
