//! The mmap tier: the file mapped, the OS reading pages on demand, with what a
//! careful user of the OS can add: `MADV_WILLNEED` on the next window of lists while
//! the compute threads work on this one, and, to keep the budget, `MADV_DONTNEED`
//! plus `POSIX_FADV_DONTNEED` on each window once it is done, except for the prefix
//! of each list section the plan keeps (the hottest lists after `--reorder dbg`).
//! Threads still block in page faults when prefetch falls behind: the baseline the
//! direct tier is measured against.

use std::fs::File;
use std::ops::Range;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use rayon::prelude::*;
use swapless_format::{FormatError, GraphFile, SectionKind};

use crate::budget::Plan;
use crate::fault::{Fault, FaultInjector};
use crate::lists::decode::{Landed, deliver_decoded, visit_read_decoded};
use crate::lists::delivery::{IdCheck, deliver_span, visit_edgeless, visit_read};
use crate::lists::heads::{heads_serve, open_heads, visit_heads};
use crate::lists::layout::{Directions, ListLayout};
use crate::lists::page_checks::ListChecks;
use crate::lists::read_plan::{READS_PER_BATCH, Read, ascending, gather_reads, scan_batches};
use crate::stats::IoCounters;
use crate::units::{GATHER_GAP_PAGES, PAGE};
use crate::{
    EdgeDirection, EdgeStore, GraphFacts, IoStats, ListBlock, ListsNeeded, OffsetSlice, Result,
    SCAN_BLOCK, StoreError, Visit, VisitBlock, block_ranges, per_vertex,
};

/// How far before a released window the page cache is dropped too: the largest folio
/// the kernel caches file pages in (2 MiB) could straddle the window boundary.
const FOLIO_REACH_BACK: u64 = 2 << 20;

/// Bytes advised per MADV_WILLNEED call: the kernel reads at most one readahead
/// window per call and ignores the rest of a longer range.
const PREFETCH_PIECE: u64 = 4 << 20;

/// One direction's lists and how much of their section stays mapped.
struct Lists {
    layout: ListLayout,
    kept_bytes: u64,
    /// Checks each page before its lists are first visited.
    checks: ListChecks,
}

/// A graph served from a memory map of its file.
pub struct MmapStore {
    /// Declared before `map` so that it is dropped (stops matching) before the unmap.
    _sigbus_guard: crate::sigbus::Guard,
    path: PathBuf,
    file: File,
    file_bytes: u64,
    map: Mmap,
    facts: GraphFacts,
    lists: Directions<Lists>,
    /// The `out_heads` section, read as lists instead of the out-lists for passes that
    /// need only their heads (when the plan says so).
    heads: Option<Lists>,
    window_bytes: u64,
    chunk_bytes: u64,
    counters: IoCounters,
    read_bytes_at_open: u64,
    /// Tests' failing reads (see `fault`).
    faults: FaultInjector,
}

/// Bytes this process has caused to be read from storage (`/proc/self/io`).
fn process_read_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/io")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|line| line.strip_prefix("read_bytes:"))
                .and_then(|value| value.trim().parse().ok())
        })
        .unwrap_or(0)
}

