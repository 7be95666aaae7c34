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

/// The process's peak resident set size so far (VmHWM in `/proc/self/status`).
pub fn peak_rss_bytes() -> Option<u64> {
    read_kib_field("/proc/self/status", "VmHWM:")
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
