//! How lists that have landed in memory reach a kernel: a read's lists in blocks, the
//! ids checked when the pages' checksums did not vouch for them.

use std::ops::Range;
use std::path::Path;

use swapless_format::FormatError;

use crate::lists::layout::ListLayout;
use crate::lists::read_plan::{Members, Read};
use crate::units::ENTRY_BYTES;
use crate::{Adjacency, ListBlock, Result, Visit, VisitBlock, for_each_block};

/// Calls `visit` with an empty list for each of `sorted` without edges: a gather
/// makes no read for them ([`crate::lists::read_plan::gather_reads`] leaves them out), yet
/// they get their call.
pub(crate) fn visit_edgeless(layout: &ListLayout, sorted: &[u32], weighted: bool, visit: &Visit) {
    sorted
        .iter()
        .filter(|&&vertex| layout.degree(vertex) == 0)
        .for_each(|&vertex| visit(vertex, Adjacency::empty(weighted)));
}

/// How a delivery makes sure that every id it hands a kernel is a vertex: a corrupt id
/// would index past a property array.
#[derive(Clone, Copy, Debug)]
pub(crate) enum IdCheck<'a> {
    /// The pages the lists come from have passed their page checks, which check the
    /// ids of a page once a run with its checksum.
    Passed,
    /// Checked at the delivery, against `vertices` (a version-1 file has no page
    /// checksums; a list joined from two reads, or one from the gather cache, is
    /// checked again rather than traced to its pages). Errors name `path`.
    AtDelivery { vertices: usize, path: &'a Path },
}

