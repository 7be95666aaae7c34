//! `--lists compressed`: what `build` and `generate` write holds the lists a plain build
//! writes, list by list and weight by weight, whether sorted in memory or merged from
//! runs; `check` and `info` read it; a compressed file builds back to plain; a compressed
//! build killed or stopped leaves the output as it was and nothing behind once built
//! again.

mod common;

use std::path::Path;

use common::hostile::{hidden_entries, signal, start, wait_for};
use common::*;
use swapless_format::{GraphFile, ListForm};

/// Insists that the graphs at `plain` and `compressed` hold the same lists (and
/// weights) in both directions, and that their forms are as named.
fn assert_same_lists(plain: &Path, compressed: &Path) {
    let (plain, compressed) = (
        GraphFile::open(plain).unwrap(),
        GraphFile::open(compressed).unwrap(),
    );
    assert_eq!(ListForm::of(&plain), ListForm::Plain);
    assert_eq!(ListForm::of(&compressed), ListForm::Compressed);
    assert_eq!(plain.num_vertices(), compressed.num_vertices());
    assert_eq!(plain.num_arcs(), compressed.num_arcs());
    let (mut flags, mut packed_flags) = (plain.flags(), compressed.flags());
    flags.compressed_lists = false;
    packed_flags.compressed_lists = false;
    assert_eq!(flags, packed_flags);
    for v in 0..plain.num_vertices() {
        assert_eq!(
            plain.out_list(v).unwrap(),
            compressed.out_list(v).unwrap(),
            "out-list of {v}"
        );
        assert_eq!(
            plain.in_list(v).unwrap(),
            compressed.in_list(v).unwrap(),
            "in-list of {v}"
        );
    }
}

#[test]
fn generate_with_compressed_lists_writes_the_plain_lists_in_fewer_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.sl");
    let compressed = dir.path().join("compressed.sl");
    let json = dir.path().join("build.json");
    generate_kron(&plain, 12, 16, &[]);
    generate_kron(
        &compressed,
        12,
        16,
        &["--lists", "compressed", "--json", arg(&json)],
    );
    assert_same_lists(&plain, &compressed);
    let report = json_report(&json);
    assert_eq!(report["lists"], "compressed");
    let per_arc = report["list_bytes_per_arc"].as_f64().unwrap();
    assert!(per_arc > 0.5 && per_arc < 3.0, "{per_arc} bytes an arc");
    assert!(
        std::fs::metadata(&compressed).unwrap().len() < std::fs::metadata(&plain).unwrap().len()
    );
    assert!(swapless_ok(&["check", arg(&compressed)]).starts_with("ok: "));
    let info = swapless_ok(&["info", arg(&compressed)]);
    assert!(info.contains("(format v4,"), "{info}");
    assert!(info.contains("lists      compressed, "), "{info}");
    let info_json = dir.path().join("info.json");
    swapless_ok(&["info", arg(&compressed), "--json", arg(&info_json)]);
    let described = json_report(&info_json);
    assert_eq!(described["lists"], "compressed");
    assert_eq!(described["list_bytes"], report["list_bytes"]);
    assert!(hidden_entries(dir.path()).is_empty());
}

#[test]
fn a_weighted_directed_edge_list_builds_compressed_with_its_weights_beside_their_ids() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("w.el");
    // A hub whose list crosses pages, with weights, beside many short lists.
    let mut edges: String = (1..20_000u32)
        .map(|u| format!("0 {u} {}\n", u % 9 + 1))
        .collect();
    edges.extend(
        (0..30_000u32).map(|i| format!("{} {} {}.5\n", i % 5000 + 1, (i * 7919) % 20_000, i % 13)),
    );
    std::fs::write(&input, edges).unwrap();
    let plain = dir.path().join("plain.sl");
    let compressed = dir.path().join("compressed.sl");
    swapless_ok(&["build", arg(&input), "-o", arg(&plain), "--weighted"]);
    swapless_ok(&[
        "build",
        arg(&input),
        "-o",
        arg(&compressed),
        "--weighted",
        "--lists",
        "compressed",
    ]);
    let graph = GraphFile::open(&compressed).unwrap();
    assert!(graph.flags().directed && graph.flags().weighted);
    assert_same_lists(&plain, &compressed);
    assert!(swapless_ok(&["check", arg(&compressed)]).starts_with("ok: "));
}

