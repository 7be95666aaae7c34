//! The disk tiers give the dram answer under budgets that force reads, keep peak
//! RSS within the budget, refuse budgets below the hot set, and turn a file cut
//! short or corrupt under a running kernel into an error.

mod common;

use std::path::Path;

use common::*;
use swapless_format::{GraphFile, SectionKind};

/// Peak RSS may exceed `--memory` by nothing: the budget is the whole process (the plan
/// counts the binary, the runtimes, thread stacks, the allocator's slack and mmap's
/// fault-around as "the process itself").
const RUNTIME_ALLOWANCE_BYTES: u64 = 0;

/// What peak RSS may exceed the budget by on `tier`: nothing on any.
fn allowance_bytes(_tier: &str) -> u64 {
    RUNTIME_ALLOWANCE_BYTES
}

/// `swapless plan graph kernel extra...` as JSON.
fn plan(graph: &Path, kernel: &str, extra: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("plan.json");
    let mut args = vec!["plan", arg(graph), kernel, "--json", arg(&json)];
    args.extend(extra);
    swapless_ok(&args);
    json_report(&json)
}

/// Runs `kernel` on `graph` with `extra` options; returns (report, result bytes). A run
/// without `--memory` is verified (`--verify`); a run with it is not, since the budgets
/// here are small enough to force reads and too small for the verifier's phase, and its
/// answer is compared with a verified dram run's instead (see [`assert_same_answer`]).
fn run(graph: &Path, kernel: &str, extra: &[&str], dir: &Path) -> (serde_json::Value, Vec<u8>) {
    let name = format!("{kernel}-{}", extra.join("").replace(['-', '/'], ""));
    let out = dir.join(format!("{name}.npy"));
    let json = dir.join(format!("{name}.json"));
    let mut args = vec!["run", kernel, arg(graph), "--json", arg(&json)];
    if !extra.contains(&"--memory") {
        args.push("--verify");
    }
    if !returns_a_number(kernel) {
        args.extend(["--out", arg(&out)]);
    }
    args.extend(extra);
    swapless_ok(&args);
    let payload = if returns_a_number(kernel) {
        Vec::new()
    } else {
        npy_payload(&out)
    };
    (json_report(&json), payload)
}

/// Every kernel on mmap and direct at a budget of 60% of its dram footprint (or the
/// least the tier accepts) gives the dram answer, for each chunk size.
fn every_kernel_matches_dram(graph: &Path, dir: &Path, chunks: &[&str]) {
    for kernel in kernels_for(graph) {
        let (dram, dram_result) = run(graph, kernel, &["--tier", "dram"], dir);
        assert!(dram["direct_io"].is_null());
        let footprint = dram["footprint_bytes"].as_u64().unwrap();
        // Offsets in both forms on the direct tier; auto on mmap.
        let tiers = [
            ("mmap", "auto"),
            ("direct", "compressed"),
            ("direct", "plain"),
        ];
        for (index, (tier, offsets)) in tiers.into_iter().enumerate() {
            let chunk = chunks[index % chunks.len()];
            let options = ["--tier", tier, "--chunk", chunk, "--offsets", offsets];
            let least = plan(graph, kernel, &options)["minimum_bytes"]
                .as_u64()
                .unwrap()
                + (64 << 10);
            let budget = least.max(footprint * 6 / 10);
            let memory = format!("{}K", budget >> 10);
            let (disk, disk_result) = run(
                graph,
                kernel,
                &[&options[..], &["--memory", &memory]].concat(),
                dir,
            );
            assert_eq!(disk["tier"], tier);
            if offsets != "auto" {
                assert_eq!(disk["offsets"], offsets, "{kernel} on {tier}");
            }
            // mmap always reads through the page cache; direct says whether O_DIRECT held.
            assert!(disk["direct_io"].is_boolean(), "{kernel} on {tier}");
            assert!(tier == "direct" || disk["direct_io"] == false);
            if budget < footprint {
                assert!(
                    disk["cache_hit_ratio"].as_f64().unwrap() < 1.0,
                    "{kernel} on {tier} read nothing at a budget below its footprint"
                );
            }
            assert_same_answer(kernel, tier, (&disk, &disk_result), (&dram, &dram_result));
        }
    }
}

#[test]
fn every_kernel_on_every_tier_gives_the_dram_answer() {
    let dir = tempfile::tempdir().unwrap();
    let kron = dir.path().join("kron.sl");
    generate_kron(&kron, 12, 8, &["--weighted"]);
    every_kernel_matches_dram(&kron, dir.path(), &["4K", "64K"]);

    // A directed graph with isolated vertices, self-loops and duplicates, reordered.
    let directed = directed_graph(dir.path(), 7, "5 5 1\n5 5 1\n3999 0 2\n");
    every_kernel_matches_dram(&directed, dir.path(), &["1M", "16K"]);
}

#[test]
fn kernels_that_search_from_every_vertex_give_the_dram_answer_on_every_tier() {
    let dir = tempfile::tempdir().unwrap();
    let kron = dir.path().join("kron9.sl");
    generate_kron(&kron, 9, 8, &["--weighted", "--reorder", "dbg"]);
    assert!(
        kernels_for(&kron)
            .iter()
            .any(|kernel| from_every_vertex(kernel))
    );
    every_kernel_matches_dram(&kron, dir.path(), &["4K", "64K"]);
    every_kernel_matches_dram(&compressed_copy(&kron), dir.path(), &["16K"]);
}

/// A graph built keeping its self-loops gives every kernel the dram answer on every
/// tier, its lists plain and compressed (a self-loop is the one list entry equal to its
/// vertex, which compressed lists code as a gap of 0 from it).
#[test]
fn self_loops_kept_give_the_dram_answer_on_every_tier() {
    let dir = tempfile::tempdir().unwrap();
    let kron = dir.path().join("kron9-loops.sl");
    generate_kron(&kron, 9, 8, &["--weighted", "--self-loops", "keep"]);
    assert!(GraphFile::open(&kron).unwrap().num_self_loops() > 0);
    every_kernel_matches_dram(&kron, dir.path(), &["4K"]);
    every_kernel_matches_dram(&compressed_copy(&kron), dir.path(), &["16K"]);
}

/// A graph of isolated vertices (a Matrix Market header that declares 40 vertices and
/// no entries) builds, checks, and runs every kernel on every tier, plain and
/// compressed, directed and undirected, with the verifiers' approval and the answer a
/// graph without edges has: every vertex on its own.
#[test]
fn a_graph_without_edges_runs_every_kernel_on_every_tier() {
    let dir = tempfile::tempdir().unwrap();
    let shapes = [("general", "directed"), ("symmetric", "undirected")];
    for (symmetry, name) in shapes {
        let input = dir.path().join(format!("{name}.mtx"));
        let header = format!("%%MatrixMarket matrix coordinate pattern {symmetry}\n40 40 0\n");
        write_input(&input, header.as_bytes());
        for lists in ["plain", "compressed"] {
            let graph = dir.path().join(format!("{name}-{lists}.sl"));
            swapless_ok(&["build", arg(&input), "-o", arg(&graph), "--lists", lists]);
            swapless_ok(&["check", arg(&graph)]);
            for kernel in kernels_on(&graph) {
                for tier in ["dram", "mmap", "direct"] {
                    let mut args = vec!["--tier", tier];
                    if swapless_run::Kernel::from_name(kernel).is_some_and(|k| k.takes_source()) {
                        args.extend(["--source", "7"]);
                    }
                    if kernel == "ppr" {
                        args.extend(["--seeds", "7"]);
                    }
                    let (report, result) = run(&graph, kernel, &args, dir.path());
                    assert_eq!(report["tier"], tier, "{kernel} on {name} {lists}");
                    assert_isolated_answer(kernel, &report, &result);
                }
            }
        }
    }
    // Without edges a search has no vertex to start from unless it is told one.
    let graph = dir.path().join("directed-plain.sl");
    let refused = swapless_fails(&["run", "bfs", arg(&graph)]);
    assert!(refused.contains("no edges"), "{refused}");
}

