//! The `.sl` graph file: one little-endian file whose sections (CSR offsets,
//! neighbors, optional weights, in-edges, permutation, the heads of the out-lists, the
//! input's vertex ids, checksums) are each
//! aligned to 4 KiB so that both `mmap` and `O_DIRECT` reads work on it.
//!
//! This crate owns the bytes on disk: nothing else in swapless parses a header.

#[cfg(target_endian = "big")]
compile_error!(
    "the .sl format is little-endian and swapless reads it in place; big-endian targets are not supported"
);

mod check;
pub mod compressed_lists;
mod error;
mod header;
#[doc(hidden)]
pub mod list_codec;
mod list_sample;
mod list_scan;
mod lists;
mod mapped_bound;
pub mod output;
mod reader;
mod transcode;
mod vertex_ids;
mod watch;
mod writer;

pub use check::{CheckReport, check_file};
pub use error::FormatError;
pub use header::{
    CHECKSUM_BLOCK_BYTES, FORMAT_VERSION, GraphCounts, GraphFlags, HEAD_ENTRIES, Header, IdKind,
    PLAIN_LISTS_VERSION, SECTION_ALIGN, SectionEntry, SectionKind, VERSION_1_CHECKSUM_BLOCK_BYTES,
};
pub use list_scan::ListScan;
pub use lists::ListOf;
pub use reader::{GraphFile, SECTION_PIECE_BYTES};
pub use transcode::{ListForm, transcode};
pub use vertex_ids::VertexIds;
pub use watch::FileWatch;
pub use writer::{GraphWriter, SectionWriter};

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, FormatError>;

/// Rounds `bytes` up to the next multiple of [`SECTION_ALIGN`].
pub fn align_up(bytes: u64) -> u64 {
    bytes.div_ceil(SECTION_ALIGN) * SECTION_ALIGN
}
