//! Frontiers: a sparse list of vertices for top-down steps, a dense bitmap for
//! bottom-up steps, and per-thread buffers that parallel callbacks append to.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use thread_local::ThreadLocal;

use crate::property::{PropertyArrays, PropertyVec, property_vec};

/// A set of vertices as one bit each, safe to set from many threads.
pub struct Bitmap {
    words: PropertyVec<AtomicU64>,
}

impl Bitmap {
    /// The words themselves, for a checkpoint to save and restore.
    pub fn words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// Bytes a bitmap over `vertices` vertices holds.
    pub fn bytes(vertices: u64) -> u64 {
        vertices.div_ceil(64) * 8
    }

    /// An empty set over `0..vertices`, made through the run's `arrays`.
    pub fn new(arrays: &PropertyArrays, vertices: usize) -> Bitmap {
        Bitmap {
            words: property_vec(arrays, vertices.div_ceil(64), || AtomicU64::new(0)),
        }
    }

    /// Whether `vertex` is in the set.
    #[inline]
    pub fn contains(&self, vertex: u32) -> bool {
        self.words[vertex as usize / 64].load(Ordering::Relaxed) & (1 << (vertex % 64)) != 0
    }

    /// Adds `vertex`.
    #[inline]
    pub fn insert(&self, vertex: u32) {
        self.words[vertex as usize / 64].fetch_or(1 << (vertex % 64), Ordering::Relaxed);
    }

    /// Removes every vertex.
    pub fn clear(&self) {
        self.words
            .par_iter()
            .for_each(|word| word.store(0, Ordering::Relaxed));
    }

    /// Adds every vertex of `vertices`.
    pub fn insert_all(&self, vertices: &[u32]) {
        vertices.par_iter().for_each(|&vertex| self.insert(vertex));
    }

    /// The vertices in the set, ascending, in an array of exactly their number.
    pub fn to_vertices(&self) -> Vec<u32> {
        const BLOCK: usize = 1024;
        let blocks: Vec<&[AtomicU64]> = self.words.chunks(BLOCK).collect();
        let counts: Vec<usize> = blocks
            .par_iter()
            .map(|words| {
                words
                    .iter()
                    .map(|word| word.load(Ordering::Relaxed).count_ones() as usize)
                    .sum()
            })
            .collect();
        let mut vertices = vec![0u32; counts.iter().sum()];
        split_by_counts(&mut vertices, &counts)
            .into_par_iter()
            .zip(blocks)
            .enumerate()
            .for_each(|(block, (part, words))| {
                let first_word = block * BLOCK;
                let mut filled = 0;
                Self::extract(words, first_word, |vertex| {
                    part[filled] = vertex;
                    filled += 1;
                });
            });
        vertices
    }

    /// The sum of `value` over the set's vertices.
    pub fn sum_over(&self, value: impl Fn(u32) -> u64 + Sync) -> u64 {
        self.words
            .par_chunks(1024)
            .enumerate()
            .map(|(block, words)| {
                let mut sum = 0;
                Self::extract(words, block * 1024, |vertex| sum += value(vertex));
                sum
            })
            .sum()
    }

    /// Replaces `batch` with the set's vertices from word `start` on, ascending, as many
    /// whole words' worth as keep it at most `limit` long (at least one word's);
    /// returns the word to continue from (the word count when none is left).
    pub fn next_batch(&self, start: usize, limit: usize, batch: &mut Vec<u32>) -> usize {
        batch.clear();
        let mut word = start;
        while word < self.words.len() {
            let bits = self.words[word].load(Ordering::Relaxed);
            if !batch.is_empty() && batch.len() + bits.count_ones() as usize > limit {
                break;
            }
            Self::extract(&self.words[word..word + 1], word, |vertex| {
                batch.push(vertex)
            });
            word += 1;
        }
        word
    }

