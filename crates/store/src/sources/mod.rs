//! Where the read pipeline's pages come from, behind one small public trait: a source
//! reads aligned byte ranges of the graph's sections now, on the calling thread, or
//! through a queue that keeps many in flight and reports them as they complete. The
//! pipeline (planning, coalescing, slots, delivery, the pinned prefix, page checks)
//! knows nothing else of a source. This crate has one, the file through io_uring; a
//! source elsewhere (the `swapless-far` crate's Redis client) implements the same
//! trait and reaches the pipeline through [`crate::DirectStore::over`], as the graph
//! origin it belongs to chooses (see [`crate::origin`]).

#[cfg(test)]
mod buffered_file;
mod uring_file;

use std::path::Path;

pub(crate) use uring_file::UringFile;
pub use uring_file::io_uring_refusal;

#[cfg(test)]
pub(crate) use buffered_file::BufferedFile;

use crate::Result;
use crate::aligned::AlignedBuffer;

/// A place the graph's pages can be read from.
pub trait PageSource: Send + Sync {
    /// The local file that holds the graph's header, offsets and checksums (the graph
    /// itself, or a far graph's local cache of its vertex sections).
    fn path(&self) -> &Path;
    /// The graph as the user named it, for errors (by default the file's path).
    fn shown(&self) -> String {
        self.path().display().to_string()
    }
    /// Whether reads bypass the page cache (`O_DIRECT`).
    fn direct_io(&self) -> bool;
    /// Whether its bytes may change during a run with nothing to notice it (a far
    /// value, which any client of the server can rewrite; a file has a change watch):
    /// then every page is checked each time it lands, not only the first time.
    fn may_change_unnoticed(&self) -> bool {
        false
    }
    /// Reads `buffer.len()` bytes at `position` into `buffer` on the calling thread;
    /// at least `needed` must arrive (a section's last page may end the file early).
    fn read_now(&self, buffer: &mut [u8], position: u64, needed: usize) -> Result<()>;
    /// A queue that reads into `arena` with up to `entries` requests in flight: set up
    /// once, used by one call at a time.
    fn queue(&self, arena: &AlignedBuffer, entries: u32) -> Result<Box<dyn PageQueue>>;
    /// Reads pages that failed their checksums again from a second copy of the graph
    /// (a far graph's fallback file), at least `needed` bytes at `position`; false when
    /// the source has no second copy, and the failure stands.
    fn read_second_copy(&self, _buffer: &mut [u8], _position: u64, _needed: usize) -> Result<bool> {
        Ok(false)
    }
}

/// A source's reads in flight.
pub trait PageQueue: Send {
    /// Queues a read of `length` bytes at `position` into `destination`, tagged `tag`
    /// for its completion.
    ///
    /// # Safety
    /// `destination..destination + length` lies inside the arena the queue was made
    /// for, and nothing else reads or writes it until the read's completion is reaped.
    unsafe fn submit(
        &mut self,
        tag: u64,
        destination: *mut u8,
        length: u32,
        position: u64,
    ) -> Result<()>;
    /// Starts every queued read and waits until at least `wanted` have completed (all
    /// of them when fewer are in flight); appends each completion as (tag, bytes read,
    /// or a negated `errno`).
    fn complete(
        &mut self,
        wanted: usize,
        completions: &mut Vec<(u64, i32)>,
    ) -> std::result::Result<(), QueueFailure>;
}

/// A queue that failed while reads were in flight: they may still land in the arena,
/// so the caller must never free it (nor the queue).
#[derive(Debug)]
pub struct QueueFailure(pub crate::StoreError);

/// Reads at least `needed` bytes at `position` into `buffer` (a page-aligned length,
/// so the last read may stop short at the end of the file).
pub fn read_at_least(
    file: &std::fs::File,
    buffer: &mut [u8],
    position: u64,
    needed: usize,
) -> std::io::Result<()> {
    match read_some(file, buffer, position)? < needed {
        true => Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the file ended early; was it truncated while the graph was in use?",
        )),
        false => Ok(()),
    }
}

/// Reads as much of `buffer` as the file holds at `position` (short at its end).
pub fn read_some(file: &std::fs::File, buffer: &mut [u8], position: u64) -> std::io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let mut done = 0;
    while done < buffer.len() {
        match file.read_at(&mut buffer[done..], position + done as u64) {
            Ok(0) => break,
            Ok(read) => done += read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(done)
}