#[test]
fn a_graph_without_vertices_runs_every_kernel_without_a_source_on_every_tier() {
    let dir = tempfile::tempdir().unwrap();
    let shapes = [("general", "directed"), ("symmetric", "undirected")];
    for (symmetry, name) in shapes {
        let input = dir.path().join(format!("{name}.mtx"));
        let header = format!("%%MatrixMarket matrix coordinate pattern {symmetry}\n0 0 0\n");
        write_input(&input, header.as_bytes());
        for lists in ["plain", "compressed"] {
            let graph = dir.path().join(format!("{name}-{lists}.sl"));
            swapless_ok(&["build", arg(&input), "-o", arg(&graph), "--lists", lists]);
            swapless_ok(&["check", arg(&graph)]);
            for kernel in kernels_on(&graph) {
                let takes_vertices = swapless_run::Kernel::from_name(kernel)
                    .is_some_and(|k| k.takes_source())
                    || kernel == "ppr";
                for tier in ["dram", "mmap", "direct"] {
                    if takes_vertices {
                        // No vertex to start from, nor one to name.
                        let refused = swapless_fails(&["run", kernel, arg(&graph), "--tier", tier]);
                        assert!(refused.contains("no edges"), "{kernel}: {refused}");
                        continue;
                    }
                    let (report, result) = run(&graph, kernel, &["--tier", tier], dir.path());
                    assert!(result.is_empty(), "{kernel} on {name} {lists}");
                    // Nothing to iterate on: converged, not stopped at the cap.
                    let converged = &report["result"]["converged"];
                    assert!(
                        converged.is_null() || converged == true,
                        "{kernel}: {report}"
                    );
                    assert!(
                        report["warnings"].as_array().is_none_or(Vec::is_empty),
                        "{kernel}: {report}"
                    );
                }
            }
        }
    }
}

/// What `kernel` answers on a graph of 40 isolated vertices (from vertex 7 where it
/// takes a source or seeds).
fn assert_isolated_answer(kernel: &str, report: &serde_json::Value, npy: &[u8]) {
    if returns_a_number(kernel) {
        assert_eq!(report["result"]["triangles"], 0, "{kernel}: {report}");
        return;
    }
    let words = |bytes: &[u8]| -> Vec<[u8; 8]> {
        bytes
            .chunks_exact(8)
            .map(|b| b.try_into().unwrap())
            .collect()
    };
    let int64: Vec<i64> = words(npy).into_iter().map(i64::from_le_bytes).collect();
    let float64: Vec<f64> = words(npy).into_iter().map(f64::from_le_bytes).collect();
    let each = |value: &dyn Fn(i64) -> f64| (0..40).map(value).collect::<Vec<f64>>();
    match kernel {
        "cc" | "scc" | "lpa" | "louvain" | "wlouvain" => {
            assert_eq!(int64, (0..40).collect::<Vec<i64>>(), "{kernel}")
        }
        "bfs" => assert_eq!(
            int64,
            (0..40)
                .map(|v| if v == 7 { 7 } else { -1 })
                .collect::<Vec<_>>()
        ),
        "pr" => assert!(
            float64
                .iter()
                .all(|score| (score - 1.0 / 40.0).abs() < 1e-7)
        ),
        "ppr" => assert_eq!(float64, each(&|v| if v == 7 { 1.0 } else { 0.0 })),
        // Every vertex dangles, so the rank stays uniform, in float64.
        "pr64" | "wpr64" => assert!(
            float64
                .iter()
                .all(|score| (score - 1.0 / 40.0).abs() < 1e-15),
            "{kernel}"
        ),
        "sssp" => assert_eq!(float64, each(&|v| if v == 7 { 0.0 } else { f64::INFINITY })),
        "bc" | "wbc" | "closeness" | "wcloseness" => assert_eq!(float64, each(&|_| 0.0)),
        // The uniform vector of unit norm, as networkx's.
        "eigenvector" | "katz" => assert!(
            float64
                .iter()
                .all(|score| (score - 1.0 / 40f64.sqrt()).abs() < 1e-12),
            "{kernel}"
        ),
        // No edge makes a hub or an authority; no vertex has a neighbor.
        "hits" | "neighbor-degree" | "wneighbor-degree" | "clustering" | "wclustering" => {
            assert_eq!(float64, each(&|_| 0.0))
        }
        "triangles" | "kcore" => assert_eq!(int64, vec![0; 40], "{kernel}"),
        // No vertex has an edge to be sampled from, so none has an estimate.
        "radii" => assert_eq!(int64, vec![-1; 40]),
        // Every vertex is in the set (int8 flags).
        "mis" => assert_eq!(npy, &[1u8; 40][..]),
        // No edge, so no edge of a truss.
        "ktruss" => assert!(npy.is_empty(), "{kernel}"),
        other => panic!("{other}: say what a graph without edges answers"),
    }
}

/// A weighted directed graph of 20,000 random arcs among 3,000 vertices (drawn from
/// `seed`) and the arcs of `more` (text lines `u v w`), built reordered by degree.
fn directed_graph(dir: &Path, seed: u64, more: &str) -> std::path::PathBuf {
    let text = dir.join("directed.el");
    let mut edges = String::new();
    let mut state = seed;
    for _ in 0..20_000 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let u = (state >> 33) % 3000;
        let v = ((state >> 13) % 3000) * ((state >> 40) % 3 + 1) % 3000;
        edges.push_str(&format!("{u} {v} {}\n", (state >> 50) % 9 + 1));
    }
    edges.push_str(more);
    std::fs::write(&text, edges).unwrap();
    let directed = dir.join("directed.sl");
    swapless_ok(&[
        "build",
        arg(&text),
        "--weighted",
        "--reorder",
        "dbg",
        "-o",
        arg(&directed),
    ]);
    directed
}

/// `graph` rebuilt beside itself with compressed lists, as a user converts one.
fn compressed_copy(graph: &Path) -> std::path::PathBuf {
    let copy = graph.with_extension("compressed.sl");
    let mut args = vec![
        "build",
        arg(graph),
        "-o",
        arg(&copy),
        "--lists",
        "compressed",
    ];
    if GraphFile::open(graph).unwrap().flags().weighted {
        args.push("--weighted");
    }
    swapless_ok(&args);
    copy
}

#[test]
fn every_kernel_on_every_tier_gives_the_plain_answer_on_compressed_lists() {
    let dir = tempfile::tempdir().unwrap();
    let unweighted = dir.path().join("unweighted.sl");
    generate_kron(&unweighted, 11, 8, &[]);
    every_kernel_matches_dram(&compressed_copy(&unweighted), dir.path(), &["64K"]);
    let kron = dir.path().join("kron.sl");
    generate_kron(&kron, 12, 8, &["--weighted"]);
    let compressed = compressed_copy(&kron);
    // The compressed file's dram answer is the plain file's, kernel by kernel.
    for kernel in kernels_for(&kron) {
        let plain = run(&kron, kernel, &["--tier", "dram"], dir.path());
        let packed = run(&compressed, kernel, &["--tier", "dram"], dir.path());
        assert_same_answer(kernel, "dram", (&packed.0, &packed.1), (&plain.0, &plain.1));
    }
    every_kernel_matches_dram(&compressed, dir.path(), &["4K", "64K"]);
}

