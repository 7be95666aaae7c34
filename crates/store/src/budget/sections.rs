//! What a run would hold of a graph, from its header and offsets alone: the lists each
//! direction reads, the longest list, offsets in either form, the permutation, the page
//! checks, and whether the lists are banded.

use swapless_format::{GraphFile, SectionKind};

use super::request::PlanRequest;
use crate::lists::page_checks::PageChecks;
use crate::offsets::{for_each_offset, offsets_do_not_describe};
use crate::{OffsetForm, Result, offsets_bytes};

/// Pages of a list section the plan samples to tell whether the graph is banded.
const BAND_SAMPLE_PAGES: u64 = 64;
/// Compressed lists longer than this on disk are left out of the band sample (a hub's
/// list would be read whole for one vote).
const SAMPLED_LIST_BYTES: u64 = 1 << 20;

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
    if graph.lists_compressed() {
        return band_share_of_lists(graph, kind);
    }
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

/// [`band_share`] for compressed lists, whose pages hold no plain ids: in a sample of
/// lists spread evenly over the vertices, the share of ids within 1/64 of the vertex
/// count of their list's median, counting only lists whose median lies within 1/16 of
/// their vertex (a page's lists are a few neighboring vertices', so the two agree).
fn band_share_of_lists(graph: &GraphFile, kind: SectionKind) -> Result<Option<f64>> {
    let vertices = graph.num_vertices() as u64;
    let near = (vertices / 64).max(1);
    let (mut close, mut total) = (0u64, 0u64);
    // As many ids as the plain sample's pages hold, from lists of any length.
    let wanted = BAND_SAMPLE_PAGES * 1024;
    let samples = (BAND_SAMPLE_PAGES * 16).min(vertices);
    let mut visit = |vertex: usize, ids: &[u32]| {
        // Lists are sorted: the median is the middle id.
        let median = ids[ids.len() / 2] as u64;
        if median.abs_diff(vertex as u64) <= (vertices / 16).max(1) {
            close += ids
                .iter()
                .filter(|&&id| (id as u64).abs_diff(median) <= near)
                .count() as u64;
        }
        total += ids.len() as u64;
        total < wanted
    };
    // Read with pread, not through the map: the plan runs inside the budget, and pages
    // a map's faults bring in would count in its resident set. A far graph's local file
    // holds no lists (its pages are blank), and a damaged list is the run's page checks'
    // to report, not the plan's: either gives no verdict.
    let incoming = kind == SectionKind::InNeighbors;
    if graph
        .sample_lists(incoming, samples, SAMPLED_LIST_BYTES, &mut visit)
        .is_err()
    {
        return Ok(None);
    }
    Ok((total > 0).then(|| close as f64 / total as f64))
}

/// Whether the lists of `kind` are banded (see [`band_share`]).
pub(super) fn banded(graph: &GraphFile, kind: SectionKind) -> Result<bool> {
    Ok(band_share(graph, kind)?.is_some_and(|share| share >= BANDED_SHARE))
}

/// Sizes of one direction's sections.
pub(super) struct Direction {
    pub(super) name: &'static str,
    pub(super) lists: u64,
    pub(super) longest_list: u64,
    /// Bytes of the weights the graph stores but this kernel does not read.
    pub(super) unread_weights: u64,
    /// The longest list's entries (what a thread decodes it into, for compressed lists).
    pub(super) longest_degree: u64,
    /// Bytes the lists take decoded, as the dram tier holds them (weights included when
    /// read): `lists` for plain lists.
    pub(super) decoded: u64,
    /// Memory a disk tier holds to check the pages it reads of these lists.
    pub(super) page_checks: u64,
}

/// The longest list in `kinds[0]` (an offsets section), in bytes of its section
/// `kinds[1]`, read in blocks so the plan itself stays small. Offsets that fall or run
/// past the neighbor section are refused here, before they size anything. For
/// compressed lists, the bounds are their positions, in bytes.
pub(super) fn longest_list_bytes(graph: &GraphFile, kinds: [SectionKind; 2]) -> Result<u64> {
    let section = graph.required_section(kinds[1])?.length;
    match graph.lists_compressed() {
        true => {
            let positions = match kinds[1] {
                SectionKind::InNeighbors => SectionKind::InPositions,
                _ => SectionKind::OutPositions,
            };
            longest_between(graph, [positions, kinds[1]], section)
        }
        false => Ok(longest_between(graph, kinds, section / 4)? * 4),
    }
}

