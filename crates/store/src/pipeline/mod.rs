//! The direct tier (DESIGN §5): the read pipeline over a page source. Memory is laid
//! out by the [`Plan`]: the offsets (warm), a prefix of each list section held for the
//! whole run (after degree-based reordering these are the hottest lists; a cyclic scan
//! gets no hits from CLOCK or LRU, while a pinned prefix saves its share on every
//! pass), and an arena of I/O slots the source reads into. A scan or gather is planned
//! into reads ([`crate::lists::read_plan`]); one I/O thread per call keeps up to the queue
//! depth in flight and hands each landed read to the compute threads, which check its
//! pages and call the kernel back for every list in it while the next reads arrive.
//!
//! The pipeline knows its source only through [`PageSource`]: the graph file through
//! io_uring, with `O_DIRECT`, or a far graph's values.

mod deliver;
mod lists;
mod page_cache;
mod slots;
mod split;
mod stream;

use std::ops::Range;
use std::path::Path;
use std::sync::Mutex;

use rayon::prelude::*;
use swapless_format::{FormatError, GraphFile, SectionKind};

use crate::aligned::AlignedBuffer;
use crate::budget::Plan;
use crate::fault::FaultInjector;
use crate::lists::decode::{Landed, deliver_decoded, visit_read_decoded};
use crate::lists::delivery::{IdCheck, visit_edgeless, visit_read};
use crate::lists::heads::{heads_serve, open_heads, visit_heads};
use crate::lists::layout::{Directions, ListLayout, check_ids_in_range};
use crate::lists::page_checks::ListChecks;
use crate::lists::read_plan::{READS_PER_BATCH, Read, ascending, gather_reads, scan_batches};
use crate::sources::{PageQueue, PageSource, UringFile};
use crate::stats::IoCounters;
use crate::units::GATHER_GAP_PAGES;
use crate::{
    EdgeDirection, EdgeStore, GraphFacts, IoStats, ListBlock, ListsNeeded, OffsetSlice, Result,
    SCAN_BLOCK, StoreError, Visit, VisitBlock, block_ranges, per_vertex,
};
use lists::{Lists, read_pinned};
use page_cache::PageCache;
use split::SplitLists;

/// The page source's queue and the arena it reads into; one call at a time uses them.
/// The queue is declared first, so it is dropped (and the arena unregistered) first.
struct IoContext {
    queue: Box<dyn PageQueue>,
    arena: AlignedBuffer,
}

/// One call's reads, as the I/O thread submits them and the compute threads deliver.
struct Batch<'a> {
    /// The direction's lists (or the heads section) the reads are of.
    lists: &'a Lists,
    /// The reads, in file order.
    reads: &'a [Read],
    /// A gather's vertices, ascending (empty for a scan).
    sorted: &'a [u32],
    /// Lists split between two reads, joined by whichever lands second.
    split: SplitLists,
    /// The kernel's callback.
    visit_block: &'a VisitBlock<'a>,
    /// Whether landed pages are kept for later gathers.
    keep: bool,
    /// What a partial scan needs of each list (decoding spares the rest).
    needed: Option<ListsNeeded<'a>>,
}

impl<'a> Batch<'a> {
    fn new(
        lists: &'a Lists,
        reads: &'a [Read],
        sorted: &'a [u32],
        visit_block: &'a VisitBlock<'a>,
        keep: bool,
        needed: Option<ListsNeeded<'a>>,
    ) -> Batch<'a> {
        Batch {
            lists,
            reads,
            sorted,
            split: SplitLists::new(reads),
            visit_block,
            keep,
            needed,
        }
    }
}

/// A graph read through the pipeline from a page source, under a memory budget.
pub struct DirectStore {
    /// `None` once the queue has failed with reads in flight: those may still land in
    /// its arena, so queue and arena are never freed, and later streamed calls refuse.
    /// Declared before the source, so that it is dropped first.
    io: Mutex<Option<IoContext>>,
    source: Box<dyn PageSource>,
    facts: GraphFacts,
    lists: Directions<Lists>,
    /// The `out_heads` section, read as lists instead of the out-lists for passes that
    /// need only their heads (when the plan says so).
    heads: Option<Lists>,
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

impl DirectStore {
    /// Opens `path` for the run `plan` describes, read through io_uring.
    pub fn open(path: &Path, plan: &Plan) -> Result<DirectStore> {
        DirectStore::over(Box::new(UringFile::open(path)?), plan)
    }

