//! `swapless run`: reports, result files in original ids, and clear errors.

mod common;

use common::*;

/// Reads a 1-D little-endian `.npy` of 8-byte elements written by swapless.
fn read_npy_words(path: &std::path::Path) -> (String, Vec<[u8; 8]>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = String::from_utf8_lossy(&bytes[10..10 + header_len]).into_owned();
    let words = bytes[10 + header_len..]
        .chunks_exact(8)
        .map(|c| c.try_into().unwrap())
        .collect();
    (header, words)
}

#[test]
fn run_reports_and_writes_results_in_original_ids() {
    let data = real_graphs();
    let dir = tempfile::tempdir().unwrap();
    let input = data.join("email-Enron.el.gz");
    let plain = dir.path().join("enron.sl");
    let reordered = dir.path().join("enron-dbg.sl");
    swapless_ok(&["build", arg(&input), "--undirected", "-o", arg(&plain)]);
    swapless_ok(&[
        "build",
        arg(&input),
        "--undirected",
        "--reorder",
        "dbg",
        "-o",
        arg(&reordered),
    ]);
    let mut outputs = Vec::new();
    // The kernels that search from every one of the 36,692 vertices are left out: ids.rs
    // and tiers.rs check their answers in original ids on smaller graphs.
    for graph in [&plain, &reordered] {
        for kernel in kernels_of_linear_cost(graph) {
            let out = dir.path().join(format!("{kernel}.npy"));
            let report = dir.path().join(format!("{kernel}.json"));
            let mut args: Vec<&str> = vec![
                "run",
                kernel,
                arg(graph),
                "--verify",
                "--trials",
                "2",
                "--out",
                arg(&out),
                "--json",
                arg(&report),
            ];
            if kernel == "bfs" || kernel == "sssp" {
                args.extend(["--source", "17"]);
            }
            if returns_a_number(kernel) {
                args.retain(|a| *a != "--out" && *a != arg(&out));
            }
            swapless_ok(&args);
            let report = json_report(&report);
            for field in [
                "kernel",
                "graph",
                "tier",
                "threads",
                "trials",
                "seconds",
                "load_seconds",
                "peak_rss_bytes",
                "footprint_bytes",
                "huge_page_bytes",
                "major_faults",
                "minor_faults",
                "result",
            ] {
                assert!(!report[field].is_null(), "{kernel}: report lacks {field}");
            }
            assert_eq!(report["verified"], true);
            assert_eq!(report["tier"], "dram");
            let words = if returns_a_number(kernel) {
                assert!(report["result"]["triangles"].as_u64().unwrap() > 0);
                Vec::new()
            } else if kernel == "mis" {
                let bytes = std::fs::read(&out).unwrap();
                let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
                assert!(String::from_utf8_lossy(&bytes[10..10 + header_len]).contains("'|i1'"));
                bytes[10 + header_len..]
                    .iter()
                    .map(|&b| [b, 0, 0, 0, 0, 0, 0, 0])
                    .collect()
            } else if kernel == "ktruss" {
                // Rows of two original ids, an edge each.
                let (header, words) = read_npy_words(&out);
                let edges = report["result"]["edges"].as_u64().unwrap();
                assert!(header.contains(&format!("({edges}, 2)")), "{header}");
                assert_eq!(words.len() as u64, 2 * edges);
                words
            } else {
                let (header, words) = read_npy_words(&out);
                assert!(header.contains("(36692,)"), "{header}");
                assert_eq!(words.len(), 36692);
                words
            };
            outputs.push((kernel, report, words));
        }
    }
    // Same answers whether or not the file was reordered, in original ids.
    let (plain_runs, reordered_runs) = outputs.split_at(kernels_of_linear_cost(&plain).len());
    for ((kernel, plain_report, plain_words), (_, reordered_report, reordered_words)) in
        plain_runs.iter().zip(reordered_runs)
    {
        let (plain_result, reordered_result) =
            (&plain_report["result"], &reordered_report["result"]);
        if *kernel == "wclustering" {
            // A mean of coefficients that are sums of floats in the order threads race.
            let mean = |result: &serde_json::Value| result["average_clustering"].as_f64().unwrap();
            assert!((mean(plain_result) - mean(reordered_result)).abs() < 1e-12);
        } else if plain_result.get("last_change").is_some() || kernel.ends_with("bc") {
            // An iteration's change (pr, eigenvector, katz, hits) sums in another order
            // on a reordered file, so only its leading digits agree
            assert_eq!(plain_result["iterations"], reordered_result["iterations"]);
        } else if kernel.ends_with("louvain") {
            // Louvain visits the vertices in the file's order: a reordered file's
            // partition is another, of the same quality.
            let modularity = |result: &serde_json::Value| result["modularity"].as_f64().unwrap();
            let (plain, reordered) = (modularity(plain_result), modularity(reordered_result));
            assert!(
                (plain - reordered).abs() < 0.02,
                "{kernel}: {plain} vs {reordered}"
            );
            continue;
        } else {
            assert_eq!(plain_result, reordered_result, "{kernel}");
        }
        match *kernel {
            "bfs" => {
                assert_eq!(plain_report["source"], 17);
                assert_eq!(i64::from_le_bytes(plain_words[17]), 17);
                assert_eq!(i64::from_le_bytes(reordered_words[17]), 17);
                for (a, b) in plain_words.iter().zip(reordered_words) {
                    assert_eq!(i64::from_le_bytes(*a) == -1, i64::from_le_bytes(*b) == -1);
                }
            }
            "cc" | "scc" => {
                // the same partition: label pairs map one to one
                let mut pairs = std::collections::HashMap::new();
                for (a, b) in plain_words.iter().zip(reordered_words) {
                    assert_eq!(*pairs.entry(*a).or_insert(*b), *b);
                }
            }
            "bc" | "wbc" => {
                for (a, b) in plain_words.iter().zip(reordered_words) {
                    assert!((f64::from_le_bytes(*a) - f64::from_le_bytes(*b)).abs() < 1e-9);
                }
            }
            "pr" => {
                let sum: f64 = plain_words.iter().map(|w| f64::from_le_bytes(*w)).sum();
                assert!((sum - 1.0).abs() < 1e-9);
                // Renumbering reorders each list's sum, which may round a score, kept as
                // f32, the other way: pagerank::verify's bound, 2 f32::EPSILON / (1 - 0.85).
                let allowed = 2.0 * f32::EPSILON as f64 / 0.15;
                let least = 1.0 / plain_words.len() as f64;
                for (a, b) in plain_words.iter().zip(reordered_words) {
                    let (a, b) = (f64::from_le_bytes(*a), f64::from_le_bytes(*b));
                    assert!((a - b).abs() <= allowed * a.max(least), "{a} against {b}");
                }
            }
            "eigenvector" | "katz" | "hits" | "pr64" | "wpr64" | "wclustering" => {
                // float64 sums in another order: the verifiers' bound.
                let values = |words: &[[u8; 8]]| -> Vec<f64> {
                    words.iter().map(|w| f64::from_le_bytes(*w)).collect()
                };
                let (a, b) = (values(plain_words), values(reordered_words));
                let top = a.iter().fold(0.0f64, |top, x| top.max(x.abs()));
                assert!(
                    a.iter().zip(&b).all(|(a, b)| (a - b).abs() <= 1e-9 * top),
                    "{kernel}"
                );
            }
            // Every other kernel's answer does not depend on the numbering at all.
            _ => assert_eq!(plain_words, reordered_words, "{kernel}"),
        }
    }
}