#[test]
fn a_compressed_file_builds_back_to_the_plain_file() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.sl");
    let compressed = dir.path().join("compressed.sl");
    let back = dir.path().join("back.sl");
    generate_kron(&plain, 11, 8, &["--weighted"]);
    generate_kron(&compressed, 11, 8, &["--weighted", "--lists", "compressed"]);
    swapless_ok(&[
        "build",
        arg(&compressed),
        "-o",
        arg(&back),
        "--weighted",
        "--lists",
        "plain",
    ]);
    assert_eq!(
        std::fs::read(&back).unwrap(),
        std::fs::read(&plain).unwrap()
    );
    // And a reordered compressed file, whose edges come back in original ids.
    let reordered = dir.path().join("reordered.sl");
    let again = dir.path().join("again.sl");
    swapless_ok(&[
        "build",
        arg(&plain),
        "-o",
        arg(&reordered),
        "--reorder",
        "dbg",
        "--lists",
        "compressed",
    ]);
    swapless_ok(&["build", arg(&reordered), "-o", arg(&again)]);
    assert_eq!(
        read_arcs(&again),
        read_arcs(&plain)
            .into_iter()
            .map(|(u, v, _)| (u, v, 1.0))
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_compressed_build_spills_runs_writes_its_lists_straight_and_resumes_after_a_kill() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, whole, resumed) = (
        dir.path().join("plain.sl"),
        dir.path().join("whole.sl"),
        dir.path().join("resumed.sl"),
    );
    let json = dir.path().join("build.json");
    swapless_ok(&spilling_kron_args(&plain, &json));
    let compressed = |output| {
        [
            &spilling_kron_args(output, &json)[..],
            &["--lists", "compressed"],
        ]
        .concat()
    };
    swapless_ok(&compressed(&whole));
    let report = json_report(&json);
    assert!(report["runs_spilled"].as_u64().unwrap() >= 3, "{report}");
    let phases: Vec<&str> = report["phase_seconds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|phase| phase["phase"].as_str().unwrap())
        .collect();
    assert!(phases.contains(&"merging out-edges"), "{phases:?}");
    assert!(!phases.contains(&"compressing lists"), "{phases:?}");
    assert_same_lists(&plain, &whole);
    // Killed after its second spill, it resumes from its runs to the same bytes.
    std::fs::write(&resumed, b"precious").unwrap();
    let args = compressed(&resumed);
    assert!(was_killed(&swapless_killed_at(&args, "after-spill:2")));
    assert_eq!(std::fs::read(&resumed).unwrap(), b"precious");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let resume = [&args[..], &["--resume"]].concat();
    let stderr = succeeded(swapless_killed_at(&resume, ""));
    assert!(!stderr.contains("building from the beginning"), "{stderr}");
    assert_eq!(json_report(&json)["resumed_runs"], 2);
    assert_eq!(
        std::fs::read(&resumed).unwrap(),
        std::fs::read(&whole).unwrap()
    );
    assert_eq!(hidden_entries(dir.path()), Vec::<String>::new());
}

#[test]
fn ctrl_c_during_a_compressed_build_with_runs_stops_it_and_removes_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("k.sl"), b"precious").unwrap();
    let child = start(
        d,
        &[
            "generate",
            "kron",
            "--scale",
            "18",
            "--degree",
            "16",
            "--memory",
            "57M",
            "--lists",
            "compressed",
            "-o",
            "k.sl",
        ],
    );
    let runs_spilled = || {
        hidden_entries(d).iter().any(|folder| {
            std::fs::read_dir(d.join(folder)).is_ok_and(|mut entries| {
                entries.any(|entry| {
                    entry.is_ok_and(|entry| entry.file_name().to_string_lossy().starts_with("run-"))
                })
            })
        })
    };
    wait_for(runs_spilled);
    signal(&child, "INT");
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("temporary files were removed"), "{stderr}");
    assert_eq!(std::fs::read(d.join("k.sl")).unwrap(), b"precious");
    assert_eq!(hidden_entries(d), Vec::<String>::new());
}
