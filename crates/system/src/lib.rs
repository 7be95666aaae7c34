//! Memory sizes as users write them, and what the machine and this process use.

/// Parses a size such as `512M`, `2G`, `1.5GiB`, `4096` (bytes) or `64k`.
///
/// Suffixes are binary (K = 1024); a trailing `B` or `iB` is accepted.
pub fn parse_size(text: &str) -> Option<u64> {
    let trimmed = text.trim();
    let lower = trimmed.to_ascii_lowercase();
    let without_b = lower
        .strip_suffix("ib")
        .or_else(|| lower.strip_suffix('b'))
        .unwrap_or(&lower);
    let (number, multiplier) = match without_b.chars().last()? {
        'k' => (&without_b[..without_b.len() - 1], 1u64 << 10),
        'm' => (&without_b[..without_b.len() - 1], 1u64 << 20),
        'g' => (&without_b[..without_b.len() - 1], 1u64 << 30),
        't' => (&without_b[..without_b.len() - 1], 1u64 << 40),
        _ => (without_b, 1),
    };
    let value: f64 = number.trim().parse().ok()?;
    if !value.is_finite() || value < 0.0 {
        return None;
    }
    Some((value * multiplier as f64).round() as u64)
}

/// Formats a byte count for people: `1.50 GiB`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.2} {}", UNITS[unit])
    }
}

/// Formats a least amount of bytes for people, rounded up at the shown precision, so
/// that the figure typed back as a size (`59.01M`) is never below the least.
pub fn format_bytes_up(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut unit = 0;
    while bytes as f64 >= 1024f64.powi(unit as i32 + 1) && unit + 1 < UNITS.len() {
        unit += 1;
    }
    if unit == 0 {
        return format!("{bytes} B");
    }
    let scale = 1024f64.powi(unit as i32);
    let hundredths = (bytes as f64 * 100.0 / scale).ceil();
    format!("{:.2} {}", hundredths / 100.0, UNITS[unit])
}

fn read_kib_field(file: &str, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|line| line.starts_with(field))?;
    let kib: u64 = line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// Total physical memory of the machine, from `/proc/meminfo`.
pub fn physical_memory_bytes() -> Option<u64> {
    read_kib_field("/proc/meminfo", "MemTotal:")
}

/// The memory this process may use: physical memory, or less when its memory cgroup
/// or one above it is limited (as a container's is), which the kernel enforces by
/// reclaiming and then killing.
pub fn usable_memory_bytes() -> Option<u64> {
    let physical = physical_memory_bytes()?;
    Some(cgroup_memory_limit_bytes().map_or(physical, |limit| limit.min(physical)))
}

/// The warning for a budget of `bytes` that is more than this process may use, naming the
/// setting as the caller's user wrote it (`--memory 1T`, `memory="1T"`); `None` if it fits.
pub fn beyond_usable_memory_warning(setting: &str, bytes: u64) -> Option<String> {
    let usable = usable_memory_bytes()?;
    (bytes > usable).then(|| {
        format!(
            "{setting} is more than the {} this process may use (physical memory, or its cgroup's limit), so a run that fills it may swap or be killed",
            format_bytes(usable)
        )
    })
}

/// The cgroup interface of a memory hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CgroupVersion {
    /// cgroup v1: the memory controller's own tree.
    V1,
    /// cgroup v2: the unified tree.
    V2,
}

impl CgroupVersion {
    /// The files that limit a cgroup's memory in this version.
    fn limit_files(self) -> &'static [&'static str] {
        match self {
            CgroupVersion::V1 => &["memory.limit_in_bytes"],
            // Past memory.high the kernel throttles and reclaims hard; a budget should
            // stay below it as below memory.max.
            CgroupVersion::V2 => &["memory.max", "memory.high"],
        }
    }
}

/// A mounted memory cgroup hierarchy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryCgroupMount {
    /// v1 or v2.
    pub version: CgroupVersion,
    /// Where it is mounted.
    pub mount_point: std::path::PathBuf,
    /// The cgroup the mount shows as its top (a container's own cgroup, often).
    pub root: String,
}

