//! Breadth-first search, direction-optimizing (Beamer, Asanović, Patterson, SC'12).
//!
//! Output: a parent per vertex (int64, original ids): the source is its own parent,
//! every other reached vertex's parent is one level nearer the source, and
//! unreached vertices have -1.
//!
//! Small frontiers step top-down (each frontier vertex offers itself to its
//! unvisited out-neighbors: a sparse `gather`); once the frontier's edges exceed
//! 1/ALPHA of the unexplored edges, steps go bottom-up (every unvisited vertex looks
//! for a parent among its in-neighbors: a dense `scan`) until the frontier shrinks
//! below n/BETA again. The search ends once every vertex with in-edges is visited,
//! without the step after, which would find nothing yet read every list of the last
//! level (a large share of what a disk tier reads on a random graph).

use super::Reads;
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
    reorder_property,
};
use crate::parameters::ParameterValues;
use crate::saved_state::{StateError, StateReader, StateWriter};
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, ListsNeeded, Result};

use rayon::prelude::*;

use crate::edge_map::{Pull, edge_map};
use crate::frontier::{Bitmap, ThreadBuffers};
use crate::property::{PropertyArrays, PropertyVec, U32Array};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: true,
    weights: false,
    out_heads: false,
};

/// Bytes of the lists a bottom-up step may keep of the vertices it left unvisited, on
/// a graph of `shape`, when the plan has room for them beside the kernel's own memory:
/// the pull's room at the list limit, but at most a sixteenth of the lists' bytes. A
/// graph with few arcs a vertex (a grid's 4) rarely searches bottom-up, and a graph
/// smaller than the limit's least has fewer lists than that room: either would take from
/// the list cache memory its kept lists could not use.
pub fn kept_lists_bytes(shape: GraphShape) -> u64 {
    let room = crate::edge_map::kept_lists_bytes(list_limit(shape.vertices));
    room.min(shape.arcs * 4 / KEPT_SHARE_OF_LISTS)
}

/// Kept lists take at most one byte in this many of the lists' (plain) bytes.
const KEPT_SHARE_OF_LISTS: u64 = 16;

/// Vertex lists hold at most one vertex in this many (and at least [`MIN_LIST`]).
const LIST_DIVISOR: u64 = 32;
/// Entries a vertex list may always hold, however small the graph.
const MIN_LIST: u64 = 1024;

/// The most vertices a frontier or unvisited list holds; a frontier that may be longer
/// is kept in a bitmap, and unvisited vertices past it are found by a scan.
pub fn list_limit(vertices: u64) -> u64 {
    vertices.div_ceil(LIST_DIVISOR).max(MIN_LIST)
}

const ALPHA: u64 = 15;
const BETA: u64 = 18;
const UNVISITED: u32 = u32::MAX;

/// What a BFS found.
pub struct BfsResult {
    /// Parent per vertex in internal ids; `u32::MAX` for unreached.
    pub parents: PropertyVec<u32>,
    /// Vertices reached, the source included.
    pub reached: u64,
    /// Levels of the search tree, the source's included (the deepest vertex's depth plus one).
    pub levels: u32,
}

/// Where a frontier is: a list (ascending) when short, else the `front` bitmap.
enum Frontier {
    List(Vec<u32>),
    Bits,
}

/// Where a top-down step puts the vertices it finds: per-thread lists, or a bitmap when
/// the next frontier may be longer than the list limit.
struct Found<'a> {
    /// The bitmap, if the vertices go there.
    bitmap: Option<&'a Bitmap>,
    /// The vertices found, when not in the bitmap; the counters sum their out-degrees.
    lists: ThreadBuffers,
    /// Per-thread counts of the vertices set in the bitmap.
    set: ThreadBuffers,
}

