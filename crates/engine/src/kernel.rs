//! The kernel contract: what a kernel declares to the plan, and how a runner drives it in
//! steps over an explicit state.
//!
//! A kernel is one file in `kernels/` with a type that implements [`Kernel`], and one
//! line in the registry, `KERNELS` in `kernels/registry.rs`, which sits above the
//! kernels as this contract sits below them. The runner (the `swapless-run` crate) knows
//! no kernel by name: it reads the declarations, reserves the hot arrays (handed to the
//! kernel in [`KernelOptions::arrays`]), drives the steps, verifies and converts the
//! result through [`AnyKernel`] and [`Finished`].

use serde_json::Value;
use swapless_format::GraphFile;
use swapless_store::{EdgeStore, Result};

use crate::kernels::Reads;
use crate::parameters::{Parameter, ParameterValues};
use crate::property::PropertyArrays;
use crate::saved_state::{StateError, StateReader, StateWriter};

/// What a kernel is, declared once: what front ends show, what the plan counts, and the
/// facts its tests rely on.
#[derive(Clone, Copy, Debug)]
pub struct KernelInfo {
    /// The short name (`bfs`, `pr`, ...).
    pub name: &'static str,
    /// One line on what it computes and returns.
    pub about: &'static str,
    /// The lists it reads.
    pub reads: Reads,
    /// What a table of its results (a CSV file, a pandas Series) calls their column.
    pub column: Column,
    /// What its result is.
    pub result: ResultKind,
    /// Whether it starts from one source vertex ([`KernelOptions::source`]).
    pub takes_source: bool,
    /// Whether its steps gather a frontier's lists (so on a banded graph each step
    /// rereads pages the steps before it read).
    pub searches: bool,
    /// Whether the serial verifier copies blocks of lists into memory (then it takes half
    /// of the verifier's mapped bytes for them).
    pub verifier_copies_lists: bool,
    /// Whether, with its default parameters, its result is the same bit for bit whatever
    /// the thread count and timing (and so after a resume).
    pub deterministic: bool,
    /// Whether it searches from every vertex, so that its time grows with the vertices
    /// times the edges (exact closeness): the tests that run every kernel on graphs of
    /// tens of thousands of vertices run these on smaller ones.
    pub every_vertex_a_source: bool,
    /// Whether it is defined on undirected graphs only (networkx's label propagation):
    /// a run on a directed graph is refused before anything is read.
    pub undirected_only: bool,
    /// Whether a self-loop (kept by a build with `--self-loops keep`) changes its
    /// answer, as it changes networkx's: the walks (PageRank, eigenvector, Katz, HITS),
    /// neighbor degrees and label propagation count it; the kernels about paths,
    /// components, triangles, cores and independence leave it out.
    pub counts_self_loops: bool,
    /// Its parameters: front ends make their flags and keywords from them.
    pub parameters: &'static [Parameter],
}

/// What a kernel's result is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultKind {
    /// An int64 per vertex.
    Int64,
    /// A float64 per vertex.
    Float64,
    /// An int8 per vertex.
    Int8,
    /// One number, in the report.
    Number,
    /// Edges, each a pair of vertices (a k-truss).
    Edges,
}

/// Something a front end should tell the user about a result that is not an error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Warning {
    /// An iteration cap stopped the run before its tolerance was met.
    NotConverged {
        /// Iterations run.
        iterations: u64,
        /// The change of the last one.
        last_change: f64,
        /// The tolerance it did not meet.
        tolerance: f64,
        /// The flag of the cap that stopped it ([`Parameter::flag`]).
        cap: &'static str,
        /// The flag of the tolerance.
        tolerance_flag: &'static str,
    },
    /// The iteration's values overflowed: a series that diverges (Katz with a step
    /// weight above one over the largest eigenvalue).
    Diverged {
        /// Iterations run.
        iterations: u64,
        /// The flag of the parameter that decides whether it converges.
        parameter: &'static str,
    },
}

