//! PageRank, pull-based: each vertex sums the contributions of its in-neighbors.
//!
//! Output: a score per vertex (float64); the scores sum to 1. Damping 0.85 by
//! default; the rank of vertices without out-edges (dangling mass) is spread over
//! all vertices, as networkx and igraph do. Iterates until the L1 change of the
//! scores falls below the tolerance or the iteration limit is reached.
//!
//! Scores and contributions (score / out-degree) are stored as f32, as GAP stores
//! them: 8 bytes a vertex instead of the 12 that f64 scores took, which under a tight
//! budget leaves the edge reads room for a full queue, and the array read at random once per edge
//! is half as large as f64 contributions would be. Sums are f64, and the rank that
//! rounding drops is spread like dangling rank. The output divides the scores by their
//! sum, so they sum to 1; each agrees with networkx to f32's precision (about 1e-7
//! relative). A tolerance below that is met once the stored scores stop changing.

use rayon::prelude::*;
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, ListBlock, OffsetSlice, Result};

mod jumps;
mod verify;

pub use jumps::{Jumps, SeedSet};
pub use verify::verify;

use super::{Reads, deterministic_sums, power_iteration};
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
    Warning, reorder_property,
};
use crate::parameters::{Parameter, ParameterKind, ParameterValues};
use crate::property::{F32Array, PropertyArrays, PropertyVec};
use crate::saved_state::{StateError, StateReader, StateWriter};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: false,
    in_lists: true,
    weights: false,
    out_heads: false,
};

/// How an iteration updates the scores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PageRankMethod {
    /// Power iteration (Jacobi), as networkx and igraph: every new score from the last
    /// iteration's; the same scores for any thread count.
    #[default]
    Power,
    /// Gauss-Seidel, as GAP's `pr`: scores and contributions are updated in place during
    /// the sweep, so later vertices pull newer values. On large graphs fewer iterations
    /// reach the tolerance, though not on every graph; the
    /// scores depend on thread timing, within the tolerance.
    GaussSeidel,
}

impl PageRankMethod {
    /// The method's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            PageRankMethod::Power => "power",
            PageRankMethod::GaussSeidel => "gauss-seidel",
        }
    }

    /// The method with this name.
    pub fn from_name(name: &str) -> Option<PageRankMethod> {
        [PageRankMethod::Power, PageRankMethod::GaussSeidel]
            .into_iter()
            .find(|method| method.name() == name)
    }
}

/// PageRank's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PageRankOptions {
    /// Probability of following an edge (networkx's `alpha`).
    pub damping: f64,
    /// Stop once the L1 change of an iteration is below this.
    pub tolerance: f64,
    /// Stop after this many iterations in any case.
    pub max_iterations: u32,
    /// Power iteration or Gauss-Seidel.
    pub method: PageRankMethod,
}

impl Default for PageRankOptions {
    fn default() -> Self {
        PageRankOptions {
            damping: 0.85,
            tolerance: 1e-4,
            max_iterations: 100,
            method: PageRankMethod::Power,
        }
    }
}

/// PageRank's parameters as the kernel declares them (personalized PageRank shares them).
pub const PARAMETERS: [Parameter; 4] = [
    Parameter {
        flag: "damping",
        keyword: "alpha",
        help: "the probability of following an edge rather than jumping",
        kind: ParameterKind::Number {
            min: 0.0,
            max: 1.0,
            above_min: false,
        },
        default: Some("0.85"),
    },
    power_iteration::TOLERANCE,
    power_iteration::MAX_ITERATIONS,
    Parameter {
        flag: "method",
        keyword: "method",
        help: "`power` iteration (networkx's; the same scores for any thread count) or \
               `gauss-seidel` (GAP's; fewer iterations, scores vary with thread timing \
               within the tolerance)",
        kind: ParameterKind::Choice(&["power", "gauss-seidel"]),
        default: Some("power"),
    },
];

impl PageRankOptions {
    /// The options [`PARAMETERS`] hold in `values`.
    pub fn from_values(values: &ParameterValues) -> PageRankOptions {
        PageRankOptions {
            damping: values.number("damping"),
            tolerance: values.number("tolerance"),
            max_iterations: power_iteration::max_iterations(values),
            method: PageRankMethod::from_name(values.choice("method")).unwrap_or_default(),
        }
    }
}

