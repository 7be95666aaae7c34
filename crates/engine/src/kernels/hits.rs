//! HITS hubs and authorities, as networkx's `hits`: the principal eigenvector of AᵀA
//! (authorities) by power iteration, each iteration a pull over the out-lists (hubs =
//! A · authorities) and one over the in-lists (authorities = Aᵀ · hubs), scaled so the
//! largest authority is 1; the hubs are A · authorities.
//!
//! Output: a float64 per vertex, hubs or authorities as `scores` asks, summing to 1.
//! Stops when an iteration changes the authorities (scaled to a largest value of 1) by
//! less than `tol` (L1), as networkx's power iteration (`_hits_scipy`); networkx's `hits`
//! asks ARPACK for the same vector to the same tolerance. One step is one iteration.

use serde_json::Value;
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, Result};

use super::Reads;
use super::power_iteration::{self, Progress, VectorResult, Vectors};
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
    Warning,
};
use crate::parameters::{Parameter, ParameterKind, ParameterValues};
use crate::property::F64Array;
use crate::saved_state::{StateError, StateReader, StateWriter};

/// HITS as the runner drives it.
pub struct Hits;

/// Which of the two vectors a run outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HitsScores {
    /// Hubs: vertices that point to good authorities.
    Hubs,
    /// Authorities: vertices that good hubs point to.
    Authorities,
}

/// Its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HitsOptions {
    /// Stop once an iteration changes the authorities by less than this (L1).
    pub tolerance: f64,
    /// Stop after this many iterations in any case.
    pub max_iterations: u32,
    /// The vector output.
    pub scores: HitsScores,
}

const PARAMETERS: [Parameter; 3] = [
    power_iteration::TOLERANCE,
    power_iteration::MAX_ITERATIONS,
    Parameter {
        flag: "scores",
        keyword: "scores",
        help: "`hubs` or `authorities`",
        kind: ParameterKind::Choice(&["hubs", "authorities"]),
        default: Some("hubs"),
    },
];

/// The run between iterations.
pub struct HitsState {
    options: HitsOptions,
    /// The authorities (largest 1 after the first iteration) and the next ones.
    vectors: Vectors,
    /// A · authorities: the hubs.
    hubs: F64Array,
}

/// One over `sum` when it can divide (a graph without edges has only zeros).
fn output_scale(sum: f64) -> f64 {
    if sum > 0.0 { 1.0 / sum } else { 1.0 }
}

impl Kernel for Hits {
    type State = HitsState;
    type Result = VectorResult;
    type Parameters = HitsOptions;

