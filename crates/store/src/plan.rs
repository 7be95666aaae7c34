//! The placement plan (DESIGN §4): from a graph's section sizes, a kernel's property
//! arrays and a memory budget, decide the tier and what lives where, before anything
//! is allocated, so a run that cannot fit fails at the start, not halfway.

use std::fmt;

use swapless_format::{GraphFile, SectionKind};

use crate::list_layout::{PAGE, offsets_do_not_describe};
use crate::offsets::for_each_offset;
use crate::page_checks::PageChecks;
use crate::read_plan::SPLIT_PIECE_BYTES;
use crate::{OffsetForm, Result, StoreError, offsets_bytes};

/// Where edges are served from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// The whole graph in memory.
    Dram,
    /// The file mapped, the page cache holding what the budget allows.
    Mmap,
    /// `O_DIRECT` reads through io_uring into the store's own cache.
    Direct,
}

impl Tier {
    /// The tier's name in reports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Dram => "dram",
            Tier::Mmap => "mmap",
            Tier::Direct => "direct",
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// Reads smaller than this gain little from a deeper queue; reads up to this many
/// bytes apart share one request in a gather (a request costs about as much device
/// time as reading 13 KiB more at this disk's figures).
pub const GATHER_GAP_PAGES: u64 = 2;

/// Unneeded pages past a list's head that a head pass ([`crate::ListsNeeded::Heads`])
/// reads rather than end a read and start another after them.
pub const HEAD_GAP_PAGES: u64 = 8;

/// Pages of an unneeded list past its first a partial scan reads rather than end a
/// read and start another after them: a request costs about as much device time as
/// 13 KiB more of a read (see [`GATHER_GAP_PAGES`]), so longer gaps are worth a request.
pub const SKIP_GAP_PAGES: u64 = 2;

/// Bytes a disk tier's partial scan over a section of `arcs` entries holds to know
/// which lists it cuts short, where a cut list runs more than `gap_pages` past what the
/// scan needs of it ([`HEAD_GAP_PAGES`] for heads, [`SKIP_GAP_PAGES`] for unneeded lists):
/// those pages are its own, so there is at most one per `gap_pages` pages; 8 bytes each
/// (room for the vector to grow). A kernel that asks for such a scan counts them among
/// its own arrays.
pub fn cut_lists_bytes(arcs: u64, gap_pages: u64) -> u64 {
    8 * (4 * arcs).div_ceil(gap_pages * 4096)
}

/// Fewest I/O slots a disk tier works with (two reads in flight, two being computed on).
const MIN_SLOTS: u64 = 4;

/// Bytes of the graph file's pages the serial verifier keeps mapped at most besides the
/// lists it reads at once (see `GraphFile::open_bounded`).
pub const VERIFY_MAPPED_BYTES: u64 = 1 << 20;

/// Bytes one read fault can map (Linux's default `fault_around_bytes`).
const FAULT_AROUND_BYTES: u64 = 64 << 10;

/// Bytes per scan read unless asked otherwise.
pub const DEFAULT_CHUNK_BYTES: u64 = 256 << 10;

/// Bytes per read for a search on a banded graph: its gathers read a page or two a
/// list, so big slots would only take memory from the page cache that serves them.
pub const BANDED_SEARCH_CHUNK_BYTES: u64 = 16 << 10;

/// Pages of a list section the plan samples to tell whether the graph is banded.
const BAND_SAMPLE_PAGES: u64 = 64;

/// Share of [`band_share`] from which lists count as banded.
pub const BANDED_SHARE: f64 = 0.75;

/// How banded the lists of `kind` are: in a sample of pages, the share of ids within
/// 1/64 of the vertex count of their page's median id, counting only pages whose median
/// lies within 1/16 of the vertex count of the vertices whose lists are there (estimated
/// from the page's place in the section). `None` for a section without a whole page. A
/// random graph gives about 3%; grids, meshes and road networks in their natural order
/// nearly all; a graph reordered by degree little, though its ids crowd into the hubs'.
/// On a banded graph a search advances as a band of ids, and each step's lists share
/// pages with the steps just before, so a page cache serves its gathers; elsewhere it
/// would not.
pub fn band_share(graph: &GraphFile, kind: SectionKind) -> Result<Option<f64>> {
    let vertices = graph.num_vertices() as u64;
    let section = graph.header().section(kind).map_or(0, |entry| entry.length);
    let near = (vertices / 64).max(1);
    let (mut close, mut total) = (0u64, 0u64);
    graph.sample_pages(kind, BAND_SAMPLE_PAGES, &mut |position, page| {
        let mut ids: Vec<u32> = bytemuck::cast_slice(page).to_vec();
        let middle = ids.len() / 2;
        let median = *ids.select_nth_unstable(middle).1 as u64;
        let owners = (position as u128 * vertices as u128 / section.max(1) as u128) as u64;
        if median.abs_diff(owners) <= (vertices / 16).max(1) {
            close += ids
                .iter()
                .filter(|&&id| (id as u64).abs_diff(median) <= near)
                .count() as u64;
        }
        total += ids.len() as u64;
    })?;
    Ok((total > 0).then(|| close as f64 / total as f64))
}

/// Whether the lists of `kind` are banded (see [`band_share`]).
fn banded(graph: &GraphFile, kind: SectionKind) -> Result<bool> {
    Ok(band_share(graph, kind)?.is_some_and(|share| share >= BANDED_SHARE))
}

/// What a plan is asked for.
#[derive(Clone, Debug)]
pub struct PlanRequest {
    /// The kernel's name, for the printout.
    pub kernel: String,
    /// Bytes of the kernel's own per-vertex arrays (hot data).
    pub property_bytes: u64,
    /// Bytes the run's worker threads touch (stacks, thread-local state) beyond those
    /// the fixed runtime allowance covers: counted as hot, since they live all run.
    pub thread_bytes: u64,
    /// Bytes the kernel can use besides to read less (bfs's kept lists): held when the
    /// budget has room for them beyond the least, so they never raise the least budget.
    pub optional_property_bytes: u64,
    /// Bytes held after the run, when the graph's data is released and the result
    /// becomes the output array (the result and the output array).
    pub output_bytes: u64,
    /// With `--verify`: bytes the serial verifier holds after the run, when the graph's
    /// data is released (the result and the verifier's own arrays), besides the pages of
    /// the file it maps; `None` without verification.
    pub verification_bytes: Option<u64>,
    /// Whether the kernel reads out-lists.
    pub out_lists: bool,
    /// Whether the kernel reads in-lists (the same lists on an undirected graph).
    pub in_lists: bool,
    /// Whether the kernel reads edge weights (the weights of a weighted graph are held
    /// and read only then).
    pub weights: bool,
    /// Whether a pass of the kernel needs only the heads of the out-lists (cc's first
    /// links), which a disk tier then reads from the `out_heads` section if the file has it.
    pub out_heads: bool,
    /// Share of the direct tier's list cache given to a page cache for gathers instead of
    /// the pinned prefix (0 to 1): worth it where a search's steps reread the pages of the
    /// steps before (a grid's BFS), not where a prefix of hubs serves every step. `None`:
    /// all of it for a search on a banded graph, else none.
    pub gather_cache_fraction: Option<f64>,
    /// Whether the kernel is a search: its steps gather a frontier's lists.
    pub searches: bool,
    /// `--memory`, if given.
    pub budget_bytes: Option<u64>,
    /// The budget when none is given (half of the memory the process may use).
    pub default_budget_bytes: u64,
    /// `--tier`, if given.
    pub tier: Option<Tier>,
    /// `--offsets`, if given: how a disk tier holds offsets (the dram tier always plain).
    pub offset_form: Option<OffsetForm>,
    /// Bytes per scan read; `None`: [`BANDED_SEARCH_CHUNK_BYTES`] for a search on a
    /// banded graph, else [`DEFAULT_CHUNK_BYTES`].
    pub chunk_bytes: Option<u64>,
    /// Reads in flight at most.
    pub queue_depth: usize,
}

/// One data segment and where the plan puts it.
#[derive(Clone, Debug)]
pub struct Segment {
    /// What it is (`out_neighbors`, `property arrays`, ...).
    pub name: String,
    /// Its size.
    pub bytes: u64,
    /// hot, warm or bulk (DESIGN §4).
    pub class: &'static str,
    /// Where it lives during the run.
    pub placement: String,
}

/// The placement for one run.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The tier that serves edges.
    pub tier: Tier,
    /// The budget everything must fit in.
    pub budget_bytes: u64,
    /// What a dram run of this kernel holds: lists read, offsets, property arrays.
    pub footprint_bytes: u64,
    /// The least budget a disk tier can run this kernel with.
    pub minimum_bytes: u64,
    /// What the system said when this process was refused io_uring, if that made the
    /// plan choose the mmap tier where it would have chosen direct.
    pub io_uring_refused: Option<String>,
    /// Every segment with its placement.
    pub segments: Vec<Segment>,
    /// With verification: bytes of the file's pages the verifier's map may keep (at
    /// least [`VERIFY_MAPPED_BYTES`], and what the budget leaves beside the rest of its
    /// phase).
    pub verify_mapped_bytes: u64,
    /// How offsets are held in memory.
    pub offset_form: OffsetForm,
    /// Bytes of I/O buffers (in-flight and being computed on).
    pub io_buffer_bytes: u64,
    /// Bytes of each direction's list prefix held in memory: (out, in).
    pub cached_list_bytes: (u64, u64),
    /// Bytes of the direct tier's page cache for gathers (0 on other tiers).
    pub gather_cache_bytes: u64,
    /// Bytes per scan read.
    pub chunk_bytes: u64,
    /// Whether this is a search on a banded graph, for which the plan chose small reads,
    /// offsets that leave room for the cache, and on direct the page cache for gathers
    /// (when not told otherwise).
    pub banded_search: bool,
    /// Bytes of one I/O slot (a chunk plus the pages a list boundary can add).
    pub slot_bytes: u64,
    /// How many regular slots the I/O buffers hold (beside the oversize ones).
    pub regular_slots: u64,
    /// Reads that may hold room in the I/O buffers at once: as many as slots, or a full
    /// queue's when the budget has room for the sides of split lists they may leave
    /// waiting (a read shorter than a slot takes only its pages).
    pub reads_held: u64,
    /// Bytes of the slot reserved for lists longer than a chunk (0 if none is).
    pub oversize_slot_bytes: u64,
    /// Reads in flight at most.
    pub queue_depth: usize,
    /// Whether the run holds and reads edge weights: the graph has them and the kernel
    /// reads them.
    pub weighted: bool,
    /// The kernel.
    pub kernel: String,
    /// Whether the kernel gets its optional bytes ([`PlanRequest::optional_property_bytes`]).
    pub optional_property_held: bool,
    /// Whether the run reads (out, in) list sections; on an undirected graph the out
    /// sections serve both directions.
    pub sections_read: (bool, bool),
    /// Whether a disk tier reads the `out_heads` section for the passes that need only
    /// the heads of the out-lists (and holds its page checksums).
    pub heads_read: bool,
}