/// One top-down step from the frontier `vertices` (ascending): claims their unvisited
/// out-neighbors into `found`.
fn top_down_step(
    store: &dyn EdgeStore,
    parents: &U32Array,
    vertices: &[u32],
    found: &Found,
) -> Result<()> {
    let out_offsets = store.offsets(EdgeDirection::Out);
    edge_map(store, EdgeDirection::Out, vertices, &|vertex, list| {
        for &neighbor in list.neighbors {
            if parents.get(neighbor) == UNVISITED
                && parents.compare_exchange(neighbor, UNVISITED, vertex)
            {
                let degree = out_offsets.degree(neighbor as usize);
                match found.bitmap {
                    None => found.lists.push(neighbor, degree),
                    Some(next) => {
                        next.insert(neighbor);
                        found.lists.count(degree);
                        found.set.count(1);
                    }
                }
            }
        }
    })
    .map(|_| ())
}

/// Runs BFS from `source` (internal id), keeping the lists its bottom-up scans leave
/// unvisited (memory: `Bfs`'s declared memory and [`kept_lists_bytes`]).
pub fn bfs(store: &dyn EdgeStore, source: u32) -> Result<BfsResult> {
    let shape = GraphShape::of_store(store);
    let limit = list_limit(shape.vertices) as usize;
    run(store, source, limit, kept_lists_bytes(shape))
}

/// Runs BFS from `source` with vertex lists of at most `limit` entries (at least one
/// bitmap word's, 64): a tighter bound on memory than [`list_limit`], at the cost of
/// more steps through the bitmaps; with `keep_lists`, bottom-up scans keep the lists of
/// the vertices they leave unvisited (128 bytes per entry of `limit`:
/// [`crate::edge_map::kept_lists_bytes`]), else the next steps read them again.
pub fn bfs_with_list_limit(
    store: &dyn EdgeStore,
    source: u32,
    limit: usize,
    keep_lists: bool,
) -> Result<BfsResult> {
    let kept_bytes = match keep_lists {
        true => crate::edge_map::kept_lists_bytes(limit as u64),
        false => 0,
    };
    run(store, source, limit, kept_bytes)
}

/// Runs BFS from `source` with vertex lists of at most `limit` entries, keeping lists
/// left unvisited within `kept_bytes`.
fn run(store: &dyn EdgeStore, source: u32, limit: usize, kept_bytes: u64) -> Result<BfsResult> {
    let arrays = PropertyArrays::default();
    let mut state = BfsState::new(store, &arrays, source, limit, kept_bytes);
    while state.level(store)? == Step::More {}
    Ok(Bfs.finish(state))
}

/// A bottom-up phase under way: how many vertices its last step woke, and the pull
/// that remembers which it left unvisited.
struct BottomUp {
    awake: u64,
    pull: Pull,
}

/// The search's state between levels.
pub struct BfsState {
    parents: U32Array,
    /// The frontier, when it is in a bitmap.
    front: Bitmap,
    /// The next frontier, when it goes into a bitmap.
    next: Bitmap,
    frontier: Frontier,
    frontier_size: u64,
    /// GAP's count of the edges not yet explored, and the frontier's out-degree sum it
    /// is weighed against to go bottom-up.
    edges_to_check: u64,
    scout_count: u64,
    /// The frontier's out-degree sum: what a top-down step can find at most.
    frontier_edges: u64,
    reached: u64,
    levels: u32,
    /// The most vertices a list holds (see [`list_limit`]).
    limit: usize,
    /// Bytes a bottom-up phase may keep unvisited vertices' lists in (0: none).
    kept_bytes: u64,
    /// `Some` during a bottom-up phase.
    bottom_up: Option<BottomUp>,
    /// Set once no later level can reach a vertex.
    done: bool,
}

