//! Ligra's dense edgeMap: a pull. Each vertex that still wants a value looks through
//! its own list for one (bfs's bottom-up steps: an unvisited vertex looks for a parent
//! among its in-neighbors). The first pass scans every list but those of vertices that
//! want nothing (a disk tier skips their pages). A pass remembers which vertices are
//! still left wanting, when few enough to list, and keeps their lists in memory when
//! short, so the next pass reads the kept ones not at all and gathers the others alone.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use swapless_store::{EdgeDirection, EdgeStore, ListsNeeded, Result};
use thread_local::ThreadLocal;

use super::{Pass, few_enough_to_gather};
use crate::frontier::ThreadBuffers;

/// Bytes kept lists may take per entry of the pull's limit, half for vertices and their
/// lengths (8 bytes each), half for neighbors (4 bytes each): 8 vertices and 16
/// neighbors. On GAP's Kronecker graph the first bottom-up scan leaves about 6.4 vertices
/// and 15 arcs per entry of a limit of n/32 (this generator's, about 3 and 4), which the
/// next pass would otherwise find by scanning every list again.
const KEPT_BYTES_PER_ENTRY: u64 = 128;

/// How many vertices ahead a scanning pass fetches the heads of the lists it will read:
/// enough to keep several cache misses in flight, few enough that the lines are still
/// cached when their turn comes (16 and 32 measured alike on kron23).
const PREFETCH_AHEAD: usize = 16;

/// A list longer than this many entries is not kept: it fills most of the pages a
/// gather reads for it, while a short one costs a whole page for a few bytes.
const MOST_KEPT_ENTRIES: usize = 1024;

/// Bytes the lists a [`Pull`] of `limit` keeps take at most, when given all it can use.
pub fn kept_lists_bytes(limit: u64) -> u64 {
    KEPT_BYTES_PER_ENTRY * limit
}

/// How much one thread's kept lists may hold.
#[derive(Clone, Copy, Debug)]
struct KeptRoom {
    vertices: usize,
    neighbors: usize,
}

impl KeptRoom {
    /// The room `bytes` give: half for vertices and lengths, half for neighbors.
    fn of(bytes: u64) -> KeptRoom {
        KeptRoom {
            vertices: (bytes / 2 / 8) as usize,
            neighbors: (bytes / 2 / 4) as usize,
        }
    }
}

/// What one pull pass did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pulled {
    /// How it read the lists.
    pub pass: Pass,
    /// How many vertices found their value.
    pub found: u64,
}

/// A run of pull passes over the lists of one direction, with what each pass leaves
/// for the next.
pub struct Pull {
    direction: EdgeDirection,
    /// The most vertices a pass lists as left wanting; past it the next pass scans.
    limit: usize,
    /// Bytes the lists of vertices left wanting may take (0: none are kept).
    kept_bytes: u64,
    /// What the last pass left wanting; `None` before the first pass, and after one
    /// that left too many to list.
    left: Option<Left>,
}

/// The vertices with lists a pass left wanting: those whose lists it kept, and the
/// rest, ascending, with the sum of their list lengths.
struct Left {
    kept: Vec<KeptLists>,
    vertices: Vec<u32>,
    edges: u64,
}

impl Pull {
    /// Pulls over the lists in `direction`, listing at most `limit` vertices left
    /// wanting (memory: 16 bytes an entry at most, counted by the caller) and keeping
    /// their lists within `kept_bytes` (0: none; at most [`kept_lists_bytes`] of the
    /// limit is used).
    pub fn new(direction: EdgeDirection, limit: usize, kept_bytes: u64) -> Pull {
        Pull {
            direction,
            limit: limit.max(1),
            kept_bytes: kept_bytes.min(kept_lists_bytes(limit.max(1) as u64)),
            left: None,
        }
    }

    /// Whether the last pass left no vertex with a list wanting: no later pass could
    /// give one a value.
    pub fn none_left(&self) -> bool {
        self.left.as_ref().is_some_and(|left| {
            left.vertices.is_empty() && left.kept.iter().all(|lists| lists.vertices.is_empty())
        })
    }

