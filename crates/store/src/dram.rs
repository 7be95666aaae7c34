//! The dram tier: every section the run needs, read into memory up front. The
//! oracle the other tiers are tested against, and the default when the graph fits.

use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;
use swapless_format::{GraphFile, SectionKind};

use crate::lists::layout::{check_ids_in_range, check_offsets};
use crate::{
    Adjacency, EdgeDirection, EdgeStore, GraphFacts, ListsNeeded, OffsetForm, OffsetSlice, Offsets,
    Result, SCAN_BLOCK, Visit, VisitBlock, block_ranges, for_each_block,
};

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
        let neighbors: Vec<u32> = graph.load_section(sections[1])?.ok_or_else(missing)?;
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
                graph.load_section(sections[2])?
            } else {
                None
            },
        })
    }

    /// Loads compressed lists decoded, as plain ones: kernels in memory then run at the
    /// speed of plain lists, and the file's smaller size only shortens the load.
    fn decode(graph: &GraphFile, sections: [SectionKind; 3], weighted: bool) -> Result<Csr> {
        let arcs = graph.num_arcs() as u64;
        let offsets = Offsets::load(graph, [sections[0], sections[1]], arcs, OffsetForm::Plain)?
            .ok_or_else(|| swapless_format::FormatError::Corrupt {
                path: graph.path().to_path_buf(),
                detail: format!("section {} is missing", sections[0].name()),
            })?;
        check_offsets(graph, sections, offsets.as_slice(), arcs)?;
        let mut neighbors = Vec::with_capacity(arcs as usize);
        let mut weights = weighted.then(|| Vec::with_capacity(arcs as usize));
        let incoming = sections[1] == SectionKind::InNeighbors;
        let mut scan = graph.scan_lists(incoming)?;
        let (mut ids, mut list_weights) = (Vec::new(), Vec::new());
        while scan
            .next_list(graph, &mut ids, weighted.then_some(&mut list_weights))?
            .is_some()
        {
            neighbors.extend_from_slice(&ids);
            if let Some(weights) = &mut weights {
                weights.extend_from_slice(&list_weights);
            }
        }
        // The offsets' degrees and the chunks' counts agreed list by list.
        debug_assert_eq!(neighbors.len() as u64, arcs);
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
        vertices
            .par_iter()
            .with_min_len(64)
            .for_each(|&vertex| visit(vertex, lists.adjacency(vertex)));
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
