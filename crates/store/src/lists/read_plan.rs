//! How the disk tiers cut a scan or a gather into reads: page-aligned, coalesced,
//! long lists alone or split, the pages of unneeded lists skipped.

use std::ops::Range;

use rayon::prelude::*;

use crate::ListsNeeded;
use crate::lists::layout::ListLayout;
use crate::units::{ENTRY_BYTES, PAGE, SPLIT_PIECE_BYTES};

/// The vertices one read delivers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Members {
    /// A contiguous id range (scans).
    Span(Range<u32>),
    /// Positions in the gather's sorted vertex list.
    Picked(Range<usize>),
}

/// One read: whole pages of a section that hold every list of its members, except
/// perhaps the first list's head and, in a head pass, the tail of the last list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Read {
    /// Which vertices' lists the read holds.
    pub members: Members,
    /// Page-aligned byte range within the section (empty when nothing is read: lists
    /// without edges, or a list a partial scan cuts to nothing, at its start).
    pub bytes: Range<u64>,
    /// Bytes of the first member's list that lie before `bytes`, in the last page of the
    /// read before it (a scan's split list, see [`scan_reads`]); 0 when the list is whole.
    pub head_bytes: u64,
    /// In a head pass ([`HeadPass`]), the entries the read holds of its last member's
    /// list when that is a long list cut short; `None` when the last list is whole.
    pub last_list_entries: Option<u64>,
}

impl Read {
    /// The members whose lists lie wholly inside the read: all but a split first list
    /// and a long last list cut short.
    pub fn whole_span(&self) -> Option<Range<u32>> {
        match &self.members {
            Members::Span(span) => Some(
                span.start + (self.head_bytes > 0) as u32
                    ..span.end - self.last_list_entries.is_some() as u32,
            ),
            Members::Picked(_) => None,
        }
    }
}

/// The whole pages that hold `bytes`.
pub(crate) fn page_range(bytes: Range<u64>) -> Range<u64> {
    bytes.start / PAGE * PAGE..bytes.end.div_ceil(PAGE) * PAGE
}

/// Reads per batch: scans and gathers are cut into batches of at most this many
/// reads, so their bookkeeping (about 64 bytes a read) stays small whatever the chunk
/// size (a whole scan at 4 KiB chunks would otherwise hold megabytes the plan does not count).
pub(crate) const READS_PER_BATCH: usize = 16 << 10;

/// A pass that needs only the first `entries` of some lists (none of an unneeded
/// list): which lists it cuts short.
#[derive(Clone, Debug)]
pub(crate) struct HeadPass {
    /// Entries of each cut list the pass needs (0: an unneeded list, skipped whole).
    pub entries: u64,
    /// The lists read only up to their heads, ascending (from [`long_lists`]).
    pub long: Vec<u32>,
}

impl HeadPass {
    /// A pass over `range` that needs what `needed` says, cutting short the lists that
    /// run more than [`ListsNeeded::gap_pages`] past their first entries (heads), or past
    /// their first page (unneeded lists, skipped).
    pub fn new(layout: &ListLayout, range: Range<u32>, needed: ListsNeeded) -> HeadPass {
        let (entries, cut): (u64, &(dyn Fn(u32) -> bool + Sync)) = match needed {
            ListsNeeded::Heads(entries) => (entries, &|_| true),
            ListsNeeded::AllBut(unneeded) => (0, unneeded),
        };
        HeadPass {
            entries,
            long: long_lists(layout, range, entries, needed.gap_pages(), cut),
        }
    }
}

/// A scan of `range` as batches of at most [`READS_PER_BATCH`] reads, in file order
/// (with lists split between reads when `split_lists`, and, in a partial scan that
/// needs only part of the lists, long lists cut short; see [`scan_reads`]).
pub(crate) fn scan_batches<'a>(
    layout: &'a ListLayout,
    range: Range<u32>,
    chunk_bytes: u64,
    split_lists: bool,
    needed: Option<ListsNeeded>,
) -> impl Iterator<Item = Vec<Read>> + use<'a> {
    let heads = needed.map(|needed| HeadPass::new(layout, range.clone(), needed));
    let mut first = range.start;
    std::iter::from_fn(move || {
        if first >= range.end {
            return None;
        }
        let reads = scan_reads(
            layout,
            first..range.end,
            chunk_bytes,
            READS_PER_BATCH,
            split_lists,
            heads.as_ref(),
        );
        first = match reads.last().map(|read| &read.members) {
            Some(Members::Span(span)) => span.end,
            _ => range.end,
        };
        Some(reads)
    })
}

