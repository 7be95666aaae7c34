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
use crate::edge_map::few_enough_to_gather;
use crate::kernel::{
    GraphShape, Kernel, KernelMemory, KernelOptions, Output, Step, reorder_property,
};
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, ListsNeeded, Result};

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

use thread_local::ThreadLocal;

use rayon::prelude::*;

use crate::edge_map::edge_map;
use crate::frontier::{Bitmap, ThreadBuffers};
use crate::property::{PropertyVec, U32Array};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: true,
    weights: false,
    out_heads: false,
};

/// Bytes of the lists a bottom-up step may keep of the vertices it left unvisited
/// (`KEPT_VERTICES_PER_ENTRY` vertices with a length each, and
/// `KEPT_NEIGHBORS_PER_ENTRY` neighbors, per entry of the list limit: 64 bytes), when
/// the plan has room for them beside the kernel's own memory.
pub fn kept_lists_bytes(vertices: u64) -> u64 {
    (8 * KEPT_VERTICES_PER_ENTRY + 4 * KEPT_NEIGHBORS_PER_ENTRY) * list_limit(vertices)
}

/// Kept lists may hold this many vertices per entry of the list limit: on a Kronecker
/// graph the first bottom-up scan leaves about 3 vertices and 4 arcs per entry of its
/// limit (n/32), which a scan would otherwise read whole again.
const KEPT_VERTICES_PER_ENTRY: u64 = 4;
/// Kept lists may hold this many neighbors per entry of the list limit.
const KEPT_NEIGHBORS_PER_ENTRY: u64 = 8;

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

/// The vertices a bottom-up step left unvisited (those with in-edges): the ones whose
/// lists it kept, and the rest, ascending, with the sum of their in-degrees.
struct Unvisited {
    kept: Vec<KeptLists>,
    vertices: Vec<u32>,
    edges: u64,
}

impl Unvisited {
    /// Whether every vertex with in-edges is visited: then no later step can reach one.
    fn is_empty(&self) -> bool {
        self.vertices.is_empty() && self.kept.iter().all(|lists| lists.vertices.is_empty())
    }
}

/// A list longer than this many entries is not kept: it fills most of the pages a
/// gather reads for it, while a short one costs a whole page for a few bytes.
const MOST_KEPT_ENTRIES: usize = 1024;

/// Lists of vertices a bottom-up scan left unvisited, kept in memory so that the next
/// steps, which need exactly these lists, do not read them again. On a power-law graph
/// they are mostly one or two entries each, spread over every page of the section, for
/// which the next step would read the whole uncached section again.
#[derive(Default)]
struct KeptLists {
    vertices: Vec<u32>,
    lengths: Vec<u32>,
    neighbors: Vec<u32>,
}

impl KeptLists {
    /// Keeps `vertex`'s list if it is short and there is room within this thread's
    /// `share` of the list limit; false if not.
    fn keep(&mut self, vertex: u32, neighbors: &[u32], share: usize) -> bool {
        let most_vertices = KEPT_VERTICES_PER_ENTRY as usize * share;
        let most_neighbors = KEPT_NEIGHBORS_PER_ENTRY as usize * share;
        if neighbors.len() > MOST_KEPT_ENTRIES
            || self.vertices.len() >= most_vertices
            || self.neighbors.len() + neighbors.len() > most_neighbors
        {
            return false;
        }
        if self.vertices.capacity() == 0 {
            // Exact sizes once, so growth never doubles past what the plan counts.
            self.vertices.reserve_exact(most_vertices);
            self.lengths.reserve_exact(most_vertices);
            self.neighbors.reserve_exact(most_neighbors);
        }
        self.vertices.push(vertex);
        self.lengths.push(neighbors.len() as u32);
        self.neighbors.extend_from_slice(neighbors);
        true
    }

