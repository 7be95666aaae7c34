//! PageRank as networkx's `pagerank` computes it, all of it: float64 scores, edge
//! weights (`wpr64`), a personalization (where the surfer jumps), dangling weights
//! (where the rank of vertices without out-edges goes) and a start vector, each given as
//! weights on some vertices and scaled to sum 1, as networkx scales its dicts.
//!
//! Output: a score per vertex (float64), summing to 1. Each iteration is networkx's
//! `x = alpha * (x A + dangling_rank * d) + (1 - alpha) * p`, where `A` divides each
//! out-edge's weight by its tail's out-weight (a vertex whose out-weight is 0 is
//! dangling, as in networkx, whatever the signs of its weights), and the run stops when an iteration changes the scores by less than
//! `vertices * tol` (L1), networkx's rule, so the scores agree with networkx's to
//! rounding. One step is one iteration.
//!
//! `pr` is the kernel for speed: float32 scores, as GAP keeps them, and uniform jumps.
//! This one holds three float64 arrays (four with weights) to answer what networkx
//! users ask of PageRank. The weights given are held as given; the runner counts them.

use serde_json::Value;
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, Result};

use super::Reads;
use super::pagerank;
use super::power_iteration::{self, Progress, VectorResult, Vectors};
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
    Warning,
};
use crate::parameters::{Parameter, ParameterKind, ParameterValues};
use crate::property::{F64Array, PropertyArrays};
use crate::saved_state::{StateError, StateReader, StateWriter};

/// networkx's PageRank as the runner drives it; `WEIGHTED` reads edge weights.
pub struct PageRank64<const WEIGHTED: bool>;

/// Weights on some vertices (internal ids), scaled to sum 1; the rest weigh 0.
pub type SparseVector = std::sync::Arc<[(u32, f64)]>;

/// Its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct PageRank64Options {
    /// Probability of following an edge (networkx's `alpha`).
    pub damping: f64,
    /// Stop once an iteration changes the scores by less than this per vertex (L1).
    pub tolerance: f64,
    /// Stop after this many iterations in any case.
    pub max_iterations: u32,
    /// Where the surfer jumps; `None`: to every vertex alike.
    pub personalization: Option<SparseVector>,
    /// Where dangling rank goes; `None`: where the surfer jumps.
    pub dangling: Option<SparseVector>,
    /// The first iteration's scores; `None`: uniform.
    pub start: Option<SparseVector>,
}

/// A vertex-weights parameter of this kernel.
const fn weights(flag: &'static str, keyword: &'static str, help: &'static str) -> Parameter {
    Parameter {
        flag,
        keyword,
        help,
        kind: ParameterKind::VertexWeights,
        default: None,
    }
}

const PARAMETERS: [Parameter; 6] = [
    pagerank::PARAMETERS[0],
    power_iteration::VERTEX_TOLERANCE,
    power_iteration::MAX_ITERATIONS,
    weights(
        "personalization",
        "personalization",
        "where the surfer jumps, by weight (default: every vertex alike)",
    ),
    weights(
        "dangling",
        "dangling",
        "where the rank of vertices without out-edges goes, by weight (default: as the personalization)",
    ),
    weights(
        "start",
        "nstart",
        "the first iteration's scores, by weight (default: every vertex alike)",
    ),
];

/// The weights `flag` holds, scaled to sum 1 (repeats of a vertex add up); `None` when
/// not given.
fn scaled(values: &ParameterValues, flag: &str) -> Option<SparseVector> {
    let given = values.vertex_weights(flag);
    if given.is_empty() {
        return None;
    }
    let total: f64 = given.iter().map(|&(_, weight)| weight).sum();
    Some(
        given
            .iter()
            .map(|&(vertex, weight)| (vertex.min(u32::MAX as u64) as u32, weight / total))
            .collect(),
    )
}

/// The run between iterations: the scores (last and next), each vertex's share of its
/// score per unit of out-weight (its contribution), and the out-weights when weighted.
pub struct PageRank64State {
    options: PageRank64Options,
    vectors: Vectors,
    contributions: F64Array,
    out_weights: Option<F64Array>,
}

/// Every vertex's out-weight, summed in list order (the same for any thread count).
fn out_weights(store: &dyn EdgeStore, arrays: &PropertyArrays) -> Result<F64Array> {
    let vertices = store.num_vertices();
    let weights = F64Array::filled(arrays, vertices, 0.0);
    store.scan_blocks(EdgeDirection::Out, 0..vertices as u32, &|block| {
        for (vertex, list) in block.iter() {
            let total: f64 = match list.weights {
                Some(weights) => weights.iter().map(|&weight| weight as f64).sum(),
                None => list.neighbors.len() as f64,
            };
            weights.set(vertex, total);
        }
    })?;
    Ok(weights)
}