#[test]
fn every_kernel_gives_the_dram_answer_on_a_compressed_directed_graph() {
    let dir = tempfile::tempdir().unwrap();
    // A hub whose lists fill many pages, read alone and cut short by head passes.
    let hub: String = (0..3000).map(|v| format!("7 {v} 1\n{v} 7 1\n")).collect();
    let directed = directed_graph(dir.path(), 11, &hub);
    every_kernel_matches_dram(&compressed_copy(&directed), dir.path(), &["1M", "16K"]);
}

#[test]
fn peak_rss_stays_within_the_budget_on_disk_tiers() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("kron18.sl");
    generate_kron(&graph, 18, 16, &[]);
    // 4 KiB chunks: hub lists are longer than a slot and share the oversize region.
    let runs = [
        ("pr", "direct", "256K"),
        ("bfs", "direct", "256K"),
        ("cc", "mmap", "256K"),
        ("pr", "mmap", "256K"),
        ("pr", "direct", "4K"),
        ("bfs", "direct", "4K"),
    ];
    peak_rss_within_28_mib(&graph, dir.path(), &runs);
}

#[test]
fn peak_rss_stays_within_the_budget_on_compressed_lists() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("kron18.sl");
    generate_kron(&graph, 18, 16, &[]);
    let compressed = compressed_copy(&graph);
    std::fs::remove_file(&graph).unwrap();
    // The threads' decode buffers are counted; the longest list is decoded whole.
    let runs = [
        ("pr", "direct", "256K"),
        ("bfs", "direct", "4K"),
        ("cc", "mmap", "256K"),
        ("bfs", "mmap", "256K"),
    ];
    peak_rss_within_28_mib(&compressed, dir.path(), &runs);
}

/// Each `(kernel, tier, chunk)` of `runs` on `graph` at `--memory 28M`, verified, peaks
/// within the budget and reads as its tier should.
fn peak_rss_within_28_mib(graph: &Path, dir: &Path, runs: &[(&str, &str, &str)]) {
    for &(kernel, tier, chunk) in runs {
        let json = dir.join(format!("{kernel}-{tier}-{chunk}.json"));
        swapless_ok(&[
            "run",
            kernel,
            arg(graph),
            "--tier",
            tier,
            // 16 MiB for the run and 12 for the process itself.
            "--memory",
            "28M",
            "--chunk",
            chunk,
            // The serial verifier runs after the kernel, within the same budget.
            "--verify",
            "--json",
            arg(&json),
        ]);
        let report = json_report(&json);
        assert_eq!(report["verified"], true);
        let peak = report["peak_rss_bytes"].as_u64().unwrap();
        let footprint = report["footprint_bytes"].as_u64().unwrap();
        assert!(
            footprint > 34 << 20,
            "{kernel}: the graph ({footprint} bytes) is too small to test a budget"
        );
        let allowance = allowance_bytes(tier);
        assert!(
            peak <= (28 << 20) + allowance,
            "{kernel} on {tier}: peak RSS {peak} over its 28 MiB budget (footprint {footprint})"
        );
        assert!(report["bytes_read"].as_u64().unwrap() > 0 || tier == "mmap");
        if tier == "direct" {
            // Every byte is read by a scan or a gather, and each pattern's share is its own.
            let part = |pattern: &str| report[pattern]["bytes_read"].as_u64().unwrap();
            assert_eq!(
                part("scan_io") + part("gather_io"),
                report["bytes_read"].as_u64().unwrap(),
                "{kernel}"
            );
            match kernel {
                "pr" => assert_eq!(part("gather_io"), 0),
                "bfs" => assert!(report["gather_io"]["read_requests"].as_u64().unwrap() > 0),
                _ => {}
            }
        }
    }
}

#[test]
fn peak_rss_stays_within_the_budget_when_weights_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("kron18w.sl");
    generate_kron(&graph, 18, 16, &["--weighted"]);
    // 52 MiB (40 for the run, 12 for the process) leaves a cache of about 16 MiB of
    // neighbors and weights: a cache pinned twice over (once per section) would show.
    for tier in ["direct", "mmap"] {
        let json = dir.path().join(format!("sssp-{tier}.json"));
        swapless_ok(&[
            "run",
            "sssp",
            arg(&graph),
            "--tier",
            tier,
            "--memory",
            "52M",
            "--json",
            arg(&json),
        ]);
        let report = json_report(&json);
        let peak = report["peak_rss_bytes"].as_u64().unwrap();
        assert!(
            report["edge_cache_bytes"].as_u64().unwrap() > 12 << 20,
            "{tier}"
        );
        assert!(report["bytes_read"].as_u64().unwrap() > 0, "{tier}");
        let allowance = allowance_bytes(tier);
        assert!(
            peak <= (52 << 20) + allowance,
            "sssp on {tier}: peak RSS {peak} over its 52 MiB budget"
        );
    }
}

#[test]
fn a_scan_reads_each_uncached_list_byte_once_per_pass() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("kron16.sl");
    generate_kron(&graph, 16, 16, &[]);
    for chunk in ["64K", "256K"] {
        let (report, _) = run(
            &graph,
            "pr",
            &["--tier", "direct", "--memory", "16M", "--chunk", chunk],
            dir.path(),
        );
        let passes = report["result"]["iterations"].as_u64().unwrap();
        let lists = report["arcs"].as_u64().unwrap() * 4;
        let uncached = lists - report["edge_cache_bytes"].as_u64().unwrap();
        let per_pass = report["bytes_read"].as_u64().unwrap() / passes;
        // Whole pages, the pinned prefix's last page read again, and perhaps a page
        // beside a hub too long to split: a few pages, not one per read (1.6% at 256K).
        assert!(
            per_pass >= uncached && per_pass <= uncached + 8 * 4096,
            "chunk {chunk}: {per_pass} bytes per pass for {uncached} uncached bytes of lists"
        );
    }
}

#[test]
fn kernels_that_read_no_weights_neither_hold_nor_read_them() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("kron16w.sl");
    generate_kron(&graph, 16, 16, &["--weighted"]);
    let (dram, _) = run(&graph, "pr", &["--tier", "dram"], dir.path());
    let arcs = dram["arcs"].as_u64().unwrap();
    let lists = |kernel: &str| {
        let placed = plan(&graph, kernel, &["--tier", "direct", "--memory", "16M"]);
        let segments = placed["segments"].as_array().unwrap().clone();
        let bulk = segments
            .iter()
            .find(|segment| segment["class"] == "bulk")
            .unwrap();
        (bulk["name"].clone(), bulk["bytes"].as_u64().unwrap())
    };
    assert_eq!(lists("pr"), ("out_neighbors".into(), arcs * 4));
    assert_eq!(lists("sssp"), ("out_neighbors + weights".into(), arcs * 8));
    // The plan shows the weights it leaves on disk.
    let placed = plan(&graph, "pr", &["--tier", "direct", "--memory", "16M"]);
    let unread = placed["segments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|segment| segment["name"] == "out_weights")
        .expect("pr's plan shows the weights it does not read")
        .clone();
    assert_eq!(unread["bytes"], arcs * 4);
    assert_eq!(unread["placement"], "not held or read: pr reads no weights");
    // The process and half of the rest of pr's footprint: reading the weights too would
    // read more than the lists.
    let process = swapless_store::budget::PROCESS_BYTES;
    let footprint = dram["footprint_bytes"].as_u64().unwrap();
    let memory = format!("{}K", ((footprint - process) / 2 + process) >> 10);
    for tier in ["mmap", "direct"] {
        let (report, _) = run(
            &graph,
            "pr",
            &["--tier", tier, "--memory", &memory],
            dir.path(),
        );
        let per_pass = report["bytes_read"].as_u64().unwrap()
            / report["result"]["iterations"].as_u64().unwrap();
        assert!(
            per_pass > 0 && per_pass <= arcs * 4,
            "{tier}: {per_pass} bytes a pass"
        );
    }
}