/// The warning for a run its iteration cap stopped before it met its tolerance.
pub fn not_converged(result: &PageRankResult, options: &PageRankOptions) -> Vec<Warning> {
    match result.last_change < options.tolerance {
        true => Vec::new(),
        false => vec![Warning::NotConverged {
            iterations: result.iterations as u64,
            last_change: result.last_change,
            tolerance: options.tolerance,
            cap: "max-iters",
            tolerance_flag: "tolerance",
        }],
    }
}

/// What a PageRank run produced.
pub struct PageRankResult {
    /// Score per vertex as stored (f32), internal ids; see [`PageRankResult::normalized`].
    pub scores: PropertyVec<f32>,
    /// The stored scores' sum (1 up to f32 rounding), which the output divides by.
    pub sum: f64,
    /// Iterations run.
    pub iterations: u32,
    /// L1 change of the last iteration.
    pub last_change: f64,
}

impl PageRankResult {
    /// A stored score as output: over the stored scores' sum, so that the output sums
    /// to 1 as a probability distribution must.
    #[inline]
    pub fn normalized(&self, score: f32) -> f64 {
        normalized_score(score, self.sum)
    }
}

/// A stored score over the stored scores' `sum`: the score as output
/// ([`PageRankResult::normalized`], for callers that have moved the scores out).
#[inline]
pub fn normalized_score(score: f32, sum: f64) -> f64 {
    score as f64 / sum
}

/// Entries ahead of the sum whose contributions are prefetched.
const PREFETCH_DISTANCE: usize = 64;

/// Calls `each(vertex, sum)` for every vertex of `block` with the sum of its
/// in-neighbors' contributions, prefetching the contributions the next lists will read.
#[inline]
fn incoming_sums(block: ListBlock, contributions: &F32Array, mut each: impl FnMut(u32, f64)) {
    let all = block.all_neighbors();
    let mut ahead = PREFETCH_DISTANCE.min(all.len());
    for &neighbor in &all[..ahead] {
        contributions.prefetch(neighbor);
    }
    for (vertex, list) in block.iter() {
        let end = (ahead + list.neighbors.len()).min(all.len());
        for &neighbor in &all[ahead..end] {
            contributions.prefetch(neighbor);
        }
        ahead = end;
        let incoming: f64 = list
            .neighbors
            .iter()
            .map(|&neighbor| contributions.get(neighbor) as f64)
            .sum();
        each(vertex, incoming);
    }
}

/// Runs PageRank. Both methods keep one array of f32 scores, updated in place by each
/// sweep over the in-lists, and one of f32 contributions (sums are f64). A power
/// iteration's sums read only contributions, which stay the last iteration's until the
/// pass after the sweep, so no second score array is needed. Gauss-Seidel (GAP's `pr`)
/// also stores each contribution as the sweep reaches the vertex, so later vertices pull
/// newer values;
/// such a sweep does not keep the scores' sum at 1 as a power iteration does, and rank
/// then flows in at only 1 - damping per sweep (slow on a graph with many isolated
/// vertices), so the scores are scaled back to sum 1 after each sweep.
pub fn pagerank(store: &dyn EdgeStore, options: PageRankOptions) -> Result<PageRankResult> {
    let kernel_options = KernelOptions {
        source: 0,
        optional_bytes: 0,
        parameters: options,
        arrays: PropertyArrays::default(),
    };
    let mut state = PageRank.start(store, &kernel_options)?;
    while PageRank.step(store, &mut state)? == Step::More {}
    Ok(PageRank.finish(state))
}

/// PageRank as the runner drives it: one step is one iteration.
pub struct PageRank;

/// PageRank's state between iterations.
pub struct PageRankState {
    options: PageRankOptions,
    jumps: Jumps,
    scores: F32Array,
    contributions: F32Array,
    /// Rank that edges do not carry: all of a dangling vertex's, and what rounding the
    /// contributions to f32 dropped; spreading it uniformly keeps the sum at 1.
    uncarried: f64,
    /// The stored scores' sum, which the output divides by.
    score_sum: f64,
    iterations: u32,
    last_change: f64,
}