    /// One pass: calls `visit(vertex, list)` for each vertex that `wants` a value and
    /// has a non-empty list, in parallel and in any order; `visit` returns whether the
    /// vertex found its value (and stores it). A vertex with an empty list can never find
    /// one and is not visited.
    ///
    /// Generic, not `dyn`, over both: they are called once for every vertex of a pass,
    /// and inlined into the scan's loop.
    pub fn pass<Wants, Visit>(
        &mut self,
        store: &dyn EdgeStore,
        wants: &Wants,
        visit: &Visit,
    ) -> Result<Pulled>
    where
        Wants: Fn(u32) -> bool + Sync,
        Visit: Fn(u32, &[u32]) -> bool + Sync,
    {
        let mut left = ThreadBuffers::new();
        let mut found = ThreadBuffers::new();
        // Each thread lists at most its share of the limit; one that would pass it stops
        // them all listing any (the next pass then scans instead of gathering).
        let threads = rayon::current_num_threads().max(1);
        let share = (self.limit / threads).max(1);
        let room = KeptRoom::of(self.kept_bytes / threads as u64);
        let overflowed = AtomicBool::new(false);
        let keep_lists = self.kept_bytes > 0;
        // A vertex that wanted a value and found none among `neighbors`: keeps its list
        // (when `kept` is given and has room) or lists it as left.
        let left_wanting = |vertex: u32,
                            neighbors: &[u32],
                            waiting: &mut Vec<u32>,
                            edges: &mut u64,
                            kept: Option<&mut KeptLists>| {
            // Once the left overflow, the next pass scans, and kept lists would be waste.
            if keep_lists
                && !overflowed.load(Ordering::Relaxed)
                && kept.is_some_and(|kept| kept.keep(vertex, neighbors, room))
            {
                return;
            }
            if waiting.len() < share {
                if !overflowed.load(Ordering::Relaxed) {
                    waiting.push(vertex);
                    *edges += neighbors.len() as u64;
                }
            } else {
                overflowed.store(true, Ordering::Relaxed);
            }
        };
        // Too many lists to gather: the pass scans, and the kept ones are dropped.
        let previous = self
            .left
            .take()
            .filter(|left| few_enough_to_gather(store, left.edges));
        let (kept, pass) = match previous {
            None => {
                let vertices = store.num_vertices() as u32;
                let kept_buffers: ThreadLocal<RefCell<KeptLists>> = ThreadLocal::new();
                // A disk tier skips the pages of the lists of vertices that want nothing
                // (in bfs, the hubs, visited first, hold a large share of the section).
                let unwanted = |vertex: u32| !wants(vertex);
                let needed = ListsNeeded::AllBut(&unwanted);
                store.scan_partial(self.direction, 0..vertices, needed, &|block| {
                    let mut kept = kept_buffers.get_or_default().borrow_mut();
                    let joined = left.with_buffer(|waiting, edges| {
                        if overflowed.load(Ordering::Relaxed) && waiting.capacity() > 0 {
                            *waiting = Vec::new();
                        }
                        let mut joined = 0;
                        let vertices = block.vertices();
                        let count = vertices.len();
                        // The heads of the lists a pass reads lie scattered between the
                        // lists it skips: they are fetched a few vertices ahead, so that
                        // many are on their way at once.
                        for index in 0..PREFETCH_AHEAD.min(count) {
                            if wants(vertices.start + index as u32) {
                                block.prefetch_list(index);
                            }
                        }
                        for (index, vertex) in vertices.enumerate() {
                            let ahead = index + PREFETCH_AHEAD;
                            if ahead < count && wants(vertex + PREFETCH_AHEAD as u32) {
                                block.prefetch_list(ahead);
                            }
                            // A vertex that wants nothing costs one load: its list is not
                            // even located.
                            if !wants(vertex) {
                                continue;
                            }
                            let neighbors = block.list(index).neighbors;
                            if neighbors.is_empty() {
                                continue;
                            }
                            if visit(vertex, neighbors) {
                                joined += 1;
                            } else {
                                left_wanting(vertex, neighbors, waiting, edges, Some(&mut *kept));
                            }
                        }
                        joined
                    });
                    found.count(joined);
                })?;
                let kept = kept_buffers.into_iter().map(RefCell::into_inner).collect();
                (kept, Pass::Scanned)
            }
            Some(Left {
                mut kept, vertices, ..
            }) => {
                // The kept lists first: no read at all.
                let joined: u64 = kept
                    .par_iter_mut()
                    .map(|lists| lists.retain_wanting(wants, visit))
                    .sum();
                found.count(joined);
                store.gather(self.direction, &vertices, &|vertex, list| {
                    let neighbors = list.neighbors;
                    if neighbors.is_empty() || !wants(vertex) {
                        return;
                    }
                    if visit(vertex, neighbors) {
                        found.count(1);
                    } else {
                        left.with_buffer(|waiting, edges| {
                            left_wanting(vertex, neighbors, waiting, edges, None)
                        });
                    }
                })?;
                (kept, Pass::Gathered)
            }
        };
        let found = found.drain().1;
        if !overflowed.load(Ordering::Relaxed) {
            let (mut vertices, edges) = left.drain();
            // Ascending, so the gather that reads them needs no sorted copy.
            vertices.par_sort_unstable();
            self.left = Some(Left {
                kept,
                vertices,
                edges,
            });
        }
        Ok(Pulled { pass, found })
    }
}