    /// Opens the graph `source` serves for the run `plan` describes: loads offsets from
    /// the source's local file, reads the pinned list prefixes through the source
    /// (verifying their checksums) and sets up the source's queue. Any [`PageSource`]
    /// (a graph origin's, such as a far graph's) runs through the same pipeline.
    pub fn over(source: Box<dyn PageSource>, plan: &Plan) -> Result<DirectStore> {
        let grant = plan.pipeline();
        let held = grant.lists;
        let graph = GraphFile::open(source.path())?;
        let flags = graph.flags();
        let open_lists = |kinds: [SectionKind; 3], pinned_bytes: u64| -> Result<Lists> {
            let layout = ListLayout::load(&graph, kinds, held.weighted, held.offset_form)?;
            let pinned_vertices = layout.vertices_within(pinned_bytes);
            let bytes = layout.span_bytes(0..pinned_vertices).end;
            let pinned_neighbors = read_pinned(&graph, source.as_ref(), kinds[1], bytes)?;
            // Compressed ids are checked once decoded, at delivery; their weights lie
            // beside them, in the same section.
            let plain_weights = held.weighted && !layout.is_compressed();
            if !layout.is_compressed() {
                let ids: &[u32] = bytemuck::cast_slice(pinned_neighbors.as_slice());
                check_ids_in_range(&graph, kinds[1], &ids[..(bytes / 4) as usize])?;
            }
            let pinned_weights = match plain_weights {
                true => Some(read_pinned(&graph, source.as_ref(), kinds[2], bytes)?),
                false => None,
            };
            Ok(Lists {
                layout,
                pinned_vertices,
                pinned_neighbors,
                pinned_weights,
                checks: ListChecks::load(&graph, kinds, held.reads(kinds[1]), plain_weights)?,
            })
        };
        let lists = Directions::open(flags.directed, held.prefix_bytes, open_lists)?;
        let heads = match open_heads(&graph, held.heads_read)? {
            Some((layout, checks)) => Some(Lists {
                layout,
                pinned_vertices: 0,
                pinned_neighbors: AlignedBuffer::zeroed(0)?,
                pinned_weights: None,
                checks,
            }),
            None => None,
        };
        if source.may_change_unnoticed() {
            lists
                .each()
                .chain(&heads)
                .for_each(|lists| lists.checks.check_every_read());
        }
        let reads_per = held.sections_per_list() as usize;
        let geometry = grant.slots;
        let oversize_slots = if geometry.oversize_slot_bytes > 0 {
            reads_per
        } else {
            0
        };
        let regular_slots = geometry.regular_slots as usize;
        let arena = AlignedBuffer::zeroed(
            regular_slots as u64 * geometry.slot_bytes
                + oversize_slots as u64 * geometry.oversize_slot_bytes,
        )?;
        let entries = ((grant.queue_depth * reads_per).next_power_of_two() as u32).clamp(8, 4096);
        let queue = source.queue(&arena, entries)?;
        Ok(DirectStore {
            io: Mutex::new(Some(IoContext { queue, arena })),
            source,
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
            slot_bytes: geometry.slot_bytes,
            oversize_bytes: geometry.oversize_slot_bytes,
            regular_slots,
            oversize_slots,
            reads_held: geometry.reads_held as usize,
            chunk_bytes: grant.chunk_bytes,
            queue_depth: grant.queue_depth.max(1),
            counters: IoCounters::default(),
            faults: FaultInjector::from_environment(),
            gather_cache: PageCache::new(grant.gather_cache_bytes)?,
        })
    }

    /// Whether reads bypass the page cache (false on filesystems that refuse `O_DIRECT`).
    pub fn direct_io(&self) -> bool {
        self.source.direct_io()
    }

    fn lists(&self, direction: EdgeDirection) -> &Lists {
        self.lists.get(direction)
    }

