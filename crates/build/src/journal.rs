//! A build's journal: what its sorted runs hold, written into its folder after every
//! spill, so that a build killed later can be resumed (`--resume`) from the runs it
//! spilled rather than from the input.
//!
//! Runs spill at input-edge boundaries, so each spill covers a whole prefix of the
//! input: a resumed build reuses the longest prefix of spills whose run files still
//! match their checksums, skips that many input edges, and goes on. A build whose
//! reading was done reuses every run and reads no input at all. The journal is
//! written under a temporary name and renamed, so a kill leaves the old one or the new.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use crate::stale::{BUILD_FOLDER_PREFIX, OWNER_LOCK, claim_build_folder};
use crate::{BuildError, Result};

/// The journal's file name in a build folder.
const JOURNAL: &str = "journal.json";

/// One run file and the checksum of its bytes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct RunFile {
    /// Its name in the build folder.
    pub file: String,
    /// Its length.
    pub bytes: u64,
    /// The xxh3 of its bytes.
    pub checksum: u64,
}

/// One spill: the runs it wrote and the input read up to it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Spill {
    /// The out-arcs' run.
    pub out_run: Option<RunFile>,
    /// The in-arcs' run (directed graphs).
    pub in_run: Option<RunFile>,
    /// Input edges consumed once this spill was written (self-loops included).
    pub input_edges: u64,
    /// Self-loops among them.
    pub self_loops_dropped: u64,
    /// The largest id among them.
    pub max_id: Option<u32>,
    /// Out-arcs and in-arcs made from them, duplicates included (what decides whether
    /// the output gets an `out_heads` section).
    pub arcs_pushed: [u64; 2],
    /// Whether the input was exhausted: nothing more to read.
    pub reading_done: bool,
}

/// A reordering build's copy of its whole input (`input.raw`), once complete: what a
/// resumed build reads instead of the input.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct RawCopy {
    /// The copy's length and checksum.
    pub file: RunFile,
    /// Input edges from a vertex to itself, which the copy leaves out.
    pub self_loops_dropped: u64,
    /// Vertices the input's ids reach (the largest id plus one).
    pub vertices_seen: u64,
}

/// What a build folder's journal holds.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Journal {
    /// What the build reads and how it builds (input, its size and time, options, output):
    /// a folder is resumed only by a build with the same key.
    pub key: String,
    /// A reordering build's complete copy of its input; the spills after it are of the
    /// copy, renumbered.
    #[serde(default)]
    pub raw: Option<RawCopy>,
    /// Every spill so far, in order.
    pub spills: Vec<Spill>,
}

impl Journal {
    /// Writes the journal into `folder`, replacing the old one whole.
    pub fn save(&self, folder: &Path) -> Result<()> {
        let path = folder.join(JOURNAL);
        let temporary = folder.join(format!("{JOURNAL}.new"));
        let bytes = serde_json::to_vec(self)
            .map_err(|error| BuildError::io(&path, std::io::Error::other(error)))?;
        std::fs::write(&temporary, bytes)
            .and_then(|_| std::fs::rename(&temporary, &path))
            .map_err(|source| BuildError::io(&path, source))
    }

    /// The largest run number among the journal's run files (`run-N.bin`), so that new
    /// runs never take an old one's name.
    pub fn largest_run_id(&self) -> u64 {
        self.spills
            .iter()
            .flat_map(|spill| [&spill.out_run, &spill.in_run])
            .flatten()
            .filter_map(|run| {
                run.file
                    .strip_prefix("run-")
                    .and_then(|rest| rest.strip_suffix(".bin"))
                    .and_then(|number| number.parse().ok())
            })
            .max()
            .unwrap_or(0)
    }

