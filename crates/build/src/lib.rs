//! Building `.sl` graph files: importers (text edge lists, CSV/TSV and Parquet tables,
//! Matrix Market, GAP `.sg`/`.wsg`, `.sl` files, optionally `.gz`/`.zst` compressed),
//! generators (Kronecker, uniform random, grid), any vertex ids (integers or names,
//! compacted to `0..n`), degree-based reordering, and the out-of-core builder that
//! turns any of them into a `.sl` file within a memory budget, resumable after a kill.

pub mod arrays;
mod builder;
mod collector;
mod csr;
mod error;
pub mod generators;
pub mod ids;
pub mod importers;
mod input_record;
mod journal;
mod record;
mod reorder;
mod replay;
mod report;
mod run_file;
mod runs;
mod source;
pub mod stale;

pub use builder::{BuildOptions, BuildProgress, OutHeads, RESERVED_BYTES, SelfLoops, build_graph};
pub use error::BuildError;
pub use reorder::{Reorder, degree_based_grouping, invert_permutation};
pub use report::BuildReport;
pub use source::{Direction, EdgeSource, InputEdge, MAX_VERTEX_ID};

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, BuildError>;
