//! Machine-wide counters read before and after a trial: CPU time by state
//! (/proc/stat), the graph's disk (/proc/diskstats) and swapping (/proc/vmstat).

use std::path::Path;

use serde::Serialize;

/// One reading of the counters.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// CPU time in clock ticks: user (with nice), system (with irq and softirq), idle, iowait, steal.
    cpu_ticks: [u64; 5],
    disk: DiskCounters,
    swap_ins: u64,
    swap_outs: u64,
    major_faults: u64,
}

#[derive(Clone, Debug, Default)]
struct DiskCounters {
    reads: u64,
    sectors_read: u64,
    writes: u64,
    sectors_written: u64,
    /// Sum over requests of the milliseconds each spent in flight (field 11).
    weighted_milliseconds: u64,
}

/// What happened on the machine during a trial.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SystemFigures {
    /// CPU seconds in user mode, summed over cores.
    pub cpu_user_seconds: f64,
    /// CPU seconds in the kernel (system, irq, softirq).
    pub cpu_system_seconds: f64,
    /// CPU seconds idle with no I/O outstanding.
    pub cpu_idle_seconds: f64,
    /// CPU seconds idle while I/O was outstanding.
    pub cpu_iowait_seconds: f64,
    /// CPU seconds the hypervisor gave to someone else.
    pub cpu_steal_seconds: f64,
    /// Read requests the disk completed.
    pub disk_reads: u64,
    /// Write requests the disk completed.
    pub disk_writes: u64,
    /// Bytes read from the disk.
    pub disk_read_bytes: u64,
    /// Bytes written to the disk.
    pub disk_write_bytes: u64,
    /// Requests per second, reads and writes.
    pub disk_iops: f64,
    /// Requests in flight on average (the queue depth the device saw).
    pub disk_mean_in_flight: f64,
    /// Pages swapped in.
    pub swap_ins: u64,
    /// Pages swapped out.
    pub swap_outs: u64,
    /// Major page faults, machine-wide.
    pub major_faults: u64,
}

/// The /proc/diskstats name and numbers of the device that holds `path`.
#[derive(Clone, Debug)]
pub struct Disk {
    /// Device name as in /proc/diskstats (e.g. vda, nvme0n1p2).
    pub name: String,
    major: u64,
    minor: u64,
}

impl Disk {
    /// The device that holds `path`, if /proc/diskstats lists it (not on tmpfs or overlays).
    pub fn holding(path: &Path) -> Option<Disk> {
        use std::os::unix::fs::MetadataExt;
        let device = std::fs::metadata(path).ok()?.dev();
        let (major, minor) = (libc::major(device) as u64, libc::minor(device) as u64);
        let text = std::fs::read_to_string("/proc/diskstats").ok()?;
        text.lines().find_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let matches = fields.len() > 3
                && fields[0].parse() == Ok(major)
                && fields[1].parse() == Ok(minor);
            matches.then(|| Disk {
                name: fields[2].to_string(),
                major,
                minor,
            })
        })
    }
}

impl Snapshot {
    /// Reads the counters now; counters that cannot be read stay zero.
    pub fn take(disk: Option<&Disk>) -> Snapshot {
        let mut snapshot = Snapshot::default();
        let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
        if let Some(line) = stat.lines().find(|line| line.starts_with("cpu ")) {
            let ticks: Vec<u64> = line
                .split_whitespace()
                .skip(1)
                .map(|field| field.parse().unwrap_or(0))
                .collect();
            let tick = |index: usize| ticks.get(index).copied().unwrap_or(0);
            // user nice system idle iowait irq softirq steal
            snapshot.cpu_ticks = [
                tick(0) + tick(1),
                tick(2) + tick(5) + tick(6),
                tick(3),
                tick(4),
                tick(7),
            ];
        }
        if let Some(disk) = disk {
            let text = std::fs::read_to_string("/proc/diskstats").unwrap_or_default();
            for line in text.lines() {
                let fields: Vec<u64> = line
                    .split_whitespace()
                    .map(|field| field.parse().unwrap_or(0))
                    .collect();
                if fields.len() > 13 && fields[0] == disk.major && fields[1] == disk.minor {
                    snapshot.disk = DiskCounters {
                        reads: fields[3],
                        sectors_read: fields[5],
                        writes: fields[7],
                        sectors_written: fields[9],
                        weighted_milliseconds: fields[13],
                    };
                }
            }
        }
        let vmstat = std::fs::read_to_string("/proc/vmstat").unwrap_or_default();
        for line in vmstat.lines() {
            let mut fields = line.split_whitespace();
            let (Some(name), Some(value)) = (fields.next(), fields.next()) else {
                continue;
            };
            let value = value.parse().unwrap_or(0);
            match name {
                "pswpin" => snapshot.swap_ins = value,
                "pswpout" => snapshot.swap_outs = value,
                "pgmajfault" => snapshot.major_faults = value,
                _ => {}
            }
        }
        snapshot
    }

    /// The figures between `self` (before) and `after`, over `seconds` of wall time.
    pub fn figures_until(&self, after: &Snapshot, seconds: f64) -> SystemFigures {
        // SAFETY: sysconf only reads a configuration value.
        let ticks_per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
        let cpu = |index: usize| {
            after.cpu_ticks[index].saturating_sub(self.cpu_ticks[index]) as f64 / ticks_per_second
        };
        let disk_reads = after.disk.reads.saturating_sub(self.disk.reads);
        let disk_writes = after.disk.writes.saturating_sub(self.disk.writes);
        let weighted = after
            .disk
            .weighted_milliseconds
            .saturating_sub(self.disk.weighted_milliseconds);
        let per_second = |count: f64| if seconds > 0.0 { count / seconds } else { 0.0 };
        SystemFigures {
            cpu_user_seconds: cpu(0),
            cpu_system_seconds: cpu(1),
            cpu_idle_seconds: cpu(2),
            cpu_iowait_seconds: cpu(3),
            cpu_steal_seconds: cpu(4),
            disk_reads,
            disk_writes,
            disk_read_bytes: after
                .disk
                .sectors_read
                .saturating_sub(self.disk.sectors_read)
                * 512,
            disk_write_bytes: after
                .disk
                .sectors_written
                .saturating_sub(self.disk.sectors_written)
                * 512,
            disk_iops: per_second((disk_reads + disk_writes) as f64),
            disk_mean_in_flight: per_second(weighted as f64 / 1000.0),
            swap_ins: after.swap_ins.saturating_sub(self.swap_ins),
            swap_outs: after.swap_outs.saturating_sub(self.swap_outs),
            major_faults: after.major_faults.saturating_sub(self.major_faults),
        }
    }
}
