//! The plan's decisions, one function each: the budget, the tier, the read sizes, the
//! offsets' form, the least budget and the refusal below it, and the split of what is
//! left between the I/O buffers and the list cache; [`plan`] takes them in order.

use swapless_format::{GraphFile, SectionKind};

use super::grants::{self, Plan};
use super::io_buffers::{IoShape, SlotGeometry};
use super::request::PlanRequest;
use super::sections::{Sizes, banded};
use super::segments;
use super::{
    BANDED_SEARCH_CHUNK_BYTES, DEFAULT_CHUNK_BYTES, FAULT_AROUND_BYTES, PROCESS_BYTES, Tier,
    VERIFY_MAPPED_BYTES,
};
use crate::units::PAGE;
use crate::{OffsetForm, Result, StoreError};

/// What the run holds in each phase: while its kernel runs with the whole graph in
/// memory, while the result becomes the output array, and while the verifier checks it.
struct Phases {
    /// A dram run: hot arrays, optional arrays, offsets, permutation, lists.
    footprint: u64,
    /// The output phase (0 without an output array).
    output: u64,
    /// The verification phase (0 without verification).
    verification: u64,
}

impl Phases {
    fn of(graph: &GraphFile, request: &PlanRequest, sizes: &Sizes) -> Result<Phases> {
        let footprint = hot_bytes(request)
            + request.optional_property_bytes
            + sizes.dram_offsets.0
            + sizes.dram_offsets.1
            + sizes.permutation
            + sizes.decoded_bulk
            + sizes.load_scans(request.threads);
        // The output phase keeps one copy of the permutation beside the result.
        let output = match request.output_bytes {
            0 => 0,
            bytes => PROCESS_BYTES + bytes + sizes.permutation_section,
        };
        // The verification phase reads the file through a map whose pages are dropped as
        // they pass a bound, beside the lists it holds at once (up to four: two vertices'
        // out- and in-lists), whose pages it may map again without counting them.
        let verification = match request.verification_bytes {
            None => 0,
            Some(bytes) => {
                let out = sizes.longest_of(
                    graph,
                    "out",
                    [SectionKind::OutOffsets, SectionKind::OutNeighbors],
                )?;
                let longest = match graph.flags().directed {
                    true => out.max(sizes.longest_of(
                        graph,
                        "in",
                        [SectionKind::InOffsets, SectionKind::InNeighbors],
                    )?),
                    false => out,
                };
                PROCESS_BYTES
                    + bytes
                    + VERIFY_MAPPED_BYTES
                    + 4 * (longest + 2 * FAULT_AROUND_BYTES)
                    + sizes.permutation_section
            }
        };
        Ok(Phases {
            footprint,
            output,
            verification,
        })
    }

    /// The larger of the phases after the run.
    fn after_run(&self) -> u64 {
        self.output.max(self.verification)
    }

    /// What a dram run needs over all its phases.
    fn dram_needed(&self) -> u64 {
        self.footprint.max(self.after_run())
    }
}

/// Bytes of a pair's two directions together.
fn both((out, in_): (u64, u64)) -> u64 {
    out + in_
}

/// Hot data every phase of the run holds besides the kernel's optional bytes: the
/// process, the kernel's arrays, its threads and its connections' receive buffers.
fn hot_bytes(request: &PlanRequest) -> u64 {
    PROCESS_BYTES + request.property_bytes + request.thread_bytes + request.network_bytes
}

/// The budget: the one given; without one, what a graph that fits in dram needs, else
/// (or for a disk tier asked for by name) the default budget.
fn choose_budget(request: &PlanRequest, dram_needed: u64) -> u64 {
    let dram_possible = matches!(request.tier, None | Some(Tier::Dram));
    request.budget_bytes.unwrap_or(
        if dram_possible && dram_needed <= request.default_budget_bytes {
            dram_needed
        } else {
            request.default_budget_bytes
        },
    )
}

/// The tier: the one asked for, else dram when the run fits, else direct, or mmap where
/// this process may not use io_uring (and why, for the plan to say).
fn choose_tier(request: &PlanRequest, dram_needed: u64, budget: u64) -> (Tier, Option<String>) {
    match request.tier {
        Some(tier) => (tier, None),
        None if dram_needed <= budget => (Tier::Dram, None),
        None => match crate::io_uring_refusal() {
            None => (Tier::Direct, None),
            Some(error) => (Tier::Mmap, Some(error.to_string())),
        },
    }
}

/// Whether the run is a search on a banded graph on a disk tier, for which the plan
/// chooses what it is not told (small reads, the page cache for gathers): the graph is
/// sampled only then.
fn searches_banded_graph(graph: &GraphFile, request: &PlanRequest, tier: Tier) -> Result<bool> {
    Ok(request.searches
        && matches!(tier, Tier::Direct | Tier::Mmap)
        && (request.chunk_bytes.is_none() || request.gather_cache_fraction.is_none())
        && banded(graph, SectionKind::OutNeighbors)?)
}

