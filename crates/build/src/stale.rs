//! Temporaries left by builds that were killed (SIGKILL, the OOM killer, a power cut),
//! found and removed by the next build in the same folder.
//!
//! A build's sorted runs live in a `.swapless-build-*` folder whose `owner.lock` the
//! build holds locked, and every output is written under a locked
//! `.NAME.XXXXXX.partial` (see `swapless_format::output`). The lock goes with the
//! process, so a temporary nobody holds is one whose owner is gone.
//!
//! A killed build whose journal holds runs is kept for `--resume` of its own output:
//! only a build of that same output (resumed or not) removes it.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

use swapless_format::output::{PARTIAL_SUFFIX, owner_is_gone};

/// Prefix of a build's folder of sorted runs.
pub const BUILD_FOLDER_PREFIX: &str = ".swapless-build-";

/// The file in a build's folder that the build holds locked while it lives.
pub const OWNER_LOCK: &str = "owner.lock";

/// The journal's file name in a build folder (see `journal`).
pub(crate) const JOURNAL: &str = "journal.json";

/// Prefix of the probe files an output check makes and removes at once.
const PROBE_PREFIX: &str = ".swapless-probe-";

/// A temporary younger than this is left alone even when unlocked: its writer locks it
/// just after making it.
const GRACE: Duration = Duration::from_secs(1);

/// What a sweep removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Removed {
    /// Files and folders removed.
    pub temporaries: u64,
    /// Bytes they held.
    pub bytes: u64,
}

impl std::fmt::Display for Removed {
    /// "2 temporaries (368.99 MiB)".
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let noun = if self.temporaries == 1 {
            "temporary"
        } else {
            "temporaries"
        };
        write!(
            formatter,
            "{} {noun} ({})",
            self.temporaries,
            swapless_system::format_bytes(self.bytes)
        )
    }
}

/// Locks `folder`'s owner file, marking it as this process's until the returned file
/// is dropped.
pub fn claim_build_folder(folder: &Path) -> std::io::Result<File> {
    let lock = File::create(folder.join(OWNER_LOCK))?;
    // A file system without locks loses only the clean-up after a kill.
    let _ = lock.try_lock();
    Ok(lock)
}

/// The output a build writes, as its journal names it: the output's folder made
/// absolute, and its name.
pub fn output_identity(output: &Path) -> String {
    let folder = swapless_format::output::folder_of(output);
    let folder = std::fs::canonicalize(&folder).unwrap_or(folder);
    let name = output.file_name().unwrap_or_default();
    folder.join(name).to_string_lossy().into_owned()
}

/// The output of the killed build in `folder` whose runs `--resume` could reuse, if any.
fn resumable_output(folder: &Path) -> Option<String> {
    /// The part of a journal the sweep reads.
    #[derive(serde::Deserialize)]
    struct Resumable {
        #[serde(default)]
        output: String,
        #[serde(default)]
        raw: Option<serde::de::IgnoredAny>,
        spills: Vec<serde::de::IgnoredAny>,
        #[serde(default)]
        run_format: u32,
    }
    let bytes = std::fs::read(folder.join(JOURNAL)).ok()?;
    let journal: Resumable = serde_json::from_slice(&bytes).ok()?;
    // Runs of another layout are never resumed.
    let usable = journal.run_format == crate::run_file::RUN_FORMAT;
    (usable && (journal.raw.is_some() || !journal.spills.is_empty())).then_some(journal.output)
}

/// Removes from `folder` the build folders and partial outputs whose owners are gone,
/// but for the runs of a killed build of an output other than `building` (the output
/// being built, if any), which stay for its `--resume`. Anything that cannot be read or
/// removed is left as it is: a sweep never fails a build.
pub fn remove_abandoned(folder: &Path, building: Option<&Path>) -> Removed {
    let building = building.map(output_identity);
    let mut removed = Removed::default();
    let Ok(entries) = std::fs::read_dir(folder) else {
        return removed;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        if file_type.is_dir() && name.starts_with(BUILD_FOLDER_PREFIX) {
            let resumable_elsewhere =
                resumable_output(&path).is_some_and(|output| Some(&output) != building.as_ref());
            if !resumable_elsewhere && owner_is_gone(&path.join(OWNER_LOCK), GRACE) {
                let bytes = folder_bytes(&path);
                if std::fs::remove_dir_all(&path).is_ok() {
                    removed.temporaries += 1;
                    removed.bytes += bytes;
                }
            }
        } else if file_type.is_file()
            && ((name.starts_with('.') && name.ends_with(PARTIAL_SUFFIX))
                || name.starts_with(PROBE_PREFIX))
            && owner_is_gone(&path, GRACE)
        {
            let bytes = entry.metadata().map_or(0, |metadata| metadata.len());
            if std::fs::remove_file(&path).is_ok() {
                removed.temporaries += 1;
                removed.bytes += bytes;
            }
        }
    }
    removed
}

