//! Temporaries left by builds that were killed (SIGKILL, the OOM killer, a power cut),
//! found and removed by the next build in the same folder.
//!
//! A build's sorted runs live in a `.swapless-build-*` folder whose `owner.lock` the
//! build holds locked, and every output is written under a locked
//! `.NAME.XXXXXX.partial` (see `swapless_format::output`). The lock goes with the
//! process, so a temporary nobody holds is one whose owner is gone.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

use swapless_format::output::{PARTIAL_SUFFIX, owner_is_gone};

/// Prefix of a build's folder of sorted runs.
pub const BUILD_FOLDER_PREFIX: &str = ".swapless-build-";

/// The file in a build's folder that the build holds locked while it lives.
pub const OWNER_LOCK: &str = "owner.lock";

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

/// Removes from `folder` the build folders and partial outputs whose owners are gone.
/// Anything that cannot be read or removed is left as it is: a sweep never fails a build.
pub fn remove_abandoned(folder: &Path) -> Removed {
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
            if owner_is_gone(&path.join(OWNER_LOCK), GRACE) {
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

/// Removes abandoned temporaries from each distinct folder of `folders`.
pub fn remove_abandoned_in(folders: &[PathBuf]) -> Removed {
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut removed = Removed::default();
    for folder in folders {
        let key = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.clone());
        if seen.contains(&key) {
            continue;
        }
        let here = remove_abandoned(folder);
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
        let removed = remove_abandoned(dir.path());
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
}
