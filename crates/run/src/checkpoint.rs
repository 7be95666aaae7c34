//! Checkpoints of a run: the kernel's state between two steps, written to a folder so
//! that a run killed later resumes from it rather than from the start.
//!
//! A checkpoint file is `step-NNNNNNNNNN.slck`: a magic, a JSON header binding it to
//! its run (swapless version, kernel, graph fingerprint, options) and the step it
//! follows, the kernel's sections (each with its own checksum, see
//! `swapless_engine::saved_state`), and an xxh3 over everything before it. It is
//! written under a temporary name, synced, renamed into place and the folder synced,
//! so a kill at any point leaves either the whole file or none. The newest two are
//! kept: when the newest fails its checks, the run resumes from the one before.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use swapless_engine::kernel::Running;
use swapless_engine::saved_state::{StateError, StateReader, StateWriter};
use swapless_format::output::{OutputFile, PARTIAL_SUFFIX, owner_is_gone};
use xxhash_rust::xxh3::Xxh3;

/// The first bytes of every checkpoint file.
const MAGIC: &[u8; 8] = b"SLCKPT01";

/// The checkpoint files' suffix.
const SUFFIX: &str = ".slck";

/// Checkpoints kept: the newest, and the one before in case the newest is damaged.
const KEPT: usize = 2;

/// Bytes read at a time while a file's checksum is checked.
const READ_BYTES: usize = 64 << 10;

/// When no interval is given, the first checkpoint comes this long after the start,
/// before any write has been timed.
pub const FIRST_INTERVAL: Duration = Duration::from_secs(60);

/// The mean time between failures the default interval is chosen for: kills of a long
/// job on a shared machine (the OOM killer acting for a neighbour, preemption, a
/// reboot) come hours apart, not days.
pub const ASSUMED_MTBF: Duration = Duration::from_secs(6 * 3600);

/// How many times its own write time the interval is at least, so that writing
/// checkpoints costs at most 1/20 (5%) of the run.
const INTERVAL_OVER_WRITE_TIME: f64 = 20.0;

/// The default interval after a checkpoint that took `write_seconds` to write: Young's
/// rule, the square root of twice the write time and the mean time between failures
/// (which minimizes the time lost to writing and to redoing work after a failure),
/// and never below 20 write times.
pub fn default_interval(write_seconds: f64) -> Duration {
    let young = (2.0 * write_seconds * ASSUMED_MTBF.as_secs_f64()).sqrt();
    Duration::from_secs_f64(young.max(INTERVAL_OVER_WRITE_TIME * write_seconds))
}

/// When checkpoints are written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CheckpointEvery {
    /// The first after [`FIRST_INTERVAL`], later ones [`default_interval`] apart.
    Auto,
    /// After the first step that ends this long after the last checkpoint (or the start).
    Interval(Duration),
    /// After every this many steps.
    Steps(u64),
}

impl CheckpointEvery {
    /// `auto`, a time (`90s`, `5m`, `1h`, a positive number of them) or a number of
    /// steps (`10`, at least 1); `None` for anything else.
    pub fn parse(text: &str) -> Option<CheckpointEvery> {
        let text = text.trim();
        if text == "auto" {
            return Some(CheckpointEvery::Auto);
        }
        if let Ok(steps) = text.parse::<u64>() {
            return (steps > 0).then_some(CheckpointEvery::Steps(steps));
        }
        let unit = match text.chars().last()? {
            's' => 1.0,
            'm' => 60.0,
            'h' => 3600.0,
            _ => return None,
        };
        let count: f64 = text[..text.len() - 1].parse().ok()?;
        // A time too long for a Duration is refused, not a panic.
        let interval = Duration::try_from_secs_f64(count * unit).ok()?;
        (count > 0.0).then_some(CheckpointEvery::Interval(interval))
    }
}

/// Where and how often a run writes checkpoints, and whether it resumes from them.
#[derive(Clone, Debug)]
pub struct CheckpointOptions {
    /// The folder of the checkpoint files (made if missing).
    pub folder: PathBuf,
    /// When they are written.
    pub every: CheckpointEvery,
    /// Whether the run resumes from the newest checkpoint of the same run in the folder
    /// (without it, a folder holding checkpoints is refused rather than overwritten).
    pub resume: bool,
}

