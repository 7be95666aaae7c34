//! Eigenvector centrality, as networkx's `eigenvector_centrality`: a power iteration of
//! A + I (adding the identity keeps a bipartite graph's iteration from oscillating),
//! each vertex pulling its in-neighbors' values, the vector scaled to unit Euclidean
//! norm after each iteration.
//!
//! Output: a float64 per vertex, of unit Euclidean norm. Starts from the uniform vector
//! and stops when an iteration changes the vector by less than `vertices * tol` (L1),
//! networkx's rule, so the scores agree with networkx's to rounding. One step is one
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
use crate::parameters::{Parameter, ParameterValues};
use crate::saved_state::{StateError, StateReader, StateWriter};

/// Eigenvector centrality as the runner drives it.
pub struct EigenvectorCentrality;

/// Its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EigenvectorOptions {
    /// Stop once an iteration changes the vector by less than this per vertex (L1).
    pub tolerance: f64,
    /// Stop after this many iterations in any case.
    pub max_iterations: u32,
}

const PARAMETERS: [Parameter; 2] = [
    power_iteration::VERTEX_TOLERANCE,
    power_iteration::MAX_ITERATIONS,
];

/// The run between iterations.
pub struct EigenvectorState {
    options: EigenvectorOptions,
    vectors: Vectors,
}

impl Kernel for EigenvectorCentrality {
    type State = EigenvectorState;
    type Result = VectorResult;
    type Parameters = EigenvectorOptions;

    const INFO: KernelInfo = KernelInfo {
        name: "eigenvector",
        about: "Eigenvector centrality (power iteration of A + I, as networkx): score per vertex",
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

    fn parameters(&self, values: &ParameterValues) -> EigenvectorOptions {
        EigenvectorOptions {
            tolerance: values.number("vertex-tolerance"),
            max_iterations: power_iteration::max_iterations(values),
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
        options: &KernelOptions<EigenvectorOptions>,
    ) -> Result<EigenvectorState> {
        let vertices = store.num_vertices();
        let parameters = options.parameters;
        Ok(EigenvectorState {
            options: parameters,
            vectors: Vectors::new(
                &options.arrays,
                vertices,
                1.0 / vertices as f64,
                Progress::per_vertex(parameters.tolerance, vertices),
            ),
        })
    }

    fn step(&self, store: &dyn EdgeStore, state: &mut EigenvectorState) -> Result<Step> {
        let vertices = store.num_vertices();
        let (last, next) = (&state.vectors.last, &state.vectors.next);
        power_iteration::pull(store, EdgeDirection::In, last, next, |vertex, incoming| {
            last.get(vertex) + incoming
        })?;
        let norm = match power_iteration::euclidean_norm(vertices, |v| next.get(v)) {
            0.0 => 1.0,
            norm => norm,
        };
        let [change] = power_iteration::sums(vertices, |v| {
            let scaled = next.get(v) / norm;
            next.set(v, scaled);
            [(scaled - last.get(v)).abs()]
        });
        let done = state.vectors.advance(change, state.options.max_iterations);
        Ok(if done { Step::Done } else { Step::More })
    }

    fn finish(&self, state: EigenvectorState) -> VectorResult {
        Vectors::finish(state.vectors.last, 1.0, state.vectors.progress)
    }

    fn save(&self, state: &mut EigenvectorState, out: &mut StateWriter) -> std::io::Result<()> {
        state.vectors.save(out)
    }

    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<EigenvectorOptions>,
        saved: &mut StateReader,
    ) -> std::result::Result<EigenvectorState, StateError> {
        let vertices = store.num_vertices();
        let parameters = options.parameters;
        let progress = Progress::per_vertex(parameters.tolerance, vertices);
        Ok(EigenvectorState {
            options: parameters,
            vectors: Vectors::restore(saved, &options.arrays, vertices, progress)?,
        })
    }

    fn summary(
        &self,
        result: &VectorResult,
        _options: &KernelOptions<EigenvectorOptions>,
        _original: &dyn Fn(u32) -> u64,
    ) -> Value {
        result.progress.summary()
    }

    fn warnings(
        &self,
        result: &VectorResult,
        _options: &KernelOptions<EigenvectorOptions>,
    ) -> Vec<Warning> {
        result.progress.warnings("max-iters")
    }

    /// The same iterations run serially on the file must give the same scores, to the
    /// rounding of a different order of addition.
    fn verify(
        &self,
        graph: &GraphFile,
        _options: &KernelOptions<EigenvectorOptions>,
        result: &VectorResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        let reference = serial_eigenvector(graph, result.progress.iterations);
        power_iteration::compare(|v| result.value(v), &reference, 1e-9)
    }

    fn output(&self, result: VectorResult, permutation: Option<&[u32]>) -> Output {
        result.output(permutation)
    }
}

/// `iterations` of networkx's iteration, serially from the file.
fn serial_eigenvector(graph: &GraphFile, iterations: u32) -> Vec<f64> {
    let vertices = graph.num_vertices();
    let mut last = vec![1.0 / vertices as f64; vertices];
    let mut next = vec![0.0; vertices];
    for _ in 0..iterations {
        power_iteration::serial_pull(graph, EdgeDirection::In, &last, &mut next, |v, incoming| {
            last[v] + incoming
        });
        let norm = match next.iter().map(|x| x * x).sum::<f64>().sqrt() {
            0.0 => 1.0,
            norm => norm,
        };
        next.iter_mut().for_each(|x| *x /= norm);
        std::mem::swap(&mut last, &mut next);
    }
    last
}
