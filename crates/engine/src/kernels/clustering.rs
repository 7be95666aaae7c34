//! Local clustering coefficients, as networkx's `clustering` (`clustering`; and by
//! edge weight, `wclustering`, as its `weight=`): on an
//! undirected graph, the share of the pairs of a vertex's neighbors that are linked,
//! `2 T / (d (d - 1))`; on a directed graph, Fagiolo's directed coefficient, counting
//! each triangle through the vertex once for every way its arcs run:
//! `T / (d_tot (d_tot - 1) - 2 d_both)` over the vertex's in- and out-degree `d_tot` and
//! its neighbors linked both ways `d_both`.
//!
//! Output: a float64 per vertex (0 where no triangle passes); the report holds their
//! mean (networkx's `average_clustering`).
//!
//! The triangles are found as `triangles` finds them, on the oriented lists of the
//! undirected view; on a directed graph each oriented entry also says whether its pair
//! is linked both ways, and a triangle whose three pairs are linked `a`, `b` and `c`
//! ways (1 or 2 each) counts `a * b * c` times, which is networkx's count of the
//! directed triangles through each of its vertices, halved.
//!
//! By weight, a triangle weighs instead the product over its three pairs of the cube
//! roots of the pair's arc weights, summed over the arcs that link the pair (networkx's
//! geometric mean of the three weights, summed over every way the arcs run), each
//! weight divided by the graph's largest. The sums are of floats added in the order
//! threads race, so they agree across runs to the last bits only.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, Result};

use super::Reads;
use super::oriented_lists::{OrientedLists, ViewKeeps, counting_step, each_common};
use super::triangle_count::each_triangle;
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
    reorder_property,
};
use crate::parameters::ParameterValues;
use crate::property::{PropertyArrays, PropertyVec, add_f64, property_vec};
use crate::saved_state::{StateError, StateReader, StateWriter};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = super::triangle_count::READS;

/// The oriented lists keep which vertex has each rank, which pairs link both ways, and
/// which vertices have a self-loop (networkx leaves it out of a vertex's degree).
const KEEPS: ViewKeeps = ViewKeeps {
    order: true,
    reciprocal: true,
    self_loops: true,
    weights: false,
};

/// By weight, the lists keep each entry's weights too.
const WEIGHTED_KEEPS: ViewKeeps = ViewKeeps {
    weights: true,
    ..KEEPS
};

/// Adds the triangles whose lowest rank is in `ranks` to `cells` (by rank) with `add`,
/// each weighing the product of `pair(rank, position)` over its three pairs; returns
/// their weight in all. Counts the ways the arcs run (integers) or, by weight, the sums
/// of cube roots (f64 bits).
fn count_by<T>(
    oriented: &OrientedLists,
    ranks: std::ops::Range<u32>,
    cells: &[AtomicU64],
    pair: impl Fn(u32, usize) -> T + Sync,
    add: impl Fn(&AtomicU64, T) + Sync,
) -> T
where
    T: Copy + Default + PartialEq + Send + std::ops::AddAssign + std::ops::Mul<Output = T>,
    T: std::iter::Sum,
{
    ranks
        .into_par_iter()
        .with_min_len(64)
        .map_init(Vec::new, |tally: &mut Vec<T>, rank| {
            let mine = oriented.list(rank);
            tally.clear();
            tally.resize(mine.len(), T::default());
            let mut weight = T::default();
            for (position, &s) in mine.iter().enumerate() {
                let later = position + 1;
                let rs = pair(rank, position);
                let mut through_s = T::default();
                each_common(&mine[later..], oriented.list(s), |at, in_s| {
                    let found = rs * pair(rank, later + at) * pair(s, in_s);
                    tally[later + at] += found;
                    through_s += found;
                });
                tally[position] += through_s;
                weight += through_s;
            }
            for (&member, &found) in mine.iter().zip(tally.iter()) {
                if found != T::default() {
                    add(&cells[member as usize], found);
                }
            }
            if weight != T::default() {
                add(&cells[rank as usize], weight);
            }
            weight
        })
        .sum()
}

