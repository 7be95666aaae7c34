//! Helpers of the hostile-input catalogue (`catalogue.rs`) and of the situations that
//! need more than one command (`situations.rs`): inputs, damaged and forged graphs made
//! once, and the folder's state before and after.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use swapless_format::SectionKind;

use super::*;

pub fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|arg| arg.to_string()).collect()
}

/// Writes `bytes` to `name` in `dir` (compressed by its extension); returns `name`.
pub fn file(dir: &Path, name: &str, bytes: &[u8]) -> String {
    write_input(&dir.join(name), bytes);
    name.to_string()
}

/// An output that already exists: the runner checks it is untouched by a failure.
pub fn precious(dir: &Path, name: &str) -> String {
    std::fs::write(dir.join(name), b"precious").unwrap();
    name.to_string()
}

/// The catalogue's graphs, made once: an undirected kron graph reordered by degree
/// (with out_heads), and a directed weighted one with in-lists.
pub fn made_graphs() -> &'static (PathBuf, PathBuf) {
    static GRAPHS: OnceLock<(tempfile::TempDir, PathBuf, PathBuf)> = OnceLock::new();
    let (_, kron, weighted) = GRAPHS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let kron = dir.path().join("kron.sl");
        generate_kron(&kron, 10, 8, &["--reorder", "dbg", "--out-heads", "always"]);
        let edges: String = (0..3000u32)
            .map(|i| format!("{} {} {}\n", i % 700, (i * 7 + 3) % 700, 1 + i % 5))
            .collect();
        let input = dir.path().join("w.el");
        std::fs::write(&input, edges).unwrap();
        let weighted = dir.path().join("weighted.sl");
        swapless_ok(&["build", arg(&input), "-o", arg(&weighted), "--weighted"]);
        (dir, kron, weighted)
    });
    // Leaked on purpose: the folder lives as long as the test process.
    static PATHS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    PATHS.get_or_init(|| (kron.clone(), weighted.clone()))
}

/// A copy of the undirected graph as `name`.
pub fn graph(dir: &Path, name: &str) -> String {
    std::fs::copy(&made_graphs().0, dir.join(name)).unwrap();
    name.to_string()
}

/// A copy of the directed weighted graph as `name`.
pub fn weighted_graph(dir: &Path, name: &str) -> String {
    std::fs::copy(&made_graphs().1, dir.join(name)).unwrap();
    name.to_string()
}

/// A copy of the undirected graph with `edit` applied to byte `at` of section `kind`.
pub fn damaged(dir: &Path, kind: SectionKind, at: u64, edit: fn(u8) -> u8, reseal: bool) -> String {
    let name = format!("{}.sl", kind.name());
    let path = dir.join(&name);
    let source = match kind {
        SectionKind::InOffsets | SectionKind::InNeighbors | SectionKind::InWeights => {
            &made_graphs().1
        }
        _ => &made_graphs().0,
    };
    std::fs::copy(source, &path).unwrap();
    let (offset, _) = section_position(&path, kind);
    let mut bytes = std::fs::read(&path).unwrap();
    let position = (offset + at) as usize;
    bytes[position] = edit(bytes[position]);
    std::fs::write(&path, bytes).unwrap();
    if reseal {
        reseal_block(&path, offset + at);
    }
    name
}

/// A copy of the directed weighted graph as `name`, its lists compressed.
pub fn compressed_graph(dir: &Path, name: &str) -> String {
    let plain = swapless_format::GraphFile::open(&made_graphs().1).unwrap();
    let form = swapless_format::ListForm::Compressed;
    swapless_format::transcode(&plain, &dir.join(name), form, &mut |_| true).unwrap();
    name.to_string()
}

/// The undirected graph with compressed lists, its last vertex claiming 2^36 arcs more
/// than its chunks hold, and the header and checksums made to agree (as a forger would):
/// a small file whose footprint no machine holds.
pub fn inflated_compressed(dir: &Path) -> String {
    let name = "inflated.sl";
    let path = dir.join(name);
    let plain = swapless_format::GraphFile::open(&made_graphs().0).unwrap();
    let form = swapless_format::ListForm::Compressed;
    swapless_format::transcode(&plain, &path, form, &mut |_| true).unwrap();
    let (offset, length) = section_position(&path, SectionKind::OutOffsets);
    let mut bytes = std::fs::read(&path).unwrap();
    let extra = 1u64 << 36;
    let mut header = swapless_format::Header::decode(&bytes[..4096], &path).unwrap();
    header.num_arcs += extra;
    bytes[..4096].copy_from_slice(&header.encode());
    let last = (offset + length - 8) as usize;
    let end = u64::from_le_bytes(bytes[last..last + 8].try_into().unwrap()) + extra;
    bytes[last..last + 8].copy_from_slice(&end.to_le_bytes());
    swapless_fuzz_targets::reseal(&mut bytes);
    std::fs::write(&path, bytes).unwrap();
    name.to_string()
}