    fn truncated(&self, detail: &str) -> StoreError {
        FormatError::Truncated {
            path: self.source.path().to_path_buf(),
            detail: detail.to_string(),
        }
        .into()
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
        // Compressed lists are never split between reads: a list's chunks decode together.
        let batches = scan_batches(
            &source.layout,
            pinned_end..range.end,
            self.chunk_bytes,
            !source.layout.is_compressed(),
            needed,
        );
        let mut visit_pinned = Some(|| -> Result<()> {
            let pinned_bytes = block_ranges(pinned.clone(), SCAN_BLOCK)
                .map(|vertices| self.visit_pinned_block(lists, vertices, needed, visit_block))
                .sum::<Result<u64>>()?;
            IoCounters::add(&self.counters.cached_bytes, pinned_bytes);
            IoCounters::add(&self.counters.delivered_bytes, pinned_bytes);
            Ok(())
        });
        for batch in batches {
            let (empty, reads): (Vec<Read>, Vec<Read>) =
                batch.into_iter().partition(|read| read.bytes.is_empty());
            let batch = Batch::new(source, &reads, &[], visit_read_block, false, needed);
            self.stream(&batch, || {
                let no_weights: &[f32] = &[];
                for read in &empty {
                    // Lists without edges, or one a partial scan cut to nothing.
                    match source.layout.is_compressed() {
                        true => visit_read_decoded(
                            &source.layout,
                            read,
                            &[],
                            self.landed(&[], read.bytes.start),
                            needed,
                            visit_read_block,
                        )?,
                        false => visit_read(
                            &source.layout,
                            read,
                            &[],
                            &[],
                            self.facts.weighted.then_some(no_weights),
                            IdCheck::Passed,
                            visit_read_block,
                        )?,
                    };
                }
                if let Some(visit_pinned) = visit_pinned.take() {
                    visit_pinned()?;
                }
                Ok(())
            })?;
        }
        if let Some(visit_pinned) = visit_pinned {
            visit_pinned()?;
        }
        Ok(())
    }

    /// What compressed list bytes `bytes`, from section position `bytes_at`, decode against.
    fn landed<'a>(&'a self, bytes: &'a [u8], bytes_at: u64) -> Landed<'a> {
        Landed {
            bytes,
            bytes_at,
            vertices: self.facts.vertices,
            path: self.source.path(),
        }
    }

    /// Visits the pinned lists of `vertices` (all below `pinned_vertices`) in blocks,
    /// decoding compressed ones; returns the list bytes delivered.
    fn visit_pinned_block(
        &self,
        lists: &Lists,
        vertices: Range<u32>,
        needed: Option<ListsNeeded>,
        visit_block: &VisitBlock,
    ) -> Result<u64> {
        match lists.layout.is_compressed() {
            true => deliver_decoded(
                &lists.layout,
                vertices,
                self.landed(lists.pinned_neighbors.as_slice(), 0),
                None,
                needed,
                visit_block,
            ),
            false => {
                let bytes = lists.layout.span_bytes(vertices.clone());
                lists.visit_pinned_block(vertices, visit_block);
                let factor = if self.facts.weighted { 2 } else { 1 };
                Ok((bytes.end - bytes.start) * factor)
            }
        }
    }
}

impl EdgeStore for DirectStore {
    fn facts(&self) -> &GraphFacts {
        &self.facts
    }

    fn tier(&self) -> &'static str {
        crate::Tier::Direct.name()
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
        let sorted = ascending(vertices);
        let (pinned, rest) =
            sorted.split_at(sorted.partition_point(|&vertex| vertex < lists.pinned_vertices));
        // The pinned lists are visited while the first reads fly (or alone).
        let visit_block = per_vertex(visit);
        let mut visit_pinned = Some(|| -> Result<()> {
            let factor = if self.facts.weighted { 2 } else { 1 };
            let bytes: u64 = pinned
                .par_iter()
                .with_min_len(64)
                .map(|&vertex| match lists.layout.is_compressed() {
                    true => self.visit_pinned_block(lists, vertex..vertex + 1, None, &visit_block),
                    false => {
                        let list = lists.pinned(vertex);
                        visit(vertex, list);
                        Ok(list.neighbors.len() as u64 * 4 * factor)
                    }
                })
                .sum::<Result<u64>>()?;
            IoCounters::add(&self.counters.cached_bytes, bytes);
            IoCounters::add(&self.counters.delivered_bytes, bytes);
            Ok(())
        });
        for sorted in rest.chunks(READS_PER_BATCH) {
            let missed = self.deliver_cached_lists(lists, sorted, &visit_block)?;
            let reads = gather_reads(&lists.layout, &missed, self.chunk_bytes, GATHER_GAP_PAGES);
            let batch = Batch::new(lists, &reads, &missed, &visit_block, true, None);
            self.stream(&batch, || {
                if let Some(visit_pinned) = visit_pinned.take() {
                    visit_pinned()?;
                }
                Ok(())
            })?;
        }
        if let Some(visit_pinned) = visit_pinned {
            visit_pinned()?;
        }
        visit_edgeless(&lists.layout, rest, self.facts.weighted, visit);
        Ok(())
    }