/// Bytes per scan read: the ones asked for, else small reads for a banded search.
fn choose_chunk_bytes(request: &PlanRequest, banded_search: bool) -> u64 {
    request.chunk_bytes.unwrap_or(match banded_search {
        true => BANDED_SEARCH_CHUNK_BYTES,
        false => DEFAULT_CHUNK_BYTES,
    })
}

/// The share of the list cache for gathers: the one asked for, else all of it for a
/// banded search and none otherwise.
fn choose_gather_cache_fraction(request: &PlanRequest, banded_search: bool) -> f64 {
    request
        .gather_cache_fraction
        .unwrap_or(if banded_search { 1.0 } else { 0.0 })
}

/// What a disk tier holds whatever the budget: hot data, warm data (offsets in the form
/// weighed, the permutation, the page checks) and the least I/O buffers.
struct DiskFloor<'a> {
    hot: u64,
    sizes: &'a Sizes,
    io: IoShape,
    /// What the phases after the run hold, which the budget must hold too.
    after_run: u64,
}

impl DiskFloor<'_> {
    /// Bytes held besides the I/O buffers and the list cache, with `offsets` (out, in).
    fn held(&self, offsets: (u64, u64)) -> u64 {
        self.hot + both(offsets) + self.sizes.permutation + self.sizes.list_checks
    }

    /// The least budget a disk tier runs with, holding `offsets` (out, in).
    fn least(&self, offsets: (u64, u64)) -> u64 {
        (self.held(offsets) + self.io.least_bytes()).max(self.after_run)
    }
}

/// How a tier holds offsets: as asked, plain on dram, and on a disk tier plain unless
/// that leaves too little for a full queue of reads (beside as much again for cached
/// lists): a deep queue gains more than the few nanoseconds an Elias-Fano lookup costs.
fn choose_offset_form(
    tier: Tier,
    request: &PlanRequest,
    budget: u64,
    floor: &DiskFloor,
    banded_search: bool,
) -> OffsetForm {
    match (tier, request.offset_form) {
        (Tier::Dram, _) => OffsetForm::Plain,
        (_, Some(form)) => form,
        (_, None) => {
            let plain_spare = budget.saturating_sub(floor.held(floor.sizes.plain_offsets));
            // A banded search's time goes to rereading pages its page cache cannot hold,
            // and its gathers look up two offsets a list: the cache gets what compressed
            // offsets free unless plain ones leave room for all.
            let wanted_spare = match banded_search {
                true => floor.sizes.bulk + 2 * floor.io.wanted_bytes(),
                false => 2 * floor.io.wanted_bytes(),
            };
            if plain_spare >= wanted_spare {
                OffsetForm::Plain
            } else {
                OffsetForm::Compressed
            }
        }
    }
}

/// Bytes of the kernel's optional memory the plan holds: all of it on dram, whose
/// footprint counts it; on a disk tier as much as the room beyond the least budget
/// (`needed`) allows, at the cost of as much cached lists, if that is at least half of it
/// (else none, and the little room goes to the list cache).
fn optional_granted(request: &PlanRequest, tier: Tier, budget: u64, needed: u64) -> u64 {
    let optional = request.optional_property_bytes;
    let room = budget.saturating_sub(needed);
    match tier {
        Tier::Dram => optional,
        _ if room >= optional.div_ceil(2) => room.min(optional),
        _ => 0,
    }
}

/// A disk tier's `spare` bytes (what hot and warm data leave) split between the I/O
/// buffers and the list cache: the slots, the buffers' bytes and the cache's (at most
/// the `bulk` of the lists).
///
/// Up to half of what is left feeds the queue (no more than the queue can use), the rest
/// holds the hottest lists: when memory is short, a deep queue saves more time than
/// caching a few more percent of the lists. Half would cache under 1% of the lists,
/// which saves less than a deeper queue does: the queue gets it all.
fn split_spare(spare: u64, io: &IoShape, bulk: u64) -> (SlotGeometry, u64, u64) {
    let for_slots = spare - io.fixed_bytes();
    let share = if for_slots / 2 < bulk / 100 {
        for_slots
    } else {
        for_slots / 2
    };
    let (slots, io_bytes) = io.within(share, spare);
    (slots, io_bytes, (spare - io_bytes).min(bulk))
}

