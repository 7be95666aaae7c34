//! Writes the raw edges of a Kronecker graph as a text edge list (`u v` per line,
//! duplicates and self-loops included, as a crawl or dump would have them): the
//! input for benchmarking `swapless build` on text.
//!
//! `cargo run --release -p swapless-build --example kron_edge_list -- SCALE DEGREE OUT.el`

use std::io::{BufWriter, Write};

use swapless_build::EdgeSource;
use swapless_build::generators::{DEFAULT_SEED, SyntheticKind, SyntheticSource};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        return Err("usage: kron_edge_list SCALE DEGREE OUT.el".into());
    }
    let scale: u32 = args[1].parse()?;
    let degree: u32 = args[2].parse()?;
    let mut source =
        SyntheticSource::new(SyntheticKind::Kronecker, scale, degree, false, DEFAULT_SEED)?;
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(&args[3])?);
    writeln!(
        out,
        "# kron scale {scale} degree {degree}, raw generator output"
    )?;
    let mut batch = Vec::new();
    while source.next_batch(&mut batch)? {
        for edge in &batch {
            writeln!(out, "{} {}", edge.source, edge.destination)?;
        }
    }
    out.flush()?;
    Ok(())
}
