//! Importers: edge sources that read users' files.

mod compressed;
mod gap;
mod matrix_market;
mod swapless_file;
mod text;

pub use compressed::{InputReader, open_maybe_compressed};
pub use gap::GapSource;
pub use matrix_market::MatrixMarketSource;
pub use swapless_file::SwaplessFileSource;
pub use text::TextEdgeListSource;

pub use text::weight_from_number;

use std::io::BufRead;
use std::path::Path;

use crate::source::EdgeSource;
use crate::{BuildError, Result};

/// What the user asked of an import.
#[derive(Clone, Copy, Debug, Default)]
pub struct ImportOptions {
    /// Each input edge stands for both directions.
    pub undirected: bool,
    /// Keep the input's weights (the input must have them).
    pub weighted: bool,
}

/// The input formats swapless reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// `u v` or `u v w` per line.
    EdgeList,
    /// Matrix Market coordinate file.
    MatrixMarket,
    /// GAP's serialized unweighted graph.
    GapSerialized,
    /// GAP's serialized weighted graph.
    GapWeighted,
}

/// The path without a trailing `.gz` / `.zst`.
fn uncompressed_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name.strip_suffix(".gz")
        .or_else(|| name.strip_suffix(".zst"))
        .unwrap_or(&name)
        .to_string()
}

/// Opens `path` with the importer its name (and, for text, its first line) calls for.
pub fn open_input(path: &Path, options: ImportOptions) -> Result<Box<dyn EdgeSource>> {
    open_input_within(path, options, None)
}

/// Opens `path` as [`open_input`] does, for a build within `budget_bytes`: an importer
/// that holds data sized by the input's header refuses a header that would need more.
pub fn open_input_within(
    path: &Path,
    options: ImportOptions,
    budget_bytes: Option<u64>,
) -> Result<Box<dyn EdgeSource>> {
    let name = uncompressed_name(path);
    if name.ends_with(".wsg") {
        return Ok(Box::new(GapSource::open(
            path,
            true,
            options,
            budget_bytes,
        )?));
    }
    if name.ends_with(".sg") {
        return Ok(Box::new(GapSource::open(
            path,
            false,
            options,
            budget_bytes,
        )?));
    }
    if name.ends_with(".sl") {
        if !path.to_string_lossy().to_ascii_lowercase().ends_with(".sl") {
            return Err(BuildError::bad_input(
                path,
                "a .sl file is read as it is, not compressed; decompress it first",
            ));
        }
        return Ok(Box::new(SwaplessFileSource::open(path, options)?));
    }
    let mut reader = open_maybe_compressed(path)?;
    let start = reader
        .fill_buf()
        .map_err(|source| BuildError::io(path, source))?;
    if let Some(found) = compressed::compression_of(start) {
        return Err(BuildError::bad_input(
            path,
            format!(
                "this file holds {found}-compressed data, but its name does not say so; name it with {} at the end",
                if found == "gzip" { ".gz" } else { ".zst" }
            ),
        ));
    }
    if start.is_empty() {
        return Err(BuildError::bad_input(path, "the input is empty"));
    }
    let sample = &start[..start.len().min(4096)];
    if sample.contains(&0) {
        return Err(BuildError::bad_input(
            path,
            "this file holds binary data (zero bytes), not a text edge list or Matrix Market file; swapless reads .el/.txt/.csv text, .mtx, GAP .sg/.wsg and .sl files",
        ));
    }
    let starts_like_matrix_market = start.starts_with(b"%%MatrixMarket");
    if name.ends_with(".mtx") || starts_like_matrix_market {
        Ok(Box::new(MatrixMarketSource::new(path, reader, options)?))
    } else {
        Ok(Box::new(TextEdgeListSource::new(path, reader, options)))
    }
}
