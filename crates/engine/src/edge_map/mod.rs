//! Ligra's edgeMap for this engine's tiers: one operator over a frontier's lists that
//! chooses, once for every kernel, how to read them. A frontier whose lists hold few of
//! the arcs is gathered: its lists alone, coalesced into page-exact reads with a deep
//! queue. A larger one is scanned: every list of the frontier's span in file order, in
//! large reads, with the pages of lists outside the frontier skipped (the tiers'
//! partial scans). In memory nothing is read, so a gather is always the cheaper.
//!
//! Either way the kernel's `visit` is called once for each frontier vertex with its
//! list, in parallel and in any order: a kernel written against `edge_map` reads the
//! same on every tier and never chooses an access pattern itself.
//!
//! That is the push, Ligra's sparse mode. Its dense mode, where each vertex that still
//! wants a value pulls over its own list, is [`Pull`] (in `pull`).

mod pull;

pub use pull::{Pull, Pulled, kept_lists_bytes};

use rayon::prelude::*;
use swapless_store::{EdgeDirection, EdgeStore, ListsNeeded, Result, Visit, ascending};

/// A pass gathers the frontier's lists when they hold at most this share (1 / it) of
/// all arcs, and otherwise scans: on the disk tiers a gather of a few lists reads far
/// less than a scan, and a gather of most of them reads the same pages in worse order.
pub const GATHER_FEW_DIVISOR: u64 = 4;

/// Whether lists holding `edges` arcs are few enough to gather instead of scanning all.
pub fn few_enough_to_gather(store: &dyn EdgeStore, edges: u64) -> bool {
    edges <= store.num_arcs() / GATHER_FEW_DIVISOR
}

/// How a pass read the frontier's lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// The frontier's lists alone (sparse).
    Gathered,
    /// A scan of the frontier's span that skipped the pages of the other lists (dense).
    Scanned,
}

/// Bytes a kernel that calls [`edge_map`] holds for it beyond its own arrays, on a graph
/// of `arcs` arcs: what a disk tier's scan that skips lists keeps to know which it cuts.
pub fn edge_map_bytes(arcs: u64) -> u64 {
    ListsNeeded::skips_held_bytes(arcs)
}

/// Calls `visit(vertex, list)` once for each vertex of `frontier` (distinct ids, in any
/// order; ascending saves a sorted copy) with its list in `direction`, reading them the
/// cheaper way (see the module's comment), and says which way it took.
pub fn edge_map(
    store: &dyn EdgeStore,
    direction: EdgeDirection,
    frontier: &[u32],
    visit: &Visit,
) -> Result<Pass> {
    // In memory, or with nothing to read, the frontier's degrees need not be summed.
    let gather = frontier.is_empty() || store.direct_io().is_none() || {
        let offsets = store.offsets(direction);
        let edges: u64 = frontier
            .par_iter()
            .with_min_len(4096)
            .map(|&vertex| offsets.degree(vertex as usize))
            .sum();
        few_enough_to_gather(store, edges)
    };
    if gather {
        store.gather(direction, frontier, visit)?;
        return Ok(Pass::Gathered);
    }
    let sorted = ascending(frontier);
    let outside = |vertex: u32| sorted.binary_search(&vertex).is_err();
    let span = sorted[0]..sorted[sorted.len() - 1] + 1;
    store.scan_partial(direction, span, ListsNeeded::AllBut(&outside), &|block| {
        let vertices = block.vertices();
        let from = sorted.partition_point(|&vertex| vertex < vertices.start);
        let to = sorted.partition_point(|&vertex| vertex < vertices.end);
        for &vertex in &sorted[from..to] {
            visit(vertex, block.list((vertex - vertices.start) as usize));
        }
    })?;
    Ok(Pass::Scanned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use swapless_format::GraphFile;
    use swapless_store::{DramStore, MmapStore, PlanRequest, Tier};

    /// Each vertex `edge_map` visited with its list, in vertex order, and how it read.
    fn visited(store: &dyn EdgeStore, frontier: &[u32]) -> (Vec<(u32, Vec<u32>)>, Pass) {
        let seen = Mutex::new(Vec::new());
        let pass = edge_map(store, EdgeDirection::Out, frontier, &|vertex, list| {
            seen.lock().unwrap().push((vertex, list.neighbors.to_vec()));
        })
        .unwrap();
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        (seen, pass)
    }

    #[test]
    fn a_large_frontier_is_scanned_a_small_one_gathered_and_each_list_visited_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kron.sl");
        swapless_build::generators::write_kronecker(&path, 12, 8, false, 3).unwrap();
        let graph = GraphFile::open(&path).unwrap();
        let request = PlanRequest {
            kernel: "test".to_string(),
            property_bytes: 0,
            thread_bytes: 0,
            threads: 2,
            network_bytes: 0,
            optional_property_bytes: 0,
            output_bytes: 0,
            verification_bytes: None,
            out_lists: true,
            in_lists: false,
            weights: false,
            out_heads: false,
            gather_cache_fraction: None,
            searches: false,
            budget_bytes: Some(64 << 20),
            default_budget_bytes: 64 << 20,
            tier: Some(Tier::Mmap),
            offset_form: None,
            chunk_bytes: None,
            queue_depth: 16,
        };
        let plan = swapless_store::budget::plan(&graph, &request).unwrap();
        let mmap = MmapStore::open(&path, &plan).unwrap();
        let dram = DramStore::load(&path, false, false).unwrap();
        let lists = |frontier: &[u32]| -> Vec<(u32, Vec<u32>)> {
            let mut lists: Vec<(u32, Vec<u32>)> = frontier
                .iter()
                .map(|&vertex| (vertex, graph.out_neighbors_of(vertex as usize).to_vec()))
                .collect();
            lists.sort();
            lists
        };
        // Every other vertex, given in descending order: most of the arcs.
        let large: Vec<u32> = (0..graph.num_vertices() as u32).rev().step_by(2).collect();
        let small: Vec<u32> = vec![7, 3, 900];
        assert_eq!(visited(&mmap, &large), (lists(&large), Pass::Scanned));
        assert_eq!(visited(&mmap, &small), (lists(&small), Pass::Gathered));
        // In memory nothing is read: always a gather.
        assert_eq!(visited(&dram, &large), (lists(&large), Pass::Gathered));
        assert_eq!(visited(&mmap, &[]), (Vec::new(), Pass::Gathered));
    }
}
