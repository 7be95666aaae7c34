//! Personalized PageRank: PageRank whose random surfer jumps back to a set of seed
//! vertices, not to any vertex, so scores measure closeness to the seeds.
//!
//! Output: a score per vertex (float64), summing to 1, as networkx's `pagerank` with a
//! `personalization` that weighs the seeds alike (and no `dangling`): the rank of
//! vertices without out-edges goes to the seeds too. Its iterations, methods, stored
//! precision and verifiers are PageRank's ([`super::pagerank`]); only the jump differs.

use serde_json::Value;
use swapless_format::GraphFile;
use swapless_store::{EdgeStore, Result};

use super::pagerank::{
    self, Jumps, PageRank, PageRankOptions, PageRankResult, PageRankState, SeedSet,
};
use crate::kernel::{
    GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, Step, Warning,
};
use crate::parameters::{Parameter, ParameterKind, ParameterValues};
use crate::saved_state::{StateError, StateReader, StateWriter};

/// Personalized PageRank as the runner drives it: one step is one iteration.
pub struct PersonalizedPageRank;

/// Personalized PageRank's parameters: PageRank's, and the seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct PersonalizedOptions {
    /// Damping, tolerance, iteration cap and method, as PageRank's.
    pub pagerank: PageRankOptions,
    /// The seeds, internal ids.
    pub seeds: Vec<u32>,
}

impl PersonalizedOptions {
    /// Where the surfer jumps, on a graph of `vertices`.
    fn jumps(&self, vertices: usize) -> Jumps {
        Jumps::Seeds(SeedSet::new(vertices, &self.seeds))
    }
}

/// PageRank's parameters, then the seeds.
const PARAMETERS: [Parameter; 5] = [
    pagerank::PARAMETERS[0],
    pagerank::PARAMETERS[1],
    pagerank::PARAMETERS[2],
    pagerank::PARAMETERS[3],
    Parameter {
        flag: "seeds",
        keyword: "seeds",
        help: "the vertices walks restart from, by the input's ids (default: one vertex with edges, picked as a source is)",
        kind: ParameterKind::Vertices { picked: true },
        default: None,
    },
];

impl Kernel for PersonalizedPageRank {
    type State = PageRankState;
    type Result = PageRankResult;
    type Parameters = PersonalizedOptions;

    // PageRank's facts (lists read, column, result, determinism); its own name and
    // parameters.
    const INFO: KernelInfo = KernelInfo {
        name: "ppr",
        about: "Personalized PageRank (walks restart at the seed vertices): score per vertex",
        parameters: &PARAMETERS,
        ..<PageRank as Kernel>::INFO
    };

    fn parameters(&self, values: &ParameterValues) -> PersonalizedOptions {
        PersonalizedOptions {
            pagerank: PageRankOptions::from_values(values),
            // Internal ids, below the vertex count, once the runner has mapped them.
            seeds: values
                .vertices("seeds")
                .iter()
                .map(|&seed| seed.min(u32::MAX as u64) as u32)
                .collect(),
        }
    }

    fn memory(&self, shape: GraphShape) -> KernelMemory {
        let mut memory = Kernel::memory(&PageRank, shape);
        // The seed set, during the run and again for the verifier.
        memory.working_bytes += SeedSet::bytes(shape.vertices);
        memory.verifier_bytes += SeedSet::bytes(shape.vertices);
        memory
    }

    fn start(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<PersonalizedOptions>,
    ) -> Result<PageRankState> {
        let jumps = options.parameters.jumps(store.num_vertices());
        PageRank.start_with(store, &options.arrays, options.parameters.pagerank, jumps)
    }

    fn step(&self, store: &dyn EdgeStore, state: &mut PageRankState) -> Result<Step> {
        PageRank.step(store, state)
    }

    fn finish(&self, state: PageRankState) -> PageRankResult {
        PageRank.finish(state)
    }

    fn save(&self, state: &mut PageRankState, out: &mut StateWriter) -> std::io::Result<()> {
        PageRank.save(state, out)
    }

    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<PersonalizedOptions>,
        saved: &mut StateReader,
    ) -> std::result::Result<PageRankState, StateError> {
        let jumps = options.parameters.jumps(store.num_vertices());
        let pagerank_options = options.with(options.parameters.pagerank);
        PageRank.restore_with(store, &pagerank_options, jumps, saved)
    }

    fn summary(
        &self,
        result: &PageRankResult,
        options: &KernelOptions<PersonalizedOptions>,
        original: &dyn Fn(u32) -> u64,
    ) -> Value {
        let mut summary =
            PageRank.summary(result, &options.with(options.parameters.pagerank), original);
        let seeds: Vec<u64> = options
            .parameters
            .seeds
            .iter()
            .map(|&seed| original(seed))
            .collect();
        summary["seeds"] = seeds.into();
        summary
    }

    fn warnings(
        &self,
        result: &PageRankResult,
        options: &KernelOptions<PersonalizedOptions>,
    ) -> Vec<Warning> {
        pagerank::not_converged(result, &options.parameters.pagerank)
    }

    fn verify(
        &self,
        graph: &GraphFile,
        options: &KernelOptions<PersonalizedOptions>,
        result: &PageRankResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        let jumps = options.parameters.jumps(graph.num_vertices());
        pagerank::verify(graph, options.parameters.pagerank, &jumps, result)
    }

    fn output(&self, result: PageRankResult, permutation: Option<&[u32]>) -> Output {
        PageRank.output(result, permutation)
    }
}
