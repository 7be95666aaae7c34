//! What a build's journal records of its input file, so that a resumed build reuses its
//! runs only when the input is the one they were sorted from.
//!
//! Length and modification time alone are fooled by an edit in place whose time is put
//! back (`touch -r`). The change time is not (no call sets it), and a hash of the bytes
//! the kept runs were read from, checked by reading them again, is not fooled by
//! anything short of a hash collision: reading a prefix again costs less than sorting it.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use crate::{BuildError, Result};

/// Bytes read at a time while hashing the input.
const HASH_BUFFER_BYTES: usize = 1 << 20;

/// The input file's identity and times when its build began.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct InputStamp {
    /// The device and inode: another file put at the path has others.
    pub device: u64,
    pub inode: u64,
    /// Its length.
    pub bytes: u64,
    /// Its modification time (seconds, nanoseconds).
    pub modified: (i64, i64),
    /// Its change time (seconds, nanoseconds): moved by every write, set by no call.
    pub changed: (i64, i64),
}

impl InputStamp {
    /// The stamp of the file at `path`.
    pub fn of(path: &Path) -> Result<InputStamp> {
        let metadata = std::fs::metadata(path).map_err(|source| BuildError::io(path, source))?;
        Ok(InputStamp {
            device: metadata.dev(),
            inode: metadata.ino(),
            bytes: metadata.size(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
        })
    }
}

/// A running xxh3 of the input file's first bytes, advanced at each spill to the bytes
/// read so far (the input was just read, so these come from the page cache).
pub(crate) struct InputHasher {
    path: PathBuf,
    file: File,
    hasher: Xxh3,
    /// Bytes hashed so far.
    hashed: u64,
}

impl InputHasher {
    /// A hasher of the file at `path`, at its start.
    pub fn open(path: &Path) -> Result<InputHasher> {
        let file = File::open(path).map_err(|source| BuildError::io(path, source))?;
        Ok(InputHasher {
            path: path.to_path_buf(),
            file,
            hasher: Xxh3::new(),
            hashed: 0,
        })
    }

    /// The hash of the file's first `bytes` bytes (never fewer than hashed before);
    /// `None` when the file ends sooner.
    pub fn hash_to(&mut self, bytes: u64) -> Result<Option<u64>> {
        let io = |source| BuildError::io(&self.path, source);
        self.file.seek(SeekFrom::Start(self.hashed)).map_err(io)?;
        let mut buffer = vec![0u8; HASH_BUFFER_BYTES];
        while self.hashed < bytes {
            let want = (bytes - self.hashed).min(HASH_BUFFER_BYTES as u64) as usize;
            let read = match self.file.read(&mut buffer[..want]) {
                Ok(0) => return Ok(None),
                Ok(read) => read,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(io(error)),
            };
            self.hasher.update(&buffer[..read]);
            self.hashed += read as u64;
        }
        Ok(Some(self.hasher.digest()))
    }

    /// Bytes hashed so far.
    pub fn hashed(&self) -> u64 {
        self.hashed
    }
}
