//! Katz centrality, as networkx's `katz_centrality`: x = alpha * Aᵀx + beta, iterated
//! from zero, each vertex pulling its in-neighbors' values; the sum of the walks that
//! end at a vertex, each of length k weighted alpha^k.
//!
//! Output: a float64 per vertex, scaled to unit Euclidean norm unless `normalized` is
//! `no`. Stops when an iteration changes the vector by less than `vertices * tol` (L1),
//! networkx's rule; the series converges only when alpha is below the inverse of the
//! adjacency matrix's largest eigenvalue, and otherwise runs into its cap. One step is one
//! iteration.

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
use crate::saved_state::{StateError, StateReader, StateWriter};

/// Katz centrality as the runner drives it.
pub struct KatzCentrality;

/// Its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KatzOptions {
    /// The weight of a walk's each step (networkx's `alpha`).
    pub attenuation: f64,
    /// Every vertex's own weight (networkx's `beta`).
    pub base: f64,
    /// Stop once an iteration changes the vector by less than this per vertex (L1).
    pub tolerance: f64,
    /// Stop after this many iterations in any case.
    pub max_iterations: u32,
    /// Whether the output is scaled to unit Euclidean norm.
    pub normalized: bool,
}

const PARAMETERS: [Parameter; 5] = [
    Parameter {
        flag: "attenuation",
        keyword: "alpha",
        help: "the weight of each step of a walk; below 1 / the largest eigenvalue for the series to converge",
        kind: ParameterKind::Number {
            min: 0.0,
            max: f64::MAX,
            above_min: false,
        },
        default: Some("0.1"),
    },
    Parameter {
        flag: "base",
        keyword: "beta",
        help: "every vertex's own weight",
        kind: ParameterKind::Number {
            min: -f64::MAX,
            max: f64::MAX,
            above_min: false,
        },
        default: Some("1"),
    },
    power_iteration::VERTEX_TOLERANCE,
    power_iteration::MAX_ITERATIONS,
    Parameter {
        flag: "normalized",
        keyword: "normalized",
        help: "`yes` scales the scores to unit Euclidean norm, `no` leaves them as summed",
        kind: ParameterKind::Choice(&["yes", "no"]),
        default: Some("yes"),
    },
];

/// The run between iterations.
pub struct KatzState {
    options: KatzOptions,
    vectors: Vectors,
}

/// What the output multiplies `scores` by: one over their Euclidean norm when
/// normalized (1 when that is 0, as networkx).
fn output_scale(normalized: bool, norm: f64) -> f64 {
    match normalized && norm > 0.0 {
        true => 1.0 / norm,
        false => 1.0,
    }
}

impl Kernel for KatzCentrality {
    type State = KatzState;
    type Result = VectorResult;
    type Parameters = KatzOptions;

    const INFO: KernelInfo = KernelInfo {
        name: "katz",
        about: "Katz centrality (walks weighted alpha per step, as networkx): score per vertex",
        reads: Reads {
            out_lists: false,
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

    fn parameters(&self, values: &ParameterValues) -> KatzOptions {
        KatzOptions {
            attenuation: values.number("attenuation"),
            base: values.number("base"),
            tolerance: values.number("vertex-tolerance"),
            max_iterations: power_iteration::max_iterations(values),
            normalized: values.choice("normalized") == "yes",
        }
    }

    fn memory(&self, shape: GraphShape) -> KernelMemory {
        KernelMemory {
            // The last vector and the next.
            hot_arrays: vec![8 * shape.vertices, 8 * shape.vertices],
            // The serial run's two vectors.
            verifier_bytes: 16 * shape.vertices,
            result_bytes_per_vertex: 8,
            output_bytes_per_vertex: 8,
            released_as_copied: true,
            ..KernelMemory::default()
        }
    }

    fn start(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<KatzOptions>,
    ) -> Result<KatzState> {
        let vertices = store.num_vertices();
        let parameters = options.parameters;
        Ok(KatzState {
            options: parameters,
            vectors: Vectors::new(
                &options.arrays,
                vertices,
                0.0,
                Progress::per_vertex(parameters.tolerance, vertices),
            ),
        })
    }

    fn step(&self, store: &dyn EdgeStore, state: &mut KatzState) -> Result<Step> {
        let options = state.options;
        let (last, next) = (&state.vectors.last, &state.vectors.next);
        power_iteration::pull(store, EdgeDirection::In, last, next, |_, incoming| {
            options.attenuation * incoming + options.base
        })?;
        let [change] =
            power_iteration::sums(
                store.num_vertices(),
                |v| [(next.get(v) - last.get(v)).abs()],
            );
        let done = state.vectors.advance(change, options.max_iterations);
        Ok(if done { Step::Done } else { Step::More })
    }

    fn finish(&self, state: KatzState) -> VectorResult {
        let last = &state.vectors.last;
        let norm = power_iteration::euclidean_norm(last.len(), |v| last.get(v));
        let scale = output_scale(state.options.normalized, norm);
        Vectors::finish(state.vectors.last, scale, state.vectors.progress)
    }

    fn save(&self, state: &mut KatzState, out: &mut StateWriter) -> std::io::Result<()> {
        state.vectors.save(out)
    }

    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<KatzOptions>,
        saved: &mut StateReader,
    ) -> std::result::Result<KatzState, StateError> {
        let vertices = store.num_vertices();
        let parameters = options.parameters;
        let progress = Progress::per_vertex(parameters.tolerance, vertices);
        Ok(KatzState {
            options: parameters,
            vectors: Vectors::restore(saved, &options.arrays, vertices, progress)?,
        })
    }

    fn summary(
        &self,
        result: &VectorResult,
        _options: &KernelOptions<KatzOptions>,
        _original: &dyn Fn(u32) -> u64,
    ) -> Value {
        result.progress.summary()
    }

    fn warnings(
        &self,
        result: &VectorResult,
        _options: &KernelOptions<KatzOptions>,
    ) -> Vec<Warning> {
        result.progress.warnings("attenuation")
    }

    /// The same iterations run serially on the file must give the same scores, to the
    /// rounding of a different order of addition.
    fn verify(
        &self,
        graph: &GraphFile,
        options: &KernelOptions<KatzOptions>,
        result: &VectorResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        let options = options.parameters;
        let vertices = graph.num_vertices();
        let mut last = vec![0.0; vertices];
        let mut next = vec![0.0; vertices];
        for _ in 0..result.progress.iterations {
            power_iteration::serial_pull(graph, EdgeDirection::In, &last, &mut next, |_, sum| {
                options.attenuation * sum + options.base
            });
            std::mem::swap(&mut last, &mut next);
        }
        let norm = last.iter().map(|x| x * x).sum::<f64>().sqrt();
        let scale = output_scale(options.normalized, norm);
        last.iter_mut().for_each(|x| *x *= scale);
        power_iteration::compare(|v| result.value(v), &last, 1e-9)
    }

    fn output(&self, result: VectorResult, permutation: Option<&[u32]>) -> Output {
        result.output(permutation)
    }
}