impl BfsState {
    /// The search before its first level: the source alone in the frontier.
    fn new(
        store: &dyn EdgeStore,
        arrays: &PropertyArrays,
        source: u32,
        limit: usize,
        kept_bytes: u64,
    ) -> BfsState {
        let vertices = store.num_vertices();
        let parents = U32Array::filled(arrays, vertices, UNVISITED);
        parents.set(source, source);
        let scout_count = store.degree(EdgeDirection::Out, source) as u64;
        BfsState {
            parents,
            front: Bitmap::new(arrays, vertices),
            next: Bitmap::new(arrays, vertices),
            frontier: Frontier::List(vec![source]),
            frontier_size: 1,
            edges_to_check: store.num_arcs(),
            scout_count,
            frontier_edges: scout_count,
            reached: 1,
            levels: 0,
            limit: limit.max(1),
            kept_bytes,
            bottom_up: None,
            done: false,
        }
    }

    /// One level: top-down while the frontier's edges are few against those left to
    /// explore, else bottom-up until the frontier shrinks again.
    fn level(&mut self, store: &dyn EdgeStore) -> Result<Step> {
        if self.done || (self.bottom_up.is_none() && self.frontier_size == 0) {
            return Ok(Step::Done);
        }
        if let Some(phase) = self.bottom_up.take() {
            return self.bottom_up_level(store, phase);
        }
        if self.scout_count > self.edges_to_check / ALPHA {
            if let Frontier::List(list) = &self.frontier {
                self.front.clear();
                self.front.insert_all(list);
            }
            // The frontier is in `front` now; its list's memory holds the unvisited.
            self.frontier = Frontier::Bits;
            let phase = BottomUp {
                awake: self.frontier_size,
                pull: Pull::new(EdgeDirection::In, self.limit, self.kept_bytes),
            };
            return self.bottom_up_level(store, phase);
        }
        self.top_down_level(store)
    }

    /// One bottom-up step of `phase`; the phase ends when the frontier shrinks again.
    fn bottom_up_level(&mut self, store: &dyn EdgeStore, phase: BottomUp) -> Result<Step> {
        let vertices = store.num_vertices() as u64;
        let BottomUp {
            awake: previous,
            mut pull,
        } = phase;
        self.next.clear();
        let (parents, front, next) = (&self.parents, &self.front, &self.next);
        // An unvisited vertex takes the first in-neighbor it finds in the frontier.
        let adopted = |vertex: u32, neighbors: &[u32]| match neighbors
            .iter()
            .find(|&&neighbor| front.contains(neighbor))
        {
            Some(&parent) => {
                parents.set(vertex, parent);
                next.insert(vertex);
                true
            }
            None => false,
        };
        let unvisited = |vertex: u32| parents.get(vertex) == UNVISITED;
        let awake = pull.pass(store, &unvisited, &adopted)?.found;
        std::mem::swap(&mut self.front, &mut self.next);
        self.levels += 1;
        self.reached += awake;
        // Every vertex with in-edges visited: the step after this one would find none,
        // and a top-down one would read every list of this level for it (on a random
        // graph, a gather of most of the section).
        if pull.none_left() {
            self.frontier_size = 0;
            // The level just found counts, as when a step finds nothing after it.
            self.levels += u32::from(awake > 0);
            self.done = true;
            return Ok(Step::Done);
        }
        if !(awake == 0 || (awake < previous && awake <= vertices / BETA)) {
            self.bottom_up = Some(BottomUp { awake, pull });
            return Ok(Step::More);
        }
        drop(pull);
        self.frontier_size = awake;
        if awake == 0 {
            return Ok(Step::Done);
        }
        // GAP's count after a bottom-up phase, which makes the next step top-down; the
        // frontier's true out-degree sum bounds that step's output instead.
        self.scout_count = 1;
        self.frontier_edges = self
            .front
            .sum_over(|vertex| store.degree(EdgeDirection::Out, vertex) as u64);
        self.list_when_short();
        Ok(Step::More)
    }