/// What a kernel sizes its memory by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GraphShape {
    /// Vertices.
    pub vertices: u64,
    /// Stored arcs (an undirected edge counts twice).
    pub arcs: u64,
    /// Whether in-lists differ from out-lists.
    pub directed: bool,
}

impl GraphShape {
    /// The shape of `graph`.
    pub fn of(graph: &GraphFile) -> GraphShape {
        GraphShape {
            vertices: graph.num_vertices() as u64,
            arcs: graph.num_arcs() as u64,
            directed: graph.flags().directed,
        }
    }

    /// The shape of the graph `store` serves.
    pub fn of_store(store: &dyn EdgeStore) -> GraphShape {
        GraphShape {
            vertices: store.num_vertices() as u64,
            arcs: store.num_arcs(),
            directed: store.directed(),
        }
    }
}

/// A kernel's memory, declared once: the plan counts it and the runner reserves the hot
/// arrays from it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelMemory {
    /// Bytes of each fixed-size hot array, in the order the kernel makes them: reserved
    /// (on huge pages) before the graph loads.
    pub hot_arrays: Vec<u64>,
    /// Bytes the run holds besides the hot arrays: frontiers, queues, lists it copies.
    pub working_bytes: u64,
    /// Bytes the run can use to read less when the budget has room (0: none).
    pub optional_bytes: u64,
    /// Bytes the serial verifier holds besides the result.
    pub verifier_bytes: u64,
    /// Bytes per vertex of the result as the kernel holds it (0: a number, no array).
    pub result_bytes_per_vertex: u64,
    /// Bytes per vertex of the output array (i64, f64 or i8).
    pub output_bytes_per_vertex: u64,
    /// Whether the result lives in a property array that is copied out a 2 MiB range at
    /// a time, each range released once copied (when no permutation intervenes).
    pub released_as_copied: bool,
    /// Bytes of a result sized by the edges rather than the vertices (a k-truss's lists
    /// and the marks of the edges kept), held from the end of the run on.
    pub result_edge_bytes: u64,
    /// Bytes of the output array of such a result, at most (every edge kept).
    pub output_edge_bytes: u64,
}

impl KernelMemory {
    /// Bytes of the run's own memory: the hot arrays and the working bytes.
    pub fn property_bytes(&self) -> u64 {
        self.hot_arrays.iter().sum::<u64>() + self.working_bytes
    }

    /// Bytes held while the result becomes the output array, after the graph's data,
    /// caches and buffers are released: without a permutation a result copied out a
    /// range at a time leaves little more than the output; through one, both are held.
    pub fn output_bytes(&self, vertices: u64, permuted: bool) -> u64 {
        let (result, output) = (self.result_bytes_per_vertex, self.output_bytes_per_vertex);
        let edges = match self.output_edge_bytes {
            0 => 0,
            bytes => bytes + self.result_edge_bytes,
        };
        edges
            + if output == 0 {
                0
            } else if self.released_as_copied && !permuted {
                output * vertices + (2 << 20).min(result * vertices)
            } else {
                (result + output) * vertices
            }
    }

    /// Bytes held while the serial verifier checks the result: the result and the
    /// verifier's own arrays (the pages of the file it maps are the plan's to count).
    pub fn verification_bytes(&self, vertices: u64) -> u64 {
        self.result_bytes_per_vertex * vertices + self.result_edge_bytes + self.verifier_bytes
    }
}

/// What a run asks of a kernel besides the graph: what the runner decides, and the
/// kernel's own parameters (its options type; [`ParameterValues`] before it read them).
#[derive(Clone, Debug, Default)]
pub struct KernelOptions<P> {
    /// bfs, sssp: the source, an internal id (the runner maps the caller's original id).
    pub source: u32,
    /// Bytes of the kernel's optional memory the plan holds for it: at most
    /// [`KernelMemory::optional_bytes`], 0 when it has no room for them.
    pub optional_bytes: u64,
    /// The kernel's parameters.
    pub parameters: P,
    /// Where the run's property arrays take their memory: every array the kernel makes
    /// is made through it (the default reserves nothing: arrays come from the heap).
    pub arrays: PropertyArrays,
}

