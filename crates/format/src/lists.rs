//! One vertex's list, read through the file's map: borrowed when lists are plain,
//! decoded from its own pages when they are compressed. What the serial verifiers,
//! `check` and the tests read lists with (the tiers read them through the store).

use std::borrow::Cow;

use crate::compressed_lists::{GapCoding, LIST_PAGE_BYTES, MOST_IDS_A_BYTE, decode_list};
use crate::{GraphFile, Result, SectionKind};

/// One vertex's list as [`GraphFile::out_list`] reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct ListOf<'a> {
    /// Neighbor ids, sorted ascending.
    pub ids: Cow<'a, [u32]>,
    /// Weights parallel to `ids`, on a weighted graph.
    pub weights: Option<Cow<'a, [f32]>>,
}

/// The sections that hold one direction's lists.
#[derive(Clone, Copy)]
pub(crate) struct ListSections {
    pub(crate) offsets: SectionKind,
    pub(crate) positions: SectionKind,
    pub(crate) neighbors: SectionKind,
    pub(crate) weights: SectionKind,
}

impl ListSections {
    pub(crate) const OUT: ListSections = ListSections {
        offsets: SectionKind::OutOffsets,
        positions: SectionKind::OutPositions,
        neighbors: SectionKind::OutNeighbors,
        weights: SectionKind::OutWeights,
    };
    pub(crate) const IN: ListSections = ListSections {
        offsets: SectionKind::InOffsets,
        positions: SectionKind::InPositions,
        neighbors: SectionKind::InNeighbors,
        weights: SectionKind::InWeights,
    };
}

impl GraphFile {
    /// Whether the neighbor lists are compressed (a version-3 file): then
    /// [`GraphFile::out_neighbors`] and the weight slices are empty, and lists are read
    /// with [`GraphFile::out_list`] or [`GraphFile::out_neighbors_of`].
    pub fn lists_compressed(&self) -> bool {
        self.flags().compressed_lists
    }

    /// How this file's compressed lists code their gaps (it depends on its version).
    pub fn gap_coding(&self) -> GapCoding {
        GapCoding::of_version(self.header().version)
    }

    /// `u64 × (n+1)`, in a file with compressed lists: where each out-list starts in
    /// `out_neighbors`, in bytes.
    pub fn out_positions(&self) -> Option<&[u64]> {
        self.typed(SectionKind::OutPositions)
    }

    /// The in-lists' positions, in a directed file with compressed lists.
    pub fn in_positions(&self) -> Option<&[u64]> {
        self.typed(SectionKind::InPositions)
    }