#[test]
fn cc_reads_long_lists_only_up_to_their_heads_and_gives_the_dram_answer() {
    // Degree 48 at scale 16: hubs whose lists run many pages past the two entries cc's
    // first pass links; weighted, though cc leaves the weights on disk. Without the
    // heads section, so the first pass reads the lists.
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("kron16.sl");
    generate_kron(&graph, 16, 48, &["--weighted", "--out-heads", "never"]);
    assert!(GraphFile::open(&graph).unwrap().out_heads().is_none());
    // The plan says how to read less.
    let planned = plan(&graph, "cc", &["--tier", "direct", "--memory", "18M"]);
    assert!(
        planned["segments"]
            .to_string()
            .contains("a file built with a heads section reads 8 bytes a vertex"),
        "{planned}"
    );
    let (dram, dram_result) = run(&graph, "cc", &["--tier", "dram"], dir.path());
    for (tier, chunk) in [
        ("direct", "4K"),
        ("direct", "64K"),
        ("direct", "256K"),
        ("mmap", "64K"),
    ] {
        let options = ["--tier", tier, "--memory", "18M", "--chunk", chunk];
        let (report, result) = run(&graph, "cc", &options, dir.path());
        assert_eq!(report["result"], dram["result"], "{tier} {chunk}");
        assert_eq!(result, dram_result, "{tier} {chunk}");
        // One scan (the first links); the rest of the edges were gathered.
        assert_eq!(report["scan_io"]["calls"], 1, "{tier} {chunk}");
        if tier == "direct" && chunk != "4K" {
            let lists = report["arcs"].as_u64().unwrap() * 4 * 2;
            let uncached = lists - report["edge_cache_bytes"].as_u64().unwrap();
            let scanned = report["scan_io"]["bytes_read"].as_u64().unwrap();
            // A whole scan reads at least the uncached lists (10% less measured).
            assert!(
                scanned < uncached / 100 * 95,
                "chunk {chunk}: the first pass read {scanned} bytes of {uncached} uncached"
            );
        }
    }
}

/// With the `out_heads` section, cc's first pass on a disk tier reads the heads (8 bytes
/// a vertex) instead of the lists, and every tier still gives the dram answer: on an
/// undirected graph and on a directed one (whose in-lists the second pass reads whole).
#[test]
fn cc_reads_the_heads_section_instead_of_the_lists_and_gives_the_dram_answer() {
    let dir = tempfile::tempdir().unwrap();
    let undirected = dir.path().join("kron16.sl");
    generate_kron(&undirected, 16, 16, &[]);
    let text = dir.path().join("directed.el");
    let mut edges = String::new();
    let mut state = 11u64;
    for _ in 0..200_000 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // Skewed sources and destinations, so lists of every length, and some vertices
        // reached only by in-edges.
        let u = ((state >> 33) % 20_000) * ((state >> 20) % 4 + 1) / 4;
        let v = (state >> 45) % 20_000;
        edges.push_str(&format!("{u} {v}\n"));
    }
    std::fs::write(&text, edges).unwrap();
    let directed = dir.path().join("directed.sl");
    swapless_ok(&[
        "build",
        arg(&text),
        "--out-heads",
        "always",
        "-o",
        arg(&directed),
    ]);
    for graph in [&undirected, &directed] {
        let file = GraphFile::open(graph).unwrap();
        let heads_bytes = file.header().section(SectionKind::OutHeads).unwrap().length;
        let lists_bytes = file.num_arcs() as u64 * 4;
        drop(file);
        let (dram, dram_result) = run(graph, "cc", &["--tier", "dram"], dir.path());
        for tier in ["direct", "mmap"] {
            for chunk in ["4K", "64K"] {
                let options = ["--tier", tier, "--memory", "15M", "--chunk", chunk];
                let planned = plan(graph, "cc", &options);
                assert!(
                    planned["segments"].to_string().contains("out_heads"),
                    "{planned}"
                );
                let (report, result) = run(graph, "cc", &options, dir.path());
                assert_eq!(report["result"], dram["result"], "{tier} {chunk}");
                assert_eq!(result, dram_result, "{tier} {chunk}");
                // The first pass read no more than the heads; a whole scan would read
                // the uncached lists, several times more.
                let scanned = report["scan_io"]["bytes_read"].as_u64().unwrap();
                assert!(
                    scanned <= heads_bytes && scanned * 2 < lists_bytes,
                    "{tier} {chunk}: the first pass read {scanned} bytes (heads {heads_bytes})"
                );
            }
        }
    }
}

/// The heads section is checked like the lists: a changed byte fails a disk tier's run
/// (the dram tier, which takes heads from its lists, gives the right answer), and a
/// crafted id beyond the vertices is refused; `swapless check` finds heads that do not
/// match the lists.
#[test]
fn a_corrupt_heads_section_fails_the_run_instead_of_changing_its_answer() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean.sl");
    generate_kron(&clean, 14, 16, &[]);
    let (heads_at, heads_bytes) = section_position(&clean, SectionKind::OutHeads);
    let (dram, _) = run(&clean, "cc", &["--tier", "dram"], dir.path());
    let damaged = dir.path().join("damaged.sl");
    let position = (heads_at + heads_bytes / 2) as usize;
    let disk_tiers = ["direct", "mmap"];

    let mut bytes = std::fs::read(&clean).unwrap();
    bytes[position] ^= 1;
    std::fs::write(&damaged, &bytes).unwrap();
    for stderr in failures_on(&disk_tiers, &damaged, &clean, "cc") {
        assert!(stderr.contains("fails its checksum"), "{stderr}");
    }
    let (report, _) = run(&damaged, "cc", &["--tier", "dram"], dir.path());
    assert_eq!(report["result"], dram["result"]);

    let mut bytes = std::fs::read(&clean).unwrap();
    bytes[position..position + 4].copy_from_slice(&((1u32 << 14) + 3).to_le_bytes());
    std::fs::write(&damaged, &bytes).unwrap();
    reseal_block(&damaged, position as u64);
    for stderr in failures_on(&disk_tiers, &damaged, &clean, "cc") {
        assert!(
            stderr.contains("holds an id beyond the vertices"),
            "{stderr}"
        );
    }
    assert!(swapless_fails(&["check", arg(&damaged)]).contains("out_heads does not hold"));
}

#[test]
fn bfs_keeps_unvisited_lists_only_with_room_beyond_the_least_budget() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("kron14.sl");
    generate_kron(&graph, 14, 16, &[]);
    let (dram, _) = run(&graph, "bfs", &["--tier", "dram"], dir.path());
    assert_eq!(dram["optional_property_held"], true);
    let least = plan(&graph, "bfs", &["--tier", "direct"])["minimum_bytes"]
        .as_u64()
        .unwrap();
    let at_least = format!("{}K", least.div_ceil(1024));
    for (memory, held) in [(at_least.as_str(), false), ("64M", true)] {
        for tier in ["direct", "mmap"] {
            let options = ["--tier", tier, "--memory", memory];
            let planned = plan(&graph, "bfs", &options);
            let segment = planned["segments"]
                .as_array()
                .unwrap()
                .iter()
                .find(|segment| segment["name"] == "bfs optional arrays")
                .expect("the plan shows bfs's kept lists")
                .clone();
            let placement = segment["placement"].as_str().unwrap();
            assert_eq!(
                placement.starts_with("dram"),
                held,
                "{tier} {memory}: {placement}"
            );
            // Verified by the run; parents may differ between valid trees (top-down
            // steps claim vertices in thread order), levels and reach may not.
            let (report, _) = run(&graph, "bfs", &options, dir.path());
            assert_eq!(report["optional_property_held"], held, "{tier} {memory}");
            assert_eq!(report["result"], dram["result"], "{tier} {memory}");
        }
    }
}

