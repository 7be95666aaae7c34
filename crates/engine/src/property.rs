//! Vertex property arrays that parallel callbacks read and write without locks.
//! Relaxed atomics compile to plain loads and stores on x86, so they cost nothing
//! over raw arrays while keeping the kernels free of `unsafe`.
//!
//! Each run's arrays take their memory from that run's own reservation (DESIGN §4, §7:
//! hot arrays reserved first, on huge pages): the runner maps it before the graph loads
//! ([`reserve`]) and hands the kernel a [`PropertyArrays`] handle in
//! `KernelOptions::arrays`, which every array constructor takes. The handle also holds
//! the run's huge-page fraction and counts its own figures (unreserved bytes, bytes
//! advised), so two runs in one process (two Python threads) neither share a pool nor
//! mix their reports. It rides in the kernel's options, not in the store, because
//! property arrays are the engine's (the store, a layer below, knows nothing of them),
//! and not in a thread-local scope, because a kernel makes arrays on whichever worker
//! thread it runs on. Only constructors read it: an array, once made, is a pointer and
//! a length, so loops over it cost what they did.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use swapless_store::HUGE_PAGE;

/// The huge-page advice of one run: the fraction of each array to advise, and the bytes
/// advised so far.
#[derive(Default)]
struct HugePageAdvice {
    /// Fraction (0..=1) of each property array to back with huge pages.
    fraction: f64,
    /// Bytes advised so far.
    advised_bytes: AtomicU64,
}

impl HugePageAdvice {
    /// Advises the kernel to back the first [`HugePageAdvice::fraction`] of `values` with
    /// huge pages. After degree-based reordering that prefix holds the hottest vertices.
    fn advise<T>(&self, values: &[T]) {
        if self.fraction <= 0.0 {
            return;
        }
        let bytes = (std::mem::size_of_val(values) as f64 * self.fraction) as usize;
        // A kernel built without transparent huge pages refuses the advice; the run goes on
        // with small pages and the report shows none advised.
        let advised = swapless_store::advise_huge_pages_prefix(values, bytes);
        self.advised_bytes.fetch_add(advised, Ordering::Relaxed);
    }
}

/// Memory for one kernel's property arrays, mapped and faulted in before the graph is
/// loaded (DESIGN §6: hot arrays first, so they get DRAM and huge pages before graph
/// data and caches do). One anonymous mapping, cut into a slot per declared array.
struct Pool {
    /// First byte of the mapping (as an address: the pool is shared between threads).
    mapping: usize,
    /// Bytes mapped.
    mapping_bytes: usize,
    /// First byte of each slot (2 MiB aligned if it is at least that long) and its length.
    slots: Vec<(usize, usize)>,
    /// Whether each slot is lent to an array now.
    lent: Mutex<Vec<bool>>,
    /// Whether the run has released the pool ([`Pool::release_free_slots`]): a slot
    /// given back since goes back to the system at once, not when the last handle on
    /// the pool goes (the run's options keep one until it returns).
    released: std::sync::atomic::AtomicBool,
}

impl Pool {
    /// Maps and faults in one slot per entry of `array_bytes`, each with the prefix
    /// `advice` names advised to use huge pages before it is touched.
    fn map(array_bytes: &[u64], advice: &HugePageAdvice) -> std::io::Result<Pool> {
        let lengths: Vec<usize> = array_bytes
            .iter()
            .map(|&bytes| (bytes as usize).next_multiple_of(4096))
            .collect();
        // Arrays of 2 MiB or more start on a 2 MiB boundary, so huge pages can back them;
        // the gaps this leaves are never touched, so they cost address space, not memory.
        // Offsets are laid out from a 2 MiB-aligned base; one spare huge page lets the
        // base be aligned inside the mapping.
        let alignment = |length: usize| if length >= HUGE_PAGE { HUGE_PAGE } else { 4096 };
        let mut offsets = Vec::with_capacity(lengths.len());
        let mut end = 0usize;
        for &length in &lengths {
            let offset = end.next_multiple_of(alignment(length));
            offsets.push(offset);
            end = offset + length;
        }
        let mapping_bytes = end + HUGE_PAGE;
        // SAFETY: a fresh private anonymous mapping; no existing memory is affected.
        let mapping = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapping_bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if mapping == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let mut pool = Pool {
            mapping: mapping as usize,
            mapping_bytes,
            slots: Vec::with_capacity(lengths.len()),
            lent: Mutex::new(vec![false; lengths.len()]),
            released: std::sync::atomic::AtomicBool::new(false),
        };
        let base = pool.mapping.next_multiple_of(HUGE_PAGE);
        for (offset, length) in offsets.into_iter().zip(lengths) {
            pool.slots.push((base + offset, length));
        }
        for &(start, length) in &pool.slots {
            // SAFETY: the slot lies inside the mapping made above, which nothing else uses yet.
            let slot = unsafe { std::slice::from_raw_parts(start as *const u8, length) };
            advice.advise(slot);
        }
        // Fault every slot's pages in now, so the arrays hold DRAM before anything else.
        let pages: Vec<usize> = pool
            .slots
            .iter()
            .flat_map(|&(start, length)| (start..start + length).step_by(4096))
            .collect();
        pages.into_par_iter().for_each(|page| {
            // SAFETY: each page lies in a slot of the mapping and is written once, by one
            // thread, before any slot is lent; it is zero, so writing zero changes nothing.
            unsafe { std::ptr::write_volatile(page as *mut u8, 0) };
        });
        Ok(pool)
    }

