//! Average neighbor degree, as networkx's `average_neighbor_degree`: for each vertex,
//! the mean over its neighbors (out-, in- or both, `--neighbors`) of their degree (out,
//! in or both, `--degree`), over its own degree in the first sense; 0 for a vertex
//! without such neighbors.
//!
//! `wneighbor-degree` weighs each neighbor's degree by the edge's weight and divides by
//! the vertex's weighted degree (the sum of those weights), as networkx with `weight=`;
//! the neighbors' degrees stay whole.
//!
//! A kept self-loop is one entry of its vertex's list, so it counts once in a degree and
//! its vertex is one of its own neighbors: networkx's answer on a directed graph, but
//! networkx counts it twice in an undirected graph's degree (the networkx backend
//! declines those).
//!
//! Output: a float64 per vertex. Unweighted, the sums are of whole degrees, exact in
//! float64, so each value is networkx's bit for bit; weighted, they are exact where the
//! weights are integers. One step is one scan of the lists of a direction: out-lists,
//! then in-lists where `--neighbors` asks for both, each in [`SLICES`] steps of consecutive
//! vertices, so that a checkpoint falls within a scan of a large graph.

use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, OffsetSlice, Result};

use super::Reads;
use super::power_iteration;
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
    reorder_property,
};
use crate::parameters::{Parameter, ParameterKind, ParameterValues};
use crate::property::{F64Array, PropertyVec};
use crate::saved_state::{StateError, StateReader, StateWriter};

/// Average neighbor degree as the runner drives it; by edge weight when `WEIGHTED`.
pub struct NeighborDegree<const WEIGHTED: bool>;

/// Which lists, or which degree: out, in, or both (on an undirected graph they are one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sides {
    /// Out-lists or out-degree.
    pub out: bool,
    /// In-lists or in-degree.
    pub r#in: bool,
}

impl Sides {
    /// The sides a parameter's word names.
    fn named(word: &str) -> Sides {
        Sides {
            out: word.contains("out"),
            r#in: word.starts_with("in"),
        }
    }

    /// The directions, in scan order.
    fn directions(self) -> Vec<EdgeDirection> {
        [
            (self.out, EdgeDirection::Out),
            (self.r#in, EdgeDirection::In),
        ]
        .into_iter()
        .filter_map(|(on, direction)| on.then_some(direction))
        .collect()
    }
}

/// Its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NeighborDegreeOptions {
    /// The neighbors averaged over, and the degree divided by (networkx's `source`).
    pub neighbors: Sides,
    /// The degree of theirs averaged (networkx's `target`).
    pub degree: Sides,
}

const SIDES: &[&str] = &["out", "in", "in+out"];

const PARAMETERS: [Parameter; 2] = [
    Parameter {
        flag: "neighbors",
        keyword: "neighbors",
        help: "average over the `out`-, `in`- or `in+out`-neighbors (networkx's source), dividing by that degree",
        kind: ParameterKind::Choice(SIDES),
        default: Some("out"),
    },
    Parameter {
        flag: "degree",
        keyword: "degree",
        help: "the neighbors' `out`-, `in`- or `in+out`-degree averaged (networkx's target)",
        kind: ParameterKind::Choice(SIDES),
        default: Some("out"),
    },
];

/// Steps a scan of the lists of one direction takes, each over a slice of the vertices.
const SLICES: u32 = 16;

/// The run between scans.
pub struct NeighborDegreeState {
    options: NeighborDegreeOptions,
    /// The sums of the neighbors' degrees so far; the averages once the last scan ends.
    values: F64Array,
    /// By weight: each vertex's weighted degree so far (empty unweighted).
    weighted_degrees: Option<F64Array>,
    /// Slices scanned, over both directions.
    scans: u32,
}

/// `vertex`'s degree on `sides`, from the offsets.
fn degree_of(out: OffsetSlice, r#in: OffsetSlice, sides: Sides, vertex: usize) -> u64 {
    let mut degree = 0;
    if sides.out {
        degree += out.degree(vertex);
    }
    if sides.r#in {
        degree += r#in.degree(vertex);
    }
    degree
}

/// A sum over a degree, or 0 for a vertex of degree 0, as networkx.
fn average(sum: f64, degree: f64) -> f64 {
    if degree == 0.0 { 0.0 } else { sum / degree }
}

