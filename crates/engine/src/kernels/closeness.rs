//! Closeness, harmonic centrality and eccentricity, exact: a breadth-first search from
//! every vertex, 64 at a time with one bit per source in a 64-bit mask per vertex (as
//! radii searches from its sample).
//!
//! Output: a float64 per vertex, by `--measure`:
//! - `closeness`: `(r - 1) / s × (r - 1) / (n - 1)`, where `s` sums the hops to the
//!   vertex from the `r - 1` others that reach it (Wasserman and Faust's scaling for
//!   graphs that are not connected; networkx's default); 0 when none reaches it;
//! - `closeness-unscaled`: `(r - 1) / s`, without that scaling;
//! - `harmonic`: the sum of `1 / hops` from every other vertex that reaches it;
//! - `eccentricity`: the hops from the vertex to the farthest vertex it reaches;
//! - `distance-sum`: the hops to it summed over the vertices that reach it (the sum over
//!   every vertex is what an average shortest path length divides).
//!
//! Distances run along arcs: closeness and harmonic centrality count the hops *to* a
//! vertex, eccentricity the hops *from* it, as networkx counts them. The report's
//! `strongly_connected` says whether every vertex reaches every other (eccentricity is
//! defined only then).
//!
//! Each step searches from one batch of 64 sources, round by round: the frontier
//! pushes its masks to its out-neighbors (a sparse `gather`), and a vertex whose mask
//! grows adds the new sources, at this round's distance, to its sums.

use std::sync::atomic::{AtomicU64, Ordering};

use super::Reads;
use super::bit_search::{BitSearch, SOURCES, push_masks};
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
};
use crate::kernels::to_original_order;
use crate::parameters::{Parameter, ParameterKind, ParameterValues};
use crate::saved_state::{StateError, StateReader, StateWriter};
use rayon::prelude::*;
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeStore, Result};

use crate::edge_map::edge_map_bytes;
use crate::property::{F64Array, PropertyArrays, PropertyVec, U32Array, property_vec};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: false,
    weights: false,
    out_heads: false,
};

/// Sources searched from at once (bits in a mask).
pub const BATCH: usize = SOURCES;

/// What the output holds for each vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Closeness scaled by the share of vertices that reach it (networkx's default).
    Closeness,
    /// Closeness over the vertices that reach it only.
    ClosenessUnscaled,
    /// The sum of reciprocal distances to it.
    Harmonic,
    /// The distance from it to the farthest vertex it reaches.
    Eccentricity,
    /// The distances to it summed over the vertices that reach it.
    DistanceSum,
}

impl Measure {
    /// The measure a `--measure` name stands for.
    pub(crate) fn of_name(name: &str) -> Measure {
        match name {
            "closeness-unscaled" => Measure::ClosenessUnscaled,
            "harmonic" => Measure::Harmonic,
            "eccentricity" => Measure::Eccentricity,
            "distance-sum" => Measure::DistanceSum,
            _ => Measure::Closeness,
        }
    }

    /// Its `--measure` name.
    pub fn name(self) -> &'static str {
        match self {
            Measure::Closeness => "closeness",
            Measure::ClosenessUnscaled => "closeness-unscaled",
            Measure::Harmonic => "harmonic",
            Measure::Eccentricity => "eccentricity",
            Measure::DistanceSum => "distance-sum",
        }
    }
}

/// `--measure`, which this kernel and its weighted twin take.
pub(crate) const MEASURE: Parameter = Parameter {
    flag: "measure",
    keyword: "measure",
    help: "`closeness` (scaled by the share of vertices that reach it, as networkx's \
           default), `closeness-unscaled`, `harmonic` (the sum of 1/distance to it), \
           `eccentricity` (the distance from it to the farthest vertex it reaches) or \
           `distance-sum` (the distances to it summed)",
    kind: ParameterKind::Choice(&[
        "closeness",
        "closeness-unscaled",
        "harmonic",
        "eccentricity",
        "distance-sum",
    ]),
    default: Some("closeness"),
};

const PARAMETERS: [Parameter; 1] = [MEASURE];

/// Every vertex's distance sums, as a run or the verifier found them.
#[derive(Debug, PartialEq)]
pub struct Distances<D, C, H> {
    /// Hops to each vertex summed over the vertices that reach it.
    pub distance_sums: D,
    /// How many vertices reach each vertex, itself included.
    pub reached_by: C,
    /// `1 / hops` to each vertex summed over the others that reach it.
    pub harmonic: H,
    /// The hops from each vertex to the farthest vertex it reaches.
    pub eccentricity: C,
    /// (source, vertex) pairs with a path from the source to the vertex, each vertex
    /// reaching itself.
    pub pairs_reached: u64,
}

