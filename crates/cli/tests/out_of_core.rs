//! Builds larger than the memory budget: spilled runs, bounded peak RSS, the same
//! output as an in-memory build, and a clean exit on Ctrl-C.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

/// How far peak RSS may exceed `--memory`: nothing, since the budget is the whole process
/// (the builder keeps 40 MiB of it for the binary, threads and buffers).
const RSS_ALLOWANCE_BYTES: u64 = 0;

#[test]
fn small_budget_spills_runs_stays_within_budget_and_matches_in_memory_build() {
    let dir = tempfile::tempdir().unwrap();
    let in_memory = dir.path().join("memory.sl");
    generate_kron(&in_memory, 16, 64, &["--weighted", "--memory", "2G"]);
    for (budget, budget_bytes) in [("60M", 60u64 << 20), ("70M", 70 << 20)] {
        let spilled = dir.path().join(format!("spilled-{budget}.sl"));
        let report_path = dir.path().join("report.json");
        generate_kron(
            &spilled,
            16,
            64,
            &[
                "--weighted",
                "--memory",
                budget,
                "--json",
                arg(&report_path),
            ],
        );
        let report = json_report(&report_path);
        let runs = report["runs_spilled"].as_u64().unwrap();
        let peak = report["peak_rss_bytes"].as_u64().unwrap();
        assert!(runs >= 4, "{budget}: only {runs} runs");
        assert!(
            peak <= budget_bytes + RSS_ALLOWANCE_BYTES,
            "{budget}: peak RSS {peak} over budget"
        );
        assert!(
            std::fs::read(&spilled).unwrap() == std::fs::read(&in_memory).unwrap(),
            "{budget}: output differs from the in-memory build"
        );
    }
}

#[test]
fn directed_text_build_with_tiny_budget_matches_expected_arcs() {
    let dir = tempfile::tempdir().unwrap();
    let edges = random_edges(3_000_000, 60_000, 3);
    let text: String = edges
        .iter()
        .map(|&(s, d, w)| format!("{s}\t{d}\t{w}\n"))
        .collect();
    let input = dir.path().join("g.el.zst");
    write_input(&input, text.as_bytes());
    let output = dir.path().join("g.sl");
    let report_path = dir.path().join("r.json");
    let temp = dir.path().join("tmp");
    std::fs::create_dir(&temp).unwrap();
    swapless_ok(&[
        "build",
        arg(&input),
        "-o",
        arg(&output),
        "--weighted",
        "--memory",
        "64M",
        "--tmp-dir",
        arg(&temp),
        "--reorder",
        "dbg",
        "--json",
        arg(&report_path),
    ]);
    let report = json_report(&report_path);
    assert!(report["runs_spilled"].as_u64().unwrap() >= 4);
    assert!(report["peak_rss_bytes"].as_u64().unwrap() <= (64 << 20) + RSS_ALLOWANCE_BYTES);
    assert_eq!(read_arcs(&output), expected_arcs(&edges, false));
    assert_eq!(
        std::fs::read_dir(&temp).unwrap().count(),
        0,
        "temporary runs left behind"
    );
    swapless_ok(&["check", arg(&output)]);
}

#[test]
fn ctrl_c_removes_temporary_files_and_writes_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("big.sl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_swapless"))
        .args([
            "generate",
            "kron",
            "--scale",
            "16",
            "--degree",
            "2000",
            "--memory",
            "64M",
            "-o",
            arg(&output),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the build has spilled at least one run, so there is something to clean up.
    let started = Instant::now();
    let has_runs = || {
        std::fs::read_dir(dir.path()).unwrap().any(|entry| {
            let path = entry.unwrap().path();
            path.is_dir()
                && std::fs::read_dir(&path)
                    .map(|d| d.count() > 0)
                    .unwrap_or(false)
        })
    };
    while !has_runs() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no run was ever spilled"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the build ended before it could be interrupted"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output_of_child = child.wait_with_output().unwrap();
    assert_eq!(output_of_child.status.code(), Some(130));
    assert!(String::from_utf8_lossy(&output_of_child.stderr).contains("interrupted"));
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