    const INFO: KernelInfo = KernelInfo {
        name: "hits",
        about: "HITS hubs or authorities (power iteration of AᵀA, as networkx): score per vertex",
        reads: Reads {
            out_lists: true,
            in_lists: true,
            weights: false,
            out_heads: false,
        },
        column: Column {
            name: "score",
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

    fn parameters(&self, values: &ParameterValues) -> HitsOptions {
        HitsOptions {
            tolerance: values.number("tolerance"),
            max_iterations: power_iteration::max_iterations(values),
            scores: match values.choice("scores") {
                "authorities" => HitsScores::Authorities,
                _ => HitsScores::Hubs,
            },
        }
    }

    fn memory(&self, shape: GraphShape) -> KernelMemory {
        KernelMemory {
            // The authorities, the hubs and the next authorities.
            hot_arrays: vec![8 * shape.vertices; 3],
            // The serial run's three vectors.
            verifier_bytes: 24 * shape.vertices,
            result_bytes_per_vertex: 8,
            output_bytes_per_vertex: 8,
            released_as_copied: true,
            ..KernelMemory::default()
        }
    }

    fn start(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<HitsOptions>,
    ) -> Result<HitsState> {
        let (vertices, arrays) = (store.num_vertices(), &options.arrays);
        let parameters = options.parameters;
        let progress = Progress::new(parameters.tolerance, parameters.tolerance, "tolerance");
        Ok(HitsState {
            options: parameters,
            vectors: Vectors::new(arrays, vertices, 1.0 / vertices as f64, progress),
            hubs: F64Array::filled(arrays, vertices, 0.0),
        })
    }

    fn step(&self, store: &dyn EdgeStore, state: &mut HitsState) -> Result<Step> {
        let (authorities, next) = (&state.vectors.last, &state.vectors.next);
        let hubs = &state.hubs;
        power_iteration::pull(store, EdgeDirection::Out, authorities, hubs, |_, sum| sum)?;
        power_iteration::pull(store, EdgeDirection::In, hubs, next, |_, sum| sum)?;
        let largest = match power_iteration::largest(next) {
            0.0 => 1.0,
            largest => largest,
        };
        let [change] = power_iteration::sums(store.num_vertices(), |v| {
            let scaled = next.get(v) / largest;
            next.set(v, scaled);
            [(scaled - authorities.get(v)).abs()]
        });
        let done = state.vectors.advance(change, state.options.max_iterations);
        if done && state.options.scores == HitsScores::Hubs {
            // The hubs of the final authorities, as networkx takes them.
            let authorities = &state.vectors.last;
            power_iteration::pull(store, EdgeDirection::Out, authorities, hubs, |_, sum| sum)?;
        }
        Ok(if done { Step::Done } else { Step::More })
    }

    fn finish(&self, state: HitsState) -> VectorResult {
        let scores = match state.options.scores {
            HitsScores::Hubs => state.hubs,
            HitsScores::Authorities => state.vectors.last,
        };
        let [sum] = power_iteration::sums(scores.len(), |v| [scores.get(v)]);
        Vectors::finish(scores, output_scale(sum), state.vectors.progress)
    }

    fn save(&self, state: &mut HitsState, out: &mut StateWriter) -> std::io::Result<()> {
        state.vectors.save(out)
    }

    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<HitsOptions>,
        saved: &mut StateReader,
    ) -> std::result::Result<HitsState, StateError> {
        let (vertices, arrays) = (store.num_vertices(), &options.arrays);
        let tolerance = options.parameters.tolerance;
        let progress = Progress::new(tolerance, tolerance, "tolerance");
        Ok(HitsState {
            options: options.parameters,
            vectors: Vectors::restore(saved, arrays, vertices, progress)?,
            hubs: F64Array::filled(arrays, vertices, 0.0),
        })
    }

    fn summary(
        &self,
        result: &VectorResult,
        options: &KernelOptions<HitsOptions>,
        _original: &dyn Fn(u32) -> u64,
    ) -> Value {
        let mut summary = result.progress.summary();
        summary["scores"] = match options.parameters.scores {
            HitsScores::Hubs => "hubs",
            HitsScores::Authorities => "authorities",
        }
        .into();
        summary
    }

    fn warnings(
        &self,
        result: &VectorResult,
        _options: &KernelOptions<HitsOptions>,
    ) -> Vec<Warning> {
        result.progress.warnings("max-iters")
    }

    /// The same iterations run serially on the file must give the same scores, to the
    /// rounding of a different order of addition.
    fn verify(
        &self,
        graph: &GraphFile,
        options: &KernelOptions<HitsOptions>,
        result: &VectorResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        let vertices = graph.num_vertices();
        let mut authorities = vec![1.0 / vertices as f64; vertices];
        let mut hubs = vec![0.0; vertices];
        let mut next = vec![0.0; vertices];
        let sum_of = |values: &[f64]| values.iter().sum::<f64>();
        for _ in 0..result.progress.iterations {
            power_iteration::serial_pull(
                graph,
                EdgeDirection::Out,
                &authorities,
                &mut hubs,
                |_, sum| sum,
            );
            power_iteration::serial_pull(graph, EdgeDirection::In, &hubs, &mut next, |_, sum| sum);
            let largest = match next.iter().fold(0.0f64, |top, &x| top.max(x)) {
                0.0 => 1.0,
                largest => largest,
            };
            next.iter_mut().for_each(|x| *x /= largest);
            std::mem::swap(&mut authorities, &mut next);
        }
        let mut reference = match options.parameters.scores {
            HitsScores::Authorities => authorities,
            HitsScores::Hubs => {
                power_iteration::serial_pull(
                    graph,
                    EdgeDirection::Out,
                    &authorities,
                    &mut hubs,
                    |_, sum| sum,
                );
                hubs
            }
        };
        let scale = output_scale(sum_of(&reference));
        reference.iter_mut().for_each(|x| *x *= scale);
        power_iteration::compare(|v| result.value(v), &reference, 1e-9)
    }

    fn output(&self, result: VectorResult, permutation: Option<&[u32]>) -> Output {
        result.output(permutation)
    }
}
