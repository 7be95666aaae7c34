//! Swap space the harness sets up for the swap mode and removes afterwards: a new swap
//! file, or the `zram0` device (swap in compressed memory: the kernel's fault path with
//! no disk and no network, as far-memory swap systems use it). It never touches swap
//! that was set up before: it only ever turns off what it made.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Total swap the machine has enabled, from /proc/meminfo.
pub fn enabled_swap_bytes() -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    text.lines()
        .find_map(|line| line.strip_prefix("SwapTotal:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

/// Active swap space; turned off (and the file deleted, or the device reset) when dropped.
pub struct SwapFile {
    path: PathBuf,
    active: bool,
    /// Whether `path` is the zram device, reset rather than deleted.
    zram: bool,
}

/// The zram device the swap mode can use.
const ZRAM_DEVICE: &str = "/dev/zram0";
/// Its size control; 0 while unused.
const ZRAM_DISKSIZE: &str = "/sys/block/zram0/disksize";

impl SwapFile {
    /// Writes `size_bytes` of zeros at `path` (a new file: an existing one is refused),
    /// formats it as swap and enables it.
    pub fn create(path: &Path, size_bytes: u64) -> Result<SwapFile, String> {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|error| {
                format!(
                    "cannot create swap file {}: {error} (the harness only makes new files; pick a path that does not exist)",
                    path.display()
                )
            })?;
        // From here on the file is ours, so dropping the guard deletes it.
        let mut swap = SwapFile {
            path: path.to_path_buf(),
            active: false,
            zram: false,
        };
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
        }
        // Zeros rather than fallocate: swapon refuses files with unwritten extents on
        // some filesystems.
        let zeros = vec![0u8; 1 << 20];
        let mut left = size_bytes;
        while left > 0 {
            let step = left.min(zeros.len() as u64) as usize;
            file.write_all(&zeros[..step])
                .map_err(|error| format!("cannot write swap file {}: {error}", path.display()))?;
            left -= step as u64;
        }
        file.sync_all()
            .map_err(|error| format!("cannot write swap file {}: {error}", path.display()))?;
        drop(file);
        run_tool("mkswap", &swap.path)?;
        run_tool("swapon", &swap.path)?;
        swap.active = true;
        Ok(swap)
    }

    /// Sizes the unused zram device to `size_bytes` of swap and enables it.
    pub fn zram(size_bytes: u64) -> Result<SwapFile, String> {
        let disksize = std::fs::read_to_string(ZRAM_DISKSIZE).map_err(|error| {
            format!("there is no zram device here ({ZRAM_DISKSIZE}: {error}); load the zram module")
        })?;
        if disksize.trim() != "0" {
            return Err(format!(
                "{ZRAM_DEVICE} is in use (disksize {}); the harness only uses an unused device",
                disksize.trim()
            ));
        }
        let mut swap = SwapFile {
            path: PathBuf::from(ZRAM_DEVICE),
            active: false,
            zram: true,
        };
        std::fs::write(ZRAM_DISKSIZE, size_bytes.to_string())
            .map_err(|error| format!("cannot size {ZRAM_DEVICE}: {error}"))?;
        run_tool("mkswap", &swap.path)?;
        run_tool("swapon", &swap.path)?;
        swap.active = true;
        Ok(swap)
    }
}

/// Runs `mkswap` or `swapon` on `path`, turning a failure into one sentence.
fn run_tool(tool: &str, path: &Path) -> Result<(), String> {
    let output = Command::new(tool)
        .arg(path)
        .output()
        .map_err(|error| format!("cannot run {tool} (from util-linux): {error}"))?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "{tool} {} failed: {}",
        path.display(),
        String::from_utf8_lossy(&output.stderr).trim()
    ))
}

impl Drop for SwapFile {
    fn drop(&mut self) {
        if self.active {
            let turned_off = Command::new("swapoff")
                .arg(&self.path)
                .output()
                .is_ok_and(|output| output.status.success());
            if !turned_off {
                eprintln!(
                    "warning: could not turn off swap file {}; run `swapoff {0}` and delete it",
                    self.path.display()
                );
                return;
            }
        }
        if self.zram {
            // Frees the device's memory and leaves it unused, as it was found.
            if let Err(error) = std::fs::write("/sys/block/zram0/reset", "1") {
                eprintln!("warning: could not reset {ZRAM_DEVICE}: {error}");
            }
            return;
        }
        if let Err(error) = std::fs::remove_file(&self.path) {
            eprintln!(
                "warning: could not delete swap file {}: {error}",
                self.path.display()
            );
        }
    }
}
