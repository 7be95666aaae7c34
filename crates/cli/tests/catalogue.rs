//! The catalogue of hostile inputs and situations, as a user meets them on the command
//! line: bad edge lists, Matrix Market and GAP files, damaged and forged `.sl` files,
//! bad run options and output paths. Every case runs the binary in a folder of its own
//! and asserts the exit status, a key phrase of the message (one line, no panic), that
//! no temporary is left, and that every file that was there before is byte-identical.
//! Signals, concurrent writers and a full file system, which need more than one
//! command, follow the table.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::hostile::*;
use common::*;
use swapless_format::SectionKind;

/// One case: it prepares its folder and returns the command's arguments (paths
/// relative to the folder, where the command runs).
struct Case {
    name: &'static str,
    setup: fn(&Path) -> Vec<String>,
    /// Exit status expected: 0, 1 (bad input or failure) or 2 (bad usage).
    exit: i32,
    /// A phrase the message holds (stderr on failure; stdout or stderr on success).
    phrase: &'static str,
}

#[rustfmt::skip]
fn cases() -> Vec<Case> {
    vec![
        // ---- list forms ----
        Case { name: "lists: a --lists that names no form", exit: 2, phrase: "--lists \"zip\" is not a form of lists; write plain or compressed",
            setup: |d| args(&["build", &file(d, "g.el", b"0 1\n"), "-o", &precious(d, "out.sl"), "--lists", "zip"]) },
        Case { name: "lists: a compressed graph checks clean", exit: 0, phrase: "ok: c.sl verified",
            setup: |d| args(&["check", &compressed_graph(d, "c.sl")]) },
        Case { name: "lists: info names compressed lists", exit: 0, phrase: "lists      compressed, ",
            setup: |d| args(&["info", &compressed_graph(d, "c.sl")]) },
        Case { name: "lists: check names the damaged page of compressed lists", exit: 1, phrase: "block 1 of section out_neighbors",
            setup: |d| args(&["check", &damaged_compressed(d, 4096, false)]) },
        Case { name: "lists: check names the vertex of a forged compressed page", exit: 1, phrase: "out-list does not decode",
            setup: |d| args(&["check", &damaged_compressed(d, 4096, true)]) },
        Case { name: "lists: info describes a graph whose footprint no memory holds", exit: 0, phrase: "in memory  a run held entirely in DRAM: bfs 256.",
            setup: |d| args(&["info", &inflated_compressed(d)]) },
        Case { name: "lists: check refuses offsets the compressed lists do not hold", exit: 1, phrase: "vertex 1023: its out-list does not decode",
            setup: |d| args(&["check", &inflated_compressed(d)]) },
        Case { name: "lists: a run on offsets no memory holds names the least budget", exit: 1, phrase: "needs at least",
            setup: |d| args(&["run", "bfs", &inflated_compressed(d), "--tier", "dram"]) },
        Case { name: "lists: a compressed file builds back to plain", exit: 0, phrase: "lists: plain",
            setup: |d| args(&["build", &compressed_graph(d, "c.sl"), "-o", "plain.sl", "--weighted", "--lists", "plain"]) },
        Case { name: "lists: a damaged compressed input is refused", exit: 1, phrase: "block 1 of section out_neighbors",
            setup: |d| args(&["build", &damaged_compressed(d, 4096, false), "-o", &precious(d, "out.sl"), "--lists", "compressed"]) },
        Case { name: "lists: an edge list builds compressed", exit: 0, phrase: "lists: compressed",
            setup: |d| args(&["build", &file(d, "g.el", b"0 1 2\n1 2 3\n2 0 1\n"), "-o", "new.sl", "--weighted", "--lists", "compressed"]) },

        // ---- Text edge lists ----
        Case { name: "text: a token that is not an id", exit: 1, phrase: "`x3` is not a vertex id",
            setup: |d| args(&["build", &file(d, "g.el", b"0 1\n1 2\n2 x3\n"), "-o", &precious(d, "out.sl"), "--ids", "dense"]) },
        Case { name: "text: names are compacted", exit: 0, phrase: "names mapped to 0..3",
            setup: |d| args(&["build", &file(d, "g.el", b"0 1\n1 2\n2 x3\n"), "-o", "new.sl"]) },
        Case { name: "text: four columns", exit: 1, phrase: "found 4",
            setup: |d| args(&["build", &file(d, "g.el", b"0 1\n1 2 3 4\n"), "-o", &precious(d, "out.sl")]) },
        Case { name: "text: an error inside a .gz names the line", exit: 1, phrase: "g.el.gz:2:",
            setup: |d| args(&["build", &file(d, "g.el.gz", b"0 1\n1 2 3 4\n"), "-o", &precious(d, "out.sl")]) },
        Case { name: "text: an empty file", exit: 1, phrase: "the file is empty",
            setup: |d| args(&["build", &file(d, "g.el", b""), "-o", &precious(d, "out.sl")]) },
        Case { name: "text: comments only", exit: 1, phrase: "no edges",
            setup: |d| args(&["build", &file(d, "g.el", b"# nothing\n\n% here\n"), "-o", &precious(d, "out.sl")]) },
        Case { name: "text: weights on some lines only", exit: 1, phrase: "weight on every line or on none",
            setup: |d| args(&["build", &file(d, "g.el", b"0 1 2.5\n1 2 1\n2 3\n"), "-o", &precious(d, "out.sl"), "--weighted"]) },
        Case { name: "text: --weighted without weights", exit: 1, phrase: "no third column; drop --weighted",
            setup: |d| args(&["build", &file(d, "g.el", b"0 1\n1 2\n"), "-o", &precious(d, "out.sl"), "--weighted"]) },
        Case { name: "text: a NaN weight", exit: 1, phrase: "not a finite number",
            setup: |d| args(&["build", &file(d, "g.el", b"0 1 nan\n"), "-o", &precious(d, "out.sl"), "--weighted"]) },
        Case { name: "text: a weight beyond f32", exit: 1, phrase: "beyond the largest a 32-bit float",
            setup: |d| args(&["build", &file(d, "g.el", b"0 1 1e40\n"), "-o", &precious(d, "out.sl"), "--weighted"]) },
        Case { name: "text: a negative id", exit: 1, phrase: "`-1` is not a vertex id",
            setup: |d| args(&["build", &file(d, "g.el", b"-1 2\n"), "-o", &precious(d, "out.sl"), "--ids", "dense"]) },
        Case { name: "text: an id beyond 32 bits", exit: 1, phrase: "does not fit in 32 bits",
            setup: |d| args(&["build", &file(d, "g.el", b"0 1\n4294967296 1\n"), "-o", &precious(d, "out.sl"), "--ids", "dense"]) },
        Case { name: "text: ids beyond 32 bits are compacted", exit: 0, phrase: "integers mapped to 0..2",
            setup: |d| args(&["build", &file(d, "g.el", b"0 -1\n4294967296 -1\n"), "-o", "new.sl"]) },
        Case { name: "text: a name not UTF-8", exit: 1, phrase: "g.el:2: `\\u{fffd}` is not UTF-8",
            setup: |d| args(&["build", &file(d, "g.el", b"a b\n\xff b\n"), "-o", &precious(d, "out.sl")]) },
        Case { name: "out: a table of ids", exit: 0, phrase: "result",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--out", "ranks.csv"]) },
        Case { name: "text: a byte-order mark is skipped", exit: 0, phrase: "3 vertices",
            setup: |d| args(&["build", &file(d, "g.el", b"\xef\xbb\xbf0 1\n1 2\n"), "-o", "new.sl"]) },
        Case { name: "text: CRLF lines and tabs", exit: 0, phrase: "2 edges",
            setup: |d| args(&["build", &file(d, "g.el", b"0\t1\r\n1\t2\r\n"), "-o", "new.sl"]) },
        Case { name: "text: binary garbage", exit: 1, phrase: "holds binary data",
            setup: |d| args(&["build", &file(d, "g.el", &(0..=255u8).cycle().take(3000).collect::<Vec<_>>()), "-o", &precious(d, "out.sl")]) },
        Case { name: "text: gzip data named .el", exit: 1, phrase: "holds gzip-compressed data",
            setup: |d| {
                write_input(&d.join("tmp.gz"), b"0 1\n");
                std::fs::rename(d.join("tmp.gz"), d.join("g.el")).unwrap();
                args(&["build", "g.el", "-o", &precious(d, "out.sl")])
            } },
        Case { name: "text: control bytes are shown escaped", exit: 1, phrase: "`ab\\u{1}\\u{2}`",
            setup: |d| args(&["build", &file(d, "g.el", b"ab\x01\x02 1\n"), "-o", &precious(d, "out.sl")]) },
        Case { name: "text: a 5 MB token gives a short message", exit: 1, phrase: "longer than 64 KiB",
            setup: |d| {
                let mut token = vec![b'1'; 5 << 20];
                token.extend_from_slice(b" 2\n");
                args(&["build", &file(d, "g.el", &token), "-o", &precious(d, "out.sl")])
            } },
        Case { name: "text: plain text named .zst", exit: 1, phrase: "is not zstd-compressed",
            setup: |d| {
                std::fs::write(d.join("g.el.zst"), b"0 1\n").unwrap();
                args(&["build", "g.el.zst", "-o", &precious(d, "out.sl")])
            } },
        Case { name: "text: a .gz with trailing junk", exit: 1, phrase: "followed by bytes that are not gzip",
            setup: |d| {
                write_input(&d.join("g.el.gz"), b"0 1\n");
                std::fs::OpenOptions::new()
                    .append(true)
                    .open(d.join("g.el.gz"))
                    .unwrap()
                    .write_all(b"junkjunk")
                    .unwrap();
                args(&["build", "g.el.gz", "-o", &precious(d, "out.sl")])
            } },
        Case { name: "text: a truncated .gz", exit: 1, phrase: "gzip data is damaged, truncated",
            setup: |d| {
                write_input(&d.join("g.el.gz"), &b"0 1\n".repeat(10000));
                let bytes = std::fs::read(d.join("g.el.gz")).unwrap();
                std::fs::write(d.join("g.el.gz"), &bytes[..bytes.len() / 2]).unwrap();
                args(&["build", "g.el.gz", "-o", &precious(d, "out.sl")])
            } },
        Case { name: "text: the input is missing", exit: 1, phrase: "No such file",
            setup: |d| args(&["build", "nowhere.el", "-o", &precious(d, "out.sl")]) },
        Case { name: "text: the input is a folder", exit: 1, phrase: "is a folder, not an input file",
            setup: |d| {
                std::fs::create_dir(d.join("edges")).unwrap();
                args(&["build", "edges", "-o", &precious(d, "out.sl")])
            } },
        Case { name: "text: the input is a pipe", exit: 0, phrase: "2 vertices",
            setup: |d| {
                let fifo = d.join("pipe.el");
                make_fifo(&fifo);
                std::thread::spawn(move || std::fs::write(fifo, b"0 1\n").unwrap());
                args(&["build", "pipe.el", "-o", "new.sl"])
            } },
        // ---- Matrix Market ----
        Case { name: "mtx: a bad banner", exit: 1, phrase: "must start with",
            setup: |d| args(&["build", &file(d, "g.mtx", b"%%MatrixMarket tensor\n1 1 1\n1 1\n"), "-o", &precious(d, "out.sl")]) },
        Case { name: "mtx: an array, not coordinates", exit: 1, phrase: "coordinate",
            setup: |d| args(&["build", &file(d, "g.mtx", b"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n"), "-o", &precious(d, "out.sl")]) },
        Case { name: "mtx: a non-square matrix has max(rows, columns) vertices", exit: 0, phrase: "3 vertices",
            setup: |d| args(&["build", &file(d, "g.mtx", b"%%MatrixMarket matrix coordinate pattern general\n2 3 1\n1 2\n"), "-o", "new.sl"]) },
        Case { name: "mtx: an entry beyond the declared size", exit: 1, phrase: "g.mtx:3:",
            setup: |d| args(&["build", &file(d, "g.mtx", b"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 5\n"), "-o", &precious(d, "out.sl")]) },
        Case { name: "mtx: fewer entries than declared", exit: 1, phrase: "may be truncated",
            setup: |d| args(&["build", &file(d, "g.mtx", b"%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n"), "-o", &precious(d, "out.sl")]) },
        Case { name: "mtx: more entries than declared", exit: 1, phrase: "g.mtx:",
            setup: |d| args(&["build", &file(d, "g.mtx", b"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n2 3\n"), "-o", &precious(d, "out.sl")]) },
        Case { name: "mtx: a pattern file with --weighted", exit: 1, phrase: "pattern",
            setup: |d| args(&["build", &file(d, "g.mtx", b"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n"), "-o", &precious(d, "out.sl"), "--weighted"]) },
        Case { name: "mtx: a complex field", exit: 1, phrase: "complex",
            setup: |d| args(&["build", &file(d, "g.mtx", b"%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 2 1 0\n"), "-o", &precious(d, "out.sl")]) },
        Case { name: "mtx: a size line that is not numbers", exit: 1, phrase: "g.mtx:2:",
            setup: |d| args(&["build", &file(d, "g.mtx", b"%%MatrixMarket matrix coordinate pattern general\nthree three 1\n1 2\n"), "-o", &precious(d, "out.sl")]) },
        // ---- GAP ----
        Case { name: "gap: truncated", exit: 1, phrase: "truncated",
            setup: |d| {
                let good = gap_bytes(3, &[0, 1, 2, 2], &[1, 0]);
                args(&["build", &file(d, "t.sg", &good[..good.len() - 3]), "-o", &precious(d, "out.sl")])
            } },
        Case { name: "gap: truncated inside a .gz", exit: 1, phrase: "truncated",
            setup: |d| {
                let good = gap_bytes(3, &[0, 1, 2, 2], &[1, 0]);
                args(&["build", &file(d, "t.sg.gz", &good[..good.len() - 3]), "-o", &precious(d, "out.sl")])
            } },
        Case { name: "gap: offsets that decrease", exit: 1, phrase: "decrease at vertex 1",
            setup: |d| args(&["build", &file(d, "o.sg", &gap_bytes(3, &[0, 2, 1, 2], &[1, 0])), "-o", &precious(d, "out.sl")]) },
        Case { name: "gap: a neighbor out of range", exit: 1, phrase: "vertex 1 has neighbor 7",
            setup: |d| args(&["build", &file(d, "n.sg", &gap_bytes(3, &[0, 1, 2, 2], &[1, 7])), "-o", &precious(d, "out.sl")]) },
        Case { name: "gap: not a GAP file", exit: 1, phrase: "not a GAP serialized graph",
            setup: |d| args(&["build", &file(d, "x.sg", b"0 1\n1 2\n3 4 5 6 7 8 9 10 11 12 13\n"), "-o", &precious(d, "out.sl")]) },
        Case { name: "gap: a .sg with --weighted", exit: 1, phrase: ".wsg",
            setup: |d| args(&["build", &file(d, "u.sg", &gap_bytes(3, &[0, 1, 2, 2], &[1, 0])), "-o", &precious(d, "out.sl"), "--weighted"]) },
        Case { name: "gap: a 100-byte .sg.gz claiming 2^32-1 vertices", exit: 1, phrase: "more than the build's memory budget",
            setup: |d| {
                let mut bytes = vec![0u8];
                bytes.extend_from_slice(&1i64.to_le_bytes());
                bytes.extend_from_slice(&(u32::MAX as i64).to_le_bytes());
                bytes.extend_from_slice(&[0u8; 64]);
                args(&["build", &file(d, "huge.sg.gz", &bytes), "-o", &precious(d, "out.sl"), "--memory", "1G"])
            } },
        Case { name: "gap: negative counts", exit: 1, phrase: "GAP header is corrupt",
            setup: |d| {
                let mut bytes = vec![0u8];
                bytes.extend_from_slice(&(-5i64).to_le_bytes());
                bytes.extend_from_slice(&3i64.to_le_bytes());
                args(&["build", &file(d, "neg.sg", &bytes), "-o", &precious(d, "out.sl")])
            } },
        // ---- .sl damage ----
        Case { name: "sl: truncated to half", exit: 1, phrase: "truncated",
            setup: |d| {
                let bytes = std::fs::read(&made_graphs().0).unwrap();
                args(&["info", &file(d, "t.sl", &bytes[..bytes.len() / 2])])
            } },
        Case { name: "sl: truncated inside the header", exit: 1, phrase: "truncated",
            setup: |d| {
                let bytes = std::fs::read(&made_graphs().0).unwrap();
                args(&["check", &file(d, "t.sl", &bytes[..100])])
            } },
        Case { name: "sl: empty", exit: 1, phrase: "the file is empty",
            setup: |d| args(&["run", "bfs", &file(d, "e.sl", b"")]) },
        Case { name: "sl: wrong magic", exit: 1, phrase: "not a swapless .sl graph file",
            setup: |d| args(&["info", &file(d, "n.sl", b"0 1\n1 2\n")]) },
        Case { name: "sl: a flipped version byte", exit: 1, phrase: "fails its checksum and names format version 5",
            setup: |d| {
                let mut bytes = std::fs::read(&made_graphs().0).unwrap();
                bytes[8] = 5;
                args(&["info", &file(d, "v.sl", &bytes)])
            } },
        Case { name: "sl: version 0", exit: 1, phrase: "format version 0, which does not exist",
            setup: |d| {
                let mut bytes = std::fs::read(&made_graphs().0).unwrap();
                bytes[8] = 0;
                args(&["check", &file(d, "v.sl", &bytes)])
            } },
        Case { name: "sl: a header byte flipped", exit: 1, phrase: "header fails its checksum",
            setup: |d| {
                let mut bytes = std::fs::read(&made_graphs().0).unwrap();
                bytes[20] ^= 1;
                args(&["info", &file(d, "h.sl", &bytes)])
            } },
        Case { name: "sl: out_offsets damaged (check)", exit: 1, phrase: "block 0 of section out_offsets",
            setup: |d| args(&["check", &damaged(d, SectionKind::OutOffsets, 9, |b| b ^ 0x40, false)]) },
        Case { name: "sl: out_neighbors damaged (mmap run)", exit: 1, phrase: "fails its checksum",
            setup: |d| args(&["run", "bfs", &damaged(d, SectionKind::OutNeighbors, 5000, |b| b ^ 1, false), "--tier", "mmap", "--memory", "16M", "--out", &precious(d, "out.npy")]) },
        Case { name: "sl: out_neighbors damaged (direct run)", exit: 1, phrase: "fails its checksum",
            setup: |d| args(&["run", "pr", &damaged(d, SectionKind::OutNeighbors, 5000, |b| b ^ 1, false), "--tier", "direct", "--memory", "16M", "--out", &precious(d, "out.npy")]) },
        Case { name: "sl: out_neighbors damaged (dram run)", exit: 1, phrase: "fails its checksum",
            setup: |d| args(&["run", "cc", &damaged(d, SectionKind::OutNeighbors, 5000, |b| b ^ 1, false), "--tier", "dram", "--out", &precious(d, "out.npy")]) },
        Case { name: "sl: out_heads damaged", exit: 1, phrase: "section out_heads",
            setup: |d| args(&["check", &damaged(d, SectionKind::OutHeads, 10, |b| b ^ 1, false)]) },
        Case { name: "sl: permutation damaged", exit: 1, phrase: "section permutation",
            setup: |d| args(&["run", "bfs", &damaged(d, SectionKind::Permutation, 10, |b| b ^ 1, false), "--out", &precious(d, "out.npy")]) },
        Case { name: "sl: in_neighbors damaged", exit: 1, phrase: "section in_neighbors",
            setup: |d| args(&["check", &damaged(d, SectionKind::InNeighbors, 100, |b| b ^ 1, false)]) },
        Case { name: "sl: out_weights damaged", exit: 1, phrase: "section out_weights",
            setup: |d| args(&["check", &damaged_weighted_out(d)]) },
        Case { name: "sl: the checksum section damaged", exit: 1, phrase: "fails its checksum",
            setup: |d| args(&["check", &damaged(d, SectionKind::Checksums, 3, |b| b ^ 1, false)]) },
        Case { name: "sl: a damaged file as a build input", exit: 1, phrase: "fails its checksum",
            setup: |d| args(&["build", &damaged(d, SectionKind::OutNeighbors, 5000, |b| b ^ 1, false), "-o", &precious(d, "out.sl")]) },
        Case { name: "sl: a .sl compressed as a build input", exit: 1, phrase: "decompress it first",
            setup: |d| args(&["build", &file(d, "g.sl.gz", &std::fs::read(&made_graphs().0).unwrap()), "-o", &precious(d, "out.sl")]) },
        Case { name: "sl: a folder as the graph", exit: 1, phrase: "is a folder, not a .sl graph file",
            setup: |d| {
                std::fs::create_dir(d.join("g.sl")).unwrap();
                args(&["run", "pr", "g.sl"])
            } },
        Case { name: "sl: a forged permutation that repeats an id", exit: 1, phrase: "maps two vertices to id",
            setup: |d| args(&["run", "bfs", &forged_permutation(d, 3, 0), "--out", &precious(d, "out.npy")]) },
        Case { name: "sl: a forged permutation entry out of range", exit: 1, phrase: "beyond the 1024 vertices",
            setup: |d| args(&["run", "cc", &forged_permutation(d, 5, 5000), "--tier", "mmap", "--memory", "16M"]) },
        Case { name: "sl: forged in-lists (check)", exit: 1, phrase: "in-lists do not hold the out-arcs reversed",
            setup: |d| args(&["check", &damaged(d, SectionKind::InNeighbors, 0, |b| b.wrapping_add(1), true)]) },
        Case { name: "sl: forged out_heads (check)", exit: 1, phrase: "out_heads does not hold the start",
            setup: |d| args(&["check", &damaged(d, SectionKind::OutHeads, 0, |b| b ^ 1, true)]) },
        Case { name: "sl: a forged asymmetric undirected list (check)", exit: 1, phrase: "not symmetric",
            setup: |d| args(&["check", &asymmetric(d)]) },
        Case { name: "sl: info says that check verifies the rest", exit: 0, phrase: "swapless check",
            setup: |d| args(&["info", &graph(d, "g.sl")]) },
        // ---- Run options ----
        Case { name: "run: a delta too small to make progress still ends", exit: 0, phrase: "reached",
            setup: |d| args(&["run", "sssp", &weighted_graph(d, "w.sl"), "--delta", "1e-18"]) },
        Case { name: "run: delta 0", exit: 2, phrase: "--delta must be a number above 0",
            setup: |d| args(&["run", "sssp", &weighted_graph(d, "w.sl"), "--delta", "0"]) },
        Case { name: "run: delta NaN", exit: 2, phrase: "--delta must be a number above 0",
            setup: |d| args(&["run", "sssp", &weighted_graph(d, "w.sl"), "--delta", "nan"]) },
        Case { name: "run: zero threads", exit: 2, phrase: "--threads must be at least 1",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--threads", "0"]) },
        Case { name: "run: ten thousand threads", exit: 2, phrase: "threads is more than",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--threads", "10000"]) },
        Case { name: "run: a memory that is not a size", exit: 2, phrase: "not a size",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--memory", "abc"]) },
        Case { name: "run: a budget below the least", exit: 1, phrase: "raise --memory to at least",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--memory", "1K", "--tier", "direct"]) },
        Case { name: "run: a negative tolerance", exit: 2, phrase: "--tolerance must be a number >= 0",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--tolerance=-1"]) },
        Case { name: "run: damping above 1", exit: 2, phrase: "--damping must be a number between 0 and 1",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--damping", "2"]) },
        Case { name: "run: zero iterations", exit: 2, phrase: "--max-iters must be a whole number from 1",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--max-iters", "0"]) },
        Case { name: "run: PageRank stopped before converging says so", exit: 0, phrase: "not converged",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--max-iters", "2"]) },
        Case { name: "run: a huge-page fraction above 1", exit: 2, phrase: "--hugepages must be between 0 and 1",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--hugepages", "2"]) },
        Case { name: "run: a source beyond the vertices", exit: 2, phrase: "is not a vertex",
            setup: |d| args(&["run", "bfs", &graph(d, "g.sl"), "--source", "99999"]) },
        Case { name: "run: a source for a kernel without one", exit: 2, phrase: "pr takes no --source",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--source", "1"]) },
        Case { name: "run: tc with --out", exit: 2, phrase: "takes no --out",
            setup: |d| args(&["run", "tc", &graph(d, "g.sl"), "--out", "t.npy"]) },
        Case { name: "run: zero bc sources", exit: 2, phrase: "--sources",
            setup: |d| args(&["run", "bc", &graph(d, "g.sl"), "--sources", "0"]) },
        Case { name: "run: a chunk below 4K", exit: 2, phrase: "between 4K and 4M",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--chunk", "1K"]) },
        Case { name: "run: queue depth 0", exit: 2, phrase: "--queue-depth must be between 1 and 4096",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--queue-depth", "0"]) },
        Case { name: "run: a gather-cache fraction above 1", exit: 2, phrase: "between 0 and 1",
            setup: |d| args(&["run", "bfs", &graph(d, "g.sl"), "--gather-cache", "2"]) },
        Case { name: "run: zero trials", exit: 2, phrase: "--trials must be at least 1",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--trials", "0"]) },
        Case { name: "run: negative edge weights are refused for sssp", exit: 2, phrase: "negative edge weights",
            setup: |d| {
                let edges = file(d, "n.el", b"0 1 -2\n1 2 1\n");
                swapless_ok(&[
                    "build",
                    arg(&d.join(&edges)),
                    "-o",
                    arg(&d.join("n.sl")),
                    "--weighted",
                ]);
                args(&["run", "sssp", "n.sl"])
            } },
        Case { name: "plan: the least budget it prints is accepted", exit: 0, phrase: "least budget",
            setup: |d| args(&["plan", &graph(d, "g.sl"), "pr", "--memory", "16M"]) },
        Case { name: "build: a budget below the least says a figure that works", exit: 1, phrase: "needs at least",
            setup: |d| args(&["build", &file(d, "g.el", b"0 1\n"), "-o", &precious(d, "out.sl"), "--memory", "1M"]) },
        // ---- Output paths ----
        Case { name: "out: /dev/null is written, never replaced", exit: 0, phrase: "result",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--out", "/dev/null", "--json", "/dev/null"]) },
        Case { name: "out: a FIFO is written into", exit: 0, phrase: "result",
            setup: |d| {
                let fifo = d.join("ranks.npy");
                make_fifo(&fifo);
                std::thread::spawn(move || std::fs::read(fifo).unwrap());
                args(&["run", "pr", &graph(d, "g.sl"), "--out", "ranks.npy"])
            } },
        Case { name: "out: a symlink is followed and stays a link", exit: 0, phrase: "result",
            setup: |d| {
                std::fs::write(d.join("target.npy"), b"old").unwrap();
                std::os::unix::fs::symlink("target.npy", d.join("link.npy")).unwrap();
                args(&["run", "pr", &graph(d, "g.sl"), "--out", "link.npy"])
            } },
        Case { name: "out: a folder", exit: 1, phrase: "is a folder; name a file",
            setup: |d| {
                std::fs::create_dir(d.join("outdir")).unwrap();
                args(&["run", "pr", &graph(d, "g.sl"), "--out", "outdir"])
            } },
        Case { name: "out: a name ending in a slash", exit: 1, phrase: "is a folder; name a file",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--out", "outdir/"]) },
        Case { name: "out: a missing folder", exit: 1, phrase: "does not exist; create it first",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--out", "missing/ranks.npy"]) },
        Case { name: "out: an extension that is not written", exit: 2, phrase: "results are written as .npy",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--out", "ranks.txt"]) },
        Case { name: "out: --json a folder, refused before the run", exit: 1, phrase: "is a folder",
            setup: |d| {
                std::fs::create_dir(d.join("r")).unwrap();
                args(&["run", "pr", &graph(d, "g.sl"), "--out", &precious(d, "out.npy"), "--json", "r"])
            } },
        Case { name: "out: --json and --out the same file", exit: 2, phrase: "name the same file",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--out", "x.npy", "--json", "./x.npy"]) },
        Case { name: "out: build -o the input itself", exit: 2, phrase: "are the same file",
            setup: |d| args(&["build", &graph(d, "g.sl"), "-o", "./g.sl"]) },
        Case { name: "out: build -o a device", exit: 1, phrase: "needs a regular file",
            setup: |d| args(&["build", &file(d, "g.el", b"0 1\n"), "-o", "/dev/null"]) },
        Case { name: "out: build -o a folder", exit: 1, phrase: "is a folder",
            setup: |d| {
                std::fs::create_dir(d.join("x.sl")).unwrap();
                args(&["build", &file(d, "g.el", b"0 1\n"), "-o", "x.sl"])
            } },
        Case { name: "out: build -o without .sl", exit: 2, phrase: "should end in .sl",
            setup: |d| args(&["build", &file(d, "g.el", b"0 1\n"), "-o", "g.txt"]) },
        Case { name: "out: generate -o a missing folder", exit: 1, phrase: "does not exist",
            setup: |_| args(&["generate", "kron", "--scale", "6", "-o", "nowhere/k.sl"]) },
        Case { name: "out: generate with an impossible scale", exit: 1, phrase: "--scale",
            setup: |_| args(&["generate", "kron", "--scale", "40", "-o", "k.sl"]) },
        // ---- Far addresses ----
        Case { name: "far: an http URL as a graph says what a far address is", exit: 1, phrase: "a graph in far memory is read from redis://HOST:PORT/NAME",
            setup: |_| args(&["run", "pr", "http://127.0.0.1:1/g"]) },
        Case { name: "far: redis:/ with one slash asks for two", exit: 1, phrase: "write it with two slashes",
            setup: |_| args(&["run", "pr", "redis:/127.0.0.1:1/g"]) },
        Case { name: "far: an upper-case scheme is read as redis://", exit: 1, phrase: "cannot reach the Redis node 127.0.0.1:1",
            setup: |_| args(&["run", "pr", "REDIS://127.0.0.1:1/g", "--far-timeout", "2s"]) },
        Case { name: "far: a URL without a name asks for /NAME", exit: 1, phrase: "names no graph; end it with /NAME",
            setup: |_| args(&["run", "pr", "redis://127.0.0.1:1"]) },
        Case { name: "far: check of a URL without a name asks for /NAME", exit: 1, phrase: "names no graph; end it with /NAME",
            setup: |_| args(&["check", "redis://127.0.0.1:1/"]) },
        Case { name: "far: unbracketed IPv6 is refused with how to write it", exit: 1, phrase: "redis://[::1]:6379/NAME",
            setup: |_| args(&["run", "pr", "redis://::1:6379/g"]) },
        Case { name: "far: build from a URL is not supported", exit: 2, phrase: "build reads an edge list from a local file",
            setup: |d| args(&["build", "redis://127.0.0.1:1/g", "-o", &precious(d, "out.sl")]) },
        Case { name: "far: build from an http URL is not supported", exit: 2, phrase: "not from a URL",
            setup: |d| args(&["build", "https://example.com/g.el", "-o", &precious(d, "out.sl")]) },
        Case { name: "far: --tier far, the old spelling, says a far graph runs on direct by itself", exit: 2, phrase: "runs on the direct tier by itself; drop --tier far",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--tier", "far"]) },
        Case { name: "far: --fallback on a local graph is refused", exit: 2, phrase: "is a local graph; drop --fallback",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--fallback", &graph(d, "copy.sl")]) },
        Case { name: "far: --far-timeout refuses a time that is not one", exit: 2, phrase: "must be a positive time",
            setup: |_| args(&["far", "ls", "redis://127.0.0.1:1", "--far-timeout", "soon"]) },
        Case { name: "far: rm of a URL without a name asks for /NAME", exit: 1, phrase: "names no graph; end it with /NAME",
            setup: |_| args(&["far", "rm", "redis://127.0.0.1:1"]) },
        Case { name: "far: --help says what --far-timeout bounds", exit: 0, phrase: "with the retries that follow a redirection or a failover",
            setup: |_| args(&["run", "--help"]) },
        Case { name: "out: info --json - carries JSON alone", exit: 0, phrase: "",
            setup: |d| args(&["info", &graph(d, "g.sl"), "--json", "-"]) },
        // ---- Tables and ids (issue 40) ----
        Case { name: "ids: sparse small ids are compacted, not padded with vertices", exit: 0,
            phrase: "integers mapped to 0..2 and kept in the file (3 distinct ids fill 0% of 0..1002, under 1/2)",
            setup: |d| args(&["build", &file(d, "g.el", b"1000 1001\n1001 1002\n"), "-o", "new.sl"]) },
        Case { name: "ids: ids filling half of 0..max id stay dense, and the build says why", exit: 0,
            phrase: "ids: the input's own, as the vertices 0..3 (3 distinct ids fill 75% of 0..3, at least 1/2)",
            setup: |d| args(&["build", &file(d, "g.el", b"0 1\n3 1\n"), "-o", "new.sl"]) },
        Case { name: "ids: a Parquet table of sparse small ids is compacted too", exit: 0,
            phrase: "integers mapped to 0..2",
            setup: |d| args(&["build", &parquet_ids(d, "g.parquet", &[1000, 1001], &[1001, 1002]), "-o", "new.sl"]) },
        Case { name: "tables: a CSV keeps the spaces of its names, as pandas does", exit: 0,
            phrase: "names mapped to 0..2",
            setup: |d| args(&["build", &file(d, "g.csv", b"a,b\n\" a\",b\na,b\n"), "-o", "new.sl", "--header"]) },
        Case { name: "tables: a CSV's integers with spaces around them are integers, as in pandas", exit: 0,
            phrase: "3 distinct ids fill 100% of 0..2",
            setup: |d| args(&["build", &file(d, "g.csv", b"0, 1\n 1 ,2\n"), "-o", "new.sl"]) },
        Case { name: "tables: the source column chosen as the target too", exit: 1,
            phrase: "the source and target columns are both column \"a\"; choose a different column for each",
            setup: |d| args(&["build", &file(d, "g.csv", b"a,b\n0,1\n"), "-o", &precious(d, "out.sl"), "--source-col", "a", "--target-col", "a"]) },
        Case { name: "tables: a header name written twice, chosen for both ends", exit: 1,
            phrase: "both column \"x\"",
            setup: |d| args(&["build", &file(d, "g.csv", b"x,x\n0,1\n"), "-o", &precious(d, "out.sl"), "--source-col", "x", "--target-col", "x"]) },
        Case { name: "tables: the weight column chosen as the target", exit: 1,
            phrase: "the target and weight columns are both column \"2\"",
            setup: |d| args(&["build", &file(d, "g.csv", b"0,1\n1,2\n"), "-o", &precious(d, "out.sl"), "--weighted", "--weight-col", "2"]) },
        Case { name: "tables: a Parquet source column chosen as the target", exit: 1,
            phrase: "the source and target columns are both column \"a\"",
            setup: |d| args(&["build", &parquet_ids(d, "g.parquet", &[0], &[1]), "-o", &precious(d, "out.sl"), "--source-col", "a", "--target-col", "a"]) },
        Case { name: "tables: a CRLF CSV's error names its own line", exit: 1, phrase: "g.csv:3:",
            setup: |d| args(&["build", &file(d, "g.csv", b"0,1\r\n1,2\r\n2,-1\r\n"), "-o", &precious(d, "out.sl"), "--ids", "dense"]) },
        Case { name: "tables: an unterminated quote is named as one", exit: 1, phrase: "g.csv:2: column 1: a quoted field runs on past the end of this line; is its closing quote missing?",
            setup: |d| args(&["build", &file(d, "g.csv", b"0,1\n\"2,3\n4,5\n"), "-o", &precious(d, "out.sl")]) },
        // ---- kernel parameters, from the registry ----
        Case { name: "run: a parameter of another kernel is refused", exit: 2, phrase: "pr takes no --delta",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--delta", "2"]) },
        Case { name: "run: a parameter that is not a number is refused", exit: 2, phrase: "--tolerance must be a number >= 0",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--tolerance", "tiny"]) },
        Case { name: "run: bc sources that are neither a count nor all are refused", exit: 2, phrase: "--sources must be a whole number >= 1, or `all`",
            setup: |d| args(&["run", "bc", &graph(d, "g.sl"), "--sources", "some"]) },
        Case { name: "run: ppr seeds that are not vertices are named", exit: 2, phrase: "--seeds 70000 is not a vertex",
            setup: |d| args(&["run", "ppr", &graph(d, "g.sl"), "--seeds", "1,70000"]) },
        Case { name: "run: ppr seeds that are not ids are named", exit: 2, phrase: "--seeds \"x\" is not a vertex",
            setup: |d| args(&["run", "ppr", &graph(d, "g.sl"), "--seeds", "x"]) },
        Case { name: "tables: a quote left open on the last line, with no line break after, is named", exit: 1,
            phrase: "g.csv:3: a quoted field runs on to the end of the file; is its closing quote missing?",
            setup: |d| args(&["build", &file(d, "g.csv", b"0,1\n1,2\n2,\"3"), "-o", &precious(d, "out.sl")]) },
        Case { name: "tables: a closed quote on the last line, with no line break after, is read", exit: 0,
            phrase: "4 vertices",
            setup: |d| args(&["build", &file(d, "g.csv", b"0,1\n1,2\n2,\"3\""), "-o", "new.sl"]) },
        Case { name: "tables: a quote inside an unquoted last field is a character of it", exit: 0,
            phrase: "3 vertices",
            setup: |d| args(&["build", &file(d, "g.csv", b"a,b\nb,c\"d"), "-o", "new.sl", "--no-header"]) },
        Case { name: "tables: a Parquet file named .csv is read as Parquet", exit: 0, phrase: "3 vertices",
            setup: |d| {
                parquet_ids(d, "p.parquet", &[0, 1], &[1, 2]);
                std::fs::rename(d.join("p.parquet"), d.join("g.csv")).unwrap();
                args(&["build", "g.csv", "-o", "new.sl"])
            } },
        Case { name: "tables: dictionary-encoded Parquet ids (pandas categoricals) are read", exit: 0,
            phrase: "names mapped to 0..2",
            setup: |d| {
                use arrow_array::{ArrayRef, DictionaryArray, RecordBatch, types::Int8Type};
                let column = |names: Vec<&str>| -> ArrayRef {
                    std::sync::Arc::new(names.into_iter().collect::<DictionaryArray<Int8Type>>())
                };
                let batch = RecordBatch::try_from_iter([
                    ("a", column(vec!["x", "y"])),
                    ("b", column(vec!["y", "z"])),
                ]).unwrap();
                write_parquet(&d.join("g.parquet"), &batch);
                args(&["build", "g.parquet", "-o", "new.sl"])
            } },
        Case { name: "tables: a Parquet page with its checksum right builds", exit: 0, phrase: "4 vertices",
            setup: |d| {
                std::fs::copy(fixture("page-crc.parquet"), d.join("g.parquet")).unwrap();
                args(&["build", "g.parquet", "-o", "new.sl"])
            } },
        Case { name: "tables: a Parquet page whose checksum fails is refused", exit: 1, phrase: "Page CRC checksum mismatch",
            setup: |d| {
                std::fs::copy(fixture("page-crc-damaged.parquet"), d.join("g.parquet")).unwrap();
                args(&["build", "g.parquet", "-o", &precious(d, "out.sl")])
            } },
        Case { name: "weights: an edge list's weights dropped without --weighted are said to be", exit: 0,
            phrase: "weights ignored; pass --weighted to keep them",
            setup: |d| args(&["build", &file(d, "g.el", b"0 1 2.5\n1 2 4\n"), "-o", "new.sl"]) },
        Case { name: "weights: a .wsg built without --weighted says it drops them", exit: 0,
            phrase: "weights ignored; pass --weighted to keep them",
            setup: |d| {
                // Undirected: 0-1 of weight 5, as two arcs.
                let mut bytes = vec![0u8];
                bytes.extend_from_slice(&2i64.to_le_bytes());
                bytes.extend_from_slice(&2i64.to_le_bytes());
                for offset in [0i64, 1, 2] {
                    bytes.extend_from_slice(&offset.to_le_bytes());
                }
                for word in [1i32, 5, 0, 5] {
                    bytes.extend_from_slice(&word.to_le_bytes());
                }
                args(&["build", &file(d, "w.wsg", &bytes), "-o", "new.sl"])
            } },
        // ---- Runs, builds and checkpoints (issue 40) ----
        Case { name: "run: --json - and --out /dev/stdout are not mixed on one stream", exit: 2,
            phrase: "--json - and --out /dev/stdout both write to the standard output",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--json", "-", "--out", "/dev/stdout"]) },
        Case { name: "run: --checkpoint naming a file is refused as not a folder", exit: 1,
            phrase: "is a file, not a folder; give --checkpoint a folder",
            setup: |d| args(&["run", "pr", &graph(d, "g.sl"), "--checkpoint", &precious(d, "ck")]) },
        Case { name: "run: bc --sources all counts its sources on the result line", exit: 0,
            phrase: "\"source_ids\":\"1,024 of them, listed in --json\"",
            setup: |d| args(&["run", "bc", &graph(d, "g.sl"), "--sources", "all"]) },
    ]
}

/// A fixture of the table cases: `tests/fixtures/NAME`. The two Parquet files there were
/// written by pyarrow with `write_page_checksum=True` (the parquet crate writes no page
/// CRCs): columns `a` = 0, 1, 2, 3 and `b` = 1, 2, 3, 0; the damaged one has `a`'s 2
/// changed to 7, its page's CRC left as it was.
fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Writes `batch` to a Parquet file at `path`.
fn write_parquet(path: &Path, batch: &arrow_array::RecordBatch) {
    let file = std::fs::File::create(path).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
}

/// A Parquet file `name` in `dir` of int64 columns `a` (sources) and `b` (targets).
fn parquet_ids(dir: &Path, name: &str, sources: &[i64], targets: &[i64]) -> String {
    let column = |ids: &[i64]| -> arrow_array::ArrayRef {
        std::sync::Arc::new(arrow_array::Int64Array::from(ids.to_vec()))
    };
    let batch =
        arrow_array::RecordBatch::try_from_iter([("a", column(sources)), ("b", column(targets))])
            .unwrap();
    write_parquet(&dir.join(name), &batch);
    name.to_string()
}

#[test]
fn catalogue_of_hostile_inputs() {
    let cases = cases();
    let mut failures = Vec::new();
    for case in &cases {
        let dir = tempfile::tempdir().unwrap();
        let arguments = (case.setup)(dir.path());
        let before = snapshot(dir.path());
        let started = Instant::now();
        let output = Command::new(env!("CARGO_BIN_EXE_swapless"))
            .args(&arguments)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let mut problems = Vec::new();
        if output.status.code() != Some(case.exit) {
            problems.push(format!(
                "exit {:?}, expected {}",
                output.status.code(),
                case.exit
            ));
        }
        if stderr.contains("panicked") {
            problems.push("panicked".to_string());
        }
        let told = if case.exit == 0 {
            format!("{stdout}{stderr}")
        } else {
            stderr.clone()
        };
        if !told.contains(case.phrase) {
            problems.push(format!("no `{}`", case.phrase));
        }
        if case.exit != 0 {
            let lines = stderr.trim_end().lines().count();
            if !stderr.starts_with("error: ") || lines != 1 {
                problems.push(format!("not one error line ({lines})"));
            }
            if stderr.len() > 600 {
                problems.push(format!("a message of {} bytes", stderr.len()));
            }
        }
        let after = snapshot(dir.path());
        let temporaries: Vec<_> = after
            .iter()
            .filter(|(name, _)| name.starts_with('.'))
            .collect();
        if !temporaries.is_empty() {
            problems.push(format!("temporaries left: {temporaries:?}"));
        }
        // A failure leaves the folder as it found it; what a success writes, and
        // where, `output_paths_of_every_kind` checks.
        if case.exit != 0 && after != before {
            problems.push("a failed command changed or added a file".to_string());
        }
        if started.elapsed() > Duration::from_secs(60) {
            problems.push("took over a minute".to_string());
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{}: {}\n    stderr: {}",
                case.name,
                problems.join("; "),
                stderr.trim_end()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(
        cases.len() >= 80,
        "the catalogue holds {} cases",
        cases.len()
    );
}