    /// One top-down step.
    fn top_down_level(&mut self, store: &dyn EdgeStore) -> Result<Step> {
        let vertices = store.num_vertices() as u64;
        let limit = self.limit;
        self.edges_to_check = self.edges_to_check.saturating_sub(self.scout_count);
        // A step finds at most as many vertices as its frontier has out-edges.
        let into_bits = self.frontier_edges > limit as u64;
        if into_bits {
            self.next.clear();
        }
        let mut found = Found {
            bitmap: into_bits.then_some(&self.next),
            lists: ThreadBuffers::new(),
            set: ThreadBuffers::new(),
        };
        match &self.frontier {
            Frontier::List(list) => top_down_step(store, &self.parents, list, &found)?,
            Frontier::Bits => {
                // A long frontier is read from its bitmap a list's worth at a time.
                let mut batch = Vec::with_capacity(limit);
                let mut word = 0;
                loop {
                    word = self.front.next_batch(word, limit, &mut batch);
                    if batch.is_empty() {
                        break;
                    }
                    top_down_step(store, &self.parents, &batch, &found)?;
                }
            }
        }
        // The old frontier goes before the next is drained into a list.
        self.frontier = Frontier::Bits;
        let (mut list, degrees) = found.lists.drain();
        self.scout_count = degrees;
        self.frontier_edges = degrees;
        if into_bits {
            self.frontier_size = found.set.drain().1;
            drop(found);
            std::mem::swap(&mut self.front, &mut self.next);
        } else {
            list.par_sort_unstable();
            self.frontier_size = list.len() as u64;
            self.frontier = Frontier::List(list);
        }
        self.levels += 1;
        self.reached += self.frontier_size;
        if self.reached == vertices && self.frontier_size > 0 {
            // Every vertex visited: the next step would find none.
            self.levels += 1;
            self.done = true;
            return Ok(Step::Done);
        }
        self.list_when_short();
        Ok(match self.frontier_size {
            0 => Step::Done,
            _ => Step::More,
        })
    }

    /// A frontier in the bitmap that fits a list becomes one.
    fn list_when_short(&mut self) {
        if matches!(self.frontier, Frontier::Bits) && self.frontier_size <= self.limit as u64 {
            self.frontier = Frontier::List(self.front.to_vertices());
        }
    }
}

/// Parents in original ids as int64 with -1 for unreached, indexed by original id.
pub fn parents_in_original_ids(parents: &[u32], permutation: Option<&[u32]>) -> Vec<i64> {
    super::to_original_order(parents, permutation, |&parent| {
        parent_as_output(parent, permutation)
    })
}

/// A parent as the output gives it: its original id, or -1 for an unreached vertex.
fn parent_as_output(parent: u32, permutation: Option<&[u32]>) -> i64 {
    match parent {
        UNVISITED => -1,
        _ => crate::kernel::original_id(permutation, parent) as i64,
    }
}

/// Checks a BFS result on the file as Graph500 validates one, without a search of its
/// own: the parents form a tree rooted at the source whose every edge is an edge of
/// the graph; no edge leaves the reached vertices; and no edge between reached vertices
/// spans more than one level of the tree. Then each vertex's depth in the tree is its
/// distance from the source (a tree path is a path of the graph, so no shorter; and
/// along a shortest path the depths grow by at most one an edge, so no longer). It
/// reads every list once, in file order, and holds one depth a vertex.
pub fn verify(graph: &GraphFile, source: u32, parents: &[u32]) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    if parents.len() != vertices {
        return Err(format!("{} parents for {vertices} vertices", parents.len()));
    }
    if parents[source as usize] != source {
        return Err(format!("the source {source} is not its own parent"));
    }
    let depth = tree_depths(source, parents)?;
    let reached = |vertex: usize| depth[vertex] != u32::MAX;
    for vertex in 0..vertices {
        for &neighbor in graph.out_neighbors_of(vertex).iter() {
            match (reached(vertex), reached(neighbor as usize)) {
                (true, false) => {
                    return Err(format!(
                        "vertex {neighbor} is reachable (from {vertex}) but has no parent"
                    ));
                }
                (true, true) if depth[neighbor as usize] > depth[vertex] + 1 => {
                    return Err(format!(
                        "the edge {vertex} -> {neighbor} joins depths {} and {}: a search \
                         would have reached {neighbor} sooner",
                        depth[vertex], depth[neighbor as usize]
                    ));
                }
                _ => {}
            }
        }
        let parent = parents[vertex];
        // Looked up in the vertex's in-list (its out-list on an undirected graph), so the
        // lists are read in file order.
        if reached(vertex)
            && vertex != source as usize
            && graph
                .in_neighbors_of(vertex)
                .binary_search(&parent)
                .is_err()
        {
            return Err(format!(
                "vertex {vertex} has parent {parent}, but there is no edge {parent} -> {vertex}"
            ));
        }
    }
    Ok(())
}

