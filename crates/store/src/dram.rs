//! The dram tier: every section the run needs, read into memory up front. The
//! oracle the other tiers are tested against, and the default when the graph fits.

use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;
use swapless_format::{GraphFile, SectionKind};

use crate::lists::layout::{check_ids_in_range, check_offsets};
use crate::{
    Adjacency, EdgeDirection, EdgeStore, GraphFacts, ListsNeeded, OffsetForm, OffsetSlice, Offsets,
    Result, SCAN_BLOCK, Visit, VisitBlock, advise_huge_pages_prefix, block_ranges, for_each_block,
    prefetch,
};

/// Ranges of vertices a thread's share of a compressed load is cut into: more than one
/// a thread, so a thread whose ranges hold the hubs does not hold up the others.
const DECODE_RANGES_A_THREAD: usize = 4;

/// `count` ranges of vertices of about equal arcs, covering every vertex (fewer where
/// one list holds several ranges' arcs, or the graph is small).
fn decode_ranges(offsets: OffsetSlice<'_>, count: usize) -> Vec<Range<usize>> {
    let vertices = offsets.len() - 1;
    let arcs = offsets.get(vertices);
    let mut ranges = Vec::with_capacity(count);
    let mut start = 0;
    for index in 1..=count {
        let end = match index == count {
            true => vertices,
            // The first vertex whose list starts at or after the range's share.
            false => {
                let target = arcs * index as u64 / count as u64;
                offsets
                    .partition_point(|offset| offset < target)
                    .min(vertices)
            }
        };
        if end > start {
            ranges.push(start..end);
            start = end;
        }
    }
    ranges
}

/// Reads and decodes the lists of `range` into `ids` (and `weights`), which hold exactly
/// their entries, part by part as a scan hands them out.
fn decode_range(
    graph: &GraphFile,
    incoming: bool,
    range: Range<usize>,
    ids: &mut [u32],
    mut weights: Option<&mut [f32]>,
) -> Result<()> {
    let mut scan = graph.scan_lists_from(incoming, range.start)?;
    let (mut part, mut part_weights) = (Vec::new(), Vec::new());
    let mut at = 0;
    let mut vertex = range.start;
    while vertex < range.end {
        part.clear();
        part_weights.clear();
        let wanted = weights.is_some().then_some(&mut part_weights);
        let Some((_, ends)) = scan.next_part(graph, &mut part, wanted)? else {
            break;
        };
        // The scan checks each list against its degree in the offsets, whose sum the
        // range's share of the arrays is: a part past it is damage all the same.
        let share = at..at + part.len();
        let past_share = || swapless_format::FormatError::Corrupt {
            path: graph.path().to_path_buf(),
            detail: format!("vertex {vertex}'s list holds more entries than its offsets give"),
        };
        ids.get_mut(share.clone())
            .ok_or_else(past_share)?
            .copy_from_slice(&part);
        if let Some(weights) = weights.as_deref_mut() {
            weights
                .get_mut(share)
                .ok_or_else(past_share)?
                .copy_from_slice(&part_weights);
        }
        at += part.len();
        if ends {
            vertex += 1;
        }
    }
    Ok(())
}

/// One direction's CSR in memory.
struct Csr {
    offsets: Offsets,
    neighbors: Vec<u32>,
    weights: Option<Vec<f32>>,
}

impl Csr {
    fn load(graph: &GraphFile, sections: [SectionKind; 3], weighted: bool) -> Result<Csr> {
        let missing = || swapless_format::FormatError::Corrupt {
            path: graph.path().to_path_buf(),
            detail: format!("section {} is missing", sections[0].name()),
        };
        if graph.lists_compressed() {
            return Csr::decode(graph, sections, weighted);
        }
        let neighbors: Vec<u32> = graph
            .load_section_with(sections[1], advise_huge_pages)?
            .ok_or_else(missing)?;
        let offsets = Offsets::load(
            graph,
            [sections[0], sections[1]],
            neighbors.len() as u64,
            OffsetForm::Plain,
        )?
        .ok_or_else(missing)?;
        // Checksums show the bytes are the ones written; these show they make a graph,
        // so a crafted file is refused in one sentence rather than by a kernel's panic.
        check_offsets(graph, sections, offsets.as_slice(), neighbors.len() as u64)?;
        check_ids_in_range(graph, sections[1], &neighbors)?;
        Ok(Csr {
            offsets,
            neighbors,
            weights: if weighted {
                graph.load_section_with(sections[2], advise_huge_pages)?
            } else {
                None
            },
        })
    }