    /// Lends the smallest free slot that holds `bytes`, if any.
    fn lend(&self, bytes: usize) -> Option<usize> {
        let mut lent = self
            .lent
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let slot = (0..self.slots.len())
            .filter(|&slot| !lent[slot] && self.slots[slot].1 >= bytes)
            .min_by_key(|&slot| self.slots[slot].1)?;
        lent[slot] = true;
        Some(slot)
    }

    /// Takes a slot back.
    fn give_back(&self, slot: usize) {
        let mut lent = self
            .lent
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if self.released.load(std::sync::atomic::Ordering::Relaxed) {
            let (start, length) = self.slots[slot];
            // SAFETY: the slot lies in this pool's mapping and the array that held it is
            // gone; it stays marked lent, so no array takes it again.
            unsafe { libc::madvise(start as *mut libc::c_void, length, libc::MADV_DONTNEED) };
            return;
        }
        lent[slot] = false;
    }

    /// Returns the memory of every slot not lent now to the system, and keeps those slots
    /// from being lent again: after a run only its result is left in the pool, and the
    /// output made from it must fit the budget beside it alone.
    fn release_free_slots(&self) {
        let mut lent = self
            .lent
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        self.released
            .store(true, std::sync::atomic::Ordering::Relaxed);
        for (slot, &(start, length)) in self.slots.iter().enumerate() {
            if !lent[slot] {
                // SAFETY: the slot lies in this pool's mapping and no array holds it; it is
                // marked lent below, so none will, and it is only unmapped with the pool.
                unsafe { libc::madvise(start as *mut libc::c_void, length, libc::MADV_DONTNEED) };
                lent[slot] = true;
            }
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // SAFETY: every array lent from the pool holds an `Arc` to it, so none is left;
        // the range is exactly the mapping made in `map`.
        unsafe { libc::munmap(self.mapping as *mut libc::c_void, self.mapping_bytes) };
    }
}

/// Where one run's property arrays take their memory, and the run's own figures of it
/// (see the module's doc); copies share both.
///
/// The default handle holds no reservation: arrays come from the heap, with no huge-page
/// advice (a kernel run outside a runner, a verifier).
#[derive(Clone, Default)]
pub struct PropertyArrays {
    run: Arc<RunArrays>,
}

/// What a [`PropertyArrays`] handle shares between its copies.
#[derive(Default)]
struct RunArrays {
    /// The reserved slots; `None` when the run reserved nothing.
    pool: Option<Arc<Pool>>,
    /// The run's huge-page advice, for the slots and for arrays made from the heap.
    huge_pages: HugePageAdvice,
    /// Bytes of arrays made from the heap while the run held a reservation, because no
    /// free slot fitted them (a kernel making an array it did not declare).
    unreserved_bytes: AtomicU64,
}

impl std::fmt::Debug for PropertyArrays {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("PropertyArrays")
            .field("reserved_bytes", &self.reserved_bytes())
            .field("huge_page_fraction", &self.run.huge_pages.fraction)
            .finish()
    }
}

impl PropertyArrays {
    /// Bytes reserved for the run (DRAM faulted in before the graph loaded).
    pub fn reserved_bytes(&self) -> u64 {
        self.run.pool.as_ref().map_or(0, |pool| {
            pool.slots.iter().map(|&(_, length)| length as u64).sum()
        })
    }