/// Why checkpoints could not be written or resumed from.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The folder could not be made, listed or written.
    #[error("cannot use the checkpoint folder {folder}: {source}")]
    Folder {
        /// The folder.
        folder: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A checkpoint could not be written.
    #[error("cannot write the checkpoint {path}: {detail}")]
    Write {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// The path given for the folder names something else (a file).
    #[error("the checkpoint folder {folder} is a file, not a folder")]
    NotAFolder {
        /// The path.
        folder: PathBuf,
    },
    /// Another run is using the folder now.
    #[error("another run is writing checkpoints to {folder} now")]
    InUse {
        /// The folder.
        folder: PathBuf,
    },
    /// The folder already holds checkpoints and the run was not asked to resume.
    #[error("{folder} already holds {count} checkpoint(s) of an earlier run")]
    Occupied {
        /// The folder.
        folder: PathBuf,
        /// Checkpoint files in it.
        count: usize,
    },
    /// The newest checkpoint that verifies belongs to another run.
    #[error("the checkpoint {path} is of another run (its {field}: {saved}; this run's: {this})")]
    OtherRun {
        /// The file.
        path: PathBuf,
        /// What differs: the graph, kernel or swapless version, or the option it names
        /// (`option method`).
        field: String,
        /// The checkpoint's value.
        saved: String,
        /// This run's value.
        this: String,
    },
    /// Checkpoints exist but none passes its checks.
    #[error("no checkpoint in {folder} passes its checks ({detail})")]
    NoneIntact {
        /// The folder.
        folder: PathBuf,
        /// Each file and what was wrong with it.
        detail: String,
    },
}

/// What binds a checkpoint to its run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunIdentity {
    /// The swapless version that wrote it: state layouts may change between versions.
    pub swapless: String,
    /// The kernel's short name.
    pub kernel: String,
    /// The graph's fingerprint, as 32 hex digits.
    pub graph: String,
    /// The kernel's options, as text.
    pub options: String,
}

impl RunIdentity {
    /// The first field in which `self` (a checkpoint's) differs from `this` (the run's):
    /// its name and both values. Options differ by the first option that does.
    fn first_difference(&self, this: &RunIdentity) -> Option<(String, String, String)> {
        let fields = [
            ("swapless version", &self.swapless, &this.swapless),
            ("kernel", &self.kernel, &this.kernel),
            ("graph fingerprint", &self.graph, &this.graph),
        ];
        if let Some((field, saved, current)) = fields
            .into_iter()
            .find(|(_, saved, current)| saved != current)
        {
            return Some((field.to_string(), saved.clone(), current.clone()));
        }
        if self.options == this.options {
            return None;
        }
        let split = |options: &str| -> Vec<(String, String)> {
            options
                .split(", ")
                .map(|option| match option.split_once(' ') {
                    Some((name, value)) => (name.to_string(), value.to_string()),
                    None => (option.to_string(), String::new()),
                })
                .collect()
        };
        let (saved, current) = (split(&self.options), split(&this.options));
        let differing = saved
            .iter()
            .zip(&current)
            .find(|(saved, current)| saved != current);
        Some(match differing {
            Some(((name, saved), (current_name, current))) if name == current_name => {
                (format!("option {name}"), saved.clone(), current.clone())
            }
            // Written by a swapless that named its options otherwise.
            _ => (
                "options".to_string(),
                self.options.clone(),
                this.options.clone(),
            ),
        })
    }
}

/// A checkpoint's header.
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    run: RunIdentity,
    /// Steps the run had taken when the state was saved.
    steps: u64,
}

/// A checkpoint found intact, ready to resume from.
pub struct Intact {
    /// The file.
    pub path: PathBuf,
    /// Steps taken when it was written.
    pub steps: u64,
    /// Where its sections start, and their length.
    sections: (u64, u64),
    /// Newer files that failed their checks, and why.
    pub skipped: Vec<(PathBuf, String)>,
}

impl Intact {
    /// Restores the run it saved, through `restore`; a graph that cannot be read while
    /// the state is rebuilt is the store's error, anything else the checkpoint's.
    pub fn restore(
        &self,
        restore: impl FnOnce(&mut StateReader) -> Result<Box<dyn Running>, StateError>,
    ) -> Result<Box<dyn Running>, crate::RunError> {
        let damaged = |detail: String| CheckpointError::NoneIntact {
            folder: folder_of(&self.path),
            detail: format!("{}: {detail}", self.path.display()),
        };
        let mut file = File::open(&self.path).map_err(|error| damaged(error.to_string()))?;
        file.seek(SeekFrom::Start(self.sections.0))
            .map_err(|error| damaged(error.to_string()))?;
        let mut input = BufReader::with_capacity(READ_BYTES, file);
        let mut reader = StateReader::new(&mut input, self.sections.1);
        match restore(&mut reader) {
            Ok(running) => Ok(running),
            Err(StateError::Store(error)) => Err(error.into()),
            Err(error) => Err(damaged(error.to_string()).into()),
        }
    }
}

