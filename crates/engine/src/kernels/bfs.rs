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
//! below n/BETA again.

use super::{Reads, few_enough_to_gather};
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, Result};

use crate::frontier::{Bitmap, ThreadBuffers};
use crate::property::{PropertyVec, U32Array};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: true,
};

/// Bytes of this kernel's own arrays (for the plan), per vertex: parents (4) and two
/// bitmaps, plus the larger of what a top-down step holds (the frontier 4, the next
/// frontier with its growth 8, the gather's sorted copy 4) and what a bottom-up step
/// reading only unvisited lists holds (the last step's list 4, this step's list with
/// its growth 8 and as drained 4, the gather's copy 4).
pub fn property_bytes(vertices: u64, _arcs: u64) -> u64 {
    25 * vertices
}

/// Bytes of each fixed-size array this kernel makes, in the order it makes them, so
/// the runner can reserve them before the graph is loaded: parents (4) and the two bitmaps of bottom-up steps.
pub fn property_arrays(vertices: u64) -> Vec<u64> {
    vec![
        4 * vertices,
        Bitmap::bytes(vertices),
        Bitmap::bytes(vertices),
    ]
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
    /// Levels (steps) taken.
    pub levels: u32,
}

/// One top-down step: returns the next frontier and the sum of its out-degrees.
fn top_down_step(
    store: &dyn EdgeStore,
    parents: &U32Array,
    frontier: &[u32],
) -> Result<(Vec<u32>, u64)> {
    let mut next = ThreadBuffers::new();
    let out_offsets = store.offsets(EdgeDirection::Out);
    store.gather(EdgeDirection::Out, frontier, &|vertex, list| {
        for &neighbor in list.neighbors {
            if parents.get(neighbor) == UNVISITED
                && parents.compare_exchange(neighbor, UNVISITED, vertex)
            {
                let degree = out_offsets[neighbor as usize + 1] - out_offsets[neighbor as usize];
                next.push(neighbor, degree);
            }
        }
    })?;
    Ok(next.drain())
}

/// The vertices a bottom-up step left unvisited (those with in-edges), and the sum of
/// their in-degrees.
struct Unvisited {
    vertices: Vec<u32>,
    edges: u64,
}

/// One bottom-up step over every vertex, or over `only` (the vertices the last step
/// left unvisited): returns how many vertices joined `next`, and which are left.
fn bottom_up_step(
    store: &dyn EdgeStore,
    parents: &U32Array,
    frontier: &Bitmap,
    next: &Bitmap,
    only: Option<&[u32]>,
) -> Result<(u64, Unvisited)> {
    let mut left = ThreadBuffers::new();
    let mut awake = ThreadBuffers::new();
    // Looks for a parent of `vertex` in the frontier; records it as left if none.
    let step = |vertex: u32, neighbors: &[u32], waiting: &mut Vec<u32>, edges: &mut u64| {
        if parents.get(vertex) != UNVISITED || neighbors.is_empty() {
            return 0;
        }
        match neighbors
            .iter()
            .find(|&&neighbor| frontier.contains(neighbor))
        {
            Some(&parent) => {
                parents.set(vertex, parent);
                next.insert(vertex);
                1
            }
            None => {
                waiting.push(vertex);
                *edges += neighbors.len() as u64;
                0
            }
        }
    };
    match only {
        None => {
            let vertices = store.num_vertices() as u32;
            store.scan_blocks(EdgeDirection::In, 0..vertices, &|block| {
                let joined = left.with_buffer(|waiting, edges| {
                    block
                        .iter()
                        .map(|(vertex, list)| step(vertex, list.neighbors, waiting, edges))
                        .sum()
                });
                awake.count(joined);
            })?
        }
        Some(vertices) => store.gather(EdgeDirection::In, vertices, &|vertex, list| {
            let joined =
                left.with_buffer(|waiting, edges| step(vertex, list.neighbors, waiting, edges));
            awake.count(joined);
        })?,
    }
    let (vertices, edges) = left.drain();
    Ok((awake.drain().1, Unvisited { vertices, edges }))
}

