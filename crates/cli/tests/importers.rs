//! Every importer turns its input into exactly the expected graph: the arcs read
//! back from the `.sl` file equal an independent computation on the same edges.

mod common;

use std::path::Path;

use common::*;
use swapless_format::GraphFile;

fn edge_list_text(edges: &[(u32, u32, f32)], weighted: bool, separator: &str) -> String {
    let mut text = String::from("# a comment line\n% another comment\n\n");
    for (index, &(s, d, w)) in edges.iter().enumerate() {
        if weighted {
            text += &format!("{s}{separator}{d}{separator}{w}");
        } else {
            text += &format!("{s}{separator}{d}");
        }
        if index % 7 == 0 {
            text += "   # trailing comment";
        }
        text += if index % 5 == 0 { "\r\n" } else { "\n" };
    }
    text
}

fn build_and_compare(input: &Path, edges: &[(u32, u32, f32)], undirected: bool, weighted: bool) {
    let output = input.with_extension("out.sl");
    let mut args = vec!["build", arg(input), "-o", arg(&output)];
    if undirected {
        args.push("--undirected");
    }
    if weighted {
        args.push("--weighted");
    }
    swapless_ok(&args);
    let graph = GraphFile::open(&output).unwrap();
    assert_eq!(graph.flags().directed, !undirected);
    assert_eq!(graph.flags().weighted, weighted);
    let mut expected = expected_arcs(edges, undirected);
    if !weighted {
        expected.iter_mut().for_each(|arc| arc.2 = 1.0);
    }
    assert_eq!(read_arcs(&output), expected, "{}", input.display());
    if !undirected {
        assert_eq!(read_in_arcs_flipped(&output), expected);
    }
    let max_id = edges.iter().map(|e| e.0.max(e.1)).max().unwrap();
    assert_eq!(graph.num_vertices(), max_id as usize + 1);
    swapless_ok(&["check", arg(&output)]);
}

#[test]
fn text_edge_lists_round_trip_in_every_variant() {
    let dir = tempfile::tempdir().unwrap();
    let edges = random_edges(3000, 400, 11);
    for compression in ["", ".gz", ".zst"] {
        for (separator, weighted) in [(" ", false), ("\t", true), (",", true), (", ", false)] {
            for undirected in [false, true] {
                let name = format!(
                    "g-{}-{weighted}-{undirected}.el{compression}",
                    separator.len()
                );
                let path = dir.path().join(name);
                write_input(
                    &path,
                    edge_list_text(&edges, weighted, separator).as_bytes(),
                );
                build_and_compare(&path, &edges, undirected, weighted);
            }
        }
    }
}

#[test]
fn a_third_column_is_ignored_without_weighted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.txt");
    std::fs::write(&path, "0 1 5\n1 2 7\n").unwrap();
    let output = dir.path().join("g.sl");
    swapless_ok(&["build", arg(&path), "-o", arg(&output)]);
    assert_eq!(read_arcs(&output), vec![(0, 1, 1.0), (1, 2, 1.0)]);
}

#[test]
fn build_reports_dropped_loops_and_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.el");
    // 1-0 repeats 0-1 when undirected; 2-2 is a loop; 0 1 appears twice.
    std::fs::write(&path, "0 1\n1 0\n2 2\n0 1\n1 2\n").unwrap();
    let output = dir.path().join("g.sl");
    let report = dir.path().join("r.json");
    swapless_ok(&[
        "build",
        arg(&path),
        "-o",
        arg(&output),
        "--undirected",
        "--json",
        arg(&report),
    ]);
    let report = json_report(&report);
    assert_eq!(report["input_edges"], 5);
    assert_eq!(report["self_loops_dropped"], 1);
    assert_eq!(report["duplicate_edges_dropped"], 2);
    assert_eq!(report["edges"], 2);
    assert_eq!(report["vertices"], 3);
}

fn matrix_market(
    field: &str,
    symmetry: &str,
    rows: u32,
    columns: u32,
    edges: &[(u32, u32, f32)],
) -> String {
    let mut text = format!("%%MatrixMarket matrix coordinate {field} {symmetry}\n% comment\n%\n");
    text += &format!("{rows} {columns} {}\n", edges.len());
    for &(s, d, w) in edges {
        match field {
            "pattern" => text += &format!("{} {}\n", s + 1, d + 1),
            "integer" => text += &format!("{} {} {}\n", s + 1, d + 1, w as i64),
            _ => text += &format!("{} {} {:e}\n", s + 1, d + 1, w),
        }
    }
    text
}

