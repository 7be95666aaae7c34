//! Single-source shortest paths by delta-stepping (Meyer and Sanders), with
//! per-thread bins as in GAP.
//!
//! Output: the distance per vertex (float64); +inf for unreached. Unweighted
//! graphs use weight 1 per edge. Negative weights are refused: before the run where the
//! graph's weights can be read ([`Kernel::refusal`]), and in any case when a list read
//! holds one.
//!
//! Vertices wait in bins of width `delta` by tentative distance; the lowest
//! non-empty bin is relaxed (a sparse `gather`) until it stays empty, then the
//! next. Re-inserted vertices whose distance has since dropped below the current
//! bin are skipped.

use super::Reads;
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, Refusal,
    ResultKind, Step,
};
use crate::kernels::to_original_order;
use crate::parameters::{Parameter, ParameterKind, ParameterValues};
use crate::saved_state::{StateError, StateReader, StateWriter};
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeStore, Result};

use crate::edge_map::edge_map_bytes;
use crate::property::PropertyArrays;

mod search;
mod verify;

pub use verify::{dijkstra, verify};

use search::{BinPass, Search};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: false,
    weights: true,
    out_heads: false,
};

/// What an SSSP run found.
pub struct SsspResult {
    /// Distance per vertex, internal ids; +inf for unreached.
    pub distances: Vec<f64>,
    /// Vertices reached.
    pub reached: u64,
    /// Bin passes taken.
    pub steps: u64,
    /// Whether the search ran on 4-byte integer distances (every weight met was an
    /// integer and every distance fit); the answer is the same either way.
    pub integer_distances: bool,
}

/// Runs delta-stepping from `source` (internal id) with bin width `delta` (> 0):
/// on integer distances when every weight met is an integer and every distance fits
/// in them, else on f64. `None` when a list it read held a negative weight.
pub fn sssp(store: &dyn EdgeStore, source: u32, delta: f64) -> Result<Option<SsspResult>> {
    let options = KernelOptions {
        source,
        optional_bytes: 0,
        parameters: delta,
        arrays: PropertyArrays::default(),
    };
    let mut state = Sssp.start(store, &options)?;
    loop {
        match Sssp.step(store, &mut state)? {
            Step::More => {}
            Step::Done => return Ok(Some(Sssp.finish(state))),
            Step::Refused(_) => return Ok(None),
        }
    }
}

/// The search's state between bin passes.
pub struct SsspState(Searches);

/// The search: on integer distances until a weight or a sum cannot be one, then on f64
/// from the start.
enum Searches {
    /// Distances held as u32.
    Integer(Search<u32>, u32),
    /// Distances held as f64.
    Float(Search<f64>),
    /// Within a step, between the integer search and the f64 one: nothing held.
    Restarting,
}

/// SSSP as the runner drives it.
pub struct Sssp;

impl Kernel for Sssp {
    type State = SsspState;
    type Result = SsspResult;
    /// The bucket width.
    type Parameters = f64;

    const INFO: KernelInfo = KernelInfo {
        name: "sssp",
        about: "Single-source shortest paths (delta-stepping): distance per vertex",
        reads: READS,
        column: Column {
            name: "distance",
            vertices: false,
        },
        result: ResultKind::Float64,
        takes_source: true,
        searches: true,
        verifier_copies_lists: false,
        deterministic: false,
        every_vertex_a_source: false,
        undirected_only: false,
        counts_self_loops: false,
        parameters: &[Parameter {
            flag: "delta",
            keyword: "delta",
            help: "the bucket width of delta-stepping",
            kind: ParameterKind::Number {
                min: 0.0,
                max: f64::MAX,
                above_min: true,
            },
            default: Some("1"),
        }],
    };