impl<'a> IdCheck<'a> {
    /// [`IdCheck::Passed`] if `pages_passed`, else a check at delivery.
    pub fn unless_passed(pages_passed: bool, vertices: usize, path: &'a Path) -> IdCheck<'a> {
        match pages_passed {
            true => IdCheck::Passed,
            false => IdCheck::AtDelivery { vertices, path },
        }
    }
}

/// Calls `visit_block` with the lists `read` holds wholly: blocks of a scan's span
/// (a split first list is left to the caller), one per vertex for a gather's picks.
/// `neighbors` and `weights` are the read's entries (from the first entry of its first
/// page); `ids` says whether their ids still need checking. Returns the list bytes
/// delivered.
pub(crate) fn visit_read(
    layout: &ListLayout,
    read: &Read,
    sorted: &[u32],
    neighbors: &[u32],
    weights: Option<&[f32]>,
    ids: IdCheck,
    visit_block: &VisitBlock,
) -> Result<u64> {
    let first_entry = read.bytes.start / ENTRY_BYTES;
    let deliver = |span: Range<u32>| {
        deliver_span(
            layout,
            span,
            first_entry,
            neighbors,
            weights,
            ids,
            visit_block,
        )
    };
    match &read.members {
        Members::Span(span) => {
            let whole = match read.whole_span() {
                Some(whole) if !whole.is_empty() => deliver(whole)?,
                _ => 0,
            };
            let Some(entries) = read.last_list_entries else {
                return Ok(whole);
            };
            // A long list cut short: its head, as a block of its own.
            let last = span.end - 1;
            let start = layout.list_bytes(last).start / ENTRY_BYTES;
            let head_offsets = [start, start + entries];
            let head = ListBlock::new(last, &head_offsets, first_entry, neighbors, weights);
            Ok(whole + check_and_visit(head, ids, visit_block)?)
        }
        // A gathered read's members may include vertices without edges between those it
        // was coalesced for: those are visited once, by `visit_edgeless`, not here.
        Members::Picked(positions) => sorted[positions.clone()]
            .iter()
            .filter(|&&vertex| layout.degree(vertex) > 0)
            .map(|&vertex| deliver(vertex..vertex + 1))
            .sum(),
    }
}

/// Hands the lists of `span` to `visit_block` in blocks, after checking their ids as
/// `ids` says. `neighbors` and `weights` hold the section's entries from position
/// `base` on. Returns the list bytes delivered (weights included).
pub(crate) fn deliver_span(
    layout: &ListLayout,
    span: Range<u32>,
    base: u64,
    neighbors: &[u32],
    weights: Option<&[f32]>,
    ids: IdCheck,
    visit_block: &VisitBlock,
) -> Result<u64> {
    let mut delivered = Ok(0);
    for_each_block(
        layout.offsets.as_slice(),
        span,
        base,
        neighbors,
        weights,
        |block| {
            // After a refused block, the rest of the span is not handed on.
            if let Ok(total) = delivered {
                delivered = check_and_visit(block, ids, visit_block).map(|bytes| total + bytes);
            }
        },
    );
    delivered
}

/// Hands `vertex`'s list, entries `entries` of the section, to `visit_block` as a block
/// of its own after checking its ids as `ids` says (a gather that already knows the
/// list's bounds). `neighbors` and `weights` hold the section's entries from position
/// `base` on. Returns the list bytes delivered (weights included).
pub(crate) fn deliver_list(
    vertex: u32,
    entries: Range<u64>,
    base: u64,
    neighbors: &[u32],
    weights: Option<&[f32]>,
    ids: IdCheck,
    visit_block: &VisitBlock,
) -> Result<u64> {
    let offsets = [entries.start, entries.end];
    let block = ListBlock::new(vertex, &offsets, base, neighbors, weights);
    check_and_visit(block, ids, visit_block)
}

/// Checks `block`'s ids as `ids` says, hands it to `visit_block`, and returns the list
/// bytes it held (weights included).
pub(crate) fn check_and_visit(
    block: ListBlock,
    ids: IdCheck,
    visit_block: &VisitBlock,
) -> Result<u64> {
    if let IdCheck::AtDelivery { vertices, path } = ids {
        check_ids(&block, vertices, path)?;
    }
    visit_block(block);
    let parts = if block.weights.is_some() { 2 } else { 1 };
    Ok(block.all_neighbors().len() as u64 * ENTRY_BYTES * parts)
}

/// Whether `ids` holds one that is not below `vertices`.
pub(crate) fn holds_id_beyond(ids: &[u32], vertices: usize) -> bool {
    let Ok(limit) = u32::try_from(vertices) else {
        return false; // Every u32 id is below.
    };
    // Without an early exit, so the loop compiles to vector compares: with `all()` the
    // check at every delivery took 7-10% of a streamed PageRank's time, and a fold to
    // the largest id 2.5x the time of this one on baseline x86-64, which has no vector
    // unsigned max.
    ids.iter().fold(false, |beyond, &id| beyond | (id >= limit))
}

/// Refuses a block holding an id beyond `vertices`, naming the first vertex whose list has one.
fn check_ids(block: &ListBlock, vertices: usize, path: &Path) -> Result<()> {
    if !holds_id_beyond(block.all_neighbors(), vertices) {
        return Ok(());
    }
    let vertex = block
        .iter()
        .find(|(_, list)| list.neighbors.iter().any(|&id| id as usize >= vertices))
        .map_or(block.vertices().start, |(vertex, _)| vertex);
    Err(FormatError::Corrupt {
        path: path.to_path_buf(),
        detail: format!("the list of vertex {vertex} holds an id beyond the vertices"),
    }
    .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_ids_names_the_vertex_whose_list_runs_past_the_vertices() {
        let offsets = [0, 2, 3, 5];
        let neighbors = [1, 2, 0, 3, 1];
        let path = Path::new("g.sl");
        let block = ListBlock::new(7, &offsets, 0, &neighbors, None);
        assert!(check_ids(&block, 4, path).is_ok());
        let error = check_ids(&block, 3, path).unwrap_err().to_string();
        assert!(error.contains("vertex 9 holds an id"), "{error}");
    }
}