#[test]
fn the_least_budget_the_plan_names_is_enough_for_run_and_output() {
    // A reordered graph, so the result also goes through the permutation on its way out.
    let dir = tempfile::tempdir().unwrap();
    let mut state = 12345u64;
    let mut next = |bound: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % bound
    };
    let mut text = String::new();
    for _ in 0..300_000 {
        // Skewed ids (the smaller of two draws), so reordering has hubs to move.
        let (a, b) = (next(1 << 16).min(next(1 << 16)), next(1 << 16));
        text.push_str(&format!("{a} {b}\n"));
    }
    let edges = dir.path().join("skewed.el");
    std::fs::write(&edges, text).unwrap();
    let graph = dir.path().join("skewed.sl");
    swapless_ok(&[
        "build",
        arg(&edges),
        "-o",
        arg(&graph),
        "--undirected",
        "--reorder",
        "dbg",
    ]);
    // bc's verifier holds the most of its own (32 bytes a vertex); tc makes no array.
    for kernel in kernels_for(&graph)
        .into_iter()
        .filter(|&kernel| kernel != "sssp")
    {
        let plan = plan(&graph, kernel, &["--tier", "direct", "--verify"]);
        let least = plan["minimum_bytes"].as_u64().unwrap();
        let has_segment = |name: &str| {
            plan["segments"]
                .as_array()
                .unwrap()
                .iter()
                .any(|segment| segment["name"] == name)
        };
        assert!(
            has_segment("verification"),
            "{kernel}: the plan does not show the verification phase"
        );
        assert_eq!(
            has_segment("result as output array"),
            !returns_a_number(kernel),
            "{kernel}: the plan's output phase"
        );
        let memory = format!("{}K", least.div_ceil(1024));
        let json = dir.path().join(format!("{kernel}.json"));
        let out = dir.path().join(format!("{kernel}.npy"));
        let mut args = vec![
            "run",
            kernel,
            arg(&graph),
            "--tier",
            "direct",
            "--memory",
            &memory,
            "--verify",
            "--json",
            arg(&json),
        ];
        if !returns_a_number(kernel) {
            args.extend(["--out", arg(&out)]);
        }
        swapless_ok(&args);
        let report = json_report(&json);
        let peak = report["peak_rss_bytes"].as_u64().unwrap();
        assert!(
            peak <= least + RUNTIME_ALLOWANCE_BYTES,
            "{kernel}: peak RSS {peak} over the least budget {least} + allowance"
        );
        assert_eq!(report["verified"], true, "{kernel}");
        if ["pr", "cc", "bfs"].contains(&kernel) {
            // Only compressed offsets fit the least budget.
            assert_eq!(report["offsets"], "compressed", "{kernel}");
        }
    }
}

#[test]
fn offsets_are_compressed_only_when_plain_ones_would_starve_the_queue() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("kron16.sl");
    generate_kron(&graph, 16, 16, &[]);
    let offsets_segment = |plan: &serde_json::Value| {
        plan["segments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|segment| segment["name"] == "out_offsets")
            .cloned()
            .unwrap()
    };
    let plain_bytes = 4 * ((1 << 16) + 1);
    // A budget with room for a full queue beside plain offsets keeps them plain.
    let roomy = plan(&graph, "pr", &["--tier", "direct", "--memory", "100M"]);
    assert_eq!(offsets_segment(&roomy)["bytes"], plain_bytes);
    // The least budget holds them compressed, in under half the bytes.
    let least = plan(&graph, "pr", &["--tier", "direct"])["minimum_bytes"]
        .as_u64()
        .unwrap();
    let memory = format!("{}K", least.div_ceil(1024));
    let tight = plan(&graph, "pr", &["--tier", "direct", "--memory", &memory]);
    let segment = offsets_segment(&tight);
    assert!(segment["bytes"].as_u64().unwrap() < plain_bytes / 2);
    assert!(
        segment["placement"]
            .as_str()
            .unwrap()
            .contains("Elias-Fano")
    );
    // Asking for plain offsets there is refused, with the least budget that works.
    let plain_least =
        plan(&graph, "pr", &["--tier", "direct", "--offsets", "plain"])["minimum_bytes"]
            .as_u64()
            .unwrap();
    assert!(plain_least > least);
    let message = swapless_fails(&[
        "plan",
        arg(&graph),
        "pr",
        "--tier",
        "direct",
        "--memory",
        &memory,
        "--offsets",
        "plain",
    ]);
    assert!(
        message.contains(&format!("at least {} MiB", plain_least.div_ceil(1 << 20))),
        "{message}"
    );
}

#[test]
fn a_search_on_a_banded_graph_gets_the_page_cache_and_small_reads_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    // 512 rows of 128: a vertex's neighbors are within 128 ids of it, out of 65,536.
    let grid = dir.path().join("grid.sl");
    let shape = ["--rows", "512", "--cols", "128"];
    swapless_ok(&[&["generate", "grid"][..], &shape, &["-o", arg(&grid)]].concat());
    let kron = dir.path().join("kron.sl");
    generate_kron(&kron, 16, 8, &[]);
    // Reordered by degree, most ids in a page are hubs' ids, close together but far from
    // the lists' own: not banded (the pinned prefix of hubs serves searches there).
    let kron_dbg = dir.path().join("kron-dbg.sl");
    generate_kron(&kron_dbg, 16, 8, &["--reorder", "dbg"]);
    // Half the footprint, or a little over the least the tier accepts.
    let half = |graph: &Path, kernel: &str| {
        let planned = plan(graph, kernel, &["--tier", "direct"]);
        let footprint = planned["footprint_bytes"].as_u64().unwrap();
        let least = planned["minimum_bytes"].as_u64().unwrap();
        format!("{}K", (footprint / 2).max(least + (512 << 10)) >> 10)
    };
    for (graph, kernel, told, chunk, page_cache) in [
        (&grid, "bfs", &[][..], 16 << 10, true),
        (&grid, "sssp", &[], 16 << 10, true),
        (&grid, "pr", &[], 256 << 10, false),
        (&kron, "bfs", &[], 256 << 10, false),
        (
            &grid,
            "bfs",
            &["--gather-cache", "0", "--chunk", "64K"],
            64 << 10,
            false,
        ),
    ] {
        let memory = half(graph, kernel);
        let options = [&["--tier", "direct", "--memory", &memory][..], told].concat();
        let planned = plan(graph, kernel, &options);
        let case = format!("{kernel} on {} {told:?}", graph.display());
        assert_eq!(planned["chunk_bytes"], chunk, "{case}");
        let banded_search = graph == &grid && kernel != "pr" && told.is_empty();
        assert_eq!(planned["banded_search"], banded_search, "{case}");
        let cached = planned["gather_cache_bytes"].as_u64().unwrap();
        assert_eq!(
            cached > 0,
            page_cache,
            "{case}: {cached} bytes of page cache"
        );
    }
    // On mmap the same choice of small reads and offsets, with the cache kept as a prefix.
    let memory = half(&grid, "bfs");
    let planned = plan(&grid, "bfs", &["--tier", "mmap", "--memory", &memory]);
    assert_eq!(planned["banded_search"], true);
    assert_eq!(planned["chunk_bytes"], 16 << 10);
    assert_eq!(planned["gather_cache_bytes"], 0);
    let (report, parents) = run(
        &grid,
        "bfs",
        &["--tier", "direct", "--memory", &half(&grid, "bfs")],
        dir.path(),
    );
    verify_bfs_parents(&report, &parents);
    assert!(report["gather_cache_bytes"].as_u64().unwrap() > 0);
    let info = |graph: &Path| {
        let json = dir.path().join("info.json");
        swapless_ok(&["info", arg(graph), "--json", arg(&json)]);
        json_report(&json)["banded"].clone()
    };
    assert_eq!(info(&grid), true);
    assert_eq!(info(&kron), false);
    assert_eq!(info(&kron_dbg), false);
    // Compressed pages hold no plain ids: their lists are sampled instead, to the same
    // verdict, and a search on the compressed grid is planned as on the plain one.
    assert_eq!(info(&compressed_copy(&grid)), true);
    assert_eq!(info(&compressed_copy(&kron)), false);
    assert_eq!(info(&compressed_copy(&kron_dbg)), false);
    let compressed_grid = grid.with_extension("compressed.sl");
    let memory = half(&compressed_grid, "bfs");
    let planned = plan(
        &compressed_grid,
        "bfs",
        &["--tier", "direct", "--memory", &memory],
    );
    assert_eq!(planned["banded_search"], true);
}

