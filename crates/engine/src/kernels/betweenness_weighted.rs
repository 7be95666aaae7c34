//! Betweenness by edge weight (`wbc`): Brandes over shortest paths by weight, as
//! networkx's `betweenness_centrality(G, weight=...)` counts them.
//!
//! Per source: the distances come from a delta-stepping search (sssp's, so a search
//! reads lists in large gathers as every search here does). An edge is on a shortest
//! path (tight) when `distance(v) + weight == distance(w)` exactly: the search's
//! distances are those same sums, so the test holds for every tight edge. With positive
//! weights the tight edges make a DAG, walked in rounds as a BFS walks levels: a vertex
//! joins a round once every tight edge into it has pushed its path count (a count of
//! them per vertex, made by one pass over the reached vertices' lists). The rounds are
//! as many as the DAG is deep in hops (a BFS's levels on unit weights), each one
//! `edge_map` over a large frontier. In memory, where no page is read, the vertices are
//! instead taken in levels of equal distance (one sort, no count pass): on weights
//! 1..255 that is thousands of small levels, which out of core read each page of lists
//! once per level that touched it, but in memory it saves the pass the counts take.
//! Either way the dependencies are summed back over the same groups in reverse, and the
//! answer is the same.
//!
//! A tight edge of weight 0 would put a vertex's predecessor at its own distance, and
//! networkx's answer then depends on the order its heap pops ties: such a run is
//! refused ([`Refusal::ZeroWeightPaths`]).

use super::sssp::{Sssp, dijkstra};
use crate::edge_map::edge_map;
use crate::frontier::ThreadBuffers;
use crate::kernel::{Kernel, KernelOptions, Refusal, Step};
use crate::property::{F64Array, PropertyArrays, U32Array};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, Result};

