//! Memory cgroups (v1 or v2) that hold one trial's process, so that everything it
//! charges, page cache included, stays under the trial's limit.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Prefix of every cgroup the harness makes, so stale ones can be found and removed.
const NAME_PREFIX: &str = "swapless-bench-";

/// Which cgroup interface the machine offers for memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hierarchy {
    /// cgroup v2: one unified tree whose root enables the memory controller.
    V2(PathBuf),
    /// cgroup v1: the memory controller's own tree.
    V1(PathBuf),
}

impl Hierarchy {
    /// The memory hierarchy of this machine, if one is mounted and writable.
    pub fn detect() -> Option<Hierarchy> {
        use swapless_system::{CgroupVersion, main_memory_cgroup_mount};
        let mount = main_memory_cgroup_mount()?;
        let found = Some(match mount.version {
            CgroupVersion::V2 => Hierarchy::V2(mount.mount_point),
            CgroupVersion::V1 => Hierarchy::V1(mount.mount_point),
        });
        let root = found.as_ref()?.root();
        // Root alone may make cgroups; a probe directory tells without guessing.
        let probe = root.join(format!("{NAME_PREFIX}probe-{}", std::process::id()));
        std::fs::create_dir(&probe).ok()?;
        let _ = std::fs::remove_dir(&probe);
        found
    }

    fn root(&self) -> &Path {
        match self {
            Hierarchy::V2(root) | Hierarchy::V1(root) => root,
        }
    }

    /// "v1" or "v2", for reports.
    pub fn version(&self) -> &'static str {
        match self {
            Hierarchy::V2(_) => "v2",
            Hierarchy::V1(_) => "v1",
        }
    }

    /// Removes empty cgroups left by harness runs that were killed outright.
    pub fn remove_stale(&self) {
        let Ok(entries) = std::fs::read_dir(self.root()) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Some(owner) = name.strip_prefix(NAME_PREFIX) else {
                continue;
            };
            let owner_pid = owner.split('-').next().unwrap_or("");
            let owner_alive = Path::new("/proc").join(owner_pid).exists();
            if !owner_alive {
                // rmdir fails on a cgroup that still has processes: exactly what we want.
                let _ = std::fs::remove_dir(entry.path());
            }
        }
    }

    /// Makes a fresh cgroup limited to `limit_bytes` of memory (swap unlimited).
    pub fn create(&self, trial: usize, limit_bytes: u64) -> io::Result<Cgroup> {
        let path = self
            .root()
            .join(format!("{NAME_PREFIX}{}-{trial}", std::process::id()));
        std::fs::create_dir(&path)?;
        let cgroup = Cgroup {
            path,
            version: self.clone(),
        };
        match self {
            Hierarchy::V2(root) => {
                // A child of the root gets the memory controller only if the root hands it down.
                let _ = std::fs::write(root.join("cgroup.subtree_control"), "+memory");
                std::fs::write(cgroup.path.join("memory.max"), limit_bytes.to_string())?;
                let _ = std::fs::write(cgroup.path.join("memory.swap.max"), "max");
            }
            Hierarchy::V1(_) => {
                std::fs::write(
                    cgroup.path.join("memory.limit_in_bytes"),
                    limit_bytes.to_string(),
                )?;
            }
        }
        Ok(cgroup)
    }
}

/// One trial's cgroup; removed when dropped.
pub struct Cgroup {
    path: PathBuf,
    version: Hierarchy,
}

impl Cgroup {
    /// Makes `command`'s process join this cgroup between fork and exec, so that
    /// not one page it touches is charged outside the limit.
    pub fn put(&self, command: &mut Command) -> io::Result<()> {
        use std::os::unix::process::CommandExt;
        let procs = CString::new(self.path.join("cgroup.procs").as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "cgroup path has a NUL"))?;
        // SAFETY: the closure runs in the forked child before exec, where only
        // async-signal-safe calls are allowed: open, write and close on a path and a
        // buffer made before the fork; nothing allocates or takes a lock.
        unsafe {
            command.pre_exec(move || {
                let descriptor = libc::open(procs.as_ptr(), libc::O_WRONLY);
                if descriptor < 0 {
                    return Err(io::Error::last_os_error());
                }
                // "0" means the writing process itself.
                let written = libc::write(descriptor, b"0".as_ptr().cast(), 1);
                let error = io::Error::last_os_error();
                libc::close(descriptor);
                if written != 1 {
                    return Err(error);
                }
                Ok(())
            });
        }
        Ok(())
    }

    /// The most memory the cgroup was charged, page cache included, if the kernel tells.
    pub fn peak_bytes(&self) -> Option<u64> {
        let file = match self.version {
            Hierarchy::V2(_) => "memory.peak",
            Hierarchy::V1(_) => "memory.max_usage_in_bytes",
        };
        std::fs::read_to_string(self.path.join(file))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// How many times the kernel killed a process of this cgroup for lack of memory.
    pub fn out_of_memory_kills(&self) -> u64 {
        let file = match self.version {
            Hierarchy::V2(_) => "memory.events",
            Hierarchy::V1(_) => "memory.oom_control",
        };
        let text = std::fs::read_to_string(self.path.join(file)).unwrap_or_default();
        text.lines()
            .find_map(|line| line.strip_prefix("oom_kill "))
            .and_then(|count| count.trim().parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        // The trial's process has exited; its page cache charges move to the parent.
        if let Hierarchy::V1(_) = self.version {
            let _ = std::fs::write(self.path.join("memory.force_empty"), "0");
        }
        for _ in 0..50 {
            if std::fs::remove_dir(&self.path).is_ok() || !self.path.exists() {
                return;
            }
            // A dying process may linger in cgroup.procs for a moment.
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        eprintln!(
            "warning: could not remove cgroup {}; remove it with rmdir",
            self.path.display()
        );
    }
}
