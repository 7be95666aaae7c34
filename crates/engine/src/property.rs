//! Vertex property arrays that parallel callbacks read and write without locks.
//! Relaxed atomics compile to plain loads and stores on x86, so they cost nothing
//! over raw arrays while keeping the kernels free of `unsafe`.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// An array of `u32` per vertex.
pub struct U32Array(Vec<AtomicU32>);

impl U32Array {
    /// `vertices` entries, all `value`.
    pub fn filled(vertices: usize, value: u32) -> U32Array {
        U32Array((0..vertices).map(|_| AtomicU32::new(value)).collect())
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
    /// The values, consuming the array.
    pub fn into_vec(self) -> Vec<u32> {
        self.0.into_iter().map(AtomicU32::into_inner).collect()
    }
}

/// An array of `f64` per vertex, stored as bits.
pub struct F64Array(Vec<AtomicU64>);

impl F64Array {
    /// `vertices` entries, all `value`.
    pub fn filled(vertices: usize, value: f64) -> F64Array {
        F64Array(
            (0..vertices)
                .map(|_| AtomicU64::new(value.to_bits()))
                .collect(),
        )
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
        let slot = &self.0[index as usize];
        let mut current = slot.load(Ordering::Relaxed);
        loop {
            let sum = (f64::from_bits(current) + value).to_bits();
            match slot.compare_exchange_weak(current, sum, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return,
                Err(seen) => current = seen,
            }
        }
    }

    /// Lowers entry `index` to `value` if smaller; whether it did.
    #[inline]
    pub fn fetch_min(&self, index: u32, value: f64) -> bool {
        let slot = &self.0[index as usize];
        let mut current = slot.load(Ordering::Relaxed);
        while value < f64::from_bits(current) {
            match slot.compare_exchange_weak(
                current,
                value.to_bits(),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(seen) => current = seen,
            }
        }
        false
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The values, consuming the array.
    pub fn into_vec(self) -> Vec<f64> {
        self.0
            .into_iter()
            .map(|bits| f64::from_bits(bits.into_inner()))
            .collect()
    }
}