/// The ways (1 or 2) the pair at `position` of `rank`'s oriented list is linked.
fn ways(oriented: &OrientedLists, rank: u32, position: usize) -> u64 {
    1 + oriented.reciprocal(rank, position) as u64
}

/// Adds the weighted triangles whose lowest rank is in `ranks` to `counts` (by rank);
/// returns their weight in all.
fn count(oriented: &OrientedLists, ranks: std::ops::Range<u32>, counts: &[AtomicU64]) -> u64 {
    let pair = |rank, position| ways(oriented, rank, position);
    count_by(oriented, ranks, counts, pair, |cell, found| {
        cell.fetch_add(found, Ordering::Relaxed);
    })
}

/// Adds the triangles by weight whose lowest rank is in `ranks` to `sums` (by rank, the
/// bits of f64s); returns their weight in all (not yet divided by the largest weight).
fn count_weighted(
    oriented: &OrientedLists,
    ranks: std::ops::Range<u32>,
    sums: &[AtomicU64],
) -> f64 {
    let pair = |rank, position| oriented.cube_roots(rank, position);
    count_by(oriented, ranks, sums, pair, add_f64)
}

/// Each vertex's neighbors linked both ways, by rank, counted from the oriented lists'
/// marks (each pair is marked once, in the list of its lower rank).
fn linked_both_ways(oriented: &OrientedLists, arrays: &PropertyArrays) -> PropertyVec<AtomicU32> {
    let ranks = oriented.vertex_of_rank.len();
    let both = property_vec(arrays, ranks, || AtomicU32::new(0));
    (0..ranks as u32).into_par_iter().for_each(|rank| {
        for (position, &s) in oriented.list(rank).iter().enumerate() {
            if oriented.reciprocal(rank, position) {
                both[rank as usize].fetch_add(1, Ordering::Relaxed);
                both[s as usize].fetch_add(1, Ordering::Relaxed);
            }
        }
    });
    both
}

/// A vertex's coefficient from its triangles' `weight`, its in- plus out-degree
/// `total` and its neighbors linked both ways `both` (directed), or from its triangles
/// and degree `total` (undirected), as networkx computes it.
fn coefficient(directed: bool, weight: f64, total: u64, both: u64) -> f64 {
    if weight == 0.0 {
        return 0.0;
    }
    let (total, both) = (total as f64, both as f64);
    match directed {
        true => weight / (total * (total - 1.0) - 2.0 * both),
        false => 2.0 * weight / (total * (total - 1.0)),
    }
}

/// The state between steps.
pub struct ClusteringState {
    /// `None` until the first step has built them.
    oriented: Option<OrientedLists>,
    /// The weighted triangles through each rank's vertex: a count of the ways their
    /// arcs run, or by weight the bits of an f64, the sum of their weights.
    counts: PropertyVec<AtomicU64>,
    /// The ranks counted so far are `0..counted`.
    counted: u32,
    /// The triangles' weight in all: a count, or by weight the bits of an f64.
    weight: u64,
    /// The coefficients by vertex, once every rank is counted.
    coefficients: Option<PropertyVec<f64>>,
    /// Where the steps make their arrays.
    arrays: PropertyArrays,
}

/// Local clustering as the runner drives it, by the triangles' ways or (`WEIGHTED`)
/// by their edge weights.
pub struct Clustering<const WEIGHTED: bool>;

impl<const WEIGHTED: bool> Clustering<WEIGHTED> {
    /// What the oriented lists keep.
    const KEEPS: ViewKeeps = if WEIGHTED { WEIGHTED_KEEPS } else { KEEPS };

