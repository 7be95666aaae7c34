//! The direct tier (DESIGN §5): `O_DIRECT` reads through io_uring into memory the
//! store owns and counts, so the page cache holds no second copy and the budget
//! covers every byte.
//!
//! Memory is laid out by the [`Plan`]: the offsets (warm), a prefix of each list
//! section held for the whole run (after `--reorder dbg` these are the hottest
//! lists; a cyclic scan gets no hits from CLOCK or LRU, while a pinned prefix saves
//! its share on every pass), and an arena of I/O slots registered with the ring.
//! One I/O thread per call keeps up to `queue_depth` reads in flight and hands each
//! landed read to the compute threads, which call the kernel back for every list in
//! it while the next reads arrive.

use std::fs::File;
use std::ops::Range;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::Instant;

use io_uring::{IoUring, opcode, types};
use rayon::prelude::*;
use swapless_format::{FormatError, GraphFile, SectionKind};

use crate::aligned::AlignedBuffer;
use crate::delivery::{IdCheck, deliver_list, visit_edgeless, visit_read};
use crate::error::IoUringFailure;
use crate::fault::{Fault, FaultInjector};
use crate::heads::{heads_serve, open_heads, visit_heads};
use crate::list_layout::{Directions, ListLayout, PAGE, check_ids_in_range};
use crate::page_cache::{CacheView, PageCache};
use crate::page_checks::ListChecks;
use crate::plan::{GATHER_GAP_PAGES, Plan};
use crate::read_plan::{
    Members, READS_PER_BATCH, Read, ascending, gather_reads, page_range, scan_batches,
};
use crate::slots::{GiveBack, SlotPool};
use crate::split::{Side, SplitLists};
use crate::stats::IoCounters;
use crate::{
    Adjacency, EdgeDirection, EdgeStore, IoStats, ListBlock, ListsNeeded, OffsetSlice, Result,
    SCAN_BLOCK, StoreError, Visit, VisitBlock, block_ranges, for_each_block, per_vertex,
};

/// Bytes of a pinned prefix read at a time at open.
const PINNED_READ_BYTES: u64 = 1 << 20;

/// Reads one call makes at most before the I/O thread is worth starting.
const SYNCHRONOUS_READS: usize = 2;

/// While the compute threads hold landed reads, the I/O thread sleeps until a share
/// (1 / this) of them has come back, or of the reads in flight has landed, instead of
/// waking for each. When compute is the bottleneck those reads are work in hand, so a
/// batch costs no time, and every wake-up of the I/O thread preempts a compute thread
/// on a machine with as many cores as compute threads: a streamed PageRank switched
/// threads about three times a read. With nothing in hand it wakes for each, as before.
const BATCH_DIVISOR: usize = 4;

/// One direction's lists: the layout and the prefix held in memory.
struct Lists {
    layout: ListLayout,
    /// Vertices `0..pinned_vertices` have their lists in `pinned_neighbors`.
    pinned_vertices: u32,
    pinned_neighbors: AlignedBuffer,
    pinned_weights: Option<AlignedBuffer>,
    /// Checks each page read from the file before its lists are delivered.
    checks: ListChecks,
}

impl Lists {
    /// The pinned prefix's entries (neighbors, and weights on a weighted graph).
    fn pinned_entries(&self) -> (&[u32], Option<&[f32]>) {
        (
            bytemuck::cast_slice(self.pinned_neighbors.as_slice()),
            self.pinned_weights
                .as_ref()
                .map(|weights| bytemuck::cast_slice(weights.as_slice())),
        )
    }

    fn pinned(&self, vertex: u32) -> Adjacency<'_> {
        let bounds = self.layout.offsets.as_slice().bounds(vertex as usize);
        let entries = bounds.start as usize..bounds.end as usize;
        let (neighbors, weights) = self.pinned_entries();
        Adjacency {
            neighbors: &neighbors[entries.clone()],
            weights: weights.map(|weights| &weights[entries]),
        }
    }

    /// Visits the pinned lists of `vertices` (all below `pinned_vertices`) in blocks.
    fn visit_pinned_block(&self, vertices: Range<u32>, visit_block: &VisitBlock) {
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

    fn bytes(&self) -> u64 {
        self.layout.offsets.bytes()
            + self.pinned_neighbors.len() as u64
            + self.pinned_weights.as_ref().map_or(0, |w| w.len() as u64)
    }
}

/// The ring and the slots it reads into; one call at a time uses them.
struct IoContext {
    ring: IoUring,
    arena: AlignedBuffer,
    registered: bool,
}

/// A read that has landed: its index and the slots that hold it.
struct Landed {
    read: usize,
    slots: [usize; 2],
}

/// The landed reads, as an iterator that counts how long compute threads wait.
struct Feed<'a> {
    receiver: mpsc::Receiver<Landed>,
    wait_nanos: &'a AtomicU64,
}

impl Iterator for Feed<'_> {
    type Item = Landed;
    fn next(&mut self) -> Option<Landed> {
        if let Ok(landed) = self.receiver.try_recv() {
            return Some(landed);
        }
        let started = Instant::now();
        let landed = self.receiver.recv().ok();
        IoCounters::add_time(self.wait_nanos, started.elapsed());
        landed
    }
}