fn folder_of(path: &Path) -> PathBuf {
    path.parent().map_or_else(PathBuf::new, Path::to_path_buf)
}

/// The checkpoint files in `folder`, newest (most steps) first.
fn checkpoint_files(folder: &Path) -> Result<Vec<(u64, PathBuf)>, CheckpointError> {
    let folder_error = |source| CheckpointError::Folder {
        folder: folder.to_path_buf(),
        source,
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(folder).map_err(folder_error)? {
        let entry = entry.map_err(folder_error)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(steps) = name
            .strip_prefix("step-")
            .and_then(|rest| rest.strip_suffix(SUFFIX))
            .and_then(|digits| digits.parse::<u64>().ok())
        {
            files.push((steps, entry.path()));
        }
    }
    files.sort_by_key(|&(steps, _)| std::cmp::Reverse(steps));
    Ok(files)
}

/// Checks a checkpoint file whole (its trailing checksum) and reads its header.
fn check_file(path: &Path) -> Result<(Header, (u64, u64)), String> {
    let mut file = File::open(path).map_err(|error| error.to_string())?;
    let length = file.metadata().map_err(|error| error.to_string())?.len();
    if length < (MAGIC.len() + 4 + 8) as u64 {
        return Err(format!("only {length} bytes long"));
    }
    let mut hasher = Xxh3::new();
    let mut buffer = vec![0u8; READ_BYTES];
    let mut left = length - 8;
    while left > 0 {
        let take = left.min(READ_BYTES as u64) as usize;
        file.read_exact(&mut buffer[..take])
            .map_err(|error| error.to_string())?;
        hasher.update(&buffer[..take]);
        left -= take as u64;
    }
    let mut trailer = [0u8; 8];
    file.read_exact(&mut trailer)
        .map_err(|error| error.to_string())?;
    if u64::from_le_bytes(trailer) != hasher.digest() {
        return Err("its checksum does not match its contents".to_string());
    }
    file.seek(SeekFrom::Start(0))
        .map_err(|error| error.to_string())?;
    let mut magic = [0u8; 8];
    let mut header_length = [0u8; 4];
    file.read_exact(&mut magic)
        .and_then(|_| file.read_exact(&mut header_length))
        .map_err(|error| error.to_string())?;
    if &magic != MAGIC {
        return Err("it is not a swapless checkpoint".to_string());
    }
    let header_length = u32::from_le_bytes(header_length) as u64;
    let sections_start = (MAGIC.len() + 4) as u64 + header_length;
    if sections_start + 8 > length {
        return Err("its header runs past its end".to_string());
    }
    let mut header = vec![0u8; header_length as usize];
    file.read_exact(&mut header)
        .map_err(|error| error.to_string())?;
    let header: Header =
        serde_json::from_slice(&header).map_err(|error| format!("its header: {error}"))?;
    Ok((header, (sections_start, length - 8 - sections_start)))
}

/// The newest checkpoint in `folder` that passes its checks, if the folder holds any;
/// a newer damaged one is skipped (and listed), one of another run refused.
pub fn newest_intact(folder: &Path, run: &RunIdentity) -> Result<Option<Intact>, CheckpointError> {
    if !folder.exists() {
        return Ok(None);
    }
    let files = checkpoint_files(folder)?;
    if files.is_empty() {
        return Ok(None);
    }
    let mut skipped = Vec::new();
    for (_, path) in files {
        match check_file(&path) {
            Ok((header, sections)) => {
                if let Some((field, saved, this)) = header.run.first_difference(run) {
                    return Err(CheckpointError::OtherRun {
                        path,
                        field,
                        saved,
                        this,
                    });
                }
                return Ok(Some(Intact {
                    path,
                    steps: header.steps,
                    sections,
                    skipped,
                }));
            }
            Err(reason) => skipped.push((path, reason)),
        }
    }
    Err(CheckpointError::NoneIntact {
        folder: folder.to_path_buf(),
        detail: skipped
            .iter()
            .map(|(path, reason)| format!("{}: {reason}", path.display()))
            .collect::<Vec<_>>()
            .join("; "),
    })
}

/// The file in a checkpoint folder that the run using it holds locked.
const FOLDER_LOCK: &str = ".owner.lock";

/// A checkpoint folder held for one run: its lock file, locked, removed (still locked)
/// when the run ends, however it ends short of a kill.
pub struct FolderLock {
    path: PathBuf,
    _file: File,
}

impl FolderLock {
    /// Locks the folder's lock file, made if missing. A file removed by the run that
    /// held it, between this one's open and lock, is locked in vain: the path must still
    /// name the file locked, else the lock is taken again.
    fn take(folder: &Path) -> Result<FolderLock, CheckpointError> {
        use std::os::unix::fs::MetadataExt;
        let path = folder.join(FOLDER_LOCK);
        let folder_error = |source| CheckpointError::Folder {
            folder: folder.to_path_buf(),
            source,
        };
        loop {
            let file = File::options()
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(folder_error)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(CheckpointError::InUse {
                        folder: folder.to_path_buf(),
                    });
                }
                // A file system without locks: runs sharing a folder are then the
                // user's to avoid.
                Err(std::fs::TryLockError::Error(_)) => {}
            }
            let held = file.metadata().map_err(folder_error)?;
            let at_path = std::fs::metadata(&path);
            if at_path
                .is_ok_and(|at_path| (at_path.dev(), at_path.ino()) == (held.dev(), held.ino()))
            {
                return Ok(FolderLock { path, _file: file });
            }
        }
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        // Removed while still locked: a run that opened it meanwhile finds it gone from
        // the path once it has it locked, and takes a new one.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Makes `folder` ready for a run's checkpoints: made if missing, locked for this run
/// (while the returned lock lives), the temporaries of killed writes removed; without
/// `resume`, refused if it holds checkpoints already.
pub fn prepare_folder(options: &CheckpointOptions) -> Result<FolderLock, CheckpointError> {
    let folder = &options.folder;
    let folder_error = |source| CheckpointError::Folder {
        folder: folder.clone(),
        source,
    };
    if folder.exists() && !folder.is_dir() {
        return Err(CheckpointError::NotAFolder {
            folder: folder.clone(),
        });
    }
    std::fs::create_dir_all(folder).map_err(folder_error)?;
    let lock = FolderLock::take(folder)?;
    for entry in std::fs::read_dir(folder).map_err(folder_error)? {
        let path = entry.map_err(folder_error)?.path();
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned());
        if name.is_some_and(|name| name.starts_with(".step-") && name.ends_with(PARTIAL_SUFFIX))
            // No grace for a young one: this run holds the folder's lock, and a
            // writer locks its temporary as soon as it makes it.
            && owner_is_gone(&path, Duration::ZERO)
        {
            let _ = std::fs::remove_file(&path);
        }
    }
    let count = checkpoint_files(folder)?.len();
    if !options.resume && count > 0 {
        return Err(CheckpointError::Occupied {
            folder: folder.clone(),
            count,
        });
    }
    Ok(lock)
}