    /// Loads compressed lists decoded, as plain ones: kernels in memory then run at the
    /// speed of plain lists, and the file's smaller size only shortens the load. The
    /// vertices are cut into ranges of about equal arcs, each read and decoded by its own
    /// scan on rayon's threads straight into its part of the arrays.
    fn decode(graph: &GraphFile, sections: [SectionKind; 3], weighted: bool) -> Result<Csr> {
        let arcs = graph.num_arcs() as u64;
        let offsets = Offsets::load(graph, [sections[0], sections[1]], arcs, OffsetForm::Plain)?
            .ok_or_else(|| swapless_format::FormatError::Corrupt {
                path: graph.path().to_path_buf(),
                detail: format!("section {} is missing", sections[0].name()),
            })?;
        check_offsets(graph, sections, offsets.as_slice(), arcs)?;
        let mut neighbors = vec![0u32; arcs as usize];
        advise_huge_pages(&mut neighbors);
        let mut weights = weighted.then(|| vec![0f32; arcs as usize]);
        if let Some(weights) = weights.as_mut() {
            advise_huge_pages(weights);
        }
        let incoming = sections[1] == SectionKind::InNeighbors;
        let offsets_of = offsets.as_slice();
        let ranges = decode_ranges(
            offsets_of,
            rayon::current_num_threads() * DECODE_RANGES_A_THREAD,
        );
        // Each range's share of the arrays, cut in vertex order.
        let mut parts = Vec::with_capacity(ranges.len());
        let (mut ids_left, mut weights_left) = (&mut neighbors[..], weights.as_deref_mut());
        for range in ranges {
            let length = (offsets_of.get(range.end) - offsets_of.get(range.start)) as usize;
            let (ids, rest) = std::mem::take(&mut ids_left).split_at_mut(length);
            ids_left = rest;
            let part_weights = match weights_left.take() {
                Some(all) => {
                    let (part, rest) = all.split_at_mut(length);
                    weights_left = Some(rest);
                    Some(part)
                }
                None => None,
            };
            parts.push((range, ids, part_weights));
        }
        parts
            .into_par_iter()
            .try_for_each(|(range, ids, weights)| -> Result<()> {
                decode_range(graph, incoming, range, ids, weights)
            })?;
        check_ids_in_range(graph, sections[1], &neighbors)?;
        Ok(Csr {
            offsets,
            neighbors,
            weights,
        })
    }

    fn adjacency(&self, vertex: u32) -> Adjacency<'_> {
        let start = self.offsets.get(vertex as usize) as usize;
        let end = self.offsets.get(vertex as usize + 1) as usize;
        Adjacency {
            neighbors: &self.neighbors[start..end],
            weights: self.weights.as_ref().map(|weights| &weights[start..end]),
        }
    }

    /// Starts loading the head of `vertex`'s list (and weights) into the cache.
    #[inline]
    fn prefetch_list(&self, vertex: u32) {
        let start = self.offsets.get(vertex as usize) as usize;
        if let Some(head) = self.neighbors.get(start) {
            prefetch(head);
        }
        if let Some(head) = self.weights.as_ref().and_then(|weights| weights.get(start)) {
            prefetch(head);
        }
    }

    /// Visits the lists of `vertices` in blocks.
    fn visit_block(&self, vertices: Range<u32>, visit_block: &VisitBlock) {
        for_each_block(
            self.offsets.as_slice(),
            vertices,
            0,
            &self.neighbors,
            self.weights.as_deref(),
            visit_block,
        )
    }

    fn bytes(&self) -> u64 {
        (self.offsets.bytes() as usize
            + self.neighbors.len() * 4
            + self.weights.as_ref().map_or(0, |w| w.len() * 4)) as u64
    }
}

/// Asks the OS to back `values` with huge pages before they are first touched: a search
/// reads the heads of lists all over the section, and on 4 KiB pages nearly each one
/// misses the TLB as well as the cache.
fn advise_huge_pages<T>(values: &mut [T]) {
    advise_huge_pages_prefix(values, std::mem::size_of_val(values));
}

/// Vertices of a gather that one task visits in turn.
const GATHER_CHUNK: usize = 64;
/// How many vertices ahead a gather fetches the heads of their lists.
const GATHER_PREFETCH_AHEAD: usize = 8;

/// A graph held entirely in DRAM.
pub struct DramStore {
    facts: GraphFacts,
    out_lists: Csr,
    in_lists: Option<Csr>,
}