#[test]
fn a_page_cache_for_gathers_stops_a_grid_search_rereading_its_pages() {
    // BFS on a grid reads a diagonal band of rows at every level; each row's lists share
    // pages that the next levels read again. 64 rows of 1024: a row's lists are 4 pages,
    // and a level touches one or two pages in each of up to 64 rows.
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("grid.sl");
    swapless_ok(&[
        "generate",
        "grid",
        "--rows",
        "64",
        "--cols",
        "1024",
        "-o",
        arg(&graph),
    ]);
    let mut bytes_read = Vec::new();
    let mut lists = 0;
    for (kernel, fraction) in [("bfs", "0"), ("bfs", "1"), ("radii", "1"), ("sssp", "0.5")] {
        let placement = ["--tier", "direct", "--chunk", "16K", "--queue-depth", "8"];
        // About 0.6 MiB for lists, of 1 MiB: the rest is read.
        let least = plan(&graph, kernel, &placement)["minimum_bytes"]
            .as_u64()
            .unwrap();
        let memory = format!("{}K", (least + (768 << 10)) >> 10);
        let json = dir.path().join(format!("{kernel}-{fraction}.json"));
        let out = dir.path().join(format!("{kernel}-{fraction}.npy"));
        swapless_ok(&[
            "run",
            kernel,
            arg(&graph),
            "--tier",
            "direct",
            "--memory",
            &memory,
            "--gather-cache",
            fraction,
            "--chunk",
            "16K",
            "--queue-depth",
            "8",
            "--out",
            arg(&out),
            "--json",
            arg(&json),
        ]);
        let report = json_report(&json);
        // The budget is too small for `--verify`'s phase: the answer is checked here.
        let result = npy_payload(&out);
        match kernel {
            "bfs" => verify_bfs_parents(&report, &result),
            _ => {
                let (_, dram_result) = run(&graph, kernel, &["--tier", "dram"], dir.path());
                assert_eq!(result, dram_result, "{kernel} {fraction}");
            }
        }
        if fraction != "0" {
            assert!(report["gather_cache_bytes"].as_u64().unwrap() > 0);
        }
        bytes_read.push(report["bytes_read"].as_u64().unwrap());
        lists = report["arcs"].as_u64().unwrap() * 4;
    }
    assert!(
        bytes_read[1] * 4 < bytes_read[0],
        "with the page cache bfs read {} bytes, without {}",
        bytes_read[1],
        bytes_read[0]
    );
    // Each list is looked up in the cache on its own before the misses are coalesced
    // (5x the lists measured; 20x when coalesced reads were looked up whole).
    assert!(
        bytes_read[1] < 8 * lists,
        "with the page cache bfs read {} bytes for {lists} bytes of lists",
        bytes_read[1]
    );
    let message = swapless_fails(&["run", "bfs", arg(&graph), "--gather-cache", "2"]);
    assert!(message.contains("--gather-cache"), "{message}");
}

#[test]
fn a_budget_below_the_hot_set_is_refused_with_the_least_that_works() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("kron.sl");
    swapless_ok(&["generate", "kron", "--scale", "16", "-o", arg(&graph)]);
    let message = swapless_fails(&["run", "pr", arg(&graph), "--memory", "1M"]);
    assert!(message.contains("needs at least"), "{message}");
    assert!(message.contains("raise --memory"), "{message}");
    let message = swapless_fails(&["run", "pr", arg(&graph), "--tier", "dram", "--memory", "2M"]);
    assert!(message.contains("dram"), "{message}");
    assert!(swapless_fails(&["run", "pr", arg(&graph), "--chunk", "3K"]).contains("--chunk"));
}

/// Starts a long PageRank on `tier`, halves the graph file under it, and returns the
/// exit status and stderr.
fn cut_short_under_a_run(tier: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("kron.sl");
    let out = dir.path().join("scores.npy");
    swapless_ok(&["generate", "kron", "--scale", "16", "-o", arg(&graph)]);
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_swapless"))
        .args([
            "run",
            "pr",
            arg(&graph),
            "--tier",
            tier,
            "--memory",
            "16M",
            "--tolerance",
            "0",
            "--max-iters",
            "100000",
            "--out",
            arg(&out),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&graph)
        .unwrap();
    let length = file.metadata().unwrap().len();
    file.set_len(length / 2).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(!out.exists(), "a result was written from a cut-short file");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), stderr)
}

#[test]
fn a_file_cut_short_under_a_running_direct_tier_is_an_error() {
    let (status, stderr) = cut_short_under_a_run("direct");
    assert_eq!(status, Some(1), "{stderr}");
    // A read that comes up short says so; on a loaded machine the file's watch may see
    // the new size first, and says the file changed: either way, no result.
    assert!(
        stderr.contains("truncated")
            || stderr.contains("short")
            || stderr.contains("changed while it was being read"),
        "{stderr}"
    );
}

/// On the mmap tier the cut lands either between calls (the length check's error) or
/// inside one (a SIGBUS, turned into the same kind of one-sentence exit).
#[test]
fn a_file_cut_short_under_a_running_mmap_tier_is_an_error() {
    let (status, stderr) = cut_short_under_a_run("mmap");
    assert_eq!(status, Some(1), "{stderr}");
    assert!(
        stderr.contains("truncated") || stderr.contains("cut short"),
        "{stderr}"
    );
}

/// `--memory` for `kernel` on `graph` on `tier`: the least budget the plan accepts (so
/// a disk tier reads most lists), or plenty for dram.
fn least_memory(graph: &Path, kernel: &str, tier: &str) -> String {
    let least = plan(graph, kernel, &["--tier", tier])["minimum_bytes"]
        .as_u64()
        .unwrap();
    match tier {
        "dram" => "1G".to_string(),
        _ => format!("{}K", (least >> 10) + 64),
    }
}

/// Runs `kernel` on the damaged `graph` on every tier at the least budget of `clean`
/// (the undamaged file, whose plan the damage cannot upset), expecting failure; returns
/// each tier's stderr.
fn failures_on_every_tier(graph: &Path, clean: &Path, kernel: &str) -> Vec<String> {
    failures_on(&["dram", "mmap", "direct"], graph, clean, kernel)
}