/// Cuts a scan of `range` into reads of about `chunk_bytes` that end on list
/// boundaries, stopping after `max_reads`. A single list longer than a chunk gets a
/// read of its own. A span of vertices without edges gets an empty read, which needs no
/// I/O but still visits them.
///
/// Reads are whole pages, and a page usually holds the end of one list and the start
/// of the next. Without `split_lists` both reads take that page, so a scan reads it
/// twice (a little more at 256 KiB chunks, nearly twice the lists at 4 KiB). With it, the
/// next read starts on the following page and the list across the boundary is split:
/// its head comes from this read's last page ([`Read::head_bytes`]) and the reader
/// joins the two. Only a list whose two sides each fit in a page is split; when the
/// list across the natural boundary is longer, the read ends earlier (by up to
/// half a chunk) where one is short, and shares the page as before only if none is.
///
/// In a head pass (`heads`), a long list within a read's reach ends the read after its
/// first `entries` ([`Read::last_list_entries`]) and the next read starts with the list
/// after it: the pages of the long list's tail are never read. A list cut to no entries
/// that a read would begin with gets an empty read (no I/O; it is visited empty).
pub(crate) fn scan_reads(
    layout: &ListLayout,
    range: Range<u32>,
    chunk_bytes: u64,
    max_reads: usize,
    split_lists: bool,
    heads: Option<&HeadPass>,
) -> Vec<Read> {
    let mut reads = Vec::new();
    let mut first = range.start;
    let mut head_bytes = 0;
    while first < range.end && reads.len() < max_reads {
        let list = layout.list_bytes(first);
        let list_start = list.start;
        // The last vertex whose list ends within a chunk of `list_start`, at least one vertex.
        let limit = layout.vertices_within(list_start + chunk_bytes);
        let alone = limit <= first;
        let mut end = limit.clamp(first + 1, range.end);
        let start = match head_bytes {
            0 => list_start / PAGE * PAGE,
            _ => list_start + head_bytes,
        };
        // The first long list from `first` on, if the read reaches it (not a split
        // first list, whose start the read before holds).
        let whole_from = first + (head_bytes > 0) as u32;
        let long = heads.and_then(|heads| {
            let next = *heads
                .long
                .get(heads.long.partition_point(|&vertex| vertex < whole_from))?;
            (next <= end && next < range.end).then_some((next, heads.entries))
        });
        let mut before_long = false;
        if let Some((long, entries)) = long {
            let cut = layout.list_bytes(long);
            let held = u64::from(layout.degree(long)).min(entries);
            let head = layout.head_bytes(long, held);
            // A head of more than a page is read alone, so the read fits where the whole
            // list would (a slot, or the oversize region sized for the longest list).
            if first == long || head.end - head.start <= PAGE {
                // A list cut to nothing that the read begins with: no I/O, and bytes
                // that start at the list, where its (empty) head is looked for.
                let bytes = match held == 0 && first == long {
                    true => cut.start..cut.start,
                    false => start..head.end.div_ceil(PAGE) * PAGE,
                };
                reads.push(Read {
                    members: Members::Span(first..long + 1),
                    bytes,
                    head_bytes,
                    last_list_entries: Some(held),
                });
                // The long list's tail lies between this read and the next: nothing is split.
                head_bytes = 0;
                first = long + 1;
                continue;
            }
            end = long;
            before_long = true;
        }
        // A list longer than a slot is read into the oversize region, whose reads may
        // wait behind each other: a split beside one could wait as long, so none is made.
        let fits_a_slot =
            !alone || list.end.div_ceil(PAGE) * PAGE - start <= chunk_bytes + 2 * PAGE;
        let mut next_head_bytes = 0;
        if split_lists && fits_a_slot && !before_long && end < range.end {
            let lowest = list_start + chunk_bytes / 2;
            (end, next_head_bytes) = split_boundary(layout, first, end, range.end, lowest);
        }
        let bytes = start..layout.span_bytes(first..end).end.div_ceil(PAGE) * PAGE;
        reads.push(Read {
            members: Members::Span(first..end),
            bytes,
            head_bytes,
            last_list_entries: None,
        });
        head_bytes = next_head_bytes;
        first = end;
    }
    reads
}