impl<const WEIGHTED: bool> Kernel for NeighborDegree<WEIGHTED> {
    type State = NeighborDegreeState;
    type Result = PropertyVec<f64>;
    type Parameters = NeighborDegreeOptions;

    const INFO: KernelInfo = KernelInfo {
        name: if WEIGHTED {
            "wneighbor-degree"
        } else {
            "neighbor-degree"
        },
        about: if WEIGHTED {
            "Average degree of each vertex's neighbors by edge weight (networkx's average_neighbor_degree with weight=)"
        } else {
            "Average degree of each vertex's neighbors (networkx's average_neighbor_degree)"
        },
        reads: Reads {
            out_lists: true,
            in_lists: true,
            weights: WEIGHTED,
            out_heads: false,
        },
        column: Column {
            name: "average_neighbor_degree",
            vertices: false,
        },
        result: ResultKind::Float64,
        takes_source: false,
        searches: false,
        verifier_copies_lists: false,
        deterministic: true,
        every_vertex_a_source: false,
        undirected_only: false,
        counts_self_loops: true,
        parameters: &PARAMETERS,
    };

    fn parameters(&self, values: &ParameterValues) -> NeighborDegreeOptions {
        NeighborDegreeOptions {
            neighbors: Sides::named(values.choice("neighbors")),
            degree: Sides::named(values.choice("degree")),
        }
    }

    fn memory(&self, shape: GraphShape) -> KernelMemory {
        KernelMemory {
            // The sums, and by weight the weighted degrees.
            hot_arrays: vec![8 * shape.vertices; 1 + WEIGHTED as usize],
            // The serial check's out- and in-degrees.
            verifier_bytes: 8 * shape.vertices,
            result_bytes_per_vertex: 8,
            output_bytes_per_vertex: 8,
            released_as_copied: true,
            ..KernelMemory::default()
        }
    }

    fn start(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<NeighborDegreeOptions>,
    ) -> Result<NeighborDegreeState> {
        let vertices = store.num_vertices();
        Ok(NeighborDegreeState {
            options: options.parameters,
            values: F64Array::filled(&options.arrays, vertices, 0.0),
            weighted_degrees: WEIGHTED.then(|| F64Array::filled(&options.arrays, vertices, 0.0)),
            scans: 0,
        })
    }

