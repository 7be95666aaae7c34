//! One direction's lists as the pipeline holds them: where they live on disk, the
//! prefix held in memory for the whole run (after degree-based reordering, the hottest
//! lists), and the checks on every page read.

use std::ops::Range;

use swapless_format::{GraphFile, SectionKind};

use crate::aligned::AlignedBuffer;
use crate::lists::layout::ListLayout;
use crate::lists::page_checks::ListChecks;
use crate::sources::PageSource;
use crate::units::PAGE;
use crate::{Adjacency, Result, VisitBlock, for_each_block};

/// Bytes of a pinned prefix read at a time at open.
const PINNED_READ_BYTES: u64 = 1 << 20;

/// One direction's lists: the layout and the prefix held in memory.
pub(crate) struct Lists {
    pub(crate) layout: ListLayout,
    /// Vertices `0..pinned_vertices` have their lists in `pinned_neighbors`.
    pub(crate) pinned_vertices: u32,
    pub(crate) pinned_neighbors: AlignedBuffer,
    pub(crate) pinned_weights: Option<AlignedBuffer>,
    /// Checks each page read from the file before its lists are delivered.
    pub(crate) checks: ListChecks,
}

impl Lists {
    /// The pinned prefix's entries (neighbors, and weights on a weighted graph).
    pub(crate) fn pinned_entries(&self) -> (&[u32], Option<&[f32]>) {
        (
            bytemuck::cast_slice(self.pinned_neighbors.as_slice()),
            self.pinned_weights
                .as_ref()
                .map(|weights| bytemuck::cast_slice(weights.as_slice())),
        )
    }

    pub(crate) fn pinned(&self, vertex: u32) -> Adjacency<'_> {
        let bounds = self.layout.offsets.as_slice().bounds(vertex as usize);
        let entries = bounds.start as usize..bounds.end as usize;
        let (neighbors, weights) = self.pinned_entries();
        Adjacency {
            neighbors: &neighbors[entries.clone()],
            weights: weights.map(|weights| &weights[entries]),
        }
    }

    /// Visits the pinned lists of `vertices` (all below `pinned_vertices`) in blocks.
    pub(crate) fn visit_pinned_block(&self, vertices: Range<u32>, visit_block: &VisitBlock) {
        let (neighbors, weights) = self.pinned_entries();
        for_each_block(
            self.layout.offsets.as_slice(),
            vertices,
            0,
            neighbors,
            weights,
            visit_block,
        )
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.layout.offsets.bytes()
            + self.pinned_neighbors.len() as u64
            + self.pinned_weights.as_ref().map_or(0, |w| w.len() as u64)
    }
}

/// Reads the first `bytes` of section `kind` (rounded up to pages) into memory,
/// verifying every checksum block it holds whole.
pub(crate) fn read_pinned(
    graph: &GraphFile,
    source: &dyn PageSource,
    kind: SectionKind,
    bytes: u64,
) -> Result<AlignedBuffer> {
    let entry = graph.required_section(kind)?;
    let mut buffer = AlignedBuffer::zeroed(bytes)?;
    if bytes == 0 {
        return Ok(buffer);
    }
    let readable = buffer
        .len()
        .min(entry.length.div_ceil(PAGE) as usize * PAGE as usize);
    // Read in 1 MiB pieces, a whole number of checksum blocks in either format version.
    for (index, piece) in buffer.as_mut_slice()[..readable]
        .chunks_mut(PINNED_READ_BYTES as usize)
        .enumerate()
    {
        let start = index as u64 * PINNED_READ_BYTES;
        let needed = (entry.length - start).min(piece.len() as u64) as usize;
        source.read_now(piece, entry.offset + start, needed)?;
        // The prefix may end inside a block (a 1 MiB block of a version-1 file), which
        // cannot be checked; the last block of the section ends where the section does.
        let block_bytes = graph.checksum_block_bytes();
        let checkable = match start + needed as u64 == entry.length {
            true => needed,
            false => (needed as u64 / block_bytes * block_bytes) as usize,
        };
        if let Err(damaged) = graph.verify_blocks(kind, start, &piece[..checkable]) {
            // A source with a second copy (a far graph's fallback file) serves a piece its
            // first copy holds damaged, checked as the first was.
            if !source.read_second_copy(piece, entry.offset + start, needed)? {
                return Err(damaged.into());
            }
            graph.verify_blocks(kind, start, &piece[..checkable])?;
        }
    }
    Ok(buffer)
}