impl PageRank {
    /// The state before the first iteration of a run that jumps as `jumps` says, its
    /// arrays made through `arrays`.
    pub fn start_with(
        &self,
        store: &dyn EdgeStore,
        arrays: &PropertyArrays,
        options: PageRankOptions,
        jumps: Jumps,
    ) -> Result<PageRankState> {
        let vertices = store.num_vertices();
        let scores = F32Array::filled(arrays, vertices, (1.0 / vertices as f64) as f32);
        let contributions = F32Array::filled(arrays, vertices, 0.0);
        // Out-degrees from the store's offsets (warm data), not a copy: one array less.
        let out_offsets = store.offsets(EdgeDirection::Out);
        let (uncarried, score_sum) =
            scale_and_contribute(out_offsets, &scores, &contributions, 1.0);
        Ok(PageRankState {
            options,
            jumps,
            scores,
            contributions,
            uncarried,
            score_sum,
            iterations: 0,
            last_change: f64::INFINITY,
        })
    }

    /// The state a checkpoint saved, of a run that jumps as `jumps` says.
    pub fn restore_with(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<PageRankOptions>,
        jumps: Jumps,
        saved: &mut StateReader,
    ) -> std::result::Result<PageRankState, StateError> {
        let mut state = Kernel::restore(self, store, options, saved)?;
        state.jumps = jumps;
        Ok(state)
    }
}

/// One sweep over the in-lists: each vertex's new score is `jump(vertex)` plus the
/// damped sum of its in-neighbors' contributions; returns the L1 change and, for
/// Gauss-Seidel, the scores' sum.
fn sweep(
    store: &dyn EdgeStore,
    state: &PageRankState,
    jump: impl Fn(u32) -> f64 + Sync,
) -> Result<(f64, f64)> {
    let options = state.options;
    let gauss_seidel = options.method == PageRankMethod::GaussSeidel;
    let vertices = store.num_vertices();
    let out_offsets = store.offsets(EdgeDirection::Out);
    let (scores, contributions) = (&state.scores, &state.contributions);
    let (change, sum) = (FixedPointSum::default(), FixedPointSum::default());
    store.scan_blocks(EdgeDirection::In, 0..vertices as u32, &|block| {
        let (mut block_change, mut block_sum) =
            (FixedPointSum::default(), FixedPointSum::default());
        incoming_sums(block, contributions, |vertex, incoming| {
            let stored = (jump(vertex) + options.damping * incoming) as f32;
            block_change.add((stored as f64 - scores.get(vertex) as f64).abs());
            scores.set(vertex, stored);
            if gauss_seidel {
                let score = stored as f64;
                block_sum.add(score);
                let degree = out_offsets.degree(vertex as usize);
                contribute(contributions, vertex, degree, score);
            }
        });
        change.add_atomic(&block_change);
        sum.add_atomic(&block_sum);
    })?;
    Ok((change.total(), sum.total()))
}

impl Kernel for PageRank {
    type State = PageRankState;
    type Result = PageRankResult;

    type Parameters = PageRankOptions;