/// Each vertex's depth in the tree that `parents` describe (`u32::MAX` for vertices
/// without a parent), or why they describe no tree rooted at `source`.
fn tree_depths(source: u32, parents: &[u32]) -> std::result::Result<Vec<u32>, String> {
    let vertices = parents.len();
    let mut depth = vec![u32::MAX; vertices];
    depth[source as usize] = 0;
    for start in 0..vertices {
        if parents[start] == UNVISITED || depth[start] != u32::MAX {
            continue;
        }
        // Climb to the nearest ancestor whose depth is known, then down again setting
        // depths: each vertex is set once. A climb longer than the vertices is a cycle.
        let mut steps = 0u32;
        let mut vertex = start;
        while depth[vertex] == u32::MAX {
            let parent = parents[vertex];
            if parent == UNVISITED || parent as usize >= vertices {
                return Err(format!(
                    "vertex {vertex} has parent {parent}, which is no reached vertex"
                ));
            }
            steps += 1;
            if steps as usize > vertices {
                return Err(format!("the parents of vertex {start} form a cycle"));
            }
            vertex = parent as usize;
        }
        let mut level = depth[vertex] + steps;
        let mut vertex = start;
        while depth[vertex] == u32::MAX {
            depth[vertex] = level;
            level -= 1;
            vertex = parents[vertex] as usize;
        }
    }
    Ok(depth)
}

/// BFS as the runner drives it.
pub struct Bfs;

impl Kernel for Bfs {
    type State = BfsState;
    type Result = BfsResult;
    type Parameters = ();

    const INFO: KernelInfo = KernelInfo {
        name: "bfs",
        about: "Breadth-first search (direction-optimizing): parent per vertex",
        reads: READS,
        column: Column {
            name: "parent",
            vertices: true,
        },
        result: ResultKind::Int64,
        takes_source: true,
        searches: true,
        verifier_copies_lists: false,
        deterministic: false,
        every_vertex_a_source: false,
        undirected_only: false,
        counts_self_loops: false,
        parameters: &[],
    };