/// Runs BFS from `source` (internal id).
pub fn bfs(store: &dyn EdgeStore, source: u32) -> Result<BfsResult> {
    let vertices = store.num_vertices();
    let parents = U32Array::filled(vertices, UNVISITED);
    parents.set(source, source);
    let mut frontier = vec![source];
    let mut edges_to_check = store.num_arcs();
    let mut scout_count = store.degree(EdgeDirection::Out, source) as u64;
    let mut reached = 1u64;
    let mut levels = 0u32;
    let mut front_bits: Option<(Bitmap, Bitmap)> = None;
    while !frontier.is_empty() {
        if scout_count > edges_to_check / ALPHA {
            let (front, next) =
                front_bits.get_or_insert_with(|| (Bitmap::new(vertices), Bitmap::new(vertices)));
            front.clear();
            front.insert_all(&frontier);
            let mut awake = frontier.len() as u64;
            // The top-down frontier is in the bitmap now; its memory holds `unvisited`.
            drop(std::mem::take(&mut frontier));
            let mut unvisited: Option<Unvisited> = None;
            loop {
                let previous = awake;
                next.clear();
                let only = unvisited
                    .as_ref()
                    .filter(|left| few_enough_to_gather(store, left.edges))
                    .map(|left| left.vertices.as_slice());
                let (joined, left) = bottom_up_step(store, &parents, front, next, only)?;
                awake = joined;
                unvisited = Some(left);
                std::mem::swap(front, next);
                levels += 1;
                reached += awake;
                if awake == 0 || (awake < previous && awake <= vertices as u64 / BETA) {
                    break;
                }
            }
            drop(unvisited);
            frontier = front.to_vertices();
            scout_count = 1;
        } else {
            edges_to_check = edges_to_check.saturating_sub(scout_count);
            let (next, next_scout) = top_down_step(store, &parents, &frontier)?;
            frontier = next;
            scout_count = next_scout;
            levels += 1;
            reached += frontier.len() as u64;
        }
    }
    Ok(BfsResult {
        parents: parents.into_values(),
        reached,
        levels,
    })
}

/// Parents in original ids as int64 with -1 for unreached, indexed by original id.
pub fn parents_in_original_ids(parents: &[u32], permutation: Option<&[u32]>) -> Vec<i64> {
    let original = |vertex: u32| permutation.map_or(vertex, |p| p[vertex as usize]) as i64;
    super::to_original_order(parents, permutation, |&parent| {
        if parent == UNVISITED {
            -1
        } else {
            original(parent)
        }
    })
}

/// Checks a BFS result against a serial BFS on the file: the same vertices are
/// reached, the source is its own parent, and every other parent is an
/// in-neighbor exactly one level nearer the source.
pub fn verify(graph: &GraphFile, source: u32, parents: &[u32]) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    let mut depth = vec![u32::MAX; vertices];
    depth[source as usize] = 0;
    let mut queue = std::collections::VecDeque::from([source]);
    while let Some(vertex) = queue.pop_front() {
        for &neighbor in graph.out_neighbors_of(vertex as usize) {
            if depth[neighbor as usize] == u32::MAX {
                depth[neighbor as usize] = depth[vertex as usize] + 1;
                queue.push_back(neighbor);
            }
        }
    }
    if parents[source as usize] != source {
        return Err(format!("the source {source} is not its own parent"));
    }
    for vertex in 0..vertices {
        let parent = parents[vertex];
        match (depth[vertex], parent) {
            (u32::MAX, UNVISITED) => {}
            (u32::MAX, _) => {
                return Err(format!(
                    "vertex {vertex} is unreachable but has parent {parent}"
                ));
            }
            (_, UNVISITED) => {
                return Err(format!("vertex {vertex} is reachable but has no parent"));
            }
            (0, _) => {}
            (level, parent) => {
                if depth[parent as usize] != level - 1 {
                    return Err(format!(
                        "vertex {vertex} at depth {level} has parent {parent} at depth {}",
                        depth[parent as usize]
                    ));
                }
                if graph
                    .out_neighbors_of(parent as usize)
                    .binary_search(&(vertex as u32))
                    .is_err()
                {
                    return Err(format!(
                        "vertex {vertex} has parent {parent}, but there is no edge {parent} -> {vertex}"
                    ));
                }
            }
        }
    }
    Ok(())
}