/// The memory cgroup hierarchies mounted here, from `/proc/self/mountinfo`: cgroup v2
/// trees whose controllers include memory, and cgroup v1's memory tree.
pub fn memory_cgroup_mounts() -> Vec<MemoryCgroupMount> {
    let text = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    text.lines().filter_map(memory_cgroup_mount).collect()
}

/// The memory cgroup hierarchy to make cgroups in: the unified tree when it has the
/// memory controller, else cgroup v1's memory tree.
pub fn main_memory_cgroup_mount() -> Option<MemoryCgroupMount> {
    let mut mounts = memory_cgroup_mounts();
    let index = mounts
        .iter()
        .position(|mount| mount.version == CgroupVersion::V2)
        .unwrap_or(0);
    (!mounts.is_empty()).then(|| mounts.swap_remove(index))
}

/// The memory cgroup mount a line of `/proc/self/mountinfo` describes, if it is one.
fn memory_cgroup_mount(line: &str) -> Option<MemoryCgroupMount> {
    // ID PARENT MAJOR:MINOR ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER_OPTIONS
    let (mount, filesystem) = line.split_once(" - ")?;
    let mount: Vec<&str> = mount.split(' ').collect();
    let filesystem: Vec<&str> = filesystem.split(' ').collect();
    let (root, mount_point) = (*mount.get(3)?, *mount.get(4)?);
    let mount_point = std::path::PathBuf::from(mount_point.replace("\\040", " "));
    let version = match *filesystem.first()? {
        "cgroup2" => {
            let controllers =
                std::fs::read_to_string(mount_point.join("cgroup.controllers")).unwrap_or_default();
            controllers
                .split_whitespace()
                .any(|name| name == "memory")
                .then_some(CgroupVersion::V2)?
        }
        "cgroup" => filesystem
            .get(2)?
            .split(',')
            .any(|option| option == "memory")
            .then_some(CgroupVersion::V1)?,
        _ => return None,
    };
    Some(MemoryCgroupMount {
        version,
        mount_point,
        root: root.to_string(),
    })
}

/// The lowest memory limit set on this process's cgroup or one above it, if any.
pub fn cgroup_memory_limit_bytes() -> Option<u64> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    lowest_cgroup_limit(&membership, &memory_cgroup_mounts())
}

/// The lowest limit on the cgroup that `membership` (the text of `/proc/PID/cgroup`)
/// names in each of `mounts`, or on any cgroup above it that the mount shows.
fn lowest_cgroup_limit(membership: &str, mounts: &[MemoryCgroupMount]) -> Option<u64> {
    let mut lowest: Option<u64> = None;
    for mount in mounts {
        // "0::/path" in v2; "N:controller,...:/path" in v1.
        let path = membership.lines().find_map(|line| {
            let mut fields = line.splitn(3, ':');
            let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
            let member = match mount.version {
                CgroupVersion::V2 => controllers.is_empty(),
                CgroupVersion::V1 => controllers.split(',').any(|name| name == "memory"),
            };
            member.then_some(path)
        });
        let Some(path) = path else {
            continue;
        };
        // The mount shows the tree from its root down; a cgroup outside that view (a
        // container that mounts only its own) is seen through the root alone.
        let below = match path.strip_prefix(mount.root.trim_end_matches('/')) {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => rest,
            _ => "",
        };
        let relative = std::path::Path::new(below.trim_start_matches('/'));
        for cgroup in relative.ancestors() {
            for file in mount.version.limit_files() {
                let text = std::fs::read_to_string(mount.mount_point.join(cgroup).join(file));
                // "max" (v2) means no limit; v1 writes a number near 2^63 instead.
                if let Some(limit) = text.ok().and_then(|text| text.trim().parse::<u64>().ok()) {
                    lowest = Some(lowest.map_or(limit, |lowest| lowest.min(limit)));
                }
            }
        }
    }
    lowest
}

/// The process's peak resident set size so far (VmHWM in `/proc/self/status`).
pub fn peak_rss_bytes() -> Option<u64> {
    read_kib_field("/proc/self/status", "VmHWM:")
}