    fn parameters(&self, values: &ParameterValues) -> f64 {
        values.number("delta")
    }
    fn memory(&self, shape: GraphShape) -> KernelMemory {
        let vertices = shape.vertices;
        KernelMemory {
            // Distances (4 as integers, 8 after a restart on f64; one slot serves both).
            hot_arrays: vec![8 * vertices],
            // The frontier and its sorted copy (8) and bins (8), per vertex, and what
            // edge_map's scans hold.
            working_bytes: 16 * vertices + edge_map_bytes(shape.arcs),
            // The verifier's reference distances and heap.
            verifier_bytes: 16 * vertices,
            result_bytes_per_vertex: 8,
            output_bytes_per_vertex: 8,
            ..KernelMemory::default()
        }
    }
    fn refusal(&self, graph: &GraphFile) -> swapless_format::Result<Option<Refusal>> {
        Ok((!graph.out_weights_are_non_negative()?).then_some(Refusal::NegativeWeights))
    }
    fn start(&self, store: &dyn EdgeStore, options: &KernelOptions<f64>) -> Result<SsspState> {
        let search = Search::new(store, &options.arrays, options.source, options.parameters);
        Ok(SsspState(Searches::Integer(search, options.source)))
    }
    /// One bin pass; a distance that integers cannot hold starts the search again on f64.
    fn step(&self, store: &dyn EdgeStore, state: &mut SsspState) -> Result<Step> {
        let state = &mut state.0;
        let pass = match state {
            Searches::Integer(search, _) => search.pass(store)?,
            Searches::Float(search) => search.pass(store)?,
            Searches::Restarting => unreachable!("a step never ends between two searches"),
        };
        match pass {
            BinPass::More => Ok(Step::More),
            BinPass::Done => Ok(Step::Done),
            BinPass::NegativeWeight => Ok(Step::Refused(Refusal::NegativeWeights)),
            BinPass::Inexact => {
                let Searches::Integer(search, source) = state else {
                    unreachable!("f64 distances hold every sum")
                };
                let (source, delta, arrays) = (*source, search.delta, search.arrays.clone());
                // The integer distances go before the f64 ones are made: one slot
                // serves both.
                *state = Searches::Restarting;
                *state = Searches::Float(Search::new(store, &arrays, source, delta));
                Ok(Step::More)
            }
        }
    }
    fn save(&self, state: &mut SsspState, out: &mut StateWriter) -> std::io::Result<()> {
        match &mut state.0 {
            Searches::Integer(search, _) => {
                out.number("distances_as_f64", 0)?;
                search.save(out)
            }
            Searches::Float(search) => {
                out.number("distances_as_f64", 1)?;
                search.save(out)
            }
            Searches::Restarting => unreachable!("a step never ends between two searches"),
        }
    }
    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<f64>,
        saved: &mut StateReader,
    ) -> std::result::Result<SsspState, StateError> {
        let delta = options.parameters;
        Ok(SsspState(
            match saved.number_at_most("distances_as_f64", 1)? {
                0 => Searches::Integer(
                    Search::restore(store, &options.arrays, delta, saved)?,
                    options.source,
                ),
                _ => Searches::Float(Search::restore(store, &options.arrays, delta, saved)?),
            },
        ))
    }
    fn finish(&self, state: SsspState) -> SsspResult {
        match state.0 {
            Searches::Integer(search, _) => search.result(),
            Searches::Float(search) => search.result(),
            Searches::Restarting => unreachable!("a step never ends between two searches"),
        }
    }
    fn summary(
        &self,
        result: &SsspResult,
        _: &KernelOptions<f64>,
        _: &dyn Fn(u32) -> u64,
    ) -> Value {
        json!({
            "reached": result.reached,
            "steps": result.steps,
            "integer_distances": result.integer_distances,
        })
    }
    fn verify(
        &self,
        graph: &GraphFile,
        options: &KernelOptions<f64>,
        result: &SsspResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        verify(graph, options.source, &result.distances)
    }
    fn output(&self, result: SsspResult, permutation: Option<&[u32]>) -> Output {
        Output::Float64(to_original_order(&result.distances, permutation, |&d| d))
    }
}
