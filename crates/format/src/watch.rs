//! Notices a graph file that changes while it is read.
//!
//! A run checks each page of the file against its checksum once, the first time it
//! reads it; a write into the file afterwards (`dd conv=notrunc`, a careless copy
//! over it) would go unseen and the run would return an answer from two files. The
//! file's identity and times, taken at open and compared after each pass and before a
//! result is returned, close that gap: a write in place moves the modification and
//! change times, a rename over the path gives the path another inode.

use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::{FormatError, Result};

/// What identifies a file's contents without reading them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Identity {
    device: u64,
    inode: u64,
    size: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

impl Identity {
    fn of(metadata: &std::fs::Metadata) -> Identity {
        Identity {
            device: metadata.dev(),
            inode: metadata.ino(),
            size: metadata.size(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
        }
    }

    /// The first fact that differs from `before`, named for the message.
    fn difference(&self, before: &Identity) -> Option<&'static str> {
        if (self.device, self.inode) != (before.device, before.inode) {
            Some("inode (another file was put in its place)")
        } else if self.size != before.size {
            Some("size")
        } else if self.modified != before.modified {
            Some("modification time")
        } else if self.changed != before.changed {
            Some("change time")
        } else {
            None
        }
    }
}

/// A graph file held open with the identity it had when opened.
pub struct FileWatch {
    path: PathBuf,
    file: File,
    opened: Identity,
}

impl FileWatch {
    /// Opens `path` and notes its identity.
    pub fn open(path: &Path) -> Result<FileWatch> {
        let file = File::open(path).map_err(|source| FormatError::io(path, source))?;
        let metadata = file
            .metadata()
            .map_err(|source| FormatError::io(path, source))?;
        Ok(FileWatch {
            path: path.to_path_buf(),
            file,
            opened: Identity::of(&metadata),
        })
    }

    /// Fails with [`FormatError::ChangedDuringRead`] if the open file was written, or
    /// the path now names another file, since [`FileWatch::open`].
    pub fn unchanged(&self) -> Result<()> {
        let io = |source| FormatError::io(&self.path, source);
        let now = Identity::of(&self.file.metadata().map_err(io)?);
        let at_path = std::fs::metadata(&self.path).map(|metadata| Identity::of(&metadata));
        // The path first: a file put in its place also moves the old one's change time.
        let difference = match &at_path {
            Ok(at_path) => at_path.difference(&self.opened),
            Err(_) => Some("path (the file was removed or moved)"),
        }
        .or_else(|| now.difference(&self.opened));
        match difference {
            None => Ok(()),
            Some(what) => Err(FormatError::ChangedDuringRead {
                path: self.path.clone(),
                what,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    /// Each case changes the file one way; every one must be noticed.
    #[test]
    fn every_kind_of_change_is_noticed() {
        type Change = fn(&Path);
        let cases: [(&str, Change, &str); 4] = [
            (
                "write in place",
                |path| {
                    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
                    file.write_all_at(b"X", 3).unwrap();
                },
                "modification time",
            ),
            (
                "append",
                |path| {
                    let mut bytes = std::fs::read(path).unwrap();
                    bytes.push(0);
                    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
                    file.write_all_at(&bytes, 0).unwrap();
                },
                "size",
            ),
            (
                "replaced",
                |path| {
                    let other = path.with_extension("new");
                    std::fs::write(&other, b"0123456789").unwrap();
                    std::fs::rename(&other, path).unwrap();
                },
                "inode",
            ),
            (
                "removed",
                |path| std::fs::remove_file(path).unwrap(),
                "removed",
            ),
        ];
        for (name, change, phrase) in cases {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("g.sl");
            std::fs::write(&path, b"0123456789").unwrap();
            let watch = FileWatch::open(&path).unwrap();
            watch.unchanged().unwrap();
            // Times on some file systems move in steps of a few milliseconds.
            std::thread::sleep(std::time::Duration::from_millis(20));
            change(&path);
            let error = watch.unchanged().expect_err(name).to_string();
            assert!(
                error.contains(phrase) && error.contains("changed while"),
                "{name}: {error}"
            );
        }
    }
}