/// A run's sums, in internal ids.
pub type RunDistances = Distances<PropertyVec<AtomicU64>, PropertyVec<u32>, PropertyVec<f64>>;

/// What a run found, and which measure its output is.
pub type ClosenessResult = (Measure, RunDistances);

/// The run's state between rounds.
pub struct ClosenessState {
    measure: Measure,
    /// The batch's sources that reached each vertex, a bit each.
    visited: PropertyVec<AtomicU64>,
    /// The same, with this round's arrivals.
    next_visited: PropertyVec<AtomicU64>,
    distance_sums: PropertyVec<AtomicU64>,
    reached_by: U32Array,
    harmonic: F64Array,
    eccentricity: U32Array,
    pairs_reached: u64,
    /// The first source of the next batch (the vertex count once all are done).
    batch_start: u32,
    /// The vertices whose masks grew last round, ascending.
    frontier: Vec<u32>,
    /// Every vertex the batch has reached, once each: the masks to clear after it.
    touched: Vec<u32>,
    round: u32,
}

impl ClosenessState {
    /// The state before the first batch, its arrays made through `arrays`.
    fn new(vertices: usize, arrays: &PropertyArrays, measure: Measure) -> ClosenessState {
        ClosenessState {
            measure,
            visited: property_vec(arrays, vertices, || AtomicU64::new(0)),
            next_visited: property_vec(arrays, vertices, || AtomicU64::new(0)),
            distance_sums: property_vec(arrays, vertices, || AtomicU64::new(0)),
            reached_by: U32Array::filled(arrays, vertices, 0),
            harmonic: F64Array::filled(arrays, vertices, 0.0),
            eccentricity: U32Array::filled(arrays, vertices, 0),
            pairs_reached: 0,
            batch_start: 0,
            frontier: Vec::new(),
            touched: Vec::new(),
            round: 0,
        }
    }

    /// The sources of the next batch.
    fn batch(&self) -> std::ops::Range<u32> {
        let end = (self.batch_start as usize + BATCH).min(self.visited.len());
        self.batch_start..end as u32
    }
}

/// Searches from the next batch of sources to the end, then clears the masks it set.
fn search_batch(store: &dyn EdgeStore, state: &mut ClosenessState) -> Result<()> {
    let sources = state.batch();
    for (bit, source) in sources.clone().enumerate() {
        state.visited[source as usize].store(1 << bit, Ordering::Relaxed);
        state.next_visited[source as usize].store(1 << bit, Ordering::Relaxed);
        state
            .reached_by
            .set(source, state.reached_by.get(source) + 1);
    }
    state.pairs_reached += sources.len() as u64;
    state.frontier = sources.clone().collect();
    state.touched = sources.clone().collect();
    state.round = 0;
    while !state.frontier.is_empty() {
        round(store, state)?;
    }
    let (visited, next_visited) = (&state.visited, &state.next_visited);
    state.touched.par_iter().for_each(|&vertex| {
        visited[vertex as usize].store(0, Ordering::Relaxed);
        next_visited[vertex as usize].store(0, Ordering::Relaxed);
    });
    state.touched = Vec::new();
    state.batch_start = sources.end;
    Ok(())
}

/// One round: the frontier pushes its masks to its out-neighbors; those whose masks grew
/// add the new sources to their sums and are the next frontier.
fn round(store: &dyn EdgeStore, state: &mut ClosenessState) -> Result<()> {
    state.round += 1;
    let round = state.round;
    let (visited, next_visited) = (&state.visited, &state.next_visited);
    let (grew, first) = push_masks(store, &state.frontier, visited, next_visited)?;
    state.frontier = grew;
    state.touched.extend(first);
    let (distance_sums, reached_by, harmonic) =
        (&state.distance_sums, &state.reached_by, &state.harmonic);
    let (arrived, pairs) = state
        .frontier
        .par_iter()
        .map(|&vertex| {
            let mask = next_visited[vertex as usize].load(Ordering::Relaxed);
            let new = mask & !visited[vertex as usize].swap(mask, Ordering::Relaxed);
            let count = new.count_ones();
            distance_sums[vertex as usize]
                .fetch_add(count as u64 * round as u64, Ordering::Relaxed);
            reached_by.set(vertex, reached_by.get(vertex) + count);
            harmonic.set(vertex, harmonic.get(vertex) + count as f64 / round as f64);
            (new, count as u64)
        })
        .reduce(|| (0, 0), |a, b| (a.0 | b.0, a.1 + b.1));
    state.pairs_reached += pairs;
    let start = state.batch_start;
    for bit in 0..BATCH as u32 {
        if arrived & (1 << bit) != 0 {
            state.eccentricity.set(start + bit, round);
        }
    }
    Ok(())
}

