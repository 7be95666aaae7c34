//! The levels of Louvain ([`super::louvain`]): the state a run keeps, one sweep of
//! local moving over a level's nodes, the modularity of a partition, and turning the
//! communities into the next level's nodes.

use std::sync::atomic::{AtomicU32, Ordering};

use swapless_store::{Adjacency, EdgeDirection, EdgeStore, Result};

use super::power_iteration;
use crate::kernel::KernelOptions;
use crate::property::{F64Array, PropertyArrays, U32Array};

/// Louvain's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct LouvainOptions {
    /// Above 1 favors smaller communities, below 1 larger ones (networkx's `resolution`).
    pub resolution: f64,
    /// A level that raises the modularity by no more than this is the last.
    pub threshold: f64,
    /// Stop after this many levels (`None`: when the modularity stops rising).
    pub max_levels: Option<u32>,
}

/// An entry's weight: its weight when the run reads weights, else 1.
fn weight_of(list: &Adjacency<'_>, index: usize, weighted: bool) -> f64 {
    match (weighted, list.weights) {
        (true, Some(weights)) => weights[index] as f64,
        _ => 1.0,
    }
}

/// List entries a sweep's buffer holds: a vertex's lists (both directions when
/// directed) always fit, and batches of small lists fill the 2^16 beyond.
pub(crate) fn buffer_entries(vertices: u64, directed: bool) -> u64 {
    (1 + directed as u64) * vertices + (1 << 16)
}

/// Each vertex's weighted degree, as networkx counts it: (out, in) on a directed graph;
/// on an undirected one the degree, a self-loop counted twice (and no in-degrees).
fn vertex_degrees(
    store: &dyn EdgeStore,
    arrays: &PropertyArrays,
    weighted: bool,
) -> Result<(F64Array, F64Array)> {
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
                    let weight = weight_of(&list, index, weighted);
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
    pub(crate) options: LouvainOptions,
    /// Whether the graph is directed (in-degrees and in-totals are then kept).
    pub(crate) directed: bool,
    /// Whether edges weigh their weights (else 1 each, whatever the store holds).
    pub(crate) weighted: bool,
    /// Each vertex's node at this level.
    pub(crate) node_of: U32Array,
    /// Each node's community.
    pub(crate) community: U32Array,
    /// Nodes at this level (`0..nodes`).
    pub(crate) nodes: u32,
    /// Each vertex's degree (out-degree when directed) and in-degree (directed only).
    pub(crate) degree: (F64Array, F64Array),
    /// Each node's degree, and in-degree (directed), summed over its members.
    pub(crate) node_degree: (F64Array, F64Array),
    /// Each community's total degree, and in-degree (directed).
    pub(crate) totals: (F64Array, F64Array),
    /// The vertices by node, and where each node's start.
    pub(crate) members: Vec<u32>,
    pub(crate) node_starts: Vec<u64>,
    /// The graph's total edge weight (networkx's `m`).
    pub(crate) size: f64,
    /// The modularity when this level began.
    pub(crate) modularity: f64,
    /// Levels done; whether this level has moved a node; sweeps in all.
    pub(crate) levels: u32,
    pub(crate) moved: bool,
    pub(crate) sweeps: u32,
    /// Scratch: weight to each community (NaN: none yet), and the communities touched.
    pub(crate) weight_to: Vec<f64>,
    pub(crate) touched: Vec<u32>,
    /// A sweep's copy of a batch's lists: ids and weights.
    pub(crate) buffer: (Vec<AtomicU32>, Vec<AtomicU32>),
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

    /// Where node `x`'s members start in `members` (and node `x - 1`'s end).
    fn first_member(&self, x: u32) -> usize {
        self.node_starts[x as usize] as usize
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
    weighted: bool,
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
                let weight = weight_of(&list, offset, weighted) as f32;
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
    pub(crate) fn sweep(&mut self, store: &dyn EdgeStore) -> Result<bool> {
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
            // Consecutive nodes' members lie together in `members`: a batch is a slice.
            if end == x {
                let (mut part_start, last) = (self.first_member(x), self.first_member(x + 1));
                while part_start < last {
                    let (mut part_end, mut part_entries) = (part_start, 0u64);
                    while part_end < last {
                        let more = list_entries(store, self.members[part_end]);
                        if part_end > part_start && part_entries + more > capacity {
                            break;
                        }
                        part_entries += more;
                        part_end += 1;
                    }
                    let part = &self.members[part_start..part_end];
                    let starts = read_lists(store, part, &self.buffer, self.weighted)?;
                    self.accumulate(x, 0..*starts.last().unwrap_or(&0) as usize);
                    part_start = part_end;
                }
                moved |= self.decide(x);
                x += 1;
                continue;
            }
            let (first, last) = (self.first_member(x), self.first_member(end));
            let batch = &self.members[first..last];
            let starts = read_lists(store, batch, &self.buffer, self.weighted)?;
            for y in x..end {
                let (from, to) = (
                    self.first_member(y) - first,
                    self.first_member(y + 1) - first,
                );
                self.accumulate(y, starts[from] as usize..starts[to] as usize);
                moved |= self.decide(y);
            }
            x = end;
        }
        self.sweeps += 1;
        Ok(moved)
    }

    /// The modularity of the partition `community[node_of[v]]`, as networkx's
    /// `modularity` computes it, the same for any thread count.
    pub(crate) fn modularity(&self, store: &dyn EdgeStore) -> Result<f64> {
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
                    let weight = weight_of(&list, index, self.weighted);
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
    pub(crate) fn aggregate(&mut self) {
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
    pub(crate) fn reset_communities(&mut self) {
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

impl LouvainState {
    /// A run's state on `store` with these assignments of vertices to nodes and of
    /// nodes to communities (a new run's: each vertex its own), the community totals
    /// made from the node degrees unless `totals` are given.
    pub(crate) fn new(
        store: &dyn EdgeStore,
        options: &KernelOptions<LouvainOptions>,
        weighted: bool,
        (node_of, community, nodes): (U32Array, U32Array, u32),
    ) -> Result<LouvainState> {
        let vertices = store.num_vertices();
        let arrays = &options.arrays;
        let directed = store.directed();
        let degree = vertex_degrees(store, arrays, weighted)?;
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
        let capacity = buffer_entries(vertices as u64, directed);
        let cells = |count: u64| (0..count).map(|_| AtomicU32::new(0)).collect::<Vec<_>>();
        let mut state = LouvainState {
            options: options.parameters.clone(),
            directed,
            weighted,
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
        };
        state.regroup();
        Ok(state)
    }
}
