//! Where one direction's lists live on disk (offsets and section positions), the
//! checks on them at open, and a value per direction: what the mmap and direct tiers
//! share about the lists before any read is planned.

use std::ops::Range;

use rayon::prelude::*;
use swapless_format::compressed_lists::GapCoding;
use swapless_format::{FormatError, GraphFile, SectionKind};

use crate::offsets::offsets_do_not_describe;
use crate::units::{ENTRY_BYTES, PAGE};
use crate::{EdgeDirection, OffsetForm, OffsetSlice, Offsets, Result};

/// One direction's lists: offsets in memory (warm data), neighbors and weights in the file.
pub(crate) struct ListLayout {
    /// Entries `v` and `v + 1` bound `v`'s list.
    pub offsets: Offsets,
    /// File position of the neighbor section.
    pub neighbors_at: u64,
    /// File position of the weight section, for weighted graphs with plain lists.
    pub weights_at: Option<u64>,
    /// Where each list lies in a compressed neighbor section; `None` for plain lists.
    pub compressed: Option<CompressedLists>,
}

/// What a tier knows of compressed lists beyond the offsets (which still count entries).
pub(crate) struct CompressedLists {
    /// Bytes `v` and `v + 1` bound `v`'s chunks in the section (a list's bytes may end
    /// with padding before the next list's page).
    pub positions: Offsets,
    /// Whether weights lie beside the ids (a weighted graph) and the run reads them.
    pub weights: bool,
    /// How the chunks code their gaps (by the file's version).
    pub coding: GapCoding,
}

/// Refuses offsets (section `kinds[0]`) that do not describe the `entries` of
/// neighbor section `kinds[1]` exactly: one more than the vertices, from 0 to `entries`,
/// never falling, so no list can run past the section or overlap another.
pub(crate) fn check_offsets(
    graph: &GraphFile,
    kinds: [SectionKind; 3],
    offsets: OffsetSlice<'_>,
    entries: u64,
) -> Result<()> {
    if offsets.len() != graph.num_vertices() + 1
        || offsets.get(0) != 0
        || offsets.get(offsets.len() - 1) != entries
        || !offsets.ascending()
    {
        return Err(offsets_do_not_describe(graph, kinds[0], kinds[1]));
    }
    Ok(())
}

/// Refuses neighbor ids (from section `kind` of `graph`) that are not vertices.
pub(crate) fn check_ids_in_range(graph: &GraphFile, kind: SectionKind, ids: &[u32]) -> Result<()> {
    let vertices = graph.num_vertices();
    if ids.par_iter().any(|&id| id as usize >= vertices) {
        return Err(FormatError::Corrupt {
            path: graph.path().to_path_buf(),
            detail: format!("section {} holds an id beyond the vertices", kind.name()),
        }
        .into());
    }
    Ok(())
}

impl ListLayout {
    /// Loads the offsets (checksums verified) and checks that they describe the
    /// neighbor section exactly, so no later read can run past it.
    pub fn load(
        graph: &GraphFile,
        kinds: [SectionKind; 3],
        weighted: bool,
        form: OffsetForm,
    ) -> Result<ListLayout> {
        let corrupt = |detail: String| FormatError::Corrupt {
            path: graph.path().to_path_buf(),
            detail,
        };
        let neighbors = graph.required_section(kinds[1])?;
        let compressed = graph.lists_compressed();
        let entries = match compressed {
            true => graph.num_arcs() as u64,
            false => neighbors.length / ENTRY_BYTES,
        };
        let offsets = Offsets::load(graph, [kinds[0], kinds[1]], entries, form)?
            .ok_or_else(|| corrupt(format!("section {} is missing", kinds[0].name())))?;
        check_offsets(graph, kinds, offsets.as_slice(), entries)?;
        if compressed {
            let positions_kind = match kinds[1] {
                SectionKind::InNeighbors => SectionKind::InPositions,
                _ => SectionKind::OutPositions,
            };
            let positions_kinds = [positions_kind, kinds[1], kinds[2]];
            let positions =
                Offsets::load(graph, [positions_kind, kinds[1]], neighbors.length, form)?
                    .ok_or_else(|| {
                        corrupt(format!("section {} is missing", positions_kind.name()))
                    })?;
            check_offsets(
                graph,
                positions_kinds,
                positions.as_slice(),
                neighbors.length,
            )?;
            return Ok(ListLayout {
                offsets,
                neighbors_at: neighbors.offset,
                weights_at: None,
                compressed: Some(CompressedLists {
                    positions,
                    weights: weighted,
                    coding: graph.gap_coding(),
                }),
            });
        }
        let weights_at = if weighted {
            Some(graph.required_section(kinds[2])?.offset)
        } else {
            None
        };
        Ok(ListLayout {
            offsets,
            neighbors_at: neighbors.offset,
            weights_at,
            compressed: None,
        })
    }

    /// Where each list lies in the section: its byte bounds are entries `v` and
    /// `v + 1`, in bytes for compressed lists and in entries for plain ones.
    #[inline]
    pub fn bounds(&self) -> (OffsetSlice<'_>, u64) {
        match &self.compressed {
            Some(compressed) => (compressed.positions.as_slice(), 1),
            None => (self.offsets.as_slice(), ENTRY_BYTES),
        }
    }

