//! The direct tier's arena of I/O slots: which reads may hold room at once, and where.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

use crate::list_layout::PAGE;

/// Which parts of the arena are free; the I/O thread takes, compute threads give back.
///
/// The arena is `regular` slots of `slot_bytes`, then an oversize region for reads
/// longer than a slot (sized by the plan for the longest list). Reads fill a slot one
/// after another by the page, and a slot is free again once every read in it has been
/// given back: a chunk-long read takes a slot of its own, while a gather's reads of a
/// page or two and a partial scan's short reads share one, so more of them fit in flight
/// (with a slot a read, bfs at 10% of kron23 kept about 50 reads in flight of the 128 asked).
/// The oversize region is handed out by the page, first fit, so several long lists can
/// be in flight at once. A read's room is named by the arena page each part starts at.
pub(crate) struct SlotPool {
    free: Mutex<FreeSpace>,
    returned: Condvar,
    regular: usize,
    slot_bytes: u64,
    oversize_region_bytes: u64,
    /// Reads that may hold room at once: the plan counts the sides of split lists that
    /// so many reads can leave waiting ([`crate::Plan::reads_held`]).
    reads_held_at_most: usize,
    /// Set when a compute thread panicked with a read in hand (see [`GiveBack`]).
    abandoned: AtomicBool,
}

/// A landed read's room, given back to the pool when the compute thread is done with
/// it, or unwinds from a kernel's panic (which also tells the I/O thread to stop).
pub(crate) struct GiveBack<'a> {
    pub(crate) pool: &'a SlotPool,
    pub(crate) slots: [usize; 2],
    pub(crate) length: u64,
}

impl Drop for GiveBack<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.pool.abandoned.store(true, Ordering::Relaxed);
        }
        self.pool.give_back(self.slots, self.length);
    }
}

/// The free slots, the slot being filled, the free extents of the oversize region
/// (sorted, apart), and how many reads hold room.
struct FreeSpace {
    regular: Vec<usize>,
    /// The slot reads are being placed in, and how many of its bytes they fill.
    filling: Option<(usize, u64)>,
    /// Reads holding room in each slot.
    reads_in_slot: Vec<u32>,
    oversize: Vec<Range<u64>>,
    reads_held: usize,
    /// Bumped on every give-back, so a waiter sees that something came back.
    returns: u64,
    /// The count of give-backs the I/O thread waits for (`u64::MAX` when it waits for
    /// none): give-backs before it wake nobody.
    wake_at: u64,
}

impl FreeSpace {
    /// Whether `count` parts of `bytes` each fit in the slot being filled and free slots.
    pub(crate) fn fits(&self, slot_bytes: u64, bytes: u64, count: usize) -> bool {
        let mut filled = self.filling.map_or(slot_bytes, |(_, filled)| filled);
        let mut free_slots = self.regular.len();
        for _ in 0..count {
            if filled + bytes > slot_bytes {
                if free_slots == 0 {
                    return false;
                }
                free_slots -= 1;
                filled = 0;
            }
            filled += bytes;
        }
        true
    }

    /// Places `bytes` (which [`FreeSpace::fits`] found room for) and returns the byte
    /// offset in the regular region.
    pub(crate) fn place(&mut self, slot_bytes: u64, bytes: u64) -> u64 {
        // A slot left without room still holds reads (one whose reads are all back
        // starts over from its start, see `release_in_slot`): the last of them frees it.
        let (slot, filled) = match self.filling {
            Some((slot, filled)) if filled + bytes <= slot_bytes => (slot, filled),
            _ => (self.regular.pop().expect("fits() found a free slot"), 0),
        };
        self.filling = Some((slot, filled + bytes));
        self.reads_in_slot[slot] += 1;
        slot as u64 * slot_bytes + filled
    }

    /// Gives back the room of one read part in `slot`.
    pub(crate) fn release_in_slot(&mut self, slot: usize) {
        self.reads_in_slot[slot] -= 1;
        if self.reads_in_slot[slot] > 0 {
            return;
        }
        match self.filling {
            // Empty again: fill it from its start.
            Some((filling, _)) if filling == slot => self.filling = Some((slot, 0)),
            _ => self.regular.push(slot),
        }
    }
}

impl SlotPool {
    pub(crate) fn new(
        regular: usize,
        slot_bytes: u64,
        oversize_region_bytes: u64,
        reads_held_at_most: usize,
    ) -> SlotPool {
        let region = oversize_region_bytes / PAGE * PAGE;
        SlotPool {
            free: Mutex::new(FreeSpace {
                regular: (0..regular).rev().collect(),
                filling: None,
                reads_in_slot: vec![0; regular],
                oversize: std::iter::once(0..region)
                    .filter(|all| !all.is_empty())
                    .collect(),
                reads_held: 0,
                returns: 0,
                wake_at: u64::MAX,
            }),
            returned: Condvar::new(),
            regular,
            slot_bytes,
            oversize_region_bytes: region,
            reads_held_at_most: reads_held_at_most.max(1),
            abandoned: AtomicBool::new(false),
        }
    }

