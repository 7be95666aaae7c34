//! The graph file read with plain `pread`s through the page cache: the pipeline's
//! reference in the store's tests, compiled for them only (where io_uring is refused,
//! the plan picks the mmap tier, so no run reads through this). Its queue reads each
//! request when the pipeline waits for completions, on the I/O thread, so one read is
//! in flight at a time.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{PageQueue, PageSource, QueueFailure, read_at_least, read_some};
use crate::aligned::AlignedBuffer;
use crate::{Result, StoreError};

/// The graph file, for buffered reads.
pub(crate) struct BufferedFile {
    path: PathBuf,
    file: Arc<File>,
}

impl BufferedFile {
    /// Opens `path` for buffered reads.
    pub(crate) fn open(path: &Path) -> Result<BufferedFile> {
        let file = File::open(path).map_err(|source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(BufferedFile {
            path: path.to_path_buf(),
            file: Arc::new(file),
        })
    }
}

impl PageSource for BufferedFile {
    fn path(&self) -> &Path {
        &self.path
    }

    fn direct_io(&self) -> bool {
        false
    }

    fn read_now(&self, buffer: &mut [u8], position: u64, needed: usize) -> Result<()> {
        read_at_least(&self.file, buffer, position, needed).map_err(|source| StoreError::Io {
            path: self.path.clone(),
            source,
        })
    }

    fn queue(&self, _arena: &AlignedBuffer, _entries: u32) -> Result<Box<dyn PageQueue>> {
        Ok(Box::new(BufferedQueue {
            file: self.file.clone(),
            queued: Vec::new(),
        }))
    }
}

/// Reads queued until the pipeline asks for completions.
struct BufferedQueue {
    file: Arc<File>,
    /// (tag, destination address, length, position).
    queued: Vec<(u64, usize, u32, u64)>,
}

impl PageQueue for BufferedQueue {
    unsafe fn submit(
        &mut self,
        tag: u64,
        destination: *mut u8,
        length: u32,
        position: u64,
    ) -> Result<()> {
        self.queued
            .push((tag, destination as usize, length, position));
        Ok(())
    }

    fn complete(
        &mut self,
        _wanted: usize,
        completions: &mut Vec<(u64, i32)>,
    ) -> std::result::Result<(), QueueFailure> {
        for (tag, destination, length, position) in self.queued.drain(..) {
            // SAFETY: `submit`'s contract: the destination is this read's alone, inside
            // the arena, until the completion below is reaped.
            let buffer =
                unsafe { std::slice::from_raw_parts_mut(destination as *mut u8, length as usize) };
            let result = match read_some(&self.file, buffer, position) {
                Ok(bytes) => bytes as i32,
                Err(error) => -error.raw_os_error().unwrap_or(libc::EIO),
            };
            completions.push((tag, result));
        }
        Ok(())
    }
}