/// A writer over `inner` that hashes what passes through it.
struct Hashing<W: Write> {
    inner: W,
    hasher: Xxh3,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(bytes)?;
        self.hasher.update(&bytes[..written]);
        Ok(written)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes a run's checkpoints when they are due and keeps the newest two.
pub struct Checkpointer {
    options: CheckpointOptions,
    run: RunIdentity,
    /// When the last checkpoint was written (or the run started or resumed).
    last: Instant,
    /// Steps at the last checkpoint.
    last_steps: u64,
    /// Checkpoints written by this process.
    pub written: u64,
    /// Seconds spent writing them.
    pub seconds: f64,
    /// The last write's seconds.
    last_write_seconds: f64,
}

impl Checkpointer {
    /// Checkpoints of `run` into the prepared folder, the first due from now on.
    pub fn new(options: CheckpointOptions, run: RunIdentity) -> Checkpointer {
        Checkpointer {
            options,
            run,
            last: Instant::now(),
            last_steps: 0,
            written: 0,
            seconds: 0.0,
            last_write_seconds: 0.0,
        }
    }

    /// Where and how often it writes them, and whether the run resumes.
    pub fn options(&self) -> &CheckpointOptions {
        &self.options
    }

    /// The run its checkpoints are bound to.
    pub fn run(&self) -> &RunIdentity {
        &self.run
    }

    /// Counts the next interval from now and `steps`: the run resumed after that step.
    pub fn resumed_after(&mut self, steps: u64) {
        self.last = Instant::now();
        self.last_steps = steps;
    }

    /// Whether a checkpoint is due now that `steps` steps are done.
    fn due(&self, steps: u64) -> bool {
        let since = self.last.elapsed().as_secs_f64();
        match self.options.every {
            CheckpointEvery::Steps(every) => steps >= self.last_steps + every.max(1),
            CheckpointEvery::Interval(interval) => since >= interval.as_secs_f64(),
            CheckpointEvery::Auto => {
                let interval = match self.written {
                    0 => FIRST_INTERVAL,
                    _ => default_interval(self.last_write_seconds),
                };
                since >= interval.as_secs_f64()
            }
        }
    }