/// Why this process may not use io_uring, or `None` when it may: a seccomp filter (as
/// container runtimes install) or the `kernel.io_uring_disabled` sysctl refuses the ring
/// the direct tier reads through. Sets up and drops a ring of 8 entries.
pub fn io_uring_refusal() -> Option<std::io::Error> {
    IoUring::new(8).err()
}

/// A graph read from disk with `O_DIRECT` through io_uring, under a memory budget.
pub struct DirectStore {
    path: PathBuf,
    file: File,
    direct_io: bool,
    vertices: usize,
    arcs: u64,
    weighted: bool,
    lists: Directions<Lists>,
    /// The `out_heads` section, read as lists instead of the out-lists for passes that
    /// need only their heads (when the plan says so).
    heads: Option<Lists>,
    permutation: Option<Vec<u32>>,
    /// `None` once the ring has failed with reads in flight: those may still land in
    /// its arena, so ring and arena are never freed, and later streamed calls refuse.
    io: Mutex<Option<IoContext>>,
    slot_bytes: u64,
    oversize_bytes: u64,
    regular_slots: usize,
    oversize_slots: usize,
    /// Reads that may hold room in the arena at once (the pool takes at least one).
    reads_held: usize,
    chunk_bytes: u64,
    queue_depth: usize,
    counters: IoCounters,
    /// Tests' failing reads (see `fault`).
    faults: FaultInjector,
    /// Pages gathers read, for the gathers after them.
    gather_cache: PageCache,
}

/// Reads at least `needed` bytes at `position` into `buffer` (a page-aligned length,
/// so the last read may stop short at the end of the file).
fn read_at_least(
    file: &File,
    buffer: &mut [u8],
    position: u64,
    needed: usize,
) -> std::io::Result<()> {
    let mut done = 0;
    while done < needed {
        match file.read_at(&mut buffer[done..], position + done as u64) {
            Ok(0) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the file ended early; was it truncated while the graph was in use?",
                ));
            }
            Ok(read) => done += read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

