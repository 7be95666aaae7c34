//! Synthetic graphs with GAP's definitions: Kronecker (Graph500 RMAT), uniform
//! random, and a 2-D grid with a few shortcuts (our stand-in for road networks).
//! Every generator streams its edges and is reproducible bit for bit from `--seed`.

mod grid;
mod random;
mod synthetic;

pub use grid::GridSource;
pub use random::{IdPermutation, Rng};
pub use synthetic::{SyntheticKind, SyntheticSource};

/// Seed used when the user gives none (GAP's generator also uses a fixed seed).
pub const DEFAULT_SEED: u64 = 27491095;

/// Writes a Kronecker graph of `2^scale` vertices and `degree × 2^scale` edges to
/// `output` (undirected, built within 64 MiB): the small graphs tests and examples use.
pub fn write_kronecker(
    output: &std::path::Path,
    scale: u32,
    degree: u32,
    weighted: bool,
    seed: u64,
) -> crate::Result<crate::BuildReport> {
    let mut source = SyntheticSource::new(SyntheticKind::Kronecker, scale, degree, weighted, seed)?;
    crate::build_graph(
        &mut source,
        output,
        &crate::BuildOptions::with_memory(64 << 20),
    )
}
