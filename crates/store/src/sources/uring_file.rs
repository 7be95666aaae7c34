//! The graph file read through io_uring, with `O_DIRECT` where the file system allows
//! it (so the page cache holds no second copy and the budget covers every byte), into
//! an arena registered with the ring.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use io_uring::{IoUring, opcode, types};

use super::{PageQueue, PageSource, QueueFailure, read_at_least};
use crate::aligned::AlignedBuffer;
use crate::error::IoUringFailure;
use crate::{Result, StoreError};

/// Why this process may not use io_uring, or `None` when it may: a seccomp filter (as
/// container runtimes install) or the `kernel.io_uring_disabled` sysctl refuses the ring
/// the direct tier reads through. Sets up and drops a ring of 8 entries.
pub fn io_uring_refusal() -> Option<std::io::Error> {
    IoUring::new(8).err()
}

/// The graph file, for reads through io_uring.
pub(crate) struct UringFile {
    path: PathBuf,
    file: File,
    direct_io: bool,
}

impl UringFile {
    /// Opens `path` with `O_DIRECT`, or without it on file systems that refuse it
    /// (tmpfs, some overlays), which then read through the page cache.
    pub(crate) fn open(path: &Path) -> Result<UringFile> {
        let (file, direct_io) = match std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(path)
        {
            Ok(file) => (file, true),
            Err(_) => (
                File::open(path).map_err(|source| StoreError::Io {
                    path: path.to_path_buf(),
                    source,
                })?,
                false,
            ),
        };
        Ok(UringFile {
            path: path.to_path_buf(),
            file,
            direct_io,
        })
    }
}

impl PageSource for UringFile {
    fn path(&self) -> &Path {
        &self.path
    }

    fn direct_io(&self) -> bool {
        self.direct_io
    }

    fn read_now(&self, buffer: &mut [u8], position: u64, needed: usize) -> Result<()> {
        read_at_least(&self.file, buffer, position, needed).map_err(|source| StoreError::Io {
            path: self.path.clone(),
            source,
        })
    }

    fn queue(&self, arena: &AlignedBuffer, entries: u32) -> Result<Box<dyn PageQueue>> {
        let ring = IoUring::new(entries).map_err(|source| StoreError::IoUring {
            path: self.path.clone(),
            failure: IoUringFailure::Unavailable(source),
        })?;
        let region = libc::iovec {
            iov_base: arena.as_mut_ptr().cast(),
            iov_len: arena.len(),
        };
        // SAFETY: the arena outlives the ring (the pipeline keeps both and drops the
        // queue first, which unregisters it); reads only ever target its slots.
        let registered = unsafe { ring.submitter().register_buffers(&[region]) }.is_ok();
        Ok(Box::new(UringQueue {
            ring,
            fd: types::Fd(self.file.as_raw_fd()),
            registered,
            path: self.path.clone(),
        }))
    }
}

/// A ring over the file: the pipeline's reads in flight.
struct UringQueue {
    ring: IoUring,
    /// The file's descriptor; the source that owns the file outlives the queue.
    fd: types::Fd,
    /// Whether the arena is registered with the ring (reads then use fixed buffers).
    registered: bool,
    path: PathBuf,
}

impl PageQueue for UringQueue {
    unsafe fn submit(
        &mut self,
        tag: u64,
        destination: *mut u8,
        length: u32,
        position: u64,
    ) -> Result<()> {
        let entry = if self.registered {
            opcode::ReadFixed::new(self.fd, destination, length, 0)
                .offset(position)
                .build()
        } else {
            opcode::Read::new(self.fd, destination, length)
                .offset(position)
                .build()
        };
        // SAFETY: the caller keeps the destination to this read alone until its
        // completion is reaped, inside an arena that outlives the ring.
        match unsafe { self.ring.submission().push(&entry.user_data(tag)) } {
            Ok(()) => Ok(()),
            Err(_) => Err(StoreError::Io {
                path: self.path.clone(),
                source: std::io::Error::other("the submission queue is full"),
            }),
        }
    }

    fn complete(
        &mut self,
        wanted: usize,
        completions: &mut Vec<(u64, i32)>,
    ) -> std::result::Result<(), QueueFailure> {
        loop {
            match self.ring.submit_and_wait(wanted) {
                Ok(_) => break,
                Err(error)
                    if matches!(
                        error.raw_os_error(),
                        Some(libc::EINTR) | Some(libc::EAGAIN) | Some(libc::EBUSY)
                    ) => {}
                // Reads already submitted may still land in the arena. This never
                // happens on a working kernel.
                Err(error) => {
                    return Err(QueueFailure(StoreError::IoUring {
                        path: self.path.clone(),
                        failure: IoUringFailure::Stopped(error),
                    }));
                }
            }
        }
        completions.extend(
            self.ring
                .completion()
                .map(|entry| (entry.user_data(), entry.result())),
        );
        Ok(())
    }
}