impl<const WEIGHTED: bool> PageRank64<WEIGHTED> {
    /// The state of a run whose scores are `scores`, on `store`.
    fn state(
        store: &dyn EdgeStore,
        options: &KernelOptions<PageRank64Options>,
        vectors: Vectors,
    ) -> Result<PageRank64State> {
        let vertices = store.num_vertices();
        Ok(PageRank64State {
            options: options.parameters.clone(),
            vectors,
            contributions: F64Array::filled(&options.arrays, vertices, 0.0),
            out_weights: match WEIGHTED {
                true => Some(out_weights(store, &options.arrays)?),
                false => None,
            },
        })
    }
}

impl<const WEIGHTED: bool> Kernel for PageRank64<WEIGHTED> {
    type State = PageRank64State;
    type Result = VectorResult;
    type Parameters = PageRank64Options;

    const INFO: KernelInfo = KernelInfo {
        name: if WEIGHTED { "wpr64" } else { "pr64" },
        about: if WEIGHTED {
            "PageRank by edge weight in float64, as networkx's pagerank with weight=: personalization, dangling and start weights"
        } else {
            "PageRank in float64, as networkx's pagerank: personalization, dangling and start weights"
        },
        reads: Reads {
            out_lists: WEIGHTED,
            in_lists: true,
            weights: WEIGHTED,
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

    fn parameters(&self, values: &ParameterValues) -> PageRank64Options {
        PageRank64Options {
            damping: values.number("damping"),
            tolerance: values.number("vertex-tolerance"),
            max_iterations: power_iteration::max_iterations(values),
            personalization: scaled(values, "personalization"),
            dangling: scaled(values, "dangling"),
            start: scaled(values, "start"),
        }
    }

    fn memory(&self, shape: GraphShape) -> KernelMemory {
        KernelMemory {
            // The last scores, the next and the contributions; by weight the out-weights.
            hot_arrays: vec![8 * shape.vertices; 3 + WEIGHTED as usize],
            // The serial run's scores, next scores, out-weights, jumps and dangling
            // weights.
            verifier_bytes: 40 * shape.vertices,
            result_bytes_per_vertex: 8,
            output_bytes_per_vertex: 8,
            released_as_copied: true,
            ..KernelMemory::default()
        }
    }

    fn start(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<PageRank64Options>,
    ) -> Result<PageRank64State> {
        let vertices = store.num_vertices();
        let parameters = &options.parameters;
        let start = match parameters.start {
            Some(_) => 0.0,
            None => 1.0 / vertices as f64,
        };
        let vectors = Vectors::new(
            &options.arrays,
            vertices,
            start,
            Progress::per_vertex(parameters.tolerance, vertices),
        );
        for &(vertex, weight) in parameters.start.iter().flat_map(|start| start.iter()) {
            vectors.last.set(vertex, vectors.last.get(vertex) + weight);
        }
        Self::state(store, options, vectors)
    }

    fn step(&self, store: &dyn EdgeStore, state: &mut PageRank64State) -> Result<Step> {
        let vertices = store.num_vertices();
        let options = &state.options;
        let damping = options.damping;
        let (last, next) = (&state.vectors.last, &state.vectors.next);
        let contributions = &state.contributions;
        let out_offsets = store.offsets(EdgeDirection::Out);
        let out_weight = |vertex: u32| match &state.out_weights {
            Some(weights) => weights.get(vertex),
            None => out_offsets.degree(vertex as usize) as f64,
        };
        // Each vertex's contribution, and the rank of the dangling ones.
        let [dangling_rank] = power_iteration::sums(vertices, |vertex| {
            let (score, weight) = (last.get(vertex), out_weight(vertex));
            match weight != 0.0 {
                true => {
                    contributions.set(vertex, score / weight);
                    [0.0]
                }
                false => {
                    contributions.set(vertex, 0.0);
                    [score]
                }
            }
        });
        // What every vertex receives alike: the jump and the dangling rank, where they
        // are spread uniformly; the weighted ones are added after the pull.
        let n = vertices as f64;
        let jumps = options.personalization.as_deref();
        let dangling = options.dangling.as_deref().or(jumps);
        let uniform = match jumps {
            None => (1.0 - damping) / n,
            Some(_) => 0.0,
        } + match dangling {
            None => damping * dangling_rank / n,
            Some(_) => 0.0,
        };
        let update = |_, sum| uniform + damping * sum;
        match WEIGHTED {
            true => power_iteration::weighted_pull(
                store,
                EdgeDirection::In,
                contributions,
                next,
                update,
            )?,
            false => power_iteration::pull(store, EdgeDirection::In, contributions, next, update)?,
        }
        for &(vertex, weight) in jumps.into_iter().flatten() {
            next.set(vertex, next.get(vertex) + (1.0 - damping) * weight);
        }
        for &(vertex, weight) in dangling.into_iter().flatten() {
            next.set(vertex, next.get(vertex) + damping * dangling_rank * weight);
        }
        let [change] = power_iteration::sums(vertices, |v| [(next.get(v) - last.get(v)).abs()]);
        let done = state.vectors.advance(change, options.max_iterations);
        Ok(if done { Step::Done } else { Step::More })
    }

    fn finish(&self, state: PageRank64State) -> VectorResult {
        Vectors::finish(state.vectors.last, 1.0, state.vectors.progress)
    }

    fn save(&self, state: &mut PageRank64State, out: &mut StateWriter) -> std::io::Result<()> {
        state.vectors.save(out)
    }

    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<PageRank64Options>,
        saved: &mut StateReader,
    ) -> std::result::Result<PageRank64State, StateError> {
        let vertices = store.num_vertices();
        let progress = Progress::per_vertex(options.parameters.tolerance, vertices);
        let vectors = Vectors::restore(saved, &options.arrays, vertices, progress)?;
        Ok(Self::state(store, options, vectors)?)
    }

    fn summary(
        &self,
        result: &VectorResult,
        _options: &KernelOptions<PageRank64Options>,
        _original: &dyn Fn(u32) -> u64,
    ) -> Value {
        result.progress.summary()
    }

    fn warnings(
        &self,
        result: &VectorResult,
        _options: &KernelOptions<PageRank64Options>,
    ) -> Vec<Warning> {
        result.progress.warnings("max-iters")
    }

    /// The same iterations run serially on the file, as networkx writes them, must give
    /// the same scores to the rounding of a different order of addition.
    fn verify(
        &self,
        graph: &GraphFile,
        options: &KernelOptions<PageRank64Options>,
        result: &VectorResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        let reference = serial_pagerank(
            graph,
            &options.parameters,
            WEIGHTED,
            result.progress.iterations,
        )?;
        power_iteration::compare(|v| result.value(v), &reference, 1e-9)
    }

    fn output(&self, result: VectorResult, permutation: Option<&[u32]>) -> Output {
        result.output(permutation)
    }
}

/// A sparse vector made dense: `uniform` where not given.
fn dense(vector: Option<&[(u32, f64)]>, vertices: usize) -> Vec<f64> {
    match vector {
        None => vec![1.0 / vertices as f64; vertices],
        Some(entries) => {
            let mut values = vec![0.0; vertices];
            for &(vertex, weight) in entries {
                values[vertex as usize] += weight;
            }
            values
        }
    }
}

/// `iterations` of networkx's iteration, serially from the file, with dense vectors.
fn serial_pagerank(
    graph: &GraphFile,
    options: &PageRank64Options,
    weighted: bool,
    iterations: u32,
) -> std::result::Result<Vec<f64>, String> {
    let vertices = graph.num_vertices();
    let jumps = dense(options.personalization.as_deref(), vertices);
    let dangling = match options.dangling.as_deref() {
        Some(dangling) => dense(Some(dangling), vertices),
        None => jumps.clone(),
    };
    let mut scores = dense(options.start.as_deref(), vertices);
    let mut out_weights = vec![0.0; vertices];
    for (vertex, weight) in out_weights.iter_mut().enumerate() {
        let list = graph
            .out_list(vertex)
            .map_err(|error| format!("vertex {vertex}'s list: {error}"))?;
        *weight = match (&list.weights, weighted) {
            (Some(weights), true) => weights.iter().map(|&w| w as f64).sum(),
            _ => list.ids.len() as f64,
        };
    }
    let damping = options.damping;
    let mut next = vec![0.0; vertices];
    for _ in 0..iterations {
        let dangling_rank: f64 = (0..vertices)
            .filter(|&v| out_weights[v] == 0.0)
            .map(|v| scores[v])
            .sum();
        // The scores become contributions in place; they are not read again.
        for (score, &weight) in scores.iter_mut().zip(&out_weights) {
            *score = if weight != 0.0 { *score / weight } else { 0.0 };
        }
        let update = |v: usize, sum: f64| {
            damping * (sum + dangling_rank * dangling[v]) + (1.0 - damping) * jumps[v]
        };
        match weighted {
            true => power_iteration::serial_weighted_pull(
                graph,
                EdgeDirection::In,
                &scores,
                &mut next,
                update,
            )?,
            false => {
                power_iteration::serial_pull(graph, EdgeDirection::In, &scores, &mut next, update)
            }
        }
        std::mem::swap(&mut scores, &mut next);
    }
    Ok(scores)
}
