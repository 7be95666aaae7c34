//! `--lists compressed`: what `build` and `generate` write holds the lists a plain build
//! writes, list by list and weight by weight; `check` and `info` read it; a compressed
//! file builds back to plain; a compressed build killed or stopped leaves the output as
//! it was and nothing behind once built again.

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
    assert!(info.contains("(format v3,"), "{info}");
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
fn a_compressed_build_killed_while_compressing_resumes_from_its_plain_lists() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("g.sl");
    let expected = dir.path().join("expected.sl");
    let (whole_json, resumed_json) = (
        dir.path().join("whole.json"),
        dir.path().join("resumed.json"),
    );
    generate_kron(
        &expected,
        10,
        8,
        &["--lists", "compressed", "--json", arg(&whole_json)],
    );
    std::fs::write(&output, b"precious").unwrap();
    let args = [
        "generate",
        "kron",
        "--scale",
        "10",
        "--degree",
        "8",
        "--lists",
        "compressed",
        "-o",
        arg(&output),
    ];
    assert!(was_killed(&swapless_killed_at(
        &args,
        "compressing-lists:1"
    )));
    assert_eq!(std::fs::read(&output).unwrap(), b"precious");
    // Resumed, it compresses the killed build's plain lists again, reading no input,
    // and removes the killed build's partial output (once past the sweep's grace).
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let resume = [&args[..], &["--resume", "--json", arg(&resumed_json)]].concat();
    let stderr = succeeded(swapless_killed_at(&resume, ""));
    assert!(!stderr.contains("building from the beginning"), "{stderr}");
    assert_eq!(
        std::fs::read(&output).unwrap(),
        std::fs::read(&expected).unwrap()
    );
    let (whole, resumed) = (json_report(&whole_json), json_report(&resumed_json));
    let phases: Vec<&str> = resumed["phase_seconds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|phase| phase["phase"].as_str().unwrap())
        .collect();
    assert_eq!(phases, ["compressing lists"]);
    for field in [
        "vertices",
        "edges",
        "input_edges",
        "self_loops_dropped",
        "duplicate_edges_dropped",
        "list_bytes",
    ] {
        assert_eq!(resumed[field], whole[field], "{field}");
    }
    assert_eq!(resumed["resumed_input_edges"], whole["input_edges"]);
    assert_eq!(hidden_entries(dir.path()), Vec::<String>::new());
}

#[test]
fn a_compressed_build_killed_after_a_spill_resumes_to_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.sl");
    let resumed = dir.path().join("resumed.sl");
    let json = dir.path().join("build.json");
    let compressed = ["--lists", "compressed"];
    swapless_ok(&[&spilling_kron_args(&whole, &json)[..], &compressed].concat());
    let args = [&spilling_kron_args(&resumed, &json)[..], &compressed].concat();
    assert!(was_killed(&swapless_killed_at(&args, "after-spill:1")));
    assert!(!resumed.exists());
    let stderr = succeeded(swapless_killed_at(&[&args[..], &["--resume"]].concat(), ""));
    assert!(!stderr.contains("building from the beginning"), "{stderr}");
    assert_eq!(
        std::fs::read(&resumed).unwrap(),
        std::fs::read(&whole).unwrap()
    );
}

#[test]
fn ctrl_c_while_compressing_stops_the_build_and_removes_its_plain_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("k.sl"), b"precious").unwrap();
    let child = start(
        d,
        &[
            "generate",
            "kron",
            "--scale",
            "20",
            "--degree",
            "16",
            "--lists",
            "compressed",
            "-o",
            "k.sl",
        ],
    );
    // The plain file is renamed into the build's folder when whole: compression begins.
    let plain_written = || {
        hidden_entries(d)
            .iter()
            .any(|folder| d.join(folder).join("plain-lists.sl").exists())
    };
    wait_for(plain_written);
    signal(&child, "INT");
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("temporary files were removed"), "{stderr}");
    assert_eq!(std::fs::read(d.join("k.sl")).unwrap(), b"precious");
    assert_eq!(hidden_entries(d), Vec::<String>::new());
}
