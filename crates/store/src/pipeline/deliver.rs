//! How the pipeline hands what landed to the kernel: each read's whole lists, its sides
//! of the lists it splits with the reads beside it (joined by whichever lands second),
//! pages checked before delivery, and gathers' pages kept for the gathers after them.

use std::borrow::Cow;
use std::ops::Range;

use rayon::prelude::*;

use super::lists::Lists;
use super::page_cache::CacheView;
use super::split::{Side, SplitLists};
use super::{Batch, DirectStore};
use crate::aligned::AlignedBuffer;
use crate::error::PipelineFailure;
use crate::lists::decode::{deliver_decoded, visit_read_decoded};
use crate::lists::delivery::{IdCheck, deliver_list, visit_read};
use crate::lists::read_plan::{Members, Read, page_range};
use crate::stats::IoCounters;
use crate::{Result, StoreError, VisitBlock};
use swapless_format::FormatError;

impl DirectStore {
    /// Ids checked at delivery, for lists not vouched for by their pages' checks.
    fn ids_at_delivery(&self) -> IdCheck<'_> {
        IdCheck::AtDelivery {
            vertices: self.facts.vertices,
            path: self.source.path(),
        }
    }

    /// Delivers what read `index` of the batch holds, from `neighbors` (its pages of
    /// the neighbor section) and `weights` (the same pages of the weight section), once
    /// its pages pass their checks (or a second copy's do), and keeps the pages for
    /// later gathers when the batch says so.
    pub(super) fn land(
        &self,
        batch: &Batch,
        index: usize,
        neighbors: &[u8],
        weights: Option<&[u8]>,
    ) -> Result<()> {
        let start = batch.reads[index].bytes.start;
        match batch.lists.checks.check(start, neighbors, weights) {
            Err(StoreError::Format(FormatError::ChecksumMismatch { .. }))
                if self.land_second_copy(batch, index)? =>
            {
                Ok(())
            }
            passed => self.deliver_checked(batch, index, neighbors, weights, passed?),
        }
    }

    /// [`DirectStore::land`] once the pages are checked; `pages_passed` says whether
    /// every id they hold has passed too.
    fn deliver_checked(
        &self,
        batch: &Batch,
        index: usize,
        neighbors: &[u8],
        weights: Option<&[u8]>,
        pages_passed: bool,
    ) -> Result<()> {
        let (lists, read) = (batch.lists, &batch.reads[index]);
        if lists.layout.is_compressed() {
            let landed = self.landed(neighbors, read.bytes.start);
            let delivered = visit_read_decoded(
                &lists.layout,
                read,
                batch.sorted,
                landed,
                batch.needed,
                batch.visit_block,
            )?;
            IoCounters::add(&self.counters.delivered_bytes, delivered);
            if batch.keep {
                self.keep_pages(lists, read, neighbors, None);
            }
            return Ok(());
        }
        let ids = IdCheck::unless_passed(pages_passed, self.facts.vertices, self.source.path());
        let delivered = visit_read(
            &lists.layout,
            read,
            batch.sorted,
            bytemuck::cast_slice(neighbors),
            weights.map(bytemuck::cast_slice),
            ids,
            batch.visit_block,
        )?;
        IoCounters::add(&self.counters.delivered_bytes, delivered);
        self.deliver_split_sides(batch, index, neighbors, weights)?;
        if batch.keep {
            self.keep_pages(lists, read, neighbors, weights);
        }
        Ok(())
    }

    /// Delivers read `index` of the batch from the source's second copy (a far graph's
    /// fallback file), its first copy having failed its checksums; false when there is
    /// no second copy. The copy is checked as the first was: a damaged one fails the run.
    fn land_second_copy(&self, batch: &Batch, index: usize) -> Result<bool> {
        let (layout, read) = (&batch.lists.layout, &batch.reads[index]);
        let length = read.bytes.end - read.bytes.start;
        let needed = Self::needed_bytes(batch, index);
        let mut neighbors = AlignedBuffer::zeroed(length)?;
        let position = layout.neighbors_at + read.bytes.start;
        if !self
            .source
            .read_second_copy(neighbors.as_mut_slice(), position, needed)?
        {
            return Ok(false);
        }
        let mut weights = None;
        if let Some(at) = layout.weights_at {
            let mut buffer = AlignedBuffer::zeroed(length)?;
            self.source
                .read_second_copy(buffer.as_mut_slice(), at + read.bytes.start, needed)?;
            weights = Some(buffer);
        }
        let neighbors = &neighbors.as_slice()[..length as usize];
        let weights = weights.as_ref().map(|w| &w.as_slice()[..length as usize]);
        batch.lists.checks.check_every_read();
        // Checked as the first copy was; a damaged second copy fails the run.
        let passed = batch
            .lists
            .checks
            .check(read.bytes.start, neighbors, weights)?;
        self.deliver_checked(batch, index, neighbors, weights, passed)?;
        Ok(true)
    }

    /// Offers read `index`'s sides of the lists it splits with the reads beside it, and
    /// delivers each list whose other side has already landed.
    fn deliver_split_sides(
        &self,
        batch: &Batch,
        index: usize,
        neighbors: &[u8],
        weights: Option<&[u8]>,
    ) -> Result<()> {
        let (lists, reads) = (batch.lists, batch.reads);
        let read = &reads[index];
        let ids: &[u32] = bytemuck::cast_slice(neighbors);
        let weights: Option<&[f32]> = weights.map(bytemuck::cast_slice);
        let entries = |bytes: Range<u64>| {
            ((bytes.start - read.bytes.start) / 4) as usize
                ..((bytes.end - read.bytes.start) / 4) as usize
        };
        let split_first = |read: &Read| match &read.members {
            Members::Span(span) if read.head_bytes > 0 => Some(span.start),
            _ => None,
        };
        let mut sides = Vec::new();
        if let Some(vertex) = split_first(read) {
            let list = lists.layout.list_bytes(vertex);
            sides.push((index, Side::Tail, entries(read.bytes.start..list.end)));
        }
        if let Some(next) = reads.get(index + 1)
            && split_first(next).is_some()
        {
            let head = next.bytes.start - next.head_bytes..next.bytes.start;
            sides.push((index + 1, Side::Head, entries(head)));
        }
        for (tail_read, side, range) in sides {
            let joined = batch.split.offer(
                tail_read,
                side,
                &ids[range.clone()],
                weights.map(|weights| &weights[range]),
            );
            if let (Some(joined), Some(vertex)) = (joined, split_first(&reads[tail_read])) {
                let list = lists.layout.list_bytes(vertex);
                let entries = list.start / 4..list.end / 4;
                let delivered = deliver_list(
                    vertex,
                    entries.clone(),
                    entries.start,
                    &joined.neighbors,
                    joined.weights.as_deref(),
                    self.ids_at_delivery(),
                    batch.visit_block,
                )?;
                IoCounters::add(&self.counters.delivered_bytes, delivered);
            }
        }
        Ok(())
    }

    /// The error for a split list left without its other side, which a finished batch
    /// never has: delivering the batch without it would be a wrong answer.
    pub(super) fn check_joined(&self, split: &SplitLists) -> Result<()> {
        match split.unjoined() {
            0 => Ok(()),
            count => Err(StoreError::Pipeline {
                graph: self.source.shown(),
                failure: PipelineFailure::ListsNotJoined(count),
            }),
        }
    }

    /// Keeps the pages `read` brought (neighbors and weights) for later gathers.
    fn keep_pages(&self, lists: &Lists, read: &Read, neighbors: &[u8], weights: Option<&[u8]>) {
        self.gather_cache
            .insert(lists.layout.neighbors_at + read.bytes.start, neighbors);
        if let (Some(at), Some(weights)) = (lists.layout.weights_at, weights) {
            self.gather_cache.insert(at + read.bytes.start, weights);
        }
    }

    /// Delivers `vertex`'s list, entries `entries` of the section, from the page cache if
    /// every page it needs (neighbors and weights) is there; false, and nothing
    /// delivered, if not.
    fn deliver_cached(
        &self,
        view: &CacheView,
        lists: &Lists,
        vertex: u32,
        entries: Range<u64>,
        visit_block: &VisitBlock,
    ) -> Result<bool> {
        if lists.layout.is_compressed() {
            let pages = page_range(lists.layout.list_bytes(vertex));
            let delivered = view.with_bytes(
                lists.layout.neighbors_at + pages.start,
                pages.end - pages.start,
                |bytes| {
                    let landed = self.landed(bytes, pages.start);
                    deliver_decoded(
                        &lists.layout,
                        vertex..vertex + 1,
                        landed,
                        None,
                        None,
                        visit_block,
                    )
                },
            );
            return self.count_cached(delivered);
        }
        let pages = page_range(entries.start * 4..entries.end * 4);
        let length = pages.end - pages.start;
        let deliver = |neighbors: &[u8], weights: Option<&[u8]>| {
            deliver_list(
                vertex,
                entries.clone(),
                pages.start / 4,
                bytemuck::cast_slice(neighbors),
                weights.map(bytemuck::cast_slice),
                self.ids_at_delivery(),
                visit_block,
            )
        };
        let delivered = view
            .with_bytes(
                lists.layout.neighbors_at + pages.start,
                length,
                |neighbors| match lists.layout.weights_at {
                    None => Some(deliver(neighbors, None)),
                    Some(weights_at) => {
                        view.with_bytes(weights_at + pages.start, length, |weights| {
                            deliver(neighbors, Some(weights))
                        })
                    }
                },
            )
            .flatten();
        self.count_cached(delivered)
    }

    /// Counts a delivery from the page cache (`None`: a miss, nothing delivered) and
    /// says whether it hit.
    fn count_cached(&self, delivered: Option<Result<u64>>) -> Result<bool> {
        match delivered {
            None => Ok(false),
            Some(delivered) => {
                let delivered = delivered?;
                IoCounters::add(&self.counters.delivered_bytes, delivered);
                IoCounters::add(&self.counters.cached_bytes, delivered);
                Ok(true)
            }
        }
    }

    /// Delivers the lists of `sorted` whose pages are all in the page cache for gathers,
    /// and returns the others (all of them when there is no such cache). Each list is
    /// looked up on its own, before misses are coalesced into reads: a coalesced read
    /// hits only if every page it spans is here, and on a grid the spans shift from level
    /// to level while the lists' own pages stay.
    pub(super) fn deliver_cached_lists<'a>(
        &self,
        lists: &Lists,
        sorted: &'a [u32],
        visit_block: &VisitBlock,
    ) -> Result<Cow<'a, [u32]>> {
        if self.gather_cache.bytes() == 0 {
            return Ok(Cow::Borrowed(sorted));
        }
        // Hits are delivered under the view; misses after it is dropped, since their
        // pages are inserted as they land.
        let view = self.gather_cache.view();
        let offsets = lists.layout.offsets.as_slice();
        let hits = sorted
            .par_iter()
            .with_min_len(64)
            .map(|&vertex| {
                let entries = offsets.bounds(vertex as usize);
                if entries.is_empty() {
                    // Visited with the edgeless after the gather.
                    return Ok(true);
                }
                self.deliver_cached(&view, lists, vertex, entries, visit_block)
            })
            .collect::<Result<Vec<bool>>>()?;
        drop(view);
        Ok(Cow::Owned(
            sorted
                .iter()
                .zip(hits)
                .filter(|(_, hit)| !hit)
                .map(|(&vertex, _)| vertex)
                .collect(),
        ))
    }
}
