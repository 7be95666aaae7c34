//! Self-loops kept as data (`--self-loops keep`): every kernel runs on them with its
//! serial verifier's approval, on every tier; a kernel that leaves them out gives the
//! answer of the same graph built without them; and the file, its check and its
//! counts say what it holds.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use swapless_format::GraphFile;

/// An edge list of `vertices` with duplicates and self-loops, and besides them a vertex
/// whose only edge is a self-loop (the last) and one with a self-loop and neighbors.
fn edges_with_loops(vertices: u32, seed: u64) -> String {
    let mut text = String::new();
    for (source, destination, weight) in random_edges(vertices as usize * 4, vertices - 1, seed) {
        text.push_str(&format!("{source} {destination} {}\n", weight + 1.0));
    }
    let lonely = vertices - 1;
    text.push_str(&format!("{lonely} {lonely} 2\n3 3 5\n3 3 1\n"));
    text
}

/// `text` built `directed` (or not), weighted, with self-loops kept and dropped.
fn both_builds(dir: &Path, text: &str, directed: bool) -> (PathBuf, PathBuf) {
    let name = if directed { "directed" } else { "undirected" };
    let input = dir.join(format!("{name}.el"));
    std::fs::write(&input, text).unwrap();
    let build = |loops: &str| {
        let output = dir.join(format!("{name}-{loops}.sl"));
        let mut args = vec!["build", arg(&input), "--weighted", "--self-loops", loops];
        if !directed {
            args.push("--undirected");
        }
        args.extend(["-o", arg(&output)]);
        swapless_ok(&args);
        output
    };
    (build("keep"), build("drop"))
}

/// The options that make `kernel`'s answer independent of which vertices have edges
/// (a default source is drawn among those, and a self-loop gives a vertex one).
fn fixed_sources(kernel: &str) -> Vec<&'static str> {
    let takes = |flag: &str| {
        swapless_run::Kernel::from_name(kernel)
            .is_some_and(|k| k.info().parameters.iter().any(|p| p.flag == flag))
    };
    let mut options = Vec::new();
    if swapless_run::Kernel::from_name(kernel).is_some_and(|k| k.info().takes_source) {
        options.extend(["--source", "1"]);
    }
    if takes("sources") {
        options.extend(["--sources", "all"]);
    }
    if takes("seeds") {
        options.extend(["--seeds", "1,2"]);
    }
    options
}

fn counts_self_loops(kernel: &str) -> bool {
    swapless_run::Kernel::from_name(kernel).is_some_and(|k| k.info().counts_self_loops)
}

/// Runs `kernel` on `graph` in DRAM with `extra` options; returns (report, result).
fn run(graph: &Path, kernel: &str, extra: &[&str], dir: &Path) -> (serde_json::Value, Vec<u8>) {
    let stem = graph.file_stem().unwrap().to_string_lossy();
    let out = dir.join(format!("{stem}-{kernel}.npy"));
    let json = dir.join(format!("{stem}-{kernel}.json"));
    let mut args = vec!["run", kernel, arg(graph), "--verify", "--json", arg(&json)];
    if !returns_a_number(kernel) {
        args.extend(["--out", arg(&out)]);
    }
    args.extend(extra);
    swapless_ok(&args);
    let payload = match returns_a_number(kernel) {
        true => Vec::new(),
        false => npy_payload(&out),
    };
    (json_report(&json), payload)
}

#[test]
fn kernels_that_leave_self_loops_out_answer_as_without_them_and_every_kernel_verifies() {
    let dir = tempfile::tempdir().unwrap();
    for directed in [false, true] {
        let (kept, dropped) = both_builds(dir.path(), &edges_with_loops(300, 11), directed);
        assert!(GraphFile::open(&kept).unwrap().num_self_loops() > 2);
        let mut counted = Vec::new();
        for kernel in kernels_on(&kept) {
            let options = fixed_sources(kernel);
            let with = run(&kept, kernel, &options, dir.path());
            if counts_self_loops(kernel) {
                counted.push(kernel);
                continue;
            }
            let without = run(&dropped, kernel, &options, dir.path());
            assert_same_answer_on(
                &kept,
                kernel,
                "dram",
                (&with.0, &with.1),
                (&without.0, &without.1),
            );
        }
        assert!(
            counted.contains(&"pr") && !counted.contains(&"tc"),
            "{counted:?}"
        );
    }
}

