//! `swapless bench` on a tiny graph: every mode this machine can run, the CSV schema,
//! the figures, and cleanup of cgroups and swap files, Ctrl-C included.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{arg, generate_kron, swapless_fails};
use serde_json::Value;

/// The harness's tests share cgroups, swap and the page cache: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A kron graph dense enough (degree 64) that its lists dwarf the process's own memory.
fn tiny_graph(dir: &Path) -> std::path::PathBuf {
    let graph = dir.join("kron16.sl");
    generate_kron(&graph, 16, 64, &[]);
    graph
}

/// Cgroups the harness run with process id `pid` made that still exist.
fn leftover_cgroups(pid: u32) -> Vec<String> {
    let mut left = Vec::new();
    for root in [
        "/sys/fs/cgroup",
        "/sys/fs/cgroup/memory",
        "/sys/fs/cgroup/unified",
    ] {
        if let Ok(entries) = std::fs::read_dir(root) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with(&format!("swapless-bench-{pid}-")) {
                    left.push(format!("{root}/{name}"));
                }
            }
        }
    }
    left
}

fn swap_is_enabled(path: &Path) -> bool {
    std::fs::read_to_string("/proc/swaps")
        .unwrap_or_default()
        .contains(path.to_str().unwrap())
}

/// Where the named column sits in trials.csv's `header`, the harness's one list of them.
fn column_in(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|column| column == name)
        .unwrap_or_else(|| panic!("trials.csv has no column {name}: {header:?}"))
}