    /// Each vertex's coefficient from the counts by rank.
    fn coefficients(store: &dyn EdgeStore, state: &ClusteringState) -> PropertyVec<f64> {
        let vertices = store.num_vertices();
        let mut coefficients = property_vec(&state.arrays, vertices, || 0.0);
        let Some(oriented) = state.oriented.as_ref() else {
            return coefficients;
        };
        let directed = store.directed();
        let both = directed.then(|| linked_both_ways(oriented, &state.arrays));
        let (out, r#in) = (
            store.offsets(EdgeDirection::Out),
            store.offsets(EdgeDirection::In),
        );
        for (rank, &vertex) in oriented.vertex_of_rank.iter().enumerate() {
            let v = vertex as usize;
            // A self-loop is an entry of the out-list and of the in-list.
            let self_loop = oriented.self_looped(rank as u32) as u64;
            let total = match directed {
                true => out.degree(v) + r#in.degree(v) - 2 * self_loop,
                false => out.degree(v) - self_loop,
            };
            let linked = both
                .as_ref()
                .map_or(0, |both| both[rank].load(Ordering::Relaxed) as u64);
            let weight = state.counts[rank].load(Ordering::Relaxed);
            // A sum of 0 stays 0 when every weight is 0 (networkx divides by zero).
            let weight = match (WEIGHTED, f64::from_bits(weight)) {
                (false, _) => weight as f64,
                (true, 0.0) => 0.0,
                (true, sum) => sum / oriented.max_weight,
            };
            coefficients[v] = coefficient(directed, weight, total, linked);
        }
        coefficients
    }
}

impl<const WEIGHTED: bool> Kernel for Clustering<WEIGHTED> {
    type State = ClusteringState;
    type Result = ClusteringResult;
    type Parameters = ();

    const INFO: KernelInfo = KernelInfo {
        name: if WEIGHTED {
            "wclustering"
        } else {
            "clustering"
        },
        about: if WEIGHTED {
            "Local clustering coefficient by edge weight (networkx's clustering with weight=): value per vertex"
        } else {
            "Local clustering coefficient (networkx's clustering; directed as Fagiolo's): value per vertex"
        },
        reads: Reads {
            weights: WEIGHTED,
            ..READS
        },
        column: Column {
            name: "clustering",
            vertices: false,
        },
        result: ResultKind::Float64,
        takes_source: false,
        searches: false,
        verifier_copies_lists: true,
        deterministic: !WEIGHTED,
        every_vertex_a_source: false,
        undirected_only: false,
        // By weight, a self-loop's weight can be the largest, which networkx divides by.
        counts_self_loops: WEIGHTED,
        parameters: &[],
    };

    fn parameters(&self, _values: &ParameterValues) {}

    fn memory(&self, shape: GraphShape) -> KernelMemory {
        let vertices = shape.vertices;
        let mut memory = super::triangle_count::TriangleCount.memory(shape);
        // The weights by rank (8) kept, and the coefficients (8) made at the end.
        memory.hot_arrays.extend([8 * vertices, 8 * vertices]);
        // The ranks' vertices (4) and which have a self-loop (a bit); on a directed graph the lists of pairs linked both
        // ways (at most half the arcs, 4 each) with their offsets (8) and counts (4),
        // the marks (a bit an entry) and the counts linked both ways (4).
        memory.working_bytes += 4 * vertices + vertices.div_ceil(64) * 8;
        if shape.directed {
            memory.working_bytes += 2 * shape.arcs + 16 * vertices + shape.arcs / 8 + 8;
        }
        if WEIGHTED {
            // Each entry's weights (4 each way; one way undirected), and the list of a
            // vertex's weights both ways as its view is read (8 an entry, in the lists
            // edge_map's scans hold at once, at most every arc).
            let view_edges = if shape.directed {
                shape.arcs
            } else {
                shape.arcs / 2
            };
            memory.working_bytes += if shape.directed { 8 } else { 4 } * view_edges;
        }
        // The serial weights (8), degrees linked both ways (8) and coefficients (8).
        memory.verifier_bytes += 24 * vertices;
        memory.result_bytes_per_vertex = 8;
        memory.output_bytes_per_vertex = 8;
        memory.released_as_copied = true;
        memory
    }