/// A text input built keeping self-loops holds each once, directed or not, plain or
/// compressed; its check passes, and its counts, info and report say how many.
#[test]
fn a_build_keeps_each_self_loop_once() {
    let dir = tempfile::tempdir().unwrap();
    let edges = random_edges(3_000, 200, 5);
    let loops = edges.iter().filter(|(s, d, _)| s == d).map(|e| e.0);
    let looped: std::collections::BTreeSet<u32> = loops.collect();
    assert!(looped.len() > 5);
    let input = dir.path().join("edges.el");
    let text: String = edges
        .iter()
        .map(|(s, d, w)| format!("{s} {d} {w}\n"))
        .collect();
    std::fs::write(&input, text).unwrap();
    for undirected in [false, true] {
        for lists in ["plain", "compressed"] {
            let output = dir.path().join(format!("{undirected}-{lists}.sl"));
            let json = dir.path().join("build.json");
            let mut args = vec!["build", arg(&input), "--weighted", "--self-loops", "keep"];
            args.extend(["--lists", lists, "-o", arg(&output), "--json", arg(&json)]);
            if undirected {
                args.push("--undirected");
            }
            swapless_ok(&args);
            let expected = expected_arcs_keeping_loops(&edges, undirected);
            assert_eq!(
                read_arcs(&output),
                expected,
                "undirected {undirected}, {lists}"
            );
            swapless_ok(&["check", arg(&output)]);
            let graph = GraphFile::open(&output).unwrap();
            assert_eq!(graph.num_self_loops(), looped.len() as u64);
            let report = json_report(&json);
            assert_eq!(report["self_loops"], looped.len() as u64);
            assert_eq!(report["self_loops_dropped"], 0);
            let edges_expected = match undirected {
                true => (expected.len() + looped.len()) / 2,
                false => expected.len(),
            };
            assert_eq!(report["edges"], edges_expected as u64);
            assert_eq!(graph.num_edges(), edges_expected as u64);
            let info = swapless_ok(&["info", arg(&output)]);
            assert!(
                info.contains(&format!("self-loops {} kept", looped.len())),
                "{info}"
            );
        }
    }
}

/// A build that spills sorted runs, and one that reorders by degree (which copies its
/// input once to count degrees), keep the same self-loops as one in memory.
#[test]
fn spilling_and_reordering_builds_keep_the_same_self_loops() {
    let dir = tempfile::tempdir().unwrap();
    let generate = |name: &str, extra: &[&str]| {
        let output = dir.path().join(format!("{name}.sl"));
        let mut args = vec!["generate", "kron", "--scale", "16", "--degree", "32"];
        args.extend(["--self-loops", "keep", "-o", arg(&output)]);
        args.extend(extra);
        swapless_ok(&args);
        swapless_ok(&["check", arg(&output)]);
        output
    };
    let in_memory = generate("in-memory", &[]);
    let arcs = read_arcs(&in_memory);
    assert!(arcs.iter().filter(|(s, d, _)| s == d).count() > 0);
    let json = dir.path().join("spilled.json");
    let spilled = generate("spilled", &["--memory", "56M", "--json", arg(&json)]);
    assert!(json_report(&json)["runs_spilled"].as_u64().unwrap() > 1);
    assert_eq!(read_arcs(&spilled), arcs);
    let reordered = generate("reordered", &["--reorder", "dbg"]);
    assert_eq!(read_arcs(&reordered), arcs);
}