    /// Whether the lists are compressed (decoded as they are delivered).
    #[inline]
    pub fn is_compressed(&self) -> bool {
        self.compressed.is_some()
    }

    /// The bytes of the section that hold at least the first `entries` of `vertex`'s
    /// list, from its start (all of it when it has no more).
    pub fn head_bytes(&self, vertex: u32, entries: u64) -> Range<u64> {
        let list = self.list_bytes(vertex);
        match &self.compressed {
            Some(_) if entries == 0 => list.start..list.start,
            // Each page of a list holds at least one of its entries.
            Some(_) => list.start..list.end.min((list.start / PAGE + entries) * PAGE),
            None => {
                let held = ((list.end - list.start) / ENTRY_BYTES).min(entries);
                list.start..list.start + held * ENTRY_BYTES
            }
        }
    }

    /// Degree of `vertex`.
    #[inline]
    pub fn degree(&self, vertex: u32) -> u32 {
        self.offsets.as_slice().degree(vertex as usize) as u32
    }

    /// Bytes of `vertex`'s list within its section.
    #[inline]
    pub fn list_bytes(&self, vertex: u32) -> Range<u64> {
        let (bounds, unit) = self.bounds();
        let bounds = bounds.bounds(vertex as usize);
        bounds.start * unit..bounds.end * unit
    }

    /// Bytes of the lists of `vertices` (a contiguous id range) within the section.
    pub fn span_bytes(&self, vertices: Range<u32>) -> Range<u64> {
        let (bounds, unit) = self.bounds();
        bounds.get(vertices.start as usize) * unit..bounds.get(vertices.end as usize) * unit
    }

    /// Size of the neighbor section in bytes.
    pub fn section_bytes(&self) -> u64 {
        let (bounds, unit) = self.bounds();
        match bounds.len() {
            0 => 0,
            length => bounds.get(length - 1) * unit,
        }
    }

    /// The first vertex whose list does not end within the first `bytes` of the section.
    pub fn vertices_within(&self, bytes: u64) -> u32 {
        let (all, unit) = self.bounds();
        let within = bytes / unit;
        // bounds[v + 1] <= within for every v before the answer.
        (all.partition_point(|end| end <= within).saturating_sub(1)) as u32
    }
}

/// A disk tier's lists in both directions, each with what the tier keeps beside it.
/// An undirected graph has one set of lists, serving both directions.
pub(crate) struct Directions<T> {
    out_lists: T,
    in_lists: Option<T>,
}

impl<T> Directions<T> {
    /// Opens each direction of `directed` graph with `open(sections, cached bytes of
    /// each list section)`, where `prefix_bytes` are the (out, in) cached bytes.
    /// Both directions' offsets are warm data even when only one direction's lists are
    /// read (PageRank reads in-lists but divides by out-degrees); the plan gives an
    /// unread direction no cached lists.
    pub fn open(
        directed: bool,
        prefix_bytes: (u64, u64),
        open: impl Fn([SectionKind; 3], u64) -> Result<T>,
    ) -> Result<Directions<T>> {
        let out_lists = open(
            [
                SectionKind::OutOffsets,
                SectionKind::OutNeighbors,
                SectionKind::OutWeights,
            ],
            prefix_bytes.0,
        )?;
        let in_lists = match directed {
            true => Some(open(
                [
                    SectionKind::InOffsets,
                    SectionKind::InNeighbors,
                    SectionKind::InWeights,
                ],
                prefix_bytes.1,
            )?),
            false => None,
        };
        Ok(Directions {
            out_lists,
            in_lists,
        })
    }

    /// The lists `direction` reads.
    pub fn get(&self, direction: EdgeDirection) -> &T {
        match (direction, &self.in_lists) {
            (EdgeDirection::In, Some(in_lists)) => in_lists,
            _ => &self.out_lists,
        }
    }

    /// Whether in-lists differ from out-lists.
    pub fn directed(&self) -> bool {
        self.in_lists.is_some()
    }

    /// Each distinct set of lists.
    pub fn each(&self) -> impl Iterator<Item = &T> {
        std::iter::once(&self.out_lists).chain(&self.in_lists)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A layout whose lists have `degrees` entries, from section position 0.
    pub(crate) fn layout(degrees: &[u64]) -> ListLayout {
        let mut offsets = vec![0];
        for degree in degrees {
            offsets.push(offsets.last().unwrap() + degree);
        }
        ListLayout {
            offsets: Offsets::Wide(offsets),
            neighbors_at: 0,
            weights_at: None,
            compressed: None,
        }
    }

    #[test]
    fn vertices_within_counts_lists_that_end_inside_a_prefix() {
        let layout = layout(&[1, 2, 3]);
        assert_eq!(layout.vertices_within(0), 0);
        assert_eq!(layout.vertices_within(4), 1);
        assert_eq!(layout.vertices_within(11), 1);
        assert_eq!(layout.vertices_within(12), 2);
        assert_eq!(layout.vertices_within(1000), 3);
    }
}
