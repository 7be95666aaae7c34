//! Where a command's output goes, and how it gets there without harming what is there.
//!
//! A regular file, or a name not taken yet, is written under a temporary name in the
//! same folder and renamed over the target only when complete, so a failed or killed
//! write leaves the old file as it was. A symbolic link is followed: the file it points
//! to is replaced and the link stays a link. A character device (`/dev/null`, a
//! terminal) or a FIFO is written directly, since a rename would replace the device
//! itself. A folder, a block device or a socket is refused before any work starts.
//!
//! The temporary file is named `.NAME.XXXXXX.partial` and locked by the process that
//! writes it, so a later command can tell a temporary whose writer was killed (no lock)
//! from one still being written ([`owner_is_gone`]).

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use crate::{FormatError, Result};

/// Suffix of every temporary output; [`owner_is_gone`] tells which are abandoned.
pub const PARTIAL_SUFFIX: &str = ".partial";

/// Symbolic links followed before a path is refused as a loop.
const MAX_LINKS: usize = 40;

/// How an output reaches its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// A regular file (or a new name): written aside, then renamed over it.
    File,
    /// A character device or FIFO: written directly.
    Stream,
}

/// A checked output path: where the bytes go and how.
#[derive(Clone, Debug)]
pub struct OutputTarget {
    /// The path as the user gave it, for messages.
    pub requested: PathBuf,
    /// The path after following symbolic links: what is written or replaced.
    pub resolved: PathBuf,
    /// How the bytes get there.
    pub kind: OutputKind,
}

/// Checks `path` as an output: refuses folders, missing folders, block devices and
/// sockets, follows symbolic links, and tries the folder for writing.
pub fn output_target(path: &Path) -> Result<OutputTarget> {
    let refuse_folder = || FormatError::OutputIsFolder {
        path: path.to_path_buf(),
    };
    if path.as_os_str().is_empty() || path.as_os_str().as_encoded_bytes().ends_with(b"/") {
        return Err(refuse_folder());
    }
    let resolved = follow_links(path)?;
    match std::fs::metadata(&resolved) {
        Ok(metadata) => {
            let file_type = metadata.file_type();
            if file_type.is_dir() {
                return Err(refuse_folder());
            }
            let kind = if file_type.is_file() {
                OutputKind::File
            } else if file_type.is_char_device() || file_type.is_fifo() {
                OutputKind::Stream
            } else {
                return Err(FormatError::OutputNotFile {
                    path: path.to_path_buf(),
                    kind: file_kind_name(&file_type),
                });
            };
            if kind == OutputKind::File {
                probe_folder(path, &resolved)?;
            }
            Ok(OutputTarget {
                requested: path.to_path_buf(),
                resolved,
                kind,
            })
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            let folder = folder_of(&resolved);
            if !folder.is_dir() {
                return Err(FormatError::OutputFolderMissing {
                    path: path.to_path_buf(),
                    folder,
                });
            }
            probe_folder(path, &resolved)?;
            Ok(OutputTarget {
                requested: path.to_path_buf(),
                resolved,
                kind: OutputKind::File,
            })
        }
        Err(error) => Err(FormatError::io(path, error)),
    }
}

/// Checks `path` as the output of a file written in place section by section (a `.sl`
/// file), which needs a regular file: a device or FIFO is refused too.
pub fn seekable_output_target(path: &Path) -> Result<OutputTarget> {
    let target = output_target(path)?;
    if target.kind == OutputKind::Stream {
        let kind = std::fs::metadata(&target.resolved)
            .map(|metadata| file_kind_name(&metadata.file_type()))
            .unwrap_or("device");
        return Err(FormatError::OutputNotSeekable {
            path: path.to_path_buf(),
            kind,
        });
    }
    Ok(target)
}

/// The folder a file path lives in (`.` for a bare name).
pub fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Follows symbolic links at `path` itself (not in its folders), relative links
/// against the link's own folder.
fn follow_links(path: &Path) -> Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&current) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let target =
                    std::fs::read_link(&current).map_err(|error| FormatError::io(path, error))?;
                current = if target.is_absolute() {
                    target
                } else {
                    folder_of(&current).join(target)
                };
            }
            _ => return Ok(current),
        }
    }
    Err(FormatError::OutputNotFile {
        path: path.to_path_buf(),
        kind: "loop of symbolic links",
    })
}

