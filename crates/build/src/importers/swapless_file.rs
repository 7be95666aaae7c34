//! swapless's own `.sl` files as input: to build a graph again with other options
//! (`--reorder dbg`, `--undirected`, dropping weights) or to bring a version-1 file to
//! the current format (page checksums for the disk tiers' checks).
//!
//! The out-lists, plain or compressed, are streamed a part at a time and every checksum
//! block is verified as it is read; the edges come out in the graph's original ids (a
//! reordered file's permutation is applied), so a build never stacks one ordering on
//! another.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use swapless_format::{GraphFile, ListScan, SectionKind};

use super::ImportOptions;
use crate::builder::BATCH_EDGES;
use crate::ids::IdTable;
use crate::source::{Direction, EdgeSource, InputEdge};
use crate::{BuildError, Result};

/// Streams the out-edges of a `.sl` file.
pub struct SwaplessFileSource {
    path: PathBuf,
    graph: GraphFile,
    options: ImportOptions,
    /// The out-lists, read in parts.
    scan: ListScan,
    /// New id -> original id, for a reordered file.
    permutation: Option<Vec<u32>>,
    /// The input's ids of a compacted file, carried into the new one.
    vertex_ids: Option<Arc<IdTable>>,
    /// The part of a list being handed out (and its weights, if kept).
    neighbors: Vec<u32>,
    weights: Vec<f32>,
    /// Whose list `neighbors` is part of.
    part_vertex: u32,
    /// The next entry of `neighbors` to hand out.
    next_in_part: usize,
    arcs_read: u64,
}

impl SwaplessFileSource {
    /// Opens a `.sl` file, checks its out-offsets (and reads its permutation, if reordered).
    pub fn open(path: &Path, options: ImportOptions) -> Result<SwaplessFileSource> {
        let graph = GraphFile::open(path)?;
        let flags = graph.flags();
        if options.weighted && !flags.weighted {
            return Err(BuildError::NoWeights {
                path: path.to_path_buf(),
                line: None,
                found: "this .sl file has no weights",
            });
        }
        let vertices = graph.num_vertices();
        let arcs = graph.num_arcs() as u64;
        // The offsets are checked a piece at a time: a list read past its section, or
        // a fall, is refused here rather than met halfway through the build.
        let (mut count, mut first, mut last, mut falls_at) = (0u64, None, 0u64, None);
        graph.for_each_piece(SectionKind::OutOffsets, &mut |piece| {
            for entry in piece.chunks_exact(8) {
                let offset = u64::from_le_bytes(entry.try_into().unwrap_or_default());
                first.get_or_insert(offset);
                if offset < last && falls_at.is_none() {
                    falls_at = Some(count - 1);
                }
                last = offset;
                count += 1;
            }
        })?;
        if count != vertices as u64 + 1 || first != Some(0) || last != arcs {
            return Err(BuildError::bad_input(
                path,
                format!("the .sl file's out-offsets do not run from 0 to its {arcs} arcs"),
            ));
        }
        if let Some(vertex) = falls_at {
            return Err(BuildError::bad_input(
                path,
                format!("the .sl file's out-offsets decrease at vertex {vertex}"),
            ));
        }
        let permutation: Option<Vec<u32>> = match flags.reordered {
            true => graph.load_permutation()?,
            false => None,
        };
        if let Some(permutation) = &permutation
            && let Some(id) = permutation.iter().find(|&&id| id as usize >= vertices)
        {
            return Err(BuildError::bad_input(
                path,
                format!("the .sl file's permutation names vertex {id}, beyond its {vertices}"),
            ));
        }
        let vertex_ids = graph.load_vertex_ids()?.map(IdTable::new);
        let scan = graph.scan_lists(false)?;
        Ok(SwaplessFileSource {
            path: path.to_path_buf(),
            graph,
            options,
            scan,
            permutation,
            vertex_ids,
            neighbors: Vec::new(),
            weights: Vec::new(),
            part_vertex: 0,
            next_in_part: 0,
            arcs_read: 0,
        })
    }

    /// `vertex` in the graph's original ids.
    fn original(&self, vertex: u32) -> u32 {
        self.permutation
            .as_ref()
            .map_or(vertex, |permutation| permutation[vertex as usize])
    }
}

impl EdgeSource for SwaplessFileSource {
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn direction(&self) -> Direction {
        if self.graph.flags().directed && !self.options.undirected {
            Direction::Directed
        } else {
            Direction::Undirected
        }
    }

    fn weighted(&self) -> bool {
        self.options.weighted
    }

    fn weights_ignored(&self) -> bool {
        self.graph.flags().weighted && !self.options.weighted
    }

    fn declared_vertices(&self) -> Option<u64> {
        Some(self.graph.num_vertices() as u64)
    }

    fn vertex_ids(&self) -> Option<crate::ids::CompactedIds> {
        self.vertex_ids
            .clone()
            .map(crate::ids::CompactedIds::InMemory)
    }

    fn memory_bytes(&self) -> u64 {
        let permutation = self.permutation.as_ref().map_or(0, Vec::len) as u64 * 4;
        let ids = self
            .vertex_ids
            .as_ref()
            .map_or(0, |table| IdTable::memory_bytes(table.ids()));
        permutation + ids + ListScan::part_held_bytes(&self.graph)
    }

    fn expected_duplicate_edges(&self) -> u64 {
        // An undirected .sl file stores every edge in both directions.
        match self.graph.flags().directed {
            true => 0,
            false => self.graph.num_arcs() as u64 / 2,
        }
    }

    fn progress_bytes(&self) -> (u64, Option<u64>) {
        let arcs = self.graph.num_arcs() as u64;
        (self.arcs_read * 4, Some(arcs * 4))
    }

    fn next_batch(&mut self, batch: &mut Vec<InputEdge>) -> Result<bool> {
        batch.clear();
        let vertices = self.graph.num_vertices();
        while batch.len() < BATCH_EDGES {
            if self.next_in_part == self.neighbors.len() {
                self.neighbors.clear();
                self.weights.clear();
                self.next_in_part = 0;
                let weights = self.options.weighted.then_some(&mut self.weights);
                match self
                    .scan
                    .next_part(&self.graph, &mut self.neighbors, weights)?
                {
                    Some((vertex, _)) => self.part_vertex = vertex,
                    None => break,
                }
                continue;
            }
            let index = self.next_in_part;
            let neighbor = self.neighbors[index];
            if neighbor as usize >= vertices {
                return Err(BuildError::bad_input(
                    &self.path,
                    format!(
                        "the .sl file is corrupt: vertex {} has neighbor {neighbor}, outside 0..{vertices}",
                        self.part_vertex
                    ),
                ));
            }
            batch.push(InputEdge {
                source: self.original(self.part_vertex),
                destination: self.original(neighbor),
                weight: match self.options.weighted {
                    true => self.weights[index],
                    false => 1.0,
                },
            });
            self.next_in_part += 1;
            self.arcs_read += 1;
        }
        Ok(!batch.is_empty())
    }
}