/// The longest list's entries in `kinds[0]`'s bounds, which must not fall nor pass `end`.
fn longest_between(graph: &GraphFile, kinds: [SectionKind; 2], end: u64) -> Result<u64> {
    let mut previous: Option<u64> = None;
    let mut longest = 0u64;
    let mut describes = true;
    for_each_offset(graph, kinds[0], |offset| {
        if let Some(before) = previous {
            describes &= before <= offset;
            longest = longest.max(offset.saturating_sub(before));
        }
        describes &= offset <= end;
        previous = Some(offset);
    })?;
    if !describes {
        return Err(offsets_do_not_describe(graph, kinds[0], kinds[1]));
    }
    Ok(longest)
}

/// The sizes a plan weighs, of one graph for one request.
pub(super) struct Sizes {
    /// Whether the run holds and reads weights.
    pub(super) weighted: bool,
    /// The directions the run reads.
    pub(super) directions: Vec<Direction>,
    /// Bytes of the permutation section.
    pub(super) permutation_section: u64,
    /// Bytes of the permutation and its inverse, for sources and results.
    pub(super) permutation: u64,
    /// Both directions' offsets, plain, as a disk tier holds them (with the positions of
    /// compressed lists): (out, in).
    pub(super) plain_offsets: (u64, u64),
    /// Both directions' offsets as the dram tier holds them (plain; compressed lists are
    /// decoded at load, so their positions are not kept).
    pub(super) dram_offsets: (u64, u64),
    /// Both directions' offsets, Elias-Fano compressed: (out, in).
    pub(super) compressed_offsets: (u64, u64),
    /// Bytes of every list the run reads (with weights when it reads them), in the file.
    pub(super) bulk: u64,
    /// Bytes of every list the run reads as the dram tier holds them (decoded).
    pub(super) decoded_bulk: u64,
    /// Whether the lists are compressed (decoded as they are read).
    pub(super) compressed: bool,
    /// What one scan of the lists holds at most (`ListScan::part_held_bytes`): the dram
    /// tier decodes compressed lists at load with a scan on each thread.
    pub(super) scan_held: u64,
    /// Whether the file has page checksums to check reads against.
    pub(super) pages_checked: bool,
    /// Whether a pass needs only the heads of the out-lists.
    pub(super) head_pass: bool,
    /// Bytes of the heads section a disk tier reads for that pass (0: none).
    pub(super) heads_bytes: u64,
    /// Memory a disk tier holds to check the pages it reads.
    pub(super) list_checks: u64,
}