    fn start(&self, store: &dyn EdgeStore, options: &KernelOptions<()>) -> Result<ClusteringState> {
        Ok(ClusteringState {
            oriented: None,
            counts: property_vec(&options.arrays, store.num_vertices(), || AtomicU64::new(0)),
            counted: 0,
            weight: 0,
            coefficients: None,
            arrays: options.arrays.clone(),
        })
    }

    /// The first step builds the oriented lists; each after it counts a block of ranks;
    /// the last also divides.
    fn step(&self, store: &dyn EdgeStore, state: &mut ClusteringState) -> Result<Step> {
        let counts = &state.counts;
        let mut found = f64::from_bits(state.weight);
        let step = counting_step(
            store,
            &state.arrays,
            &mut state.oriented,
            Self::KEEPS,
            &mut state.counted,
            &mut state.weight,
            |oriented, ranks| match WEIGHTED {
                true => {
                    found += count_weighted(oriented, ranks, counts);
                    0
                }
                false => count(oriented, ranks, counts),
            },
        )?;
        if WEIGHTED {
            state.weight = found.to_bits();
        }
        if step == Step::Done {
            state.coefficients = Some(Self::coefficients(store, state));
        }
        Ok(step)
    }

    /// The oriented lists are not saved: they are the graph's, rebuilt on restore.
    fn save(&self, state: &mut ClusteringState, out: &mut StateWriter) -> std::io::Result<()> {
        out.number("counted", state.counted as u64)?;
        out.number("weight", state.weight)?;
        out.array("counts", &state.counts[..])
    }

    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<()>,
        saved: &mut StateReader,
    ) -> std::result::Result<ClusteringState, StateError> {
        let counted = saved.number_at_most("counted", store.num_vertices() as u64)? as u32;
        let weight = saved.number("weight")?;
        let counts = property_vec(&options.arrays, store.num_vertices(), || AtomicU64::new(0));
        saved.fill("counts", &counts[..])?;
        Ok(ClusteringState {
            oriented: Some(super::oriented_lists::oriented_lists(
                store,
                &options.arrays,
                Self::KEEPS,
            )?),
            counts,
            counted,
            weight,
            coefficients: None,
            arrays: options.arrays.clone(),
        })
    }

    fn finish(&self, state: ClusteringState) -> ClusteringResult {
        // A run finishes after its last step, which made them.
        let arrays = &state.arrays;
        let coefficients = state
            .coefficients
            .unwrap_or_else(|| property_vec(arrays, 0, || 0.0));
        let largest_weight = state.oriented.as_ref().map_or(1.0, |o| o.max_weight);
        ClusteringResult {
            coefficients,
            weight: state.weight,
            largest_weight,
        }
    }

    fn summary(
        &self,
        result: &ClusteringResult,
        _: &KernelOptions<()>,
        _: &dyn Fn(u32) -> u64,
    ) -> Value {
        // Summed as integers of 2^-64, so that the mean does not depend on the order of
        // the vertices (a reordered file's).
        const UNIT: f64 = 18_446_744_073_709_551_616.0;
        let values = &result.coefficients;
        let total: i128 = values.iter().map(|&x| (x * UNIT) as i128).sum();
        let average = match values.len() {
            0 => 0.0,
            n => total as f64 / UNIT / n as f64,
        };
        match WEIGHTED {
            // A caller can tell weights that are all 0 (networkx divides by zero).
            true => json!({"average_clustering": average, "largest_weight": result.largest_weight}),
            false => json!({"average_clustering": average}),
        }
    }

    fn verify(
        &self,
        graph: &GraphFile,
        _options: &KernelOptions<()>,
        result: &ClusteringResult,
        block_bytes: u64,
    ) -> std::result::Result<(), String> {
        match WEIGHTED {
            true => verify_weighted(graph, result, block_bytes),
            false => verify(graph, result, block_bytes),
        }
    }

    fn output(&self, result: ClusteringResult, permutation: Option<&[u32]>) -> Output {
        Output::Float64(reorder_property(result.coefficients, permutation, |&x| x))
    }
}