impl<P> KernelOptions<P> {
    /// The same options with `parameters`.
    pub fn with<Q>(&self, parameters: Q) -> KernelOptions<Q> {
        KernelOptions {
            source: self.source,
            optional_bytes: self.optional_bytes,
            parameters,
            arrays: self.arrays.clone(),
        }
    }
}

/// Whether a kernel has more steps to take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Another step follows.
    More,
    /// The run is done; [`Kernel::finish`] gives its result.
    Done,
    /// The step met data the kernel cannot handle (a negative weight in a list it read,
    /// which no check before the run could see on a far graph): there is no result.
    Refused(Refusal),
}

/// A result array in original vertex order.
#[derive(Debug)]
pub enum Output {
    /// bfs parents (-1 unreached), cc labels, radii estimates (-1 unreached).
    Int64(Vec<i64>),
    /// pr scores, sssp distances (+inf unreached), bc scores.
    Float64(Vec<f64>),
    /// mis membership (0 or 1).
    Int8(Vec<i8>),
    /// A k-truss's edges, each pair in original ids, the smaller first, sorted (front
    /// ends write them as int64).
    Edges(Vec<[u32; 2]>),
    /// tc: the count is in the report.
    None,
}

/// A kernel's result column in a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    /// Its name (`parent`, `score`).
    pub name: &'static str,
    /// Whether its values are vertices (a parent, a component's representative), which
    /// a table shows as the input's ids.
    pub vertices: bool,
}

/// Why a kernel will not run on a graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// A negative edge weight, which the kernel cannot handle.
    #[error(
        "the graph has negative edge weights, which shortest paths by delta-stepping cannot handle"
    )]
    NegativeWeights,
    /// An edge of weight 0 on a shortest path: the paths it makes are counted in an
    /// order the kernel does not fix (networkx's heap pops such ties in its own order).
    #[error(
        "an edge of weight 0 lies on a shortest path, where counting shortest paths by weight depends on the order ties are visited"
    )]
    ZeroWeightPaths,
}

/// A graph kernel: its declarations, its run as steps over an explicit state, its
/// serial verifier and its output in original ids.
pub trait Kernel: Sync + std::panic::RefUnwindSafe + 'static {
    /// Everything the run carries from one step to the next: arrays, frontier, counters.
    type State: Send;
    /// What a finished run hands to the verifier and the output.
    type Result: Send + 'static;
    /// Its parameters, read from the values [`KernelInfo::parameters`] declares.
    type Parameters: Clone + Send + Sync + 'static;

    /// What it is.
    const INFO: KernelInfo;

    /// Its parameters from `values`, which hold every parameter it declares, each
    /// already checked against its kind.
    fn parameters(&self, values: &ParameterValues) -> Self::Parameters;
    /// Its memory on a graph of this shape.
    fn memory(&self, shape: GraphShape) -> KernelMemory;
    /// Why it will not run on `graph`, checked before anything is allocated.
    fn refusal(&self, _graph: &GraphFile) -> swapless_format::Result<Option<Refusal>> {
        Ok(None)
    }
    /// The state before the first step.
    fn start(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<Self::Parameters>,
    ) -> Result<Self::State>;
    /// One step (a PageRank iteration, a betweenness source, ...).
    fn step(&self, store: &dyn EdgeStore, state: &mut Self::State) -> Result<Step>;
    /// The result, once [`Kernel::step`] has said [`Step::Done`].
    fn finish(&self, state: Self::State) -> Self::Result;
    /// Writes the state between two steps, for a checkpoint: every value a later step
    /// reads, and nothing [`Kernel::restore`] can rebuild from the graph and options.
    /// It changes nothing; the state is lent mutably only so that per-thread buffers,
    /// which no other thread may then touch, can be walked.
    fn save(&self, state: &mut Self::State, out: &mut StateWriter) -> std::io::Result<()>;
    /// The state [`Kernel::save`] wrote, on the same graph with the same options; a
    /// value no run could have saved is an error, never a panic later.
    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<Self::Parameters>,
        saved: &mut StateReader,
    ) -> std::result::Result<Self::State, StateError>;
    /// The result's figures for the report; `original` maps an internal id to the
    /// caller's.
    fn summary(
        &self,
        result: &Self::Result,
        options: &KernelOptions<Self::Parameters>,
        original: &dyn Fn(u32) -> u64,
    ) -> Value;
    /// What the user should hear of about the result (an unconverged iteration).
    fn warnings(
        &self,
        _result: &Self::Result,
        _options: &KernelOptions<Self::Parameters>,
    ) -> Vec<Warning> {
        Vec::new()
    }
    /// Checks the result on the file itself (never through the store), holding at most
    /// `block_bytes` of copied lists; the error says what disagreed.
    fn verify(
        &self,
        graph: &GraphFile,
        options: &KernelOptions<Self::Parameters>,
        result: &Self::Result,
        block_bytes: u64,
    ) -> std::result::Result<(), String>;
    /// The result, consumed, as an array in original vertex order.
    fn output(&self, result: Self::Result, permutation: Option<&[u32]>) -> Output;
}

