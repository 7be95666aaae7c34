//! The kernel contract: what a kernel declares to the plan, how a runner drives it in
//! steps over an explicit state, and the registry of every kernel.
//!
//! A kernel is one file in `kernels/` with a type that implements [`Kernel`], and one
//! line in [`KERNELS`]. The runner (the `swapless-run` crate) knows no kernel by name:
//! it reads the declarations, reserves the hot arrays, drives the steps, verifies and
//! converts the result through [`AnyKernel`] and [`Finished`].

use serde_json::Value;
use swapless_format::GraphFile;
use swapless_store::{EdgeStore, Result};

use crate::kernels::pagerank::PageRankOptions;
use crate::kernels::{
    Reads, betweenness, bfs, connected_components, core_number, maximal_independent_set, pagerank,
    radii, sssp, triangle_count, vertex_triangles,
};
use crate::saved_state::{StateError, StateReader, StateWriter};

/// Every kernel, in the order the docs list them: adding a kernel adds a line here.
pub static KERNELS: [&dyn AnyKernel; 10] = [
    &bfs::Bfs,
    &pagerank::PageRank,
    &connected_components::ConnectedComponents,
    &sssp::Sssp,
    &betweenness::Betweenness,
    &triangle_count::TriangleCount,
    &vertex_triangles::VertexTriangles,
    &radii::Radii,
    &maximal_independent_set::MaximalIndependentSet,
    &core_number::CoreNumber,
];

/// The kernel named `name` (`bfs`, `pr`, ...).
pub fn kernel_named(name: &str) -> Option<&'static dyn AnyKernel> {
    KERNELS.iter().copied().find(|kernel| kernel.name() == name)
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
        if output == 0 {
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
        self.result_bytes_per_vertex * vertices + self.verifier_bytes
    }
}

/// Betweenness sources: a sample, or every vertex (exact).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BetweennessSources {
    /// This many reproducibly sampled sources with edges.
    Sample(usize),
    /// Every vertex.
    All,
}

/// What a run asks of a kernel besides the graph; each kernel reads what it takes.
#[derive(Clone, Copy, Debug)]
pub struct KernelOptions {
    /// bfs, sssp: the source, an internal id (the runner maps the caller's original id).
    pub source: u32,
    /// PageRank's damping, tolerance, iteration cap and method.
    pub pagerank: PageRankOptions,
    /// SSSP's bucket width.
    pub delta: f64,
    /// Betweenness sources.
    pub betweenness_sources: BetweennessSources,
    /// Whether the plan holds the kernel's optional bytes ([`KernelMemory::optional_bytes`]).
    pub optional_held: bool,
}

impl Default for KernelOptions {
    fn default() -> Self {
        KernelOptions {
            source: 0,
            pagerank: PageRankOptions::default(),
            delta: 1.0,
            betweenness_sources: BetweennessSources::Sample(1),
            optional_held: false,
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
}

/// A graph kernel: its declarations, its run as steps over an explicit state, its
/// serial verifier and its output in original ids.
pub trait Kernel: Sync + std::panic::RefUnwindSafe + 'static {
    /// Everything the run carries from one step to the next: arrays, frontier, counters.
    type State: Send;
    /// What a finished run hands to the verifier and the output.
    type Result: Send + 'static;

    /// The short name (`bfs`, `pr`, ...).
    fn name(&self) -> &'static str;
    /// One line on what it computes and returns.
    fn about(&self) -> &'static str;
    /// The lists it reads.
    fn reads(&self) -> Reads;
    /// Its memory on a graph of this shape.
    fn memory(&self, shape: GraphShape) -> KernelMemory;
    /// Whether it starts from one source vertex ([`KernelOptions::source`]).
    fn takes_source(&self) -> bool {
        false
    }
    /// What a table of its results (a CSV file, a pandas Series) calls their column.
    fn column(&self) -> Column {
        Column {
            name: "value",
            vertices: false,
        }
    }
    /// Whether its steps gather a frontier's lists (so on a banded graph each step
    /// rereads pages the steps before it read).
    fn searches(&self) -> bool {
        false
    }
    /// Whether the serial verifier copies blocks of lists into memory (then it takes half
    /// of the verifier's mapped bytes for them).
    fn verifier_copies_lists(&self) -> bool {
        false
    }
    /// Why it will not run on `graph`, checked before anything is allocated.
    fn refusal(&self, _graph: &GraphFile) -> swapless_format::Result<Option<Refusal>> {
        Ok(None)
    }
    /// The state before the first step.
    fn start(&self, store: &dyn EdgeStore, options: &KernelOptions) -> Result<Self::State>;
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
        options: &KernelOptions,
        saved: &mut StateReader,
    ) -> std::result::Result<Self::State, StateError>;
    /// The result's figures for the report; `original` maps an internal id to the
    /// caller's.
    fn summary(
        &self,
        result: &Self::Result,
        options: &KernelOptions,
        original: &dyn Fn(u32) -> u64,
    ) -> Value;
    /// Checks the result on the file itself (never through the store), holding at most
    /// `block_bytes` of copied lists; the error says what disagreed.
    fn verify(
        &self,
        graph: &GraphFile,
        options: &KernelOptions,
        result: &Self::Result,
        block_bytes: u64,
    ) -> std::result::Result<(), String>;
    /// The result, consumed, as an array in original vertex order.
    fn output(&self, result: Self::Result, permutation: Option<&[u32]>) -> Output;
}

