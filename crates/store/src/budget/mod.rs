//! The budget (DESIGN §4): from a graph's section sizes, a kernel's declared memory and
//! a memory budget, decide the tier and where every segment lives, before anything is
//! allocated, so a run that cannot fit fails at the start, not halfway. Every placement
//! option is checked here, once. The [`Plan`] hands each tier a grant of what it may
//! hold (its lists, buffers, caches) rather than the whole plan.

mod grants;
mod io_buffers;
mod sections;
mod segments;

use std::fmt;

use swapless_format::{GraphFile, SectionKind};

pub use grants::{Plan, Segment};
pub use io_buffers::SlotGeometry;
pub use sections::{BANDED_SHARE, band_share};

use crate::units::PAGE;
use crate::{OffsetForm, Result, StoreError};
use io_buffers::IoShape;
use sections::{Sizes, banded};

/// Where edges are served from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// The whole graph in memory.
    Dram,
    /// The file mapped, the page cache holding what the budget allows.
    Mmap,
    /// The file read through io_uring (`O_DIRECT` where the file system allows) into
    /// the store's own cache.
    Direct,
    /// The direct tier's pipeline over a graph in far memory (a Redis server or Cluster).
    Far,
}

impl Tier {
    /// The tier's name in reports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Dram => "dram",
            Tier::Mmap => "mmap",
            Tier::Direct => "direct",
            Tier::Far => "far",
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// Bytes of the graph file's pages the serial verifier keeps mapped at most besides the
/// lists it reads at once (see `GraphFile::open_bounded`).
pub const VERIFY_MAPPED_BYTES: u64 = 1 << 20;

/// Bytes the process holds besides every segment the plan places: the binary and its
/// libraries, the first eight worker threads' stacks, the allocator's slack, the tiers'
/// small state, and on the mmap tier the pages the kernel maps around each fault. The
/// budget is the whole process, so the plan counts them; the figure is the most a run
/// was measured over its budget before it did (BENCHMARKS.md), rounded up. The same on
/// every tier, so a least budget typed back on another tier is accepted there too.
pub const PROCESS_BYTES: u64 = 12 << 20;

/// Bytes one read fault can map (Linux's default `fault_around_bytes`).
const FAULT_AROUND_BYTES: u64 = 64 << 10;

/// Bytes per scan read unless asked otherwise.
pub const DEFAULT_CHUNK_BYTES: u64 = 256 << 10;

/// Bytes per read for a search on a banded graph: its gathers read a page or two a
/// list, so big slots would only take memory from the page cache that serves them.
pub const BANDED_SEARCH_CHUNK_BYTES: u64 = 16 << 10;

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
    /// Bytes of receive buffers the far tier's connections hold (0 for the other tiers):
    /// counted as hot, since they live all run.
    pub network_bytes: u64,
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

/// A placement option, named apart from how any front end spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlacementOption {
    /// Bytes per scan read.
    ChunkBytes,
    /// Reads kept in flight.
    QueueDepth,
    /// The share of the list cache kept for gathers.
    GatherCacheFraction,
}

impl PlacementOption {
    /// The option in words, for a library's own sentences.
    pub fn words(self) -> &'static str {
        match self {
            PlacementOption::ChunkBytes => "the chunk size",
            PlacementOption::QueueDepth => "the queue depth",
            PlacementOption::GatherCacheFraction => "the gather cache fraction",
        }
    }
}

impl PlanRequest {
    /// Checks the placement options: the one place they are checked.
    fn check(&self) -> Result<()> {
        let invalid = |option, detail: &str| {
            Err(StoreError::InvalidPlacement {
                option,
                detail: detail.to_string(),
            })
        };
        if let Some(chunk) = self.chunk_bytes
            && (!(4 << 10..=4 << 20).contains(&chunk) || !chunk.is_multiple_of(PAGE))
        {
            return invalid(
                PlacementOption::ChunkBytes,
                "must be a multiple of 4K between 4K and 4M",
            );
        }
        if !(1..=4096).contains(&self.queue_depth) {
            return invalid(PlacementOption::QueueDepth, "must be between 1 and 4096");
        }
        if let Some(fraction) = self.gather_cache_fraction
            && !(0.0..=1.0).contains(&fraction)
        {
            return invalid(
                PlacementOption::GatherCacheFraction,
                "must be between 0 and 1",
            );
        }
        Ok(())
    }
}

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
        let hot =
            PROCESS_BYTES + request.property_bytes + request.thread_bytes + request.network_bytes;
        let footprint = hot
            + request.optional_property_bytes
            + sizes.plain_offsets.0
            + sizes.plain_offsets.1
            + sizes.permutation
            + sizes.bulk;
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

