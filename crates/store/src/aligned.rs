//! Page-aligned buffers, as `O_DIRECT` reads require.

use std::ptr::NonNull;

use memmap2::MmapMut;

use crate::StoreError;
use crate::units::{HUGE_PAGE, PAGE};

/// A zeroed, page-aligned, fixed-size byte buffer. Its pages are untouched (and so
/// not resident) until written.
///
/// An anonymous map rather than the allocator: Rust's `alloc_zeroed` clears by hand any
/// allocation aligned past 16 bytes, which faulted in and wrote every page of a pinned
/// prefix before the reads overwrote it.
pub struct AlignedBuffer {
    map: MmapMut,
    pointer: NonNull<u8>,
}

// SAFETY: the buffer owns its map exclusively, like a Box<[u8]>.
unsafe impl Send for AlignedBuffer {}
// SAFETY: shared references only read, like &[u8].
unsafe impl Sync for AlignedBuffer {}

impl AlignedBuffer {
    /// A buffer of at least `bytes` (rounded up to whole pages, at least one page); an
    /// error when the system refuses the map (an address-space limit, overcommit).
    pub fn zeroed(bytes: u64) -> Result<AlignedBuffer, StoreError> {
        let size = (bytes.max(1).div_ceil(PAGE) * PAGE) as usize;
        let mut map = MmapMut::map_anon(size).map_err(|source| StoreError::NoMemory {
            bytes: size as u64,
            source,
        })?;
        if size >= HUGE_PAGE {
            // Reads land in few, large, physically contiguous pieces: an O_DIRECT read of
            // 256 KiB is one segment instead of 64, which the host of a virtual disk
            // handles with less of the CPU it takes from the guest. Best effort: the
            // buffer works on small pages too, and never holds more than its size.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        // mmap never places a map at address 0 unless asked to (MAP_FIXED).
        let pointer = NonNull::new(map.as_mut_ptr()).ok_or_else(|| StoreError::NoMemory {
            bytes: size as u64,
            source: std::io::Error::other("the map was placed at address 0"),
        })?;
        Ok(AlignedBuffer { map, pointer })
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The start, for handing to the kernel (io_uring writes reads into it while
    /// the buffer is shared).
    pub fn as_mut_ptr(&self) -> *mut u8 {
        self.pointer.as_ptr()
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.map
    }

    /// The bytes, writable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_the_system_refuses_is_an_error_that_says_what_to_do() {
        // More than any x86-64 or arm64 address space holds.
        let refused = AlignedBuffer::zeroed(1 << 60).err().expect("an error");
        let message = refused.to_string();
        assert!(matches!(refused, StoreError::NoMemory { .. }), "{message}");
        assert!(message.contains("the system refused"), "{message}");
        let buffer = AlignedBuffer::zeroed(5000).unwrap();
        assert_eq!(buffer.len(), 8192);
    }
}
