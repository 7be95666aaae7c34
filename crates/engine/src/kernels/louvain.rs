//! Louvain communities, as networkx's `louvain_communities` defines them: levels of
//! local moving, each node to the neighboring community that most raises the
//! modularity (networkx's gains, `resolution` and all), until a sweep moves none; then
//! the communities become the next level's nodes, until a level raises the modularity
//! by no more than `threshold`, or `max_level` levels are done. `wlouvain` weighs edges;
//! directed graphs use networkx's directed modularity.
//!
//! Output: a community per vertex (int64, the original id of a member), equal iff two
//! vertices are in one community; the report holds the modularity, the levels and the
//! sweeps.
//!
//! The levels never build a coarse graph: a level's node is a set of vertices (`node_of`
//! maps each vertex to its node), and a node's edges are read from its members' lists.
//! So a run holds a few arrays per vertex whatever the level, and each sweep reads every
//! list once, in batches of whole nodes that fit a buffer (a node larger than the buffer
//! is read in parts). Nodes are visited in order, one at a time, each seeing every move
//! before it: the answer does not depend on the tier or the thread count. networkx visits
//! them in a random order, so its partition differs; its modularity is what compares.
//! The order is the file's: a file reordered by degree is visited in another order, and
//! its partition is another of the same quality.
//!
//! Self-loops count as networkx counts them: twice in an undirected vertex's degree,
//! once in a community's internal weight, and never as a neighbor.

use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeStore, Result};

use super::Reads;
pub use super::louvain_levels::LouvainOptions;
use super::louvain_levels::{LouvainState, buffer_entries};
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
    labels_output,
};
use crate::parameters::{Parameter, ParameterKind, ParameterValues};
use crate::property::{PropertyVec, U32Array};
use crate::saved_state::{StateError, StateReader, StateWriter};

/// Louvain as the runner drives it; `WEIGHTED` reads edge weights.
pub struct Louvain<const WEIGHTED: bool>;

/// What a finished run found.
pub struct LouvainResult {
    /// Each vertex's community, labelled by its member of least internal id.
    pub labels: PropertyVec<u32>,
    /// The final partition's modularity.
    pub modularity: f64,
    /// Communities.
    pub communities: u64,
    /// Levels and sweeps run.
    pub levels: u32,
    /// Sweeps run.
    pub sweeps: u32,
}

const PARAMETERS: [Parameter; 3] = [
    Parameter {
        flag: "resolution",
        keyword: "resolution",
        help: "above 1 favors smaller communities, below 1 larger ones",
        kind: ParameterKind::Number {
            min: 0.0,
            max: f64::MAX,
            above_min: false,
        },
        default: Some("1"),
    },
    Parameter {
        flag: "threshold",
        keyword: "threshold",
        help: "a level that raises the modularity by no more than this is the last",
        kind: ParameterKind::Number {
            min: f64::MIN,
            max: f64::MAX,
            above_min: false,
        },
        default: Some("0.0000001"),
    },
    Parameter {
        flag: "max-levels",
        keyword: "max_level",
        help: "stop after this many levels, or `all`: when the modularity stops rising",
        kind: ParameterKind::CountOrAll,
        default: Some("all"),
    },
];

impl<const WEIGHTED: bool> Kernel for Louvain<WEIGHTED> {
    type State = LouvainState;
    type Result = LouvainResult;
    type Parameters = LouvainOptions;

    const INFO: KernelInfo = KernelInfo {
        name: if WEIGHTED { "wlouvain" } else { "louvain" },
        about: if WEIGHTED {
            "Louvain communities by edge weight (networkx's louvain_communities with weight=): community per vertex"
        } else {
            "Louvain communities (networkx's louvain_communities, nodes in order): community per vertex"
        },
        reads: Reads {
            out_lists: true,
            in_lists: true,
            weights: WEIGHTED,
            out_heads: false,
        },
        column: Column {
            name: "community",
            vertices: true,
        },
        result: ResultKind::Int64,
        takes_source: false,
        searches: false,
        verifier_copies_lists: false,
        deterministic: true,
        every_vertex_a_source: false,
        undirected_only: false,
        counts_self_loops: true,
        parameters: &PARAMETERS,
    };

    fn parameters(&self, values: &ParameterValues) -> LouvainOptions {
        LouvainOptions {
            resolution: values.number("resolution"),
            threshold: values.number("threshold"),
            max_levels: values
                .count("max-levels")
                .map(|levels| levels.min(u32::MAX as u64) as u32),
        }
    }