impl DramStore {
    /// Reads `path` into memory, verifying every checksum; in-lists only if `need_in_lists`,
    /// a weighted graph's weights only if `need_weights`.
    pub fn load(path: &Path, need_in_lists: bool, need_weights: bool) -> Result<DramStore> {
        let graph = GraphFile::open(path)?;
        let flags = graph.flags();
        let weighted = flags.weighted && need_weights;
        let out_lists = Csr::load(
            &graph,
            [
                SectionKind::OutOffsets,
                SectionKind::OutNeighbors,
                SectionKind::OutWeights,
            ],
            weighted,
        )?;
        let in_lists = if flags.directed && need_in_lists {
            Some(Csr::load(
                &graph,
                [
                    SectionKind::InOffsets,
                    SectionKind::InNeighbors,
                    SectionKind::InWeights,
                ],
                weighted,
            )?)
        } else {
            None
        };
        Ok(DramStore {
            facts: GraphFacts {
                vertices: out_lists.offsets.len() - 1,
                arcs: out_lists.neighbors.len() as u64,
                directed: in_lists.is_some(),
                weighted,
                permutation: graph.load_permutation()?,
                self_loops: graph.num_self_loops(),
            },
            out_lists,
            in_lists,
        })
    }

    fn lists(&self, direction: EdgeDirection) -> &Csr {
        match (direction, &self.in_lists) {
            (EdgeDirection::In, Some(in_lists)) => in_lists,
            _ => &self.out_lists,
        }
    }
}

impl EdgeStore for DramStore {
    fn facts(&self) -> &GraphFacts {
        &self.facts
    }

    fn tier(&self) -> &'static str {
        "dram"
    }

    fn offsets(&self, direction: EdgeDirection) -> OffsetSlice<'_> {
        self.lists(direction).offsets.as_slice()
    }

    fn scan_blocks(
        &self,
        direction: EdgeDirection,
        range: Range<u32>,
        visit_block: &VisitBlock,
    ) -> Result<()> {
        let lists = self.lists(direction);
        block_ranges(range, SCAN_BLOCK)
            .for_each(|vertices| lists.visit_block(vertices, visit_block));
        Ok(())
    }

    fn scan_partial(
        &self,
        direction: EdgeDirection,
        range: Range<u32>,
        _needed: ListsNeeded,
        visit_block: &VisitBlock,
    ) -> Result<()> {
        // Every list is at hand whole.
        self.scan_blocks(direction, range, visit_block)
    }

    fn gather(&self, direction: EdgeDirection, vertices: &[u32], visit: &Visit) -> Result<()> {
        let lists = self.lists(direction);
        // A frontier's lists lie anywhere in the section: each one's head is fetched a few
        // vertices ahead, so that several are on their way at once.
        vertices.par_chunks(GATHER_CHUNK).for_each(|chunk| {
            for &vertex in &chunk[..GATHER_PREFETCH_AHEAD.min(chunk.len())] {
                lists.prefetch_list(vertex);
            }
            for (index, &vertex) in chunk.iter().enumerate() {
                if let Some(&ahead) = chunk.get(index + GATHER_PREFETCH_AHEAD) {
                    lists.prefetch_list(ahead);
                }
                visit(vertex, lists.adjacency(vertex));
            }
        });
        Ok(())
    }

    fn resident_bytes(&self) -> u64 {
        self.out_lists.bytes()
            + self.in_lists.as_ref().map_or(0, Csr::bytes)
            + self
                .facts
                .permutation
                .as_ref()
                .map_or(0, |p| p.len() as u64 * 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_ranges_cover_every_vertex_once_in_shares_of_arcs() {
        // Offsets, ranges asked for, and the ranges' (start, end).
        type Case = (&'static [u64], usize, &'static [(usize, usize)]);
        let table: [Case; 5] = [
            (&[0, 2, 4, 6, 8], 2, &[(0, 2), (2, 4)]),
            (&[0, 2, 4, 6, 8], 8, &[(0, 1), (1, 2), (2, 3), (3, 4)]),
            // A hub holds most arcs: the ranges after it are folded in.
            (&[0, 1, 101, 102, 103], 4, &[(0, 2), (2, 4)]),
            // Empty lists and a graph with no arcs still cover every vertex.
            (&[0, 0, 0, 5, 5], 2, &[(0, 3), (3, 4)]),
            (&[0, 0, 0], 3, &[(0, 2)]),
        ];
        for (offsets, count, expected) in table {
            let offsets = Offsets::Wide(offsets.to_vec());
            let ranges: Vec<(usize, usize)> = decode_ranges(offsets.as_slice(), count)
                .into_iter()
                .map(|range| (range.start, range.end))
                .collect();
            assert_eq!(ranges, expected, "{count}");
        }
    }
}