/// Splits a CSV line written by the harness (quoted cells may hold commas).
fn csv_cells(line: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    let mut quoted = false;
    let mut characters = line.chars().peekable();
    while let Some(character) = characters.next() {
        match (character, quoted) {
            ('"', true) if characters.peek() == Some(&'"') => {
                characters.next();
                cells.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => cells.push(String::new()),
            (other, _) => cells.last_mut().unwrap().push(other),
        }
    }
    cells
}

fn matplotlib_available() -> bool {
    Command::new("python3")
        .args(["-c", "import matplotlib"])
        .output()
        .is_ok_and(|output| output.status.success())
}

#[test]
fn bench_runs_every_mode_it_can_writes_the_schema_and_cleans_up() {
    let _guard = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let graph = tiny_graph(dir.path());
    let out = dir.path().join("out");
    let swap = dir.path().join("bench.swap");
    let child = Command::new(env!("CARGO_BIN_EXE_swapless"))
        .args([
            "bench",
            "--graph",
            arg(&graph),
            "--kernels",
            "bfs,pr,cc",
            "--budgets",
            "100,85",
            "--trials",
            "1",
            "--chunks",
            "64K,256K",
            "--hugepages",
            "0,0.5",
            "--swap-file",
            arg(&swap),
            "--swap-size",
            "128M",
            "--out",
            arg(&out),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "bench failed:\n{stderr}");

    let environment: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let limited = !environment["cgroup"].is_null();
    let swap_skipped =
        stderr.contains("swap mode skipped") || stderr.contains("swap mode is skipped");
    if !limited {
        assert!(stderr.contains("no writable memory cgroup"), "{stderr}");
    }

    let csv = std::fs::read_to_string(out.join("trials.csv")).unwrap();
    let mut lines = csv.lines();
    let header = csv_cells(lines.next().unwrap());
    let rows: Vec<Vec<String>> = lines.map(csv_cells).collect();
    let column = |name: &str| column_in(&header, name);
    for row in &rows {
        assert_eq!(row.len(), header.len(), "row {row:?}");
        let status = &row[column("status")];
        // Under a tight limit the kernel may kill the swap baseline rather than wait for
        // its swap writes (seen here on a slow disk at 85%); the harness records that as
        // the baseline's outcome. swapless's own modes must finish or be refused.
        let swap_killed = row[column("mode")] == "swap"
            && status == "out-of-memory"
            && row[column("message")].contains("out-of-memory killer");
        assert!(
            ["ok", "refused"].contains(&status.as_str()) || swap_killed,
            "a trial ended {status}: {row:?}\n{stderr}"
        );
        if status == "ok" {
            let seconds: f64 = row[column("seconds")].parse().unwrap();
            let slowdown: f64 = row[column("slowdown")].parse().unwrap();
            assert!(seconds > 0.0 && slowdown > 0.0, "{row:?}");
        }
    }
    let count = |mode: &str, ocf: &str| {
        rows.iter()
            .filter(|row| {
                row[column("mode")] == mode && (ocf.is_empty() || row[column("ocf")] == ocf)
            })
            .count()
    };
    // 3 kernels x 2 huge-page fractions: one dram trial each, and for each of 2 budgets
    // one trial per chunk size for mmap and direct.
    assert_eq!(count("dram", ""), 6);
    assert_eq!(count("mmap", ""), 6 * 2 * 2);
    assert_eq!(count("direct", ""), 6 * 2 * 2);
    for row in rows.iter().filter(|row| row[column("mode")] == "dram") {
        assert_eq!(row[column("status")], "ok");
        assert_eq!(row[column("slowdown")], "1.0");
    }
    if limited && !swap_skipped {
        assert_eq!(count("swap", "1"), 6 * 2);
        assert_eq!(count("swap", "16"), 6 * 2);
        for row in rows.iter().filter(|row| row[column("mode")] == "swap") {
            let threads: usize = row[column("threads")].parse().unwrap();
            let ocf: usize = row[column("ocf")].parse().unwrap();
            assert_eq!(threads % ocf, 0);
            // At the dram peak nothing needs to swap: these must run.
            if row[column("budget_percent")] == "100.0" {
                assert_eq!(row[column("status")], "ok", "{row:?}");
            }
        }
    } else {
        assert_eq!(count("swap", ""), 0);
    }
    // Under a cgroup, the disk tiers get the limit less the runtime allowance, and the
    // cgroup never held more than its limit.
    for row in rows.iter().filter(|row| row[column("status")] == "ok") {
        if !limited || row[column("mode")] == "dram" {
            continue;
        }
        let limit: u64 = row[column("limit_bytes")].parse().unwrap();
        let peak: u64 = row[column("cgroup_peak_bytes")].parse().unwrap_or(0);
        assert!(
            peak <= limit,
            "cgroup peak {peak} above its limit {limit}: {row:?}"
        );
        if row[column("mode")] != "swap" {
            let engine: u64 = row[column("engine_memory_bytes")].parse().unwrap();
            assert_eq!(engine, limit - (16 << 20));
        }
    }

    let jsonl = std::fs::read_to_string(out.join("trials.jsonl")).unwrap();
    let records: Vec<Value> = jsonl
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(records.len(), rows.len());
    // Each CSV row is its trial's JSON record without the report: a field the record
    // gains or loses without the CSV's columns would leave a column empty.
    let mut columns = header.clone();
    columns.sort();
    for record in &records {
        let mut fields: Vec<String> = record.as_object().unwrap().keys().cloned().collect();
        fields.retain(|field| field != "report");
        fields.sort();
        assert_eq!(fields, columns, "{record}");
        if record["status"] == "ok" {
            assert_eq!(record["report"]["kernel"], record["kernel"]);
            assert_eq!(record["report"]["threads"], record["threads"]);
        }
    }

    if matplotlib_available() {
        for figure in [
            "slowdown.png",
            "time_breakdown.png",
            "queue_depth.png",
            "chunks.png",
            "hugepages.png",
        ] {
            let bytes = std::fs::read(out.join(figure))
                .unwrap_or_else(|_| panic!("{figure} was not drawn:\n{stderr}"));
            assert!(bytes.starts_with(b"\x89PNG"), "{figure} is not a PNG");
        }
    } else {
        eprintln!("matplotlib is missing here, so the figures were not checked");
    }

    assert!(!swap.exists(), "the swap file was left behind");
    assert!(!swap_is_enabled(&swap));
    assert_eq!(leftover_cgroups(pid), Vec::<String>::new());
}

#[test]
fn ctrl_c_stops_bench_and_removes_its_cgroup_and_swap_file() {
    let _guard = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let graph = tiny_graph(dir.path());
    let out = dir.path().join("out");
    let swap = dir.path().join("interrupted.swap");
    let child = Command::new(env!("CARGO_BIN_EXE_swapless"))
        .args([
            "bench",
            "--graph",
            arg(&graph),
            "--kernels",
            "pr",
            "--budgets",
            "90,80,70,60,50",
            "--trials",
            "20",
            "--swap-file",
            arg(&swap),
            "--swap-size",
            "64M",
            "--no-figures",
            "--out",
            arg(&out),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the first trials under a limit (or, without root, any trial at all).
    let started = Instant::now();
    loop {
        let csv = std::fs::read_to_string(out.join("trials.csv")).unwrap_or_default();
        if csv.lines().count() > 22 || started.elapsed() > Duration::from_secs(120) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: kill sends a signal to the child this test started.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let pid = child.id();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    // Every finished trial is kept, each on a whole line.
    let csv = std::fs::read_to_string(out.join("trials.csv")).unwrap();
    assert!(csv.ends_with('\n'));
    assert!(csv.lines().count() > 1);
    assert!(!swap.exists(), "the swap file was left behind");
    assert!(!swap_is_enabled(&swap));
    assert_eq!(leftover_cgroups(pid), Vec::<String>::new());
}

#[test]
fn bench_refuses_bad_options_in_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.sl");
    for args in [
        vec!["bench", "--graph", arg(&missing), "--budgets", "0"],
        vec!["bench", "--graph", arg(&missing), "--ocf", "0"],
        vec!["bench", "--graph", arg(&missing), "--chunks", "3K"],
        vec!["bench", "--graph", arg(&missing), "--hugepages", "2"],
        vec!["bench", "--graph", arg(&missing), "--swap-size", "1G"],
        vec!["bench", "--graph", arg(&missing)],
        vec!["bench", "--figures-only", "--out", arg(dir.path())],
    ] {
        swapless_fails(&args);
    }
}

#[test]
fn far_mode_pushes_to_servers_it_starts_and_stops_them() {
    let _guard = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let graph = tiny_graph(dir.path());
    let out = dir.path().join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_swapless"))
        .args([
            "bench",
            "--graph",
            arg(&graph),
            "--kernels",
            "pr,cc",
            "--budgets",
            "150",
        ])
        .args([
            "--modes",
            "dram,far",
            "--far-local",
            "3",
            "--trials",
            "1",
            "--no-figures",
        ])
        .args(["--out", arg(&out)])
        .env("SWAPLESS_CACHE_DIR", dir.path().join("cache"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "bench failed:\n{stderr}");
    let csv = std::fs::read_to_string(out.join("trials.csv")).unwrap();
    let header = csv_cells(csv.lines().next().unwrap());
    let column = |name: &str| column_in(&header, name);
    let far: Vec<Vec<String>> = csv
        .lines()
        .skip(1)
        .map(csv_cells)
        .filter(|row| row[column("mode")] == "far")
        .collect();
    assert_eq!(far.len(), 2, "{csv}");
    for row in &far {
        assert_eq!(row[column("status")], "ok", "{row:?}\n{stderr}");
        assert!(
            row[column("bytes_read")].parse::<u64>().unwrap() > 0,
            "{row:?}"
        );
    }
    // The servers it started are gone.
    let folder = out.join("far-servers");
    assert!(folder.is_dir());
    let listening = Command::new("pgrep")
        .args(["-f", folder.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(listening.stdout.is_empty(), "redis-server left running");
}

#[test]
fn swap_on_zram_is_set_up_for_the_run_and_reset_after() {
    let _guard = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    let disksize = "/sys/block/zram0/disksize";
    let unused = std::fs::read_to_string(disksize).is_ok_and(|size| size.trim() == "0");
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0"));
    if !(unused && root) {
        eprintln!("skipped: needs root and an unused /dev/zram0 (the machine, not the data)");
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let graph = tiny_graph(dir.path());
    let out = dir.path().join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_swapless"))
        .args([
            "bench",
            "--graph",
            arg(&graph),
            "--kernels",
            "pr",
            "--budgets",
            "85",
        ])
        .args([
            "--modes",
            "dram,swap",
            "--swap-device",
            "zram",
            "--swap-size",
            "256M",
        ])
        .args([
            "--ocf",
            "1",
            "--trials",
            "1",
            "--no-figures",
            "--out",
            arg(&out),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "bench failed:\n{stderr}");
    assert!(stderr.contains("swap on zram"), "{stderr}");
    let csv = std::fs::read_to_string(out.join("trials.csv")).unwrap();
    let header = csv_cells(csv.lines().next().unwrap());
    let column = |name: &str| column_in(&header, name);
    let swap: Vec<Vec<String>> = csv
        .lines()
        .skip(1)
        .map(csv_cells)
        .filter(|row| row[column("mode")] == "swap")
        .collect();
    assert_eq!(swap.len(), 1, "{csv}");
    assert!(
        ["ok", "out-of-memory"].contains(&swap[0][column("status")].as_str()),
        "{swap:?}"
    );
    // The device is unused again, and no longer swap.
    assert_eq!(std::fs::read_to_string(disksize).unwrap().trim(), "0");
    assert!(
        !std::fs::read_to_string("/proc/swaps")
            .unwrap()
            .contains("zram0")
    );
}
