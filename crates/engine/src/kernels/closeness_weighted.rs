//! Closeness, harmonic centrality and eccentricity by edge weight, exact: shortest paths
//! from every vertex (delta-stepping, as sssp runs it), 64 sources a step.
//!
//! Output: a float64 per vertex, by `--measure`, as `closeness` gives it with hops,
//! here with distances the sums of the weights along shortest paths (weight 1 on an
//! unweighted graph): networkx's measures with `distance=` or `weight=`. As networkx, a
//! vertex another reaches at distance 0 counts in its closeness but adds nothing to its
//! harmonic centrality. Negative weights are refused, as sssp refuses them.

use super::Reads;
use super::closeness::{MEASURE, Measure, first_difference, measured_output};
use super::sssp::{Sssp, dijkstra};
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, Refusal,
    ResultKind, Step,
};
use crate::parameters::{Parameter, ParameterKind, ParameterValues};
use crate::saved_state::{StateError, StateReader, StateWriter};
use rayon::prelude::*;
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeStore, Result};

use crate::edge_map::edge_map_bytes;
use crate::property::{F64Array, PropertyArrays, PropertyVec, U32Array};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: false,
    weights: true,
    out_heads: false,
};

/// Sources searched from in one step (a checkpoint may come between steps).
const SOURCES_A_STEP: usize = 64;

/// The bucket width of each search, for the kernels that search by weight from many
/// sources.
pub(crate) const EACH_SEARCH_DELTA: Parameter = Parameter {
    flag: "delta",
    keyword: "delta",
    help: "the bucket width of each search's delta-stepping",
    kind: ParameterKind::Number {
        min: 0.0,
        max: f64::MAX,
        above_min: true,
    },
    default: Some("1"),
};

const PARAMETERS: [Parameter; 2] = [MEASURE, EACH_SEARCH_DELTA];

/// Every vertex's weighted distance sums, as a run or the verifier found them.
#[derive(Debug, PartialEq)]
pub struct WeightedDistances<F, C> {
    /// Distances to each vertex summed over the others that reach it.
    pub distance_sums: F,
    /// How many vertices reach each vertex, itself included.
    pub reached_by: C,
    /// `1 / distance` to each vertex summed over the others that reach it (distance 0
    /// left out).
    pub harmonic: F,
    /// The distance from each vertex to the farthest vertex it reaches.
    pub eccentricity: F,
    /// (source, vertex) pairs with a path, each vertex reaching itself.
    pub pairs_reached: u64,
}

/// What a run found (internal ids), and which measure its output is.
pub type WeightedClosenessResult = (
    Measure,
    WeightedDistances<PropertyVec<f64>, PropertyVec<u32>>,
);

/// The run's state between sources.
pub struct WeightedClosenessState {
    measure: Measure,
    delta: f64,
    distance_sums: F64Array,
    reached_by: U32Array,
    harmonic: F64Array,
    eccentricity: F64Array,
    pairs_reached: u64,
    /// The next source (the vertex count once all are done).
    next_source: u32,
    /// Where each search's arrays come from.
    arrays: PropertyArrays,
}

impl WeightedClosenessState {
    /// The state before the first source.
    fn new(vertices: usize, options: &KernelOptions<(Measure, f64)>) -> WeightedClosenessState {
        let arrays = &options.arrays;
        WeightedClosenessState {
            measure: options.parameters.0,
            delta: options.parameters.1,
            distance_sums: F64Array::filled(arrays, vertices, 0.0),
            reached_by: U32Array::filled(arrays, vertices, 0),
            harmonic: F64Array::filled(arrays, vertices, 0.0),
            eccentricity: F64Array::filled(arrays, vertices, 0.0),
            pairs_reached: 0,
            next_source: 0,
            arrays: arrays.clone(),
        }
    }
}

