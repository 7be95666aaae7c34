//! Any vertex ids: one graph written with each kind of id a user's file may hold
//! (sparse, beyond 32 bits, negative, random 64-bit, names in Unicode), built with the
//! default `--ids auto`, gives every kernel's answer of the same graph with dense ids,
//! mapped back through the ids the file keeps.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::*;

/// Vertices of the base graph; a ring through all of them makes each appear in an edge.
const VERTICES: u32 = 3000;

/// The base graph's edges in dense ids, with duplicates and self-loops.
fn base_edges() -> Vec<(u32, u32)> {
    let mut edges: Vec<(u32, u32)> = random_edges(20_000, VERTICES, 11)
        .into_iter()
        .map(|(s, d, _)| (s, d))
        .collect();
    edges.extend((0..VERTICES).map(|v| (v, (v + 1) % VERTICES)));
    edges.extend([(5, 5), (7, 8), (7, 8)]);
    edges
}

/// A reproducible scramble of 64 bits (splitmix64's finalizer), a bijection.
fn scramble(v: u32) -> u64 {
    let mut x = v as u64 ^ 0x9E37_79B9_7F4A_7C15;
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// One way a user's file may name the base graph's vertices.
struct Naming {
    name: &'static str,
    /// The id written for dense vertex `v`.
    id: fn(u32) -> String,
    /// Whether the ids sort as the dense ones do: then the compacted graph is the dense
    /// graph itself, and every kernel's answer must be the same bit for bit.
    order_kept: bool,
    /// What `info` must say the build chose.
    kind: &'static str,
    reorder: bool,
}

fn namings() -> Vec<Naming> {
    vec![
        Naming {
            name: "sparse",
            id: |v| (v as u64 * 1_000_003 + 7).to_string(),
            order_kept: true,
            kind: "integers",
            reorder: false,
        },
        Naming {
            name: "beyond 32 bits, reordered",
            id: |v| (v as u64 + (1 << 40)).to_string(),
            order_kept: true,
            kind: "integers",
            reorder: true,
        },
        Naming {
            name: "negative",
            id: |v| (v as i64 - 1_000_000).to_string(),
            order_kept: true,
            kind: "integers",
            reorder: false,
        },
        Naming {
            name: "unicode names",
            id: |v| format!("ü-{v:05}"),
            order_kept: true,
            kind: "names",
            reorder: false,
        },
        Naming {
            name: "random 64-bit",
            id: |v| (scramble(v) as i64).to_string(),
            order_kept: false,
            kind: "integers",
            reorder: false,
        },
        Naming {
            name: "shuffled names",
            id: |v| format!("名_{:016x}", scramble(v)),
            order_kept: false,
            kind: "names",
            reorder: true,
        },
    ]
}

/// Runs `kernel` on `graph` (from the vertex called `source`), writing its table to
/// `table`; returns the JSON report.
fn run_table(graph: &Path, kernel: &str, source: &str, table: &Path) -> serde_json::Value {
    let json = table.with_extension("json");
    let mut args = vec!["run", kernel, arg(graph), "--json", arg(&json)];
    if !returns_a_number(kernel) {
        args.extend(["--out", arg(table)]);
    }
    match kernel {
        "bfs" | "sssp" => args.extend(["--source", source]),
        "bc" => args.extend(["--sources", "all"]),
        _ => {}
    }
    swapless_ok(&args);
    json_report(&json)
}

/// A result table's rows: id to value ("" for none).
fn rows(table: &Path) -> HashMap<String, String> {
    let mut reader = csv::Reader::from_path(table).unwrap();
    reader
        .records()
        .map(|record| {
            let record = record.unwrap();
            (record[0].to_string(), record[1].to_string())
        })
        .collect()
}

/// Each vertex's depth in a BFS tree given as parents (the source its own parent).
fn depths(parents: &HashMap<String, String>) -> HashMap<String, i64> {
    let mut depths = HashMap::new();
    for start in parents.keys() {
        let (mut vertex, mut steps) = (start.clone(), 0i64);
        let depth = loop {
            match parents[&vertex].as_str() {
                "" => break -1,
                parent if parent == vertex => break steps,
                parent => {
                    vertex = parent.to_string();
                    steps += 1;
                }
            }
        };
        depths.insert(start.clone(), depth);
    }
    depths
}

/// Whether two labelings split the vertices the same way.
fn same_partition(a: &HashMap<String, String>, b: &HashMap<String, String>) -> bool {
    let (mut forward, mut backward) = (HashMap::new(), HashMap::new());
    a.iter().all(|(vertex, label)| {
        let other = &b[vertex];
        forward.entry(label).or_insert(other) == &other
            && backward.entry(other).or_insert(label) == &label
    })
}

fn close(a: &str, b: &str, relative: f64) -> bool {
    let (a, b): (f64, f64) = (a.parse().unwrap(), b.parse().unwrap());
    a == b || (a - b).abs() <= relative * b.abs().max(1e-12)
}

#[test]
fn any_ids_give_the_answers_of_dense_ids() {
    let dir = tempfile::tempdir().unwrap();
    let edges = base_edges();
    let dense_text: String = edges.iter().map(|(s, d)| format!("{s} {d}\n")).collect();
    let dense_input = dir.path().join("dense.el");
    write_input(&dense_input, dense_text.as_bytes());
    let dense = dir.path().join("dense.sl");
    swapless_ok(&[
        "build",
        arg(&dense_input),
        "-o",
        arg(&dense),
        "--ids",
        "dense",
    ]);
    let kernels = all_kernels();
    let reference: HashMap<&str, (HashMap<String, String>, serde_json::Value)> = kernels
        .iter()
        .map(|&kernel| {
            let table = dir.path().join(format!("dense-{kernel}.csv"));
            let report = run_table(&dense, kernel, "5", &table);
            let rows = match returns_a_number(kernel) {
                true => HashMap::new(),
                false => rows(&table),
            };
            (kernel, (rows, report))
        })
        .collect();

    for naming in namings() {
        let text: String = edges
            .iter()
            .map(|&(s, d)| format!("{}\t{}\n", (naming.id)(s), (naming.id)(d)))
            .collect();
        let input = dir.path().join("named.el");
        write_input(&input, text.as_bytes());
        let graph = dir.path().join("named.sl");
        let mut args = vec!["build", arg(&input), "-o", arg(&graph)];
        if naming.reorder {
            args.extend(["--reorder", "dbg"]);
        }
        swapless_ok(&args);
        swapless_ok(&["check", arg(&graph)]);
        let info = dir.path().join("info.json");
        swapless_ok(&["info", arg(&graph), "--json", arg(&info)]);
        let info = json_report(&info);
        assert_eq!(info["ids"], naming.kind, "{}", naming.name);
        assert_eq!(info["vertices"], VERTICES as u64, "{}", naming.name);
        // Each id back to its dense vertex, as text.
        let dense_of: HashMap<String, String> = (0..VERTICES)
            .map(|v| ((naming.id)(v), v.to_string()))
            .collect();
        let back = |id: &str| match id {
            "" => String::new(),
            id => dense_of[id].clone(),
        };
        for &kernel in &kernels {
            let table = dir.path().join(format!("named-{kernel}.csv"));
            let report = run_table(&graph, kernel, &(naming.id)(5), &table);
            let (expected, expected_report) = &reference[kernel];
            let what = format!("{kernel} with {} ids", naming.name);
            if returns_a_number(kernel) {
                assert_eq!(report["result"], expected_report["result"], "{what}");
                continue;
            }
            let vertex_valued = matches!(kernel, "bfs" | "cc");
            let found: HashMap<String, String> = rows(&table)
                .into_iter()
                .map(|(id, value)| {
                    let value = match vertex_valued {
                        true => back(&value),
                        false => value,
                    };
                    (back(&id), value)
                })
                .collect();
            assert_eq!(found.len(), expected.len(), "{what}");
            if naming.order_kept && !naming.reorder {
                assert_eq!(&found, expected, "{what}");
                continue;
            }
            // Another order of the vertices: the same answer up to what the kernel may
            // choose (a BFS tree, component labels, float sums in another order); mis
            // and radii draw their priorities and sources by position, so they answer
            // another (verified) question.
            let same = match kernel {
                "bfs" => depths(&found) == depths(expected),
                "cc" => same_partition(&found, expected),
                "pr" => found.iter().all(|(v, x)| close(x, &expected[v], 1e-5)),
                "bc" => found.iter().all(|(v, x)| close(x, &expected[v], 1e-9)),
                "sssp" | "kcore" => &found == expected,
                "mis" | "radii" => continue,
                other => panic!("no comparison for {other}"),
            };
            assert!(same, "{what}: the answers differ from dense ids'");
        }
    }
}

#[test]
fn ids_that_are_not_there_or_not_allowed_are_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("names.el");
    write_input(&input, b"alice bob\nbob carol\n");
    let graph = dir.path().join("names.sl");
    swapless_ok(&["build", arg(&input), "-o", arg(&graph)]);
    let error = swapless_fails(&["run", "bfs", arg(&graph), "--source", "mallory"]);
    assert!(
        error.contains("no vertex of") && error.contains("mallory"),
        "{error}"
    );
    let dense = dir.path().join("dense.sl");
    let error = swapless_fails(&["build", arg(&input), "-o", arg(&dense), "--ids", "dense"]);
    assert!(
        error.contains("names.el:1") && error.contains("alice"),
        "{error}"
    );
    assert!(!dense.exists());
    let matrix = dir.path().join("m.mtx");
    write_input(
        &matrix,
        b"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n",
    );
    let error = swapless_fails(&["build", arg(&matrix), "-o", arg(&dense), "--ids", "compact"]);
    assert!(
        error.contains("compacted ids are for text edge lists"),
        "{error}"
    );
    let error = swapless_fails(&[
        "run",
        "pr",
        arg(&graph),
        "--out",
        arg(&dir.path().join("r.txt")),
    ]);
    assert!(error.contains(".npy") && error.contains(".csv"), "{error}");
}

#[test]
fn distinct_ids_beyond_the_budget_are_refused_before_the_build() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("many.el");
    // About 4 MiB of distinct names, against the 1 MiB that 57M leaves them.
    let text: String = (0..120_000u32)
        .map(|v| format!("name-{v:08} name-{:08}\n", v + 1))
        .collect();
    write_input(&input, text.as_bytes());
    let output = dir.path().join("many.sl");
    let error = swapless_fails(&["build", arg(&input), "-o", arg(&output), "--memory", "57M"]);
    assert!(
        error.contains("distinct ids") && error.contains("larger budget"),
        "{error}"
    );
    assert!(!output.exists());
    swapless_ok(&["build", arg(&input), "-o", arg(&output), "--memory", "96M"]);
}
