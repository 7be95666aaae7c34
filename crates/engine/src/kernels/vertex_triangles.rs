//! Triangles through each vertex of the undirected view (networkx's `triangles`, the
//! numerator of the local clustering coefficient), found as triangle counting finds
//! them: on the lists oriented from lower to higher rank (see `triangle_count`), each
//! triangle `r < s < t` once, as `t ∈ H(r) ∩ H(s)` for `s ∈ H(r)`.
//!
//! Output: the count per vertex (int64); the report holds their total over three,
//! the number of triangles.
//!
//! Both `s` and `t` of a triangle found from `r` are in `H(r)`, so the counts of one
//! `r` are tallied by position in `H(r)` in a buffer of the thread's, and added to the
//! shared counts once per entry of `H(r)`: an atomic add per oriented edge, not three
//! per triangle (which on the hubs every thread shares would contend).

use std::sync::atomic::{AtomicU64, Ordering};

use super::Reads;
use super::oriented_lists::{OrientedLists, ViewKeeps, counting_step, each_common, oriented_lists};
use super::triangle_count::each_triangle;
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
};
use crate::parameters::ParameterValues;
use crate::property::{PropertyArrays, PropertyVec, property_vec};
use crate::saved_state::{StateError, StateReader, StateWriter};
use rayon::prelude::*;
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeStore, Result};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = super::triangle_count::READS;

/// The oriented lists keep which vertex has each rank, to count by vertex.
const KEEPS: ViewKeeps = ViewKeeps {
    order: true,
    reciprocal: false,
    self_loops: false,
    weights: false,
};

/// Adds the triangles whose lowest rank is in `ranks` to `counts` (by rank); returns
/// how many there were.
fn count(oriented: &OrientedLists, ranks: std::ops::Range<u32>, counts: &[AtomicU64]) -> u64 {
    ranks
        .into_par_iter()
        .with_min_len(64)
        .map_init(Vec::new, |tally: &mut Vec<u64>, rank| {
            let mine = oriented.list(rank);
            tally.clear();
            tally.resize(mine.len(), 0);
            let mut triangles = 0u64;
            for (position, &s) in mine.iter().enumerate() {
                let later = position + 1;
                let mut through_s = 0u64;
                each_common(&mine[later..], oriented.list(s), |at, _| {
                    tally[later + at] += 1;
                    through_s += 1;
                });
                tally[position] += through_s;
                triangles += through_s;
            }
            for (&member, &found) in mine.iter().zip(tally.iter()) {
                if found > 0 {
                    counts[member as usize].fetch_add(found, Ordering::Relaxed);
                }
            }
            if triangles > 0 {
                counts[rank as usize].fetch_add(triangles, Ordering::Relaxed);
            }
            triangles
        })
        .sum()
}

/// The counts per vertex, by rank, and which vertex has each rank.
pub struct VertexTrianglesResult {
    /// Triangles through the vertex of each rank.
    counts: PropertyVec<AtomicU64>,
    /// The (internal) vertex of each rank.
    vertex_of_rank: Vec<u32>,
    /// Triangles in all.
    triangles: u64,
}

/// The state between steps.
pub struct VertexTrianglesState {
    /// `None` until the first step has built them.
    oriented: Option<OrientedLists>,
    counts: PropertyVec<AtomicU64>,
    /// The ranks counted so far are `0..counted`.
    counted: u32,
    triangles: u64,
    /// Where the first step makes its arrays.
    arrays: PropertyArrays,
}

/// Triangles per vertex as the runner drives it.
pub struct VertexTriangles;

impl Kernel for VertexTriangles {
    type State = VertexTrianglesState;
    type Result = VertexTrianglesResult;
    type Parameters = ();

    const INFO: KernelInfo = KernelInfo {
        name: "triangles",
        about: "Triangles through each vertex of the undirected view: count per vertex",
        reads: READS,
        column: Column {
            name: "triangles",
            vertices: false,
        },
        result: ResultKind::Int64,
        takes_source: false,
        searches: false,
        verifier_copies_lists: true,
        deterministic: true,
        every_vertex_a_source: false,
        undirected_only: false,
        counts_self_loops: false,
        parameters: &[],
    };