/// Starts the peak resident set over from the current one (Linux 4.0 and later), so
/// that [`peak_rss_bytes`] gives the peak of what runs from now on rather than of the
/// process's whole life (an interpreter's earlier work, say). False where refused.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The process's current resident set size (VmRSS).
pub fn current_rss_bytes() -> Option<u64> {
    read_kib_field("/proc/self/status", "VmRSS:")
}

/// Anonymous huge-page memory of the whole machine (AnonHugePages in `/proc/meminfo`):
/// a cheap counter, unlike smaps_rollup, which walks this process's page tables.
pub fn system_anon_huge_page_bytes() -> Option<u64> {
    read_kib_field("/proc/meminfo", "AnonHugePages:")
}

/// Major and minor page faults of this process so far, from `/proc/self/stat`.
pub fn page_faults() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let fields: Vec<&str> = stat[stat.rfind(')')? + 2..].split_whitespace().collect();
    // minflt is field 10 and majflt field 12 of stat; here they sit at indexes 7 and 9.
    Some((fields.get(9)?.parse().ok()?, fields.get(7)?.parse().ok()?))
}

/// Gives the file system back the space of `file`'s bytes from `start` to `end`, which
/// then read as zeros (the length stays): a merge frees what it has read of its runs as it
/// goes. False where the file system cannot (or `file` is not open for writing); the
/// space is then freed when the file goes.
pub fn release_file_range(file: &std::fs::File, start: u64, end: u64) -> bool {
    use std::os::fd::AsRawFd;
    let (Ok(offset), Ok(length)) = (
        i64::try_from(start),
        i64::try_from(end.saturating_sub(start)),
    ) else {
        return false;
    };
    // SAFETY: fallocate reads and writes no memory of this process; the descriptor is
    // open for as long as `file` is borrowed.
    let result = unsafe {
        libc::fallocate(
            file.as_raw_fd(),
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            offset,
            length,
        )
    };
    result == 0
}

/// Kills this process with SIGKILL when `SWAPLESS_TEST_KILL` is `POINT:COUNT`, for the
/// tests that check a run, build or push resumes from wherever a kill leaves it (the
/// points: `after-checkpoint`, `inside-checkpoint`, `after-spill`, `after-copy`,
/// `push-batch`). Compiled in only with the `test-hooks` feature (the CLI's integration
/// tests turn it on); without it nothing is read from the environment.
#[cfg(feature = "test-hooks")]
pub fn kill_at_test_point(point: &str, count: u64) {
    let Ok(asked) = std::env::var("SWAPLESS_TEST_KILL") else {
        return;
    };
    if asked.split_once(':') == Some((point, &count.to_string())) {
        // SAFETY: kill(2) on this process's own id with SIGKILL touches no memory; the
        // process ends as a kill from outside would end it.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
    }
}

