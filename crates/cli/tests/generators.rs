//! Generators are reproducible bit for bit, independent of thread count, and
//! produce the graphs their definitions promise.

mod common;

use std::process::Command;

use common::*;
use swapless_format::GraphFile;

#[test]
fn same_seed_same_bytes_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    for generator in ["kron", "urand"] {
        let mut files = Vec::new();
        for (threads, seed) in [("1", "7"), ("2", "7"), ("2", "8")] {
            let path = dir.path().join(format!("{generator}-{threads}-{seed}.sl"));
            let status = Command::new(env!("CARGO_BIN_EXE_swapless"))
                .args([
                    "generate",
                    generator,
                    "--scale",
                    "12",
                    "--degree",
                    "8",
                    "--weighted",
                    "--seed",
                    seed,
                    "-o",
                    arg(&path),
                ])
                .env("RAYON_NUM_THREADS", threads)
                .output()
                .unwrap();
            assert!(status.status.success());
            files.push(std::fs::read(&path).unwrap());
        }
        assert!(
            files[0] == files[1],
            "{generator}: thread count changed the graph"
        );
        assert!(
            files[1] != files[2],
            "{generator}: the seed did not change the graph"
        );
    }
}

#[test]
fn kron_and_urand_have_gap_sizes() {
    let dir = tempfile::tempdir().unwrap();
    for generator in ["kron", "urand"] {
        let path = dir.path().join(format!("{generator}.sl"));
        let report = dir.path().join(format!("{generator}.json"));
        swapless_ok(&[
            "generate",
            generator,
            "--scale",
            "14",
            "--degree",
            "16",
            "-o",
            arg(&path),
            "--json",
            arg(&report),
        ]);
        let report = json_report(&report);
        assert_eq!(report["vertices"], 1 << 14);
        assert_eq!(report["input_edges"], 16 << 14);
        let graph = GraphFile::open(&path).unwrap();
        assert!(!graph.flags().directed);
        // undirected: every arc has its reverse
        let arcs = read_arcs(&path);
        let reversed = {
            let mut r: Vec<_> = arcs.iter().map(|&(s, d, w)| (d, s, w)).collect();
            r.sort_by_key(|arc| (arc.0, arc.1));
            r
        };
        assert_eq!(arcs, reversed);
        let kept = graph.num_edges() as f64 / (16 << 14) as f64;
        let max_degree = (0..graph.num_vertices())
            .map(|v| graph.out_neighbors_of(v).len())
            .max()
            .unwrap();
        if generator == "kron" {
            // Skewed: hubs, many duplicates merged, and ids spread by the permutation (hub not at 0).
            assert!(
                max_degree > 1000 && kept < 0.97,
                "max {max_degree} kept {kept}"
            );
            assert!(graph.out_neighbors_of(0).len() < max_degree);
        } else {
            assert!(
                max_degree < 80 && kept > 0.99,
                "max {max_degree} kept {kept}"
            );
        }
    }
}

#[test]
fn weighted_generators_use_integer_weights_1_to_255_symmetrically() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.sl");
    swapless_ok(&[
        "generate",
        "kron",
        "--scale",
        "10",
        "--weighted",
        "-o",
        arg(&path),
    ]);
    let arcs = read_arcs(&path);
    assert!(
        arcs.iter()
            .all(|&(_, _, w)| (1.0..=255.0).contains(&w) && w.fract() == 0.0)
    );
    let lookup: std::collections::HashMap<(u32, u32), f32> =
        arcs.iter().map(|&(s, d, w)| ((s, d), w)).collect();
    assert!(arcs.iter().all(|&(s, d, w)| lookup[&(d, s)] == w));
}

#[test]
fn grid_is_a_mesh_with_shortcuts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.sl");
    swapless_ok(&[
        "generate",
        "grid",
        "--rows",
        "30",
        "--cols",
        "40",
        "--shortcuts",
        "3",
        "-o",
        arg(&path),
    ]);
    let graph = GraphFile::open(&path).unwrap();
    assert_eq!(graph.num_vertices(), 1200);
    let mesh_edges = 30 * 39 + 29 * 40;
    let edges = graph.num_edges() as usize;
    assert!((mesh_edges..=mesh_edges + 3).contains(&edges), "{edges}");
    // an interior vertex has its four mesh neighbors
    let v = 5 * 40 + 7;
    for neighbor in [v - 1, v + 1, v - 40, v + 40] {
        assert!(graph.out_neighbors_of(v).contains(&(neighbor as u32)));
    }
    let default = dir.path().join("d.sl");
    swapless_ok(&[
        "generate",
        "grid",
        "--rows",
        "3",
        "--cols",
        "3",
        "-o",
        arg(&default),
    ]);
    assert!(GraphFile::open(&default).unwrap().num_edges() >= 12);
}