#[test]
fn matrix_market_files_of_every_supported_kind() {
    let dir = tempfile::tempdir().unwrap();
    let edges: Vec<(u32, u32, f32)> = random_edges(2000, 300, 5)
        .into_iter()
        .map(|(s, d, w)| (s, d, w.floor()))
        .collect();
    for (field, weighted) in [
        ("pattern", false),
        ("integer", true),
        ("real", true),
        ("real", false),
    ] {
        for symmetry in ["general", "symmetric"] {
            for compression in ["", ".gz", ".zst"] {
                let path = dir
                    .path()
                    .join(format!("m-{field}-{symmetry}-{weighted}.mtx{compression}"));
                // 350 rows: vertices 300..349 are isolated but must exist.
                write_input(
                    &path,
                    matrix_market(field, symmetry, 350, 320, &edges).as_bytes(),
                );
                let output = dir
                    .path()
                    .join(format!("m-{field}-{symmetry}-{weighted}{compression}.sl"));
                let mut args = vec!["build", arg(&path), "-o", arg(&output)];
                if weighted {
                    args.push("--weighted");
                }
                swapless_ok(&args);
                let graph = GraphFile::open(&output).unwrap();
                assert_eq!(graph.num_vertices(), 350);
                assert_eq!(graph.flags().directed, symmetry == "general");
                let mut expected = expected_arcs(&edges, symmetry == "symmetric");
                if !weighted {
                    expected.iter_mut().for_each(|arc| arc.2 = 1.0);
                }
                assert_eq!(read_arcs(&output), expected, "{field} {symmetry}");
            }
        }
    }
}

/// An independent writer of GAP's serialized format (GAP's writer.h layout):
/// bool directed, int64 arcs, int64 vertices, int64 offsets, int32 neighbors
/// (or int32 neighbor + int32 weight), and the in-direction for directed graphs.
fn write_gap(
    path: &Path,
    directed: bool,
    vertices: usize,
    arcs: &[(u32, u32, f32)],
    weighted: bool,
) -> Vec<u8> {
    let lists = |flip: bool| {
        let mut lists: Vec<Vec<(u32, i32)>> = vec![Vec::new(); vertices];
        for &(s, d, w) in arcs {
            let (from, to) = if flip { (d, s) } else { (s, d) };
            lists[from as usize].push((to, w as i32));
        }
        lists
    };
    let mut bytes = vec![directed as u8];
    bytes.extend_from_slice(&(arcs.len() as i64).to_le_bytes());
    bytes.extend_from_slice(&(vertices as i64).to_le_bytes());
    let sides: &[bool] = if directed { &[false, true] } else { &[false] };
    for &flip in sides {
        let lists = lists(flip);
        let mut offset = 0i64;
        for list in &lists {
            bytes.extend_from_slice(&offset.to_le_bytes());
            offset += list.len() as i64;
        }
        bytes.extend_from_slice(&offset.to_le_bytes());
        for list in &lists {
            for &(neighbor, weight) in list {
                bytes.extend_from_slice(&(neighbor as i32).to_le_bytes());
                if weighted {
                    bytes.extend_from_slice(&weight.to_le_bytes());
                }
            }
        }
    }
    write_input(path, &bytes);
    bytes
}

#[test]
fn gap_serialized_graphs_compare_edge_for_edge() {
    let dir = tempfile::tempdir().unwrap();
    let edges: Vec<(u32, u32, f32)> = random_edges(2500, 500, 9)
        .into_iter()
        .map(|(s, d, w)| (s, d, 1.0 + w.floor()))
        .collect();
    for directed in [true, false] {
        // GAP files hold a finished graph: no loops, no duplicates, undirected lists symmetric.
        let arcs = expected_arcs(&edges, !directed);
        for weighted in [false, true] {
            for compression in ["", ".gz", ".zst"] {
                let extension = if weighted { "wsg" } else { "sg" };
                let path = dir
                    .path()
                    .join(format!("g-{directed}.{extension}{compression}"));
                write_gap(&path, directed, 512, &arcs, weighted);
                let output = dir
                    .path()
                    .join(format!("g-{directed}-{weighted}{compression}.sl"));
                let report = dir.path().join("r.json");
                let mut args = vec![
                    "build",
                    arg(&path),
                    "-o",
                    arg(&output),
                    "--json",
                    arg(&report),
                ];
                if weighted {
                    args.push("--weighted");
                }
                swapless_ok(&args);
                let graph = GraphFile::open(&output).unwrap();
                assert_eq!(graph.num_vertices(), 512);
                assert_eq!(graph.flags().directed, directed);
                let mut expected = arcs.clone();
                if !weighted {
                    expected.iter_mut().for_each(|arc| arc.2 = 1.0);
                }
                assert_eq!(read_arcs(&output), expected);
                assert_eq!(json_report(&report)["duplicate_edges_dropped"], 0);
            }
        }
    }
}