    /// Writes a checkpoint of `running` after `steps` steps if one is due.
    pub fn after_step(
        &mut self,
        steps: u64,
        running: &mut dyn Running,
    ) -> Result<(), CheckpointError> {
        if !self.due(steps) {
            return Ok(());
        }
        let started = Instant::now();
        self.write(steps, running)?;
        self.last_write_seconds = started.elapsed().as_secs_f64();
        self.seconds += self.last_write_seconds;
        self.written += 1;
        self.last = Instant::now();
        self.last_steps = steps;
        swapless_system::kill_at_test_point("after-checkpoint", self.written);
        Ok(())
    }

    fn write(&self, steps: u64, running: &mut dyn Running) -> Result<(), CheckpointError> {
        let path = self
            .options
            .folder
            .join(format!("step-{steps:010}{SUFFIX}"));
        let failed = |detail: String| CheckpointError::Write {
            path: path.clone(),
            detail,
        };
        let header = serde_json::to_vec(&Header {
            run: self.run.clone(),
            steps,
        })
        .map_err(|error| failed(error.to_string()))?;
        let output = OutputFile::create(&path).map_err(|error| failed(error.to_string()))?;
        let mut out = Hashing {
            inner: output,
            hasher: Xxh3::new(),
        };
        let io = |error: std::io::Error| failed(error.to_string());
        out.write_all(MAGIC).map_err(io)?;
        out.write_all(&(header.len() as u32).to_le_bytes())
            .map_err(io)?;
        out.write_all(&header).map_err(io)?;
        // Halfway through: the tests' kill here leaves a temporary and no checkpoint.
        swapless_system::kill_at_test_point("inside-checkpoint", self.written + 1);
        running.save(&mut StateWriter::new(&mut out)).map_err(io)?;
        let digest = out.hasher.digest();
        let mut output = out.inner;
        output.write_all(&digest.to_le_bytes()).map_err(io)?;
        output.commit().map_err(|error| failed(error.to_string()))?;
        // The newest two stay: the one before covers a newest one found damaged.
        for (_, old) in checkpoint_files(&self.options.folder)?
            .into_iter()
            .skip(KEPT)
        {
            let _ = std::fs::remove_file(old);
        }
        Ok(())
    }

    /// Removes the run's checkpoints once it has finished: a later run with the same
    /// folder starts afresh rather than from a finished run's middle.
    pub fn finished(&self) {
        if let Ok(files) = checkpoint_files(&self.options.folder) {
            for (_, path) in files {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_are_read_as_documented() {
        let cases = [
            ("auto", Some(CheckpointEvery::Auto)),
            ("10", Some(CheckpointEvery::Steps(10))),
            (
                "90s",
                Some(CheckpointEvery::Interval(Duration::from_secs(90))),
            ),
            (
                "1.5m",
                Some(CheckpointEvery::Interval(Duration::from_secs(90))),
            ),
            (
                "2h",
                Some(CheckpointEvery::Interval(Duration::from_secs(7200))),
            ),
            ("0", None),
            ("0s", None),
            ("-5s", None),
            ("soon", None),
            ("s", None),
            ("5d", None),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(CheckpointEvery::parse(text), expected, "{text:?}");
        }
    }

    #[test]
    fn the_default_interval_follows_young_and_caps_the_cost_at_five_percent() {
        // A write of 0.3 s against six hours between failures: about two minutes.
        let interval = default_interval(0.3).as_secs_f64();
        assert!((interval - (2.0f64 * 0.3 * 21_600.0).sqrt()).abs() < 1e-9);
        // A write so slow that Young's interval would spend more than 5% writing.
        assert_eq!(default_interval(1000.0), Duration::from_secs(20_000));
    }

    #[test]
    fn a_file_that_is_not_a_whole_checkpoint_is_named_as_such() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("step-0000000001.slck");
        let cases: [(&[u8], &str); 3] = [
            (b"short", "only 5 bytes long"),
            (&[0u8; 64], "its checksum does not match"),
            (
                b"SLCKPT01\xff\xff\xff\x7f0123456789abcdef",
                "its checksum does not match",
            ),
        ];
        for (bytes, expected) in cases {
            std::fs::write(&path, bytes).unwrap();
            let error = check_file(&path).unwrap_err();
            assert!(error.contains(expected), "{error}");
        }
        // Whole and sealed, but its header claims more than the file holds.
        let mut bytes = b"SLCKPT01\xff\xff\xff\x7f".to_vec();
        bytes.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&bytes).to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        assert!(check_file(&path).unwrap_err().contains("runs past its end"));
    }
}