/// A kernel with its types erased, as the registry holds it.
pub trait AnyKernel: Sync + std::panic::RefUnwindSafe {
    /// See [`Kernel::INFO`].
    fn info(&self) -> &'static KernelInfo;
    /// See [`Kernel::memory`].
    fn memory(&self, shape: GraphShape) -> KernelMemory;
    /// See [`Kernel::refusal`].
    fn refusal(&self, graph: &GraphFile) -> swapless_format::Result<Option<Refusal>>;
    /// The run before its first step; `options` hold every parameter the kernel
    /// declares (see `parameters::resolve`).
    fn start(
        &'static self,
        store: &dyn EdgeStore,
        options: &KernelOptions<ParameterValues>,
    ) -> Result<Box<dyn Running>>;
    /// The run a checkpoint saved (see [`Kernel::restore`]).
    fn restore(
        &'static self,
        store: &dyn EdgeStore,
        options: &KernelOptions<ParameterValues>,
        saved: &mut StateReader,
    ) -> std::result::Result<Box<dyn Running>, StateError>;
}

/// A run under way, its state between two steps: the runner takes its steps, saves it
/// when a checkpoint is due, and finishes it.
pub trait Running: Send {
    /// See [`Kernel::step`].
    fn step(&mut self, store: &dyn EdgeStore) -> Result<Step>;
    /// See [`Kernel::save`].
    fn save(&mut self, out: &mut StateWriter) -> std::io::Result<()>;
    /// See [`Kernel::finish`].
    fn finish(self: Box<Self>) -> Box<dyn Finished>;
}

/// A state, the kernel that steps it and the options it runs with.
struct RunningKernel<K: Kernel> {
    kernel: &'static K,
    options: KernelOptions<K::Parameters>,
    state: K::State,
}

impl<K: Kernel> Running for RunningKernel<K> {
    fn step(&mut self, store: &dyn EdgeStore) -> Result<Step> {
        self.kernel.step(store, &mut self.state)
    }
    fn save(&mut self, out: &mut StateWriter) -> std::io::Result<()> {
        self.kernel.save(&mut self.state, out)
    }
    fn finish(self: Box<Self>) -> Box<dyn Finished> {
        let this = *self;
        Box::new(FinishedRun {
            kernel: this.kernel,
            result: this.kernel.finish(this.state),
            options: this.options,
        })
    }
}

