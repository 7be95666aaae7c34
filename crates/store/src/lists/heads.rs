//! The `out_heads` section: each vertex's first [`HEAD_ENTRIES`] out-neighbors at a
//! fixed width (the vertex's own id pads a shorter list). A partial scan that needs only
//! the heads of the lists ([`ListsNeeded::Heads`], cc's first links) reads it on a disk
//! tier instead of the lists: 8 bytes a vertex where a dense graph's lists take many
//! times that (and short lists share pages, so cutting them short saves little).
//!
//! The tiers read the section with their list machinery, as lists of
//! [`HEAD_ENTRIES`] entries each ([`Offsets::Fixed`]), and cut each to its true length
//! from the out-lists' offsets before a kernel sees it ([`visit_heads`]).

use swapless_format::{GraphFile, HEAD_ENTRIES, SectionKind};

use crate::lists::layout::ListLayout;
use crate::lists::page_checks::ListChecks;
use crate::{EdgeDirection, ListBlock, ListsNeeded, OffsetSlice, Offsets, Result, VisitBlock};

/// The heads section laid out as lists of [`HEAD_ENTRIES`] entries, for a tier's reads,
/// with the checks of its pages; `None` unless the run reads the heads (`read`: the plan
/// says so, and so the file has them).
pub(crate) fn open_heads(
    graph: &GraphFile,
    read: bool,
) -> Result<Option<(ListLayout, ListChecks)>> {
    let Some(entry) = graph.header().section(SectionKind::OutHeads) else {
        return Ok(None);
    };
    if !read {
        return Ok(None);
    }
    let layout = ListLayout {
        offsets: Offsets::Fixed {
            width: HEAD_ENTRIES,
            count: graph.num_vertices() + 1,
        },
        neighbors_at: entry.offset,
        weights_at: None,
        compressed: None,
    };
    Ok(Some((layout, ListChecks::heads(graph)?)))
}

/// Whether the heads section can serve a scan of `direction` that needs `needed` of each
/// list: a partial scan of heads no longer than it holds, of the out-lists (on an
/// undirected graph the out-lists are the in-lists too).
pub(crate) fn heads_serve(
    needed: Option<ListsNeeded<'_>>,
    direction: EdgeDirection,
    directed: bool,
) -> bool {
    let only_heads = matches!(needed, Some(ListsNeeded::Heads(entries)) if entries <= HEAD_ENTRIES);
    only_heads && (direction == EdgeDirection::Out || !directed)
}

/// Vertices cut at once: their offsets and heads stay on the stack.
const CUT_VERTICES: usize = 512;

/// Calls `visit_block` with the lists of `block`, a block of heads (each
/// [`HEAD_ENTRIES`] entries, padded), each cut to its list's length: its degree in
/// `offsets`, the out-lists' offsets. The kernel then sees what a scan of the lists would
/// hand a head pass: each list whole or cut short to its head.
pub(crate) fn visit_heads(
    block: ListBlock<'_>,
    offsets: OffsetSlice<'_>,
    visit_block: &VisitBlock,
) {
    let width = HEAD_ENTRIES as usize;
    let vertices = block.vertices();
    let heads = block.all_neighbors();
    let mut start = vertices.start;
    while start < vertices.end {
        let end = vertices.end.min(start + CUT_VERTICES as u32);
        let count = (end - start) as usize;
        let mut cut_offsets = [0u64; CUT_VERTICES + 1];
        let mut cut_heads = [0u32; CUT_VERTICES * HEAD_ENTRIES as usize];
        let first_head = (start - vertices.start) as usize * width;
        offsets
            .vertices(start as usize..end as usize)
            .widened(|list_offsets| {
                let mut entries = 0;
                for index in 0..count {
                    let degree = (list_offsets[index + 1] - list_offsets[index]) as usize;
                    let kept = degree.min(width);
                    let head = first_head + index * width;
                    cut_heads[entries..entries + kept].copy_from_slice(&heads[head..head + kept]);
                    entries += kept;
                    cut_offsets[index + 1] = entries as u64;
                }
            });
        let entries = cut_offsets[count] as usize;
        visit_block(ListBlock::new(
            start,
            &cut_offsets[..count + 1],
            0,
            &cut_heads[..entries],
            None,
        ));
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn heads_are_cut_to_each_lists_length() {
        // Vertices 3..7 with degrees 0, 1, 2 and 5; heads padded with the vertex's id.
        let out_offsets = Offsets::Wide(vec![0, 0, 0, 0, 0, 1, 3, 8]);
        let heads = [3, 3, 9, 4, 1, 2, 0, 5];
        let head_offsets = [6, 8, 10, 12, 14];
        let block = ListBlock::new(3, &head_offsets, 6, &heads, None);
        let seen = Mutex::new(Vec::new());
        visit_heads(block, out_offsets.as_slice(), &|block| {
            for (vertex, list) in block.iter() {
                seen.lock().unwrap().push((vertex, list.neighbors.to_vec()));
            }
        });
        assert_eq!(
            seen.into_inner().unwrap(),
            vec![(3, vec![]), (4, vec![9]), (5, vec![1, 2]), (6, vec![0, 5])]
        );
    }

    #[test]
    fn only_head_passes_of_out_lists_are_served() {
        let all_but = |_: u32| false;
        assert!(heads_serve(
            Some(ListsNeeded::Heads(2)),
            EdgeDirection::Out,
            true
        ));
        assert!(heads_serve(
            Some(ListsNeeded::Heads(1)),
            EdgeDirection::In,
            false
        ));
        assert!(!heads_serve(
            Some(ListsNeeded::Heads(2)),
            EdgeDirection::In,
            true
        ));
        assert!(!heads_serve(
            Some(ListsNeeded::Heads(3)),
            EdgeDirection::Out,
            true
        ));
        assert!(!heads_serve(
            Some(ListsNeeded::AllBut(&all_but)),
            EdgeDirection::Out,
            false
        ));
        assert!(!heads_serve(None, EdgeDirection::Out, false));
    }
}
