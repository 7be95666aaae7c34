//! What each fuzz target does with one input: the parsers' and the `.sl` reader's
//! whole paths, as a user reaches them, with the invariants that must hold whatever
//! the bytes are. A target returns normally for any input (an error is a fine answer);
//! a panic, an abort or a hang is a finding.
//!
//! `fuzz/` (cargo-fuzz, nightly) calls these; `tests/replay.rs` runs every seed and
//! every input that ever crashed a target through them on the stable toolchain.

mod build_journal;
mod checkpoint_file;
mod far;
mod tables;

pub use build_journal::build_journal;
pub use checkpoint_file::checkpoint_file;
pub use far::{far_manifest, redis_reply};
pub use tables::{csv_table, parquet_table};

use std::path::{Path, PathBuf};

use swapless_build::ids::IdMode;
use swapless_build::importers::{ImportOptions, open_input_within};
use swapless_build::{BuildOptions, build_graph};
use swapless_format::{GraphFile, Header, ListForm, SectionKind, check_file};
use swapless_run::{Kernel, Placement, RunOptions};
use swapless_store::Tier;

/// What a target does with one input.
pub type Target = fn(&[u8]);

/// The fuzz targets, by the name of their folder of seeds and crashes.
pub const TARGETS: [(&str, Target); 12] = [
    ("text_edge_list", text_edge_list),
    ("matrix_market", matrix_market),
    ("gap", gap),
    ("sl_file", sl_file),
    ("sl_forged", sl_forged),
    ("sl_forged_compressed", sl_forged_compressed),
    ("csv_table", csv_table),
    ("parquet_table", parquet_table),
    ("redis_reply", redis_reply),
    ("far_manifest", far_manifest),
    ("checkpoint_file", checkpoint_file),
    ("build_journal", build_journal),
];

/// Memory a target's build may use: small, so that sizes taken from headers meet it.
pub(crate) const BUDGET_BYTES: u64 = 64 << 20;

/// A folder for this process's inputs and outputs, in memory where the system has it.
pub(crate) fn scratch() -> PathBuf {
    let base = match Path::new("/dev/shm").is_dir() {
        true => PathBuf::from("/dev/shm"),
        false => std::env::temp_dir(),
    };
    let folder = base.join(format!("swapless-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a scratch folder");
    folder
}

/// Writes `data` as `name` in the scratch folder.
pub(crate) fn input_file(name: &str, data: &[u8]) -> PathBuf {
    let path = scratch().join(name);
    std::fs::write(&path, data).expect("the scratch input is written");
    path
}

/// Builds `input` within the budget, each way a user may ask; a build that succeeds
/// must write a file that passes `check` and that every kernel reads without panic.
fn build_and_check(input: &Path) {
    for (undirected, weighted, ids) in
        [(false, false, IdMode::Dense), (true, true, IdMode::Compact)]
    {
        let options = ImportOptions {
            undirected,
            weighted,
            ids,
        };
        let Ok(mut source) = open_input_within(input, options, Some(BUDGET_BYTES)) else {
            continue;
        };
        let output = scratch().join("out.sl");
        let mut build = BuildOptions::with_memory(BUDGET_BYTES);
        build.temp_dir = Some(scratch());
        if build_graph(source.as_mut(), &output, &build).is_ok() {
            if let Err(error) = check_file(&output) {
                panic!("a build's own output fails its check: {error}");
            }
            run_kernels(&output);
        }
    }
}

/// Runs a few kernels on `graph` in dram and on the mmap tier; errors are fine answers.
pub(crate) fn run_kernels(graph: &Path) {
    for tier in [Tier::Dram, Tier::Mmap] {
        for kernel in ["bfs", "cc", "pr", "sssp"]
            .into_iter()
            .filter_map(Kernel::from_name)
        {
            let mut options = RunOptions {
                placement: Placement::new(Some(BUDGET_BYTES), Some(tier)),
                threads: Some(1),
                ..RunOptions::default()
            };
            if kernel.name() == "pr" {
                options.parameters.push(swapless_run::Given {
                    flag: "max-iters".to_string(),
                    value: swapless_run::ParameterValue::Count(3),
                });
            }
            let _ = swapless_run::run(graph, kernel, &options, &swapless_run::Quiet);
        }
    }
}

/// Largest vertex id a target builds a graph for. Ids are vertex counts: an input that
/// names vertex 10^6 makes a graph of a million vertices, right but seconds long to
/// build and run eight times, which reads as a hang. Larger ids still reach every
/// parser check.
const MAX_BUILT_ID: u64 = 9_999;

/// Whether the text names a number beyond [`MAX_BUILT_ID`] (a run of more than four
/// digits), so that its graph is too large to build at fuzzing speed.
pub(crate) fn names_large_ids(data: &[u8]) -> bool {
    data.split(|byte| !byte.is_ascii_digit())
        .any(|digits| digits.len() > 4)
}

/// A text edge list, parsed; built when its ids are small.
pub fn text_edge_list(data: &[u8]) {
    let path = input_file("input.el", data);
    match names_large_ids(data) {
        true => parse_only(&path),
        false => build_and_check(&path),
    }
}

/// A Matrix Market file, parsed; built when its sizes are small.
pub fn matrix_market(data: &[u8]) {
    let path = input_file("input.mtx", data);
    match names_large_ids(data) {
        true => parse_only(&path),
        false => build_and_check(&path),
    }
}

/// A GAP serialized graph, built when its header's vertex count is small.
pub fn gap(data: &[u8]) {
    let vertices = data.get(9..17).map_or(0, |bytes| {
        i64::from_le_bytes(bytes.try_into().expect("8 bytes"))
    });
    let path = input_file("input.sg", data);
    match vertices as u64 > MAX_BUILT_ID {
        true => parse_only(&path),
        false => build_and_check(&path),
    }
}

/// Reads every edge of `input` without building.
pub(crate) fn parse_only(input: &Path) {
    let options = ImportOptions::default();
    if let Ok(mut source) = open_input_within(input, options, Some(BUDGET_BYTES)) {
        let mut batch = Vec::new();
        while let Ok(true) = source.next_batch(&mut batch) {}
    }
}

/// Raw bytes as a `.sl` file: opened, checked, read by kernels and rebuilt.
pub fn sl_file(data: &[u8]) {
    let path = input_file("input.sl", data);
    if GraphFile::open(&path).is_ok() {
        let _ = check_file(&path);
        run_kernels(&path);
    }
    build_and_check(&path);
}

/// A valid graph with bytes past its header changed and every checksum then made
/// right again, as a forger would: what checksums cannot catch. Input: pairs of a
/// little-endian u32 position and a byte. Such a file must be refused by `check`, or,
/// when it passes, be read by every kernel without panic.
pub fn sl_forged(data: &[u8]) {
    forged(data, seed_graph());
}

/// [`sl_forged`] on the seed graph with compressed lists: edits to chunk headers, bit
/// widths, packed blocks and tails, positions and the offsets they must agree with.
pub fn sl_forged_compressed(data: &[u8]) {
    forged(data, compressed_seed_graph());
}

/// `graph` with the edits `data` names, resealed, then checked and read by kernels.
fn forged(data: &[u8], graph: &[u8]) {
    let mut bytes = graph.to_vec();
    for edit in data.chunks_exact(5) {
        let position = u32::from_le_bytes([edit[0], edit[1], edit[2], edit[3]]) as usize;
        let position = 4096 + position % (bytes.len() - 4096);
        bytes[position] = edit[4];
    }
    reseal(&mut bytes);
    let path = input_file("forged.sl", &bytes);
    let _ = check_file(&path);
    run_kernels(&path);
}

/// A small directed, weighted, reordered graph, built once per process.
pub(crate) fn seed_graph() -> &'static [u8] {
    static SEED: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    SEED.get_or_init(|| built_seed(ListForm::Plain))
}

