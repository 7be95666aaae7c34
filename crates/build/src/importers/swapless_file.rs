//! swapless's own `.sl` files as input: to build a graph again with other options
//! (`--reorder dbg`, `--undirected`, dropping weights) or to bring a version-1 file to
//! the current format (page checksums for the disk tiers' checks).
//!
//! The out-lists are streamed a piece at a time and every checksum block is verified
//! as it is read; the edges come out in the graph's original ids (a reordered file's
//! permutation is applied), so a build never stacks one ordering on another.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use swapless_format::{GraphFile, SECTION_PIECE_BYTES, SectionKind};

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
    /// Out-offsets, read whole (8 bytes a vertex).
    offsets: Vec<u64>,
    /// New id -> original id, for a reordered file.
    permutation: Option<Vec<u32>>,
    /// The input's ids of a compacted file, carried into the new one.
    vertex_ids: Option<Arc<IdTable>>,
    /// The piece of out-neighbors (and weights, if kept) being handed out.
    neighbors: Vec<u32>,
    weights: Vec<f32>,
    /// Index of `neighbors[0]` among all arcs.
    piece_start: u64,
    arcs_read: u64,
    current_vertex: usize,
}

impl SwaplessFileSource {
    /// Opens a `.sl` file and reads its out-offsets (and permutation, if reordered).
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
        let offsets: Vec<u64> = graph
            .load_section(SectionKind::OutOffsets)?
            .unwrap_or_default();
        if offsets.len() != vertices + 1
            || offsets.first() != Some(&0)
            || offsets.last() != Some(&arcs)
        {
            return Err(BuildError::bad_input(
                path,
                format!("the .sl file's out-offsets do not run from 0 to its {arcs} arcs"),
            ));
        }
        if let Some(vertex) = offsets.windows(2).position(|pair| pair[0] > pair[1]) {
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
        Ok(SwaplessFileSource {
            path: path.to_path_buf(),
            graph,
            options,
            offsets,
            permutation,
            vertex_ids,
            neighbors: Vec::new(),
            weights: Vec::new(),
            piece_start: 0,
            arcs_read: 0,
            current_vertex: 0,
        })
    }

    /// Reads the piece of lists (and weights) that holds arc `self.arcs_read`.
    fn read_next_piece(&mut self) -> Result<()> {
        let arcs = self.graph.num_arcs() as u64;
        let per_piece = SECTION_PIECE_BYTES / 4;
        let start = self.arcs_read / per_piece * per_piece;
        let count = (arcs - start).min(per_piece) as usize;
        self.neighbors.resize(count, 0);
        self.graph.read_section_piece(
            SectionKind::OutNeighbors,
            start * 4,
            bytemuck::cast_slice_mut(&mut self.neighbors),
        )?;
        if self.options.weighted {
            self.weights.resize(count, 0.0);
            self.graph.read_section_piece(
                SectionKind::OutWeights,
                start * 4,
                bytemuck::cast_slice_mut(&mut self.weights),
            )?;
        }
        self.piece_start = start;
        Ok(())
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
        // The piece of neighbors and the piece of weights.
        self.offsets.len() as u64 * 8 + permutation + ids + 2 * SECTION_PIECE_BYTES
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
        let arcs = self.graph.num_arcs() as u64;
        let vertices = self.graph.num_vertices();
        while batch.len() < BATCH_EDGES && self.arcs_read < arcs {
            if self.arcs_read >= self.piece_start + self.neighbors.len() as u64 {
                self.read_next_piece()?;
            }
            while self.offsets[self.current_vertex + 1] <= self.arcs_read {
                self.current_vertex += 1;
            }
            let index = (self.arcs_read - self.piece_start) as usize;
            let neighbor = self.neighbors[index];
            if neighbor as usize >= vertices {
                return Err(BuildError::bad_input(
                    &self.path,
                    format!(
                        "the .sl file is corrupt: vertex {} has neighbor {neighbor}, outside 0..{vertices}",
                        self.current_vertex
                    ),
                ));
            }
            batch.push(InputEdge {
                source: self.original(self.current_vertex as u32),
                destination: self.original(neighbor),
                weight: match self.options.weighted {
                    true => self.weights[index],
                    false => 1.0,
                },
            });
            self.arcs_read += 1;
        }
        Ok(!batch.is_empty())
    }
}
