//! The first pages a user reads stay short: README.md is what swapless is, how to set it
//! up and a page of examples (the long usage lives in `docs/`), and BENCHMARKS.md holds
//! each goal's current figure (history lives in git).

use std::path::{Path, PathBuf};

/// README.md's ceiling, in bytes.
const README_MOST_BYTES: u64 = 12 * 1024;
/// BENCHMARKS.md's ceiling, in lines.
const BENCHMARKS_MOST_LINES: usize = 300;

fn repository_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(name)
}

#[test]
fn the_readme_stays_within_12_kib() {
    let path = repository_file("README.md");
    let bytes = std::fs::metadata(&path).unwrap().len();
    assert!(
        bytes <= README_MOST_BYTES,
        "README.md is {bytes} bytes, more than {README_MOST_BYTES}: move long usage into docs/"
    );
}

#[test]
fn the_benchmarks_stay_within_300_lines() {
    let path = repository_file("BENCHMARKS.md");
    let lines = std::fs::read_to_string(&path).unwrap().lines().count();
    assert!(
        lines <= BENCHMARKS_MOST_LINES,
        "BENCHMARKS.md has {lines} lines, more than {BENCHMARKS_MOST_LINES}: keep each goal's \
         current figure and its command, and leave earlier figures to git"
    );
}
