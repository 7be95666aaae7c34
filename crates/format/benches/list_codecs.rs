//! Bytes an arc and decode speed of each candidate list codec (issue 42) on the out-lists
//! of every `.sl` file named on the command line:
//! `cargo bench -p swapless-format --bench list_codecs -- FILE.sl...`.
//! Bytes an arc count the pages whole (padding and restarts included), not the offsets,
//! with short lists kept whole (the speeds' layout) and with pages filled (size only);
//! speeds are ids a second of the thread's own CPU time on one core (so that other work on
//! a shared machine does not count), the median of 5 rounds: a scan of every list in
//! vertex order, a scan of the lists of 1,024 ids or more (the codec's own speed, little
//! per-list cost in it), and a gather's pattern, single pages at random each decoded alone.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use swapless_format::GraphFile;
use swapless_format::list_codec::{
    EncodedLists, ListCodec, PAGE_BYTES, PagePolicy, candidates, decode_list, decode_page,
    encode_lists,
};

mod common;

use common::ids_per_second;
const RANDOM_PAGES: usize = 20_000;

/// Page numbers at random, the same for every codec of one file.
fn random_pages(pages: usize) -> Vec<usize> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    (0..RANDOM_PAGES)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize % pages.max(1)
        })
        .collect()
}

/// Lists at least this long show a codec's own speed, with little per-list cost in it.
const LONG_LIST: u64 = 1024;

/// Decodes the lists of `vertices` in order; returns the ids decoded.
fn scan(codec: &dyn ListCodec, encoded: &EncodedLists, vertices: &[usize]) -> u64 {
    let mut list = Vec::new();
    let mut ids = 0u64;
    for &v in vertices {
        list.clear();
        decode_list(codec, encoded, v, &mut list).expect("the lists were just encoded");
        ids += black_box(&list).len() as u64;
    }
    ids
}

fn gather(codec: &dyn ListCodec, encoded: &EncodedLists, pages: &[usize]) -> u64 {
    let (mut ids, mut chunks) = (Vec::new(), Vec::new());
    let mut decoded = 0u64;
    for &page in pages {
        ids.clear();
        chunks.clear();
        let bytes = &encoded.bytes[page * PAGE_BYTES..(page + 1) * PAGE_BYTES];
        decode_page(codec, &encoded.offsets, page, bytes, &mut ids, &mut chunks)
            .expect("the lists were just encoded");
        decoded += black_box(&ids).len() as u64;
    }
    decoded
}

fn measure(path: &Path) {
    let graph = match GraphFile::open(path) {
        Ok(graph) => graph,
        Err(error) => {
            eprintln!("{error}");
            std::process::exit(1);
        }
    };
    let (offsets, neighbors) = (graph.out_offsets(), graph.out_neighbors());
    let arcs = neighbors.len().max(1) as f64;
    let lists = offsets.windows(2).filter(|pair| pair[0] < pair[1]).count();
    println!(
        "\n{}: {} vertices, {} arcs, {} non-empty lists ({:.1} ids each)",
        path.display(),
        graph.num_vertices(),
        neighbors.len(),
        lists,
        neighbors.len() as f64 / lists.max(1) as f64
    );
    println!(
        "| codec | bytes an arc | padding | bytes an arc, pages filled | scan (M ids/s) | lists of {LONG_LIST}+ (M ids/s) | random pages (M ids/s) | encode (s) |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    let every_vertex: Vec<usize> = (0..offsets.len() - 1).collect();
    let long_lists: Vec<usize> = every_vertex
        .iter()
        .copied()
        .filter(|&v| offsets[v + 1] - offsets[v] >= LONG_LIST)
        .collect();

    // The baseline: today's 4-byte ids, a list "decoded" by copying it out.
    let plain_bytes = (neighbors.len() * 4).next_multiple_of(PAGE_BYTES);
    let plain_pages = random_pages(plain_bytes / PAGE_BYTES);
    let mut list = Vec::new();
    let mut plain_scan = |vertices: &[usize]| {
        ids_per_second(|| {
            let mut ids = 0u64;
            for &v in vertices {
                list.clear();
                list.extend_from_slice(&neighbors[offsets[v] as usize..offsets[v + 1] as usize]);
                ids += black_box(&list).len() as u64;
            }
            ids
        })
    };
    let plain_long = if long_lists.is_empty() {
        "-".to_string()
    } else {
        format!("{:.0}", plain_scan(&long_lists) / 1e6)
    };
    let plain_scan = plain_scan(&every_vertex);
    let plain_gather = ids_per_second(|| {
        let mut ids = 0u64;
        for &page in &plain_pages {
            let from = page * PAGE_BYTES / 4;
            list.clear();
            list.extend_from_slice(&neighbors[from..(from + PAGE_BYTES / 4).min(neighbors.len())]);
            ids += black_box(&list).len() as u64;
        }
        ids
    });
    println!(
        "| plain u32 | {:.3} | {:.1}% | {:.3} | {:.0} | {plain_long} | {:.0} | - |",
        plain_bytes as f64 / arcs,
        100.0 * (plain_bytes - neighbors.len() * 4) as f64 / plain_bytes as f64,
        plain_bytes as f64 / arcs,
        plain_scan / 1e6,
        plain_gather / 1e6
    );

    for codec in candidates() {
        let started = Instant::now();
        let encoded = encode_lists(
            codec.as_ref(),
            offsets,
            neighbors,
            PagePolicy::KeepShortListsWhole,
        );
        let encode_seconds = started.elapsed().as_secs_f64();
        let filled = encode_lists(codec.as_ref(), offsets, neighbors, PagePolicy::FillPages);
        let pages = random_pages(encoded.bytes.len() / PAGE_BYTES);
        let scan_rate = ids_per_second(|| scan(codec.as_ref(), &encoded, &every_vertex));
        let long_rate = if long_lists.is_empty() {
            "-".to_string()
        } else {
            format!(
                "{:.0}",
                ids_per_second(|| scan(codec.as_ref(), &encoded, &long_lists)) / 1e6
            )
        };
        let gather_rate = ids_per_second(|| gather(codec.as_ref(), &encoded, &pages));
        println!(
            "| {} | {:.3} | {:.1}% | {:.3} | {:.0} | {} | {:.0} | {:.2} |",
            codec.name(),
            encoded.bytes.len() as f64 / arcs,
            100.0 * encoded.padding_bytes as f64 / encoded.bytes.len().max(1) as f64,
            filled.bytes.len() as f64 / arcs,
            scan_rate / 1e6,
            long_rate,
            gather_rate / 1e6,
            encode_seconds
        );
    }
}

fn main() {
    // `cargo bench` passes `--bench`; every other argument is a graph file.
    let files: Vec<String> = std::env::args()
        .skip(1)
        .filter(|argument| !argument.starts_with("--"))
        .collect();
    if files.is_empty() {
        eprintln!(
            "name one or more .sl files: cargo bench -p swapless-format --bench list_codecs -- FILE.sl..."
        );
        std::process::exit(2);
    }
    for file in files {
        measure(Path::new(&file));
    }
}