impl MmapStore {
    /// Maps `path` for the run `plan` describes.
    pub fn open(path: &Path, plan: &Plan) -> Result<MmapStore> {
        let grant = plan.mmap();
        let held = grant.lists;
        let graph = GraphFile::open(path)?;
        let flags = graph.flags();
        let io_error = |source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io_error)?;
        let file_bytes = file.metadata().map_err(io_error)?.len();
        // SAFETY: read-only and private. A file truncated underneath raises SIGBUS: every
        // call first checks that the file still has its length, and the guard turns a
        // fault during a call into a clear error exit.
        let map = unsafe { Mmap::map(&file) }.map_err(io_error)?;
        let start = map.as_ptr() as usize;
        let sigbus_guard = crate::sigbus::guard(start..start + map.len(), path);
        // The store prefetches each window itself (MADV_WILLNEED). The kernel's own
        // read-around on a fault would read megabytes beyond it, which no release
        // covers and the budget cannot see.
        let _ = map.advise(memmap2::Advice::Random);
        let open_lists = |kinds: [SectionKind; 3], kept_bytes: u64| -> Result<Lists> {
            let layout = ListLayout::load(&graph, kinds, held.weighted, held.offset_form)?;
            // Compressed lists hold their weights beside their ids, in the same section.
            let plain_weights = held.weighted && !layout.is_compressed();
            Ok(Lists {
                layout,
                kept_bytes,
                checks: ListChecks::load(&graph, kinds, held.reads(kinds[1]), plain_weights)?,
            })
        };
        let lists = Directions::open(flags.directed, held.prefix_bytes, open_lists)?;
        let heads = open_heads(&graph, held.heads_read)?.map(|(layout, checks)| Lists {
            layout,
            kept_bytes: 0,
            checks,
        });
        let reads_per = held.sections_per_list();
        // One window computed on, one prefetched, one of slack for pages two windows share.
        let window_bytes = (grant.io_buffer_bytes / 3 / reads_per).max(grant.chunk_bytes);
        // The kept prefix is this tier's cache: read it now, in large readahead requests,
        // rather than a page per fault (the map has read-around off) during the first call.
        let mut kept = Vec::new();
        for lists in lists.each() {
            let sections =
                std::iter::once(lists.layout.neighbors_at).chain(lists.layout.weights_at);
            kept.extend(sections.map(|at| at..at + lists.kept_bytes));
        }
        let store = MmapStore {
            _sigbus_guard: sigbus_guard,
            path: path.to_path_buf(),
            file,
            file_bytes,
            map,
            facts: GraphFacts {
                vertices: graph.num_vertices(),
                arcs: graph.num_arcs() as u64,
                directed: lists.directed(),
                weighted: held.weighted,
                permutation: graph.load_permutation()?,
                self_loops: graph.num_self_loops(),
            },
            lists,
            heads,
            window_bytes,
            chunk_bytes: grant.chunk_bytes,
            counters: IoCounters::default(),
            read_bytes_at_open: process_read_bytes(),
            faults: FaultInjector::from_environment(),
        };
        store.advise(&kept, libc::MADV_WILLNEED);
        Ok(store)
    }

    fn lists(&self, direction: EdgeDirection) -> &Lists {
        self.lists.get(direction)
    }

    /// The file positions of `reads`' pages beyond the kept prefix, per section.
    fn unkept(&self, lists: &Lists, reads: &[Read]) -> Vec<Range<u64>> {
        let sections = std::iter::once(lists.layout.neighbors_at).chain(lists.layout.weights_at);
        let kept = lists.kept_bytes.div_ceil(PAGE) * PAGE;
        let mut ranges = Vec::new();
        for at in sections {
            let mut current: Option<Range<u64>> = None;
            for read in reads {
                let start = read.bytes.start.max(kept);
                if start >= read.bytes.end {
                    continue;
                }
                let range = at + start..at + read.bytes.end;
                match &mut current {
                    Some(open) if range.start <= open.end => open.end = open.end.max(range.end),
                    _ => ranges.extend(current.replace(range)),
                }
            }
            ranges.extend(current);
        }
        ranges
    }

    /// Applies `advice` to the mapped pages in `ranges`.
    fn advise(&self, ranges: &[Range<u64>], advice: libc::c_int) {
        for range in ranges {
            let end = range.end.min(self.map.len() as u64);
            if end <= range.start {
                continue;
            }
            // The kernel reads at most one readahead window (a few MiB) per WILLNEED
            // call, so a long range is advised in pieces.
            let piece = if advice == libc::MADV_WILLNEED {
                PREFETCH_PIECE
            } else {
                end - range.start
            };
            let mut start = range.start;
            while start < end {
                let length = piece.min(end - start);
                // SAFETY: the range lies inside the map and starts on a page; WILLNEED
                // only starts readahead, and DONTNEED on a read-only file map only drops
                // this process's mapping of the pages (they read back the same from the file).
                unsafe {
                    libc::madvise(
                        self.map.as_ptr().add(start as usize) as *mut libc::c_void,
                        length as usize,
                        advice,
                    );
                }
                start += length;
            }
            if advice == libc::MADV_DONTNEED {
                // Drops the pages from the page cache too, so the budget covers it. The
                // kernel caches readahead in folios of up to 2 MiB and drops only whole
                // ones no process maps, so the range reaches back over the previous
                // window's last folio (the kept prefix stays: it is mapped).
                let start = range.start.saturating_sub(FOLIO_REACH_BACK);
                // SAFETY: a plain system call on an open descriptor.
                unsafe {
                    libc::posix_fadvise(
                        self.file.as_raw_fd(),
                        start as libc::off_t,
                        (end - start) as libc::off_t,
                        libc::POSIX_FADV_DONTNEED,
                    );
                }
            }
        }
    }

    /// Runs `reads` window by window: prefetch the next while computing this one,
    /// release each once done.
    fn stream(
        &self,
        lists: &Lists,
        reads: &[Read],
        sorted: &[u32],
        needed: Option<ListsNeeded>,
        visit_block: &VisitBlock,
    ) -> Result<()> {
        let now_bytes = self
            .file
            .metadata()
            .map_err(|source| StoreError::Io {
                path: self.path.clone(),
                source,
            })?
            .len();
        if now_bytes < self.file_bytes {
            return Err(FormatError::Truncated {
                path: self.path.clone(),
                detail: format!(
                    "the file shrank from {} to {now_bytes} bytes while in use",
                    self.file_bytes
                ),
            }
            .into());
        }
        let mut windows: Vec<Range<usize>> = Vec::new();
        let mut start = 0;
        let mut bytes = 0;
        for (index, read) in reads.iter().enumerate() {
            if index > start && bytes + (read.bytes.end - read.bytes.start) > self.window_bytes {
                windows.push(start..index);
                start = index;
                bytes = 0;
            }
            bytes += read.bytes.end - read.bytes.start;
        }
        if start < reads.len() {
            windows.push(start..reads.len());
        }
        let (neighbors, weights) = self.mapped_lists(lists);
        let mut upcoming = windows
            .first()
            .map(|first| self.unkept(lists, &reads[first.clone()]));
        if let Some(ranges) = &upcoming {
            self.advise(ranges, libc::MADV_WILLNEED);
        }
        for (index, window) in windows.iter().enumerate() {
            let current = upcoming.take().unwrap_or_default();
            if let Some(next) = windows.get(index + 1) {
                let ranges = self.unkept(lists, &reads[next.clone()]);
                self.advise(&ranges, libc::MADV_WILLNEED);
                upcoming = Some(ranges);
            }
            let delivered: Result<u64> = reads[window.clone()]
                .par_iter()
                .map(|read| {
                    self.injected_fault()?;
                    let pages_passed = self.check_pages(lists, read.bytes.clone())?;
                    if lists.layout.is_compressed() {
                        let section = self.section(lists.layout.neighbors_at, lists);
                        let landed = self.landed(section, 0);
                        return visit_read_decoded(
                            &lists.layout,
                            read,
                            sorted,
                            landed,
                            needed,
                            visit_block,
                        );
                    }
                    let entries = (read.bytes.start / 4) as usize..neighbors.len();
                    visit_read(
                        &lists.layout,
                        read,
                        sorted,
                        &neighbors[entries.clone()],
                        weights.map(|weights| &weights[entries]),
                        IdCheck::unless_passed(pages_passed, self.facts.vertices, &self.path),
                        visit_block,
                    )
                })
                .sum();
            IoCounters::add(&self.counters.delivered_bytes, delivered?);
            self.advise(&current, libc::MADV_DONTNEED);
        }
        Ok(())
    }

    /// A scan of `range`, or a partial scan when `needed` says what it needs of each
    /// list: the kept prefix from the map, then the rest window by window, read from the
    /// heads section instead of the lists when the pass needs only their heads.
    fn scan_lists(
        &self,
        direction: EdgeDirection,
        range: Range<u32>,
        needed: Option<ListsNeeded>,
        visit_block: &VisitBlock,
    ) -> Result<()> {
        let lists = self.lists(direction);
        let kept_end = lists
            .layout
            .vertices_within(lists.kept_bytes)
            .clamp(range.start, range.end);
        self.visit_kept(
            lists,
            block_ranges(range.start..kept_end, SCAN_BLOCK),
            needed,
            visit_block,
        )?;
        let offsets = lists.layout.offsets.as_slice();
        let cut = |block: ListBlock<'_>| visit_heads(block, offsets, visit_block);
        let (source, needed, visit_read_block): (&Lists, _, &VisitBlock) = match &self.heads {
            Some(heads) if heads_serve(needed, direction, self.lists.directed()) => {
                (heads, None, &cut)
            }
            _ => (lists, needed, visit_block),
        };
        // The page cache serves a page two reads share once, so lists are not split.
        let batches = scan_batches(
            &source.layout,
            kept_end..range.end,
            self.chunk_bytes,
            false,
            needed,
        );
        for reads in batches {
            self.stream(source, &reads, &[], needed, visit_read_block)?;
        }
        Ok(())
    }

    /// Checks the pages of section bytes `range` of `lists` (those not checked before);
    /// returns whether they have all passed, ids included.
    /// The error a test chose for this read, if it is the chosen one: what a page fault
    /// on a failing disk raises (SIGBUS) ends the run the same way, with a sentence.
    fn injected_fault(&self) -> Result<()> {
        match self.faults.next() {
            None => Ok(()),
            Some(Fault::Eio) => Err(StoreError::Io {
                path: self.path.clone(),
                source: std::io::Error::from_raw_os_error(libc::EIO),
            }),
            Some(Fault::Short) => Err(FormatError::Truncated {
                path: self.path.clone(),
                detail: "a read came back short; was the file truncated while in use?".to_string(),
            }
            .into()),
        }
    }

    fn check_pages(&self, lists: &Lists, range: Range<u64>) -> Result<bool> {
        let weights = lists.layout.weights_at.map(|at| self.section(at, lists));
        lists.checks.check_range(
            self.section(lists.layout.neighbors_at, lists),
            weights,
            range,
        )
    }

    /// What the mapped compressed list bytes `bytes`, from section position
    /// `bytes_at`, decode against.
    fn landed<'a>(&'a self, bytes: &'a [u8], bytes_at: u64) -> Landed<'a> {
        Landed {
            bytes,
            bytes_at,
            vertices: self.facts.vertices,
            path: &self.path,
        }
    }

    /// All of `lists`' neighbors and weights, as mapped (plain lists).
    fn mapped_lists(&self, lists: &Lists) -> (&[u32], Option<&[f32]>) {
        let neighbors = bytemuck::cast_slice(self.section(lists.layout.neighbors_at, lists));
        let weights = lists
            .layout
            .weights_at
            .map(|at| bytemuck::cast_slice(self.section(at, lists)));
        (neighbors, weights)
    }

    /// The bytes of the list section at file position `at`.
    fn section(&self, at: u64, lists: &Lists) -> &[u8] {
        &self.map[at as usize..(at + lists.layout.section_bytes()) as usize]
    }

    /// Visits blocks of lists wholly inside the kept prefix straight from the map.
    fn visit_kept(
        &self,
        lists: &Lists,
        blocks: impl ParallelIterator<Item = Range<u32>>,
        needed: Option<ListsNeeded>,
        visit_block: &VisitBlock,
    ) -> Result<u64> {
        let (neighbors, weights) = self.mapped_lists(lists);
        let bytes = blocks
            .map(|vertices| {
                let pages_passed =
                    self.check_pages(lists, lists.layout.span_bytes(vertices.clone()))?;
                if lists.layout.is_compressed() {
                    let section = self.section(lists.layout.neighbors_at, lists);
                    let landed = self.landed(section, 0);
                    return deliver_decoded(
                        &lists.layout,
                        vertices,
                        landed,
                        None,
                        needed,
                        visit_block,
                    );
                }
                deliver_span(
                    &lists.layout,
                    vertices,
                    0,
                    neighbors,
                    weights,
                    IdCheck::unless_passed(pages_passed, self.facts.vertices, &self.path),
                    visit_block,
                )
            })
            .sum::<Result<u64>>()?;
        IoCounters::add(&self.counters.cached_bytes, bytes);
        IoCounters::add(&self.counters.delivered_bytes, bytes);
        Ok(bytes)
    }
}