#[test]
fn run_refuses_bad_requests_in_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g.el");
    std::fs::write(&input, "0 1\n1 2\n").unwrap();
    let graph = dir.path().join("g.sl");
    swapless_ok(&["build", arg(&input), "-o", arg(&graph)]);
    assert!(swapless_fails(&["run", "bfs", arg(&graph), "--source", "3"]).contains("not a vertex"));
    assert!(
        swapless_fails(&["run", "pr", arg(&graph), "--source", "1"]).contains("takes no --source")
    );
    assert!(swapless_fails(&["run", "pr", arg(&graph), "--trials", "0"]).contains("--trials"));
    assert!(
        swapless_fails(&["run", "cc", arg(&dir.path().join("missing.sl"))]).contains("missing.sl")
    );
}

#[test]
fn hugepages_back_the_property_arrays_when_the_kernel_allows_it() {
    let mode =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    if mode.is_empty() || mode.contains("[never]") {
        eprintln!("transparent huge pages are off on this machine; nothing to measure");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // 2^19 vertices: PageRank's 8-byte arrays are 4 MiB each, room for 2 MiB pages.
    let graph = dir.path().join("grid.sl");
    swapless_ok(&[
        "generate",
        "grid",
        "--rows",
        "1024",
        "--cols",
        "512",
        "-o",
        arg(&graph),
    ]);
    let report_of = |fraction: Option<&str>| {
        let report = dir
            .path()
            .join(format!("r{}.json", fraction.unwrap_or("default")));
        let mut args = vec!["run", "pr", arg(&graph), "--json", arg(&report)];
        if let Some(fraction) = fraction {
            args.extend(["--hugepages", fraction]);
        }
        swapless_ok(&args);
        json_report(&report)
    };
    let (none, all, default) = (report_of(Some("0")), report_of(Some("1")), report_of(None));
    // Advice is deterministic; whether the kernel finds free 2 MiB frames to honour it
    // depends on the machine's memory, so huge_page_bytes is reported, not asserted.
    let advised = |report: &serde_json::Value| report["huge_page_advised_bytes"].as_u64().unwrap();
    assert_eq!(advised(&none), 0);
    assert!(
        advised(&all) >= 4 << 20,
        "with --hugepages 1 only {} bytes were advised",
        advised(&all)
    );
    assert_eq!(
        advised(&default),
        advised(&all),
        "the default is all of them"
    );
    assert!(all["huge_page_bytes"].is_u64());
    assert!(
        swapless_fails(&["run", "pr", arg(&graph), "--hugepages", "1.5"]).contains("--hugepages")
    );
}

#[test]
fn betweenness_from_given_sources_searches_from_those_in_the_input_s_ids() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.sl");
    generate_kron(&plain, 8, 8, &[]);
    let reordered = dir.path().join("reordered.sl");
    swapless_ok(&[
        "build",
        arg(&plain),
        "-o",
        arg(&reordered),
        "--reorder",
        "dbg",
    ]);
    let mut answers = Vec::new();
    for graph in [&plain, &reordered] {
        let (json, out) = (dir.path().join("bc.json"), dir.path().join("bc.npy"));
        swapless_ok(&[
            "run",
            "bc",
            arg(graph),
            "--source-ids",
            "7,3,7,200",
            "--verify",
            "--json",
            arg(&json),
            "--out",
            arg(&out),
        ]);
        let report = json_report(&json);
        // A repeated source counts once.
        assert_eq!(
            report["result"]["source_ids"],
            serde_json::json!([7, 3, 200])
        );
        assert_eq!(report["verified"], true);
        answers.push(read_npy_words(&out).1);
    }
    for (a, b) in answers[0].iter().zip(&answers[1]) {
        assert!((f64::from_le_bytes(*a) - f64::from_le_bytes(*b)).abs() < 1e-9);
    }
    let refused = swapless_fails(&["run", "bc", arg(&plain), "--source-ids", "7,999"]);
    assert!(refused.contains("999 is not a vertex"), "{refused}");
}

#[test]
fn plan_counts_the_vertex_weights_a_run_holds() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("k.sl");
    generate_kron(&graph, 10, 8, &[]);
    // 200,000 weights (repeats of a vertex add up) hold megabytes beside the arrays.
    let weights = dir.path().join("weights.txt");
    std::fs::write(&weights, "7 1\n".repeat(200_000)).unwrap();
    let from_file = format!("@{}", weights.display());
    let least = |command: &str, extra: &[&str]| -> f64 {
        // `plan GRAPH KERNEL`, `run KERNEL GRAPH`.
        let mut args = match command {
            "plan" => vec!["plan", arg(&graph), "pr64"],
            _ => vec!["run", "pr64", arg(&graph)],
        };
        args.extend(["--tier", "direct", "--memory", "1M"]);
        args.extend(extra);
        let refused = swapless_fails(&args);
        let at = refused.find("at least ").unwrap() + "at least ".len();
        let figure: String = refused[at..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        figure.parse().unwrap()
    };
    let plain = least("plan", &[]);
    let planned = least("plan", &["--personalization", &from_file]);
    assert!(planned >= plain + 8.0, "{planned} MiB against {plain} MiB");
    assert_eq!(planned, least("run", &["--personalization", &from_file]));
}