/// A kernel with its types erased, as the registry holds it.
pub trait AnyKernel: Sync + std::panic::RefUnwindSafe {
    /// See [`Kernel::name`].
    fn name(&self) -> &'static str;
    /// See [`Kernel::about`].
    fn about(&self) -> &'static str;
    /// See [`Kernel::reads`].
    fn reads(&self) -> Reads;
    /// See [`Kernel::memory`].
    fn memory(&self, shape: GraphShape) -> KernelMemory;
    /// See [`Kernel::takes_source`].
    fn takes_source(&self) -> bool;
    /// See [`Kernel::column`].
    fn column(&self) -> Column;
    /// See [`Kernel::searches`].
    fn searches(&self) -> bool;
    /// See [`Kernel::verifier_copies_lists`].
    fn verifier_copies_lists(&self) -> bool;
    /// See [`Kernel::refusal`].
    fn refusal(&self, graph: &GraphFile) -> swapless_format::Result<Option<Refusal>>;
    /// The run before its first step.
    fn start(
        &'static self,
        store: &dyn EdgeStore,
        options: &KernelOptions,
    ) -> Result<Box<dyn Running>>;
    /// The run a checkpoint saved (see [`Kernel::restore`]).
    fn restore(
        &'static self,
        store: &dyn EdgeStore,
        options: &KernelOptions,
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

/// A state and the kernel that steps it.
struct RunningKernel<K: Kernel> {
    kernel: &'static K,
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
        Box::new(FinishedRun {
            kernel: self.kernel,
            result: self.kernel.finish(self.state),
        })
    }
}

/// A finished run's result, with its kernel.
pub trait Finished: Send {
    /// See [`Kernel::summary`].
    fn summary(&self, options: &KernelOptions, original: &dyn Fn(u32) -> u64) -> Value;
    /// See [`Kernel::verify`].
    fn verify(
        &self,
        graph: &GraphFile,
        options: &KernelOptions,
        block_bytes: u64,
    ) -> std::result::Result<(), String>;
    /// See [`Kernel::output`].
    fn output(self: Box<Self>, permutation: Option<&[u32]>) -> Output;
}

/// A result and the kernel that made it.
struct FinishedRun<K: Kernel> {
    kernel: &'static K,
    result: K::Result,
}

impl<K: Kernel> Finished for FinishedRun<K> {
    fn summary(&self, options: &KernelOptions, original: &dyn Fn(u32) -> u64) -> Value {
        self.kernel.summary(&self.result, options, original)
    }

    fn verify(
        &self,
        graph: &GraphFile,
        options: &KernelOptions,
        block_bytes: u64,
    ) -> std::result::Result<(), String> {
        self.kernel
            .verify(graph, options, &self.result, block_bytes)
    }

    fn output(self: Box<Self>, permutation: Option<&[u32]>) -> Output {
        self.kernel.output(self.result, permutation)
    }
}

impl<K: Kernel> AnyKernel for K {
    fn name(&self) -> &'static str {
        Kernel::name(self)
    }
    fn about(&self) -> &'static str {
        Kernel::about(self)
    }
    fn reads(&self) -> Reads {
        Kernel::reads(self)
    }
    fn memory(&self, shape: GraphShape) -> KernelMemory {
        Kernel::memory(self, shape)
    }
    fn takes_source(&self) -> bool {
        Kernel::takes_source(self)
    }
    fn column(&self) -> Column {
        Kernel::column(self)
    }
    fn searches(&self) -> bool {
        Kernel::searches(self)
    }
    fn verifier_copies_lists(&self) -> bool {
        Kernel::verifier_copies_lists(self)
    }
    fn refusal(&self, graph: &GraphFile) -> swapless_format::Result<Option<Refusal>> {
        Kernel::refusal(self, graph)
    }

    fn start(
        &'static self,
        store: &dyn EdgeStore,
        options: &KernelOptions,
    ) -> Result<Box<dyn Running>> {
        Ok(Box::new(RunningKernel {
            kernel: self,
            state: Kernel::start(self, store, options)?,
        }))
    }
    fn restore(
        &'static self,
        store: &dyn EdgeStore,
        options: &KernelOptions,
        saved: &mut StateReader,
    ) -> std::result::Result<Box<dyn Running>, StateError> {
        Ok(Box::new(RunningKernel {
            kernel: self,
            state: Kernel::restore(self, store, options, saved)?,
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