/// Removes abandoned temporaries from each distinct folder of `folders`, as
/// [`remove_abandoned`] does for a build of `building`.
pub fn remove_abandoned_in(folders: &[PathBuf], building: &Path) -> Removed {
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut removed = Removed::default();
    for folder in folders {
        let key = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.clone());
        if seen.contains(&key) {
            continue;
        }
        let here = remove_abandoned(folder, Some(building));
        removed.temporaries += here.temporaries;
        removed.bytes += here.bytes;
        seen.push(key);
    }
    removed
}

fn folder_bytes(folder: &Path) -> u64 {
    std::fs::read_dir(folder).map_or(0, |entries| {
        entries
            .flatten()
            .filter_map(|entry| entry.metadata().ok())
            .filter(|metadata| metadata.is_file())
            .map(|metadata| metadata.len())
            .sum()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn age(path: &Path) {
        let old = std::time::SystemTime::now() - Duration::from_secs(60);
        File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }

    #[test]
    fn only_temporaries_without_a_living_owner_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        // A build folder whose owner died: its lock file is old and unlocked.
        let dead = dir.path().join(".swapless-build-dead");
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join("run-1.bin"), vec![0u8; 1000]).unwrap();
        drop(claim_build_folder(&dead).unwrap());
        age(&dead.join(OWNER_LOCK));
        // A build folder whose owner lives: its lock is held.
        let live = dir.path().join(".swapless-build-live");
        std::fs::create_dir(&live).unwrap();
        let held = claim_build_folder(&live).unwrap();
        age(&live.join(OWNER_LOCK));
        // A partial output of a dead writer, one just made, and a user's own files.
        let partial = dir.path().join(".g.sl.abc123.partial");
        std::fs::write(&partial, vec![0u8; 500]).unwrap();
        age(&partial);
        let fresh = dir.path().join(".h.sl.def456.partial");
        std::fs::write(&fresh, b"new").unwrap();
        let user = dir.path().join("notes.partial");
        std::fs::write(&user, b"mine").unwrap();
        age(&user);
        let removed = remove_abandoned(dir.path(), None);
        assert_eq!(
            removed,
            Removed {
                temporaries: 2,
                bytes: 1500
            }
        );
        assert!(!dead.exists() && !partial.exists());
        assert!(live.exists() && fresh.exists() && user.exists());
        drop(held);
    }

    #[test]
    fn a_killed_builds_runs_stay_for_its_own_output_alone() {
        let dir = tempfile::tempdir().unwrap();
        let killed = dir.path().join(".swapless-build-killed");
        std::fs::create_dir(&killed).unwrap();
        let output = dir.path().join("g.sl");
        let journal = serde_json::json!({
            "key": "k",
            "output": output_identity(&output),
            "spills": [{}],
            "run_format": crate::run_file::RUN_FORMAT,
        });
        std::fs::write(killed.join(JOURNAL), journal.to_string()).unwrap();
        drop(claim_build_folder(&killed).unwrap());
        age(&killed.join(OWNER_LOCK));
        assert_eq!(remove_abandoned(dir.path(), None), Removed::default());
        let other = dir.path().join("other.sl");
        assert_eq!(
            remove_abandoned(dir.path(), Some(&other)),
            Removed::default()
        );
        assert!(killed.exists());
        assert_eq!(remove_abandoned(dir.path(), Some(&output)).temporaries, 1);
        assert!(!killed.exists());
        // Runs in a layout no build reads any more go whatever is being built.
        std::fs::create_dir(&killed).unwrap();
        let old =
            serde_json::json!({"key": "k", "output": output_identity(&output), "spills": [{}]});
        std::fs::write(killed.join(JOURNAL), old.to_string()).unwrap();
        drop(claim_build_folder(&killed).unwrap());
        age(&killed.join(OWNER_LOCK));
        assert_eq!(remove_abandoned(dir.path(), Some(&other)).temporaries, 1);
        assert!(!killed.exists());
    }
}