#[test]
fn real_graphs_build_with_their_documented_sizes() {
    let data = real_graphs();
    let dir = tempfile::tempdir().unwrap();
    // (file, undirected, vertices, edges) as data/README.md documents them.
    let graphs = [
        ("email-Enron.el.gz", true, 36_692u64, 183_831u64),
        ("pgp-strong-2009.el.gz", false, 39_796, 301_498),
        ("power.el.gz", true, 4_941, 6_594),
    ];
    for (name, undirected, vertices, edges) in graphs {
        let output = dir.path().join(format!("{name}.sl"));
        let input = data.join(name);
        let mut args = vec!["build", arg(&input), "-o", arg(&output)];
        if undirected {
            args.push("--undirected");
        }
        swapless_ok(&args);
        let graph = GraphFile::open(&output).unwrap();
        assert_eq!(graph.num_vertices() as u64, vertices, "{name}");
        assert_eq!(graph.num_edges(), edges, "{name}");
        swapless_ok(&["check", arg(&output)]);
        // Reordering keeps the same graph up to renaming.
        let reordered = dir.path().join(format!("{name}.dbg.sl"));
        args[3] = arg(&reordered);
        args.extend(["--reorder", "dbg"]);
        swapless_ok(&args);
        assert_eq!(read_arcs(&reordered), read_arcs(&output), "{name}");
        // ...and puts the hubs first: the first 1% of new ids average well above the mean degree.
        let graph = GraphFile::open(&reordered).unwrap();
        let prefix = graph.num_vertices() / 100;
        let prefix_mean = graph.out_offsets()[prefix] as f64 / prefix as f64;
        let mean = graph.num_arcs() as f64 / graph.num_vertices() as f64;
        assert!(
            prefix_mean > 2.0 * mean,
            "{name}: prefix mean {prefix_mean}, mean {mean}"
        );
    }
}

/// A `.sl` file is a build input: built again with the same options it comes out byte
/// for byte the same, a reordered one comes back in its original ids, and a directed
/// weighted one keeps its arcs and weights.
#[test]
fn a_swapless_file_builds_again_into_the_same_graph() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("kron.sl");
    generate_kron(&plain, 12, 8, &[]);
    let again = dir.path().join("again.sl");
    swapless_ok(&["build", arg(&plain), "-o", arg(&again)]);
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(&again).unwrap()
    );

    let reordered = dir.path().join("kron-dbg.sl");
    generate_kron(&reordered, 12, 8, &["--reorder", "dbg"]);
    let back = dir.path().join("back.sl");
    swapless_ok(&["build", arg(&reordered), "-o", arg(&back)]);
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(&back).unwrap()
    );

    let edges = random_edges(5000, 700, 11);
    let text = dir.path().join("directed.el");
    std::fs::write(&text, edge_list_text(&edges, true, " ")).unwrap();
    let directed = dir.path().join("directed.sl");
    swapless_ok(&["build", arg(&text), "-o", arg(&directed), "--weighted"]);
    let copy = dir.path().join("copy.sl");
    swapless_ok(&["build", arg(&directed), "-o", arg(&copy), "--weighted"]);
    assert_eq!(read_arcs(&copy), read_arcs(&directed));
    assert_eq!(read_in_arcs_flipped(&copy), read_in_arcs_flipped(&directed));
    // As an undirected graph: each arc stands for both directions.
    let undirected = dir.path().join("undirected.sl");
    swapless_ok(&[
        "build",
        arg(&directed),
        "-o",
        arg(&undirected),
        "--undirected",
    ]);
    let graph = GraphFile::open(&undirected).unwrap();
    assert!(!graph.flags().directed && !graph.flags().weighted);
    let unweighted: Vec<(u32, u32, f32)> = edges.iter().map(|&(s, d, _)| (s, d, 1.0)).collect();
    assert_eq!(read_arcs(&undirected), expected_arcs(&unweighted, true));

    let stderr = swapless_fails(&["build", arg(&plain), "-o", arg(&copy), "--weighted"]);
    assert!(stderr.contains("has no weights"), "{stderr}");
}