/// What a run produced: the coefficients by (internal) vertex, and the triangles'
/// weight in all.
pub struct ClusteringResult {
    coefficients: PropertyVec<f64>,
    weight: u64,
    /// By weight, the largest weight, which the weights were divided by (1 without
    /// weights).
    largest_weight: f64,
}

/// The ways (0, 1 or 2) vertices `a` and `b` of the file are linked.
fn serial_ways(graph: &GraphFile, a: u32, b: u32) -> u64 {
    let linked = |from: u32, to: u32| {
        graph
            .out_neighbors_of(from as usize)
            .binary_search(&to)
            .is_ok() as u64
    };
    match graph.flags().directed {
        true => linked(a, b) + linked(b, a),
        false => linked(a, b),
    }
}

/// Computes every coefficient serially on the file (the triangles as
/// `triangle_count::each_triangle` finds them, each pair's ways looked up) and compares,
/// vertex by vertex, to the rounding of the division.
fn verify(
    graph: &GraphFile,
    result: &ClusteringResult,
    block_bytes: u64,
) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    let directed = graph.flags().directed;
    let mut weights = vec![0u64; vertices];
    let mut total = 0u64;
    each_triangle(graph, block_bytes, |u, v, w| {
        let weight = match directed {
            true => serial_ways(graph, u, v) * serial_ways(graph, v, w) * serial_ways(graph, u, w),
            false => 1,
        };
        for vertex in [u, v, w] {
            weights[vertex as usize] += weight;
        }
        total += weight;
    });
    if total != result.weight {
        return Err(format!(
            "the triangles weigh {} in all but the serial count gives {total}",
            result.weight
        ));
    }
    for (v, &weight) in weights.iter().enumerate() {
        // Self-loops left out, as networkx leaves them.
        let (degree, both) = serial_degrees(graph, v);
        let expected = coefficient(directed, weight as f64, degree, both);
        let found = result.coefficients[v];
        if (found - expected).abs() > 1e-12 * expected.abs() {
            return Err(format!(
                "vertex {v} has clustering {found} but the serial count gives {expected}"
            ));
        }
    }
    Ok(())
}