    fn parameters(&self, _values: &ParameterValues) {}
    fn memory(&self, shape: GraphShape) -> KernelMemory {
        let vertices = shape.vertices;
        KernelMemory {
            // Parents (4 a vertex) and the two bitmaps.
            hot_arrays: vec![
                4 * vertices,
                Bitmap::bytes(vertices),
                Bitmap::bytes(vertices),
            ],
            // Vertex lists of at most `list_limit` entries, of which a step holds at most
            // four at once (4 bytes each): a frontier, the next one growing in per-thread
            // buffers (up to twice its length) and drained into one list. Longer
            // frontiers live in the bitmaps, so this bound holds on every graph. Plus the
            // visited vertices' long lists a disk tier's bottom-up scan skips.
            working_bytes: 16 * list_limit(vertices) + ListsNeeded::skips_held_bytes(shape.arcs),
            optional_bytes: kept_lists_bytes(shape),
            // The verifier's depth per vertex.
            verifier_bytes: 4 * vertices,
            result_bytes_per_vertex: 4,
            output_bytes_per_vertex: 8,
            released_as_copied: true,
            ..KernelMemory::default()
        }
    }
    fn start(&self, store: &dyn EdgeStore, options: &KernelOptions<()>) -> Result<BfsState> {
        let limit = list_limit(store.num_vertices() as u64) as usize;
        Ok(BfsState::new(
            store,
            &options.arrays,
            options.source,
            limit,
            options.optional_bytes,
        ))
    }
    /// One level of the search.
    fn step(&self, store: &dyn EdgeStore, state: &mut BfsState) -> Result<Step> {
        state.level(store)
    }
    /// What a bottom-up phase's pull kept is not saved: a restored phase's first pass
    /// scans for the unvisited again.
    fn save(&self, state: &mut BfsState, out: &mut StateWriter) -> std::io::Result<()> {
        out.array("parents", state.parents.cells())?;
        match &state.frontier {
            Frontier::List(list) => {
                out.number("frontier_in_bits", 0)?;
                out.array("frontier", list)?;
            }
            Frontier::Bits => {
                out.number("frontier_in_bits", 1)?;
                out.array("frontier", state.front.words())?;
            }
        }
        for (name, value) in [
            ("frontier_size", state.frontier_size),
            ("edges_to_check", state.edges_to_check),
            ("scout_count", state.scout_count),
            ("frontier_edges", state.frontier_edges),
            ("reached", state.reached),
            ("levels", state.levels as u64),
            ("done", state.done as u64),
            ("bottom_up", state.bottom_up.is_some() as u64),
            (
                "awake",
                state.bottom_up.as_ref().map_or(0, |phase| phase.awake),
            ),
        ] {
            out.number(name, value)?;
        }
        Ok(())
    }
    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<()>,
        saved: &mut StateReader,
    ) -> std::result::Result<BfsState, StateError> {
        let vertices = store.num_vertices();
        let mut state = Kernel::start(self, store, options)?;
        saved.fill("parents", state.parents.cells())?;
        let past_graph = (0..vertices as u32)
            .into_par_iter()
            .map(|vertex| state.parents.get(vertex))
            .find_any(|&parent| parent != UNVISITED && parent as usize >= vertices);
        if let Some(parent) = past_graph {
            return Err(StateError::Invalid {
                name: "parents".to_string(),
                detail: format!("vertex {parent} of a graph of {vertices}"),
            });
        }
        state.frontier = match saved.number_at_most("frontier_in_bits", 1)? {
            0 => Frontier::List(saved.vertices("frontier", vertices)?),
            _ => {
                saved.fill("frontier", state.front.words())?;
                Frontier::Bits
            }
        };
        state.frontier_size = saved.number("frontier_size")?;
        state.edges_to_check = saved.number("edges_to_check")?;
        state.scout_count = saved.number("scout_count")?;
        state.frontier_edges = saved.number("frontier_edges")?;
        state.reached = saved.number_at_most("reached", vertices as u64)?;
        state.levels = saved.number_at_most("levels", u32::MAX as u64)? as u32;
        state.done = saved.number_at_most("done", 1)? == 1;
        let bottom_up = saved.number_at_most("bottom_up", 1)? == 1;
        let awake = saved.number("awake")?;
        state.bottom_up = bottom_up.then(|| BottomUp {
            awake,
            pull: Pull::new(EdgeDirection::In, state.limit, state.kept_bytes),
        });
        Ok(state)
    }
    fn finish(&self, state: BfsState) -> BfsResult {
        BfsResult {
            parents: state.parents.into_values(),
            reached: state.reached,
            levels: state.levels,
        }
    }
    fn summary(&self, result: &BfsResult, _: &KernelOptions<()>, _: &dyn Fn(u32) -> u64) -> Value {
        json!({"reached": result.reached, "levels": result.levels})
    }
    fn verify(
        &self,
        graph: &GraphFile,
        options: &KernelOptions<()>,
        result: &BfsResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        verify(graph, options.source, &result.parents)
    }
    fn output(&self, result: BfsResult, permutation: Option<&[u32]>) -> Output {
        Output::Int64(reorder_property(result.parents, permutation, |&parent| {
            parent_as_output(parent, permutation)
        }))
    }
}