/// [`seed_graph`] with compressed lists, built once per process.
fn compressed_seed_graph() -> &'static [u8] {
    static SEED: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    SEED.get_or_init(|| built_seed(ListForm::Compressed))
}

/// The seed graph's file with its lists in `lists`; compressed, vertex 0 also links to
/// 150 others, so that a list has a block of 128 besides a tail.
fn built_seed(lists: ListForm) -> Vec<u8> {
    let mut text = String::new();
    for v in 0u32..200 {
        for k in 1..=(v % 7) {
            text.push_str(&format!(
                "{v} {} {}
",
                (v * 31 + k * 17) % 200,
                k
            ));
        }
    }
    if lists == ListForm::Compressed {
        for other in 30u32..180 {
            text.push_str(&format!(
                "0 {other} {}
",
                other % 5 + 1
            ));
        }
    }
    // Each form its own files: the two seeds may be built at once by two tests.
    let name = format!("seed-{}", lists.name());
    let input = input_file(&format!("{name}.el"), text.as_bytes());
    let options = ImportOptions {
        undirected: false,
        weighted: true,
        ids: IdMode::Dense,
    };
    let mut source = open_input_within(&input, options, None).expect("the seed parses");
    let output = scratch().join(format!("{name}.sl"));
    let mut build = BuildOptions::with_memory(BUDGET_BYTES);
    build.reorder = swapless_build::Reorder::DegreeBasedGrouping;
    build.out_heads = swapless_build::OutHeads::Always;
    build.lists = lists;
    build_graph(source.as_mut(), &output, &build).expect("the seed builds");
    std::fs::read(&output).expect("the seed is read")
}

/// Recomputes every block checksum of the `.sl` file in `bytes` (its header intact).
pub fn reseal(bytes: &mut [u8]) {
    let header = Header::decode(&bytes[..4096], Path::new("forged.sl")).expect("an intact header");
    let block = header.checksum_block_bytes;
    let checksums = header
        .section(SectionKind::Checksums)
        .expect("a checksum section")
        .clone();
    let mut sections: Vec<_> = header
        .sections
        .iter()
        .filter(|entry| entry.name != checksums.name)
        .cloned()
        .collect();
    sections.sort_by_key(|entry| entry.offset);
    let mut at = checksums.offset as usize;
    for entry in &sections {
        let section = entry.offset as usize..(entry.offset + entry.length) as usize;
        let sums: Vec<u64> = bytes[section]
            .chunks(block as usize)
            .map(xxhash_rust::xxh3::xxh3_64)
            .collect();
        for sum in sums {
            bytes[at..at + 8].copy_from_slice(&sum.to_le_bytes());
            at += 8;
        }
    }
}