/// [`compressed_graph`] with byte `at` of its out-lists flipped in its lowest bit (and
/// the checksums made to match when `reseal`, as a forger would).
pub fn damaged_compressed(dir: &Path, at: u64, reseal: bool) -> String {
    let name = compressed_graph(dir, "damaged.sl");
    let path = dir.join(&name);
    let (offset, _) = section_position(&path, SectionKind::OutNeighbors);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[(offset + at) as usize] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    if reseal {
        reseal_block(&path, offset + at);
    }
    name
}

/// The bytes of a GAP `.sg` file (undirected).
pub fn gap_bytes(vertices: i64, offsets: &[i64], neighbors: &[i32]) -> Vec<u8> {
    let mut bytes = vec![0u8];
    bytes.extend_from_slice(&(neighbors.len() as i64).to_le_bytes());
    bytes.extend_from_slice(&vertices.to_le_bytes());
    offsets
        .iter()
        .for_each(|o| bytes.extend_from_slice(&o.to_le_bytes()));
    neighbors
        .iter()
        .for_each(|n| bytes.extend_from_slice(&n.to_le_bytes()));
    bytes
}

/// Sets permutation entry `index` of a copy of the reordered graph to `value`, with
/// its checksum made right: a forged file.
pub fn forged_permutation(dir: &Path, index: u64, value: u32) -> String {
    let path = dir.join("forged.sl");
    std::fs::copy(&made_graphs().0, &path).unwrap();
    let (offset, _) = section_position(&path, SectionKind::Permutation);
    let mut bytes = std::fs::read(&path).unwrap();
    let at = (offset + index * 4) as usize;
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
    std::fs::write(&path, bytes).unwrap();
    reseal_block(&path, offset + index * 4);
    "forged.sl".to_string()
}

/// An undirected graph whose first list names 4 instead of 5, with its checksum made
/// right: sorted, in range, and not symmetric (4's list is empty).
pub fn asymmetric(dir: &Path) -> String {
    let input = file(dir, "pairs.el", b"0 5\n1 6\n");
    let path = dir.join("asymmetric.sl");
    swapless_ok(&[
        "build",
        arg(&dir.join(input)),
        "-o",
        arg(&path),
        "--undirected",
    ]);
    std::fs::remove_file(dir.join("pairs.el")).unwrap();
    let (offset, _) = section_position(&path, SectionKind::OutNeighbors);
    let mut bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes[offset as usize], 5);
    bytes[offset as usize] = 4;
    std::fs::write(&path, bytes).unwrap();
    reseal_block(&path, offset);
    "asymmetric.sl".to_string()
}

/// A copy of the directed weighted graph with one out-weight byte flipped.
pub fn damaged_weighted_out(dir: &Path) -> String {
    let path = dir.join("out_weights.sl");
    std::fs::copy(&made_graphs().1, &path).unwrap();
    let (offset, _) = section_position(&path, SectionKind::OutWeights);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[offset as usize + 2] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    "out_weights.sl".to_string()
}

pub fn make_fifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

/// Every regular file in `dir` with its bytes, and every name.
pub fn snapshot(dir: &Path) -> Vec<(String, Option<Vec<u8>>)> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            let kind = entry.file_type().unwrap();
            let bytes = (kind.is_file() && !kind.is_symlink())
                .then(|| std::fs::read(entry.path()).unwrap());
            (name, bytes)
        })
        .collect();
    entries.sort();
    entries
}

/// A command started in `dir` with its output captured.
pub fn start(dir: &Path, arguments: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_swapless"))
        .args(arguments)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

pub fn signal(child: &std::process::Child, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits until `ready` holds (a build has begun writing, say), at most 20 s.
pub fn wait_for(ready: impl Fn() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(started.elapsed() < Duration::from_secs(20), "never ready");
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn hidden_entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.'))
        .collect()
}