    const INFO: KernelInfo = KernelInfo {
        name: "pr",
        about: "PageRank (pull, damping 0.85, dangling mass spread): score per vertex",
        reads: READS,
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

    fn parameters(&self, values: &ParameterValues) -> PageRankOptions {
        PageRankOptions::from_values(values)
    }
    fn memory(&self, shape: GraphShape) -> KernelMemory {
        KernelMemory {
            // Scores (f32) and contributions (f32).
            hot_arrays: vec![4 * shape.vertices, 4 * shape.vertices],
            // Two iterations of f32 reference scores for a power iteration; the
            // out-degrees for Gauss-Seidel's check.
            verifier_bytes: 8 * shape.vertices,
            result_bytes_per_vertex: 4,
            output_bytes_per_vertex: 8,
            released_as_copied: true,
            ..KernelMemory::default()
        }
    }

    fn start(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<PageRankOptions>,
    ) -> Result<PageRankState> {
        self.start_with(store, &options.arrays, options.parameters, Jumps::Uniform)
    }

    fn step(&self, store: &dyn EdgeStore, state: &mut PageRankState) -> Result<Step> {
        let options = state.options;
        if state.iterations >= options.max_iterations {
            return Ok(Step::Done);
        }
        let (base, seeds) =
            state
                .jumps
                .base(store.num_vertices(), options.damping, state.uncarried);
        // Dispatched once a step, so each sweep's loop knows its jump.
        let (change, sum) = match seeds {
            None => sweep(store, state, |_| base)?,
            Some(seeds) => sweep(store, state, |vertex| match seeds.contains(vertex) {
                true => base,
                false => 0.0,
            })?,
        };
        state.last_change = change;
        let gauss_seidel = options.method == PageRankMethod::GaussSeidel;
        let factor = if gauss_seidel && sum > 0.0 {
            1.0 / sum
        } else {
            1.0
        };
        let out_offsets = store.offsets(EdgeDirection::Out);
        (state.uncarried, state.score_sum) =
            scale_and_contribute(out_offsets, &state.scores, &state.contributions, factor);
        state.iterations += 1;
        let done =
            state.last_change < options.tolerance || state.iterations >= options.max_iterations;
        Ok(if done { Step::Done } else { Step::More })
    }

    fn save(&self, state: &mut PageRankState, out: &mut StateWriter) -> std::io::Result<()> {
        out.array("scores", state.scores.cells())?;
        out.array("contributions", state.contributions.cells())?;
        out.number("uncarried", state.uncarried.to_bits())?;
        out.number("score_sum", state.score_sum.to_bits())?;
        out.number("iterations", state.iterations as u64)?;
        out.number("last_change", state.last_change.to_bits())
    }

    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<PageRankOptions>,
        saved: &mut StateReader,
    ) -> std::result::Result<PageRankState, StateError> {
        let vertices = store.num_vertices();
        let scores = F32Array::filled(&options.arrays, vertices, 0.0);
        saved.fill("scores", scores.cells())?;
        let contributions = F32Array::filled(&options.arrays, vertices, 0.0);
        saved.fill("contributions", contributions.cells())?;
        Ok(PageRankState {
            options: options.parameters,
            jumps: Jumps::Uniform,
            scores,
            contributions,
            uncarried: f64::from_bits(saved.number("uncarried")?),
            score_sum: f64::from_bits(saved.number("score_sum")?),
            iterations: saved.number("iterations")?.min(u32::MAX as u64) as u32,
            last_change: f64::from_bits(saved.number("last_change")?),
        })
    }

    fn finish(&self, state: PageRankState) -> PageRankResult {
        PageRankResult {
            scores: state.scores.into_values(),
            sum: state.score_sum,
            iterations: state.iterations,
            last_change: state.last_change,
        }
    }

    fn summary(
        &self,
        result: &PageRankResult,
        options: &KernelOptions<PageRankOptions>,
        _original: &dyn Fn(u32) -> u64,
    ) -> Value {
        json!({
            "iterations": result.iterations,
            "last_change": result.last_change,
            "converged": result.last_change < options.parameters.tolerance,
            "method": options.parameters.method.name(),
        })
    }

    fn warnings(
        &self,
        result: &PageRankResult,
        options: &KernelOptions<PageRankOptions>,
    ) -> Vec<Warning> {
        not_converged(result, &options.parameters)
    }

    fn verify(
        &self,
        graph: &GraphFile,
        options: &KernelOptions<PageRankOptions>,
        result: &PageRankResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        verify(graph, options.parameters, &Jumps::Uniform, result)
    }

    fn output(&self, result: PageRankResult, permutation: Option<&[u32]>) -> Output {
        let sum = result.sum;
        Output::Float64(reorder_property(result.scores, permutation, |&score| {
            normalized_score(score, sum)
        }))
    }
}