    /// Bytes of arrays this run made from the heap while it held a reservation (arrays
    /// the kernel did not declare, such as triangle counting's oriented lists).
    pub fn unreserved_bytes(&self) -> u64 {
        self.run.unreserved_bytes.load(Ordering::Relaxed)
    }

    /// Bytes of this run's arrays advised to use huge pages (the kernel may still back
    /// fewer, when it finds no free 2 MiB frames).
    pub fn huge_page_advised_bytes(&self) -> u64 {
        self.run.huge_pages.advised_bytes.load(Ordering::Relaxed)
    }
}

/// Property-array memory held for one run: arrays made through its [`PropertyArrays`]
/// come from it (when one of its slots fits). When dropped, the slots no array holds
/// go back to the system; those that do go back with their arrays.
pub struct PropertyReservation {
    arrays: PropertyArrays,
}

impl PropertyReservation {
    /// The handle the run's kernel makes its arrays through.
    pub fn arrays(&self) -> &PropertyArrays {
        &self.arrays
    }
}

impl Drop for PropertyReservation {
    fn drop(&mut self) {
        if let Some(pool) = &self.arrays.run.pool {
            pool.release_free_slots();
        }
    }
}

/// Maps and faults in memory for property arrays of `array_bytes` each (a kernel's
/// declared arrays), the first `huge_page_fraction` (0..=1) of each advised to use
/// huge pages, so that the arrays the run makes afterwards use it instead of memory
/// taken after the graph was loaded. Arrays made from the heap get the same advice.
pub fn reserve(
    array_bytes: &[u64],
    huge_page_fraction: f64,
) -> std::io::Result<PropertyReservation> {
    let huge_pages = HugePageAdvice {
        fraction: huge_page_fraction.clamp(0.0, 1.0),
        advised_bytes: AtomicU64::new(0),
    };
    let pool = match array_bytes.iter().all(|&bytes| bytes == 0) {
        true => None,
        false => Some(Arc::new(Pool::map(array_bytes, &huge_pages)?)),
    };
    Ok(PropertyReservation {
        arrays: PropertyArrays {
            run: Arc::new(RunArrays {
                pool,
                huge_pages,
                unreserved_bytes: AtomicU64::new(0),
            }),
        },
    })
}

/// Where a [`PropertyVec`]'s values live, and so how they are given back.
enum Owner<T> {
    /// A slot of the reserved pool.
    Pool { pool: Arc<Pool>, slot: usize },
    /// An ordinary allocation (no reservation, or no slot fitted); `start` points into
    /// its buffer. Taken out (left empty) when the array becomes a plain `Vec`.
    Heap(Vec<T>),
}

/// A fixed-length array of per-vertex values: in a slot of its run's reservation when one
/// is held and fits, else on the heap.
pub struct PropertyVec<T> {
    /// First value; cached so that indexing costs no branch on where the values live.
    start: std::ptr::NonNull<T>,
    len: usize,
    owner: Owner<T>,
}

// SAFETY: a PropertyVec owns its values exclusively, like a Vec; the pool it may borrow
// a slot from is itself only touched under a mutex.
unsafe impl<T: Send> Send for PropertyVec<T> {}
// SAFETY: shared access hands out only `&[T]`, so it is as safe to share as `[T]`.
unsafe impl<T: Sync> Sync for PropertyVec<T> {}

impl<T> std::ops::Deref for PropertyVec<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: `start` points at `len` initialized values that this array owns (its
        // pool slot or its Vec's buffer, which does not move when the Vec does).
        unsafe { std::slice::from_raw_parts(self.start.as_ptr(), self.len) }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for PropertyVec<T> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(formatter)
    }
}

impl<T: PartialEq, Other: std::ops::Deref<Target = [T]>> PartialEq<Other> for PropertyVec<T> {
    fn eq(&self, other: &Other) -> bool {
        **self == **other
    }
}

impl<'a, T> IntoIterator for &'a PropertyVec<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Copy> From<PropertyVec<T>> for Vec<T> {
    /// A copy that releases the array's memory as it goes (see [`PropertyVec::into_vec`]).
    fn from(values: PropertyVec<T>) -> Vec<T> {
        values.into_vec(|value| *value)
    }
}