/// Where a scan read of `first..end` (a list boundary near a chunk's end) should stop
/// so the next read can start on a fresh page: the members' end, and the bytes of the
/// next list that sit in the read's last page (0 if it starts on a page). Falls back to
/// ending after the lists in `end`'s last page, the next read sharing that page with
/// this one, when no boundary above `lowest` splits a short list.
fn split_boundary(
    layout: &ListLayout,
    first: u32,
    end: u32,
    range_end: u32,
    lowest: u64,
) -> (u32, u64) {
    let mut candidate = end;
    // The members of a read that ends with `end`'s last page: the fallback.
    let mut sharing_end = None;
    loop {
        let boundary = layout.span_bytes(first..candidate).end.div_ceil(PAGE) * PAGE;
        // Lists that end within the read's last page come along for free.
        let members_end = layout.vertices_within(boundary).clamp(candidate, range_end);
        let sharing_end = *sharing_end.get_or_insert(members_end);
        if members_end == range_end {
            return (members_end, 0);
        }
        let next = layout.list_bytes(members_end);
        if next.start >= boundary {
            return (members_end, 0);
        }
        // The head is in the last page, so under a page; the rest must be too.
        if next.end <= boundary + SPLIT_PIECE_BYTES {
            return (members_end, boundary - next.start);
        }
        // The list across the boundary is long: try ending before the page it starts in.
        let earlier = layout.vertices_within(next.start / PAGE * PAGE);
        if earlier <= first || layout.span_bytes(first..earlier).end < lowest {
            return (sharing_end, 0);
        }
        candidate = earlier;
    }
}

/// The vertices of `range` that `cut` holds for whose lists run more than `gap_pages`
/// pages past the pages holding their first `entries`: the lists a head pass cuts
/// short, ascending.
pub(crate) fn long_lists(
    layout: &ListLayout,
    range: Range<u32>,
    entries: u64,
    gap_pages: u64,
    cut: &(dyn Fn(u32) -> bool + Sync),
) -> Vec<u32> {
    // Byte bounds of each list: entries of plain lists times their size, or the
    // positions of compressed ones, whose every page holds at least one entry.
    let compressed = layout.is_compressed();
    let (bounds, unit) = layout.bounds();
    let head_end = |start: u64, end: u64| match compressed {
        true if entries == 0 => start,
        true => end.min((start / PAGE + entries) * PAGE),
        false => end.min(start + entries * ENTRY_BYTES),
    };
    crate::block_ranges(range, crate::WIDENED_ON_STACK as u32 - 1)
        .flat_map_iter(|vertices| {
            bounds
                .vertices(vertices.start as usize..vertices.end as usize)
                .widened(|bounds| {
                    bounds
                        .windows(2)
                        .enumerate()
                        .filter(|(_, pair)| {
                            let (start, end) = (pair[0] * unit, pair[1] * unit);
                            end > head_end(start, end).div_ceil(PAGE) * PAGE + gap_pages * PAGE
                        })
                        .map(|(index, _)| vertices.start + index as u32)
                        .filter(|&vertex| cut(vertex))
                        .collect::<Vec<u32>>()
                })
        })
        .collect()
}

/// A gather's vertices in ascending order: themselves when already so (a kernel that
/// keeps its frontiers sorted costs no copy), else a sorted copy.
pub fn ascending(vertices: &[u32]) -> std::borrow::Cow<'_, [u32]> {
    if vertices.is_sorted() {
        std::borrow::Cow::Borrowed(vertices)
    } else {
        let mut sorted = vertices.to_vec();
        sorted.par_sort_unstable();
        std::borrow::Cow::Owned(sorted)
    }
}