/// Vertex `v`'s degree in the file (in- plus out-degree on a directed graph) and its
/// neighbors linked both ways (0 undirected), self-loops left out as networkx leaves
/// them.
fn serial_degrees(graph: &GraphFile, v: usize) -> (u64, u64) {
    let others = |list: &[u32]| list.iter().filter(|&&u| u as usize != v).count() as u64;
    let out = graph.out_neighbors_of(v);
    if !graph.flags().directed {
        return (others(&out), 0);
    }
    let r#in = graph.in_neighbors_of(v);
    let both = r#in
        .iter()
        .filter(|&&u| u as usize != v && out.binary_search(&u).is_ok())
        .count();
    (others(&out) + others(&r#in), both as u64)
}

/// The weight of the arc from `a` to `b` of the file (0 where there is none).
fn serial_arc_weight(graph: &GraphFile, a: u32, b: u32) -> f64 {
    match graph.out_neighbors_of(a as usize).binary_search(&b) {
        Ok(index) => graph
            .out_weights_of(a as usize)
            .map_or(1.0, |weights| weights[index] as f64),
        Err(_) => 0.0,
    }
}

/// Computes every coefficient by weight serially on the file (the triangles as
/// `triangle_count::each_triangle` finds them, each pair's arc weights looked up, each
/// triangle's weight the product of its pairs' summed cube roots, divided by the largest
/// weight) and compares, vertex by vertex, within the rounding of sums added in
/// another order.
fn verify_weighted(
    graph: &GraphFile,
    result: &ClusteringResult,
    block_bytes: u64,
) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    let directed = graph.flags().directed;
    // Each list's weights read once (a compressed list is decoded for each read).
    let largest = (0..vertices)
        .filter_map(|v| graph.out_weights_of(v))
        .flat_map(|weights| {
            weights
                .iter()
                .map(|&weight| weight as f64)
                .collect::<Vec<_>>()
        })
        .fold(f64::NEG_INFINITY, f64::max);
    let largest = if largest.is_finite() { largest } else { 1.0 };
    let pair = |a: u32, b: u32| match directed {
        true => serial_arc_weight(graph, a, b).cbrt() + serial_arc_weight(graph, b, a).cbrt(),
        false => serial_arc_weight(graph, a, b).cbrt(),
    };
    // Each vertex's sum, and the sum of its terms' magnitudes (which bounds the rounding).
    let mut sums = vec![(0.0f64, 0.0f64); vertices];
    each_triangle(graph, block_bytes, |u, v, w| {
        let weight = pair(u, v) * pair(v, w) * pair(u, w);
        for vertex in [u, v, w] {
            sums[vertex as usize].0 += weight;
            sums[vertex as usize].1 += weight.abs();
        }
    });
    if result.coefficients.len() != vertices {
        return Err(format!(
            "{} coefficients for {vertices} vertices",
            result.coefficients.len()
        ));
    }
    for (v, &(sum, magnitude)) in sums.iter().enumerate() {
        let (degree, both) = serial_degrees(graph, v);
        let scaled = |sum: f64| if sum == 0.0 { 0.0 } else { sum / largest };
        let expected = coefficient(directed, scaled(sum), degree, both);
        let bound = coefficient(directed, scaled(magnitude), degree, both).abs();
        let found = result.coefficients[v];
        if (found - expected).abs() > 1e-12 * bound || found.is_nan() != expected.is_nan() {
            return Err(format!(
                "vertex {v} has clustering {found} but the serial sum by weight gives {expected}"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use swapless_build::importers::ImportOptions;
    use swapless_store::DramStore;

    #[test]
    fn a_triangle_by_weight_weighs_the_cube_root_of_its_normalized_product() {
        // The triangle 0-1-2 weighs 1, 8 and 27; 3 hangs off 2. The largest weight is
        // 27, so the triangle weighs (1 * 8 * 27)^(1/3) / 27 = 2/9.
        let dir = tempfile::tempdir().unwrap();
        let options = ImportOptions {
            undirected: true,
            weighted: true,
            ids: swapless_build::ids::IdMode::Dense,
        };
        let graph = super::super::text_graph(&dir, "0 1 1\n1 2 8\n0 2 27\n2 3 1\n", options);
        let store = DramStore::load(&dir.path().join("g.sl"), true, true).unwrap();
        let kernel = Clustering::<true>;
        let options = KernelOptions::default();
        let mut state = kernel.start(&store, &options).unwrap();
        while kernel.step(&store, &mut state).unwrap() == Step::More {}
        let mut result = kernel.finish(state);
        // 2 T / (d (d - 1)): degree 2 for 0 and 1, 3 for 2.
        let expected = [2.0 / 9.0, 2.0 / 9.0, 2.0 / 27.0, 0.0];
        for (found, expected) in result.coefficients.iter().zip(expected) {
            assert!((found - expected).abs() < 1e-15, "{found} vs {expected}");
        }
        assert_eq!(kernel.verify(&graph, &options, &result, u64::MAX), Ok(()));
        result.coefficients[2] *= 1.0 + 1e-9;
        assert!(kernel.verify(&graph, &options, &result, u64::MAX).is_err());
    }
}