impl EdgeStore for MmapStore {
    fn facts(&self) -> &GraphFacts {
        &self.facts
    }

    fn tier(&self) -> &'static str {
        "mmap"
    }

    fn offsets(&self, direction: EdgeDirection) -> OffsetSlice<'_> {
        self.lists(direction).layout.offsets.as_slice()
    }

    fn scan_blocks(
        &self,
        direction: EdgeDirection,
        range: Range<u32>,
        visit_block: &VisitBlock,
    ) -> Result<()> {
        self.scan_lists(direction, range, None, visit_block)
    }

    fn scan_partial(
        &self,
        direction: EdgeDirection,
        range: Range<u32>,
        needed: ListsNeeded,
        visit_block: &VisitBlock,
    ) -> Result<()> {
        self.scan_lists(direction, range, Some(needed), visit_block)
    }

    fn gather(&self, direction: EdgeDirection, vertices: &[u32], visit: &Visit) -> Result<()> {
        let lists = self.lists(direction);
        let kept_end = lists.layout.vertices_within(lists.kept_bytes);
        let sorted = ascending(vertices);
        let (kept, rest) = sorted.split_at(sorted.partition_point(|&vertex| vertex < kept_end));
        let visit_block = per_vertex(visit);
        self.visit_kept(
            lists,
            kept.par_iter().map(|&vertex| vertex..vertex + 1),
            None,
            &visit_block,
        )?;
        for sorted in rest.chunks(READS_PER_BATCH) {
            let reads = gather_reads(&lists.layout, sorted, self.chunk_bytes, GATHER_GAP_PAGES);
            self.stream(lists, &reads, sorted, None, &visit_block)?;
        }
        visit_edgeless(&lists.layout, rest, self.facts.weighted, visit);
        Ok(())
    }

    fn resident_bytes(&self) -> u64 {
        self.lists
            .each()
            .map(|lists| lists.layout.offsets.bytes() + lists.kept_bytes)
            .sum::<u64>()
            + self
                .facts
                .permutation
                .as_ref()
                .map_or(0, |p| p.len() as u64 * 4)
    }

    fn direct_io(&self) -> Option<bool> {
        Some(false)
    }

    fn io_stats(&self) -> IoStats {
        let mut stats = self.counters.snapshot();
        stats.bytes_read = process_read_bytes().saturating_sub(self.read_bytes_at_open);
        // Threads wait inside page faults, which no counter of ours sees.
        stats.io_wait_seconds = f64::NAN;
        stats
    }
}
