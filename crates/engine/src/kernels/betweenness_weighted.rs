//! Betweenness by edge weight (`wbc`): Brandes over shortest paths by weight, as
//! networkx's `betweenness_centrality(G, weight=...)` counts them.
//!
//! Per source: the distances come from a delta-stepping search (sssp's, so a search
//! reads lists in large gathers as every search here does). The reached vertices,
//! sorted by distance, fall into levels of equal distance. With positive weights a
//! vertex's predecessors on shortest paths lie in earlier levels, so each level's
//! path counts are final once the levels before it pushed theirs, and each level's
//! dependencies once the levels after it are done: a level is one `edge_map`, as a
//! BFS level is in unweighted betweenness. An edge is on a shortest path when
//! `distance(v) + weight == distance(w)` exactly: the search's distances are those
//! same sums, so the test holds for every tight edge.
//!
//! A tight edge of weight 0 would make a vertex's predecessor lie in its own level,
//! and networkx's answer then depends on the order its heap pops ties: such a run is
//! refused ([`Refusal::ZeroWeightPaths`]).

use super::sssp::{Sssp, dijkstra};
use crate::edge_map::edge_map;
use crate::kernel::{Kernel, KernelOptions, Refusal, Step};
use crate::property::{F64Array, PropertyArrays};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, Result};

/// The weight of entry `index` of a list (1 on an unweighted graph).
fn weight_at(weights: Option<&[f32]>, index: usize) -> f64 {
    weights.map_or(1.0, |weights| weights[index] as f64)
}

/// The vertices `distances` reaches, by distance (then id), and where each level of
/// equal distance starts in them (with the end last).
fn levels_by_distance(distances: &[f64]) -> (Vec<u32>, Vec<usize>) {
    let mut order: Vec<u32> = (0..distances.len() as u32)
        .into_par_iter()
        .filter(|&vertex| distances[vertex as usize].is_finite())
        .collect();
    order.par_sort_unstable_by(|&a, &b| {
        distances[a as usize]
            .total_cmp(&distances[b as usize])
            .then(a.cmp(&b))
    });
    let mut starts: Vec<usize> = (0..order.len())
        .filter(|&index| {
            index == 0 || distances[order[index] as usize] != distances[order[index - 1] as usize]
        })
        .collect();
    starts.push(order.len());
    (order, starts)
}

/// Adds the dependencies on shortest paths by weight from `source` to `scores`
/// (unnormalized), the arrays of one source made through `arrays`; the refusal when a
/// tight edge weighs 0.
pub(super) fn accumulate_weighted_from(
    store: &dyn EdgeStore,
    arrays: &PropertyArrays,
    source: u32,
    delta: f64,
    scores: &F64Array,
) -> Result<Option<Refusal>> {
    let options = KernelOptions {
        source,
        optional_held: false,
        parameters: delta,
        arrays: arrays.clone(),
    };
    let mut search = Sssp.start(store, &options)?;
    loop {
        match Sssp.step(store, &mut search)? {
            Step::More => {}
            Step::Done => break,
            Step::Refused(refusal) => return Ok(Some(refusal)),
        }
    }
    let distances = Sssp.finish(search).distances;
    let (order, starts) = levels_by_distance(&distances);
    let vertices = store.num_vertices();
    let paths = F64Array::filled(arrays, vertices, 0.0);
    let dependency = F64Array::filled(arrays, vertices, 0.0);
    paths.set(source, 1.0);
    let zero_weight_tight = AtomicBool::new(false);
    let levels = || starts.windows(2).map(|bounds| &order[bounds[0]..bounds[1]]);
    for level in levels() {
        edge_map(store, EdgeDirection::Out, level, &|vertex, list| {
            let distance = distances[vertex as usize];
            let my_paths = paths.get(vertex);
            for (index, &neighbor) in list.neighbors.iter().enumerate() {
                if distance + weight_at(list.weights, index) == distances[neighbor as usize] {
                    if distances[neighbor as usize] == distance {
                        zero_weight_tight.store(true, Ordering::Relaxed);
                    }
                    paths.fetch_add(neighbor, my_paths);
                }
            }
        })?;
        if zero_weight_tight.load(Ordering::Relaxed) {
            return Ok(Some(Refusal::ZeroWeightPaths));
        }
    }
    for level in levels().rev() {
        edge_map(store, EdgeDirection::Out, level, &|vertex, list| {
            let distance = distances[vertex as usize];
            let my_paths = paths.get(vertex);
            let mut total = 0.0;
            for (index, &neighbor) in list.neighbors.iter().enumerate() {
                if distance + weight_at(list.weights, index) == distances[neighbor as usize] {
                    total += my_paths / paths.get(neighbor) * (1.0 + dependency.get(neighbor));
                }
            }
            dependency.set(vertex, total);
            if vertex != source {
                scores.set(vertex, scores.get(vertex) + total);
            }
        })?;
    }
    Ok(None)
}