impl<T> std::ops::DerefMut for PropertyVec<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` makes this the only access.
        unsafe { std::slice::from_raw_parts_mut(self.start.as_ptr(), self.len) }
    }
}

impl<T> PropertyVec<T> {
    /// The values converted by `convert`, as a plain vector. From the heap this reuses
    /// the buffer when the sizes match; from the pool it copies 2 MiB at a time and
    /// hands each copied range back to the system, so the copy never holds twice the
    /// array (the slot's pages fault in again, with the same advice, when next lent).
    pub fn into_vec<U>(mut self, convert: impl Fn(&T) -> U) -> Vec<U> {
        if let Owner::Heap(values) = &mut self.owner {
            let values = std::mem::take(values);
            self.len = 0;
            return values.into_iter().map(|value| convert(&value)).collect();
        }
        let per_range = (HUGE_PAGE / std::mem::size_of::<T>().max(1)).max(1);
        let mut plain = Vec::with_capacity(self.len);
        for (index, range) in self.chunks(per_range).enumerate() {
            plain.extend(range.iter().map(&convert));
            let first = self.start.as_ptr() as usize + index * per_range * std::mem::size_of::<T>();
            let whole_pages = std::mem::size_of_val(range) / 4096 * 4096;
            // SAFETY: the range is part of this array's own slot; its values need no drop
            // (only such are lent slots), were copied out and are never read again (the
            // slot is given back on drop, and the next array writes before it reads).
            unsafe { libc::madvise(first as *mut libc::c_void, whole_pages, libc::MADV_DONTNEED) };
        }
        plain
    }

    /// The same memory holding each value converted by `convert`, without a copy (a
    /// result leaves a kernel where it was computed).
    ///
    /// # Safety
    /// `T` and `U` have the same size, `T`'s alignment is at least `U`'s, `U` needs no
    /// drop, and `convert` returns the value whose bytes are those of its argument.
    unsafe fn convert_in_place<U>(self, convert: impl Fn(&T) -> U) -> PropertyVec<U> {
        let this = std::mem::ManuallyDrop::new(self);
        let len = this.len;
        // SAFETY: `this` is never used or dropped again, so the owner is moved out once.
        let owner = unsafe { std::ptr::read(&this.owner) };
        match owner {
            Owner::Heap(values) => {
                // Same size and alignment: the standard library collects in place.
                let mut values: Vec<U> = values.into_iter().map(|value| convert(&value)).collect();
                PropertyVec {
                    start: std::ptr::NonNull::new(values.as_mut_ptr())
                        .expect("a Vec's buffer is never null"),
                    len,
                    owner: Owner::Heap(values),
                }
            }
            Owner::Pool { pool, slot } => PropertyVec {
                // The caller vouches that every `T` here reads as the `U` it converts to.
                start: this.start.cast::<U>(),
                len,
                owner: Owner::Pool { pool, slot },
            },
        }
    }
}

impl<T> Drop for PropertyVec<T> {
    fn drop(&mut self) {
        // Only values that need no drop are lent slots, so giving the slot back is all.
        if let Owner::Pool { pool, slot } = &self.owner {
            pool.give_back(*slot);
        }
    }
}

/// A property array of `len` values made by `make`: in a slot of the run's reservation
/// when one fits, else on the heap with the run's huge-page advice applied before the
/// pages are first touched.
pub fn property_vec<T>(
    arrays: &PropertyArrays,
    len: usize,
    make: impl Fn() -> T,
) -> PropertyVec<T> {
    let bytes = len * std::mem::size_of::<T>();
    let run = &*arrays.run;
    let pool = run.pool.clone();
    // Slots take plain values (atomics, numbers): nothing to drop, and no alignment above
    // a page, the least a slot starts on.
    let fits = !std::mem::needs_drop::<T>() && std::mem::align_of::<T>() <= 4096 && bytes > 0;
    let reserved = pool.is_some();
    if let Some(pool) = pool.filter(|_| fits)
        && let Some(slot) = pool.lend(bytes)
    {
        let start = pool.slots[slot].0 as *mut T;
        // SAFETY: the slot is lent to this array alone, starts on a page (at least T's
        // alignment, by `fits`) and is at least `bytes` long; each value is written
        // before it is read.
        unsafe {
            for index in 0..len {
                start.add(index).write(make());
            }
        }
        return PropertyVec {
            start: std::ptr::NonNull::new(start).expect("pool slots are never null"),
            len,
            owner: Owner::Pool { pool, slot },
        };
    }
    if reserved {
        run.unreserved_bytes
            .fetch_add(bytes as u64, Ordering::Relaxed);
    }
    let mut values: Vec<T> = Vec::with_capacity(len);
    // Advise before the first write, so the first touch already faults in huge pages.
    run.huge_pages.advise(values.spare_capacity_mut());
    values.extend((0..len).map(|_| make()));
    PropertyVec {
        start: std::ptr::NonNull::new(values.as_mut_ptr()).expect("a Vec's buffer is never null"),
        len,
        owner: Owner::Heap(values),
    }
}

/// Asks the CPU to start loading `values[index]` into cache, so that a loop reading a
/// property array at random has the next reads in flight (a measurable gain for
/// PageRank prefetching 64 entries ahead). A hint: out of range is ignored.
#[inline]
pub fn prefetch<T>(values: &[T], index: usize) {
    if let Some(entry) = values.get(index) {
        swapless_store::prefetch(entry);
    }
}

/// An array of `u32` per vertex.
pub struct U32Array(PropertyVec<AtomicU32>);

impl U32Array {
    /// The cells themselves, for a checkpoint to save and restore.
    pub fn cells(&self) -> &[AtomicU32] {
        &self.0
    }
    /// `vertices` entries, all `value`, made through the run's `arrays`.
    pub fn filled(arrays: &PropertyArrays, vertices: usize, value: u32) -> U32Array {
        U32Array(property_vec(arrays, vertices, || AtomicU32::new(value)))
    }
    /// Asks the CPU to start loading entry `index` into cache (see [`prefetch`]).
    #[inline]
    pub fn prefetch(&self, index: u32) {
        prefetch(&self.0, index as usize);
    }
    /// Entry `index`.
    #[inline]
    pub fn get(&self, index: u32) -> u32 {
        self.0[index as usize].load(Ordering::Relaxed)
    }
    /// Sets entry `index`.
    #[inline]
    pub fn set(&self, index: u32, value: u32) {
        self.0[index as usize].store(value, Ordering::Relaxed)
    }
    /// Subtracts `value` from entry `index`; the entry before.
    #[inline]
    pub fn fetch_sub(&self, index: u32, value: u32) -> u32 {
        self.0[index as usize].fetch_sub(value, Ordering::Relaxed)
    }
    /// Adds `value` to entry `index`; the entry before.
    #[inline]
    pub fn fetch_add(&self, index: u32, value: u32) -> u32 {
        self.0[index as usize].fetch_add(value, Ordering::Relaxed)
    }
    /// Sets entry `index` to `new` if it is `current`; whether it did.
    #[inline]
    pub fn compare_exchange(&self, index: u32, current: u32, new: u32) -> bool {
        self.0[index as usize]
            .compare_exchange(current, new, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The values, consuming the array (in place: no copy).
    pub fn into_values(self) -> PropertyVec<u32> {
        // SAFETY: AtomicU32 has the size and bit validity of u32 and at least its
        // alignment; u32 needs no drop, and `into_inner`'s value has the same bytes.
        unsafe {
            self.0
                .convert_in_place(|value| value.load(Ordering::Relaxed))
        }
    }
}

/// An array of `f32` per vertex, stored as bits.
pub struct F32Array(PropertyVec<AtomicU32>);

impl F32Array {
    /// The cells themselves, for a checkpoint to save and restore.
    pub fn cells(&self) -> &[AtomicU32] {
        &self.0
    }
    /// `vertices` entries, all `value`, made through the run's `arrays`.
    pub fn filled(arrays: &PropertyArrays, vertices: usize, value: f32) -> F32Array {
        F32Array(property_vec(arrays, vertices, || {
            AtomicU32::new(value.to_bits())
        }))
    }
    /// Entry `index`.
    #[inline]
    pub fn get(&self, index: u32) -> f32 {
        f32::from_bits(self.0[index as usize].load(Ordering::Relaxed))
    }
    /// Asks the CPU to start loading entry `index` into cache (see [`prefetch`]).
    #[inline]
    pub fn prefetch(&self, index: u32) {
        prefetch(&self.0, index as usize);
    }
    /// Sets entry `index`.
    #[inline]
    pub fn set(&self, index: u32, value: f32) {
        self.0[index as usize].store(value.to_bits(), Ordering::Relaxed)
    }
    /// The values, consuming the array (in place: no copy).
    pub fn into_values(self) -> PropertyVec<f32> {
        // SAFETY: AtomicU32 has the size of f32 and at least its alignment, every bit
        // pattern is some f32, f32 needs no drop, and `from_bits` keeps the bytes.
        unsafe {
            self.0
                .convert_in_place(|bits| f32::from_bits(bits.load(Ordering::Relaxed)))
        }
    }
}

/// An array of `f64` per vertex, stored as bits.
pub struct F64Array(PropertyVec<AtomicU64>);

/// Adds `value` to the f64 whose bits `cell` holds, as threads race to.
#[inline]
pub fn add_f64(cell: &AtomicU64, value: f64) {
    let mut current = cell.load(Ordering::Relaxed);
    loop {
        let sum = (f64::from_bits(current) + value).to_bits();
        match cell.compare_exchange_weak(current, sum, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return,
            Err(seen) => current = seen,
        }
    }
}

impl F64Array {
    /// The cells themselves, for a checkpoint to save and restore.
    pub fn cells(&self) -> &[AtomicU64] {
        &self.0
    }
    /// `vertices` entries, all `value`, made through the run's `arrays`.
    pub fn filled(arrays: &PropertyArrays, vertices: usize, value: f64) -> F64Array {
        F64Array(property_vec(arrays, vertices, || {
            AtomicU64::new(value.to_bits())
        }))
    }
    /// Asks the CPU to start loading entry `index` into cache (see [`prefetch`]).
    #[inline]
    pub fn prefetch(&self, index: u32) {
        prefetch(&self.0, index as usize);
    }
    /// Entry `index`.
    #[inline]
    pub fn get(&self, index: u32) -> f64 {
        f64::from_bits(self.0[index as usize].load(Ordering::Relaxed))
    }
    /// Sets entry `index`.
    #[inline]
    pub fn set(&self, index: u32, value: f64) {
        self.0[index as usize].store(value.to_bits(), Ordering::Relaxed)
    }
    /// Adds `value` to entry `index`.
    #[inline]
    pub fn fetch_add(&self, index: u32, value: f64) {
        add_f64(&self.0[index as usize], value)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The values, consuming the array (in place: no copy).
    pub fn into_values(self) -> PropertyVec<f64> {
        // SAFETY: AtomicU64 has the size of f64 and at least its alignment, every bit
        // pattern is some f64, f64 needs no drop, and `from_bits` keeps the bytes.
        unsafe {
            self.0
                .convert_in_place(|bits| f64::from_bits(bits.load(Ordering::Relaxed)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `VmFlags` line of the mapping in /proc/self/smaps that holds `address`.
    fn mapping_flags(address: usize) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            if let Some((start, end)) = first.split_once('-')
                && let (Ok(start), Ok(end)) = (
                    usize::from_str_radix(start, 16),
                    usize::from_str_radix(end, 16),
                )
            {
                inside = (start..end).contains(&address);
            } else if inside && let Some(flags) = line.strip_prefix("VmFlags:") {
                return Some(flags.to_string());
            }
        }
        None
    }

    #[test]
    fn the_advised_prefix_of_a_property_array_is_marked_for_huge_pages() {
        let enabled = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        if enabled.is_empty() || enabled.contains("[never]") {
            eprintln!("transparent huge pages are off on this machine; nothing to advise");
            return;
        }
        // A run that reserves nothing still advises the arrays it makes from the heap.
        let reservation = reserve(&[], 0.5).unwrap();
        let arrays = reservation.arrays();
        // 16 MiB: at least 6 whole 2 MiB pages lie in the first half.
        let values = F64Array::filled(arrays, 2 << 20, 0.0);
        let advised = arrays.huge_page_advised_bytes();
        assert!(advised >= 6 << 20, "only {advised} bytes advised");
        let start = values.0.as_ptr() as usize;
        let first_huge_page = start.next_multiple_of(2 << 20);
        let flags = mapping_flags(first_huge_page).expect("the array is mapped");
        assert!(
            flags.split_whitespace().any(|flag| flag == "hg"),
            "the first half is not advised: {flags}"
        );
        // The second half is not advised: its last page sits in a mapping without `hg`.
        let last = start + values.len() * 8 - 1;
        let flags = mapping_flags(last).expect("the array is mapped");
        assert!(!flags.split_whitespace().any(|flag| flag == "hg"));
    }
}