/// [`failures_on_every_tier`] for `tiers` alone.
fn failures_on(tiers: &[&str], graph: &Path, clean: &Path, kernel: &str) -> Vec<String> {
    tiers
        .iter()
        .map(|&tier| {
            let memory = least_memory(clean, kernel, tier);
            swapless_fails(&[
                "run",
                kernel,
                arg(graph),
                "--tier",
                tier,
                "--memory",
                &memory,
            ])
        })
        .collect()
}

/// A changed byte that leaves every id in range (and so passes the range check) fails
/// the run on every tier, wherever it is: in the lists a disk tier keeps in memory, in
/// those it reads, and in the weights.
#[test]
fn a_corrupt_page_fails_the_run_on_every_tier_instead_of_changing_its_answer() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean.sl");
    // 2^16 vertices: flipping an id's lowest bit keeps it below the vertex count.
    generate_kron(&clean, 16, 8, &["--weighted"]);
    let (neighbors_at, neighbors_bytes) = section_position(&clean, SectionKind::OutNeighbors);
    let (weights_at, _) = section_position(&clean, SectionKind::OutWeights);
    let damaged = dir.path().join("damaged.sl");
    let places = [
        ("pr", neighbors_at + 40),
        ("pr", neighbors_at + neighbors_bytes / 2 + 4),
        ("pr", neighbors_at + neighbors_bytes - 8),
        // The hub's weights (vertex 0 of a kron graph): every sssp run reads them.
        ("sssp", weights_at),
    ];
    for (kernel, position) in places {
        let mut bytes = std::fs::read(&clean).unwrap();
        bytes[position as usize] ^= 1;
        std::fs::write(&damaged, &bytes).unwrap();
        for stderr in failures_on_every_tier(&damaged, &clean, kernel) {
            assert!(
                stderr.contains("fails its checksum") && stderr.contains("rebuild the file"),
                "{kernel}, byte {position}: {stderr}"
            );
        }
    }
}

/// A file whose checksums match but whose lists are not a graph (an id beyond the
/// vertices, offsets that fall) is refused in one sentence on every tier, never run.
#[test]
fn a_crafted_file_with_matching_checksums_is_refused_on_every_tier() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean.sl");
    generate_kron(&clean, 16, 8, &[]);
    let (neighbors_at, neighbors_bytes) = section_position(&clean, SectionKind::OutNeighbors);
    let (offsets_at, _) = section_position(&clean, SectionKind::OutOffsets);
    let crafted = dir.path().join("crafted.sl");
    let beyond = (1u32 << 16) + 7;
    let cases = [
        // In the lists a disk tier keeps in memory, and in those it reads.
        (
            neighbors_at + 4,
            beyond.to_le_bytes().to_vec(),
            "holds an id beyond the vertices",
        ),
        (
            neighbors_at + neighbors_bytes - 8,
            beyond.to_le_bytes().to_vec(),
            "holds an id beyond the vertices",
        ),
        // Vertex 5's list would start past the section's end.
        (
            offsets_at + 5 * 8,
            u64::MAX.to_le_bytes().to_vec(),
            "does not describe",
        ),
    ];
    for (position, value, expected) in cases {
        let mut bytes = std::fs::read(&clean).unwrap();
        bytes[position as usize..position as usize + value.len()].copy_from_slice(&value);
        std::fs::write(&crafted, &bytes).unwrap();
        reseal_block(&crafted, position);
        if expected == "does not describe" {
            // The plan reads the offsets too, and sizes nothing from bad ones.
            let plan_error = swapless_fails(&["plan", arg(&crafted), "pr"]);
            assert!(plan_error.contains(expected), "{plan_error}");
            assert!(swapless_fails(&["info", arg(&crafted)]).contains("out_offsets"));
        }
        for stderr in failures_on_every_tier(&crafted, &clean, "pr") {
            assert!(
                stderr.contains(expected) && stderr.starts_with("error:"),
                "byte {position}: {stderr}"
            );
        }
    }
}

/// Compressed files of format version 3 (tails in Stream VByte, where version 4 packs
/// them; made by a build of that version and kept in `tests/fixtures` beside the same
/// graph with plain lists) give the plain file's answers on every tier.
#[test]
fn version_3_compressed_files_give_the_plain_answers_on_every_tier() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let [plain, packed] = ["kron8-weighted-v2.sl", "kron8-weighted-v3.sl"].map(|name| {
        let copy = dir.path().join(name);
        std::fs::copy(fixtures.join(name), &copy).unwrap();
        copy
    });
    let file = GraphFile::open(&packed).unwrap();
    assert_eq!((file.header().version, file.lists_compressed()), (3, true));
    assert!(swapless_ok(&["check", arg(&packed)]).starts_with("ok: "));
    for kernel in kernels_on(&plain) {
        let expected = run(&plain, kernel, &["--tier", "dram"], dir.path());
        let found = run(&packed, kernel, &["--tier", "dram"], dir.path());
        assert_same_answer(
            kernel,
            "dram",
            (&found.0, &found.1),
            (&expected.0, &expected.1),
        );
    }
    every_kernel_matches_dram(&packed, dir.path(), &["4K"]);
}

/// Files written before page checksums (format version 1) still run on every tier
/// and give the same answers; their reads are range-checked only.
#[test]
fn version_1_files_run_on_every_tier() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("kron.sl");
    generate_kron(&graph, 16, 8, &[]);
    let (_, current) = run(&graph, "pr", &["--tier", "dram"], dir.path());
    let page_checks = |graph: &Path| -> serde_json::Value {
        let segments = plan(graph, "pr", &["--tier", "direct"])["segments"].clone();
        let found = segments
            .as_array()
            .unwrap()
            .iter()
            .find(|segment| segment["name"] == "list page checksums");
        found.unwrap().clone()
    };
    assert!(page_checks(&graph)["bytes"].as_u64().unwrap() > 0);
    rewrite_as_version_1(&graph);
    assert!(swapless_ok(&["info", arg(&graph)]).contains("format v1"));
    let checks = page_checks(&graph);
    assert_eq!(checks["bytes"], 0);
    assert!(checks["placement"].as_str().unwrap().contains("version-1"));
    swapless_ok(&["check", arg(&graph)]);
    for tier in ["dram", "mmap", "direct"] {
        let memory = least_memory(&graph, "pr", tier);
        let options = ["--tier", tier, "--memory", &memory];
        let (report, scores) = run(&graph, "pr", &options, dir.path());
        assert_eq!(report["tier"], tier);
        if tier != "dram" {
            assert!(report["cache_hit_ratio"].as_f64().unwrap() < 0.5, "{tier}");
        }
        assert_eq!(scores, current, "pr on {tier}");
    }
    // Without page checks, the disk tiers check each streamed list's ids as they hand it
    // on: an id beyond the vertices in the last list (streamed at the least budget),
    // under a matching 1 MiB checksum, fails the run.
    let crafted = dir.path().join("crafted.sl");
    let mut bytes = std::fs::read(&graph).unwrap();
    let (neighbors_at, neighbors_bytes) = section_position(&graph, SectionKind::OutNeighbors);
    let position = (neighbors_at + neighbors_bytes - 4) as usize;
    bytes[position..position + 4].copy_from_slice(&((1u32 << 16) + 7).to_le_bytes());
    std::fs::write(&crafted, &bytes).unwrap();
    reseal_block(&crafted, position as u64);
    for stderr in failures_on(&["mmap", "direct"], &crafted, &graph, "pr") {
        assert!(
            stderr.contains("holds an id beyond the vertices"),
            "{stderr}"
        );
    }
    // Built again from itself, it is a current file with a checksum a page.
    let upgraded = dir.path().join("upgraded.sl");
    swapless_ok(&["build", arg(&graph), "-o", arg(&upgraded)]);
    assert!(!swapless_ok(&["info", arg(&upgraded)]).contains("format v1"));
    assert!(page_checks(&upgraded)["bytes"].as_u64().unwrap() > 0);
    let (_, scores) = run(&upgraded, "pr", &["--tier", "dram"], dir.path());
    assert_eq!(scores, current);
}

