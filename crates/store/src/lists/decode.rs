//! How compressed lists that have landed in memory reach a kernel: decoded into a
//! thread's buffers, a block of lists at a time, their ids checked at delivery (a
//! page's checksum vouches for its bytes, not for the ids they decode to).

use std::ops::Range;
use std::path::Path;

use swapless_format::FormatError;
use swapless_format::compressed_lists::decode_list_at;

use crate::lists::delivery::{IdCheck, check_and_visit};
use crate::lists::layout::ListLayout;
use crate::lists::read_plan::{Members, Read};
use crate::{BLOCK_VERTICES, ListBlock, ListsNeeded, Result, VisitBlock};

/// Entries a thread decodes before it hands the block over (a longer list is decoded
/// whole, alone): the plan counts this much beside the longest list, per thread.
pub(crate) const DECODED_BLOCK_ENTRIES: u64 = 16 << 10;

/// Bytes a thread holds to decode lists: a block, or the longest list alone, with its
/// weights when the run reads them, and the block's bounds.
pub(crate) fn decode_buffer_bytes(longest_degree: u64, weighted: bool) -> u64 {
    let entry_bytes = if weighted { 8 } else { 4 };
    DECODED_BLOCK_ENTRIES.max(longest_degree) * entry_bytes + (u64::from(BLOCK_VERTICES) + 1) * 8
}

/// One thread's decoded lists: ids, weights, and where each list ends.
#[derive(Default)]
struct Decoded {
    /// The block's ids in `ids[..filled]`; the buffer stays at its longest, so that a
    /// list is decoded straight over what the last block left rather than into entries
    /// filled first.
    ids: Vec<u32>,
    filled: usize,
    weights: Vec<f32>,
    ends: Vec<u64>,
}

impl Decoded {
    /// Empties the buffers for the next block, whose first list starts at entry 0.
    fn reset(&mut self) {
        self.filled = 0;
        self.weights.clear();
        self.ends.clear();
        self.ends.push(0);
    }
}

thread_local! {
    /// Kept between deliveries so decoding allocates once a thread. Taken out while in
    /// use, so a delivery nested in a kernel's callback makes its own.
    static DECODED: std::cell::Cell<Option<Box<Decoded>>> = const { std::cell::Cell::new(None) };
}

fn with_decoded<R>(work: impl FnOnce(&mut Decoded) -> R) -> R {
    let mut decoded = DECODED.take().unwrap_or_default();
    let result = work(&mut decoded);
    DECODED.set(Some(decoded));
    result
}

/// Where decoded lists are delivered from: their pages, and what their ids must be below.
#[derive(Clone, Copy)]
pub(crate) struct Landed<'a> {
    /// The section's bytes from `bytes_at` (a page boundary) on.
    pub bytes: &'a [u8],
    pub bytes_at: u64,
    /// The graph's vertices, which every id must be below.
    pub vertices: usize,
    /// The graph's file, for errors.
    pub path: &'a Path,
}

