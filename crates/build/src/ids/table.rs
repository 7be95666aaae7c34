//! The index the second pass finds each id's vertex through, in memory.

use std::sync::Arc;

use swapless_format::VertexIds;

use super::parse_integer;

/// Finds each id's vertex in a graph's [`VertexIds`], for the second pass: integers
/// through buckets of their top bits (about one id a bucket, so a lookup touches two
/// cache lines, not a binary search's twenty), names through a hash table of
/// positions.
pub struct IdTable {
    ids: VertexIds,
    index: Index,
}

enum Index {
    /// Bucket `b` holds the ids whose `(id - least) >> shift` is `b`; `starts[b]` is its
    /// first position in the ids.
    Buckets {
        least: i64,
        shift: u32,
        starts: Vec<u32>,
    },
    /// Open addressing: each slot a vertex plus one (0 for empty), by the name's hash.
    Hashed { slots: Vec<u32>, mask: u64 },
}

impl IdTable {
    /// The index over `ids`.
    pub fn new(ids: VertexIds) -> Arc<IdTable> {
        let index = match &ids {
            VertexIds::Integers(sorted) => {
                let least = sorted.first().copied().unwrap_or(0);
                let span = sorted
                    .last()
                    .map_or(0, |&most| most.wrapping_sub(least) as u64);
                let buckets = (sorted.len() as u64).next_power_of_two().max(1);
                // The least shift that puts the whole span in `buckets` buckets.
                let bits = 64 - span.leading_zeros();
                let shift = bits.saturating_sub(buckets.trailing_zeros()).min(63);
                let count = ((span >> shift) + 2) as usize;
                let mut starts = vec![0u32; count];
                for &id in sorted {
                    let bucket = (id.wrapping_sub(least) as u64 >> shift) as usize;
                    starts[bucket + 1] += 1;
                }
                for bucket in 1..count {
                    starts[bucket] += starts[bucket - 1];
                }
                Index::Buckets {
                    least,
                    shift,
                    starts,
                }
            }
            VertexIds::Names { offsets, bytes } => {
                let count = offsets.len() - 1;
                let size = (count as u64 * 2).next_power_of_two().max(2);
                let mask = size - 1;
                let mut slots = vec![0u32; size as usize];
                for v in 0..count {
                    let name = &bytes[offsets[v] as usize..offsets[v + 1] as usize];
                    let mut slot = xxhash_rust::xxh3::xxh3_64(name) & mask;
                    while slots[slot as usize] != 0 {
                        slot = (slot + 1) & mask;
                    }
                    slots[slot as usize] = v as u32 + 1;
                }
                Index::Hashed { slots, mask }
            }
        };
        Arc::new(IdTable { ids, index })
    }

    /// Bytes the table holds: the ids and the index.
    pub fn memory_bytes(ids: &VertexIds) -> u64 {
        match ids {
            VertexIds::Integers(sorted) => {
                ids.memory_bytes() + (sorted.len() as u64).next_power_of_two() * 4 * 2
            }
            VertexIds::Names { .. } => {
                ids.memory_bytes() + (ids.len() as u64 * 2).next_power_of_two() * 4
            }
        }
    }

    /// The ids.
    pub fn ids(&self) -> &VertexIds {
        &self.ids
    }

    /// The vertex of the integer id `id`, if it is one of the ids.
    pub fn vertex_of_integer(&self, id: i64) -> Option<u32> {
        match (&self.index, &self.ids) {
            (
                Index::Buckets {
                    least,
                    shift,
                    starts,
                },
                VertexIds::Integers(sorted),
            ) => {
                if id < *least {
                    return None;
                }
                let bucket = (id.wrapping_sub(*least) as u64 >> shift) as usize;
                if bucket + 1 >= starts.len() {
                    return None;
                }
                let (first, end) = (starts[bucket] as usize, starts[bucket + 1] as usize);
                sorted[first..end]
                    .binary_search(&id)
                    .ok()
                    .map(|at| (first + at) as u32)
            }
            _ => None,
        }
    }

    /// The vertex the input wrote as `token`, if it is one of the ids.
    pub fn vertex_of(&self, token: &[u8]) -> Option<u32> {
        match (&self.index, &self.ids) {
            (Index::Buckets { .. }, VertexIds::Integers(_)) => {
                self.vertex_of_integer(parse_integer(token)?)
            }
            (Index::Hashed { slots, mask }, VertexIds::Names { offsets, bytes }) => {
                let mut slot = xxhash_rust::xxh3::xxh3_64(token) & mask;
                loop {
                    let entry = slots[slot as usize];
                    if entry == 0 {
                        return None;
                    }
                    let v = (entry - 1) as usize;
                    if &bytes[offsets[v] as usize..offsets[v + 1] as usize] == token {
                        return Some(v as u32);
                    }
                    slot = (slot + 1) & mask;
                }
            }
            _ => None,
        }
    }
}