/// A finished run's result, with its kernel and options.
pub trait Finished: Send {
    /// See [`Kernel::summary`].
    fn summary(&self, original: &dyn Fn(u32) -> u64) -> Value;
    /// See [`Kernel::warnings`].
    fn warnings(&self) -> Vec<Warning>;
    /// See [`Kernel::verify`].
    fn verify(&self, graph: &GraphFile, block_bytes: u64) -> std::result::Result<(), String>;
    /// See [`Kernel::output`].
    fn output(self: Box<Self>, permutation: Option<&[u32]>) -> Output;
}

/// A result, the kernel that made it and the options it ran with.
struct FinishedRun<K: Kernel> {
    kernel: &'static K,
    options: KernelOptions<K::Parameters>,
    result: K::Result,
}

impl<K: Kernel> Finished for FinishedRun<K> {
    fn summary(&self, original: &dyn Fn(u32) -> u64) -> Value {
        self.kernel.summary(&self.result, &self.options, original)
    }

    fn warnings(&self) -> Vec<Warning> {
        self.kernel.warnings(&self.result, &self.options)
    }

    fn verify(&self, graph: &GraphFile, block_bytes: u64) -> std::result::Result<(), String> {
        self.kernel
            .verify(graph, &self.options, &self.result, block_bytes)
    }

    fn output(self: Box<Self>, permutation: Option<&[u32]>) -> Output {
        self.kernel.output(self.result, permutation)
    }
}

impl<K: Kernel> AnyKernel for K {
    fn info(&self) -> &'static KernelInfo {
        &Self::INFO
    }
    fn memory(&self, shape: GraphShape) -> KernelMemory {
        Kernel::memory(self, shape)
    }
    fn refusal(&self, graph: &GraphFile) -> swapless_format::Result<Option<Refusal>> {
        Kernel::refusal(self, graph)
    }

    fn start(
        &'static self,
        store: &dyn EdgeStore,
        options: &KernelOptions<ParameterValues>,
    ) -> Result<Box<dyn Running>> {
        let options = options.with(self.parameters(&options.parameters));
        Ok(Box::new(RunningKernel {
            kernel: self,
            state: Kernel::start(self, store, &options)?,
            options,
        }))
    }
    fn restore(
        &'static self,
        store: &dyn EdgeStore,
        options: &KernelOptions<ParameterValues>,
        saved: &mut StateReader,
    ) -> std::result::Result<Box<dyn Running>, StateError> {
        let options = options.with(self.parameters(&options.parameters));
        Ok(Box::new(RunningKernel {
            kernel: self,
            state: Kernel::restore(self, store, &options, saved)?,
            options,
        }))
    }
}

/// Per-vertex values from internal ids to original ids, each converted by `convert`:
/// without a permutation, copied out of the property array with its memory released
/// as it goes (see `PropertyVec::into_vec`), so the two are never both held.
pub fn reorder_property<S: Copy, T: Copy + Default>(
    values: crate::property::PropertyVec<S>,
    permutation: Option<&[u32]>,
    convert: impl Fn(&S) -> T,
) -> Vec<T> {
    match permutation {
        None => values.into_vec(convert),
        Some(_) => crate::kernels::to_original_order(&values, permutation, convert),
    }
}

/// `vertex`'s original id under `permutation` (new id to original id).
pub fn original_id(permutation: Option<&[u32]>, vertex: u32) -> u32 {
    permutation.map_or(vertex, |p| p[vertex as usize])
}

/// Component labels (each a member's internal id) as the output: each label the
/// original id of that member, in original vertex order.
pub fn labels_output(
    labels: crate::property::PropertyVec<u32>,
    permutation: Option<&[u32]>,
) -> Output {
    Output::Int64(reorder_property(labels, permutation, |&member| {
        original_id(permutation, member) as i64
    }))
}

/// How many groups `labels` makes, where each group is labelled by one of its members.
pub fn count_labelled_groups(labels: &[u32]) -> u64 {
    use rayon::prelude::*;
    labels
        .par_iter()
        .enumerate()
        .filter(|&(vertex, &label)| vertex as u32 == label)
        .count() as u64
}