/// Adds the distances from `source` to the sums: each reached vertex's (in parallel, a
/// vertex by one thread, so each adds its sources in order), and the source's farthest.
/// Returns how many it reached.
fn add_search(
    distances: &[f64],
    source: u32,
    sums: (&F64Array, &U32Array, &F64Array, &F64Array),
) -> u64 {
    let (distance_sums, reached_by, harmonic, eccentricity) = sums;
    let (reached, farthest) = distances
        .par_iter()
        .enumerate()
        .filter(|(_, distance)| distance.is_finite())
        .map(|(vertex, &distance)| {
            let vertex = vertex as u32;
            reached_by.set(vertex, reached_by.get(vertex) + 1);
            if vertex != source {
                distance_sums.set(vertex, distance_sums.get(vertex) + distance);
                if distance > 0.0 {
                    harmonic.set(vertex, harmonic.get(vertex) + 1.0 / distance);
                }
            }
            (1u64, distance)
        })
        .reduce(|| (0, 0.0), |a, b| (a.0 + b.0, a.1.max(b.1)));
    eccentricity.set(source, farthest);
    reached
}

/// The sums a serial Dijkstra from every vertex on the file gives.
pub fn serial_distances(
    graph: &GraphFile,
) -> WeightedDistances<PropertyVec<f64>, PropertyVec<u32>> {
    let arrays = PropertyArrays::default();
    let vertices = graph.num_vertices();
    let sums = (
        F64Array::filled(&arrays, vertices, 0.0),
        U32Array::filled(&arrays, vertices, 0),
        F64Array::filled(&arrays, vertices, 0.0),
        F64Array::filled(&arrays, vertices, 0.0),
    );
    let mut pairs_reached = 0;
    for source in 0..vertices as u32 {
        let distances = dijkstra(graph, source);
        pairs_reached += add_search(&distances, source, (&sums.0, &sums.1, &sums.2, &sums.3));
    }
    WeightedDistances {
        distance_sums: sums.0.into_values(),
        reached_by: sums.1.into_values(),
        harmonic: sums.2.into_values(),
        eccentricity: sums.3.into_values(),
        pairs_reached,
    }
}

/// Checks a run's sums against a serial Dijkstra from every vertex on the file: counts
/// exactly, sums within a relative 1e-9 (the searches may add the same weights in
/// another order).
pub fn verify(
    graph: &GraphFile,
    result: &WeightedDistances<PropertyVec<f64>, PropertyVec<u32>>,
) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    if result.reached_by.len() != vertices {
        return Err(format!(
            "{} values for {vertices} vertices",
            result.reached_by.len()
        ));
    }
    let serial = serial_distances(graph);
    first_difference(
        "a count of vertices reaching it",
        &result.reached_by,
        &serial.reached_by,
    )?;
    for (name, ours, theirs) in [
        (
            "a distance sum",
            &result.distance_sums,
            &serial.distance_sums,
        ),
        ("a harmonic sum", &result.harmonic, &serial.harmonic),
        (
            "an eccentricity",
            &result.eccentricity,
            &serial.eccentricity,
        ),
    ] {
        let close = |(a, b): (&f64, &f64)| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        if let Some(v) = ours.iter().zip(theirs.iter()).position(|pair| !close(pair)) {
            return Err(format!(
                "vertex {v} has {name} {} but a serial Dijkstra finds {}",
                ours[v], theirs[v]
            ));
        }
    }
    if result.pairs_reached != serial.pairs_reached {
        return Err(format!(
            "{} connected pairs but a serial Dijkstra finds {}",
            result.pairs_reached, serial.pairs_reached
        ));
    }
    Ok(())
}

/// Weighted closeness, harmonic centrality and eccentricity as the runner drives them.
pub struct WeightedCloseness;

impl Kernel for WeightedCloseness {
    type State = WeightedClosenessState;
    type Result = WeightedClosenessResult;
    type Parameters = (Measure, f64);

    const INFO: KernelInfo = KernelInfo {
        name: "wcloseness",
        about: "Closeness, harmonic centrality or eccentricity by edge weight (exact: shortest paths from every vertex): value per vertex",
        reads: READS,
        column: Column {
            name: "closeness",
            vertices: false,
        },
        result: ResultKind::Float64,
        takes_source: false,
        searches: true,
        verifier_copies_lists: false,
        deterministic: true,
        every_vertex_a_source: true,
        undirected_only: false,
        counts_self_loops: false,
        parameters: &PARAMETERS,
    };

