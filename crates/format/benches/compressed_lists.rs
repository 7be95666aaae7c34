//! Decode speed of compressed lists, as the tiers decode them
//! (`compressed_lists::decode_list_at`, one list after another into a reused buffer of a
//! block's entries, as the store's decoder fills one), on the
//! out-lists of every compressed `.sl` file named on the command line:
//! `cargo bench -p swapless-format --bench compressed_lists -- FILE.sl...`.
//! Speeds are ids a second of the thread's own CPU time on one core (other work on a
//! shared machine does not count), the median of 5 rounds, over every list in vertex
//! order and over the lists of 1,024 ids or more (the codec's own speed).

use std::hint::black_box;
use std::path::Path;

use swapless_format::GraphFile;
use swapless_format::compressed_lists::decode_list_at;

mod common;

use common::ids_per_second;

fn main() {
    let files: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    println!("| graph | bytes an arc | all lists (M ids/s) | lists of 1024+ (M ids/s) |");
    println!("| --- | --- | --- | --- |");
    for file in files {
        let graph = GraphFile::open(Path::new(&file)).expect("a readable .sl file");
        if !graph.lists_compressed() {
            eprintln!("{file}: lists are plain; skipped");
            continue;
        }
        let offsets = graph.out_offsets().to_vec();
        let positions = graph.out_positions().expect("positions").to_vec();
        let stream = graph
            .section_bytes(swapless_format::SectionKind::OutNeighbors)
            .expect("lists")
            .to_vec();
        let n = graph.num_vertices();
        let coding = graph.gap_coding();
        // The store hands a block over once it holds this many entries.
        const BLOCK_ENTRIES: usize = 16 << 10;
        let mut ids = Vec::new();
        let mut filled = 0;
        let mut decode = |min_degree: u64| -> u64 {
            let mut total = 0;
            for v in 0..n {
                let degree = offsets[v + 1] - offsets[v];
                if degree == 0 || degree < min_degree {
                    continue;
                }
                if filled >= BLOCK_ENTRIES {
                    filled = 0;
                }
                let written = decode_list_at(
                    coding,
                    &stream,
                    positions[v] as usize,
                    v as u32,
                    degree,
                    degree,
                    &mut ids,
                    filled,
                    None,
                )
                .expect("a list that decodes");
                black_box(&ids[filled..filled + written]);
                filled += written;
                total += degree;
            }
            total
        };
        let all = ids_per_second(|| decode(0));
        let has_long = (0..n).any(|v| offsets[v + 1] - offsets[v] >= 1024);
        let long = match has_long {
            true => format!("{:.0}", ids_per_second(|| decode(1024)) / 1e6),
            false => "-".to_string(),
        };
        let name = Path::new(&file)
            .file_name()
            .map_or(file.clone(), |name| name.to_string_lossy().into_owned());
        println!(
            "| {name} | {:.3} | {:.0} | {long} |",
            stream.len() as f64 / graph.num_arcs() as f64,
            all / 1e6,
        );
    }
}