    fn parameters(&self, _values: &ParameterValues) {}
    fn memory(&self, shape: GraphShape) -> KernelMemory {
        let vertices = shape.vertices;
        let mut memory = super::triangle_count::TriangleCount.memory(shape);
        // The counts by rank (8), and which vertex has each rank (4), kept.
        memory.hot_arrays.push(8 * vertices);
        memory.working_bytes += 4 * vertices;
        // The serial counts by vertex.
        memory.verifier_bytes += 8 * vertices;
        // The counts and the ranks' vertices, then the output's int64s.
        memory.result_bytes_per_vertex = 12;
        memory.output_bytes_per_vertex = 8;
        memory
    }
    fn start(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<()>,
    ) -> Result<VertexTrianglesState> {
        Ok(VertexTrianglesState {
            oriented: None,
            counts: property_vec(&options.arrays, store.num_vertices(), || AtomicU64::new(0)),
            counted: 0,
            triangles: 0,
            arrays: options.arrays.clone(),
        })
    }
    /// The first step builds the oriented lists; each after it counts a block of ranks.
    fn step(&self, store: &dyn EdgeStore, state: &mut VertexTrianglesState) -> Result<Step> {
        let counts = &state.counts;
        counting_step(
            store,
            &state.arrays,
            &mut state.oriented,
            KEEPS,
            &mut state.counted,
            &mut state.triangles,
            |oriented, ranks| count(oriented, ranks, counts),
        )
    }
    /// The oriented lists are not saved: they are the graph's, rebuilt on restore.
    fn save(&self, state: &mut VertexTrianglesState, out: &mut StateWriter) -> std::io::Result<()> {
        out.number("counted", state.counted as u64)?;
        out.number("triangles", state.triangles)?;
        out.array("counts", &state.counts[..])
    }
    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<()>,
        saved: &mut StateReader,
    ) -> std::result::Result<VertexTrianglesState, StateError> {
        let counted = saved.number_at_most("counted", store.num_vertices() as u64)? as u32;
        let triangles = saved.number("triangles")?;
        let counts = property_vec(&options.arrays, store.num_vertices(), || AtomicU64::new(0));
        saved.fill("counts", &counts[..])?;
        Ok(VertexTrianglesState {
            oriented: Some(oriented_lists(store, &options.arrays, KEEPS)?),
            counts,
            counted,
            triangles,
            arrays: options.arrays.clone(),
        })
    }
    fn finish(&self, state: VertexTrianglesState) -> VertexTrianglesResult {
        VertexTrianglesResult {
            counts: state.counts,
            vertex_of_rank: state
                .oriented
                .map(|oriented| oriented.vertex_of_rank)
                .unwrap_or_default(),
            triangles: state.triangles,
        }
    }
    fn summary(
        &self,
        result: &VertexTrianglesResult,
        _: &KernelOptions<()>,
        _: &dyn Fn(u32) -> u64,
    ) -> Value {
        json!({"triangles": result.triangles})
    }
    fn verify(
        &self,
        graph: &GraphFile,
        _options: &KernelOptions<()>,
        result: &VertexTrianglesResult,
        block_bytes: u64,
    ) -> std::result::Result<(), String> {
        verify(graph, result, block_bytes)
    }
    fn output(&self, result: VertexTrianglesResult, permutation: Option<&[u32]>) -> Output {
        let mut counts = vec![0i64; result.counts.len()];
        for (count, &vertex) in result.counts.iter().zip(&result.vertex_of_rank) {
            let original = crate::kernel::original_id(permutation, vertex);
            counts[original as usize] = count.load(Ordering::Relaxed) as i64;
        }
        Output::Int64(counts)
    }
}

/// Counts each vertex's triangles serially on the file (see
/// `triangle_count::each_triangle`) and compares, vertex by vertex.
fn verify(
    graph: &GraphFile,
    result: &VertexTrianglesResult,
    block_bytes: u64,
) -> std::result::Result<(), String> {
    let mut reference = vec![0u64; graph.num_vertices()];
    let mut triangles = 0u64;
    each_triangle(graph, block_bytes, |u, v, w| {
        for vertex in [u, v, w] {
            reference[vertex as usize] += 1;
        }
        triangles += 1;
    });
    if triangles != result.triangles {
        return Err(format!(
            "counted {} triangles but the serial count is {triangles}",
            result.triangles
        ));
    }
    for (count, &vertex) in result.counts.iter().zip(&result.vertex_of_rank) {
        let count = count.load(Ordering::Relaxed);
        if count != reference[vertex as usize] {
            return Err(format!(
                "vertex {vertex} lies on {count} triangles but the serial count is {}",
                reference[vertex as usize]
            ));
        }
    }
    Ok(())
}