/// The weight of entry `index` of a list (1 on an unweighted graph).
fn weight_at(weights: Option<&[f32]>, index: usize) -> f64 {
    weights.map_or(1.0, |weights| weights[index] as f64)
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
        optional_bytes: 0,
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
    let vertices = store.num_vertices();
    let tight = |vertex: u32, weights: Option<&[f32]>, index: usize, neighbor: u32| {
        distances[vertex as usize] + weight_at(weights, index) == distances[neighbor as usize]
    };
    let paths = F64Array::filled(arrays, vertices, 0.0);
    paths.set(source, 1.0);
    let groups = match store.direct_io() {
        None => levels_by_distance(store, &distances, &paths, &tight)?,
        Some(_) => rounds_of_the_dag(store, (arrays, source), &distances, &paths, &tight)?,
    };
    let Some(groups) = groups else {
        return Ok(Some(Refusal::ZeroWeightPaths));
    };
    // Dependencies back: a vertex's tight successors all lie in later groups.
    let dependency = F64Array::filled(arrays, vertices, 0.0);
    for group in groups.iter().rev() {
        edge_map(store, EdgeDirection::Out, group, &|vertex, list| {
            let my_paths = paths.get(vertex);
            let mut total = 0.0;
            for (index, &neighbor) in list.neighbors.iter().enumerate() {
                if tight(vertex, list.weights, index, neighbor) {
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

/// Whether the edge at `index` of `vertex`'s list (with `weights`) to `neighbor` lies on
/// a shortest path.
type Tight<'a> = dyn Fn(u32, Option<&[f32]>, usize, u32) -> bool + Sync + 'a;

/// Counts the shortest paths to each reached vertex into `paths` (the source's 1
/// already), walking levels of equal distance; the levels, in order, or `None` when a
/// tight edge weighs 0.
fn levels_by_distance(
    store: &dyn EdgeStore,
    distances: &[f64],
    paths: &F64Array,
    tight: &Tight,
) -> Result<Option<Vec<Vec<u32>>>> {
    let mut order: Vec<u32> = (0..distances.len() as u32)
        .into_par_iter()
        .filter(|&vertex| distances[vertex as usize].is_finite())
        .collect();
    order.par_sort_unstable_by(|&a, &b| {
        distances[a as usize]
            .total_cmp(&distances[b as usize])
            .then(a.cmp(&b))
    });
    let levels: Vec<Vec<u32>> = order
        .chunk_by(|&a, &b| distances[a as usize] == distances[b as usize])
        .map(<[u32]>::to_vec)
        .collect();
    drop(order);
    let zero_weight_tight = AtomicBool::new(false);
    for level in &levels {
        edge_map(store, EdgeDirection::Out, level, &|vertex, list| {
            let my_paths = paths.get(vertex);
            for (index, &neighbor) in list.neighbors.iter().enumerate() {
                if tight(vertex, list.weights, index, neighbor) {
                    if distances[neighbor as usize] == distances[vertex as usize] {
                        zero_weight_tight.store(true, Ordering::Relaxed);
                    }
                    paths.fetch_add(neighbor, my_paths);
                }
            }
        })?;
        if zero_weight_tight.load(Ordering::Relaxed) {
            return Ok(None);
        }
    }
    Ok(Some(levels))
}

/// Counts the shortest paths to each reached vertex into `paths` (the source's 1
/// already), walking the DAG of tight edges in rounds; the rounds, in order, or `None`
/// when a tight edge weighs 0.
fn rounds_of_the_dag(
    store: &dyn EdgeStore,
    (arrays, source): (&PropertyArrays, u32),
    distances: &[f64],
    paths: &F64Array,
    tight: &Tight,
) -> Result<Option<Vec<Vec<u32>>>> {
    let vertices = distances.len();
    // Tight edges into each vertex, from one pass over the reached vertices' lists.
    let reached: Vec<u32> = (0..vertices as u32)
        .into_par_iter()
        .filter(|&vertex| distances[vertex as usize].is_finite())
        .collect();
    let waiting = U32Array::filled(arrays, vertices, 0);
    let zero_weight_tight = AtomicBool::new(false);
    edge_map(store, EdgeDirection::Out, &reached, &|vertex, list| {
        for (index, &neighbor) in list.neighbors.iter().enumerate() {
            if tight(vertex, list.weights, index, neighbor) {
                if distances[neighbor as usize] == distances[vertex as usize] {
                    zero_weight_tight.store(true, Ordering::Relaxed);
                }
                waiting.fetch_add(neighbor, 1);
            }
        }
    })?;
    if zero_weight_tight.load(Ordering::Relaxed) {
        return Ok(None);
    }
    drop(reached);
    // Path counts forward, round by round.
    let mut rounds = vec![vec![source]];
    loop {
        let frontier = rounds.last().expect("at least the source's round");
        let mut next = ThreadBuffers::new();
        edge_map(store, EdgeDirection::Out, frontier, &|vertex, list| {
            let my_paths = paths.get(vertex);
            for (index, &neighbor) in list.neighbors.iter().enumerate() {
                if tight(vertex, list.weights, index, neighbor) {
                    paths.fetch_add(neighbor, my_paths);
                    if waiting.fetch_sub(neighbor, 1) == 1 {
                        next.push(neighbor, 0);
                    }
                }
            }
        })?;
        let (next, _) = next.drain();
        if next.is_empty() {
            break;
        }
        rounds.push(next);
    }
    Ok(Some(rounds))
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
        // The ends of a vertex's tight out-edges, its list and weights read once.
        let tight_successors = |vertex: usize| -> Vec<usize> {
            let weights = graph.out_weights_of(vertex);
            let neighbors = graph.out_neighbors_of(vertex);
            let ends = neighbors.iter().enumerate().filter(|&(index, &neighbor)| {
                distances[vertex] + weight_at(weights.as_deref(), index)
                    == distances[neighbor as usize]
            });
            ends.map(|(_, &neighbor)| neighbor as usize).collect()
        };
        let mut paths = vec![0.0f64; vertices];
        paths[source as usize] = 1.0;
        for &vertex in &order {
            let vertex = vertex as usize;
            for neighbor in tight_successors(vertex) {
                if distances[neighbor] == distances[vertex] {
                    return Err(format!(
                        "the edge from {vertex} to {neighbor} weighs 0 on a shortest path"
                    ));
                }
                paths[neighbor] += paths[vertex];
            }
        }
        let mut dependency = vec![0.0f64; vertices];
        for &vertex in order.iter().rev() {
            let vertex = vertex as usize;
            for neighbor in tight_successors(vertex) {
                dependency[vertex] +=
                    paths[vertex] / paths[neighbor] * (1.0 + dependency[neighbor]);
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
            optional_bytes: 0,
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
    fn rounds_of_the_dag_count_the_paths_levels_of_equal_distance_count() {
        // A grid of weights 1 and 2 with many ties, from every source.
        let dir = tempfile::tempdir().unwrap();
        let options = ImportOptions {
            undirected: true,
            weighted: true,
            ids: swapless_build::ids::IdMode::Dense,
        };
        let mut text = String::new();
        for v in 0..30u32 {
            let weight = 1 + v % 2;
            if v % 6 != 5 {
                text += &format!("{v} {} {weight}\n", v + 1);
            }
            if v < 24 {
                text += &format!("{v} {} {}\n", v + 6, 3 - weight);
            }
        }
        let graph = super::super::text_graph(&dir, &text, options);
        let store = swapless_store::DramStore::load(&dir.path().join("g.sl"), false, true).unwrap();
        let arrays = PropertyArrays::default();
        for source in 0..graph.num_vertices() as u32 {
            let distances = dijkstra(&graph, source);
            let tight = |vertex: u32, weights: Option<&[f32]>, index: usize, neighbor: u32| {
                distances[vertex as usize] + weight_at(weights, index)
                    == distances[neighbor as usize]
            };
            let counted = |by_rounds: bool| {
                let paths = F64Array::filled(&arrays, 30, 0.0);
                paths.set(source, 1.0);
                let groups = match by_rounds {
                    true => {
                        rounds_of_the_dag(&store, (&arrays, source), &distances, &paths, &tight)
                    }
                    false => levels_by_distance(&store, &distances, &paths, &tight),
                };
                let groups = groups.unwrap().unwrap();
                assert_eq!(groups.iter().map(Vec::len).sum::<usize>(), 30);
                (paths.into_values().to_vec(), groups.len())
            };
            let ((by_rounds, rounds), (by_levels, levels)) = (counted(true), counted(false));
            assert_eq!(by_rounds, by_levels, "from {source}");
            assert!(
                rounds <= levels,
                "from {source}: {rounds} rounds, {levels} levels"
            );
        }
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