impl Plan {
    /// Sections each list is read from: its neighbors, and its weights on a weighted run.
    pub fn sections_per_list(&self) -> u64 {
        if self.weighted { 2 } else { 1 }
    }

    /// Bytes of the cached prefix of each list section, (out, in): a weighted run's
    /// cache holds as many bytes of weights as of neighbors.
    pub fn cached_prefix_bytes(&self) -> (u64, u64) {
        let sections = self.sections_per_list();
        let (out_bytes, in_bytes) = self.cached_list_bytes;
        (out_bytes / sections, in_bytes / sections)
    }
}

/// Sizes of one direction's sections.
struct Direction {
    name: &'static str,
    lists: u64,
    longest_list: u64,
    /// Bytes of the weights the graph stores but this kernel does not read.
    unread_weights: u64,
    /// Memory a disk tier holds to check the pages it reads of these lists.
    page_checks: u64,
}

/// The longest list in `kinds[0]` (an offsets section), read in blocks so the plan
/// itself stays small. Offsets that fall or run past the neighbor section `kinds[1]`
/// are refused here, before they size anything.
fn longest_list_bytes(graph: &GraphFile, kinds: [SectionKind; 2]) -> Result<u64> {
    let entries = graph.required_section(kinds[1])?.length / 4;
    let mut previous: Option<u64> = None;
    let mut longest = 0u64;
    let mut describes = true;
    for_each_offset(graph, kinds[0], |offset| {
        if let Some(before) = previous {
            describes &= before <= offset;
            longest = longest.max(offset.saturating_sub(before));
        }
        describes &= offset <= entries;
        previous = Some(offset);
    })?;
    if !describes {
        return Err(offsets_do_not_describe(graph, kinds[0], kinds[1]));
    }
    Ok(longest * 4)
}