/// Groups a gather's `sorted` vertices into reads: neighbors in the file share a read
/// when the pages between them are at most `max_gap_pages`, up to `max_read_bytes`.
/// Vertices without edges need no read and are left out.
pub(crate) fn gather_reads(
    layout: &ListLayout,
    sorted: &[u32],
    max_read_bytes: u64,
    max_gap_pages: u64,
) -> Vec<Read> {
    let mut reads: Vec<Read> = Vec::new();
    for (position, &vertex) in sorted.iter().enumerate() {
        let list = layout.list_bytes(vertex);
        if list.is_empty() {
            continue;
        }
        let pages = page_range(list);
        if let Some(last) = reads.last_mut()
            && pages.start <= last.bytes.end + max_gap_pages * PAGE
            && pages.end.max(last.bytes.end) - last.bytes.start <= max_read_bytes
            && let Members::Picked(members) = &mut last.members
        {
            members.end = position + 1;
            last.bytes.end = last.bytes.end.max(pages.end);
            continue;
        }
        reads.push(Read {
            members: Members::Picked(position..position + 1),
            bytes: pages,
            head_bytes: 0,
            last_list_entries: None,
        });
    }
    reads
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Offsets;
    use crate::lists::delivery::{IdCheck, visit_read};
    use crate::lists::layout::tests::layout;
    use std::path::Path;

    #[test]
    fn scan_reads_cover_every_list_whole_and_in_order() {
        // 2000-entry lists are 8000 bytes: about two pages each.
        let layout = layout(&[2000, 0, 10, 5000, 1, 1, 1, 3000, 0]);
        let reads = scan_reads(&layout, 0..9, 8192, usize::MAX, false, None);
        let mut next = 0;
        for read in &reads {
            let Members::Span(span) = &read.members else {
                panic!("scans deliver spans")
            };
            assert_eq!(span.start, next);
            next = span.end;
            let lists = layout.span_bytes(span.clone());
            assert!(read.bytes.start <= lists.start && lists.end <= read.bytes.end);
            assert_eq!(read.bytes.start % PAGE, 0);
            assert_eq!(read.bytes.end % PAGE, 0);
        }
        assert_eq!(next, 9);
        // The 20000-byte list is longer than a chunk and gets a read of its own.
        assert!(reads.iter().any(|read| read.members == Members::Span(3..4)));
    }

    /// Degrees like a skewed graph's: mostly short lists, some of several pages.
    fn skewed_degrees(count: usize, seed: u64) -> Vec<u64> {
        let mut state = seed;
        (0..count)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                match (state >> 33) % 100 {
                    0 => 1000 + (state >> 40) % 5000,
                    1..=9 => 100 + (state >> 40) % 900,
                    10..=19 => 0,
                    _ => (state >> 40) % 40,
                }
            })
            .collect()
    }

    #[test]
    fn split_scan_reads_take_each_page_once_and_split_only_short_lists() {
        let cases = [(1, 4096), (2, 8192), (3, 65536), (4, 262144)];
        for ((seed, chunk), short_lists_only) in cases
            .into_iter()
            .flat_map(|case| [(case, false), (case, true)])
        {
            let mut degrees = skewed_degrees(40_000, seed);
            if short_lists_only {
                degrees
                    .iter_mut()
                    .for_each(|degree| *degree = (*degree).min(250));
            }
            let layout = layout(&degrees);
            let range = 5..degrees.len() as u32 - 3;
            let reads = scan_reads(&layout, range.clone(), chunk, usize::MAX, true, None);
            let mut next = range.start;
            let mut shared_pages = 0;
            for (index, read) in reads.iter().enumerate() {
                let Members::Span(span) = &read.members else {
                    panic!("scans deliver spans")
                };
                assert_eq!(span.start, next);
                next = span.end;
                assert_eq!(read.bytes.start % PAGE, 0);
                assert_eq!(read.bytes.end % PAGE, 0);
                let whole = layout.span_bytes(read.whole_span().unwrap());
                assert!(whole.is_empty() || read.bytes.start <= whole.start);
                assert!(whole.end <= read.bytes.end);
                let length = read.bytes.end - read.bytes.start;
                assert!(length <= chunk + 2 * PAGE || span.len() == 1);
                if read.head_bytes > 0 {
                    let split = layout.list_bytes(span.start);
                    assert_eq!(split.start + read.head_bytes, read.bytes.start);
                    assert!(read.head_bytes < PAGE);
                    assert!(split.end - read.bytes.start <= SPLIT_PIECE_BYTES);
                    assert_eq!(reads[index - 1].bytes.end, read.bytes.start);
                }
                let Some(before) = index.checked_sub(1).map(|i| &reads[i]) else {
                    continue;
                };
                assert!(before.bytes.end <= read.bytes.start + PAGE);
                if before.bytes.end > read.bytes.start {
                    shared_pages += 1;
                    // Only beside a list too long to split.
                    let oversize = before.bytes.end - before.bytes.start > chunk + 2 * PAGE;
                    let long = layout.list_bytes(span.start).end > before.bytes.end + PAGE;
                    assert!(oversize || long, "read {index} shares a page needlessly");
                }
            }
            assert_eq!(next, range.end);
            let read: u64 = reads.iter().map(|r| r.bytes.end - r.bytes.start).sum();
            let lists = page_range(layout.span_bytes(range.clone()));
            assert_eq!(read, lists.end - lists.start + shared_pages * PAGE);
            if short_lists_only {
                assert_eq!(shared_pages, 0, "chunk {chunk}");
            }
        }
    }

    #[test]
    fn long_lists_are_those_running_past_their_heads_by_more_than_the_gap() {
        let degrees = skewed_degrees(20_000, 7);
        let layout = layout(&degrees);
        for (entries, gap_pages) in [(1, 0), (2, 2), (2, 8), (300, 1)] {
            let long = long_lists(&layout, 3..19_990, entries, gap_pages, &|_| true);
            let expected: Vec<u32> = (3..19_990)
                .filter(|&vertex| {
                    let list = layout.list_bytes(vertex);
                    let head_end =
                        list.start + layout.degree(vertex).min(entries as u32) as u64 * 4;
                    let head_pages_end = head_end.div_ceil(PAGE) * PAGE;
                    list.end > head_pages_end + gap_pages * PAGE
                })
                .collect();
            assert_eq!(long, expected, "entries {entries}, gap {gap_pages}");
        }
    }

    #[test]
    fn a_head_pass_skips_long_tails_and_delivers_every_head() {
        let cases = [
            (1, 4096, true, 2),
            (2, 16384, false, 2),
            (3, 262144, true, 2),
            // Heads of several pages: read alone, never beside other lists.
            (4, 65536, true, 5000),
        ];
        for (seed, chunk, split, entries) in cases {
            check_partial_scan(seed, chunk, split, ListsNeeded::Heads(entries));
        }
    }

    #[test]
    fn a_scan_that_needs_all_but_some_lists_skips_their_pages_and_delivers_the_rest() {
        // Hubs, every third vertex, and a run of consecutive long lists (so that a read
        // begins with a list cut to nothing).
        let unneeded = |vertex: u32| vertex.is_multiple_of(3) || (100..104).contains(&vertex);
        for (seed, chunk, split) in [(5, 4096, true), (6, 16384, false), (7, 262144, true)] {
            check_partial_scan(seed, chunk, split, ListsNeeded::AllBut(&unneeded));
        }
    }

    /// Cuts a partial scan of a skewed graph with hubs into reads and delivers them as a
    /// tier would: every needed list comes at least as far as needed, no page of a cut
    /// list's tail past the gap is read, and the pass reads less than a scan.
    fn check_partial_scan(seed: u64, chunk: u64, split: bool, needed: ListsNeeded) {
        let mut degrees = skewed_degrees(30_000, seed);
        // Hubs much longer than a chunk, so that some tails span many pages.
        for (hub, degree) in [(100, 200_000), (101, 150_000), (102, 9_000), (103, 5_000)] {
            degrees[hub] = degree;
        }
        let layout = layout(&degrees);
        let range = 4..degrees.len() as u32 - 2;
        let heads = HeadPass::new(&layout, range.clone(), needed);
        let (entries, gap_pages) = (heads.entries, needed.gap_pages());
        // Entries of `vertex`'s list the pass needs.
        let wanted = |vertex: u32| match needed {
            ListsNeeded::Heads(entries) => u64::from(layout.degree(vertex)).min(entries),
            ListsNeeded::AllBut(unneeded) if unneeded(vertex) => 0,
            ListsNeeded::AllBut(_) => u64::from(layout.degree(vertex)),
        };
        let long = &heads.long;
        assert!(long.contains(&100) && long.contains(&101));
        let reads = scan_reads(
            &layout,
            range.clone(),
            chunk,
            usize::MAX,
            split,
            Some(&heads),
        );
        // Entry i of the section holds id i, so a delivered list shows where it came from.
        let section: Vec<u32> = (0..layout.offsets.get(degrees.len()) as u32).collect();
        let delivered = std::sync::Mutex::new(Vec::new());
        let mut next = range.start;
        for read in &reads {
            let Members::Span(span) = &read.members else {
                panic!("a partial scan delivers spans")
            };
            assert_eq!(span.start, next);
            next = span.end;
            let length = read.bytes.end - read.bytes.start;
            assert!(length <= chunk + 2 * PAGE || span.len() == 1);
            if span.len() == 1 {
                let pages = page_range(layout.list_bytes(span.start));
                assert!(length <= pages.end - pages.start);
            }
            match read.last_list_entries {
                Some(held) => {
                    let last = span.end - 1;
                    assert!(long.contains(&last));
                    assert_eq!(held, u64::from(layout.degree(last)).min(entries));
                    assert!(layout.list_bytes(last).end > read.bytes.end);
                }
                None => assert!(!long.contains(&(span.end - 1))),
            }
            // A long list ends the read it is in.
            assert!(
                span.clone()
                    .rev()
                    .skip(1)
                    .all(|vertex| !long.contains(&vertex))
            );
            // No page of a long list's tail beyond the gap is read.
            for &vertex in long {
                let list = layout.list_bytes(vertex);
                let skipped = (list.start + entries * 4).div_ceil(PAGE) * PAGE + gap_pages * PAGE
                    ..list.end / PAGE * PAGE;
                assert!(
                    read.bytes.end <= skipped.start || read.bytes.start >= skipped.end,
                    "a read takes pages of vertex {vertex}'s tail"
                );
            }
            // Deliver from the read's pages as a tier would (the split sides are the
            // tier's to join; here they come from the section directly). A read without
            // bytes is delivered from nothing, as the direct tier does.
            let pages = &section[(read.bytes.start / 4) as usize
                ..((read.bytes.end / 4) as usize).min(section.len())];
            visit_read(
                &layout,
                read,
                &[],
                pages,
                None,
                IdCheck::AtDelivery {
                    vertices: usize::MAX,
                    path: Path::new("g.sl"),
                },
                &|block| {
                    let mut delivered = delivered.lock().unwrap();
                    for (vertex, list) in block.iter() {
                        delivered.push((vertex, list.neighbors.to_vec()));
                    }
                },
            )
            .unwrap();
            if read.head_bytes > 0 {
                let vertex = span.start;
                let list = layout.list_bytes(vertex);
                let ids = (list.start / 4) as u32..(list.end / 4) as u32;
                delivered.lock().unwrap().push((vertex, ids.collect()));
            }
        }
        assert_eq!(next, range.end);
        let mut delivered = delivered.into_inner().unwrap();
        delivered.sort();
        // Each vertex at most once; every one whose list the pass needs, at least as far
        // as it needs it, and the whole list unless it is long.
        assert!(delivered.windows(2).all(|pair| pair[0].0 < pair[1].0));
        let mut delivered = delivered.into_iter().peekable();
        for vertex in range.clone() {
            let bounds = layout.list_bytes(vertex);
            let whole: Vec<u32> = ((bounds.start / 4) as u32..(bounds.end / 4) as u32).collect();
            let list = match delivered.next_if(|(delivered, _)| *delivered == vertex) {
                Some((_, list)) => list,
                None => Vec::new(),
            };
            assert!(list.len() as u64 >= wanted(vertex), "vertex {vertex}");
            assert_eq!(list[..], whole[..list.len()]);
            assert!(list.len() == whole.len() || long.contains(&vertex));
        }
        let scan: u64 = scan_reads(&layout, range.clone(), chunk, usize::MAX, split, None)
            .iter()
            .map(|read| read.bytes.end - read.bytes.start)
            .sum();
        let partial: u64 = reads.iter().map(|r| r.bytes.end - r.bytes.start).sum();
        assert!(
            partial < scan,
            "chunk {chunk}: {partial} bytes, a scan reads {scan}"
        );
    }

    #[test]
    fn scan_batches_are_the_scan_reads_cut_into_pieces() {
        let layout = layout(&[3000; READS_PER_BATCH * 2 + 5]);
        let whole = scan_reads(
            &layout,
            3..layout.offsets.len() as u32 - 1,
            4096,
            usize::MAX,
            false,
            None,
        );
        let batches: Vec<Vec<Read>> = scan_batches(
            &layout,
            3..layout.offsets.len() as u32 - 1,
            4096,
            false,
            None,
        )
        .collect();
        assert_eq!(batches.len(), 3);
        assert!(batches.iter().all(|batch| batch.len() <= READS_PER_BATCH));
        assert_eq!(batches.concat(), whole);
    }

    #[test]
    fn gather_reads_coalesce_near_lists_and_skip_empty_ones() {
        let layout = layout(&[1000; 64]);
        let sorted = [0, 1, 2, 30, 31, 63];
        let reads = gather_reads(&layout, &sorted, 1 << 20, 1);
        assert_eq!(reads.len(), 3);
        assert_eq!(reads[0].members, Members::Picked(0..3));
        assert_eq!(reads[1].members, Members::Picked(3..5));
        let capped = gather_reads(&layout, &sorted, PAGE * 2, 1);
        assert!(capped.len() > 3);
        let empty = ListLayout {
            offsets: Offsets::Narrow(vec![0, 0, 0]),
            neighbors_at: 0,
            weights_at: None,
            compressed: None,
        };
        assert!(gather_reads(&empty, &[0, 1], 1 << 20, 1).is_empty());
    }
}
