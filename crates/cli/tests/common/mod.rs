//! Helpers shared by the CLI's integration tests: run the binary, read a graph back,
//! and compute the expected graph independently of the builder.
#![allow(dead_code)]

pub mod answers;
pub mod hostile;
pub mod redis;

#[allow(unused_imports)]
pub use answers::*;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use swapless_format::{GraphFile, Header, SectionKind, VERSION_1_CHECKSUM_BLOCK_BYTES};

/// Runs `swapless` with `args`.
pub fn swapless(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_swapless"))
        .args(args)
        .output()
        .expect("the swapless binary runs")
}

/// Runs `swapless` with the test hook `SWAPLESS_TEST_KILL` set to `kill` (unset if
/// empty), which kills it with SIGKILL at that point (`after-checkpoint:N`, ...).
pub fn swapless_killed_at(args: &[&str], kill: &str) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_swapless"));
    command.args(args);
    match kill {
        "" => command.env_remove("SWAPLESS_TEST_KILL"),
        kill => command.env("SWAPLESS_TEST_KILL", kill),
    };
    command.output().expect("the swapless binary runs")
}

/// Insists that `output` is of a run that succeeded; its standard error.
pub fn succeeded(output: Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    stderr
}

/// Whether `output` is of a process killed by SIGKILL.
pub fn was_killed(output: &Output) -> bool {
    use std::os::unix::process::ExitStatusExt;
    output.status.signal() == Some(libc::SIGKILL)
}

/// Runs `swapless` and insists that it succeeds.
pub fn swapless_ok(args: &[&str]) -> String {
    let output = swapless(args);
    assert!(
        output.status.success(),
        "swapless {args:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs `swapless`, insists that it fails, and returns its stderr.
pub fn swapless_fails(args: &[&str]) -> String {
    failed_in_one_line(args, swapless(args))
}

/// Insists that `output`, of `swapless args`, is a failure told in one sentence on
/// stderr ("error: ...", no panic), and returns that stderr.
pub fn failed_in_one_line(args: &[&str], output: Output) -> String {
    assert!(
        !output.status.success(),
        "swapless {args:?} should have failed"
    );
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        !stderr.contains("panicked"),
        "swapless {args:?} panicked:\n{stderr}"
    );
    assert!(stderr.starts_with("error: "), "unexpected stderr: {stderr}");
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "expected one line: {stderr}"
    );
    stderr
}