    /// Vertex `v`'s out-list: its ids and, on a weighted graph, its weights; borrowed
    /// from the map when lists are plain, decoded when they are compressed (an error
    /// names a list that does not decode).
    pub fn out_list(&self, v: usize) -> Result<ListOf<'_>> {
        self.list(ListSections::OUT, v)
    }

    /// Vertex `v`'s in-list (its out-list on an undirected graph), as [`GraphFile::out_list`].
    pub fn in_list(&self, v: usize) -> Result<ListOf<'_>> {
        match self.flags().directed {
            true => self.list(ListSections::IN, v),
            false => self.out_list(v),
        }
    }

    /// Vertex `v`'s out-list (`in_list`: its in-list), as [`GraphFile::out_list`] reads
    /// it, after checking the checksums of every block that holds it: its offsets, its
    /// entries (or compressed pages) and its weights. For a reader outside the stores,
    /// which check their own reads.
    pub fn checked_list(&self, in_list: bool, v: usize) -> Result<ListOf<'_>> {
        let sections = match in_list && self.flags().directed {
            true => ListSections::IN,
            false => ListSections::OUT,
        };
        let offsets: &[u64] = self.typed(sections.offsets).unwrap_or(&[]);
        self.verify_range(sections.offsets, v as u64 * 8, (v as u64 + 2) * 8)?;
        let list = self.list(sections, v)?;
        let (start, end) = match (offsets.get(v), offsets.get(v + 1)) {
            (Some(&start), Some(&end)) => (start, end),
            _ => return Ok(list),
        };
        if self.lists_compressed() {
            let positions: &[u64] = self.typed(sections.positions).unwrap_or(&[]);
            self.verify_range(sections.positions, v as u64 * 8, (v as u64 + 2) * 8)?;
            if let (Some(&from), Some(&to)) = (positions.get(v), positions.get(v + 1)) {
                let page = from / LIST_PAGE_BYTES * LIST_PAGE_BYTES;
                self.verify_range(
                    sections.neighbors,
                    page,
                    to.div_ceil(LIST_PAGE_BYTES) * LIST_PAGE_BYTES,
                )?;
            }
            return Ok(list);
        }
        self.verify_range(sections.neighbors, start * 4, end * 4)?;
        if self.flags().weighted {
            self.verify_range(sections.weights, start * 4, end * 4)?;
        }
        Ok(list)
    }

    /// Checks the checksums of the blocks of section `kind` that hold bytes
    /// `start..end` (clipped to the section).
    fn verify_range(&self, kind: SectionKind, start: u64, end: u64) -> Result<()> {
        let Some(bytes) = self.section_bytes(kind) else {
            return Ok(());
        };
        let block = self.checksum_block_bytes();
        let first = start / block * block;
        let last = (end.div_ceil(block) * block).min(bytes.len() as u64);
        if first >= last {
            return Ok(());
        }
        self.verify_blocks(kind, first, &bytes[first as usize..last as usize])
    }

    pub(crate) fn list(&self, sections: ListSections, v: usize) -> Result<ListOf<'_>> {
        let offsets: &[u64] = self.typed(sections.offsets).unwrap_or(&[]);
        if v + 1 >= offsets.len() {
            return Err(self.corrupt(format!(
                "vertex {v} has no list in {}",
                sections.offsets.name()
            )));
        }
        let entries = self.list_range(sections.offsets, offsets, v);
        match self.lists_compressed() {
            true => self.decoded_list(sections, v, entries),
            false => self.mapped_list(sections, v, entries),
        }
    }

    /// Plain list `v`, entries `start..end` of its sections, borrowed from the map.
    fn mapped_list(
        &self,
        sections: ListSections,
        v: usize,
        (start, end): (usize, usize),
    ) -> Result<ListOf<'_>> {
        let bytes = (start as u64 * 4, (end - start) as u64 * 4);
        self.before_read(sections.neighbors, bytes.0, bytes.1);
        let ids: &[u32] = self.typed(sections.neighbors).unwrap_or(&[]);
        let ids = ids
            .get(start..end)
            .ok_or_else(|| self.corrupt(format!("vertex {v}'s list runs past its section")))?;
        let weights = match self.flags().weighted {
            true => {
                self.before_read(sections.weights, bytes.0, bytes.1);
                let weights: &[f32] = self.typed(sections.weights).unwrap_or(&[]);
                Some(Cow::Borrowed(weights.get(start..end).ok_or_else(|| {
                    self.corrupt(format!("vertex {v}'s weights run past their section"))
                })?))
            }
            false => None,
        };
        Ok(ListOf {
            ids: Cow::Borrowed(ids),
            weights,
        })
    }

    /// Compressed list `v` of `end - start` entries, decoded from the pages that hold it.
    fn decoded_list(
        &self,
        sections: ListSections,
        v: usize,
        (start, end): (usize, usize),
    ) -> Result<ListOf<'_>> {
        let positions: &[u64] = self.typed(sections.positions).unwrap_or(&[]);
        let stream = self.section_bytes(sections.neighbors).unwrap_or(&[]);
        let (Some(&from), Some(&to)) = (positions.get(v), positions.get(v + 1)) else {
            return Err(self.corrupt(format!(
                "vertex {v} has no position in {}",
                sections.positions.name()
            )));
        };
        let degree = (end - start) as u64;
        // Room for what the list's pages can hold, not for the degree its offsets claim:
        // forged offsets must not make a small file ask for terabytes before its list
        // fails to decode.
        let pages_hold = to.saturating_sub(from).saturating_add(LIST_PAGE_BYTES);
        let room = degree.min(pages_hold.saturating_mul(MOST_IDS_A_BYTE));
        let mut ids = Vec::with_capacity(room as usize);
        let mut weights = self
            .flags()
            .weighted
            .then(|| Vec::with_capacity(room as usize));
        if degree > 0 {
            if from > to || to > stream.len() as u64 {
                return Err(self.corrupt(format!(
                    "vertex {v}'s position in {} lies outside its lists",
                    sections.positions.name()
                )));
            }
            self.before_read(sections.positions, v as u64 * 8, 16);
            let page = from / LIST_PAGE_BYTES * LIST_PAGE_BYTES;
            let last = (to.div_ceil(LIST_PAGE_BYTES) * LIST_PAGE_BYTES).min(stream.len() as u64);
            self.before_read(sections.neighbors, page, last - page);
            decode_list(
                self.gap_coding(),
                &stream[page as usize..last as usize],
                (from - page) as usize,
                v as u32,
                degree,
                degree,
                &mut ids,
                weights.as_mut(),
            )
            .map_err(|error| self.corrupt(format!("{}: {error}", sections.neighbors.name())))?;
        }
        Ok(ListOf {
            ids: Cow::Owned(ids),
            weights: weights.map(Cow::Owned),
        })
    }

    /// The out-neighbors of vertex `v` (decoded when lists are compressed; a list that
    /// does not decode reads as empty, which `check` reports).
    pub fn out_neighbors_of(&self, v: usize) -> Cow<'_, [u32]> {
        self.out_list(v).map(|list| list.ids).unwrap_or_default()
    }

    /// The out-degree of vertex `v` (its offsets only are read).
    pub fn out_degree(&self, v: usize) -> usize {
        let (start, end) = self.list_range(SectionKind::OutOffsets, self.out_offsets(), v);
        end - start
    }

    /// The weights of vertex `v`'s out-edges, parallel to [`GraphFile::out_neighbors_of`];
    /// `None` for an unweighted graph.
    pub fn out_weights_of(&self, v: usize) -> Option<Cow<'_, [f32]>> {
        if !self.flags().weighted {
            return None;
        }
        Some(
            self.out_list(v)
                .ok()
                .and_then(|list| list.weights)
                .unwrap_or_default(),
        )
    }

    /// The in-neighbors of vertex `v` (the out-neighbors for undirected graphs), as
    /// [`GraphFile::out_neighbors_of`].
    pub fn in_neighbors_of(&self, v: usize) -> Cow<'_, [u32]> {
        self.in_list(v).map(|list| list.ids).unwrap_or_default()
    }
}