    fn memory(&self, shape: GraphShape) -> KernelMemory {
        let vertices = shape.vertices;
        let sides = if shape.directed { 2 } else { 1 };
        KernelMemory {
            // Nodes and communities (4 each); degrees of vertices, nodes and communities
            // (8 each, twice when directed).
            hot_arrays: vec![4 * vertices, 4 * vertices]
                .into_iter()
                .chain(std::iter::repeat_n(8 * vertices, 3 * sides))
                .collect(),
            // Held throughout: the members by node (4) and their starts (8), the weights
            // to communities (8) and those touched (4). At most 28 more a vertex at once:
            // a sweep batch's order, slots and starts (20); the modularity's
            // internal weights (8); a new level's members, starts and their copy, and
            // the renumbering (24). And the buffer of lists (8 an entry).
            working_bytes: 52 * vertices + 16 + 8 * buffer_entries(vertices, shape.directed),
            // The serial check's community of each label (4) and their totals (16).
            verifier_bytes: 20 * vertices,
            result_bytes_per_vertex: 4,
            output_bytes_per_vertex: 8,
            released_as_copied: true,
            ..KernelMemory::default()
        }
    }

    fn start(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<LouvainOptions>,
    ) -> Result<LouvainState> {
        let vertices = store.num_vertices();
        let node_of = U32Array::filled(&options.arrays, vertices, 0);
        let community = U32Array::filled(&options.arrays, vertices, 0);
        (0..vertices as u32).for_each(|v| node_of.set(v, v));
        let mut state = LouvainState::new(
            store,
            options,
            WEIGHTED,
            (node_of, community, vertices as u32),
        )?;
        state.reset_communities();
        state.modularity = match state.size {
            0.0 => 0.0,
            _ => state.modularity(store)?,
        };
        Ok(state)
    }

    /// A step is one sweep over the nodes; a sweep that moves none ends the level.
    fn step(&self, store: &dyn EdgeStore, state: &mut LouvainState) -> Result<Step> {
        // A graph without edges is its vertices, each on its own, as networkx answers.
        if state.size == 0.0 {
            return Ok(Step::Done);
        }
        if state.sweep(store)? {
            state.moved = true;
            return Ok(Step::More);
        }
        // The level is done. networkx yields its first level even when nothing moved,
        // and stops after a later one that moved nothing (its partition is the last).
        if state.levels > 0 && !state.moved {
            return Ok(Step::Done);
        }
        state.levels += 1;
        let before = state.modularity;
        state.modularity = state.modularity(store)?;
        if state.options.max_levels == Some(state.levels)
            || state.modularity - before <= state.options.threshold
        {
            return Ok(Step::Done);
        }
        state.moved = false;
        state.aggregate();
        Ok(Step::More)
    }

    fn finish(&self, state: LouvainState) -> LouvainResult {
        // Each community labelled by its member of least internal id.
        // The labels replace the nodes in their array (declared, so no array is made).
        let vertices = state.node_of.len();
        let mut first = vec![u32::MAX; state.nodes as usize];
        let mut communities = 0u64;
        for v in 0..vertices as u32 {
            let c = state.community.get(state.node_of.get(v)) as usize;
            if first[c] == u32::MAX {
                first[c] = v;
                communities += 1;
            }
            state.node_of.set(v, first[c]);
        }
        LouvainResult {
            labels: state.node_of.into_values(),
            modularity: state.modularity,
            communities,
            levels: state.levels,
            sweeps: state.sweeps,
        }
    }