/// Lists of vertices a pass left wanting, kept in memory so that the next passes, which
/// need exactly these lists, do not read them again. On a power-law graph they are
/// mostly one or two entries each, spread over every page of the section, for which the
/// next pass would read the whole uncached section again.
#[derive(Default)]
struct KeptLists {
    vertices: Vec<u32>,
    lengths: Vec<u32>,
    neighbors: Vec<u32>,
}

impl KeptLists {
    /// Keeps `vertex`'s list if it is short and there is room within this thread's
    /// `room`; false if not.
    fn keep(&mut self, vertex: u32, neighbors: &[u32], room: KeptRoom) -> bool {
        let (most_vertices, most_neighbors) = (room.vertices, room.neighbors);
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

    /// Keeps, in place, the lists of the vertices that still want a value after `visit`
    /// (called with each vertex that `wants` one, and its list); returns how many found
    /// their value.
    fn retain_wanting(
        &mut self,
        wants: &impl Fn(u32) -> bool,
        visit: &impl Fn(u32, &[u32]) -> bool,
    ) -> u64 {
        let (mut read, mut written, mut left, mut found) = (0usize, 0usize, 0usize, 0u64);
        for index in 0..self.vertices.len() {
            let (vertex, length) = (self.vertices[index], self.lengths[index] as usize);
            let list = read..read + length;
            read += length;
            if !wants(vertex) {
                continue;
            }
            if visit(vertex, &self.neighbors[list.clone()]) {
                found += 1;
                continue;
            }
            self.neighbors.copy_within(list, written);
            written += length;
            self.vertices[left] = vertex;
            self.lengths[left] = length as u32;
            left += 1;
        }
        self.vertices.truncate(left);
        self.lengths.truncate(left);
        self.neighbors.truncate(written);
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_lists_stay_within_their_room_and_drop_found_ones_in_place() {
        let mut kept = KeptLists::default();
        let everyone = |_: u32| true;
        // One entry of the limit's room: 8 vertices and 16 neighbors.
        let room = KeptRoom::of(KEPT_BYTES_PER_ENTRY);
        let (most_vertices, most_neighbors) = (room.vertices as u32, room.neighbors as u32);
        assert_eq!((most_vertices, most_neighbors), (8, 16));
        assert!(kept.keep(10, &[1, 2], room));
        assert!(kept.keep(11, &[3], room));
        // One neighbor past the room left.
        let too_many: Vec<u32> = (4..4 + most_neighbors - 2).collect();
        assert!(!kept.keep(12, &too_many, room));
        // Exactly the room left.
        let fitting: Vec<u32> = (5..5 + most_neighbors - 3).collect();
        assert!(kept.keep(13, &fitting, room));
        // A list longer than a page's worth is never kept, room or not.
        let long = vec![0u32; MOST_KEPT_ENTRIES + 1];
        assert!(!KeptLists::default().keep(14, &long, KeptRoom::of(1 << 30)));
        assert_eq!(kept.neighbors.capacity(), most_neighbors as usize);
        // Vertex 11 finds its value (3); 10 and 13 stay, with their lists intact.
        let found = kept.retain_wanting(&everyone, &|_, neighbors| neighbors.contains(&3));
        assert_eq!(found, 1);
        assert_eq!(kept.vertices, vec![10, 13]);
        assert_eq!(kept.lengths, vec![2, most_neighbors - 3]);
        assert_eq!(kept.neighbors, [&[1, 2][..], &fitting].concat());
        // Room for one more neighbor, then none.
        assert!(kept.keep(15, &[1], room));
        assert!(!kept.keep(16, &[1], room));
        // A vertex that wants nothing any more is dropped without being visited.
        let found = kept.retain_wanting(&|vertex| vertex != 13, &|vertex, _| {
            assert_ne!(vertex, 13);
            vertex == 15
        });
        assert_eq!(found, 1);
        assert_eq!(kept.vertices, vec![10]);
        assert_eq!(kept.retain_wanting(&everyone, &|_, _| true), 1);
        assert!(kept.vertices.is_empty() && kept.neighbors.is_empty());
        // At most `most_vertices` vertices, however short their lists.
        for vertex in 0..most_vertices {
            assert!(kept.keep(vertex, &[1], room));
        }
        assert!(!kept.keep(99, &[1], room));
    }
}