/// Without the `test-hooks` feature no test point kills: nothing to do.
#[cfg(not(feature = "test-hooks"))]
#[inline(always)]
pub fn kill_at_test_point(_point: &str, _count: u64) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_least_size_read_back_is_never_below_it() {
        for bytes in [
            1,
            1023,
            1025,
            1_572_865,
            61_865_985,
            (59 << 20) + 1,
            5 << 30,
        ] {
            let shown = format_bytes_up(bytes);
            let typed = shown
                .replace(" KiB", "K")
                .replace(" MiB", "M")
                .replace(" GiB", "G");
            let typed = typed.replace(" B", "");
            assert!(parse_size(&typed).unwrap() >= bytes, "{bytes}: {shown}");
        }
    }

    #[test]
    fn the_lowest_cgroup_limit_above_a_process_counts_in_either_version() {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("v2/a/memory.max", "max\n");
        write("v2/a/b/memory.max", "1073741824\n");
        write("v2/a/b/memory.high", "805306368\n");
        write("v2/a/b/c/memory.max", "max\n");
        write("v1/memory.limit_in_bytes", "9223372036854771712\n");
        write("v1/x/memory.limit_in_bytes", "536870912\n");
        let mount = |version, folder: &str, root: &str| MemoryCgroupMount {
            version,
            mount_point: dir.path().join(folder),
            root: root.to_string(),
        };
        let v2 = [mount(CgroupVersion::V2, "v2", "/")];
        // memory.high below memory.max, two levels up, is the limit.
        assert_eq!(lowest_cgroup_limit("0::/a/b/c\n", &v2), Some(805306368));
        assert_eq!(lowest_cgroup_limit("0::/a\n", &v2), None);
        // A v1 line is not a v2 membership.
        assert_eq!(lowest_cgroup_limit("4:memory:/a/b\n", &v2), None);
        let v1 = [mount(CgroupVersion::V1, "v1", "/")];
        let membership = "5:devices:/x\n4:cpu,memory:/x/y\n0::/\n";
        assert_eq!(lowest_cgroup_limit(membership, &v1), Some(536870912));
        // A container that mounts only its own cgroup: seen through the mount's root.
        let own = [mount(CgroupVersion::V1, "v1/x", "/docker/abc")];
        assert_eq!(
            lowest_cgroup_limit("4:memory:/docker/abc\n", &own),
            Some(536870912)
        );
        assert_eq!(
            lowest_cgroup_limit("4:memory:/docker/abcd\n", &own),
            Some(536870912)
        );
    }

    #[test]
    fn memory_cgroup_mounts_are_read_from_mountinfo_lines() {
        let v1 =
            "41 31 0:36 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory";
        assert_eq!(
            memory_cgroup_mount(v1),
            Some(MemoryCgroupMount {
                version: CgroupVersion::V1,
                mount_point: "/sys/fs/cgroup/memory".into(),
                root: "/".to_string(),
            })
        );
        let cpu = "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu";
        assert_eq!(memory_cgroup_mount(cpu), None);
        let disk = "23 1 254:0 / / rw,relatime - ext4 /dev/vda rw";
        assert_eq!(memory_cgroup_mount(disk), None);
        // The usable memory is never more than the machine has.
        assert!(usable_memory_bytes().unwrap() <= physical_memory_bytes().unwrap());
    }

    #[test]
    fn sizes_parse_like_people_write_them() {
        assert_eq!(parse_size("512M"), Some(512 << 20));
        assert_eq!(parse_size("2G"), Some(2 << 30));
        assert_eq!(parse_size("2GiB"), Some(2 << 30));
        assert_eq!(parse_size("1.5g"), Some(3 << 29));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("64kB"), Some(64 << 10));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("-1G"), None);
        assert_eq!(parse_size(""), None);
    }

    #[test]
    fn process_memory_is_readable() {
        assert!(peak_rss_bytes().unwrap() >= current_rss_bytes().unwrap() / 2);
        assert!(physical_memory_bytes().unwrap() > 0);
    }

    #[test]
    fn the_peak_starts_over_from_the_current_resident_set() {
        // Touch 64 MiB, free it, and start the peak over: it falls back near the
        // current resident set.
        let touched = vec![1u8; 64 << 20];
        assert!(touched.iter().step_by(4096).all(|&byte| byte == 1));
        drop(touched);
        let before = peak_rss_bytes().unwrap();
        if reset_peak_rss() {
            let after = peak_rss_bytes().unwrap();
            assert!(
                after + (32 << 20) < before,
                "{after} after, {before} before"
            );
        }
    }

    #[test]
    fn a_released_range_reads_as_zeros_and_keeps_the_length() {
        use std::io::{Read, Write};
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&vec![7u8; 3 << 20]).unwrap();
        if !release_file_range(&file, 0, 2 << 20) {
            return; // a file system without hole punching keeps the bytes; nothing to see
        }
        let mut bytes = Vec::new();
        let mut reader = &file;
        std::io::Seek::rewind(&mut reader).unwrap();
        reader.read_to_end(&mut bytes).unwrap();
        assert_eq!(bytes.len(), 3 << 20);
        assert!(bytes[..2 << 20].iter().all(|&b| b == 0));
        assert!(bytes[2 << 20..].iter().all(|&b| b == 7));
    }
}