/// Creates and removes a temporary file beside `resolved`, so a folder the process may
/// not write is reported before a long run rather than after it.
fn probe_folder(path: &Path, resolved: &Path) -> Result<()> {
    let folder = folder_of(resolved);
    tempfile::Builder::new()
        .prefix(".swapless-probe-")
        .tempfile_in(&folder)
        .map(drop)
        .map_err(|error| FormatError::io(path, error))
}

/// What a file that is not a regular file is, for messages.
pub fn file_kind_name(file_type: &std::fs::FileType) -> &'static str {
    if file_type.is_dir() {
        "folder"
    } else if file_type.is_block_device() {
        "block device"
    } else if file_type.is_char_device() {
        "character device"
    } else if file_type.is_fifo() {
        "FIFO"
    } else if file_type.is_socket() {
        "socket"
    } else {
        "special file"
    }
}

/// An output being written: a locked temporary renamed into place by
/// [`OutputFile::commit`] (and removed if dropped before), or a stream written directly.
pub struct OutputFile {
    target: OutputTarget,
    inner: Inner,
}

enum Inner {
    Temporary(tempfile::NamedTempFile),
    Stream(File),
}

impl OutputFile {
    /// Starts writing the output `path` (see the module's rules).
    pub fn create(path: &Path) -> Result<OutputFile> {
        OutputFile::create_at(output_target(path)?)
    }

    /// Starts writing an output already checked with [`output_target`].
    pub fn create_at(target: OutputTarget) -> Result<OutputFile> {
        let io = |error| FormatError::io(&target.requested, error);
        let inner = match target.kind {
            OutputKind::Stream => Inner::Stream(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&target.resolved)
                    .map_err(io)?,
            ),
            OutputKind::File => {
                let name = target
                    .resolved
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "output".to_string());
                let temp = tempfile::Builder::new()
                    .prefix(&format!(".{name}."))
                    .suffix(PARTIAL_SUFFIX)
                    // As any file the user creates: the umask decides.
                    .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
                    .tempfile_in(folder_of(&target.resolved))
                    .map_err(io)?;
                // The lock marks the temporary as ours for as long as this process
                // lives; a file system without locks only loses the clean-up.
                let _ = temp.as_file().try_lock();
                Inner::Temporary(temp)
            }
        };
        Ok(OutputFile { target, inner })
    }

    /// The open file the bytes go to.
    pub fn file(&self) -> &File {
        match &self.inner {
            Inner::Temporary(temp) => temp.as_file(),
            Inner::Stream(file) => file,
        }
    }

    /// Where the bytes are being written now (the temporary, for a regular file).
    pub fn writing_path(&self) -> &Path {
        match &self.inner {
            Inner::Temporary(temp) => temp.path(),
            Inner::Stream(_) => &self.target.resolved,
        }
    }

    /// The checked target.
    pub fn target(&self) -> &OutputTarget {
        &self.target
    }

    /// Makes the output whole: syncs the temporary, renames it over the target and
    /// syncs the folder; a stream is only flushed.
    pub fn commit(self) -> Result<()> {
        let requested = self.target.requested.clone();
        let io = |error| FormatError::io(&requested, error);
        match self.inner {
            Inner::Stream(mut file) => file.flush().map_err(io),
            Inner::Temporary(temp) => {
                temp.as_file().sync_all().map_err(io)?;
                temp.persist(&self.target.resolved)
                    .map_err(|error| io(error.error))?;
                // Make the rename itself durable.
                if let Ok(folder) = File::open(folder_of(&self.target.resolved)) {
                    let _ = folder.sync_all();
                }
                Ok(())
            }
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match &mut self.inner {
            Inner::Temporary(temp) => temp.write(bytes),
            Inner::Stream(file) => file.write(bytes),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.inner {
            Inner::Temporary(temp) => temp.flush(),
            Inner::Stream(file) => file.flush(),
        }
    }
}

/// Writes `bytes` to the output `path` as one whole (see the module's rules).
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut output = OutputFile::create(path)?;
    output
        .write_all(bytes)
        .map_err(|error| FormatError::io(path, error))?;
    output.commit()
}

/// Bytes an unprivileged writer may still use on the file system holding `folder`, if
/// the system says.
pub fn free_bytes(folder: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(folder.as_os_str().as_bytes()).ok()?;
    let mut stats = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string that outlives the call, and `stats` is
    // written by statvfs before it is read, only when the call succeeds.
    let stats = unsafe {
        if libc::statvfs(path.as_ptr(), stats.as_mut_ptr()) != 0 {
            return None;
        }
        stats.assume_init()
    };
    Some((stats.f_bavail as u64).saturating_mul(stats.f_frsize as u64))
}