    /// Calls `each` with every vertex set in `words`, the first of which is word
    /// `first_word` of the set, ascending.
    #[inline]
    fn extract(words: &[AtomicU64], first_word: usize, mut each: impl FnMut(u32)) {
        for (index, word) in words.iter().enumerate() {
            let mut bits = word.load(Ordering::Relaxed);
            while bits != 0 {
                each(((first_word + index) * 64) as u32 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
    }
}

/// The vertices below `vertices` that `keep` accepts, ascending, in an array of exactly
/// their number: counted first, then written in parallel, so nothing grows or is copied
/// (`keep` is called twice per vertex and must answer the same both times).
pub fn select_vertices(vertices: u32, keep: impl Fn(u32) -> bool + Sync) -> Vec<u32> {
    select_vertices_by_block(vertices, |range, kept| {
        range.filter(|&vertex| keep(vertex)).for_each(kept)
    })
}

/// Vertices per block of [`select_blocks`].
const SELECT_BLOCK: u32 = 1 << 16;

/// The blocks of `SELECT_BLOCK` vertices that cover `0..vertices`, in order.
pub fn select_blocks(vertices: u32) -> Vec<std::ops::Range<u32>> {
    (0..vertices.div_ceil(SELECT_BLOCK))
        .map(|block| {
            block * SELECT_BLOCK
                ..(block * SELECT_BLOCK)
                    .saturating_add(SELECT_BLOCK)
                    .min(vertices)
        })
        .collect()
}

/// As [`select_vertices`], for a test that is cheaper a block of vertices at a time (such
/// as one on degrees, which compressed offsets decode faster in order):
/// `keep_block(range, kept)` calls `kept` with the vertices of `range` to keep, ascending.
/// It is called twice per block and must pass the same vertices both times.
pub fn select_vertices_by_block(
    vertices: u32,
    keep_block: impl Fn(std::ops::Range<u32>, &mut dyn FnMut(u32)) + Sync,
) -> Vec<u32> {
    let blocks = select_blocks(vertices);
    let counts: Vec<usize> = blocks
        .par_iter()
        .map(|range| {
            let mut count = 0;
            keep_block(range.clone(), &mut |_| count += 1);
            count
        })
        .collect();
    let mut selected = vec![0u32; counts.iter().sum()];
    split_by_counts(&mut selected, &counts)
        .into_par_iter()
        .zip(blocks)
        .for_each(|(part, range)| {
            let mut slots = part.iter_mut();
            keep_block(range, &mut |vertex| {
                if let Some(slot) = slots.next() {
                    *slot = vertex;
                }
            });
        });
    selected
}

/// `all` cut into consecutive parts of `counts[i]` entries each, to fill in parallel.
fn split_by_counts<'a>(mut all: &'a mut [u32], counts: &[usize]) -> Vec<&'a mut [u32]> {
    let mut parts = Vec::with_capacity(counts.len());
    for &count in counts {
        let (part, rest) = std::mem::take(&mut all).split_at_mut(count);
        parts.push(part);
        all = rest;
    }
    parts
}

/// Per-thread vertex buffers that parallel callbacks append to without locks,
/// drained into one list between steps (GAP's sliding-queue buffers).
#[derive(Default)]
pub struct ThreadBuffers {
    buffers: ThreadLocal<RefCell<(Vec<u32>, u64)>>,
}

impl ThreadBuffers {
    /// Empty buffers.
    pub fn new() -> ThreadBuffers {
        ThreadBuffers::default()
    }

    /// Appends `vertex` to this thread's buffer and adds `weight` to its counter.
    #[inline]
    pub fn push(&self, vertex: u32, weight: u64) {
        let mut buffer = self.buffers.get_or_default().borrow_mut();
        buffer.0.push(vertex);
        buffer.1 += weight;
    }

    /// Runs `fill` on this thread's buffer and counter: one lookup for many pushes.
    #[inline]
    pub fn with_buffer<R>(&self, fill: impl FnOnce(&mut Vec<u32>, &mut u64) -> R) -> R {
        let mut buffer = self.buffers.get_or_default().borrow_mut();
        let (vertices, weight) = &mut *buffer;
        fill(vertices, weight)
    }

    /// Adds `weight` to this thread's counter without a vertex.
    #[inline]
    pub fn count(&self, weight: u64) {
        self.buffers.get_or_default().borrow_mut().1 += weight;
    }

    /// Empties every buffer into one list; returns it with the counters' sum.
    pub fn drain(&mut self) -> (Vec<u32>, u64) {
        // Sized exactly, and each thread's buffer freed once copied, so the list never
        // takes more than its own length beyond the buffers.
        let length = self.buffers.iter_mut().map(|b| b.get_mut().0.len()).sum();
        let mut all = Vec::with_capacity(length);
        let mut total = 0;
        for buffer in self.buffers.iter_mut() {
            let buffer = buffer.get_mut();
            all.extend_from_slice(&buffer.0);
            buffer.0 = Vec::new();
            total += std::mem::take(&mut buffer.1);
        }
        (all, total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_vertices_matches_a_serial_filter_across_blocks() {
        // Block edges (65536) fall inside the range; an empty range selects nothing.
        for vertices in [0u32, 1, 65_535, 65_536, 200_003] {
            let keep = |vertex: u32| vertex % 7 == 3 || vertex == 65_536;
            let expected: Vec<u32> = (0..vertices).filter(|&vertex| keep(vertex)).collect();
            let selected = select_vertices(vertices, keep);
            assert_eq!(selected, expected, "{vertices} vertices");
            assert_eq!(selected.capacity(), selected.len());
        }
    }
}
