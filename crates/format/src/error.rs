use std::path::PathBuf;

/// Everything that can go wrong reading, writing or checking a `.sl` file.
///
/// Every message is one sentence that names the file and says what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// The operating system refused a read or write.
    #[error("{path}: {source}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file does not start with the `.sl` magic bytes.
    #[error(
        "{path} is not a swapless .sl graph file (wrong magic bytes); build one with `swapless build`"
    )]
    NotGraphFile {
        /// The file involved.
        path: PathBuf,
    },
    /// The path names a folder, device or FIFO rather than a graph file.
    #[error(
        "{path} is a {kind}, not a .sl graph file; a graph is read in place, so it must be a regular file"
    )]
    NotAFile {
        /// The path given.
        path: PathBuf,
        /// What it is.
        kind: &'static str,
    },
    /// The file was written by a newer swapless.
    #[error(
        "{path} uses .sl format version {found}, but this swapless reads only up to version {supported}; upgrade swapless"
    )]
    UnsupportedVersion {
        /// The file involved.
        path: PathBuf,
        /// Version found in the header.
        found: u32,
        /// Newest version this build reads.
        supported: u32,
    },
    /// The file is shorter than its header says it must be.
    #[error("{path} is truncated: {detail}; rebuild it or copy it again")]
    Truncated {
        /// The file involved.
        path: PathBuf,
        /// What is missing.
        detail: String,
    },
    /// A block of a section does not match its stored checksum.
    #[error(
        "{path} is corrupt: block {block} of section {section} (bytes {start}..{end} of the file) fails its checksum; rebuild the file"
    )]
    ChecksumMismatch {
        /// The file involved.
        path: PathBuf,
        /// Section name.
        section: String,
        /// Block index inside the section (4 KiB blocks; 1 MiB in a version-1 file).
        block: u64,
        /// First byte of the block in the file.
        start: u64,
        /// One past the last byte of the block in the file.
        end: u64,
    },
    /// The header or a section breaks a structural rule of the format.
    #[error("{path} is corrupt: {detail}; rebuild the file")]
    Corrupt {
        /// The file involved.
        path: PathBuf,
        /// Which rule is broken and where.
        detail: String,
    },
    /// An output path names a folder.
    #[error("{path} is a folder; name a file to write the output to")]
    OutputIsFolder {
        /// The path given.
        path: PathBuf,
    },
    /// An output path's folder does not exist.
    #[error("cannot write {path}: the folder {folder} does not exist; create it first")]
    OutputFolderMissing {
        /// The path given.
        path: PathBuf,
        /// The missing folder.
        folder: PathBuf,
    },
    /// An output path names something that is neither a file, a character device nor a FIFO.
    #[error("cannot write {path}: it is a {kind}, not a file; name a regular file")]
    OutputNotFile {
        /// The path given.
        path: PathBuf,
        /// What the path is (block device, socket, ...).
        kind: &'static str,
    },
    /// A file written in place (a `.sl` file) cannot go to a device or FIFO.
    #[error(
        "cannot write {path}: it is a {kind}, and a .sl file is written section by section in place, so it needs a regular file"
    )]
    OutputNotSeekable {
        /// The path given.
        path: PathBuf,
        /// What the path is.
        kind: &'static str,
    },
    /// The output would not fit on its file system.
    #[error(
        "cannot write {path}: it needs {} more, but its file system has {} free; free some space or write it elsewhere",
        gib(*needed),
        gib(*available)
    )]
    NoSpace {
        /// The output.
        path: PathBuf,
        /// Bytes still to be written.
        needed: u64,
        /// Bytes free.
        available: u64,
    },
    /// The graph file changed (was written in place) while it was being read.
    #[error(
        "{path} changed while it was being read (its {what} differs from when it was opened), so no result is given; run again once nothing writes to it"
    )]
    ChangedDuringRead {
        /// The file involved.
        path: PathBuf,
        /// Which of its facts changed (size, modification time, ...).
        what: &'static str,
    },
    /// The caller asked the writer for something the format cannot hold.
    #[error("cannot write {path}: {detail}")]
    InvalidWrite {
        /// The file involved.
        path: PathBuf,
        /// What was wrong.
        detail: String,
    },
    /// The caller's progress callback asked a long write to stop (Ctrl-C): the output
    /// was not written.
    #[error("stopped before {path} was complete; it was not written")]
    Stopped {
        /// The output that was being written.
        path: PathBuf,
    },
    /// A list handed to the compressed-list encoder cannot be stored as it is.
    #[error("cannot compress the list of vertex {vertex}: {detail}")]
    InvalidList {
        /// Whose list.
        vertex: u32,
        /// What was wrong.
        detail: String,
    },
}

impl FormatError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        FormatError::Io {
            path: path.into(),
            source,
        }
    }
}

/// Bytes for a message: MiB or GiB with two decimals, and the exact count.
fn gib(bytes: u64) -> String {
    let (unit, scale) = match bytes >= 1 << 30 {
        true => ("GiB", (1u64 << 30) as f64),
        false => ("MiB", (1u64 << 20) as f64),
    };
    format!("{:.2} {unit} ({bytes} bytes)", bytes as f64 / scale)
}