    /// Bytes of the regular slots, where the oversize region starts.
    pub(crate) fn regular_bytes(&self) -> u64 {
        self.regular as u64 * self.slot_bytes
    }

    /// Byte offset in the arena of the room named `slot`.
    pub(crate) fn offset(&self, slot: usize) -> u64 {
        slot as u64 * PAGE
    }

    /// Whether a read of `length` bytes (per part) can ever be placed.
    pub(crate) fn fits_at_all(&self, length: u64, count: usize) -> bool {
        match length > self.slot_bytes {
            true => length.div_ceil(PAGE) * PAGE * count as u64 <= self.oversize_region_bytes,
            false => count <= self.regular,
        }
    }

    /// Room for `count` parts of `length` bytes each (in the slots, or in the oversize
    /// region for reads longer than a slot), if there is and fewer than the most reads
    /// hold room.
    pub(crate) fn try_take(&self, length: u64, count: usize) -> Option<[usize; 2]> {
        let mut free = self
            .free
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if free.reads_held >= self.reads_held_at_most {
            return None;
        }
        let bytes = length.div_ceil(PAGE) * PAGE;
        let mut starts = [0u64; 2];
        if length <= self.slot_bytes {
            if !free.fits(self.slot_bytes, bytes, count) {
                return None;
            }
            for start in starts.iter_mut().take(count) {
                *start = free.place(self.slot_bytes, bytes);
            }
        } else {
            for part in 0..count {
                let Some(index) = free
                    .oversize
                    .iter()
                    .position(|extent| extent.end - extent.start >= bytes)
                else {
                    // Put back what this call took, so a read takes all its parts or none.
                    for &start in &starts[..part] {
                        release(&mut free.oversize, start - self.regular_bytes(), bytes);
                    }
                    return None;
                };
                starts[part] = self.regular_bytes() + free.oversize[index].start;
                free.oversize[index].start += bytes;
                if free.oversize[index].is_empty() {
                    free.oversize.remove(index);
                }
            }
        }
        free.reads_held += 1;
        let mut taken = [usize::MAX; 2];
        for (slot, start) in taken.iter_mut().zip(&starts[..count]) {
            *slot = (start / PAGE) as usize;
        }
        Some(taken)
    }

    /// Returns the room [`SlotPool::try_take`] gave for a read of `length` bytes.
    pub(crate) fn give_back(&self, slots: [usize; 2], length: u64) {
        let mut free = self
            .free
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        for slot in slots.into_iter().filter(|&slot| slot != usize::MAX) {
            let at = self.offset(slot);
            match at < self.regular_bytes() {
                true => free.release_in_slot((at / self.slot_bytes) as usize),
                false => {
                    let bytes = length.div_ceil(PAGE) * PAGE;
                    release(&mut free.oversize, at - self.regular_bytes(), bytes);
                }
            }
        }
        free.reads_held -= 1;
        free.returns += 1;
        if free.returns >= free.wake_at || self.abandoned() {
            self.returned.notify_all();
        }
    }

    /// Reads that hold room: landed with the compute threads, or in flight.
    pub(crate) fn reads_held(&self) -> usize {
        self.free
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .reads_held
    }

    /// How many give-backs there have been: take it before trying to take room, so
    /// that [`SlotPool::wait_for_return`] cannot miss one that comes in between.
    pub(crate) fn returns(&self) -> u64 {
        self.free
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .returns
    }

    /// Whether a compute thread panicked with a read in hand.
    pub(crate) fn abandoned(&self) -> bool {
        self.abandoned.load(Ordering::Relaxed)
    }

    /// Blocks until `count` give-backs have come after the `seen`-th, or a compute thread
    /// panicked. The caller must know that many are coming: reads held, none in flight.
    pub(crate) fn wait_for_returns(&self, seen: u64, count: u64) {
        let mut free = self
            .free
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        free.wake_at = seen + count;
        let mut free = self
            .returned
            .wait_while(free, |free| {
                free.returns < seen + count && !self.abandoned()
            })
            .unwrap_or_else(|poison| poison.into_inner());
        free.wake_at = u64::MAX;
    }
}

/// Returns `start..start + bytes` to a region's free `extents`, merged with its neighbours.
fn release(extents: &mut Vec<Range<u64>>, start: u64, bytes: u64) {
    let end = start + bytes;
    let index = extents.partition_point(|extent| extent.start < start);
    extents.insert(index, start..end);
    if index + 1 < extents.len() && extents[index + 1].start == end {
        extents[index].end = extents[index + 1].end;
        extents.remove(index + 1);
    }
    if index > 0 && extents[index - 1].end == start {
        extents[index - 1].end = extents[index].end;
        extents.remove(index);
    }
}
