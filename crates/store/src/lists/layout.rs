//! Where one direction's lists live on disk (offsets and section positions), the
//! checks on them at open, and a value per direction: what the mmap and direct tiers
//! share about the lists before any read is planned.

use std::ops::Range;

use rayon::prelude::*;
use swapless_format::{FormatError, GraphFile, SectionKind};

use crate::offsets::offsets_do_not_describe;
use crate::units::ENTRY_BYTES;
use crate::{EdgeDirection, OffsetForm, OffsetSlice, Offsets, Result};

/// One direction's lists: offsets in memory (warm data), neighbors and weights in the file.
pub(crate) struct ListLayout {
    /// Entries `v` and `v + 1` bound `v`'s list.
    pub offsets: Offsets,
    /// File position of the neighbor section.
    pub neighbors_at: u64,
    /// File position of the weight section, for weighted graphs.
    pub weights_at: Option<u64>,
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
        let entries = neighbors.length / ENTRY_BYTES;
        let offsets = Offsets::load(graph, [kinds[0], kinds[1]], entries, form)?
            .ok_or_else(|| corrupt(format!("section {} is missing", kinds[0].name())))?;
        check_offsets(graph, kinds, offsets.as_slice(), entries)?;
        let weights_at = if weighted {
            Some(graph.required_section(kinds[2])?.offset)
        } else {
            None
        };
        Ok(ListLayout {
            offsets,
            neighbors_at: neighbors.offset,
            weights_at,
        })
    }

    /// Degree of `vertex`.
    #[inline]
    pub fn degree(&self, vertex: u32) -> u32 {
        self.offsets.as_slice().degree(vertex as usize) as u32
    }

    /// Bytes of `vertex`'s list within its section.
    #[inline]
    pub fn list_bytes(&self, vertex: u32) -> Range<u64> {
        let entries = self.offsets.as_slice().bounds(vertex as usize);
        entries.start * ENTRY_BYTES..entries.end * ENTRY_BYTES
    }

    /// Bytes of the lists of `vertices` (a contiguous id range) within the section.
    pub fn span_bytes(&self, vertices: Range<u32>) -> Range<u64> {
        self.offsets.get(vertices.start as usize) * ENTRY_BYTES
            ..self.offsets.get(vertices.end as usize) * ENTRY_BYTES
    }

    /// Size of the neighbor section in bytes.
    pub fn section_bytes(&self) -> u64 {
        match self.offsets.len() {
            0 => 0,
            length => self.offsets.get(length - 1) * ENTRY_BYTES,
        }
    }

    /// The first vertex whose list does not end within the first `bytes` of the section.
    pub fn vertices_within(&self, bytes: u64) -> u32 {
        let entries = bytes / ENTRY_BYTES;
        // offsets[v + 1] <= entries for every v before the answer.
        let all = self.offsets.as_slice();
        (all.partition_point(|end| end <= entries).saturating_sub(1)) as u32
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