impl DirectStore {
    /// Opens `path` for the run `plan` describes: loads offsets, reads the pinned
    /// list prefixes (verifying their checksums) and sets up the ring.
    pub fn open(path: &Path, plan: &Plan) -> Result<DirectStore> {
        let graph = GraphFile::open(path)?;
        let flags = graph.flags();
        let io_error = |source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        };
        // Filesystems without O_DIRECT (tmpfs, some overlays) still work, through the page cache.
        let (file, direct_io) = match std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(path)
        {
            Ok(file) => (file, true),
            Err(_) => (File::open(path).map_err(io_error)?, false),
        };
        let vertices = graph.num_vertices();
        let open_lists = |kinds: [SectionKind; 3], pinned_bytes: u64| -> Result<Lists> {
            let layout = ListLayout::load(&graph, kinds, plan.weighted, plan.offset_form)?;
            let pinned_vertices = layout.vertices_within(pinned_bytes);
            let bytes = layout.span_bytes(0..pinned_vertices).end;
            let pinned_neighbors = read_pinned(&graph, &file, kinds[1], bytes)?;
            let ids: &[u32] = bytemuck::cast_slice(pinned_neighbors.as_slice());
            check_ids_in_range(&graph, kinds[1], &ids[..(bytes / 4) as usize])?;
            let pinned_weights = match plan.weighted {
                true => Some(read_pinned(&graph, &file, kinds[2], bytes)?),
                false => None,
            };
            Ok(Lists {
                layout,
                pinned_vertices,
                pinned_neighbors,
                pinned_weights,
                checks: ListChecks::load(&graph, kinds, plan)?,
            })
        };
        let lists = Directions::open(flags.directed, plan, open_lists)?;
        let heads = match open_heads(&graph, plan)? {
            Some((layout, checks)) => Some(Lists {
                layout,
                pinned_vertices: 0,
                pinned_neighbors: AlignedBuffer::zeroed(0)?,
                pinned_weights: None,
                checks,
            }),
            None => None,
        };
        let reads_per = plan.sections_per_list() as usize;
        let oversize_slots = if plan.oversize_slot_bytes > 0 {
            reads_per
        } else {
            0
        };
        let regular_slots = plan.regular_slots as usize;
        let arena = AlignedBuffer::zeroed(
            regular_slots as u64 * plan.slot_bytes
                + oversize_slots as u64 * plan.oversize_slot_bytes,
        )?;
        let entries = ((plan.queue_depth * reads_per).next_power_of_two() as u32).clamp(8, 4096);
        let ring = IoUring::new(entries).map_err(|source| StoreError::IoUring {
            path: path.to_path_buf(),
            failure: IoUringFailure::Unavailable(source),
        })?;
        let region = libc::iovec {
            iov_base: arena.as_mut_ptr().cast(),
            iov_len: arena.len(),
        };
        // SAFETY: the arena outlives the ring (both live in the same IoContext, and the
        // ring is dropped first, unregistering it); reads only ever target its slots.
        let registered = unsafe { ring.submitter().register_buffers(&[region]) }.is_ok();
        Ok(DirectStore {
            path: path.to_path_buf(),
            file,
            direct_io,
            vertices,
            arcs: graph.num_arcs() as u64,
            weighted: plan.weighted,
            lists,
            heads,
            permutation: graph.load_permutation()?,
            io: Mutex::new(Some(IoContext {
                ring,
                arena,
                registered,
            })),
            slot_bytes: plan.slot_bytes,
            oversize_bytes: plan.oversize_slot_bytes,
            regular_slots,
            oversize_slots,
            reads_held: plan.reads_held as usize,
            chunk_bytes: plan.chunk_bytes,
            queue_depth: plan.queue_depth.max(1),
            counters: IoCounters::default(),
            faults: FaultInjector::from_environment(),
            gather_cache: PageCache::new(plan.gather_cache_bytes)?,
        })
    }

    /// Whether reads bypass the page cache (false on filesystems that refuse `O_DIRECT`).
    pub fn direct_io(&self) -> bool {
        self.direct_io
    }

    fn lists(&self, direction: EdgeDirection) -> &Lists {
        self.lists.get(direction)
    }

    fn truncated(&self, detail: &str) -> StoreError {
        FormatError::Truncated {
            path: self.path.clone(),
            detail: detail.to_string(),
        }
        .into()
    }

    /// Ids checked at delivery, for lists not vouched for by their pages' checks.
    fn ids_at_delivery(&self) -> IdCheck<'_> {
        IdCheck::AtDelivery {
            vertices: self.vertices,
            path: &self.path,
        }
    }

    /// Calls `visit_block` with the lists `read` holds, from `bytes` (the read's pages
    /// of the neighbor section) and `weights` (the same pages of the weight section).
    #[allow(clippy::too_many_arguments)]
    fn deliver(
        &self,
        lists: &Lists,
        read: &Read,
        sorted: &[u32],
        bytes: &[u8],
        weights: Option<&[u8]>,
        ids: IdCheck,
        visit_block: &VisitBlock,
    ) -> Result<u64> {
        let delivered = visit_read(
            &lists.layout,
            read,
            sorted,
            bytemuck::cast_slice(bytes),
            weights.map(bytemuck::cast_slice),
            ids,
            visit_block,
        )?;
        IoCounters::add(&self.counters.delivered_bytes, delivered);
        Ok(delivered)
    }

    /// Delivers what read `index` of `reads` holds: its whole lists, and its sides of the
    /// lists it splits with the reads beside it (each delivered by whichever read lands
    /// second). `neighbors` and `weights` are the read's pages.
    #[allow(clippy::too_many_arguments)]
    fn deliver_with_splits(
        &self,
        lists: &Lists,
        reads: &[Read],
        index: usize,
        sorted: &[u32],
        neighbors: &[u8],
        weights: Option<&[u8]>,
        split: &SplitLists,
        visit_block: &VisitBlock,
    ) -> Result<()> {
        let read = &reads[index];
        let pages_passed = lists.checks.check(read.bytes.start, neighbors, weights)?;
        let ids = IdCheck::unless_passed(pages_passed, self.vertices, &self.path);
        self.deliver(lists, read, sorted, neighbors, weights, ids, visit_block)?;
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
            let joined = split.offer(
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
                    visit_block,
                )?;
                IoCounters::add(&self.counters.delivered_bytes, delivered);
            }
        }
        Ok(())
    }

    /// The error for a split list left without its other side, which a finished batch
    /// never has: delivering the batch without it would be a wrong answer.
    fn check_joined(&self, split: &SplitLists) -> Result<()> {
        match split.unjoined() {
            0 => Ok(()),
            count => Err(StoreError::IoUring {
                path: self.path.clone(),
                failure: IoUringFailure::ListsNotJoined(count),
            }),
        }
    }

    /// Bytes of `read` that must arrive (the section may end before its last page).
    fn needed_bytes(lists: &Lists, read: &Read) -> usize {
        (read.bytes.end.min(lists.layout.section_bytes()) - read.bytes.start) as usize
    }

    /// Reads with plain `pread`s on the calling thread: for calls too small to be
    /// worth the I/O thread, and for a call made from inside another's callback.
    fn read_synchronously(
        &self,
        lists: &Lists,
        reads: &[Read],
        sorted: &[u32],
        visit_block: &VisitBlock,
        keep: bool,
    ) -> Result<()> {
        let split = SplitLists::new(reads);
        for (index, read) in reads.iter().enumerate() {
            let length = read.bytes.end - read.bytes.start;
            let needed = Self::needed_bytes(lists, read);
            let fetch = |at: u64| -> Result<AlignedBuffer> {
                let mut buffer = AlignedBuffer::zeroed(length)?;
                read_at_least(
                    &self.file,
                    buffer.as_mut_slice(),
                    at + read.bytes.start,
                    needed,
                )
                .map_err(|source| StoreError::Io {
                    path: self.path.clone(),
                    source,
                })?;
                IoCounters::add(&self.counters.read_requests, 1);
                IoCounters::add(&self.counters.bytes_read, length);
                Ok(buffer)
            };
            let neighbors = fetch(lists.layout.neighbors_at)?;
            let weights = match lists.layout.weights_at {
                Some(at) => Some(fetch(at)?),
                None => None,
            };
            let neighbors = &neighbors.as_slice()[..length as usize];
            let weights = weights.as_ref().map(|w| &w.as_slice()[..length as usize]);
            self.deliver_with_splits(
                lists,
                reads,
                index,
                sorted,
                neighbors,
                weights,
                &split,
                visit_block,
            )?;
            if keep {
                self.keep_pages(lists, read, neighbors, weights);
            }
        }
        self.check_joined(&split)
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

    /// A scan of `range`, or a partial scan when `needed` says what it needs of each
    /// list: the pinned lists (computed on while the first reads fly, or
    /// alone when nothing is read), then batches of reads in file order. Members of
    /// reads without bytes (no edges, or a list a partial scan cuts to nothing) are
    /// visited with empty lists. A pass that needs only the heads of the out-lists reads
    /// the heads section instead of the lists beyond the pinned ones.
    fn scan_lists(
        &self,
        direction: EdgeDirection,
        range: Range<u32>,
        needed: Option<ListsNeeded>,
        visit_block: &VisitBlock,
    ) -> Result<()> {
        let lists = self.lists(direction);
        if let Some(heads) = &self.heads
            && heads_serve(needed, direction, self.lists.directed())
        {
            let offsets = lists.layout.offsets.as_slice();
            let cut = |block: ListBlock<'_>| visit_heads(block, offsets, visit_block);
            return self.scan_from(lists, heads, range, None, visit_block, &cut);
        }
        self.scan_from(lists, lists, range, needed, visit_block, visit_block)
    }

    /// Visits the pinned lists of `range` with `visit_block`, and reads the rest of the
    /// range from `source` (the lists themselves, or the heads section), handing what
    /// lands to `visit_read_block`.
    fn scan_from(
        &self,
        lists: &Lists,
        source: &Lists,
        range: Range<u32>,
        needed: Option<ListsNeeded>,
        visit_block: &VisitBlock,
        visit_read_block: &VisitBlock,
    ) -> Result<()> {
        let pinned_end = lists.pinned_vertices.clamp(range.start, range.end);
        let pinned = range.start..pinned_end;
        let batches = scan_batches(
            &source.layout,
            pinned_end..range.end,
            self.chunk_bytes,
            true,
            needed,
        );
        let mut visit_pinned = Some(|| {
            block_ranges(pinned.clone(), SCAN_BLOCK)
                .for_each(|vertices| lists.visit_pinned_block(vertices, visit_block));
            let bytes = lists.layout.span_bytes(pinned.clone());
            let factor = if self.weighted { 2 } else { 1 };
            let pinned_bytes = (bytes.end - bytes.start) * factor;
            IoCounters::add(&self.counters.cached_bytes, pinned_bytes);
            IoCounters::add(&self.counters.delivered_bytes, pinned_bytes);
        });
        for batch in batches {
            let (empty, reads): (Vec<Read>, Vec<Read>) =
                batch.into_iter().partition(|read| read.bytes.is_empty());
            self.stream(source, &reads, &[], visit_read_block, false, || {
                let no_weights: &[f32] = &[];
                for read in &empty {
                    // Lists without edges, or one a partial scan cut to nothing.
                    visit_read(
                        &source.layout,
                        read,
                        &[],
                        &[],
                        self.weighted.then_some(no_weights),
                        IdCheck::Passed,
                        visit_read_block,
                    )?;
                }
                if let Some(visit_pinned) = visit_pinned.take() {
                    visit_pinned();
                }
                Ok(())
            })?;
        }
        if let Some(visit_pinned) = visit_pinned {
            visit_pinned();
        }
        Ok(())
    }

    /// Delivers the lists of `sorted` whose pages are all in the page cache for gathers,
    /// and returns the others (all of them when there is no such cache). Each list is
    /// looked up on its own, before misses are coalesced into reads: a coalesced read
    /// hits only if every page it spans is here, and on a grid the spans shift from level
    /// to level while the lists' own pages stay (bfs on grid23 at 84 MiB read 2.45 GiB
    /// when reads were looked up whole, 600 MiB so).
    fn deliver_cached_lists<'a>(
        &self,
        lists: &Lists,
        sorted: &'a [u32],
        visit_block: &VisitBlock,
    ) -> Result<std::borrow::Cow<'a, [u32]>> {
        if self.gather_cache.bytes() == 0 {
            return Ok(std::borrow::Cow::Borrowed(sorted));
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
        Ok(std::borrow::Cow::Owned(
            sorted
                .iter()
                .zip(hits)
                .filter(|(_, hit)| !hit)
                .map(|(&vertex, _)| vertex)
                .collect(),
        ))
    }

    /// Runs `reads` through the ring while compute threads call `visit_block` for each
    /// read that lands; `meanwhile` runs on the calling thread as the first reads fly
    /// (its error is the call's, after the reads in flight have landed).
    fn stream(
        &self,
        lists: &Lists,
        reads: &[Read],
        sorted: &[u32],
        visit_block: &VisitBlock,
        keep: bool,
        meanwhile: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let mut guard = match reads.len() > SYNCHRONOUS_READS {
            true => self.io.try_lock().ok(),
            false => None,
        };
        let Some(held) = guard.as_deref_mut() else {
            meanwhile()?;
            return self.read_synchronously(lists, reads, sorted, visit_block, keep);
        };
        let Some(context) = held.as_mut() else {
            return Err(StoreError::IoUring {
                path: self.path.clone(),
                failure: IoUringFailure::FailedEarlier,
            });
        };
        let IoContext {
            ring,
            arena,
            registered,
        } = context;
        let registered = *registered;
        let arena: &AlignedBuffer = arena;
        let base = arena.as_mut_ptr() as usize;
        let pool = SlotPool::new(
            self.regular_slots,
            self.slot_bytes,
            self.oversize_slots as u64 * self.oversize_bytes,
            self.reads_held,
        );
        let failure: Mutex<Option<StoreError>> = Mutex::new(None);
        let remember = |error: StoreError| {
            let mut slot = failure.lock().unwrap_or_else(|poison| poison.into_inner());
            slot.get_or_insert(error);
        };
        let split = SplitLists::new(reads);
        let (sender, receiver) = mpsc::channel();
        let ring_failed = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let pool = &pool;
            let ring_failed = &ring_failed;
            let pump = scope.spawn(move || {
                self.pump(
                    ring,
                    base,
                    registered,
                    lists,
                    reads,
                    pool,
                    sender,
                    ring_failed,
                )
            });
            if let Err(error) = meanwhile() {
                remember(error);
            }
            let feed = Feed {
                receiver,
                wait_nanos: &self.counters.io_wait_nanos,
            };
            feed.par_bridge().for_each(|landed| {
                let read = &reads[landed.read];
                let length = (read.bytes.end - read.bytes.start) as usize;
                // SAFETY: the read into these slots has completed and the pump handed them
                // over; nobody writes them until they are given back below. Each slot is
                // at least `length` bytes of the arena.
                let slot = |index: usize| unsafe {
                    std::slice::from_raw_parts(
                        (base as u64 + pool.offset(index)) as *const u8,
                        length,
                    )
                };
                let weights = (landed.slots[1] != usize::MAX).then(|| slot(landed.slots[1]));
                let neighbors = slot(landed.slots[0]);
                // Gives the slots back even if the kernel panics, so the I/O thread never
                // waits for them in vain.
                let _give_back = GiveBack {
                    pool,
                    slots: landed.slots,
                    length: length as u64,
                };
                if let Err(error) = self.deliver_with_splits(
                    lists,
                    reads,
                    landed.read,
                    sorted,
                    neighbors,
                    weights,
                    &split,
                    visit_block,
                ) {
                    remember(error);
                } else if keep {
                    self.keep_pages(lists, read, neighbors, weights);
                }
            });
            match pump.join() {
                Ok(Ok(())) => {}
                Ok(Err(error)) => remember(error),
                Err(_) => remember(StoreError::Io {
                    path: self.path.clone(),
                    source: std::io::Error::other("the I/O thread stopped unexpectedly"),
                }),
            }
        });
        if ring_failed.load(Ordering::Relaxed) {
            // The kernel may still write the reads in flight into the arena, which must
            // outlive them: leaking it (the budget counted it) is the one way to be sure.
            // The ring goes with it; closing it would not wait for them.
            std::mem::forget(held.take());
        }
        match failure
            .into_inner()
            .unwrap_or_else(|poison| poison.into_inner())
        {
            Some(error) => Err(error),
            None => self.check_joined(&split),
        }
    }

    /// The I/O thread: keeps up to `queue_depth` reads in flight and sends each one
    /// that lands to the compute threads. It returns only when nothing is in flight,
    /// so no read can land in a slot after the call ends, except if the ring itself
    /// fails: then it sets `ring_failed` and returns the error at once, and the caller
    /// must never free the ring or the arena.
    #[allow(clippy::too_many_arguments)]
    fn pump(
        &self,
        ring: &mut IoUring,
        base: usize,
        registered: bool,
        lists: &Lists,
        reads: &[Read],
        pool: &SlotPool,
        landed: mpsc::Sender<Landed>,
        ring_failed: &AtomicBool,
    ) -> Result<()> {
        let fd = types::Fd(self.file.as_raw_fd());
        let parts: Vec<u64> = std::iter::once(lists.layout.neighbors_at)
            .chain(lists.layout.weights_at)
            .collect();
        let mut flights: Vec<(u8, [usize; 2])> = vec![(0, [usize::MAX; 2]); reads.len()];
        let (mut next, mut reads_in_flight, mut requests_in_flight) = (0usize, 0usize, 0u64);
        // Reads longer than a slot that wait for room in the oversize region, oldest
        // first; regular reads behind them go ahead, so one long list does not stall
        // the queue (it did: with --chunk 4K a kron23 bfs took over 10 minutes).
        let mut deferred: std::collections::VecDeque<usize> = std::collections::VecDeque::new();
        let mut failure: Option<StoreError> = None;
        let mut last_event = Instant::now();
        let length_of = |index: usize| reads[index].bytes.end - reads[index].bytes.start;
        loop {
            let returns_seen = pool.returns();
            if pool.abandoned() && failure.is_none() {
                // A kernel panicked: stop reading, so the panic reaches the caller soon.
                failure = Some(StoreError::Io {
                    path: self.path.clone(),
                    source: std::io::Error::other("the kernel stopped"),
                });
            }
            while failure.is_none() && reads_in_flight < self.queue_depth {
                let oldest_deferred = deferred.front().and_then(|&index| {
                    pool.try_take(length_of(index), parts.len())
                        .map(|slots| (index, slots))
                });
                let (index, slots) = match oldest_deferred {
                    Some(taken) => {
                        deferred.pop_front();
                        taken
                    }
                    None if next < reads.len() => {
                        let length = length_of(next);
                        if !pool.fits_at_all(length, parts.len()) {
                            failure.get_or_insert(StoreError::Io {
                                path: self.path.clone(),
                                source: std::io::Error::other(format!(
                                    "a read of {length} bytes is larger than the I/O buffers"
                                )),
                            });
                            break;
                        }
                        let oversize = length > self.slot_bytes;
                        let taken = match oversize && !deferred.is_empty() {
                            true => None,
                            false => pool.try_take(length, parts.len()),
                        };
                        match (taken, oversize) {
                            (Some(slots), _) => {
                                next += 1;
                                (next - 1, slots)
                            }
                            (None, true) => {
                                deferred.push_back(next);
                                next += 1;
                                continue;
                            }
                            (None, false) => break,
                        }
                    }
                    None => break,
                };
                let read = &reads[index];
                let length = length_of(index);
                for (part, &section_at) in parts.iter().enumerate() {
                    let address = (base as u64 + pool.offset(slots[part])) as *mut u8;
                    let position = section_at + read.bytes.start;
                    let entry = if registered {
                        opcode::ReadFixed::new(fd, address, length as u32, 0)
                            .offset(position)
                            .build()
                    } else {
                        opcode::Read::new(fd, address, length as u32)
                            .offset(position)
                            .build()
                    };
                    let entry = entry.user_data(((index as u64) << 1) | part as u64);
                    // SAFETY: the slot belongs to this read alone until its completion is
                    // reaped below, and the arena outlives every read (see `pump`'s contract).
                    // The ring has room: it holds twice the queue depth in entries.
                    if unsafe { ring.submission().push(&entry) }.is_err() {
                        failure.get_or_insert(StoreError::Io {
                            path: self.path.clone(),
                            source: std::io::Error::other("the submission queue is full"),
                        });
                    }
                }
                flights[index] = (parts.len() as u8, slots);
                reads_in_flight += 1;
                requests_in_flight += parts.len() as u64;
                IoCounters::add(&self.counters.read_requests, parts.len() as u64);
                IoCounters::add(&self.counters.bytes_read, length * parts.len() as u64);
                self.counters
                    .max_queue_depth
                    .fetch_max(requests_in_flight, std::sync::atomic::Ordering::Relaxed);
            }
            if reads_in_flight == 0 {
                if failure.is_some() || (next == reads.len() && deferred.is_empty()) {
                    break;
                }
                // Every read that holds room is with the compute threads: all of them
                // will come back, so waiting for a share of them cannot hang.
                let in_hand = pool.reads_held();
                let batch = (in_hand / BATCH_DIVISOR).max(1) as u64;
                pool.wait_for_returns(returns_seen, batch);
                last_event = Instant::now();
                continue;
            }
            // Landed reads the compute threads still hold are work in hand.
            let in_hand = pool.reads_held().saturating_sub(reads_in_flight);
            let completions_wanted =
                (in_hand / BATCH_DIVISOR).clamp(1, requests_in_flight as usize);
            loop {
                match ring.submit_and_wait(completions_wanted) {
                    Ok(_) => break,
                    Err(error)
                        if matches!(
                            error.raw_os_error(),
                            Some(libc::EINTR) | Some(libc::EAGAIN) | Some(libc::EBUSY)
                        ) => {}
                    // Reads already submitted may still land in the arena: the caller
                    // leaks it. This never happens on a working kernel.
                    Err(error) => {
                        ring_failed.store(true, Ordering::Relaxed);
                        return Err(StoreError::IoUring {
                            path: self.path.clone(),
                            failure: IoUringFailure::Stopped(error),
                        });
                    }
                }
            }
            let now = Instant::now();
            let elapsed = now - last_event;
            last_event = now;
            IoCounters::add_time(&self.counters.busy_nanos, elapsed);
            // All requests were in flight until the first completion; when several were
            // waited for, the rest landed at times unknown in between: count them as in
            // flight for half the wait, so batching does not inflate the mean depth.
            let depth = requests_in_flight as f64 - (completions_wanted - 1) as f64 / 2.0;
            IoCounters::add(
                &self.counters.queue_depth_nanos,
                (elapsed.as_nanos() as f64 * depth) as u64,
            );
            let completions: Vec<(u64, i32)> = ring
                .completion()
                .map(|entry| (entry.user_data(), entry.result()))
                .collect();
            for (data, result) in completions {
                let result = match self.faults.next() {
                    Some(Fault::Eio) => -libc::EIO,
                    // Half of what arrived; a failed read stays failed.
                    Some(Fault::Short) if result > 0 => result / 2,
                    Some(_) => result,
                    None => result,
                };
                let index = (data >> 1) as usize;
                let read = &reads[index];
                requests_in_flight -= 1;
                if result < 0 {
                    failure.get_or_insert(StoreError::Io {
                        path: self.path.clone(),
                        source: std::io::Error::from_raw_os_error(-result),
                    });
                } else if (result as usize) < Self::needed_bytes(lists, read) {
                    failure.get_or_insert(
                        self.truncated(
                            "a read came back short; was the file truncated while in use?",
                        ),
                    );
                }
                let flight = &mut flights[index];
                flight.0 -= 1;
                if flight.0 == 0 {
                    reads_in_flight -= 1;
                    let slots = flight.1;
                    let handed =
                        failure.is_none() && landed.send(Landed { read: index, slots }).is_ok();
                    if !handed {
                        pool.give_back(slots, length_of(index));
                    }
                }
            }
        }
        failure.map_or(Ok(()), Err)
    }
}