    fn step(&self, store: &dyn EdgeStore, state: &mut NeighborDegreeState) -> Result<Step> {
        let options = state.options;
        let directions = options.neighbors.directions();
        let (out, r#in) = (
            store.offsets(EdgeDirection::Out),
            store.offsets(EdgeDirection::In),
        );
        let (values, weighted_degrees) = (&state.values, state.weighted_degrees.as_ref());
        let (direction_index, slice) = (state.scans / SLICES, state.scans % SLICES);
        let direction = directions[direction_index as usize];
        // The averages are taken in the last direction's scan.
        let last = direction_index as usize + 1 == directions.len();
        let vertices = store.num_vertices() as u64;
        let slice_start = |slice: u32| (vertices * slice as u64 / SLICES as u64) as u32;
        let range = slice_start(slice)..slice_start(slice + 1);
        let their_degree = |neighbor: u32| degree_of(out, r#in, options.degree, neighbor as usize);
        store.scan_blocks(direction, range, &|block| {
            for (vertex, list) in block.iter() {
                let (sum, own) = match (list.weights, weighted_degrees) {
                    (Some(weights), Some(weighted_degrees)) => {
                        let sum: f64 = list
                            .neighbors
                            .iter()
                            .zip(weights)
                            .map(|(&neighbor, &weight)| {
                                weight as f64 * their_degree(neighbor) as f64
                            })
                            .sum();
                        let own = weighted_degrees.get(vertex)
                            + weights.iter().map(|&w| w as f64).sum::<f64>();
                        weighted_degrees.set(vertex, own);
                        (sum, own)
                    }
                    _ => {
                        // Whole degrees: exact in float64 below 2^53 arcs.
                        let sum: u64 = list.neighbors.iter().map(|&n| their_degree(n)).sum();
                        let own = degree_of(out, r#in, options.neighbors, vertex as usize);
                        (sum as f64, own as f64)
                    }
                };
                let mut total = values.get(vertex) + sum;
                if last {
                    total = average(total, own);
                }
                values.set(vertex, total);
            }
        })?;
        state.scans += 1;
        let done = state.scans == directions.len() as u32 * SLICES;
        Ok(if done { Step::Done } else { Step::More })
    }

    fn finish(&self, state: NeighborDegreeState) -> PropertyVec<f64> {
        state.values.into_values()
    }

    fn save(&self, state: &mut NeighborDegreeState, out: &mut StateWriter) -> std::io::Result<()> {
        out.array("values", state.values.cells())?;
        if let Some(weighted_degrees) = &state.weighted_degrees {
            out.array("weighted_degrees", weighted_degrees.cells())?;
        }
        out.number("scans", state.scans as u64)
    }

    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<NeighborDegreeOptions>,
        saved: &mut StateReader,
    ) -> std::result::Result<NeighborDegreeState, StateError> {
        let vertices = store.num_vertices();
        let arrays = &options.arrays;
        let values = power_iteration::restore_vector(saved, arrays, vertices, "values")?;
        let weighted_degrees = match WEIGHTED {
            true => Some(power_iteration::restore_vector(
                saved,
                arrays,
                vertices,
                "weighted_degrees",
            )?),
            false => None,
        };
        let scans = saved.number("scans")?;
        if scans >= options.parameters.neighbors.directions().len() as u64 * SLICES as u64 {
            return Err(StateError::Invalid {
                name: "scans".to_string(),
                detail: format!("{scans} scans done, but the run takes fewer"),
            });
        }
        Ok(NeighborDegreeState {
            options: options.parameters,
            values,
            weighted_degrees,
            scans: scans as u32,
        })
    }

    fn summary(
        &self,
        result: &PropertyVec<f64>,
        _options: &KernelOptions<NeighborDegreeOptions>,
        _original: &dyn Fn(u32) -> u64,
    ) -> Value {
        let largest = result.iter().fold(0.0f64, |top, &x| top.max(x));
        json!({ "largest": largest })
    }

    /// Each value must be networkx's exactly: the sum, serially from the file, of the
    /// neighbors' degrees over the vertex's own.
    fn verify(
        &self,
        graph: &GraphFile,
        options: &KernelOptions<NeighborDegreeOptions>,
        result: &PropertyVec<f64>,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        let options = options.parameters;
        let vertices = graph.num_vertices();
        // Read in vertex order once, rather than at random for each neighbor.
        let out_degree: Vec<u32> = (0..vertices).map(|v| graph.out_degree(v) as u32).collect();
        let in_degree: Vec<u32> = (0..vertices)
            .map(|v| graph.in_neighbors_of(v).len() as u32)
            .collect();
        let degree = |sides: Sides, v: usize| {
            sides.out as u64 * out_degree[v] as u64 + sides.r#in as u64 * in_degree[v] as u64
        };
        for (v, &value) in result.iter().enumerate() {
            let (mut sum, mut own) = (0.0, 0.0);
            for direction in options.neighbors.directions() {
                let list = match direction {
                    EdgeDirection::Out => graph.out_list(v),
                    EdgeDirection::In => graph.in_list(v),
                }
                .map_err(|error| format!("vertex {v}'s list does not read: {error}"))?;
                let their = |u: u32| degree(options.degree, u as usize) as f64;
                match (WEIGHTED, &list.weights) {
                    (true, Some(weights)) => {
                        sum += list
                            .ids
                            .iter()
                            .zip(weights.iter())
                            .map(|(&u, &w)| w as f64 * their(u))
                            .sum::<f64>();
                        own += weights.iter().map(|&w| w as f64).sum::<f64>();
                    }
                    _ => {
                        sum += list
                            .ids
                            .iter()
                            .map(|&u| degree(options.degree, u as usize))
                            .sum::<u64>() as f64;
                        own = degree(options.neighbors, v) as f64;
                    }
                }
            }
            let expected = average(sum, own);
            if value.to_bits() != expected.to_bits() {
                return Err(format!(
                    "vertex {v} has average neighbor degree {value} but the serial sum gives {expected}"
                ));
            }
        }
        Ok(())
    }

    fn output(&self, result: PropertyVec<f64>, permutation: Option<&[u32]>) -> Output {
        Output::Float64(reorder_property(result, permutation, |&x| x))
    }
}
