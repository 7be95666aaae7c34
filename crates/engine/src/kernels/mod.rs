//! The kernels, one file each, each with a serial verifier that reads the graph
//! file directly (never through the store it checks).

pub mod betweenness;
mod betweenness_weighted;
pub mod bfs;
pub mod bit_search;
pub mod closeness;
pub mod closeness_weighted;
pub mod clustering;
pub mod connected_components;
pub mod core_number;
pub mod eigenvector;
pub mod hits;
pub mod k_truss;
pub mod katz;
pub mod label_propagation;
pub mod louvain;
pub mod louvain_levels;
pub mod maximal_independent_set;
pub mod neighbor_degree;
mod oriented_lists;
pub mod pagerank;
pub mod pagerank64;
pub mod personalized_pagerank;
pub mod power_iteration;
pub mod radii;
pub mod registry;
pub mod sssp;
pub mod strongly_connected_components;
pub mod triangle_count;
pub mod vertex_triangles;

use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore};

/// A serial BFS from `source` over the file's out-lists: each vertex's depth
/// (`u32::MAX` where it does not reach) and the vertices reached, level by level, each
/// level in increasing id order. Each level is sorted before its lists are read, so
/// they are read in file order: the verifiers read the file through a map whose pages
/// are dropped as they pass a bound (`GraphFile::open_bounded`), where lists read in
/// queue order would fault their pages in again and again. Holds 8 bytes a vertex (the
/// depths and the order), which verifiers count in their declared `verifier_bytes`.
pub(crate) fn serial_levels(graph: &GraphFile, source: u32) -> (Vec<u32>, Vec<u32>) {
    let vertices = graph.num_vertices();
    let mut depth = vec![u32::MAX; vertices];
    depth[source as usize] = 0;
    let mut order = Vec::with_capacity(vertices);
    order.push(source);
    let mut level_start = 0;
    while level_start < order.len() {
        let level_end = order.len();
        order[level_start..level_end].sort_unstable();
        for index in level_start..level_end {
            let vertex = order[index];
            let next = depth[vertex as usize] + 1;
            for &neighbor in graph.out_neighbors_of(vertex as usize).iter() {
                if depth[neighbor as usize] == u32::MAX {
                    depth[neighbor as usize] = next;
                    order.push(neighbor);
                }
            }
        }
        level_start = level_end;
    }
    (depth, order)
}

/// Which lists a kernel reads; on an undirected graph both are the same lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reads {
    /// Out-lists (for undirected graphs, the lists).
    pub out_lists: bool,
    /// In-lists.
    pub in_lists: bool,
    /// Edge weights, on a weighted graph: a run of a kernel that does not read them
    /// neither holds nor reads a weighted graph's weights.
    pub weights: bool,
    /// Whether a pass needs only the heads of the out-lists (cc's first links), which a
    /// disk tier then reads from the file's `out_heads` section when it has one.
    pub out_heads: bool,
}

/// Seed of the reproducible source picker (GAP also uses a fixed seed).
pub const SOURCE_SEED: u64 = 27491095;

/// Picks reproducible sources with an out-edge to another vertex, as GAP picks them
/// with non-zero out-degree (a vertex whose only edge is a self-loop, kept by a build
/// that keeps them, would start a search that finds nothing). Candidates are drawn in
/// original ids, so a reordered file yields the same sources.
pub struct SourcePicker<'a> {
    store: &'a dyn EdgeStore,
    original_to_internal: Option<Vec<u32>>,
    state: u64,
}