/// Bytes of the list cache `cached` given to the page cache for gathers, whole pages.
/// The page cache for gathers is the direct tier's; the rest of the list cache is the
/// pinned prefix. (mmap keeps a prefix: releasing its gathered windows oldest first
/// instead freed pages the newest windows shared, and a grid's bfs ran slower.)
fn gather_cache_share(tier: Tier, cached: u64, bulk: u64, fraction: f64) -> u64 {
    if tier == Tier::Direct && cached < bulk {
        (cached as f64 * fraction.clamp(0.0, 1.0)) as u64 / PAGE * PAGE
    } else {
        0
    }
}

/// The cached lists' bytes of each direction, (out, in): the cache is shared by the
/// directions in proportion to their size.
fn cache_by_direction(sizes: &Sizes, cached: u64) -> (u64, u64) {
    let share_of = |lists: u64| match sizes.bulk {
        0 => 0,
        _ => (cached as u128 * lists as u128 / sizes.bulk as u128) as u64,
    };
    let mut cached_list_bytes = (0, 0);
    for direction in &sizes.directions {
        match direction.name {
            "out" => cached_list_bytes.0 = share_of(direction.lists),
            _ => cached_list_bytes.1 = share_of(direction.lists),
        }
    }
    cached_list_bytes
}

/// Plans a run of `request` on `graph`.
pub fn plan(graph: &GraphFile, request: &PlanRequest) -> Result<Plan> {
    request.check()?;
    let sizes = Sizes::of(graph, request)?;
    let phases = Phases::of(graph, request, &sizes)?;
    let dram_needed = phases.dram_needed();
    let budget = choose_budget(request, dram_needed);
    // The verifier's map may keep what the budget leaves beside the rest of its phase:
    // the fewer of its pages it drops, the fewer it faults in again.
    let verify_mapped_bytes = VERIFY_MAPPED_BYTES + budget.saturating_sub(phases.verification);
    let (tier, io_uring_refused) = choose_tier(request, dram_needed, budget);
    let banded_search = searches_banded_graph(graph, request, tier)?;
    let chunk_bytes = choose_chunk_bytes(request, banded_search);
    let io = IoShape::new(
        chunk_bytes,
        sizes.longest_list(),
        grants::sections_per_list(sizes.weighted && !sizes.compressed),
        request.queue_depth,
    );
    let floor = DiskFloor {
        hot: hot_bytes(request) + sizes.decode_buffers(request.threads),
        sizes: &sizes,
        io,
        after_run: phases.after_run(),
    };
    // The least budget: with compressed offsets unless plain ones were asked for.
    let minimum = floor.least(match request.offset_form {
        Some(OffsetForm::Plain) => sizes.plain_offsets,
        _ => sizes.compressed_offsets,
    });
    let offset_form = choose_offset_form(tier, request, budget, &floor, banded_search);
    let offsets = sizes.offsets(offset_form);
    let needed = match tier {
        Tier::Dram => dram_needed,
        _ => floor.least(offsets),
    };
    if needed > budget {
        return Err(StoreError::Budget {
            needed_bytes: needed,
            budget_bytes: budget,
            tier: tier.name(),
            verifying: phases.verification == needed,
        });
    }
    let optional_property_granted = optional_granted(request, tier, budget, needed);
    let list_checks = match tier {
        Tier::Dram => 0,
        _ => sizes.list_checks,
    };
    let (slots, io_buffer_bytes, cached) = match tier {
        Tier::Dram => (SlotGeometry::default(), 0, sizes.decoded_bulk),
        _ => {
            let warm = both(offsets) + sizes.permutation + list_checks;
            let spare = budget - floor.hot - optional_property_granted - warm;
            split_spare(spare, &io, sizes.bulk)
        }
    };
    let gather_cache_bytes = gather_cache_share(
        tier,
        cached,
        sizes.bulk,
        choose_gather_cache_fraction(request, banded_search),
    );
    let cached_list_bytes = cache_by_direction(&sizes, cached - gather_cache_bytes);
    let heads_read = sizes.heads_bytes > 0 && tier != Tier::Dram;
    let segments = segments::list(&segments::Placed {
        request,
        sizes: &sizes,
        tier,
        offsets,
        offset_form,
        list_checks,
        optional_property_granted,
        cached_list_bytes,
        reordered: graph.flags().reordered,
        heads_read,
        gather_cache_bytes,
        banded_search,
        io_buffer_bytes,
        output_bytes: phases.output,
        verification_bytes: phases.verification,
    });
    Ok(Plan {
        tier,
        budget_bytes: budget,
        footprint_bytes: phases.footprint,
        minimum_bytes: minimum,
        io_uring_refused,
        segments,
        verify_mapped_bytes,
        offset_form,
        io_buffer_bytes,
        cached_list_bytes,
        gather_cache_bytes,
        chunk_bytes,
        banded_search,
        slots,
        queue_depth: request.queue_depth,
        weighted: sizes.weighted,
        kernel: request.kernel.clone(),
        optional_property_granted,
        sections_read: sizes.sections_read(),
        heads_read,
    })
}