    fn parameters(&self, values: &ParameterValues) -> (Measure, f64) {
        (
            Measure::of_name(values.choice("measure")),
            values.number("delta"),
        )
    }
    fn memory(&self, shape: GraphShape) -> KernelMemory {
        let vertices = shape.vertices;
        let search = Sssp.memory(shape);
        let mut hot_arrays = vec![8 * vertices, 4 * vertices, 8 * vertices, 8 * vertices];
        hot_arrays.extend(search.hot_arrays);
        KernelMemory {
            // The distance and harmonic sums (8 each), the count reaching each vertex
            // (4), the eccentricities (8), and one search's distances.
            hot_arrays,
            // One search's frontier and bins, and what edge_map's scans hold.
            working_bytes: search.working_bytes.max(edge_map_bytes(shape.arcs)),
            // The verifier's sums (28), one Dijkstra's distances (8) and heap (8).
            verifier_bytes: 44 * vertices,
            result_bytes_per_vertex: 28,
            // The values in internal order, then in the original order.
            output_bytes_per_vertex: 16,
            released_as_copied: true,
            ..KernelMemory::default()
        }
    }
    fn refusal(&self, graph: &GraphFile) -> swapless_format::Result<Option<Refusal>> {
        Sssp.refusal(graph)
    }
    fn start(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<(Measure, f64)>,
    ) -> Result<WeightedClosenessState> {
        Ok(WeightedClosenessState::new(store.num_vertices(), options))
    }
    /// The shortest paths from the next 64 sources, added to the sums.
    fn step(&self, store: &dyn EdgeStore, state: &mut WeightedClosenessState) -> Result<Step> {
        let vertices = store.num_vertices();
        let last = (state.next_source as usize + SOURCES_A_STEP).min(vertices) as u32;
        while state.next_source < last {
            let source = state.next_source;
            let options = KernelOptions {
                source,
                optional_bytes: 0,
                parameters: state.delta,
                arrays: state.arrays.clone(),
            };
            let mut search = Sssp.start(store, &options)?;
            loop {
                match Sssp.step(store, &mut search)? {
                    Step::More => {}
                    Step::Done => break,
                    refused @ Step::Refused(_) => return Ok(refused),
                }
            }
            let distances = Sssp.finish(search).distances;
            let sums = (
                &state.distance_sums,
                &state.reached_by,
                &state.harmonic,
                &state.eccentricity,
            );
            state.pairs_reached += add_search(&distances, source, sums);
            state.next_source += 1;
        }
        Ok(match state.next_source as usize >= vertices {
            true => Step::Done,
            false => Step::More,
        })
    }
    fn save(
        &self,
        state: &mut WeightedClosenessState,
        out: &mut StateWriter,
    ) -> std::io::Result<()> {
        out.array("distance_sums", state.distance_sums.cells())?;
        out.array("reached_by", state.reached_by.cells())?;
        out.array("harmonic", state.harmonic.cells())?;
        out.array("eccentricity", state.eccentricity.cells())?;
        out.number("pairs_reached", state.pairs_reached)?;
        out.number("next_source", state.next_source as u64)
    }
    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<(Measure, f64)>,
        saved: &mut StateReader,
    ) -> std::result::Result<WeightedClosenessState, StateError> {
        let vertices = store.num_vertices();
        let mut state = WeightedClosenessState::new(vertices, options);
        saved.fill("distance_sums", state.distance_sums.cells())?;
        saved.fill("reached_by", state.reached_by.cells())?;
        saved.fill("harmonic", state.harmonic.cells())?;
        saved.fill("eccentricity", state.eccentricity.cells())?;
        state.pairs_reached = saved.number_at_most(
            "pairs_reached",
            (vertices as u64).saturating_mul(vertices as u64),
        )?;
        state.next_source = saved.number_at_most("next_source", vertices as u64)? as u32;
        Ok(state)
    }
    fn finish(&self, state: WeightedClosenessState) -> WeightedClosenessResult {
        (
            state.measure,
            WeightedDistances {
                distance_sums: state.distance_sums.into_values(),
                reached_by: state.reached_by.into_values(),
                harmonic: state.harmonic.into_values(),
                eccentricity: state.eccentricity.into_values(),
                pairs_reached: state.pairs_reached,
            },
        )
    }
    fn summary(
        &self,
        (measure, result): &WeightedClosenessResult,
        _: &KernelOptions<(Measure, f64)>,
        _original: &dyn Fn(u32) -> u64,
    ) -> Value {
        let vertices = result.reached_by.len() as u64;
        let largest = result.eccentricity.iter().copied().fold(0.0, f64::max);
        let smallest = result
            .eccentricity
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        json!({
            "measure": measure.name(),
            "sources": vertices,
            "pairs_reached": result.pairs_reached,
            "strongly_connected": result.pairs_reached == vertices * vertices,
            "largest_eccentricity": largest,
            "smallest_eccentricity": if vertices == 0 { 0.0 } else { smallest },
        })
    }
    fn verify(
        &self,
        graph: &GraphFile,
        _options: &KernelOptions<(Measure, f64)>,
        (_, result): &WeightedClosenessResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        verify(graph, result)
    }
    fn output(
        &self,
        (measure, result): WeightedClosenessResult,
        permutation: Option<&[u32]>,
    ) -> Output {
        measured_output(measure, result.reached_by.len(), permutation, |v| {
            (
                result.distance_sums[v],
                result.reached_by[v],
                result.harmonic[v],
                result.eccentricity[v],
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use swapless_build::importers::ImportOptions;

    /// The path 0 -2- 1 -3- 2 -1- 3 and vertex 4 on its own, undirected and weighted.
    fn weighted_path(dir: &tempfile::TempDir) -> GraphFile {
        let options = ImportOptions {
            undirected: true,
            weighted: true,
            ids: swapless_build::ids::IdMode::Dense,
        };
        super::super::text_graph(dir, "0 1 2\n1 2 3\n2 3 1\n4 4 1\n", options)
    }

    #[test]
    fn the_sums_are_the_weighted_distances_and_the_verifier_refuses_any_other() {
        let dir = tempfile::tempdir().unwrap();
        let graph = weighted_path(&dir);
        let found = serial_distances(&graph);
        // Distances: 0-1 2, 0-2 5, 0-3 6, 1-2 3, 1-3 4, 2-3 1.
        assert_eq!(&found.distance_sums[..], [13.0, 9.0, 9.0, 11.0, 0.0]);
        assert_eq!(&found.eccentricity[..], [6.0, 4.0, 5.0, 6.0, 0.0]);
        assert_eq!(&found.reached_by[..], [4, 4, 4, 4, 1]);
        assert_eq!(found.pairs_reached, 17);
        assert_eq!(found.harmonic[0], 1.0 / 2.0 + 1.0 / 5.0 + 1.0 / 6.0);
        assert_eq!(verify(&graph, &found), Ok(()));
        type Change = fn(&mut WeightedDistances<PropertyVec<f64>, PropertyVec<u32>>);
        let wrong: [(Change, &str); 5] = [
            (|d| d.distance_sums[1] += 0.5, "distance sum"),
            (|d| d.reached_by[4] = 2, "count of vertices reaching it"),
            (|d| d.harmonic[0] += 1e-6, "harmonic sum"),
            (|d| d.eccentricity[2] = 4.0, "eccentricity"),
            (|d| d.pairs_reached = 25, "connected pairs"),
        ];
        for (change, expected) in wrong {
            let mut changed = serial_distances(&graph);
            change(&mut changed);
            let error = verify(&graph, &changed).unwrap_err();
            assert!(error.contains(expected), "{expected}: {error}");
        }
    }
}