/// The unnormalized scores a serial Brandes by weight on the file gives from `sources`
/// (each search a serial Dijkstra, each pass in distance order), or why it cannot.
pub(super) fn serial_weighted_scores(
    graph: &GraphFile,
    sources: &[u32],
) -> std::result::Result<Vec<f64>, String> {
    let vertices = graph.num_vertices();
    let mut scores = vec![0.0f64; vertices];
    for &source in sources {
        let distances = dijkstra(graph, source);
        let mut order: Vec<u32> = (0..vertices as u32)
            .filter(|&vertex| distances[vertex as usize].is_finite())
            .collect();
        order.sort_by(|&a, &b| distances[a as usize].total_cmp(&distances[b as usize]));
        let tight = |vertex: usize, index: usize, neighbor: usize| {
            let weights = graph.out_weights_of(vertex);
            distances[vertex] + weight_at(weights.as_deref(), index) == distances[neighbor]
        };
        let mut paths = vec![0.0f64; vertices];
        paths[source as usize] = 1.0;
        for &vertex in &order {
            let vertex = vertex as usize;
            for (index, &neighbor) in graph.out_neighbors_of(vertex).iter().enumerate() {
                let neighbor = neighbor as usize;
                if tight(vertex, index, neighbor) {
                    if distances[neighbor] == distances[vertex] {
                        return Err(format!(
                            "the edge from {vertex} to {neighbor} weighs 0 on a shortest path"
                        ));
                    }
                    paths[neighbor] += paths[vertex];
                }
            }
        }
        let mut dependency = vec![0.0f64; vertices];
        for &vertex in order.iter().rev() {
            let vertex = vertex as usize;
            for (index, &neighbor) in graph.out_neighbors_of(vertex).iter().enumerate() {
                let neighbor = neighbor as usize;
                if tight(vertex, index, neighbor) {
                    dependency[vertex] +=
                        paths[vertex] / paths[neighbor] * (1.0 + dependency[neighbor]);
                }
            }
            if vertex != source as usize {
                scores[vertex] += dependency[vertex];
            }
        }
    }
    Ok(scores)
}

#[cfg(test)]
mod tests {
    use super::*;
    use swapless_build::importers::ImportOptions;

    #[test]
    fn levels_group_equal_distances_and_leave_out_the_unreached() {
        let distances = [0.0, 3.0, f64::INFINITY, 1.5, 3.0, 1.5];
        let (order, starts) = levels_by_distance(&distances);
        assert_eq!(order, [0, 3, 5, 1, 4]);
        assert_eq!(starts, [0, 1, 3, 5]);
    }

    #[test]
    fn weights_choose_the_shortest_paths_that_count() {
        // 0 -1- 1 -1- 3 and 0 -1- 2 -1- 3: two shortest paths to 3, through 1 and 2;
        // 0 -3- 3 directly is longer, so it carries none. Undirected.
        let dir = tempfile::tempdir().unwrap();
        let options = ImportOptions {
            undirected: true,
            weighted: true,
            ids: swapless_build::ids::IdMode::Dense,
        };
        let graph = super::super::text_graph(&dir, "0 1 1\n1 3 1\n0 2 1\n2 3 1\n0 3 3\n", options);
        let scores = serial_weighted_scores(&graph, &[0, 1, 2, 3]).unwrap();
        // Each of 1 and 2 lies on half of the two paths between 0 and 3, both ways; 0
        // and 3 each on half of the paths between 1 and 2, both ways.
        assert_eq!(scores, [1.0, 1.0, 1.0, 1.0]);
        let store = swapless_store::DramStore::load(&dir.path().join("g.sl"), false, true).unwrap();
        let arrays = PropertyArrays::default();
        let found = F64Array::filled(&arrays, 4, 0.0);
        for source in 0..4 {
            let refused = accumulate_weighted_from(&store, &arrays, source, 1.0, &found).unwrap();
            assert_eq!(refused, None);
        }
        assert_eq!(found.into_values().to_vec(), scores);
        // The kernel's verifier takes the normalized scores and refuses a changed one.
        use super::super::betweenness::{Betweenness, BetweennessOptions, Sources};
        let kernel = Betweenness::<true>;
        let options = KernelOptions {
            source: 0,
            optional_held: false,
            parameters: BetweennessOptions {
                sources: Sources::All,
                delta: 1.0,
            },
            arrays: arrays.clone(),
        };
        let mut state = kernel.start(&store, &options).unwrap();
        while kernel.step(&store, &mut state).unwrap() == Step::More {}
        let mut result = kernel.finish(state);
        assert_eq!(kernel.verify(&graph, &options, &result, u64::MAX), Ok(()));
        result.scores[2] += 1e-6;
        assert!(kernel.verify(&graph, &options, &result, u64::MAX).is_err());
    }

    #[test]
    fn a_zero_weight_edge_on_a_shortest_path_is_refused_and_one_off_them_is_not() {
        let options = ImportOptions {
            undirected: false,
            weighted: true,
            ids: swapless_build::ids::IdMode::Dense,
        };
        // From 0: 1 -0-> 2 is tight (2 at distance 2, as 1); from 2, 2 -0-> 0 is.
        // From 3: 4 -0-> 3 leads back to the source, tight for no vertex.
        let dir = tempfile::tempdir().unwrap();
        let text = "0 1 2\n1 2 0\n0 2 5\n2 0 0\n3 4 1\n4 3 0\n";
        let graph = super::super::text_graph(&dir, text, options);
        let store = swapless_store::DramStore::load(&dir.path().join("g.sl"), false, true).unwrap();
        let arrays = PropertyArrays::default();
        for (source, refused) in [(0, true), (2, true), (3, false)] {
            let scores = F64Array::filled(&arrays, 5, 0.0);
            let found = accumulate_weighted_from(&store, &arrays, source, 1.0, &scores).unwrap();
            let expected = refused.then_some(Refusal::ZeroWeightPaths);
            assert_eq!(found, expected, "from {source}");
            let serial = serial_weighted_scores(&graph, &[source]);
            assert_eq!(serial.is_err(), refused, "from {source}: {serial:?}");
        }
    }
}
