//! Whether two runs gave the same answer, kernel by kernel.

use std::path::{Path, PathBuf};

use swapless_engine::kernels::bfs;
use swapless_format::GraphFile;

/// The elements of a `.npy` file as raw bytes after its header.
pub fn npy_payload(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    bytes[10 + header_len..].to_vec()
}

/// Little-endian f64s.
pub fn as_f64(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Asserts that a disk tier's (report, result bytes) give the dram run's answer; the
/// dram run was verified.
pub fn assert_same_answer(
    kernel: &str,
    tier: &str,
    disk: (&serde_json::Value, &[u8]),
    dram: (&serde_json::Value, &[u8]),
) {
    let graph = PathBuf::from(disk.0["graph"].as_str().unwrap());
    assert_same_answer_on(&graph, kernel, tier, disk, dram);
}

/// [`assert_same_answer`] for a run whose report names no local file (a far graph):
/// bfs's parents are checked against `graph`, the same graph's file.
pub fn assert_same_answer_on(
    graph: &Path,
    kernel: &str,
    tier: &str,
    (disk, disk_result): (&serde_json::Value, &[u8]),
    (dram, dram_result): (&serde_json::Value, &[u8]),
) {
    if kernel == "bfs" {
        // Parents may differ between valid trees: the disk run's are checked by the
        // serial verifier here, and both reach the same.
        verify_bfs_parents_on(graph, disk, disk_result);
        assert_eq!(disk["result"]["reached"], dram["result"]["reached"]);
        assert_eq!(disk["result"]["levels"], dram["result"]["levels"]);
    } else if kernel == "sssp" {
        // Bin passes depend on the order relaxations race in; the distances do not.
        assert_eq!(disk["result"]["reached"], dram["result"]["reached"]);
        assert_eq!(disk_result, dram_result, "{kernel} on {tier}");
    } else if kernel == "pr" || kernel.ends_with("bc") || kernel == "wclustering" {
        assert_eq!(disk["result"]["iterations"], dram["result"]["iterations"]);
        for (a, b) in as_f64(disk_result).iter().zip(as_f64(dram_result)) {
            assert!(
                (a - b).abs() <= 1e-9 * b.abs().max(1e-9),
                "{kernel} {tier}: {a} vs {b}"
            );
        }
    } else {
        assert_eq!(disk["result"], dram["result"], "{kernel} on {tier}");
        assert_eq!(disk_result, dram_result, "{kernel} on {tier}");
    }
}

/// Checks a bfs run's parents (the `--out` array: original ids, -1 where unreached)
/// with the kernel's serial verifier, as `--verify` would have.
pub fn verify_bfs_parents(report: &serde_json::Value, result: &[u8]) {
    verify_bfs_parents_on(Path::new(report["graph"].as_str().unwrap()), report, result);
}

/// [`verify_bfs_parents`] against the file `graph`.
pub fn verify_bfs_parents_on(graph: &Path, report: &serde_json::Value, result: &[u8]) {
    let graph = GraphFile::open(graph).unwrap();
    let vertices = graph.num_vertices();
    // Original id -> internal id.
    let mut internal: Vec<u32> = (0..vertices as u32).collect();
    if let Some(new_to_original) = graph.permutation() {
        for (new, &original) in new_to_original.iter().enumerate() {
            internal[original as usize] = new as u32;
        }
    }
    let mut parents = vec![u32::MAX; vertices];
    for (original, bytes) in result.chunks_exact(8).enumerate() {
        let parent = i64::from_le_bytes(bytes.try_into().unwrap());
        if parent >= 0 {
            parents[internal[original] as usize] = internal[parent as usize];
        }
    }
    let source = internal[report["source"].as_u64().unwrap() as usize];
    bfs::verify(&graph, source, &parents).unwrap_or_else(|error| {
        panic!("bfs on {}: {error}", report["tier"]);
    });
}