/// A sum of values in [0, 2] (scores' changes, scores) kept as an integer in units of
/// 2^-62, so that adding the same values in any order (blocks finish in thread order)
/// gives the same total: a power iteration then stops after the same iteration for any
/// thread count. Each value loses less than 2^-62, far below any tolerance.
///
/// Each sits on cache lines of its own: the sweep's totals live on the stack beside
/// values every thread reads for each vertex, and a total's line written from one core
/// would otherwise be taken from the others' caches once a block.
#[derive(Default)]
#[repr(align(128))]
struct FixedPointSum(std::sync::atomic::AtomicU64);

impl FixedPointSum {
    const UNIT: f64 = (1u64 << 62) as f64;

    /// Adds `value` (from one thread).
    fn add(&mut self, value: f64) {
        let units = (value * Self::UNIT) as u64;
        let sum = self.0.get_mut();
        *sum = sum.saturating_add(units);
    }

    /// Adds `other`'s total (from any thread).
    fn add_atomic(&self, other: &FixedPointSum) {
        let units = other.0.load(std::sync::atomic::Ordering::Relaxed);
        // Scores sum to 1, so they and their changes sum to at most 2 (2^63 units).
        self.0
            .fetch_add(units, std::sync::atomic::Ordering::Relaxed);
    }

    /// The total.
    fn total(&self) -> f64 {
        self.0.load(std::sync::atomic::Ordering::Relaxed) as f64 / Self::UNIT
    }
}

/// Vertices per block of the pass that stores contributions: their offsets (one more
/// entry) are widened on the stack, which decodes compressed offsets once per block
/// instead of twice per vertex.
const CONTRIBUTE_BLOCK: usize = OffsetSlice::BLOCK_VERTICES;

/// Multiplies every score by `factor` (1 leaves them as they are), stores every vertex's
/// contribution, and returns the rank the edges do not carry and the scores, each summed
/// (the same for any thread count).
fn scale_and_contribute(
    out_offsets: OffsetSlice,
    scores: &F32Array,
    contributions: &F32Array,
    factor: f64,
) -> (f64, f64) {
    let vertices = out_offsets.len() - 1;
    let blocks = vertices.div_ceil(CONTRIBUTE_BLOCK);
    let [uncarried, score_sum] = deterministic_sums((0..blocks).into_par_iter().map(|block| {
        let first = block * CONTRIBUTE_BLOCK;
        let range = first..(first + CONTRIBUTE_BLOCK).min(vertices);
        out_offsets.vertices(range.clone()).widened(|offsets| {
            let (mut uncarried, mut score_sum) = (0.0, 0.0);
            for (index, vertex) in range.clone().enumerate() {
                let vertex = vertex as u32;
                let mut score = scores.get(vertex) as f64;
                if factor != 1.0 {
                    let scaled = (score * factor) as f32;
                    scores.set(vertex, scaled);
                    score = scaled as f64;
                }
                score_sum += score;
                let degree = offsets[index + 1] - offsets[index];
                uncarried += contribute(contributions, vertex, degree, score);
            }
            [uncarried, score_sum]
        })
    }));
    (uncarried, score_sum)
}

/// Stores `vertex`'s contribution (its score over its out-degree `degree`, as f32) and returns
/// the part of its score that its edges do not carry.
fn contribute(contributions: &F32Array, vertex: u32, degree: u64, score: f64) -> f64 {
    let contribution = if degree == 0 {
        0.0
    } else {
        (score / degree as f64) as f32
    };
    contributions.set(vertex, contribution);
    score - degree as f64 * contribution as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_point_sum_does_not_depend_on_order() {
        let values = [1.0, 1e-16, 1e-16, 0.25, 3e-17, 0.5];
        // Added as f64 the two orders differ (the small values vanish one at a time).
        let forward: f64 = values.iter().sum();
        let backward: f64 = values.iter().rev().sum();
        assert_ne!(forward, backward);
        let total = |order: &mut dyn Iterator<Item = &f64>| {
            let sum = FixedPointSum::default();
            for &value in order {
                let mut part = FixedPointSum::default();
                part.add(value);
                sum.add_atomic(&part);
            }
            sum.total()
        };
        let forward = total(&mut values.iter());
        assert_eq!(forward, total(&mut values.iter().rev()));
        assert!((forward - 1.75).abs() < 1e-15);
    }
}