/// Plans a run of `request` on `graph`.
pub fn plan(graph: &GraphFile, request: &PlanRequest) -> Result<Plan> {
    request.check()?;
    let sizes = Sizes::of(graph, request)?;
    let phases = Phases::of(graph, request, &sizes)?;
    let sum = |(out, in_): (u64, u64)| out + in_;
    let bulk = sizes.bulk;
    let after_run = phases.after_run();
    let dram_needed = phases.dram_needed();
    // Without a budget, a graph that fits runs in dram with just what it needs; a disk
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
    let verify_mapped_bytes = VERIFY_MAPPED_BYTES + budget.saturating_sub(phases.verification);
    let (tier, io_uring_refused) = choose_tier(request, dram_needed, budget);
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
    let sections_per_list = grants::sections_per_list(sizes.weighted);
    let io = IoShape::new(
        chunk,
        sizes.longest_list(),
        sections_per_list,
        request.queue_depth,
    );
    let hot = PROCESS_BYTES + request.property_bytes + request.thread_bytes + request.network_bytes;
    let least_with = |offsets: (u64, u64)| {
        (hot + sum(offsets) + sizes.permutation + sizes.list_checks + io.least_bytes())
            .max(after_run)
    };
    // The least budget: with compressed offsets unless plain ones were asked for.
    let minimum = least_with(match request.offset_form {
        Some(OffsetForm::Plain) => sizes.plain_offsets,
        _ => sizes.compressed_offsets,
    });
    // A disk tier holds offsets plain unless that leaves too little for a full queue
    // of reads (beside as much again for cached lists): a deep queue gains more than
    // the few nanoseconds an Elias-Fano lookup costs.
    let offset_form = match (tier, request.offset_form) {
        (Tier::Dram, _) => OffsetForm::Plain,
        (_, Some(form)) => form,
        (_, None) => {
            let plain_spare = budget.saturating_sub(
                hot + sum(sizes.plain_offsets) + sizes.permutation + sizes.list_checks,
            );
            // A banded search's time goes to rereading pages its page cache cannot hold,
            // and its gathers look up two offsets a list: the cache gets what compressed
            // offsets free unless plain ones leave room for all.
            let wanted_spare = match banded_search {
                true => bulk + 2 * io.wanted_bytes(),
                false => 2 * io.wanted_bytes(),
            };
            if plain_spare >= wanted_spare {
                OffsetForm::Plain
            } else {
                OffsetForm::Compressed
            }
        }
    };
    let offsets = match offset_form {
        OffsetForm::Plain => sizes.plain_offsets,
        OffsetForm::Compressed => sizes.compressed_offsets,
    };
    let list_checks = if tier == Tier::Dram {
        0
    } else {
        sizes.list_checks
    };
    let warm = sum(offsets) + sizes.permutation + list_checks;
    let needed = match tier {
        Tier::Dram => dram_needed,
        _ => least_with(offsets),
    };
    if needed > budget {
        return Err(StoreError::Budget {
            needed_bytes: needed,
            budget_bytes: budget,
            tier: tier.name(),
            verifying: phases.verification == needed,
        });
    }
    // The dram footprint counts the optional bytes; a disk tier holds them when the least
    // budget leaves room for them, at the cost of as much cached lists.
    let optional = request.optional_property_bytes;
    let optional_property_held =
        optional > 0 && (tier == Tier::Dram || budget >= needed + optional);
    let hot = hot + if optional_property_held { optional } else { 0 };

    let (io_buffer_bytes, slots, cached) = if tier == Tier::Dram {
        (0, SlotGeometry::default(), bulk)
    } else {
        let spare = budget - hot - warm;
        // Up to half of what is left feeds the queue (no more than the queue can use),
        // the rest holds the hottest lists: when memory is short, a deep queue saves
        // more time than caching a few more percent of the lists. Half would cache under
        // 1% of the lists, which saves less than a deeper queue does: the queue gets it all.
        let for_slots = spare - io.fixed_bytes();
        let share = if for_slots / 2 < bulk / 100 {
            for_slots
        } else {
            for_slots / 2
        };
        let (slots, io_bytes) = io.within(share, spare);
        (io_bytes, slots, (spare - io_bytes).min(bulk))
    };
    // The page cache for gathers is the direct tier's; the rest of the list cache is the
    // pinned prefix. (mmap keeps a prefix: releasing its gathered windows oldest first
    // instead freed pages the newest windows shared, and a grid's bfs ran slower.)
    let gather_cache_bytes = if matches!(tier, Tier::Direct | Tier::Far) && cached < bulk {
        (cached as f64 * gather_cache_fraction.clamp(0.0, 1.0)) as u64 / PAGE * PAGE
    } else {
        0
    };
    let cached = cached - gather_cache_bytes;
    let heads_read = sizes.heads_bytes > 0 && tier != Tier::Dram;
    // The cache is shared by the directions in proportion to their size.
    let share_of = |lists: u64| match bulk {
        0 => 0,
        _ => (cached as u128 * lists as u128 / bulk as u128) as u64,
    };
    let mut cached_list_bytes = (0, 0);
    for direction in &sizes.directions {
        match direction.name {
            "out" => cached_list_bytes.0 = share_of(direction.lists),
            _ => cached_list_bytes.1 = share_of(direction.lists),
        }
    }
    let segments = segments::list(&segments::Placed {
        request,
        sizes: &sizes,
        tier,
        offsets,
        offset_form,
        list_checks,
        optional_property_held,
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
        chunk_bytes: chunk,
        banded_search,
        slots,
        queue_depth: request.queue_depth,
        weighted: sizes.weighted,
        kernel: request.kernel.clone(),
        optional_property_held,
        sections_read: (
            sizes
                .directions
                .iter()
                .any(|direction| direction.name == "out"),
            sizes
                .directions
                .iter()
                .any(|direction| direction.name == "in"),
        ),
        heads_read,
    })
}
