//! The disk tiers serve a weighted graph's weights beside its lists when the plan asks
//! for them (sssp), and none when it does not (every other kernel), from the pinned
//! prefix and from reads alike, in full and partial scans and in gathers.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};

use swapless_format::GraphFile;
use swapless_store::budget::{Tier, plan};
use swapless_store::{Adjacency, DirectStore, EdgeDirection, EdgeStore, ListsNeeded, MmapStore};

/// Asserts that `list` is vertex `vertex`'s list in `graph`, with its weights exactly
/// when `weights` is asked for.
fn assert_list(graph: &GraphFile, vertex: u32, list: Adjacency<'_>, weights: bool) {
    assert_eq!(list.neighbors, &graph.out_neighbors_of(vertex as usize)[..]);
    assert_head(graph, vertex, list, weights);
}

/// Asserts that `list` is the start of vertex `vertex`'s list in `graph` (what a partial
/// scan may deliver), with the weights of those entries exactly when `weights` is asked for.
fn assert_head(graph: &GraphFile, vertex: u32, list: Adjacency<'_>, weights: bool) {
    let whole = graph.out_neighbors_of(vertex as usize);
    assert_eq!(
        list.neighbors,
        &whole[..list.neighbors.len()],
        "vertex {vertex}"
    );
    let start = graph.out_offsets()[vertex as usize] as usize;
    let expected = &graph.out_weights().unwrap()[start..start + list.neighbors.len()];
    match weights {
        true => assert_eq!(list.weights, Some(expected), "vertex {vertex}"),
        false => assert!(list.weights.is_none(), "vertex {vertex}"),
    }
}

#[test]
fn weights_are_served_exactly_when_the_plan_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = common::kron_graph(dir.path(), 14, true);
    let graph = GraphFile::open(&path).unwrap();
    let vertices = graph.num_vertices() as u32;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for weights in [true, false] {
        for tier in [Tier::Direct, Tier::Mmap] {
            let mut request = common::direct_request(1 << 30, 16 << 10, 16);
            request.weights = weights;
            request.tier = Some(tier);
            let least = plan(&graph, &request).unwrap().minimum_bytes();
            // Room for part of the lists beside the least: some pinned, some read.
            request.budget_bytes = Some(least + (1 << 20));
            let placement = plan(&graph, &request).unwrap();
            assert_eq!(placement.weighted(), weights);
            let cached = placement.cached_prefix_bytes().0;
            assert!(
                cached > 0 && cached < graph.num_arcs() as u64 * 4,
                "{cached}"
            );
            let store: Box<dyn EdgeStore> = match tier {
                Tier::Direct => Box::new(DirectStore::open(&path, &placement).unwrap()),
                _ => Box::new(MmapStore::open(&path, &placement).unwrap()),
            };
            assert_eq!(store.weighted(), weights);
            let visited = AtomicU64::new(0);
            pool.install(|| {
                store.scan_blocks(EdgeDirection::Out, 0..vertices, &|block| {
                    for (vertex, list) in block.iter() {
                        assert_list(&graph, vertex, list, weights);
                        visited.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .unwrap();
            assert_eq!(visited.into_inner(), vertices as u64, "{tier:?}");
            // Partial scans: heads of two entries (cc), and all lists but every third (bfs).
            let degree = |vertex: u32| graph.out_neighbors_of(vertex as usize).len();
            pool.install(|| {
                let heads = ListsNeeded::Heads(2);
                store.scan_partial(EdgeDirection::Out, 0..vertices, heads, &|block| {
                    for (vertex, list) in block.iter() {
                        assert_head(&graph, vertex, list, weights);
                        assert!(list.neighbors.len() >= degree(vertex).min(2));
                    }
                })
            })
            .unwrap();
            let every_third = |vertex: u32| vertex.is_multiple_of(3);
            pool.install(|| {
                let needed = ListsNeeded::AllBut(&every_third);
                store.scan_partial(EdgeDirection::Out, 0..vertices, needed, &|block| {
                    for (vertex, list) in block.iter() {
                        assert_head(&graph, vertex, list, weights);
                        if !every_third(vertex) {
                            assert_eq!(list.neighbors.len(), degree(vertex), "{vertex}");
                        }
                    }
                })
            })
            .unwrap();
            let scattered: Vec<u32> = (0..vertices).step_by(7).collect();
            pool.install(|| {
                store.gather(EdgeDirection::Out, &scattered, &|vertex, list| {
                    assert_list(&graph, vertex, list, weights);
                })
            })
            .unwrap();
            // mmap's figure is the process's device reads, which the page cache may spare.
            if tier == Tier::Direct {
                assert!(store.io_stats().bytes_read > 0, "direct read nothing");
            }
        }
    }
}
