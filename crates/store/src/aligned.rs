//! Page-aligned buffers, as `O_DIRECT` reads require.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ptr::NonNull;

use crate::layout::PAGE;

/// A zeroed, page-aligned, fixed-size byte buffer. Its pages are untouched (and so
/// not resident) until written.
pub(crate) struct AlignedBuffer {
    pointer: NonNull<u8>,
    layout: Layout,
}

// SAFETY: the buffer owns its allocation exclusively, like a Box<[u8]>.
unsafe impl Send for AlignedBuffer {}
// SAFETY: shared references only read, like &[u8].
unsafe impl Sync for AlignedBuffer {}

impl AlignedBuffer {
    /// A buffer of at least `bytes` (rounded up to whole pages, at least one page).
    pub fn zeroed(bytes: u64) -> AlignedBuffer {
        let size = (bytes.max(1).div_ceil(PAGE) * PAGE) as usize;
        let layout = Layout::from_size_align(size, PAGE as usize)
            .unwrap_or_else(|_| panic!("a buffer of {size} bytes cannot be laid out"));
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc_zeroed(layout) };
        let pointer = NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        AlignedBuffer { pointer, layout }
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.layout.size()
    }

    /// The start, for handing to the kernel.
    pub fn as_mut_ptr(&self) -> *mut u8 {
        self.pointer.as_ptr()
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: the allocation is `len` initialized (zeroed) bytes that live as long as self.
        unsafe { std::slice::from_raw_parts(self.pointer.as_ptr(), self.len()) }
    }

    /// The bytes, writable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in as_slice, and &mut self makes this the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.pointer.as_ptr(), self.len()) }
    }
}

impl Drop for AlignedBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this very layout.
        unsafe { dealloc(self.pointer.as_ptr(), self.layout) }
    }
}