impl<'a> SourcePicker<'a> {
    /// A picker for `store`, starting from the fixed seed.
    pub fn new(store: &'a dyn EdgeStore) -> SourcePicker<'a> {
        let original_to_internal = store.permutation().map(|new_to_old| {
            let mut inverse = vec![0u32; new_to_old.len()];
            for (new, &old) in new_to_old.iter().enumerate() {
                inverse[old as usize] = new as u32;
            }
            inverse
        });
        SourcePicker {
            store,
            original_to_internal,
            state: SOURCE_SEED,
        }
    }

    /// The next source (internal id), or `None` for a graph without edges between
    /// distinct vertices.
    pub fn next_source(&mut self) -> Option<u32> {
        let vertices = self.store.num_vertices() as u64;
        if vertices == 0 || self.store.num_arcs() <= self.store.self_loops() {
            return None;
        }
        // splitmix64 draws; some vertex has an edge to another, so this ends.
        loop {
            self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            let original = (z % vertices) as u32;
            let vertex = self
                .original_to_internal
                .as_ref()
                .map_or(original, |map| map[original as usize]);
            if leads_elsewhere(self.store, vertex) {
                return Some(vertex);
            }
        }
    }
}

/// Whether `vertex` has an out-edge to another vertex: its degree, and on a graph with
/// self-loops, for a vertex of one edge, its list (a list that cannot be read counts as
/// leading elsewhere: the run that reads it next says why it cannot).
fn leads_elsewhere(store: &dyn EdgeStore, vertex: u32) -> bool {
    let degree = store.degree(EdgeDirection::Out, vertex);
    if degree != 1 || store.self_loops() == 0 {
        return degree > 0;
    }
    let only_itself = std::sync::atomic::AtomicBool::new(false);
    let read = store.gather(EdgeDirection::Out, &[vertex], &|_, list| {
        if list.neighbors == [vertex] {
            only_itself.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    });
    read.is_err() || !only_itself.into_inner()
}

/// The `trial`-th reproducible source (internal id), as [`SourcePicker`] draws them.
pub fn pick_source(store: &dyn EdgeStore, trial: u64) -> Option<u32> {
    let mut picker = SourcePicker::new(store);
    (0..trial).for_each(|_| {
        picker.next_source();
    });
    picker.next_source()
}

/// Up to `count` distinct reproducible sources with an out-edge to another vertex
/// (fewer if the graph has fewer such vertices), in internal ids.
pub fn pick_sources(store: &dyn EdgeStore, count: usize) -> Vec<u32> {
    let with_edges = (0..store.num_vertices() as u32)
        .filter(|&v| leads_elsewhere(store, v))
        .take(count)
        .count();
    let mut picker = SourcePicker::new(store);
    let mut sources = Vec::with_capacity(with_edges);
    while sources.len() < with_edges {
        match picker.next_source() {
            Some(source) if !sources.contains(&source) => sources.push(source),
            Some(_) => {}
            None => break,
        }
    }
    sources
}

/// Per-vertex values from internal ids to original ids, each converted by `convert`,
/// in one new array (the values and it are all that is held).
pub fn to_original_order<S, T: Copy + Default>(
    values: &[S],
    permutation: Option<&[u32]>,
    convert: impl Fn(&S) -> T,
) -> Vec<T> {
    match permutation {
        None => values.iter().map(convert).collect(),
        Some(new_to_old) => {
            let mut original = vec![T::default(); values.len()];
            for (new, value) in values.iter().enumerate() {
                original[new_to_old[new] as usize] = convert(value);
            }
            original
        }
    }
}

/// Sums each component of `values` in fixed-size chunks and then in order, so the
/// result does not depend on how many threads ran.
pub fn deterministic_sums<const K: usize>(
    values: impl rayon::iter::IndexedParallelIterator<Item = [f64; K]>,
) -> [f64; K] {
    use rayon::prelude::*;
    let add = |mut total: [f64; K], value: [f64; K]| {
        for (sum, part) in total.iter_mut().zip(value) {
            *sum += part;
        }
        total
    };
    let partial: Vec<[f64; K]> = values.fold_chunks(4096, || [0.0; K], add).collect();
    partial.into_iter().fold([0.0; K], add)
}

/// A graph built from the edge list `text` in `dir`, for the verifiers' unit tests.
#[cfg(test)]
pub(crate) fn text_graph(
    dir: &tempfile::TempDir,
    text: &str,
    options: swapless_build::importers::ImportOptions,
) -> GraphFile {
    let input = dir.path().join("g.el");
    std::fs::write(&input, text).unwrap();
    let output = dir.path().join("g.sl");
    let mut source = swapless_build::importers::open_input(&input, options).unwrap();
    let build = swapless_build::BuildOptions::with_memory(64 << 20);
    swapless_build::build_graph(source.as_mut(), &output, &build).unwrap();
    GraphFile::open(&output).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_never_a_vertex_whose_only_edge_is_a_self_loop() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("g.el");
        // Vertices 0..=9 each have only a self-loop; 10 -> 11 is the one other edge.
        let loops: String = (0..10).map(|v| format!("{v} {v}\n")).collect();
        std::fs::write(&input, format!("{loops}10 11\n")).unwrap();
        let output = dir.path().join("g.sl");
        let options = swapless_build::importers::ImportOptions {
            undirected: false,
            weighted: false,
            ids: swapless_build::ids::IdMode::Dense,
        };
        let mut source = swapless_build::importers::open_input(&input, options).unwrap();
        let build = swapless_build::BuildOptions {
            self_loops: swapless_build::SelfLoops::Keep,
            ..swapless_build::BuildOptions::with_memory(64 << 20)
        };
        swapless_build::build_graph(source.as_mut(), &output, &build).unwrap();
        let store = swapless_store::DramStore::load(&output, false, false).unwrap();
        assert_eq!(store.self_loops(), 10);
        for trial in 0..5 {
            assert_eq!(pick_source(&store, trial), Some(10));
        }
        assert_eq!(pick_sources(&store, 4), [10]);
        // Self-loops alone: no source, rather than a search that never starts.
        std::fs::write(&input, loops).unwrap();
        let mut source = swapless_build::importers::open_input(&input, options).unwrap();
        swapless_build::build_graph(source.as_mut(), &output, &build).unwrap();
        let store = swapless_store::DramStore::load(&output, false, false).unwrap();
        assert_eq!(pick_source(&store, 0), None);
        assert!(pick_sources(&store, 4).is_empty());
    }
}
