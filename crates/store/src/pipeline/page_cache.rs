//! The direct tier's cache of pages that gathers read, evicted by CLOCK. The pinned
//! prefix serves scans (cyclic: an LRU or CLOCK cache smaller than the data gets no hits
//! there); this one serves searches whose frontiers come back to the pages the last
//! steps read: BFS on a grid reads each page at a few hundred levels in a row.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::aligned::AlignedBuffer;
use crate::units::PAGE;

/// Which file page each slot holds, and the CLOCK state.
struct Slots {
    /// File page (position / PAGE) → slot.
    index: HashMap<u64, usize>,
    /// Slot → the file page it holds (`None` while empty).
    pages: Vec<Option<u64>>,
    /// Slot → whether it was used since the hand last passed (set by readers, who
    /// share the lock).
    referenced: Vec<AtomicBool>,
    /// The next slot the hand looks at.
    hand: usize,
}

/// Whole file pages, copied in after a gather's read lands and handed out when a later
/// read asks for pages that are all here. Readers share the lock and inserts take it
/// alone, so a caller must not insert while it holds a [`CacheView`] (the direct tier
/// delivers hits before it streams the misses that insert).
pub(crate) struct PageCache {
    data: AlignedBuffer,
    /// Pages it holds at most (`data` has at least a page even when this is 0).
    count: usize,
    slots: RwLock<Slots>,
}

/// The cache, read-locked: lookups and the bytes of cached pages.
pub(crate) struct CacheView<'a> {
    cache: &'a PageCache,
    slots: RwLockReadGuard<'a, Slots>,
}

impl PageCache {
    /// A cache of `bytes` (whole pages; none if less than one); an error when the system
    /// refuses its memory.
    pub fn new(bytes: u64) -> crate::Result<PageCache> {
        let count = (bytes / PAGE) as usize;
        Ok(PageCache {
            data: AlignedBuffer::zeroed(count as u64 * PAGE)?,
            count,
            slots: RwLock::new(Slots {
                index: HashMap::with_capacity(count),
                pages: vec![None; count],
                referenced: (0..count).map(|_| AtomicBool::new(false)).collect(),
                hand: 0,
            }),
        })
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.count as u64 * PAGE
    }

    fn slot_bytes(&self, slot: usize) -> *mut u8 {
        // SAFETY (of the callers' use): slot < the slot count, so the page lies in `data`.
        self.data.as_mut_ptr().wrapping_add(slot * PAGE as usize)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Slots> {
        self.slots
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The cache for lookups, shared with other readers.
    pub fn view(&self) -> CacheView<'_> {
        CacheView {
            cache: self,
            slots: self
                .slots
                .read()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        }
    }

    /// Keeps the pages of `bytes`, read from the file at `position` (page-aligned),
    /// taking slots from the pages CLOCK finds unused longest.
    pub fn insert(&self, position: u64, bytes: &[u8]) {
        let count = self.count;
        if count == 0 {
            return;
        }
        let first = position / PAGE;
        let mut slots = self.write();
        for (offset, part) in bytes.chunks(PAGE as usize).enumerate() {
            let page = first + offset as u64;
            let slot = match slots.index.get(&page) {
                Some(&slot) => slot,
                None => {
                    let slot = loop {
                        let hand = slots.hand;
                        slots.hand = (hand + 1) % count;
                        if !slots.referenced[hand].swap(false, Ordering::Relaxed) {
                            break hand;
                        }
                    };
                    if let Some(old) = slots.pages[slot].take() {
                        slots.index.remove(&old);
                    }
                    slots.pages[slot] = Some(page);
                    slots.index.insert(page, slot);
                    slot
                }
            };
            slots.referenced[slot].store(true, Ordering::Relaxed);
            // SAFETY: the slot's page lies in `data`, and the lock is held, so no reader
            // copies it while it changes; a short last part leaves the page's tail as it was
            // (bytes past the section's end, which no list reaches).
            let page = unsafe { std::slice::from_raw_parts_mut(self.slot_bytes(slot), part.len()) };
            page.copy_from_slice(part);
        }
    }
}

impl CacheView<'_> {
    /// The slots of the pages of the file's bytes at `position..position + length`, if
    /// all are here.
    fn slots(&self, position: u64, length: u64) -> Option<Vec<usize>> {
        let first = position / PAGE;
        (first..first + length.div_ceil(PAGE))
            .map(|page| self.slots.index.get(&page).copied())
            .collect()
    }

    /// Calls `with` on the file's bytes at `position..position + length` (whole pages)
    /// if all are here: a single page in place, several copied together.
    pub fn with_bytes<R>(
        &self,
        position: u64,
        length: u64,
        with: impl FnOnce(&[u8]) -> R,
    ) -> Option<R> {
        if self.cache.count == 0 {
            return None;
        }
        // SAFETY: each slot's page lies in `data`; pages change only under the write
        // lock, which cannot be taken while this view holds the read lock.
        let page = |slot: usize| unsafe {
            std::slice::from_raw_parts(self.cache.slot_bytes(slot), PAGE as usize)
        };
        // One page, the usual case for a gather's list: no list of slots to build.
        if length <= PAGE {
            let slot = *self.slots.index.get(&(position / PAGE))?;
            self.slots.referenced[slot].store(true, Ordering::Relaxed);
            return Some(with(&page(slot)[..length as usize]));
        }
        let slots = self.slots(position, length)?;
        for &slot in &slots {
            self.slots.referenced[slot].store(true, Ordering::Relaxed);
        }
        // u32 words, so the bytes are aligned for the lists they hold.
        let mut joined = vec![0u32; (length / 4) as usize];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut joined);
        for (part, &slot) in bytes.chunks_mut(PAGE as usize).zip(&slots) {
            part.copy_from_slice(&page(slot)[..part.len()]);
        }
        Some(with(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(fill: u8) -> Vec<u8> {
        vec![fill; PAGE as usize]
    }

    /// The cached bytes at `position`, `pages` long, if all are here.
    fn read(cache: &PageCache, position: u64, pages: u64) -> Option<Vec<u8>> {
        cache
            .view()
            .with_bytes(position, pages * PAGE, |bytes| bytes.to_vec())
    }

    #[test]
    fn pages_come_back_as_stored_and_clock_evicts_the_unused_one() {
        let cache = PageCache::new(2 * PAGE).unwrap();
        assert_eq!(read(&cache, 0, 1), None);
        cache.insert(0, &[page(1), page(2)].concat());
        assert_eq!(read(&cache, PAGE, 2), None);
        assert_eq!(read(&cache, 0, 2), Some([page(1), page(2)].concat()));
        // A third page: the hand clears both marks, then takes page 0's slot.
        cache.insert(2 * PAGE, &page(3));
        assert_eq!(read(&cache, 0, 1), None);
        assert_eq!(read(&cache, 2 * PAGE, 1), Some(page(3)));
        // Page 1 was not used since the hand cleared it; page 2 (just read) was.
        cache.insert(3 * PAGE, &page(4));
        assert_eq!(read(&cache, PAGE, 1), None);
        assert_eq!(read(&cache, 2 * PAGE, 1), Some(page(3)));
        assert_eq!(read(&cache, 3 * PAGE, 1), Some(page(4)));
        // A read needs every page: one missing page is a miss.
        assert_eq!(read(&cache, PAGE, 2), None);
        let empty = PageCache::new(0).unwrap();
        empty.insert(0, &page(9));
        assert_eq!(read(&empty, 0, 1), None);
    }
}