/// Plans a run of `request` on `graph`.
pub fn plan(graph: &GraphFile, request: &PlanRequest) -> Result<Plan> {
    let header = graph.header();
    let flags = graph.flags();
    let weighted = flags.weighted && request.weights;
    let size = |kind: SectionKind| header.section(kind).map_or(0, |entry| entry.length);
    let weights = |kind: SectionKind| if weighted { size(kind) } else { 0 };
    // A disk tier checks each page it reads against the file's page checksums (a
    // version-1 file has none, and nothing to hold).
    let pages_checked = PageChecks::available(graph);
    let page_checks = |section_bytes: u64| match pages_checked {
        true => PageChecks::held_bytes(section_bytes),
        false => 0,
    };
    let mut directions = Vec::new();
    // An undirected graph stores one set of lists that serves both directions.
    if request.out_lists || (request.in_lists && !flags.directed) {
        directions.push(Direction {
            name: "out",
            lists: size(SectionKind::OutNeighbors) + weights(SectionKind::OutWeights),
            longest_list: longest_list_bytes(
                graph,
                [SectionKind::OutOffsets, SectionKind::OutNeighbors],
            )?,
            unread_weights: size(SectionKind::OutWeights) - weights(SectionKind::OutWeights),
            page_checks: page_checks(size(SectionKind::OutNeighbors))
                + page_checks(weights(SectionKind::OutWeights)),
        });
    }
    if request.in_lists && flags.directed {
        directions.push(Direction {
            name: "in",
            lists: size(SectionKind::InNeighbors) + weights(SectionKind::InWeights),
            longest_list: longest_list_bytes(
                graph,
                [SectionKind::InOffsets, SectionKind::InNeighbors],
            )?,
            unread_weights: size(SectionKind::InWeights) - weights(SectionKind::InWeights),
            page_checks: page_checks(size(SectionKind::InNeighbors))
                + page_checks(weights(SectionKind::InWeights)),
        });
    }
    // A reordered graph keeps its permutation and, for sources and results, its inverse.
    let permutation = size(SectionKind::Permutation) * 2;
    // Both directions' offsets stay in memory on a directed graph: kernels ask for
    // degrees in the direction they do not read (PageRank's out-degrees).
    let offsets_in = |form: OffsetForm| {
        let held = |offsets: SectionKind, neighbors: SectionKind| match size(offsets) {
            0 => 0,
            bytes => offsets_bytes(bytes / 8, size(neighbors) / 4, form),
        };
        (
            held(SectionKind::OutOffsets, SectionKind::OutNeighbors),
            held(SectionKind::InOffsets, SectionKind::InNeighbors),
        )
    };
    let plain_offsets = offsets_in(OffsetForm::Plain);
    let compressed_offsets = offsets_in(OffsetForm::Compressed);
    let sum = |(out, in_): (u64, u64)| out + in_;
    let bulk: u64 = directions.iter().map(|d| d.lists).sum();
    // The least hot set: the optional bytes are held only when the budget has room.
    let hot = request.property_bytes + request.thread_bytes;
    let optional = request.optional_property_bytes;
    let footprint = hot + optional + sum(plain_offsets) + permutation + bulk;
    // The output phase keeps one copy of the permutation beside the result.
    // (None at all when the run hands back no array.)
    let output = match request.output_bytes {
        0 => 0,
        bytes => bytes + size(SectionKind::Permutation),
    };
    // The verification phase reads the file through a map whose pages are dropped as
    // they pass a bound, beside the lists it holds at once (up to four: two vertices'
    // out- and in-lists), whose pages it may map again without counting them.
    let verification = match request.verification_bytes {
        None => 0,
        Some(bytes) => {
            // The directions the kernel reads have theirs already: scan offsets once.
            let longest_of = |name: &str, kinds: [SectionKind; 2]| -> Result<u64> {
                match directions.iter().find(|direction| direction.name == name) {
                    Some(direction) => Ok(direction.longest_list),
                    None => longest_list_bytes(graph, kinds),
                }
            };
            let out = longest_of("out", [SectionKind::OutOffsets, SectionKind::OutNeighbors])?;
            let longest = match flags.directed {
                true => out.max(longest_of(
                    "in",
                    [SectionKind::InOffsets, SectionKind::InNeighbors],
                )?),
                false => out,
            };
            bytes
                + VERIFY_MAPPED_BYTES
                + 4 * (longest + 2 * FAULT_AROUND_BYTES)
                + size(SectionKind::Permutation)
        }
    };
    let after_run = output.max(verification);
    let dram_needed = footprint.max(after_run);
    // Without --memory, a graph that fits runs in dram with just what it needs; a disk
    // tier asked for by name gets the default budget.
    let dram_possible = matches!(request.tier, None | Some(Tier::Dram));
    let budget = request.budget_bytes.unwrap_or(
        if dram_possible && dram_needed <= request.default_budget_bytes {
            dram_needed
        } else {
            request.default_budget_bytes
        },
    );

    // The verifier's map may keep what the budget leaves beside the rest of its phase:
    // the fewer of its pages it drops, the fewer it faults in again.
    let verify_mapped_bytes = VERIFY_MAPPED_BYTES + budget.saturating_sub(verification);

    // The default disk tier is direct, unless this process may not use io_uring: then
    // mmap, and the plan says why. A direct tier asked for by name fails at open instead.
    let mut io_uring_refused = None;
    let tier = match request.tier {
        Some(tier) => tier,
        None if dram_needed <= budget => Tier::Dram,
        None => match crate::io_uring_refusal() {
            None => Tier::Direct,
            Some(error) => {
                io_uring_refused = Some(error.to_string());
                Tier::Mmap
            }
        },
    };
    let banded_search = request.searches
        && matches!(tier, Tier::Direct | Tier::Mmap)
        && (request.chunk_bytes.is_none() || request.gather_cache_fraction.is_none())
        && banded(graph, SectionKind::OutNeighbors)?;
    let chunk = request.chunk_bytes.unwrap_or(match banded_search {
        true => BANDED_SEARCH_CHUNK_BYTES,
        false => DEFAULT_CHUNK_BYTES,
    });
    let gather_cache_fraction =
        request
            .gather_cache_fraction
            .unwrap_or(if banded_search { 1.0 } else { 0.0 });
    let slot = chunk + 2 * PAGE;
    let weighted_reads = if weighted { 2 } else { 1 };
    let longest = directions.iter().map(|d| d.longest_list).max().unwrap_or(0);
    let oversize_slot = if longest + 2 * PAGE > slot {
        (longest + 2 * PAGE).div_ceil(PAGE) * PAGE
    } else {
        0
    };
    // Each slot also stands for the sides of the two lists its read can split with the
    // reads beside it, which wait in memory until the other side lands (a page each),
    // and one more such side waits beside the next read to go out.
    let slot_cost = slot + 2 * SPLIT_PIECE_BYTES;
    let io_fixed = (oversize_slot + SPLIT_PIECE_BYTES) * weighted_reads;
    let io_minimum = MIN_SLOTS * slot_cost + io_fixed;
    // The heads of the out-lists, for a kernel whose first pass needs only those: a disk
    // tier reads 8 bytes a vertex instead of every list.
    let head_pass = request.out_heads && !weighted && !directions.is_empty();
    let heads_bytes = match head_pass {
        true => size(SectionKind::OutHeads),
        false => 0,
    };
    let list_checks: u64 = directions
        .iter()
        .map(|direction| direction.page_checks)
        .sum::<u64>()
        + page_checks(heads_bytes);
    let least_with = |offsets: (u64, u64)| {
        (hot + sum(offsets) + permutation + list_checks + io_minimum).max(after_run)
    };
    // The least budget: with compressed offsets unless plain ones were asked for.
    let minimum = least_with(match request.offset_form {
        Some(OffsetForm::Plain) => plain_offsets,
        _ => compressed_offsets,
    });

    // A disk tier holds offsets plain unless that leaves too little for a full queue
    // of reads (beside as much again for cached lists): a deep queue gains more than
    // the few nanoseconds an Elias-Fano lookup costs.
    let wanted_slots = (request.queue_depth as u64 * weighted_reads).max(MIN_SLOTS);
    let wanted_io = wanted_slots * slot_cost + io_fixed;
    let offset_form = match (tier, request.offset_form) {
        (Tier::Dram, _) => OffsetForm::Plain,
        (_, Some(form)) => form,
        (_, None) => {
            let plain_spare =
                budget.saturating_sub(hot + sum(plain_offsets) + permutation + list_checks);
            // A banded search's time goes to rereading pages its page cache cannot hold,
            // and its gathers look up two offsets a list: the cache gets the 25 MiB
            // (kron23) that compressed offsets free unless plain ones leave room for all.
            let wanted_spare = match banded_search {
                true => bulk + 2 * wanted_io,
                false => 2 * wanted_io,
            };
            if plain_spare >= wanted_spare {
                OffsetForm::Plain
            } else {
                OffsetForm::Compressed
            }
        }
    };
    let (out_offsets, in_offsets) = match offset_form {
        OffsetForm::Plain => plain_offsets,
        OffsetForm::Compressed => compressed_offsets,
    };
    let list_checks = if tier == Tier::Dram { 0 } else { list_checks };
    let warm = out_offsets + in_offsets + permutation + list_checks;
    let needed = match tier {
        Tier::Dram => dram_needed,
        _ => least_with((out_offsets, in_offsets)),
    };
    if needed > budget {
        return Err(StoreError::Budget {
            needed_bytes: needed,
            budget_bytes: budget,
            tier: tier.name(),
            verifying: verification == needed,
        });
    }
    // The dram footprint counts the optional bytes; a disk tier holds them when the least
    // budget leaves room for them, at the cost of as much cached lists.
    let optional_property_held =
        optional > 0 && (tier == Tier::Dram || budget >= needed + optional);
    let hot = hot + if optional_property_held { optional } else { 0 };

    let (io_buffer_bytes, regular_slots, held_slots, cached) = if tier == Tier::Dram {
        (0, 0, 0, bulk)
    } else {
        let spare = budget - hot - warm;
        // Up to half of what is left feeds the queue (no more than the queue can use),
        // the rest holds the hottest lists: when memory is short, a deep queue saves
        // more time than caching a few more percent of the lists. Half would cache under
        // 1% of the lists, which saves less than a deeper queue does: the queue gets it all.
        let for_slots = spare - io_fixed;
        let share = if for_slots / 2 < bulk / 100 {
            for_slots
        } else {
            for_slots / 2
        };
        let slots = (share / slot_cost).clamp(MIN_SLOTS, wanted_slots);
        let mut io = slots * slot_cost + io_fixed;
        // Reads shorter than a slot take only their pages of the buffers, so more reads
        // than slots can hold room at once, and each may leave the sides of two split
        // lists waiting. Room for those of a full queue costs little (under 1 MiB at
        // depth 128) and is taken when the budget has it; else no more reads than slots.
        let more_sides = (wanted_slots - slots) * 2 * SPLIT_PIECE_BYTES;
        let held = match spare - io >= more_sides {
            true => {
                io += more_sides;
                wanted_slots
            }
            false => slots,
        };
        (io, slots, held, (spare - io).min(bulk))
    };
    // The page cache for gathers is the direct tier's; the rest of the list cache is the
    // pinned prefix. (mmap keeps a prefix: releasing its gathered windows oldest first
    // instead, measured on the grid at 84 MiB, freed pages the newest windows shared, and
    // bfs took 107 s against 71 s.)
    let gather_cache_bytes = if tier == Tier::Direct && cached < bulk {
        (cached as f64 * gather_cache_fraction.clamp(0.0, 1.0)) as u64 / PAGE * PAGE
    } else {
        0
    };
    let cached = cached - gather_cache_bytes;
    let heads_read = heads_bytes > 0 && tier != Tier::Dram;
    // The cache is shared by the directions in proportion to their size.
    let mut cached_list_bytes = (0, 0);
    let mut segments = vec![Segment {
        name: format!("{} property arrays", request.kernel),
        bytes: request.property_bytes,
        class: "hot",
        placement: "dram".to_string(),
    }];
    if request.thread_bytes > 0 {
        segments.push(Segment {
            name: "worker thread stacks".to_string(),
            bytes: request.thread_bytes,
            class: "hot",
            placement: "dram (threads beyond the runtime allowance's)".to_string(),
        });
    }
    if optional > 0 {
        segments.push(Segment {
            name: format!("{} optional arrays", request.kernel),
            bytes: optional,
            class: "hot",
            placement: match optional_property_held {
                true => "dram (the kernel reads less with them)".to_string(),
                false => {
                    "not held: no room beyond the least budget (the kernel reads more)".to_string()
                }
            },
        });
    }
    for (name, bytes) in [("out_offsets", out_offsets), ("in_offsets", in_offsets)] {
        if bytes > 0 {
            segments.push(Segment {
                name: name.to_string(),
                bytes,
                class: "warm",
                placement: match offset_form {
                    OffsetForm::Plain => "dram".to_string(),
                    OffsetForm::Compressed => "dram, Elias-Fano compressed".to_string(),
                },
            });
        }
    }
    if tier != Tier::Dram && !directions.is_empty() {
        segments.push(Segment {
            name: "list page checksums".to_string(),
            bytes: list_checks,
            class: "warm",
            placement: match pages_checked {
                true => {
                    "dram: each page read is checked once a run before a kernel sees it".to_string()
                }
                false => "none in a version-1 file: the lists read are only range-checked \
                          (`swapless build OLD.sl -o NEW.sl` writes one with a checksum a page)"
                    .to_string(),
            },
        });
    }
    if permutation > 0 {
        segments.push(Segment {
            name: "permutation (and its inverse)".to_string(),
            bytes: permutation,
            class: "warm",
            placement: "dram".to_string(),
        });
    }
    for direction in &directions {
        let share = if bulk == 0 {
            0
        } else {
            (cached as u128 * direction.lists as u128 / bulk as u128) as u64
        };
        if direction.name == "out" {
            cached_list_bytes.0 = share;
        } else {
            cached_list_bytes.1 = share;
        }
        let placement = if tier == Tier::Dram || share >= direction.lists {
            "dram".to_string()
        } else {
            format!(
                "first {:.0}% in dram{}, the rest read by {}",
                100.0 * share as f64 / direction.lists.max(1) as f64,
                if flags.reordered {
                    " (the hottest lists, after dbg)"
                } else {
                    " (build with --reorder dbg to make these the hottest)"
                },
                tier
            )
        };
        // A head pass reads these lists themselves when the file has no heads section.
        let placement = match direction.name == "out"
            && head_pass
            && heads_bytes == 0
            && tier != Tier::Dram
            && share < direction.lists
        {
            true => format!(
                "{placement}; the pass that needs only their heads reads them too (build \
                 the file again with --out-heads always to read 8 bytes a vertex instead)"
            ),
            false => placement,
        };
        segments.push(Segment {
            name: format!(
                "{}_neighbors{}",
                direction.name,
                if weighted { " + weights" } else { "" }
            ),
            bytes: direction.lists,
            class: "bulk",
            placement,
        });
    }
    if heads_read {
        segments.push(Segment {
            name: "out_heads".to_string(),
            bytes: heads_bytes,
            class: "bulk",
            placement: format!(
                "read by {tier} for the pass that needs only the start of each list, \
                 instead of the lists"
            ),
        });
    }
    for direction in directions.iter().filter(|d| d.unread_weights > 0) {
        segments.push(Segment {
            name: format!("{}_weights", direction.name),
            bytes: direction.unread_weights,
            class: "bulk",
            placement: format!("not held or read: {} reads no weights", request.kernel),
        });
    }
    if gather_cache_bytes > 0 {
        segments.push(Segment {
            name: "page cache for gathers".to_string(),
            bytes: gather_cache_bytes,
            class: "bulk",
            placement: match banded_search {
                true => "dram, pages the last gathers read (CLOCK; the lists are banded, so a \
                         search's next steps reread them)"
                    .to_string(),
                false => "dram, pages the last gathers read (CLOCK)".to_string(),
            },
        });
    }
    if io_buffer_bytes > 0 {
        segments.push(Segment {
            name: "I/O buffers".to_string(),
            bytes: io_buffer_bytes,
            class: "hot",
            placement: "dram".to_string(),
        });
    }
    if output > 0 {
        segments.push(Segment {
            name: "result as output array".to_string(),
            bytes: output,
            class: "hot",
            placement: "dram, after the run releases everything above (runs with --out)"
                .to_string(),
        });
    }
    if verification > 0 {
        segments.push(Segment {
            name: "verification".to_string(),
            bytes: verification,
            class: "hot",
            placement: "dram, after the run releases everything above (runs with --verify)"
                .to_string(),
        });
    }
    Ok(Plan {
        tier,
        budget_bytes: budget,
        footprint_bytes: footprint,
        minimum_bytes: minimum,
        io_uring_refused,
        segments,
        verify_mapped_bytes,
        offset_form,
        io_buffer_bytes,
        cached_list_bytes,
        gather_cache_bytes,
        chunk_bytes: chunk,
        banded_search,
        slot_bytes: slot,
        regular_slots,
        reads_held: held_slots / weighted_reads,
        oversize_slot_bytes: oversize_slot,
        queue_depth: request.queue_depth,
        weighted,
        kernel: request.kernel.clone(),
        optional_property_held,
        sections_read: (
            directions.iter().any(|direction| direction.name == "out"),
            directions.iter().any(|direction| direction.name == "in"),
        ),
        heads_read,
    })
}