    fn resident_bytes(&self) -> u64 {
        let arena = self.regular_slots as u64 * self.slot_bytes
            + self.oversize_slots as u64 * self.oversize_bytes;
        self.lists.each().map(Lists::bytes).sum::<u64>()
            + self
                .facts
                .permutation
                .as_ref()
                .map_or(0, |p| p.len() as u64 * 4)
            + arena
            + self.gather_cache.bytes()
    }

    fn direct_io(&self) -> Option<bool> {
        Some(self.source.direct_io())
    }

    fn io_stats(&self) -> IoStats {
        self.counters.snapshot()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::BufferedFile;

    /// Lists with their vertices, in vertex order.
    type VisitedLists = Vec<(u32, Vec<u32>)>;

    /// Every list a scan and a gather (of every third vertex) deliver.
    fn lists_read(store: &DirectStore) -> (VisitedLists, VisitedLists) {
        let vertices = store.num_vertices() as u32;
        let scanned = Mutex::new(Vec::new());
        store
            .scan(EdgeDirection::Out, 0..vertices, &|vertex, list| {
                scanned
                    .lock()
                    .unwrap()
                    .push((vertex, list.neighbors.to_vec()));
            })
            .unwrap();
        let gathered = Mutex::new(Vec::new());
        let every_third: Vec<u32> = (0..vertices).step_by(3).collect();
        store
            .gather(EdgeDirection::Out, &every_third, &|vertex, list| {
                gathered
                    .lock()
                    .unwrap()
                    .push((vertex, list.neighbors.to_vec()));
            })
            .unwrap();
        let (mut scanned, mut gathered) = (
            scanned.into_inner().unwrap(),
            gathered.into_inner().unwrap(),
        );
        scanned.sort();
        gathered.sort();
        (scanned, gathered)
    }

    #[test]
    fn the_pipeline_delivers_the_same_lists_from_either_source() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kron.sl");
        let mut kron = swapless_build::generators::SyntheticSource::new(
            swapless_build::generators::SyntheticKind::Kronecker,
            12,
            8,
            true,
            5,
        )
        .unwrap();
        let build = swapless_build::BuildOptions::with_memory(64 << 20);
        swapless_build::build_graph(&mut kron, &path, &build).unwrap();
        let graph = GraphFile::open(&path).unwrap();
        let expected: VisitedLists = (0..graph.num_vertices())
            .map(|vertex| (vertex as u32, graph.out_neighbors_of(vertex).to_vec()))
            .collect();
        // A budget that pins little and keeps several 16 KiB reads in flight.
        let request = crate::PlanRequest {
            thread_bytes: 0,
            threads: 2,
            network_bytes: 0,
            kernel: "test".to_string(),
            property_bytes: 0,
            optional_property_bytes: 0,
            output_bytes: 0,
            verification_bytes: None,
            out_lists: true,
            in_lists: false,
            weights: true,
            out_heads: false,
            gather_cache_fraction: Some(0.0),
            searches: false,
            budget_bytes: None,
            default_budget_bytes: 1 << 30,
            tier: Some(crate::Tier::Direct),
            offset_form: None,
            chunk_bytes: Some(16 << 10),
            queue_depth: 8,
        };
        let least = crate::budget::plan(&graph, &request)
            .unwrap()
            .minimum_bytes();
        let request = crate::PlanRequest {
            budget_bytes: Some(least + (256 << 10)),
            ..request
        };
        let plan = crate::budget::plan(&graph, &request).unwrap();
        let sources: [Box<dyn PageSource>; 2] = [
            Box::new(BufferedFile::open(&path).unwrap()),
            Box::new(UringFile::open(&path).unwrap()),
        ];
        for source in sources {
            if crate::io_uring_refusal().is_some() && source.direct_io() {
                continue;
            }
            let store = DirectStore::over(source, &plan).unwrap();
            let (scanned, gathered) = lists_read(&store);
            assert!(scanned == expected, "a scan delivered other lists");
            let every_third: VisitedLists = expected.iter().step_by(3).cloned().collect();
            let first_difference = gathered
                .iter()
                .zip(&every_third)
                .position(|(got, wanted)| got != wanted);
            assert_eq!(
                (
                    gathered.len(),
                    first_difference.map(|at| (&gathered[at], &every_third[at]))
                ),
                (every_third.len(), None)
            );
            assert!(store.io_stats().read_requests > 2, "the lists were read");
        }
    }
}
