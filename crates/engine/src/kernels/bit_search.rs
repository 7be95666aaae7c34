//! Breadth-first search from up to 64 sources at once, one bit per source in a 64-bit
//! mask per vertex: the parallel round the kernels that search so run (radii,
//! closeness), and the serial search their verifiers run (one search instead of 64 one
//! after another, which would read every list 64 times).

use std::sync::atomic::{AtomicU64, Ordering};

use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, Result};

use crate::edge_map::edge_map;
use crate::frontier::ThreadBuffers;

/// Sources searched from at once (bits in a mask).
pub const SOURCES: usize = 64;

/// One round: each `frontier` vertex ORs its mask (`visited`) into its out-neighbors'
/// masks for the next round (`next_visited`). Returns the vertices whose masks grew, each
/// once, and those of them no source had reached before (their masks were clear).
pub fn push_masks(
    store: &dyn EdgeStore,
    frontier: &[u32],
    visited: &[AtomicU64],
    next_visited: &[AtomicU64],
) -> Result<(Vec<u32>, Vec<u32>)> {
    let grew = ThreadBuffers::new();
    let first = ThreadBuffers::new();
    edge_map(store, EdgeDirection::Out, frontier, &|vertex, list| {
        let mask = visited[vertex as usize].load(Ordering::Relaxed);
        for &neighbor in list.neighbors {
            let slot = &next_visited[neighbor as usize];
            if mask & !slot.load(Ordering::Relaxed) != 0 {
                let before = slot.fetch_or(mask, Ordering::Relaxed);
                // Only the thread that first changes the mask this round enqueues it.
                if before | mask != before
                    && before == visited[neighbor as usize].load(Ordering::Relaxed)
                {
                    grew.push(neighbor, 0);
                    if before == 0 {
                        first.push(neighbor, 0);
                    }
                }
            }
        }
    })?;
    let (mut grew, mut first) = (grew, first);
    Ok((grew.drain().0, first.drain().0))
}

/// The masks of a search, kept between searches so that each clears only what it
/// touched. Holds 24 bytes a vertex, and the vertices of two levels.
pub struct BitSearch {
    /// The sources that reach each vertex so far.
    reached: Vec<u64>,
    /// Those that reached it at the last level: its bits to push.
    fresh: Vec<u64>,
    /// Those pushed to it at this level.
    arriving: Vec<u64>,
}

impl BitSearch {
    /// Clear masks for a graph of `vertices`.
    pub fn new(vertices: usize) -> BitSearch {
        BitSearch {
            reached: vec![0; vertices],
            fresh: vec![0; vertices],
            arriving: vec![0; vertices],
        }
    }

    /// Searches `graph`'s out-lists from `sources` (at most [`SOURCES`]; source `i` is
    /// bit `i`) and calls `arrived(vertex, bits, level)` for every vertex at every level
    /// where sources first reach it: the sources at level 0 with their own bits, then
    /// level by level, each level's vertices in increasing order (so that their lists are
    /// read in file order). Leaves the masks clear.
    pub fn search(
        &mut self,
        graph: &GraphFile,
        sources: &[u32],
        mut arrived: impl FnMut(u32, u64, u32),
    ) {
        let mut touched: Vec<u32> = Vec::new();
        for (bit, &source) in sources[..sources.len().min(SOURCES)].iter().enumerate() {
            if self.reached[source as usize] == 0 {
                touched.push(source);
            }
            self.reached[source as usize] |= 1 << bit;
            self.fresh[source as usize] |= 1 << bit;
        }
        let mut last_level = touched.clone();
        last_level.sort_unstable();
        for &source in &last_level {
            arrived(source, self.fresh[source as usize], 0);
        }
        let mut level = 0u32;
        while !last_level.is_empty() {
            level += 1;
            let mut this_level = Vec::new();
            for &vertex in &last_level {
                let bits = std::mem::take(&mut self.fresh[vertex as usize]);
                for &neighbor in graph.out_neighbors_of(vertex as usize).iter() {
                    let slot = neighbor as usize;
                    let new = bits & !self.reached[slot] & !self.arriving[slot];
                    if new != 0 {
                        if self.arriving[slot] == 0 {
                            this_level.push(neighbor);
                        }
                        self.arriving[slot] |= new;
                    }
                }
            }
            this_level.sort_unstable();
            for &vertex in &this_level {
                let slot = vertex as usize;
                let bits = std::mem::take(&mut self.arriving[slot]);
                if self.reached[slot] == 0 {
                    touched.push(vertex);
                }
                self.reached[slot] |= bits;
                self.fresh[slot] = bits;
                arrived(vertex, bits, level);
            }
            last_level = this_level;
        }
        for vertex in touched {
            self.reached[vertex as usize] = 0;
            self.fresh[vertex as usize] = 0;
        }
    }
}