/// Installs, in the calling process, a seccomp filter that makes io_uring's set-up fail
/// with EPERM, as the filters container runtimes install do; everything else is allowed.
fn refuse_io_uring() -> std::io::Result<()> {
    let statement = |code: u32, jump_if: u8, jump_else: u8, value: u32| libc::sock_filter {
        code: code as u16,
        jt: jump_if,
        jf: jump_else,
        k: value,
    };
    let filter = [
        // The system call's number (the first field of seccomp_data).
        statement(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0, 0, 0),
        statement(
            libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
            0,
            1,
            libc::SYS_io_uring_setup as u32,
        ),
        statement(
            libc::BPF_RET | libc::BPF_K,
            0,
            0,
            libc::SECCOMP_RET_ERRNO | libc::EPERM as u32,
        ),
        statement(libc::BPF_RET | libc::BPF_K, 0, 0, libc::SECCOMP_RET_ALLOW),
    ];
    let program = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_ptr().cast_mut(),
    };
    // SAFETY: plain system calls on this process; the kernel copies the filter.
    let installed = unsafe {
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
            && libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                0,
                &program as *const libc::sock_fprog,
            ) == 0
    };
    match installed {
        true => Ok(()),
        false => Err(std::io::Error::last_os_error()),
    }
}

/// Runs `swapless` with `args` in a process that may not use io_uring.
fn swapless_without_io_uring(args: &[&str]) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_swapless"));
    command.args(args);
    // SAFETY: the hook runs in the child between fork and exec and makes only the
    // prctl and seccomp system calls, which are async-signal-safe.
    unsafe {
        command.pre_exec(refuse_io_uring);
    }
    command.output().expect("the swapless binary runs")
}

/// Runs `swapless args` where io_uring is refused; insists that it succeeds on the mmap
/// tier and that its JSON report (written to `json`) says why. Returns stdout and report.
fn mmap_without_io_uring(args: &[&str], json: &Path) -> (String, serde_json::Value) {
    let output = swapless_without_io_uring(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let report = json_report(json);
    assert_eq!(report["tier"], "mmap");
    assert!(report["io_uring_refused"].is_string(), "{report}");
    (String::from_utf8_lossy(&output.stdout).into_owned(), report)
}

#[test]
fn without_io_uring_the_default_disk_tier_is_mmap_and_direct_by_name_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("kron.sl");
    generate_kron(&graph, 16, 16, &["--reorder", "dbg"]);
    let planned = plan(&graph, "pr", &["--tier", "direct", "--memory", "1G"]);
    let least = planned["minimum_bytes"].as_u64().unwrap();
    let footprint = planned["footprint_bytes"].as_u64().unwrap();
    // A quarter of the way from the least budget to the footprint: a disk tier's.
    let budget = format!("{}K", (least + (footprint - least) / 4) >> 10);

    // Where io_uring works, the default disk tier is direct.
    let usual = plan(&graph, "pr", &["--memory", &budget]);
    assert_eq!(usual["tier"], "direct");
    assert!(usual["io_uring_refused"].is_null());

    // Where it does not, the plan and the run take mmap, say why, and give dram's answer.
    let json = dir.path().join("plan.json");
    let plan_args = [
        "plan",
        arg(&graph),
        "pr",
        "--memory",
        &budget,
        "--json",
        arg(&json),
    ];
    let stdout = mmap_without_io_uring(&plan_args, &json).0;
    assert!(stdout.contains("may not use io_uring"), "{stdout}");

    let (dram, dram_result) = run(&graph, "pr", &["--tier", "dram"], dir.path());
    let (json, out) = (dir.path().join("run.json"), dir.path().join("run.npy"));
    let run_args = [
        "run",
        "pr",
        arg(&graph),
        "--memory",
        &budget,
        "--json",
        arg(&json),
        "--out",
        arg(&out),
    ];
    let (stdout, report) = mmap_without_io_uring(&run_args, &json);
    assert!(stdout.contains("instead of direct"), "{stdout}");
    assert_same_answer(
        "pr",
        "mmap",
        (&report, &npy_payload(&out)),
        (&dram, &dram_result),
    );

    // Asked for by name, the direct tier fails in one sentence that names the way out.
    let direct_args = [
        "run",
        "pr",
        arg(&graph),
        "--tier",
        "direct",
        "--memory",
        &budget,
    ];
    let stderr = failed_in_one_line(&direct_args, swapless_without_io_uring(&direct_args));
    assert!(
        stderr.contains("io_uring is not available") && stderr.contains("--tier mmap"),
        "{stderr}"
    );
}

/// A memory cgroup made for one test, removed when dropped.
struct TestCgroup(std::path::PathBuf);

impl Drop for TestCgroup {
    fn drop(&mut self) {
        // Its process has exited by now, so the empty cgroup can go.
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[test]
fn without_memory_the_budget_is_half_of_what_the_cgroup_allows() {
    use swapless_system::{CgroupVersion, main_memory_cgroup_mount};
    let Some(mount) = main_memory_cgroup_mount() else {
        eprintln!("skipped: no memory cgroup is mounted here");
        return;
    };
    let cgroup = mount
        .mount_point
        .join(format!("swapless-test-{}", std::process::id()));
    if std::fs::create_dir(&cgroup).is_err() {
        eprintln!("skipped: no writable memory cgroup (making one needs root)");
        return;
    }
    let cgroup = TestCgroup(cgroup);
    let limit_file = match mount.version {
        CgroupVersion::V2 => {
            let _ = std::fs::write(mount.mount_point.join("cgroup.subtree_control"), "+memory");
            "memory.max"
        }
        CgroupVersion::V1 => "memory.limit_in_bytes",
    };
    let limit: u64 = 384 << 20;
    std::fs::write(cgroup.0.join(limit_file), limit.to_string()).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("kron.sl");
    generate_kron(&graph, 14, 8, &[]);
    let json = dir.path().join("plan.json");
    // The shell joins the cgroup, then becomes swapless: every page of it is charged there.
    let output = std::process::Command::new("sh")
        .args([
            "-c",
            r#"echo $$ > "$1/cgroup.procs" && exec "$2" plan "$3" pr --tier direct --json "$4""#,
            "sh",
        ])
        .args([
            cgroup.0.as_os_str(),
            env!("CARGO_BIN_EXE_swapless").as_ref(),
        ])
        .args([graph.as_os_str(), json.as_os_str()])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let physical = swapless_system::physical_memory_bytes().unwrap();
    assert_eq!(
        json_report(&json)["memory_budget_bytes"].as_u64().unwrap(),
        limit.min(physical) / 2
    );
}

#[test]
fn a_budget_beyond_what_the_process_may_use_is_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("kron.sl");
    generate_kron(&graph, 10, 8, &[]);
    let beyond = swapless(&["plan", arg(&graph), "pr", "--memory", "1000T"]);
    assert!(beyond.status.success());
    let stderr = String::from_utf8_lossy(&beyond.stderr);
    assert!(
        stderr.starts_with("warning: --memory 1000T is more than the ")
            && stderr.contains("may use"),
        "{stderr}"
    );
    let within = swapless(&["plan", arg(&graph), "pr", "--memory", "64M"]);
    assert!(within.status.success() && within.stderr.is_empty());
}