    /// Drops, in place, the lists whose vertex `adopted` (called with each vertex and
    /// its list) finds a parent for; returns how many were dropped.
    fn drop_adopted(&mut self, mut adopted: impl FnMut(u32, &[u32]) -> bool) -> u64 {
        let (mut read, mut written, mut left) = (0usize, 0usize, 0usize);
        for index in 0..self.vertices.len() {
            let (vertex, length) = (self.vertices[index], self.lengths[index] as usize);
            let list = read..read + length;
            read += length;
            if !adopted(vertex, &self.neighbors[list.clone()]) {
                self.neighbors.copy_within(list, written);
                written += length;
                self.vertices[left] = vertex;
                self.lengths[left] = length as u32;
                left += 1;
            }
        }
        let dropped = (self.vertices.len() - left) as u64;
        self.vertices.truncate(left);
        self.lengths.truncate(left);
        self.neighbors.truncate(written);
        dropped
    }
}

/// One bottom-up step over every vertex, or over the vertices the last step left
/// unvisited (`previous`: its kept lists in memory, the rest gathered): returns how many
/// vertices joined `next`, and which are left, if they are at most `limit` (else the next
/// step scans).
fn bottom_up_step(
    store: &dyn EdgeStore,
    parents: &U32Array,
    frontier: &Bitmap,
    next: &Bitmap,
    previous: Option<Unvisited>,
    limit: usize,
    keep_lists: bool,
) -> Result<(u64, Option<Unvisited>)> {
    let mut left = ThreadBuffers::new();
    let mut awake = ThreadBuffers::new();
    // Each thread keeps at most its share of the limit; one that would pass it stops
    // them all keeping any (the next step then scans instead of gathering).
    let share = (limit / rayon::current_num_threads().max(1)).max(1);
    let overflowed = AtomicBool::new(false);
    // Sets `vertex`'s parent if one of `neighbors` is in the frontier.
    let adopted = |vertex: u32, neighbors: &[u32]| match neighbors
        .iter()
        .find(|&&neighbor| frontier.contains(neighbor))
    {
        Some(&parent) => {
            parents.set(vertex, parent);
            next.insert(vertex);
            true
        }
        None => false,
    };
    // Looks for a parent of `vertex`; if none, keeps its list (when `kept` is given and
    // has room) or records it as left.
    let step = |vertex: u32,
                neighbors: &[u32],
                waiting: &mut Vec<u32>,
                edges: &mut u64,
                kept: Option<&mut KeptLists>| {
        if parents.get(vertex) != UNVISITED || neighbors.is_empty() {
            return 0;
        }
        if adopted(vertex, neighbors) {
            return 1;
        }
        // Once the unvisited overflow, the next step scans, and kept lists would be waste.
        if keep_lists
            && !overflowed.load(Ordering::Relaxed)
            && kept.is_some_and(|kept| kept.keep(vertex, neighbors, share))
        {
            return 0;
        }
        if waiting.len() < share {
            if !overflowed.load(Ordering::Relaxed) {
                waiting.push(vertex);
                *edges += neighbors.len() as u64;
            }
        } else {
            overflowed.store(true, Ordering::Relaxed);
        }
        0
    };
    let kept = match previous {
        None => {
            let vertices = store.num_vertices() as u32;
            let kept_buffers: ThreadLocal<RefCell<KeptLists>> = ThreadLocal::new();
            // A visited vertex needs no parent: a disk tier skips its list's pages
            // (the hubs, reached first, hold a large share of the section).
            let visited = |vertex: u32| parents.get(vertex) != UNVISITED;
            let needed = ListsNeeded::AllBut(&visited);
            store.scan_partial(EdgeDirection::In, 0..vertices, needed, &|block| {
                let mut kept = kept_buffers.get_or_default().borrow_mut();
                let joined = left.with_buffer(|waiting, edges| {
                    if overflowed.load(Ordering::Relaxed) && waiting.capacity() > 0 {
                        *waiting = Vec::new();
                    }
                    block
                        .iter()
                        .map(|(vertex, list)| {
                            step(vertex, list.neighbors, waiting, edges, Some(&mut *kept))
                        })
                        .sum()
                });
                awake.count(joined);
            })?;
            kept_buffers.into_iter().map(RefCell::into_inner).collect()
        }
        Some(Unvisited {
            mut kept, vertices, ..
        }) => {
            // The kept lists first: no read at all.
            let joined: u64 = kept
                .par_iter_mut()
                .map(|lists| lists.drop_adopted(&adopted))
                .sum();
            awake.count(joined);
            store.gather(EdgeDirection::In, &vertices, &|vertex, list| {
                let joined = left.with_buffer(|waiting, edges| {
                    step(vertex, list.neighbors, waiting, edges, None)
                });
                awake.count(joined);
            })?;
            kept
        }
    };
    let joined = awake.drain().1;
    if overflowed.load(Ordering::Relaxed) {
        return Ok((joined, None));
    }
    let (mut vertices, edges) = left.drain();
    // Ascending, so the gather that reads them needs no sorted copy.
    vertices.par_sort_unstable();
    Ok((
        joined,
        Some(Unvisited {
            kept,
            vertices,
            edges,
        }),
    ))
}