    fn save(&self, state: &mut LouvainState, out: &mut StateWriter) -> std::io::Result<()> {
        out.array("node_of", state.node_of.cells())?;
        out.array("community", state.community.cells())?;
        out.number("nodes", state.nodes as u64)?;
        out.array("totals", state.totals.0.cells())?;
        out.array("in_totals", state.totals.1.cells())?;
        out.number("modularity", state.modularity.to_bits())?;
        out.number("levels", state.levels as u64)?;
        out.number("moved", state.moved as u64)?;
        out.number("sweeps", state.sweeps as u64)
    }

    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<LouvainOptions>,
        saved: &mut StateReader,
    ) -> std::result::Result<LouvainState, StateError> {
        let vertices = store.num_vertices();
        let node_of = U32Array::filled(&options.arrays, vertices, 0);
        saved.fill("node_of", node_of.cells())?;
        let community = U32Array::filled(&options.arrays, vertices, 0);
        saved.fill("community", community.cells())?;
        let nodes = saved.number_at_most("nodes", vertices as u64)? as u32;
        let invalid = |name: &str, detail: String| StateError::Invalid {
            name: name.to_string(),
            detail,
        };
        if let Some(v) = (0..vertices as u32).find(|&v| node_of.get(v) >= nodes) {
            return Err(invalid(
                "node_of",
                format!("vertex {v} is in node {} of {nodes}", node_of.get(v)),
            ));
        }
        if let Some(x) = (0..nodes).find(|&x| community.get(x) >= nodes) {
            return Err(invalid(
                "community",
                format!("node {x} is in community {} of {nodes}", community.get(x)),
            ));
        }
        let mut state = LouvainState::new(store, options, WEIGHTED, (node_of, community, nodes))?;
        saved.fill("totals", state.totals.0.cells())?;
        saved.fill("in_totals", state.totals.1.cells())?;
        state.modularity = f64::from_bits(saved.number("modularity")?);
        state.levels = saved.number_at_most("levels", u32::MAX as u64)? as u32;
        state.moved = saved.number_at_most("moved", 1)? == 1;
        state.sweeps = saved.number_at_most("sweeps", u32::MAX as u64)? as u32;
        Ok(state)
    }

    fn summary(
        &self,
        result: &LouvainResult,
        _options: &KernelOptions<LouvainOptions>,
        _original: &dyn Fn(u32) -> u64,
    ) -> Value {
        json!({
            "communities": result.communities,
            "modularity": result.modularity,
            "levels": result.levels,
            "sweeps": result.sweeps,
        })
    }

    /// The partition's modularity, summed serially from the file, must be the one
    /// reported, and each label must be its community's member of least id.
    fn verify(
        &self,
        graph: &GraphFile,
        options: &KernelOptions<LouvainOptions>,
        result: &LouvainResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        let labels = &result.labels;
        if let Some(v) = (0..labels.len()).find(|&v| {
            let label = labels[v] as usize;
            label > v || labels[label] as usize != label
        }) {
            return Err(format!(
                "vertex {v} is labelled {}, not its community's member of least id",
                labels[v]
            ));
        }
        let expected = serial_modularity(graph, labels, options.parameters.resolution, WEIGHTED);
        let found = result.modularity;
        match (found - expected).abs() <= 1e-9 * expected.abs().max(1.0) {
            true => Ok(()),
            false => Err(format!(
                "the partition's modularity is {expected} summed serially, but the run reports {found}"
            )),
        }
    }

    fn output(&self, result: LouvainResult, permutation: Option<&[u32]>) -> Output {
        labels_output(result.labels, permutation)
    }
}

/// networkx's `modularity` of the partition `labels` (each vertex's community's member
/// of least id), from the file, serially; 0 for a graph without edges.
fn serial_modularity(graph: &GraphFile, labels: &[u32], resolution: f64, weighted: bool) -> f64 {
    let vertices = graph.num_vertices();
    let directed = graph.flags().directed;
    let mut out_totals = vec![0.0f64; vertices];
    let mut in_totals = vec![0.0f64; if directed { vertices } else { 0 }];
    let (mut inside, mut size) = (0.0f64, 0.0f64);
    for v in 0..vertices {
        let Ok(list) = graph.out_list(v) else {
            return f64::NAN;
        };
        for (index, &u) in list.ids.iter().enumerate() {
            let weight = match (weighted, &list.weights) {
                (true, Some(weights)) => weights[index] as f64,
                _ => 1.0,
            };
            let u = u as usize;
            // An undirected edge is in two lists, a self-loop in one.
            let share = if directed || u == v {
                weight
            } else {
                weight / 2.0
            };
            size += share;
            out_totals[labels[v] as usize] += weight;
            if directed {
                in_totals[labels[u] as usize] += weight;
            } else if u == v {
                out_totals[labels[v] as usize] += weight;
            }
            if labels[u] == labels[v] {
                inside += share;
            }
        }
    }
    if size == 0.0 {
        return 0.0;
    }
    let spread: f64 = match directed {
        true => {
            (0..vertices)
                .map(|c| out_totals[c] * in_totals[c])
                .sum::<f64>()
                / (size * size)
        }
        false => (0..vertices)
            .map(|c| (out_totals[c] / (2.0 * size)).powi(2))
            .sum(),
    };
    inside / size - resolution * spread
}
