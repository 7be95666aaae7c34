//! A build's journal: what its sorted runs hold, written into its folder after every
//! spill, so that a build killed later can be resumed (`--resume`) from the runs it
//! spilled rather than from the input.
//!
//! Runs spill at input-edge boundaries, so each spill covers a whole prefix of the
//! input: a resumed build reuses the longest prefix of spills whose run files still
//! match their checksums, skips that many input edges, and goes on. A build whose
//! reading was done reuses every run and reads no input at all. The journal is
//! written under a temporary name and renamed, so a kill leaves the old one or the new.
//!
//! The journal also records the input file's identity and times, and at each spill a
//! hash of the input's bytes read so far: a resumed build whose input changed since
//! (even in place, its time put back) finds it out and starts from the beginning.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use crate::input_record::{InputHasher, InputStamp};
use crate::stale::{BUILD_FOLDER_PREFIX, JOURNAL, OWNER_LOCK, claim_build_folder};
use crate::{BuildError, Result};

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
    /// Bytes of the input file read once this spill was written (0: none hashed, as
    /// for a reordering build's spills, which are of its copy).
    #[serde(default)]
    pub input_bytes: u64,
    /// The xxh3 of the input file's first `input_bytes` bytes.
    #[serde(default)]
    pub input_hash: u64,
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
    /// The output it builds, as `stale::output_identity` names it: a build of another
    /// output in the same folder leaves these runs alone.
    #[serde(default)]
    pub output: String,
    /// The input file's identity and times when the build began (none for a generator).
    #[serde(default)]
    pub input: Option<InputStamp>,
    /// A reordering build's complete copy of its input; the spills after it are of the
    /// copy, renumbered.
    #[serde(default)]
    pub raw: Option<RawCopy>,
    /// Every spill so far, in order.
    pub spills: Vec<Spill>,
    /// How its run files are laid out ([`crate::run_file::RUN_FORMAT`]; 0 in journals
    /// from before runs were delta-coded, whose runs no build reads).
    #[serde(default)]
    pub run_format: u32,
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

/// A killed build's folder found for `key` in `parent`: its path, its lock (now this
/// build's), its journal cut to the spills that are intact, and the input hashed as far
/// as they cover.
pub(crate) struct Resumed {
    pub folder: PathBuf,
    pub lock: File,
    pub journal: Journal,
    pub hasher: Option<InputHasher>,
}

/// What a build with `--resume` finds of a killed build of the same key.
pub(crate) enum KilledBuild {
    /// None (or none whose runs are intact, or whose owner is gone).
    Absent,
    /// One, whose input has changed since: what changed, for the message. Its folder is
    /// left unclaimed for the sweep to remove.
    InputChanged(&'static str),
    /// One, claimed for this build.
    Found(Box<Resumed>),
}

/// The folder of a killed build of the same key in `parent` reading `input`, claimed
/// for this build (a folder whose owner still runs is never taken).
pub(crate) fn find_killed_build(parent: &Path, key: &str, input: Option<&Path>) -> KilledBuild {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return KilledBuild::Absent;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let folder = entry.path();
        if !name.starts_with(BUILD_FOLDER_PREFIX) || !folder.is_dir() {
            continue;
        }
        let Some(journal) = Journal::load(&folder).filter(|journal| {
            journal.key == key && journal.run_format == crate::run_file::RUN_FORMAT
        }) else {
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
        let hasher = match input
            .map(|input| journal.input_unchanged(input))
            .transpose()
        {
            Ok(hasher) => hasher,
            Err(change) => {
                // Its runs hold another input's edges: nothing will resume them, and the
                // lock held shows their owner is gone.
                let _ = std::fs::remove_dir_all(&folder);
                return KilledBuild::InputChanged(change);
            }
        };
        return KilledBuild::Found(Box::new(Resumed {
            folder,
            lock,
            journal,
            hasher,
        }));
    }
    KilledBuild::Absent
}

impl Journal {
    /// Checks that the file at `input` is the one this journal's runs were read from:
    /// the same identity and times, and the same bytes wherever a spill hashed them.
    /// The hasher comes back at the last spill's bytes, for the spills to come; the
    /// error names what changed.
    fn input_unchanged(&self, input: &Path) -> std::result::Result<InputHasher, &'static str> {
        const CONTENTS: &str = "its contents differ from what the build read";
        let stamp = InputStamp::of(input).map_err(|_| "it can no longer be read")?;
        match &self.input {
            None => return Err("the build recorded no input"),
            Some(before) if (before.device, before.inode) != (stamp.device, stamp.inode) => {
                return Err("another file was put in its place");
            }
            Some(before) if before.bytes != stamp.bytes => return Err("its size differs"),
            Some(before) if before.modified != stamp.modified => {
                return Err("its modification time differs");
            }
            Some(before) if before.changed != stamp.changed => {
                return Err("it was written to or its times were set (its change time differs)");
            }
            Some(_) => {}
        }
        let mut hasher = InputHasher::open(input).map_err(|_| "it can no longer be read")?;
        for spill in self.spills.iter().filter(|spill| spill.input_bytes > 0) {
            match hasher.hash_to(spill.input_bytes) {
                Ok(Some(hash)) if hash == spill.input_hash => {}
                _ => return Err(CONTENTS),
            }
        }
        Ok(hasher)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A journal of `input` as a build would write it: two spills, each with the hash of
    /// the input read so far.
    fn journal_of(input: &Path) -> Journal {
        let mut hasher = InputHasher::open(input).unwrap();
        let spill = |bytes: u64, hasher: &mut InputHasher| Spill {
            out_run: None,
            in_run: None,
            input_edges: 0,
            self_loops_dropped: 0,
            max_id: None,
            arcs_pushed: [0, 0],
            reading_done: false,
            input_bytes: bytes,
            input_hash: hasher.hash_to(bytes).unwrap().unwrap(),
        };
        let spills = vec![spill(1000, &mut hasher), spill(3000, &mut hasher)];
        Journal {
            key: "k".into(),
            output: String::new(),
            input: Some(InputStamp::of(input).unwrap()),
            raw: None,
            spills,
            run_format: crate::run_file::RUN_FORMAT,
        }
    }

    #[test]
    fn an_input_whose_read_bytes_changed_is_found_even_with_the_same_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("edges.el");
        let mut bytes: Vec<u8> = (0..4000u32).map(|i| b'0' + (i % 10) as u8).collect();
        std::fs::write(&input, &bytes).unwrap();
        let journal = journal_of(&input);
        assert!(journal.input_unchanged(&input).is_ok());
        // Bytes past what the spills read may change; the stamp is what is compared
        // for them, so it is set back to the journal's here.
        let modified = std::fs::metadata(&input).unwrap().modified().unwrap();
        // Past the file system's clock tick, so that the change time moves.
        std::thread::sleep(std::time::Duration::from_millis(20));
        bytes[2000] ^= 1;
        std::fs::write(&input, &bytes).unwrap();
        File::options()
            .write(true)
            .open(&input)
            .unwrap()
            .set_modified(modified)
            .unwrap();
        let mut forged = journal.clone();
        forged.input = Some(InputStamp::of(&input).unwrap());
        assert_eq!(
            forged.input_unchanged(&input).err(),
            Some("its contents differ from what the build read")
        );
        // The stamp alone finds an edit.
        assert_eq!(
            journal.input_unchanged(&input).err(),
            Some("it was written to or its times were set (its change time differs)")
        );
    }
}
