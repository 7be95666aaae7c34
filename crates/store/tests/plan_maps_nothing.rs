//! The plan's look at a graph's lists (how banded they are) reads with `pread`, never
//! through the file's map: a page a map's fault brings in counts in the process's
//! resident set, and on kernels that cache files in large folios one fault maps hundreds
//! of KiB, so a sample spread over a large file once held most of it in a run's budget.

// Only the graph builder of the shared set-up is used here.
#[allow(dead_code)]
mod common;

use std::path::Path;

use swapless_format::{GraphFile, ListForm, SectionKind};
use swapless_store::budget::band_share;

/// KiB of `path`'s mappings resident in this process, from `/proc/self/smaps`.
fn mapped_kib(path: &Path) -> u64 {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let name = path.to_str().unwrap();
    let mut inside = false;
    let mut kib = 0;
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if first.contains('-') && !first.ends_with(':') {
            inside = line.ends_with(name);
        } else if inside && first == "Rss:" {
            kib += line
                .split_whitespace()
                .nth(1)
                .unwrap()
                .parse::<u64>()
                .unwrap();
        }
    }
    kib
}

#[test]
fn the_band_sample_maps_no_page_of_the_lists() {
    let dir = tempfile::tempdir().unwrap();
    let plain = common::kron_graph(dir.path(), 14, false);
    let compressed = dir.path().join("compressed.sl");
    let graph = GraphFile::open(&plain).unwrap();
    swapless_format::transcode(&graph, &compressed, ListForm::Compressed, &mut |_| true).unwrap();
    drop(graph);
    for path in [&plain, &compressed] {
        let graph = GraphFile::open(path).unwrap();
        let before = mapped_kib(path);
        let share = band_share(&graph, SectionKind::OutNeighbors).unwrap();
        assert!(share.is_some_and(|share| share < 0.5), "{share:?}");
        assert_eq!(mapped_kib(path), before, "{}", path.display());
    }
}
