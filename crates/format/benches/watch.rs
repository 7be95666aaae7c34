//! `cargo bench -p swapless-format --bench watch`: what one check that a graph file has
//! not changed costs (a run makes one after each pass, at most ten a second, and one
//! before its result).

use std::time::Instant;

fn main() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("g.sl");
    std::fs::write(&path, vec![0u8; 1 << 20]).expect("a file to watch");
    let watch = swapless_format::FileWatch::open(&path).expect("the file opens");
    let checks = 200_000;
    let mut medians = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        for _ in 0..checks {
            watch.unchanged().expect("unchanged");
        }
        medians.push(started.elapsed().as_nanos() as f64 / checks as f64);
    }
    medians.sort_by(f64::total_cmp);
    println!(
        "FileWatch::unchanged: median {:.0} ns a check over 5 rounds of {checks} (rounds {:.0}..{:.0} ns)",
        medians[2], medians[0], medians[4]
    );
}