/// Reads the first `bytes` of section `kind` (rounded up to pages) into memory,
/// verifying every checksum block it holds whole.
fn read_pinned(
    graph: &GraphFile,
    file: &File,
    kind: SectionKind,
    bytes: u64,
) -> Result<AlignedBuffer> {
    let path = graph.path();
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
        read_at_least(file, piece, entry.offset + start, needed).map_err(|source| {
            StoreError::Io {
                path: path.to_path_buf(),
                source,
            }
        })?;
        // The prefix may end inside a block (a 1 MiB block of a version-1 file), which
        // cannot be checked; the last block of the section ends where the section does.
        let block_bytes = graph.checksum_block_bytes();
        let checkable = match start + needed as u64 == entry.length {
            true => needed,
            false => (needed as u64 / block_bytes * block_bytes) as usize,
        };
        graph.verify_blocks(kind, start, &piece[..checkable])?;
    }
    Ok(buffer)
}

impl EdgeStore for DirectStore {
    fn num_vertices(&self) -> usize {
        self.vertices
    }

    fn num_arcs(&self) -> u64 {
        self.arcs
    }

    fn directed(&self) -> bool {
        self.lists.directed()
    }

    fn weighted(&self) -> bool {
        self.weighted
    }

    fn tier(&self) -> &'static str {
        "direct"
    }

    fn offsets(&self, direction: EdgeDirection) -> OffsetSlice<'_> {
        self.lists(direction).layout.offsets.as_slice()
    }

    fn permutation(&self) -> Option<&[u32]> {
        self.permutation.as_deref()
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
        let sorted = ascending(vertices);
        let (pinned, rest) =
            sorted.split_at(sorted.partition_point(|&vertex| vertex < lists.pinned_vertices));
        // The pinned lists are visited while the first reads fly (or alone).
        let mut visit_pinned = Some(|| {
            let factor = if self.weighted { 2 } else { 1 };
            let bytes: u64 = pinned
                .par_iter()
                .with_min_len(64)
                .map(|&vertex| {
                    let list = lists.pinned(vertex);
                    visit(vertex, list);
                    list.neighbors.len() as u64 * 4 * factor
                })
                .sum();
            IoCounters::add(&self.counters.cached_bytes, bytes);
            IoCounters::add(&self.counters.delivered_bytes, bytes);
        });
        let visit_block = per_vertex(visit);
        for sorted in rest.chunks(READS_PER_BATCH) {
            let missed = self.deliver_cached_lists(lists, sorted, &visit_block)?;
            let reads = gather_reads(&lists.layout, &missed, self.chunk_bytes, GATHER_GAP_PAGES);
            self.stream(lists, &reads, &missed, &visit_block, true, || {
                if let Some(visit_pinned) = visit_pinned.take() {
                    visit_pinned();
                }
                Ok(())
            })?;
        }
        if let Some(visit_pinned) = visit_pinned {
            visit_pinned();
        }
        visit_edgeless(&lists.layout, rest, self.weighted, visit);
        Ok(())
    }

    fn resident_bytes(&self) -> u64 {
        let arena = self.regular_slots as u64 * self.slot_bytes
            + self.oversize_slots as u64 * self.oversize_bytes;
        self.lists.each().map(Lists::bytes).sum::<u64>()
            + self.permutation.as_ref().map_or(0, |p| p.len() as u64 * 4)
            + arena
            + self.gather_cache.bytes()
    }

    fn direct_io(&self) -> Option<bool> {
        Some(self.direct_io)
    }

    fn io_stats(&self) -> IoStats {
        self.counters.snapshot()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_reads_share_the_oversize_region_and_give_it_back_whole() {
        // Two 2-page slots, and a 16-page oversize region after them.
        let pool = SlotPool::new(2, 2 * PAGE, 16 * PAGE, 8);
        assert_eq!(pool.try_take(PAGE, 1).map(|s| s[0] < 4), Some(true));
        // Several long reads at once, while they fit.
        let first = pool.try_take(5 * PAGE, 1).unwrap();
        let second = pool.try_take(5 * PAGE, 1).unwrap();
        assert!(first[0] >= 4 && second[0] >= 4);
        assert_ne!(pool.offset(first[0]), pool.offset(second[0]));
        assert!(
            pool.try_take(7 * PAGE, 1).is_none(),
            "only 6 pages are left"
        );
        // A read in two parts (neighbors and weights) takes both or neither.
        assert!(pool.try_take(4 * PAGE, 2).is_none());
        assert!(pool.try_take(3 * PAGE, 2).is_some());
        pool.give_back(first, 5 * PAGE);
        pool.give_back(second, 5 * PAGE);
        // The freed extents merge with each other: 10 pages in one piece.
        assert!(pool.try_take(10 * PAGE, 1).is_some());
        assert!(pool.fits_at_all(16 * PAGE, 1));
        assert!(!pool.fits_at_all(9 * PAGE, 2));
    }

    #[test]
    fn short_reads_share_slots_up_to_the_reads_held_at_most() {
        // Two 4-page slots; up to 6 reads may hold room.
        let pool = SlotPool::new(2, 4 * PAGE, 0, 6);
        let reads: Vec<[usize; 2]> = (0..6).map(|_| pool.try_take(PAGE, 1).unwrap()).collect();
        let mut pages: Vec<usize> = reads.iter().map(|slots| slots[0]).collect();
        pages.sort();
        pages.dedup();
        assert_eq!(pages.len(), 6, "six one-page reads in two slots, apart");
        assert!(pages.iter().all(|&page| page < 8));
        assert!(
            pool.try_take(PAGE, 1).is_none(),
            "two pages are free, but six reads hold room already"
        );
        // A slot-long read needs a slot of its own: none is free while both hold reads.
        pool.give_back(reads[0], PAGE);
        assert!(pool.try_take(4 * PAGE, 1).is_none());
        // The first slot is free again once all four of its reads are back.
        for slots in &reads[1..4] {
            pool.give_back(*slots, PAGE);
        }
        let whole = pool.try_take(4 * PAGE, 1).unwrap();
        assert_eq!(pool.offset(whole[0]), 0);
        // Neighbors and weights: both parts or neither.
        assert!(pool.try_take(3 * PAGE, 2).is_none());
        for slots in &reads[4..] {
            pool.give_back(*slots, PAGE);
        }
        assert!(pool.try_take(2 * PAGE, 2).is_some());
        assert!(!pool.fits_at_all(5 * PAGE, 1), "no oversize region");
        assert!(pool.fits_at_all(4 * PAGE, 2));
        assert!(!pool.fits_at_all(4 * PAGE, 3));
    }

    #[test]
    fn the_io_thread_waits_for_a_batch_of_give_backs_or_a_panic() {
        use std::sync::atomic::AtomicU64;
        use std::time::Duration;
        let pool = SlotPool::new(4, PAGE, 0, 4);
        let reads: Vec<[usize; 2]> = (0..4).map(|_| pool.try_take(PAGE, 1).unwrap()).collect();
        assert_eq!(pool.reads_held(), 4);
        let woke_after = AtomicU64::new(0);
        let (pool, woke_after) = (&pool, &woke_after);
        std::thread::scope(|scope| {
            let seen = pool.returns();
            let waiter = scope.spawn(move || {
                pool.wait_for_returns(seen, 3);
                woke_after.store(pool.returns(), Ordering::SeqCst);
            });
            for slots in &reads[..2] {
                pool.give_back(*slots, PAGE);
                std::thread::sleep(Duration::from_millis(50));
                assert_eq!(
                    woke_after.load(Ordering::SeqCst),
                    0,
                    "woke before the third"
                );
            }
            pool.give_back(reads[2], PAGE);
            waiter.join().unwrap();
        });
        assert_eq!(woke_after.load(Ordering::SeqCst), 3);
        assert_eq!(pool.reads_held(), 1);
        // A compute thread that panics with a read in hand wakes the waiter at once: the
        // reads it would have given back may never come.
        std::thread::scope(|scope| {
            let seen = pool.returns();
            let waiter = scope.spawn(move || pool.wait_for_returns(seen, 100));
            std::thread::sleep(Duration::from_millis(50));
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let _give_back = GiveBack {
                    pool,
                    slots: reads[3],
                    length: PAGE,
                };
                panic!("a kernel's bug");
            }));
            waiter.join().unwrap();
        });
        assert!(pool.abandoned());
    }
}
