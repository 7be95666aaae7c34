//! The direct tier's arena of I/O slots: which reads may hold room at once, and where.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

use crate::units::PAGE;

/// Which parts of the arena are free; the I/O thread takes, compute threads give back.
///
/// The arena is `regular` slots of `slot_bytes`, then an oversize region for reads
/// longer than a slot (sized by the plan for the longest list). Reads fill a slot one
/// after another by the page, and a slot is free again once every read in it has been
/// given back: a chunk-long read takes a slot of its own, while a gather's reads of a
/// page or two and a partial scan's short reads share one, so more of them fit in flight
/// (with a slot a read, a tight budget kept far fewer reads in flight than asked).
/// The oversize region is handed out by the page, first fit, so several long lists can
/// be in flight at once. A read's room is named by the arena page each part starts at.
pub(crate) struct SlotPool {
    free: Mutex<FreeSpace>,
    returned: Condvar,
    regular: usize,
    slot_bytes: u64,
    oversize_region_bytes: u64,
    /// Reads that may hold room at once: the plan counts the sides of split lists that
    /// so many reads can leave waiting ([`crate::budget::SlotGeometry::reads_held`]).
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
    /// that [`SlotPool::wait_for_returns`] cannot miss one that comes in between.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_reads_share_the_oversize_region_and_give_it_back_whole() {
        // Two 2-page slots, and a 16-page oversize region after them.
        let pool = SlotPool::new(2, 2 * PAGE, 16 * PAGE, 8);
        assert_eq!(pool.try_take(PAGE, 1).map(|s| s[0] < 4), Some(true));
        // Several long reads at once, while they fit.
        let first = pool.try_take(5 * PAGE, 1).unwrap();
        let second = pool.try_take(5 * PAGE, 1).unwrap();
        assert!(first[0] >= 4 && second[0] >= 4);
        assert_ne!(pool.offset(first[0]), pool.offset(second[0]));
        assert!(
            pool.try_take(7 * PAGE, 1).is_none(),
            "only 6 pages are left"
        );
        // A read in two parts (neighbors and weights) takes both or neither.
        assert!(pool.try_take(4 * PAGE, 2).is_none());
        assert!(pool.try_take(3 * PAGE, 2).is_some());
        pool.give_back(first, 5 * PAGE);
        pool.give_back(second, 5 * PAGE);
        // The freed extents merge with each other: 10 pages in one piece.
        assert!(pool.try_take(10 * PAGE, 1).is_some());
        assert!(pool.fits_at_all(16 * PAGE, 1));
        assert!(!pool.fits_at_all(9 * PAGE, 2));
    }

    #[test]
    fn short_reads_share_slots_up_to_the_reads_held_at_most() {
        // Two 4-page slots; up to 6 reads may hold room.
        let pool = SlotPool::new(2, 4 * PAGE, 0, 6);
        let reads: Vec<[usize; 2]> = (0..6).map(|_| pool.try_take(PAGE, 1).unwrap()).collect();
        let mut pages: Vec<usize> = reads.iter().map(|slots| slots[0]).collect();
        pages.sort();
        pages.dedup();
        assert_eq!(pages.len(), 6, "six one-page reads in two slots, apart");
        assert!(pages.iter().all(|&page| page < 8));
        assert!(
            pool.try_take(PAGE, 1).is_none(),
            "two pages are free, but six reads hold room already"
        );
        // A slot-long read needs a slot of its own: none is free while both hold reads.
        pool.give_back(reads[0], PAGE);
        assert!(pool.try_take(4 * PAGE, 1).is_none());
        // The first slot is free again once all four of its reads are back.
        for slots in &reads[1..4] {
            pool.give_back(*slots, PAGE);
        }
        let whole = pool.try_take(4 * PAGE, 1).unwrap();
        assert_eq!(pool.offset(whole[0]), 0);
        // Neighbors and weights: both parts or neither.
        assert!(pool.try_take(3 * PAGE, 2).is_none());
        for slots in &reads[4..] {
            pool.give_back(*slots, PAGE);
        }
        assert!(pool.try_take(2 * PAGE, 2).is_some());
        assert!(!pool.fits_at_all(5 * PAGE, 1), "no oversize region");
        assert!(pool.fits_at_all(4 * PAGE, 2));
        assert!(!pool.fits_at_all(4 * PAGE, 3));
    }

    #[test]
    fn the_io_thread_waits_for_a_batch_of_give_backs_or_a_panic() {
        use std::sync::atomic::AtomicU64;
        use std::time::Duration;
        let pool = SlotPool::new(4, PAGE, 0, 4);
        let reads: Vec<[usize; 2]> = (0..4).map(|_| pool.try_take(PAGE, 1).unwrap()).collect();
        assert_eq!(pool.reads_held(), 4);
        let woke_after = AtomicU64::new(0);
        let (pool, woke_after) = (&pool, &woke_after);
        std::thread::scope(|scope| {
            let seen = pool.returns();
            let waiter = scope.spawn(move || {
                pool.wait_for_returns(seen, 3);
                woke_after.store(pool.returns(), Ordering::SeqCst);
            });
            for slots in &reads[..2] {
                pool.give_back(*slots, PAGE);
                std::thread::sleep(Duration::from_millis(50));
                assert_eq!(
                    woke_after.load(Ordering::SeqCst),
                    0,
                    "woke before the third"
                );
            }
            pool.give_back(reads[2], PAGE);
            waiter.join().unwrap();
        });
        assert_eq!(woke_after.load(Ordering::SeqCst), 3);
        assert_eq!(pool.reads_held(), 1);
        // A compute thread that panics with a read in hand wakes the waiter at once: the
        // reads it would have given back may never come.
        std::thread::scope(|scope| {
            let seen = pool.returns();
            let waiter = scope.spawn(move || pool.wait_for_returns(seen, 100));
            std::thread::sleep(Duration::from_millis(50));
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let _give_back = GiveBack {
                    pool,
                    slots: reads[3],
                    length: PAGE,
                };
                panic!("a kernel's bug");
            }));
            waiter.join().unwrap();
        });
        assert!(pool.abandoned());
    }
}
