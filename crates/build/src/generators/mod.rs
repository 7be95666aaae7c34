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