impl Sizes {
    /// The sizes of `graph` for `request`.
    pub(super) fn of(graph: &GraphFile, request: &PlanRequest) -> Result<Sizes> {
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
        let compressed = graph.lists_compressed();
        let arcs = graph.num_arcs() as u64;
        let entry_bytes = if weighted { 8 } else { 4 };
        let direction = |name, kinds: [SectionKind; 3]| -> Result<Direction> {
            let longest_list = longest_list_bytes(graph, [kinds[0], kinds[1]])?;
            let longest_degree = match compressed {
                true => longest_between(graph, [kinds[0], kinds[1]], arcs)?,
                false => longest_list / 4,
            };
            // Compressed lists hold their weights beside their ids: read whether or not
            // the kernel wants them.
            Ok(Direction {
                name,
                lists: size(kinds[1]) + weights(kinds[2]),
                longest_list,
                unread_weights: size(kinds[2]) - weights(kinds[2]),
                longest_degree,
                decoded: match compressed {
                    true => arcs * entry_bytes,
                    false => size(kinds[1]) + weights(kinds[2]),
                },
                page_checks: page_checks(size(kinds[1])) + page_checks(weights(kinds[2])),
            })
        };
        let mut directions = Vec::new();
        // An undirected graph stores one set of lists that serves both directions.
        if request.out_lists || (request.in_lists && !flags.directed) {
            directions.push(direction(
                "out",
                [
                    SectionKind::OutOffsets,
                    SectionKind::OutNeighbors,
                    SectionKind::OutWeights,
                ],
            )?);
        }
        if request.in_lists && flags.directed {
            directions.push(direction(
                "in",
                [
                    SectionKind::InOffsets,
                    SectionKind::InNeighbors,
                    SectionKind::InWeights,
                ],
            )?);
        }
        // Both directions' offsets stay in memory on a directed graph: kernels ask for
        // degrees in the direction they do not read (PageRank's out-degrees).
        // A disk tier locates compressed lists by their positions too, held beside.
        let offsets_in = |form: OffsetForm| {
            let held = |kind: SectionKind, entries: u64| match size(kind) {
                0 => 0,
                bytes => offsets_bytes(bytes / 8, entries, form),
            };
            let positions = |kind: SectionKind, lists: SectionKind| match compressed {
                true => held(kind, size(lists)),
                false => 0,
            };
            (
                held(SectionKind::OutOffsets, arcs)
                    + positions(SectionKind::OutPositions, SectionKind::OutNeighbors),
                held(SectionKind::InOffsets, arcs)
                    + positions(SectionKind::InPositions, SectionKind::InNeighbors),
            )
        };
        let dram_offsets = |kind: SectionKind| match size(kind) {
            0 => 0,
            bytes => offsets_bytes(bytes / 8, arcs, OffsetForm::Plain),
        };
        // The heads of the out-lists, for a kernel whose first pass needs only those: a
        // disk tier reads 8 bytes a vertex instead of every list.
        let head_pass = request.out_heads && !weighted && !directions.is_empty();
        let heads_bytes = match head_pass {
            true => size(SectionKind::OutHeads),
            false => 0,
        };
        let list_checks =
            directions.iter().map(|d| d.page_checks).sum::<u64>() + page_checks(heads_bytes);
        // A scan's windows never hold more than its direction's three sections, nor its
        // part more than a list: on a small graph, far less than the general bound.
        let scan_held = [
            [
                SectionKind::OutOffsets,
                SectionKind::OutPositions,
                SectionKind::OutNeighbors,
            ],
            [
                SectionKind::InOffsets,
                SectionKind::InPositions,
                SectionKind::InNeighbors,
            ],
        ]
        .iter()
        .map(|kinds| kinds.iter().map(|&kind| size(kind)).sum::<u64>())
        .max()
        .unwrap_or(0);
        let longest_degree = directions.iter().map(|d| d.longest_degree).max();
        let scan_held = swapless_format::ListScan::part_held_bytes(graph)
            .min(2 * scan_held + 8 * longest_degree.unwrap_or(0));
        Ok(Sizes {
            weighted,
            bulk: directions.iter().map(|d| d.lists).sum(),
            decoded_bulk: directions.iter().map(|d| d.decoded).sum(),
            compressed,
            scan_held,
            directions,
            permutation_section: size(SectionKind::Permutation),
            permutation: size(SectionKind::Permutation) * 2,
            plain_offsets: offsets_in(OffsetForm::Plain),
            dram_offsets: (
                dram_offsets(SectionKind::OutOffsets),
                dram_offsets(SectionKind::InOffsets),
            ),
            compressed_offsets: offsets_in(OffsetForm::Compressed),
            pages_checked,
            head_pass,
            heads_bytes,
            list_checks,
        })
    }

    /// Both directions' offsets (out, in) held in `form`.
    pub(super) fn offsets(&self, form: OffsetForm) -> (u64, u64) {
        match form {
            OffsetForm::Plain => self.plain_offsets,
            OffsetForm::Compressed => self.compressed_offsets,
        }
    }

    /// Whether the run reads the (out, in) lists; on an undirected graph the out-lists
    /// serve both directions.
    pub(super) fn sections_read(&self) -> (bool, bool) {
        let reads = |name| {
            self.directions
                .iter()
                .any(|direction| direction.name == name)
        };
        (reads("out"), reads("in"))
    }

    /// What the dram tier's load holds besides the lists it fills: a scan on each
    /// thread decoding compressed lists; nothing for plain lists, read as they lie.
    pub(super) fn load_scans(&self, threads: usize) -> u64 {
        match self.compressed {
            true => threads as u64 * self.scan_held,
            false => 0,
        }
    }

    /// What the threads of a disk tier hold to decode compressed lists: each (and the
    /// calling thread) a block of lists or the longest list read; nothing for plain lists.
    pub(super) fn decode_buffers(&self, threads: usize) -> u64 {
        if !self.compressed {
            return 0;
        }
        let longest = self
            .directions
            .iter()
            .map(|d| d.longest_degree)
            .max()
            .unwrap_or(0);
        (threads as u64 + 1) * crate::lists::decode::decode_buffer_bytes(longest, self.weighted)
    }

    /// The longest list the run reads.
    pub(super) fn longest_list(&self) -> u64 {
        self.directions
            .iter()
            .map(|d| d.longest_list)
            .max()
            .unwrap_or(0)
    }

    /// The longest list of direction `name`, from the sizes when the run reads it.
    pub(super) fn longest_of(
        &self,
        graph: &GraphFile,
        name: &str,
        kinds: [SectionKind; 2],
    ) -> Result<u64> {
        match self
            .directions
            .iter()
            .find(|direction| direction.name == name)
        {
            Some(direction) => Ok(direction.longest_list),
            None => longest_list_bytes(graph, kinds),
        }
    }
}