/// Runs BFS from `source` (internal id), keeping the lists its bottom-up scans leave
/// unvisited (memory: `Bfs`'s declared memory and [`kept_lists_bytes`]).
pub fn bfs(store: &dyn EdgeStore, source: u32) -> Result<BfsResult> {
    let limit = list_limit(store.num_vertices() as u64) as usize;
    bfs_with_list_limit(store, source, limit, true)
}

/// Runs BFS from `source` with vertex lists of at most `limit` entries (at least one
/// bitmap word's, 64): a tighter bound on memory than [`list_limit`], at the cost of
/// more steps through the bitmaps; with `keep_lists`, bottom-up scans keep the lists of
/// the vertices they leave unvisited (64 bytes per entry of `limit`: [`kept_lists_bytes`]
/// at the default limit), else the next steps read them again.
pub fn bfs_with_list_limit(
    store: &dyn EdgeStore,
    source: u32,
    limit: usize,
    keep_lists: bool,
) -> Result<BfsResult> {
    let mut state = BfsState::new(store, source, limit, keep_lists);
    while state.level(store)? == Step::More {}
    Ok(Bfs.finish(state))
}

/// A bottom-up phase under way: how many vertices its last step woke, and the vertices
/// that step left unvisited (when few enough to hold).
struct BottomUp {
    awake: u64,
    unvisited: Option<Unvisited>,
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
    keep_lists: bool,
    /// `Some` during a bottom-up phase.
    bottom_up: Option<BottomUp>,
    /// Set once no later level can reach a vertex.
    done: bool,
}