/// A path string for arguments.
pub fn arg(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

/// Generates a kron graph of `scale` and `degree` at `path`, with `extra` arguments.
pub fn generate_kron(path: &Path, scale: u32, degree: u32, extra: &[&str]) {
    let (scale, degree) = (scale.to_string(), degree.to_string());
    let base = [
        "generate",
        "kron",
        "--scale",
        &scale,
        "--degree",
        &degree,
        "-o",
        arg(path),
    ];
    swapless_ok(&[&base[..], extra].concat());
}

/// `generate kron` arguments that spill several runs at the least budget.
pub fn spilling_kron_args<'a>(output: &'a Path, json: &'a Path) -> Vec<&'a str> {
    vec![
        "generate",
        "kron",
        "--scale",
        "16",
        "--degree",
        "32",
        "--weighted",
        "--memory",
        "57M",
        "-o",
        arg(output),
        "--json",
        arg(json),
    ]
}

/// Writes `text` to `path`, compressed by its extension.
pub fn write_input(path: &Path, bytes: &[u8]) {
    let name = path.to_string_lossy().to_string();
    if name.ends_with(".gz") {
        let file = std::fs::File::create(path).unwrap();
        let mut encoder = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap();
    } else if name.ends_with(".zst") {
        std::fs::write(path, zstd::encode_all(bytes, 3).unwrap()).unwrap();
    } else {
        std::fs::write(path, bytes).unwrap();
    }
}

/// Every stored arc of a graph as (source, destination, weight), in original ids (its
/// lists read plain or compressed).
pub fn read_arcs(path: &Path) -> Vec<(u32, u32, f32)> {
    let graph = GraphFile::open(path).unwrap();
    let permutation = graph.permutation().map(|p| p.to_vec());
    let original = |v: u32| permutation.as_ref().map_or(v, |p| p[v as usize]);
    let mut arcs = Vec::with_capacity(graph.num_arcs());
    for vertex in 0..graph.num_vertices() {
        let list = graph.out_list(vertex).unwrap();
        for (index, &neighbor) in list.ids.iter().enumerate() {
            let weight = list.weights.as_ref().map_or(1.0, |w| w[index]);
            arcs.push((original(vertex as u32), original(neighbor), weight));
        }
    }
    arcs.sort_by_key(|arc| (arc.0, arc.1));
    arcs
}

/// The in-arcs of a directed graph, flipped to (source, destination, weight).
pub fn read_in_arcs_flipped(path: &Path) -> Vec<(u32, u32, f32)> {
    let graph = GraphFile::open(path).unwrap();
    let mut arcs = Vec::new();
    for vertex in 0..graph.num_vertices() {
        let list = graph.in_list(vertex).unwrap();
        for (index, &neighbor) in list.ids.iter().enumerate() {
            let weight = list.weights.as_ref().map_or(1.0, |w| w[index]);
            arcs.push((neighbor, vertex as u32, weight));
        }
    }
    arcs.sort_by_key(|arc| (arc.0, arc.1));
    arcs
}

/// What the builder must produce from `edges`, computed the plain way: self-loops
/// dropped, both directions for undirected graphs, parallel arcs merged keeping the
/// smallest weight.
pub fn expected_arcs(edges: &[(u32, u32, f32)], undirected: bool) -> Vec<(u32, u32, f32)> {
    expected_arcs_of(edges, undirected, false)
}

/// [`expected_arcs`] of a build that keeps self-loops: each once.
pub fn expected_arcs_keeping_loops(
    edges: &[(u32, u32, f32)],
    undirected: bool,
) -> Vec<(u32, u32, f32)> {
    expected_arcs_of(edges, undirected, true)
}

fn expected_arcs_of(
    edges: &[(u32, u32, f32)],
    undirected: bool,
    keep_loops: bool,
) -> Vec<(u32, u32, f32)> {
    let mut best: BTreeMap<(u32, u32), f32> = BTreeMap::new();
    let mut add = |s: u32, d: u32, w: f32| {
        let entry = best.entry((s, d)).or_insert(w);
        if w < *entry {
            *entry = w;
        }
    };
    for &(s, d, w) in edges {
        if s == d && !keep_loops {
            continue;
        }
        add(s, d, w);
        if undirected {
            add(d, s, w);
        }
    }
    best.into_iter().map(|((s, d), w)| (s, d, w)).collect()
}

/// A reproducible pseudo-random edge list with duplicates and self-loops.
pub fn random_edges(count: usize, vertices: u32, seed: u64) -> Vec<(u32, u32, f32)> {
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|_| {
            let s = (next() % vertices as u64) as u32;
            let d = (next() % vertices as u64) as u32;
            let w = (next() % 1000) as f32 / 4.0;
            (s, d, w)
        })
        .collect()
}

/// The repository's folder of real graphs (`data/`); a checkout without them fails the
/// tests that use them rather than skipping them.
pub fn real_graphs() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
    for name in ["email-Enron", "pgp-strong-2009", "power"] {
        let file = dir.join(format!("{name}.el.gz"));
        assert!(
            file.exists(),
            "{} is missing from the checkout",
            file.display()
        );
    }
    dir
}