/// The distances a serial search finds, one batch of 64 sources at a time.
pub fn serial_distances(graph: &GraphFile) -> Distances<Vec<u64>, Vec<u32>, Vec<f64>> {
    let vertices = graph.num_vertices();
    let mut found = Distances {
        distance_sums: vec![0u64; vertices],
        reached_by: vec![0u32; vertices],
        harmonic: vec![0f64; vertices],
        eccentricity: vec![0u32; vertices],
        pairs_reached: 0,
    };
    let mut search = BitSearch::new(vertices);
    for start in (0..vertices).step_by(BATCH) {
        let sources: Vec<u32> = (start..(start + BATCH).min(vertices))
            .map(|v| v as u32)
            .collect();
        search.search(graph, &sources, |vertex, bits, level| {
            let (v, count) = (vertex as usize, bits.count_ones());
            found.reached_by[v] += count;
            found.pairs_reached += count as u64;
            if level > 0 {
                found.distance_sums[v] += count as u64 * level as u64;
                found.harmonic[v] += count as f64 / level as f64;
                for bit in 0..BATCH {
                    if bits & (1 << bit) != 0 {
                        found.eccentricity[start + bit] = level;
                    }
                }
            }
        });
    }
    found
}

/// The first vertex where `ours` and `theirs` differ, with what each holds.
pub(crate) fn first_difference<T: PartialEq + std::fmt::Debug>(
    name: &str,
    ours: &[T],
    theirs: &[T],
) -> std::result::Result<(), String> {
    match ours.iter().zip(theirs).position(|(a, b)| a != b) {
        Some(v) => Err(format!(
            "vertex {v} has {name} {:?} but a serial search finds {:?}",
            ours[v], theirs[v]
        )),
        None => Ok(()),
    }
}

/// Checks a run's sums against [`serial_distances`] on the file: every one must be the
/// same, bit for bit (each vertex adds its terms in the same order on both).
pub fn verify(graph: &GraphFile, result: &RunDistances) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    if result.reached_by.len() != vertices {
        return Err(format!(
            "{} values for {vertices} vertices",
            result.reached_by.len()
        ));
    }
    let serial = serial_distances(graph);
    let sums: Vec<u64> = result
        .distance_sums
        .iter()
        .map(|sum| sum.load(Ordering::Relaxed))
        .collect();
    first_difference("a distance sum", &sums, &serial.distance_sums)?;
    first_difference(
        "a count of vertices reaching it",
        &result.reached_by,
        &serial.reached_by,
    )?;
    first_difference("a harmonic sum", &result.harmonic, &serial.harmonic)?;
    first_difference(
        "an eccentricity",
        &result.eccentricity,
        &serial.eccentricity,
    )?;
    if result.pairs_reached != serial.pairs_reached {
        return Err(format!(
            "{} connected pairs but a serial search finds {}",
            result.pairs_reached, serial.pairs_reached
        ));
    }
    Ok(())
}

/// `measure` of one vertex from its sums, on a graph of `vertices`: the distances to it
/// summed over the `reached_by - 1` others that reach it, their reciprocals summed, and
/// its distance to the farthest vertex it reaches.
pub(crate) fn measured(
    measure: Measure,
    vertices: usize,
    sum: f64,
    reached_by: u32,
    harmonic: f64,
    eccentricity: f64,
) -> f64 {
    let others = reached_by.saturating_sub(1) as f64;
    match measure {
        Measure::Closeness | Measure::ClosenessUnscaled if sum == 0.0 || vertices < 2 => 0.0,
        Measure::Closeness => others / sum * (others / (vertices - 1) as f64),
        Measure::ClosenessUnscaled => others / sum,
        Measure::Harmonic => harmonic,
        Measure::Eccentricity => eccentricity,
        Measure::DistanceSum => sum,
    }
}

/// `measure` of each of `vertices` from its sums (`sums_of(v)`: the distance sum, the
/// count reaching it, the harmonic sum, the eccentricity), in original vertex order.
pub(crate) fn measured_output(
    measure: Measure,
    vertices: usize,
    permutation: Option<&[u32]>,
    sums_of: impl Fn(usize) -> (f64, u32, f64, f64),
) -> Output {
    let values: Vec<f64> = (0..vertices)
        .map(|v| {
            let (sum, reached_by, harmonic, eccentricity) = sums_of(v);
            measured(measure, vertices, sum, reached_by, harmonic, eccentricity)
        })
        .collect();
    Output::Float64(to_original_order(&values, permutation, |&value| value))
}