impl BfsState {
    /// The search before its first level: the source alone in the frontier.
    fn new(store: &dyn EdgeStore, source: u32, limit: usize, keep_lists: bool) -> BfsState {
        let vertices = store.num_vertices();
        let parents = U32Array::filled(vertices, UNVISITED);
        parents.set(source, source);
        let scout_count = store.degree(EdgeDirection::Out, source) as u64;
        BfsState {
            parents,
            front: Bitmap::new(vertices),
            next: Bitmap::new(vertices),
            frontier: Frontier::List(vec![source]),
            frontier_size: 1,
            edges_to_check: store.num_arcs(),
            scout_count,
            frontier_edges: scout_count,
            reached: 1,
            levels: 0,
            limit: limit.max(1),
            keep_lists,
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
                unvisited: None,
            };
            return self.bottom_up_level(store, phase);
        }
        self.top_down_level(store)
    }

    /// One bottom-up step of `phase`; the phase ends when the frontier shrinks again.
    fn bottom_up_level(&mut self, store: &dyn EdgeStore, phase: BottomUp) -> Result<Step> {
        let vertices = store.num_vertices() as u64;
        let previous = phase.awake;
        self.next.clear();
        // Too many lists to gather: the step scans, and the kept ones go first.
        let gathered = phase
            .unvisited
            .filter(|left| few_enough_to_gather(store, left.edges));
        let (awake, left) = bottom_up_step(
            store,
            &self.parents,
            &self.front,
            &self.next,
            gathered,
            self.limit,
            self.keep_lists,
        )?;
        std::mem::swap(&mut self.front, &mut self.next);
        self.levels += 1;
        self.reached += awake;
        // Every vertex with in-edges visited: the step after this one would find none,
        // and a top-down one would read every list of this level for it (on a random
        // graph, a gather of most of the section).
        if left.as_ref().is_some_and(Unvisited::is_empty) {
            self.frontier_size = 0;
            // The level just found counts, as when a step finds nothing after it.
            self.levels += u32::from(awake > 0);
            self.done = true;
            return Ok(Step::Done);
        }
        if !(awake == 0 || (awake < previous && awake <= vertices / BETA)) {
            self.bottom_up = Some(BottomUp {
                awake,
                unvisited: left,
            });
            return Ok(Step::More);
        }
        drop(left);
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
        for &neighbor in graph.out_neighbors_of(vertex) {
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

    fn name(&self) -> &'static str {
        "bfs"
    }
    fn about(&self) -> &'static str {
        "Breadth-first search (direction-optimizing): parent per vertex"
    }
    fn reads(&self) -> Reads {
        READS
    }
    fn takes_source(&self) -> bool {
        true
    }
    fn searches(&self) -> bool {
        true
    }
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
            optional_bytes: kept_lists_bytes(vertices),
            // The verifier's depth per vertex.
            verifier_bytes: 4 * vertices,
            result_bytes_per_vertex: 4,
            output_bytes_per_vertex: 8,
            released_as_copied: true,
        }
    }
    fn start(&self, store: &dyn EdgeStore, options: &KernelOptions) -> Result<BfsState> {
        let limit = list_limit(store.num_vertices() as u64) as usize;
        Ok(BfsState::new(
            store,
            options.source,
            limit,
            options.optional_held,
        ))
    }
    /// One level of the search.
    fn step(&self, store: &dyn EdgeStore, state: &mut BfsState) -> Result<Step> {
        state.level(store)
    }
    fn finish(&self, state: BfsState) -> BfsResult {
        BfsResult {
            parents: state.parents.into_values(),
            reached: state.reached,
            levels: state.levels,
        }
    }
    fn summary(&self, result: &BfsResult, _: &KernelOptions, _: &dyn Fn(u32) -> u64) -> Value {
        json!({"reached": result.reached, "levels": result.levels})
    }
    fn verify(
        &self,
        graph: &GraphFile,
        options: &KernelOptions,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_lists_stay_within_their_share_and_drop_adopted_ones_in_place() {
        let mut kept = KeptLists::default();
        // Room for 4 vertices and 8 neighbors.
        let share = 1;
        assert!(kept.keep(10, &[1, 2], share));
        assert!(kept.keep(11, &[3], share));
        // Would pass the 8 neighbors (2 + 1 + 6).
        assert!(!kept.keep(12, &[4, 5, 6, 7, 8, 9], share));
        assert!(kept.keep(13, &[5, 6, 7, 8, 9], share));
        // A list longer than a page's worth is never kept, room or not.
        let long = vec![0u32; MOST_KEPT_ENTRIES + 1];
        assert!(!KeptLists::default().keep(14, &long, 1 << 20));
        assert_eq!(kept.neighbors.capacity(), 8);
        // Vertex 11 finds its parent (3); 10 and 13 stay, with their lists intact.
        let dropped = kept.drop_adopted(|_, neighbors| neighbors.contains(&3));
        assert_eq!(dropped, 1);
        assert_eq!(kept.vertices, vec![10, 13]);
        assert_eq!(kept.lengths, vec![2, 5]);
        assert_eq!(kept.neighbors, vec![1, 2, 5, 6, 7, 8, 9]);
        // Room for one more neighbor (7 of 8), then none.
        assert!(kept.keep(15, &[1], share));
        assert!(!kept.keep(16, &[1], share));
        assert_eq!(kept.drop_adopted(|_, _| true), 3);
        assert!(kept.vertices.is_empty() && kept.neighbors.is_empty());
        // At most 4 vertices, however short their lists.
        for vertex in 0..4 {
            assert!(kept.keep(vertex, &[1], share));
        }
        assert!(!kept.keep(99, &[1], share));
    }
}