    /// The journal of `folder`, if it has a readable one.
    fn load(folder: &Path) -> Option<Journal> {
        let bytes = std::fs::read(folder.join(JOURNAL)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// The spills whose run files in `folder` still match their checksums, up to the
    /// first that does not (later ones cover input after it, which must be read again);
    /// the run files past them are removed.
    fn intact_prefix(mut self, folder: &Path) -> Journal {
        // The spills of a reordering build are of its copy of the input: without the
        // copy, none of them can be used.
        if let Some(raw) = &self.raw
            && !run_matches(&folder.join(&raw.file.file), &raw.file)
        {
            self.raw = None;
            self.spills.truncate(0);
        }
        let intact = self
            .spills
            .iter()
            .take_while(|spill| {
                [&spill.out_run, &spill.in_run]
                    .into_iter()
                    .flatten()
                    .all(|run| run_matches(&folder.join(&run.file), run))
            })
            .count();
        for spill in self.spills.drain(intact..) {
            for run in [spill.out_run, spill.in_run].into_iter().flatten() {
                let _ = std::fs::remove_file(folder.join(run.file));
            }
        }
        self
    }
}

/// Whether the file at `path` has `run`'s length and checksum.
fn run_matches(path: &Path, run: &RunFile) -> bool {
    let Ok(mut file) = File::open(path) else {
        return false;
    };
    if file.metadata().map(|metadata| metadata.len()).ok() != Some(run.bytes) {
        return false;
    }
    let mut hasher = Xxh3::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        match file.read(&mut buffer) {
            Ok(0) => return hasher.digest() == run.checksum,
            Ok(read) => hasher.update(&buffer[..read]),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

/// The checksum of a run's bytes, as the journal records it.
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// A killed build's folder found for `key` in `parent`: its path, its lock (now this
/// build's), and its journal cut to the spills that are intact.
pub(crate) struct Resumed {
    pub folder: PathBuf,
    pub lock: File,
    pub journal: Journal,
}

/// The folder of a killed build of the same key in `parent`, claimed for this build;
/// `None` when there is none (a folder whose owner still runs is never taken).
pub(crate) fn find_killed_build(parent: &Path, key: &str) -> Option<Resumed> {
    let entries = std::fs::read_dir(parent).ok()?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let folder = entry.path();
        if !name.starts_with(BUILD_FOLDER_PREFIX) || !folder.is_dir() {
            continue;
        }
        let Some(journal) = Journal::load(&folder).filter(|journal| journal.key == key) else {
            continue;
        };
        // Taking the lock is what claims it: an owner that still runs holds it.
        let Ok(lock) = File::options().write(true).open(folder.join(OWNER_LOCK)) else {
            continue;
        };
        if lock.try_lock().is_err() {
            continue;
        }
        let journal = journal.intact_prefix(&folder);
        return Some(Resumed {
            folder,
            lock,
            journal,
        });
    }
    None
}

/// A build's folder of temporaries: removed with everything in it when dropped (on
/// success, error and Ctrl-C alike); a kill leaves it, with its journal, for `--resume`.
pub(crate) struct BuildFolder {
    pub path: PathBuf,
    /// Held while the build lives, so a later build knows the owner still runs.
    _lock: File,
}

impl BuildFolder {
    /// A new folder in `parent`.
    pub fn create(parent: &Path) -> Result<BuildFolder> {
        let folder = tempfile::Builder::new()
            .prefix(BUILD_FOLDER_PREFIX)
            .tempdir_in(parent)
            .map_err(|source| BuildError::io(parent, source))?;
        let lock = claim_build_folder(folder.path())
            .map_err(|source| BuildError::io(folder.path(), source))?;
        Ok(BuildFolder {
            path: folder.keep(),
            _lock: lock,
        })
    }

    /// The folder of a killed build, taken over.
    pub fn adopt(resumed: Resumed) -> BuildFolder {
        BuildFolder {
            path: resumed.folder,
            _lock: resumed.lock,
        }
    }
}

impl Drop for BuildFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The journal entry of the run file at `path`, `bytes` long with `checksum`.
pub(crate) fn run_file_entry(path: &Path, bytes: u64, checksum: u64) -> RunFile {
    RunFile {
        file: path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default(),
        bytes,
        checksum,
    }
}