/// Whether the temporary `path` was left by a process that is gone: nobody holds its
/// lock, and it is older than `grace` (a writer locks its temporary just after making
/// it). `path` may be a file or a lock file inside a temporary folder.
pub fn owner_is_gone(path: &Path, grace: std::time::Duration) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    let old_enough = file
        .metadata()
        .and_then(|metadata| metadata.modified())
        .ok()
        .and_then(|modified| modified.elapsed().ok())
        .is_some_and(|age| age >= grace);
    // The lock is released when `file` closes.
    old_enough && file.try_lock().is_ok()
}

/// Whether two paths name one file: the same device and inode when both exist, else
/// the same path once symbolic links and `.` are resolved.
pub fn same_file(first: &Path, second: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    if let (Ok(a), Ok(b)) = (std::fs::metadata(first), std::fs::metadata(second)) {
        return a.dev() == b.dev() && a.ino() == b.ino();
    }
    let resolve = |path: &Path| {
        let folder = folder_of(path);
        std::fs::canonicalize(folder)
            .ok()
            .map(|folder| folder.join(path.file_name().unwrap_or_default()))
    };
    first == second || (resolve(first).is_some() && resolve(first) == resolve(second))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each case: what the path is, and the phrase the refusal holds (empty: accepted).
    #[test]
    fn output_paths_are_classified() {
        let dir = tempfile::tempdir().unwrap();
        let existing = dir.path().join("existing.npy");
        std::fs::write(&existing, b"old").unwrap();
        let link = dir.path().join("link.npy");
        std::os::unix::fs::symlink(&existing, &link).unwrap();
        let dangling = dir.path().join("dangling.npy");
        std::os::unix::fs::symlink(dir.path().join("new-target.npy"), &dangling).unwrap();
        let looped = dir.path().join("loop.npy");
        std::os::unix::fs::symlink(&looped, &looped).unwrap();
        let folder_text = format!("{}/", dir.path().join("out").display());
        let cases: Vec<(PathBuf, std::result::Result<OutputKind, &str>)> = vec![
            (dir.path().join("new.npy"), Ok(OutputKind::File)),
            (existing.clone(), Ok(OutputKind::File)),
            (link.clone(), Ok(OutputKind::File)),
            (dangling, Ok(OutputKind::File)),
            (PathBuf::from("/dev/null"), Ok(OutputKind::Stream)),
            (dir.path().to_path_buf(), Err("is a folder")),
            (PathBuf::from(folder_text), Err("is a folder")),
            (dir.path().join("missing/x.npy"), Err("does not exist")),
            (looped, Err("loop of symbolic links")),
        ];
        for (path, expected) in cases {
            match (output_target(&path), expected) {
                (Ok(target), Ok(kind)) => assert_eq!(target.kind, kind, "{path:?}"),
                (Err(error), Err(phrase)) => {
                    assert!(error.to_string().contains(phrase), "{path:?}: {error}")
                }
                (outcome, expected) => panic!("{path:?}: {:?} vs {expected:?}", outcome.is_ok()),
            }
        }
        let target = output_target(&link).unwrap();
        assert_eq!(target.resolved, existing);
    }

    #[test]
    fn a_link_keeps_linking_and_a_dropped_output_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let existing = dir.path().join("a.json");
        std::fs::write(&existing, b"old").unwrap();
        let link = dir.path().join("b.json");
        std::os::unix::fs::symlink("a.json", &link).unwrap();
        write_output(&link, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&existing).unwrap(), b"new");
        let mut unfinished = OutputFile::create(&existing).unwrap();
        unfinished.write_all(b"half").unwrap();
        drop(unfinished);
        assert_eq!(std::fs::read(&existing).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        write_output(Path::new("/dev/null"), b"into the void").unwrap();
        assert!(
            std::fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }

    #[test]
    fn a_locked_temporary_has_an_owner() {
        let dir = tempfile::tempdir().unwrap();
        let output = OutputFile::create(&dir.path().join("x.sl")).unwrap();
        let zero = std::time::Duration::ZERO;
        assert!(!owner_is_gone(output.writing_path(), zero));
        let abandoned = dir.path().join(".y.sl.abc.partial");
        std::fs::write(&abandoned, b"left").unwrap();
        assert!(owner_is_gone(&abandoned, zero));
        assert!(!owner_is_gone(
            &abandoned,
            std::time::Duration::from_secs(3600)
        ));
    }
}