/// Parses a `--json` build report.
pub fn json_report(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Rewrites the `.sl` file at `path` as format version 1, which checksummed 1 MiB blocks
/// instead of pages: what swapless wrote before, for tests that such files still work.
pub fn rewrite_as_version_1(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let mut header = Header::decode(&bytes[..4096], path).unwrap();
    let checksums = SectionKind::Checksums.name();
    let mut sections: Vec<_> = header
        .sections
        .iter()
        .filter(|entry| entry.name != checksums)
        .cloned()
        .collect();
    sections.sort_by_key(|entry| entry.offset);
    let mut sums = Vec::new();
    for entry in &sections {
        let section = &bytes[entry.offset as usize..(entry.offset + entry.length) as usize];
        for block in section.chunks(VERSION_1_CHECKSUM_BLOCK_BYTES as usize) {
            sums.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(block).to_le_bytes());
        }
    }
    let entry = header
        .sections
        .iter_mut()
        .find(|entry| entry.name == checksums)
        .unwrap();
    let at = entry.offset as usize;
    entry.length = sums.len() as u64;
    bytes[at..at + sums.len()].copy_from_slice(&sums);
    header.version = 1;
    header.checksum_block_bytes = VERSION_1_CHECKSUM_BLOCK_BYTES;
    bytes[..4096].copy_from_slice(&header.encode());
    std::fs::write(path, bytes).unwrap();
}

/// Where section `kind` of the `.sl` file at `path` starts, and its length.
pub fn section_position(path: &Path, kind: SectionKind) -> (u64, u64) {
    let graph = GraphFile::open(path).unwrap();
    let entry = graph.header().section(kind).unwrap();
    (entry.offset, entry.length)
}

/// Stores the right checksums after a test changed byte `position` (the block that holds
/// it, and every other), as a crafted file would have them: the change then passes every
/// checksum.
pub fn reseal_block(path: &Path, position: u64) {
    let mut bytes = std::fs::read(path).unwrap();
    assert!(
        position < bytes.len() as u64,
        "byte {position} is past the end"
    );
    swapless_fuzz_targets::reseal(&mut bytes);
    std::fs::write(path, bytes).unwrap();
}

/// Every kernel's short name, from the registry: a kernel added there is tested too.
pub fn all_kernels() -> Vec<&'static str> {
    swapless_run::Kernel::all()
        .map(|kernel| kernel.name())
        .collect()
}

/// Whether `kernel` searches from every vertex, so that its time grows with vertices
/// times edges: tests that run every kernel on graphs of tens of thousands of vertices
/// run it on a small graph instead.
pub fn from_every_vertex(kernel: &str) -> bool {
    swapless_run::Kernel::from_name(kernel)
        .is_some_and(|kernel| kernel.info().every_vertex_a_source)
}

/// Whether `kernel` runs on `graph`: a kernel defined on undirected graphs only (label
/// propagation) refuses a directed one.
pub fn runs_on(kernel: &str, graph: &Path) -> bool {
    let directed = GraphFile::open(graph).unwrap().flags().directed;
    !directed || !swapless_run::Kernel::from_name(kernel).is_some_and(|k| k.info().undirected_only)
}

/// Every kernel that runs on `graph`.
pub fn kernels_on(graph: &Path) -> Vec<&'static str> {
    all_kernels()
        .into_iter()
        .filter(|kernel| runs_on(kernel, graph))
        .collect()
}

/// Every kernel that runs on `graph` but those that search from every vertex
/// ([`from_every_vertex`]).
pub fn kernels_of_linear_cost(graph: &Path) -> Vec<&'static str> {
    kernels_on(graph)
        .into_iter()
        .filter(|kernel| !from_every_vertex(kernel))
        .collect()
}

/// Every kernel to run on `graph`: those that search from every vertex only where it has
/// at most 1,100 vertices (a test's graphs of thousands take them minutes in a debug
/// build; each has a test on a small graph of its own).
pub fn kernels_for(graph: &Path) -> Vec<&'static str> {
    let vertices = swapless_format::GraphFile::open(graph)
        .unwrap()
        .num_vertices();
    match vertices <= 1_100 {
        true => kernels_on(graph),
        false => kernels_of_linear_cost(graph),
    }
}

/// Whether `kernel` answers with a number in the report rather than an output array.
pub fn returns_a_number(kernel: &str) -> bool {
    swapless_run::Kernel::from_name(kernel).is_some_and(|kernel| kernel.returns_a_number())
}