/// Closeness, harmonic centrality and eccentricity as the runner drives them.
pub struct Closeness;

impl Kernel for Closeness {
    type State = ClosenessState;
    type Result = ClosenessResult;
    type Parameters = Measure;

    const INFO: KernelInfo = KernelInfo {
        name: "closeness",
        about: "Closeness, harmonic centrality or eccentricity (exact: a search from every vertex, 64 at once): value per vertex",
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

    fn parameters(&self, values: &ParameterValues) -> Measure {
        Measure::of_name(values.choice("measure"))
    }
    fn memory(&self, shape: GraphShape) -> KernelMemory {
        let vertices = shape.vertices;
        KernelMemory {
            // Two masks and the distance sums (8 each), the count reaching each vertex
            // (4), the harmonic sums (8), the eccentricities (4).
            hot_arrays: vec![
                8 * vertices,
                8 * vertices,
                8 * vertices,
                4 * vertices,
                8 * vertices,
                4 * vertices,
            ],
            // The frontier, its growth and the vertices the batch touched (4 a vertex
            // each, and a sorted copy), and what edge_map's scans hold.
            working_bytes: 20 * vertices + edge_map_bytes(shape.arcs),
            // The verifier's search (three masks, 24 bytes a vertex, and two levels and
            // the vertices it touched, 12) and its four sums (24).
            verifier_bytes: 60 * vertices,
            result_bytes_per_vertex: 24,
            // The values in internal order, then in the original order.
            output_bytes_per_vertex: 16,
            released_as_copied: true,
            ..KernelMemory::default()
        }
    }
    fn start(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<Measure>,
    ) -> Result<ClosenessState> {
        Ok(ClosenessState::new(
            store.num_vertices(),
            &options.arrays,
            options.parameters,
        ))
    }
    /// The searches from one batch of 64 sources.
    fn step(&self, store: &dyn EdgeStore, state: &mut ClosenessState) -> Result<Step> {
        if state.batch_start as usize >= state.visited.len() {
            return Ok(Step::Done);
        }
        search_batch(store, state)?;
        Ok(match state.batch_start as usize >= state.visited.len() {
            true => Step::Done,
            false => Step::More,
        })
    }
    fn save(&self, state: &mut ClosenessState, out: &mut StateWriter) -> std::io::Result<()> {
        // Between batches the masks are all clear: the sums and the next batch are all.
        out.array("distance_sums", &state.distance_sums)?;
        out.array("reached_by", state.reached_by.cells())?;
        out.array("harmonic", state.harmonic.cells())?;
        out.array("eccentricity", state.eccentricity.cells())?;
        out.number("pairs_reached", state.pairs_reached)?;
        out.number("batch_start", state.batch_start as u64)
    }
    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<Measure>,
        saved: &mut StateReader,
    ) -> std::result::Result<ClosenessState, StateError> {
        let vertices = store.num_vertices();
        let mut state = ClosenessState::new(vertices, &options.arrays, options.parameters);
        saved.fill("distance_sums", &state.distance_sums)?;
        saved.fill("reached_by", state.reached_by.cells())?;
        saved.fill("harmonic", state.harmonic.cells())?;
        saved.fill("eccentricity", state.eccentricity.cells())?;
        state.pairs_reached = saved.number_at_most(
            "pairs_reached",
            (vertices as u64).saturating_mul(vertices as u64),
        )?;
        state.batch_start = saved.number_at_most("batch_start", vertices as u64)? as u32;
        Ok(state)
    }
    fn finish(&self, state: ClosenessState) -> ClosenessResult {
        (
            state.measure,
            Distances {
                distance_sums: state.distance_sums,
                reached_by: state.reached_by.into_values(),
                harmonic: state.harmonic.into_values(),
                eccentricity: state.eccentricity.into_values(),
                pairs_reached: state.pairs_reached,
            },
        )
    }
    fn summary(
        &self,
        (measure, result): &ClosenessResult,
        _: &KernelOptions<Measure>,
        _original: &dyn Fn(u32) -> u64,
    ) -> Value {
        let vertices = result.reached_by.len() as u64;
        let largest = result.eccentricity.iter().max().copied().unwrap_or(0);
        let smallest = result.eccentricity.iter().min().copied().unwrap_or(0);
        json!({
            "measure": measure.name(),
            "sources": vertices,
            "pairs_reached": result.pairs_reached,
            "strongly_connected": result.pairs_reached == vertices * vertices,
            "largest_eccentricity": largest,
            "smallest_eccentricity": smallest,
        })
    }
    fn verify(
        &self,
        graph: &GraphFile,
        _options: &KernelOptions<Measure>,
        (_, result): &ClosenessResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        verify(graph, result)
    }
    fn output(&self, (measure, result): ClosenessResult, permutation: Option<&[u32]>) -> Output {
        measured_output(measure, result.reached_by.len(), permutation, |v| {
            (
                result.distance_sums[v].load(Ordering::Relaxed) as f64,
                result.reached_by[v],
                result.harmonic[v],
                result.eccentricity[v] as f64,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use swapless_build::importers::ImportOptions;

    /// The path 0 - 1 - 2 - 3 and vertex 4 on its own (its self-loop is dropped).
    fn path_graph(dir: &tempfile::TempDir) -> GraphFile {
        let options = ImportOptions {
            undirected: true,
            weighted: false,
            // Test graphs' ids are their vertices, isolated ones too.
            ids: swapless_build::ids::IdMode::Dense,
        };
        super::super::text_graph(dir, "0 1\n1 2\n2 3\n4 4\n", options)
    }

    /// `values` in a property array, as a run holds them.
    fn held<T: Copy + Default>(values: &[T]) -> PropertyVec<T> {
        let mut held = property_vec(&PropertyArrays::default(), values.len(), T::default);
        held.copy_from_slice(values);
        held
    }

    /// A run's result holding the serial search's sums.
    fn as_run(serial: &Distances<Vec<u64>, Vec<u32>, Vec<f64>>) -> RunDistances {
        let sums = property_vec(
            &PropertyArrays::default(),
            serial.distance_sums.len(),
            || AtomicU64::new(0),
        );
        for (cell, &sum) in sums.iter().zip(&serial.distance_sums) {
            cell.store(sum, Ordering::Relaxed);
        }
        Distances {
            distance_sums: sums,
            reached_by: held(&serial.reached_by),
            harmonic: held(&serial.harmonic),
            eccentricity: held(&serial.eccentricity),
            pairs_reached: serial.pairs_reached,
        }
    }

    #[test]
    fn the_serial_search_sums_each_vertex_s_distances() {
        let dir = tempfile::tempdir().unwrap();
        let found = serial_distances(&path_graph(&dir));
        assert_eq!(found.distance_sums, [6, 4, 4, 6, 0]);
        assert_eq!(found.reached_by, [4, 4, 4, 4, 1]);
        assert_eq!(found.eccentricity, [3, 2, 2, 3, 0]);
        assert_eq!(found.pairs_reached, 17);
        let ends = 1.0 + 1.0 / 2.0 + 1.0 / 3.0;
        assert_eq!(found.harmonic, [ends, 2.5, 2.5, ends, 0.0]);
        // Closeness of an end: three others at 6 hops in all, scaled by 3 of 4 others.
        let closeness = measured(Measure::Closeness, 5, 6.0, 4, ends, 3.0);
        assert_eq!(closeness, 3.0 / 6.0 * (3.0 / 4.0));
        assert_eq!(
            measured(Measure::ClosenessUnscaled, 5, 6.0, 4, ends, 3.0),
            0.5
        );
        assert_eq!(measured(Measure::Closeness, 5, 0.0, 1, 0.0, 0.0), 0.0);
    }

    #[test]
    fn the_verifier_accepts_the_serial_sums_and_refuses_any_other() {
        let dir = tempfile::tempdir().unwrap();
        let graph = path_graph(&dir);
        let serial = serial_distances(&graph);
        assert_eq!(verify(&graph, &as_run(&serial)), Ok(()));
        type Change = fn(&mut Distances<Vec<u64>, Vec<u32>, Vec<f64>>);
        let wrong: [(Change, &str); 5] = [
            (|d| d.distance_sums[1] += 1, "distance sum"),
            (|d| d.reached_by[4] = 2, "count of vertices reaching it"),
            (|d| d.harmonic[0] += 1e-12, "harmonic sum"),
            (|d| d.eccentricity[2] = 3, "eccentricity"),
            (|d| d.pairs_reached = 25, "connected pairs"),
        ];
        for (change, expected) in wrong {
            let mut changed = serial_distances(&graph);
            change(&mut changed);
            let error = verify(&graph, &as_run(&changed)).unwrap_err();
            assert!(error.contains(expected), "{expected}: {error}");
        }
    }
}
