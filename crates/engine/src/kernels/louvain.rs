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
//!
//! Self-loops count as networkx counts them: twice in an undirected vertex's degree,
//! once in a community's internal weight, and never as a neighbor.

use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, Result};

use super::Reads;
use super::power_iteration;
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
    labels_output,
};
use crate::parameters::{Parameter, ParameterKind, ParameterValues};
use crate::property::{F64Array, PropertyArrays, PropertyVec, U32Array, property_vec};
use crate::saved_state::{StateError, StateReader, StateWriter};

/// Louvain as the runner drives it; `WEIGHTED` reads edge weights.
pub struct Louvain<const WEIGHTED: bool>;

/// Its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct LouvainOptions {
    /// Above 1 favors smaller communities, below 1 larger ones (networkx's `resolution`).
    pub resolution: f64,
    /// A level that raises the modularity by no more than this is the last.
    pub threshold: f64,
    /// Stop after this many levels (`None`: when the modularity stops rising).
    pub max_levels: Option<u32>,
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

/// List entries a sweep's buffer holds beyond two per vertex (a vertex's lists, both
/// directions, always fit; batches of small lists fill the rest).
const BUFFER_EXTRA_ENTRIES: u64 = 1 << 16;

/// Each vertex's weighted degree, as networkx counts it: (out, in) on a directed graph;
/// on an undirected one both are the degree, a self-loop counted twice.
fn vertex_degrees(store: &dyn EdgeStore, arrays: &PropertyArrays) -> Result<(F64Array, F64Array)> {
    let vertices = store.num_vertices();
    let out = F64Array::filled(arrays, vertices, 0.0);
    let r#in = F64Array::filled(arrays, if store.directed() { vertices } else { 0 }, 0.0);
    let directions: &[(EdgeDirection, &F64Array)] = match store.directed() {
        true => &[(EdgeDirection::Out, &out), (EdgeDirection::In, &r#in)],
        false => &[(EdgeDirection::Out, &out)],
    };
    for &(direction, degrees) in directions {
        let twice = !store.directed();
        store.scan_blocks(direction, 0..vertices as u32, &|block| {
            for (vertex, list) in block.iter() {
                let mut total = 0.0;
                for (index, &neighbor) in list.neighbors.iter().enumerate() {
                    let weight = list.weights.map_or(1.0, |weights| weights[index] as f64);
                    total += weight;
                    if twice && neighbor == vertex {
                        total += weight;
                    }
                }
                degrees.set(vertex, total);
            }
        })?;
    }
    Ok((out, r#in))
}

/// The run between sweeps.
pub struct LouvainState {
    options: LouvainOptions,
    /// Whether the graph is directed (in-degrees and in-totals are then kept).
    directed: bool,
    /// Each vertex's node at this level.
    node_of: U32Array,
    /// Each node's community.
    community: U32Array,
    /// Nodes at this level (`0..nodes`).
    nodes: u32,
    /// Each vertex's degree (out-degree when directed) and in-degree (directed only).
    degree: (F64Array, F64Array),
    /// Each node's degree, and in-degree (directed), summed over its members.
    node_degree: (F64Array, F64Array),
    /// Each community's total degree, and in-degree (directed).
    totals: (F64Array, F64Array),
    /// The vertices by node, and where each node's start.
    members: Vec<u32>,
    node_starts: Vec<u64>,
    /// The graph's total edge weight (networkx's `m`).
    size: f64,
    /// The modularity when this level began.
    modularity: f64,
    /// Levels done; whether this level has moved a node; sweeps in all.
    levels: u32,
    moved: bool,
    sweeps: u32,
    /// Scratch: weight to each community (NaN: none yet), and the communities touched.
    weight_to: Vec<f64>,
    touched: Vec<u32>,
    /// A sweep's copy of a batch's lists: ids and weights.
    buffer: (Vec<AtomicU32>, Vec<AtomicU32>),
    /// Where the result's array is made.
    arrays: PropertyArrays,
}

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

impl LouvainState {
    /// Members and node degrees for the current `node_of`; the nodes are their own
    /// communities unless `community` is kept.
    fn regroup(&mut self) {
        let vertices = self.node_of.len();
        let nodes = self.nodes as usize;
        let mut starts = vec![0u64; nodes + 1];
        for v in 0..vertices as u32 {
            starts[self.node_of.get(v) as usize + 1] += 1;
        }
        for x in 0..nodes {
            starts[x + 1] += starts[x];
        }
        let mut next = starts.clone();
        let mut members = vec![0u32; vertices];
        for v in 0..vertices as u32 {
            let x = self.node_of.get(v) as usize;
            members[next[x] as usize] = v;
            next[x] += 1;
        }
        let directed = self.directed;
        for x in 0..nodes {
            let (mut out, mut r#in) = (0.0, 0.0);
            for &v in &members[starts[x] as usize..starts[x + 1] as usize] {
                out += self.degree.0.get(v);
                if directed {
                    r#in += self.degree.1.get(v);
                }
            }
            self.node_degree.0.set(x as u32, out);
            if directed {
                self.node_degree.1.set(x as u32, r#in);
            }
        }
        self.members = members;
        self.node_starts = starts;
    }

    /// The members of node `x`.
    fn members_of(&self, x: u32) -> &[u32] {
        let x = x as usize;
        &self.members[self.node_starts[x] as usize..self.node_starts[x + 1] as usize]
    }

    /// List entries node `x`'s members hold (both directions when directed).
    fn entries_of(&self, store: &dyn EdgeStore, x: u32) -> u64 {
        self.members_of(x)
            .iter()
            .map(|&v| list_entries(store, v))
            .sum()
    }
}

/// List entries vertex `v` holds (both directions when directed).
fn list_entries(store: &dyn EdgeStore, v: u32) -> u64 {
    let mut entries = store.degree(EdgeDirection::Out, v) as u64;
    if store.directed() {
        entries += store.degree(EdgeDirection::In, v) as u64;
    }
    entries
}

/// Copies the lists of `vertices` (both directions when directed) into `buffer`, each
/// vertex's at the slot its position gives; returns where each vertex's entries start
/// (and the last ends).
fn read_lists(
    store: &dyn EdgeStore,
    vertices: &[u32],
    buffer: &(Vec<AtomicU32>, Vec<AtomicU32>),
) -> Result<Vec<u64>> {
    let mut starts = Vec::with_capacity(vertices.len() + 1);
    starts.push(0u64);
    for &v in vertices {
        let last = *starts.last().unwrap_or(&0);
        starts.push(last + list_entries(store, v));
    }
    // Where each vertex's slot is, found by id (a batch's vertices need not be sorted).
    let mut by_vertex: Vec<(u32, u32)> = vertices.iter().copied().zip(0..).collect();
    by_vertex.sort_unstable();
    let slot_of = |vertex: u32| {
        by_vertex
            .binary_search_by_key(&vertex, |&(v, _)| v)
            .map(|found| by_vertex[found].1 as usize)
            .unwrap_or(0)
    };
    let directions: &[EdgeDirection] = match store.directed() {
        true => &[EdgeDirection::Out, EdgeDirection::In],
        false => &[EdgeDirection::Out],
    };
    let mut sorted: Vec<u32> = vertices.to_vec();
    sorted.sort_unstable();
    for (index, &direction) in directions.iter().enumerate() {
        store.gather(direction, &sorted, &|vertex, list| {
            let slot = slot_of(vertex);
            // In-lists go after the out-list in a vertex's slot.
            let mut at = starts[slot] as usize;
            if index == 1 {
                at += store.degree(EdgeDirection::Out, vertex) as usize;
            }
            for (offset, &neighbor) in list.neighbors.iter().enumerate() {
                let weight = list.weights.map_or(1.0, |weights| weights[offset]);
                buffer.0[at + offset].store(neighbor, Ordering::Relaxed);
                buffer.1[at + offset].store(weight.to_bits(), Ordering::Relaxed);
            }
        })?;
    }
    Ok(starts)
}

impl LouvainState {
    /// Adds to `weight_to` the weights of the buffer's entries `range` (node `x`'s
    /// members') to other nodes, by the community each is in.
    fn accumulate(&mut self, x: u32, range: std::ops::Range<usize>) {
        for at in range {
            let neighbor = self.buffer.0[at].load(Ordering::Relaxed);
            let y = self.node_of.get(neighbor);
            if y == x {
                continue;
            }
            let weight = f32::from_bits(self.buffer.1[at].load(Ordering::Relaxed)) as f64;
            let c = self.community.get(y) as usize;
            if self.weight_to[c].is_nan() {
                self.weight_to[c] = 0.0;
                self.touched.push(c as u32);
            }
            self.weight_to[c] += weight;
        }
    }

    /// Moves node `x` to the community networkx's gains choose, from the weights
    /// accumulated to each; clears them. Says whether it moved.
    fn decide(&mut self, x: u32) -> bool {
        let m = self.size;
        let resolution = self.options.resolution;
        let directed = self.directed;
        let own = self.community.get(x);
        let out_degree = self.node_degree.0.get(x);
        let in_degree = if directed {
            self.node_degree.1.get(x)
        } else {
            0.0
        };
        let weight_own = match self.weight_to[own as usize] {
            weight if weight.is_nan() => 0.0,
            weight => weight,
        };
        let (mut best_gain, mut best) = (0.0, own);
        let cost = |totals: &(F64Array, F64Array), c: u32| match directed {
            true => {
                resolution * (out_degree * totals.1.get(c) + in_degree * totals.0.get(c)) / (m * m)
            }
            false => resolution * totals.0.get(c) * out_degree / (2.0 * m * m),
        };
        self.totals.0.set(own, self.totals.0.get(own) - out_degree);
        if directed {
            self.totals.1.set(own, self.totals.1.get(own) - in_degree);
        }
        let remove_cost = -weight_own / m + cost(&self.totals, own);
        for &c in &self.touched {
            let gain = remove_cost + self.weight_to[c as usize] / m - cost(&self.totals, c);
            if gain > best_gain {
                (best_gain, best) = (gain, c);
            }
        }
        self.totals
            .0
            .set(best, self.totals.0.get(best) + out_degree);
        if directed {
            self.totals.1.set(best, self.totals.1.get(best) + in_degree);
        }
        for &c in &self.touched {
            self.weight_to[c as usize] = f64::NAN;
        }
        self.touched.clear();
        self.community.set(x, best);
        best != own
    }

    /// One sweep over every node in order; says whether a node moved.
    fn sweep(&mut self, store: &dyn EdgeStore) -> Result<bool> {
        let capacity = self.buffer.0.len() as u64;
        let mut moved = false;
        let mut x = 0u32;
        while x < self.nodes {
            // Whole nodes while they fit; a node that alone does not is read in parts.
            let (mut end, mut entries) = (x, 0u64);
            while end < self.nodes {
                let more = self.entries_of(store, end);
                if entries + more > capacity {
                    break;
                }
                entries += more;
                end += 1;
            }
            if end == x {
                let members = self.members_of(x).to_vec();
                let mut part_start = 0;
                while part_start < members.len() {
                    let (mut part_end, mut part_entries) = (part_start, 0u64);
                    while part_end < members.len() {
                        let more = list_entries(store, members[part_end]);
                        if part_end > part_start && part_entries + more > capacity {
                            break;
                        }
                        part_entries += more;
                        part_end += 1;
                    }
                    self.read_and_accumulate(store, x, &members[part_start..part_end])?;
                    part_start = part_end;
                }
                moved |= self.decide(x);
                x += 1;
                continue;
            }
            let batch: Vec<u32> = (x..end).flat_map(|y| self.members_of(y).to_vec()).collect();
            let starts = read_lists(store, &batch, &self.buffer)?;
            let mut position = 0usize;
            for y in x..end {
                let count = self.members_of(y).len();
                let (from, to) = (starts[position] as usize, starts[position + count] as usize);
                self.accumulate(y, from..to);
                moved |= self.decide(y);
                position += count;
            }
            x = end;
        }
        self.sweeps += 1;
        Ok(moved)
    }

    /// Reads the lists of `members` of node `x` and adds their weights to `weight_to`.
    fn read_and_accumulate(
        &mut self,
        store: &dyn EdgeStore,
        x: u32,
        members: &[u32],
    ) -> Result<()> {
        let starts = read_lists(store, members, &self.buffer)?;
        self.accumulate(x, 0..*starts.last().unwrap_or(&0) as usize);
        Ok(())
    }

    /// The modularity of the partition `community[node_of[v]]`, as networkx's
    /// `modularity` computes it, the same for any thread count.
    fn modularity(&self, store: &dyn EdgeStore) -> Result<f64> {
        let vertices = store.num_vertices();
        let internal: Vec<std::sync::atomic::AtomicU64> = (0..vertices)
            .map(|_| std::sync::atomic::AtomicU64::new(0))
            .collect();
        let (node_of, community) = (&self.node_of, &self.community);
        let directed = store.directed();
        store.scan_blocks(EdgeDirection::Out, 0..vertices as u32, &|block| {
            for (vertex, list) in block.iter() {
                let own = community.get(node_of.get(vertex));
                let mut total = 0.0;
                for (index, &neighbor) in list.neighbors.iter().enumerate() {
                    if community.get(node_of.get(neighbor)) != own {
                        continue;
                    }
                    let weight = list.weights.map_or(1.0, |weights| weights[index] as f64);
                    // An undirected edge is in two lists, a self-loop in one.
                    total += match directed || neighbor == vertex {
                        true => weight,
                        false => weight / 2.0,
                    };
                }
                internal[vertex as usize].store(total.to_bits(), Ordering::Relaxed);
            }
        })?;
        let [inside] = power_iteration::sums(vertices, |v| {
            [f64::from_bits(internal[v as usize].load(Ordering::Relaxed))]
        });
        let m = self.size;
        let resolution = self.options.resolution;
        let [spread] = power_iteration::sums(self.nodes as usize, |c| {
            [match directed {
                true => self.totals.0.get(c) * self.totals.1.get(c) / (m * m),
                false => (self.totals.0.get(c) / (2.0 * m)).powi(2),
            }]
        });
        Ok(inside / m - resolution * spread)
    }

    /// The communities become the next level's nodes, numbered in the order of their
    /// first node; each its own community.
    fn aggregate(&mut self) {
        let nodes = self.nodes as usize;
        let mut renumbered = vec![u32::MAX; nodes];
        let mut next = 0u32;
        for x in 0..nodes as u32 {
            let c = self.community.get(x) as usize;
            if renumbered[c] == u32::MAX {
                renumbered[c] = next;
                next += 1;
            }
        }
        for v in 0..self.node_of.len() as u32 {
            let c = self.community.get(self.node_of.get(v)) as usize;
            self.node_of.set(v, renumbered[c]);
        }
        self.nodes = next;
        self.regroup();
        self.reset_communities();
    }

    /// Every node its own community, each community's totals its node's degrees.
    fn reset_communities(&mut self) {
        let directed = self.directed;
        for x in 0..self.node_of.len() as u32 {
            let inside = x < self.nodes;
            self.community.set(x, x);
            let degree = if inside {
                self.node_degree.0.get(x)
            } else {
                0.0
            };
            self.totals.0.set(x, degree);
            if directed {
                let degree = if inside {
                    self.node_degree.1.get(x)
                } else {
                    0.0
                };
                self.totals.1.set(x, degree);
            }
        }
    }
}

impl<const WEIGHTED: bool> Louvain<WEIGHTED> {
    /// A run's state on `store` with these assignments of vertices to nodes and of
    /// nodes to communities (a new run's: each vertex its own), the community totals
    /// made from the node degrees unless `totals` are given.
    fn state(
        store: &dyn EdgeStore,
        options: &KernelOptions<LouvainOptions>,
        node_of: U32Array,
        community: U32Array,
        nodes: u32,
    ) -> Result<LouvainState> {
        let vertices = store.num_vertices();
        let arrays = &options.arrays;
        let directed = store.directed();
        let degree = vertex_degrees(store, arrays)?;
        let [out_total] = power_iteration::sums(vertices, |v| [degree.0.get(v)]);
        // networkx's `m`, the edges' weight: the degrees sum to it directed, and to
        // twice it undirected (a self-loop's counted twice there).
        let size = match directed {
            true => out_total,
            false => out_total / 2.0,
        };
        let both = |n: usize| {
            (
                F64Array::filled(arrays, vertices, 0.0),
                F64Array::filled(arrays, if directed { n } else { 0 }, 0.0),
            )
        };
        let node_degree = both(vertices);
        let totals = both(vertices);
        let capacity = 2 * vertices as u64 + BUFFER_EXTRA_ENTRIES;
        let cells = |count: u64| (0..count).map(|_| AtomicU32::new(0)).collect::<Vec<_>>();
        let mut state = LouvainState {
            options: options.parameters.clone(),
            directed,
            node_of,
            community,
            nodes,
            degree,
            node_degree,
            totals,
            members: Vec::new(),
            node_starts: Vec::new(),
            size,
            modularity: 0.0,
            levels: 0,
            moved: false,
            sweeps: 0,
            weight_to: vec![f64::NAN; vertices],
            touched: Vec::new(),
            buffer: (cells(capacity), cells(capacity)),
            arrays: options.arrays.clone(),
        };
        state.regroup();
        Ok(state)
    }
}

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
            // The members by node (4) and their starts (8, and a copy while grouping), the
            // weights to communities (8) and those touched (4), a batch's vertices
            // sorted and their slots (16), the renumbering (4), each vertex's internal
            // weight while the modularity is summed (8), and the buffer of lists (8 an
            // entry).
            working_bytes: 52 * vertices + 16 + 8 * (2 * vertices + BUFFER_EXTRA_ENTRIES),
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
        let mut state = Self::state(store, options, node_of, community, vertices as u32)?;
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
        let vertices = state.node_of.len();
        let mut first = vec![u32::MAX; state.nodes as usize];
        let mut labels = property_vec(&state.arrays, vertices, || 0u32);
        let mut communities = 0u64;
        for v in 0..vertices as u32 {
            let c = state.community.get(state.node_of.get(v)) as usize;
            if first[c] == u32::MAX {
                first[c] = v;
                communities += 1;
            }
            labels[v as usize] = first[c];
        }
        LouvainResult {
            labels,
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
        let mut state = Self::state(store, options, node_of, community, nodes)?;
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
