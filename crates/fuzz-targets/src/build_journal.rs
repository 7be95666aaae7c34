//! A killed build's journal, as `build --resume` finds it beside the sorted runs the
//! build spilled.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use swapless_build::generators::{SyntheticKind, SyntheticSource};
use swapless_build::stale::{BUILD_FOLDER_PREFIX, OWNER_LOCK};
use swapless_build::{BuildOptions, BuildProgress, RESERVED_BYTES, build_graph};

use crate::scratch;

/// The journal's file name in a build folder.
const JOURNAL: &str = "journal.json";

/// What the builds here read and how, as the CLI would name it for `--resume`.
const RESUME_KEY: &str = "fuzz: kronecker scale 15 degree 18 weighted";

/// The least budget a build takes: its arc buffer then holds half a million weighted
/// edges, so the input below spills a run while reading and one at its end.
const MEMORY_BYTES: u64 = RESERVED_BYTES + (16 << 20);

/// The input: a Kronecker graph of 2^15 vertices and 590,000 weighted edges.
fn input() -> SyntheticSource {
    SyntheticSource::new(SyntheticKind::Kronecker, 15, 18, true, 27491095)
        .expect("valid generator options")
}

/// Bytes as the journal of a build killed after its last spill, in a folder holding
/// that build's runs. A build of the same input resumed from it must refuse it (and
/// build from the input) or use it: either way the output is the uninterrupted
/// build's, byte for byte.
pub fn build_journal(data: &[u8]) {
    let killed = killed_build();
    let parent = scratch().join("resumed-build");
    let _ = std::fs::remove_dir_all(&parent);
    let folder = parent.join(format!("{BUILD_FOLDER_PREFIX}killed"));
    std::fs::create_dir_all(&folder).expect("a build folder");
    for (name, bytes) in &killed.runs {
        std::fs::write(folder.join(name), bytes).expect("a run is written");
    }
    std::fs::write(folder.join(OWNER_LOCK), b"").expect("the lock file is written");
    std::fs::write(folder.join(JOURNAL), data).expect("the journal is written");
    let output = parent.join("resumed.sl");
    let options = BuildOptions {
        temp_dir: Some(parent.clone()),
        resume_key: Some(RESUME_KEY.to_string()),
        resume: true,
        ..BuildOptions::with_memory(MEMORY_BYTES)
    };
    if build_graph(&mut input(), &output, &options).is_ok() {
        let built = std::fs::read(&output).expect("the output is read");
        assert!(
            built == killed.whole,
            "a build resumed from this journal wrote another file than an uninterrupted build"
        );
    }
}

/// What an uninterrupted build leaves at each step: the journal after every spill
/// (the seeds), the run files once the last spill is journaled, and its output.
#[derive(Default)]
struct KilledBuild {
    /// Each journal the build wrote, in order.
    journals: Vec<Vec<u8>>,
    /// The build folder's run files after its last spill, by name.
    runs: Vec<(String, Vec<u8>)>,
    /// The uninterrupted build's output.
    whole: Vec<u8>,
}

/// The build folder's contents, taken at each phase of a build (a kill then would
/// leave them).
#[derive(Default)]
struct Snapshots {
    build: Mutex<KilledBuild>,
    parent: PathBuf,
}

impl BuildProgress for Snapshots {
    fn phase(&self, _name: &str, _total: Option<u64>) {
        self.take();
    }
    fn position(&self, _done: u64) {}
    fn edges_read(&self, _edges: u64) {
        self.take();
    }
}

impl Snapshots {
    /// Keeps the journal in the build folder when it is new, and the runs beside it.
    fn take(&self) {
        let Some(folder) = build_folder(&self.parent) else {
            return;
        };
        let Ok(journal) = std::fs::read(folder.join(JOURNAL)) else {
            return;
        };
        let mut build = self.build.lock().expect("no snapshot panicked");
        if build.journals.last() == Some(&journal) {
            return;
        }
        build.journals.push(journal);
        build.runs = std::fs::read_dir(&folder)
            .expect("the build folder is listed")
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("run-"))
            .map(|name| {
                let bytes = std::fs::read(folder.join(&name)).expect("a run is read");
                (name, bytes)
            })
            .collect();
    }
}

/// The one build folder in `parent`.
fn build_folder(parent: &Path) -> Option<PathBuf> {
    std::fs::read_dir(parent)
        .ok()?
        .flatten()
        .find(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .starts_with(BUILD_FOLDER_PREFIX)
        })
        .map(|entry| entry.path())
}

/// The uninterrupted build, once per process.
fn killed_build() -> &'static KilledBuild {
    static BUILD: OnceLock<KilledBuild> = OnceLock::new();
    BUILD.get_or_init(|| {
        let parent = scratch().join("whole-build");
        let _ = std::fs::remove_dir_all(&parent);
        std::fs::create_dir_all(&parent).expect("a build parent");
        let snapshots = std::sync::Arc::new(Snapshots {
            parent: parent.clone(),
            ..Snapshots::default()
        });
        let output = parent.join("whole.sl");
        let options = BuildOptions {
            temp_dir: Some(parent.clone()),
            resume_key: Some(RESUME_KEY.to_string()),
            progress: Some(snapshots.clone()),
            ..BuildOptions::with_memory(MEMORY_BYTES)
        };
        build_graph(&mut input(), &output, &options).expect("the input builds");
        let mut build = std::mem::take(&mut *snapshots.build.lock().expect("no snapshot panicked"));
        build.whole = std::fs::read(&output).expect("the output is read");
        // Left beside the output: they are the target's seeds.
        for (index, journal) in build.journals.iter().enumerate() {
            let name = format!("journal-after-spill-{}.json", index + 1);
            std::fs::write(parent.join(name), journal).expect("a journal is written");
        }
        assert!(
            build.journals.len() >= 2,
            "the build spilled fewer than two runs"
        );
        build
    })
}