/// Decodes the lists of `span` from `landed` and hands them to `visit_block` in blocks;
/// the last list only up to its first `last_entries` when given (a long list a head pass
/// cut short). A partial scan's `needed` spares the decoding of what it does not need:
/// lists it skips come empty, and lists it needs the heads of come cut to them. Returns
/// the list bytes delivered (as plain entries, weights included).
pub(crate) fn deliver_decoded(
    layout: &ListLayout,
    span: Range<u32>,
    landed: Landed,
    last_entries: Option<u64>,
    needed: Option<ListsNeeded>,
    visit_block: &VisitBlock,
) -> Result<u64> {
    let Landed {
        bytes,
        bytes_at,
        vertices,
        path,
    } = landed;
    let id_check = IdCheck::AtDelivery { vertices, path };
    // Plain lists reach kernels through `delivery`; a plain layout here has no pages
    // that hold its lists as chunks.
    let Some(compressed) = &layout.compressed else {
        return Err(outside_read(path, span.start));
    };
    let weighted = compressed.weights;
    with_decoded(|decoded| {
        let mut delivered = 0;
        let mut first = span.start;
        decoded.reset();
        // Degrees and positions a block of vertices at a time: a lookup a vertex in
        // Elias-Fano offsets would cost a select each.
        let mut block_start = span.start;
        while block_start < span.end {
            let block_end = span.end.min(block_start + BLOCK_VERTICES);
            let vertices = block_start as usize..block_end as usize;
            let offsets = layout.offsets.as_slice().vertices(vertices.clone());
            let positions = compressed.positions.as_slice().vertices(vertices);
            offsets.widened(|offsets| {
                positions.widened(|positions| -> Result<()> {
                    for (index, vertex) in (block_start..block_end).enumerate() {
                        let degree = offsets[index + 1] - offsets[index];
                        let wanted = match needed {
                            Some(ListsNeeded::Heads(head)) => head.min(degree),
                            Some(ListsNeeded::AllBut(unneeded)) if unneeded(vertex) => 0,
                            _ => degree,
                        };
                        let entries = match last_entries {
                            Some(entries) if vertex + 1 == span.end => entries.min(wanted),
                            _ => wanted,
                        };
                        if entries > 0 {
                            let at = positions[index]
                                .checked_sub(bytes_at)
                                .filter(|&at| at < bytes.len() as u64)
                                .ok_or_else(|| outside_read(path, vertex))?;
                            decoded.filled += decode_list_at(
                                compressed.coding,
                                bytes,
                                at as usize,
                                vertex,
                                degree,
                                entries,
                                &mut decoded.ids,
                                decoded.filled,
                                weighted.then_some(&mut decoded.weights),
                            )
                            .map_err(|error| FormatError::Corrupt {
                                path: path.to_path_buf(),
                                detail: format!(
                                    "a page of compressed lists does not decode: {error}"
                                ),
                            })?;
                        }
                        decoded.ends.push(decoded.filled as u64);
                        let full = decoded.filled as u64 >= DECODED_BLOCK_ENTRIES
                            || decoded.ends.len() > BLOCK_VERTICES as usize;
                        if full || vertex + 1 == span.end {
                            delivered +=
                                hand_over(decoded, first, weighted, id_check, visit_block)?;
                            first = vertex + 1;
                        }
                    }
                    Ok(())
                })
            })?;
            block_start = block_end;
        }
        Ok(delivered)
    })
}

/// Hands the decoded lists of `first..` to `visit_block` as one block, checking their ids,
/// and empties the buffers for the next.
fn hand_over(
    decoded: &mut Decoded,
    first: u32,
    weighted: bool,
    id_check: IdCheck,
    visit_block: &VisitBlock,
) -> Result<u64> {
    let block = ListBlock::new(
        first,
        &decoded.ends,
        0,
        &decoded.ids[..decoded.filled],
        weighted.then_some(&decoded.weights[..]),
    );
    let delivered = check_and_visit(block, id_check, visit_block);
    decoded.reset();
    delivered
}

fn outside_read(path: &Path, vertex: u32) -> crate::StoreError {
    FormatError::Corrupt {
        path: path.to_path_buf(),
        detail: format!("vertex {vertex}'s compressed list lies outside the pages read for it"),
    }
    .into()
}

/// [`crate::lists::delivery::visit_read`] for compressed lists: decodes what `read`
/// holds from `landed` (its pages) and hands it to `visit_block`, a scan's span in blocks
/// (its last list cut short in a head pass), a gather's picks one by one. Returns the
/// list bytes delivered.
pub(crate) fn visit_read_decoded(
    layout: &ListLayout,
    read: &Read,
    sorted: &[u32],
    landed: Landed,
    needed: Option<ListsNeeded>,
    visit_block: &VisitBlock,
) -> Result<u64> {
    match &read.members {
        // Compressed lists are never split between reads.
        Members::Span(span) => deliver_decoded(
            layout,
            span.clone(),
            landed,
            read.last_list_entries,
            needed,
            visit_block,
        ),
        // Vertices without edges among the picks are visited by `visit_edgeless`.
        Members::Picked(positions) => sorted[positions.clone()]
            .iter()
            .filter(|&&vertex| layout.degree(vertex) > 0)
            .map(|&vertex| {
                deliver_decoded(layout, vertex..vertex + 1, landed, None, None, visit_block)
            })
            .sum(),
    }
}
