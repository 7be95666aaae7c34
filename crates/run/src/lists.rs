//! Lists read outside a kernel run, for point queries: a vertex's neighbors, and the
//! neighbors two vertices share (networkx's `common_neighbors` and
//! `jaccard_coefficient`, which ask about given pairs, not the whole graph).
//!
//! Vertices are positions in the order of every result array (the input's order, also
//! on a file reordered by degree). Each list is read through the file's map and its
//! blocks' checksums checked before it is used; a query holds only the lists it asks
//! for, whatever the graph's size.

use std::path::Path;

use rayon::prelude::*;
use swapless_format::{FormatError, GraphFile};

/// Why a list could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    /// The file is not a graph, or a list or its checksum is damaged.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// A position past the last vertex.
    #[error("vertex {vertex} is not a vertex (the graph has {vertices})")]
    NotAVertex {
        /// The position asked for.
        vertex: u64,
        /// Vertices in the graph.
        vertices: u64,
    },
    /// The graph's lists are in far memory, which only a run's stores read.
    #[error("the lists of {shown} are in far memory, which only kernel runs read")]
    Far {
        /// The graph as the caller named it.
        shown: String,
    },
}

/// Which of a vertex's lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListSide {
    /// The vertices it links to (on an undirected graph, its neighbors).
    Out,
    /// The vertices that link to it.
    In,
}

/// What two vertices' lists share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairCounts {
    /// Distinct vertices in both lists, the pair's own two left out.
    pub common: u64,
    /// Distinct vertices in either list.
    pub union: u64,
}

/// A local graph file opened to read single lists.
pub struct ListReader {
    graph: GraphFile,
    /// Each position's internal vertex, on a reordered file.
    internal_of: Option<Vec<u32>>,
}

impl ListReader {
    /// Opens the graph at `path` (a local file; a far graph's address is refused).
    pub fn open(path: &Path) -> Result<ListReader, ListError> {
        let origin = crate::open_origin(
            path,
            &swapless_store::OriginOptions::default(),
            &crate::Quiet,
        )
        .map_err(|error| match error {
            crate::RunError::Format(error) => ListError::Format(error),
            other => ListError::Far {
                shown: format!("{} ({other})", path.display()),
            },
        })?;
        if origin.kind() != "file" {
            return Err(ListError::Far {
                shown: origin.shown(),
            });
        }
        let graph = GraphFile::open(origin.local_file())?;
        let internal_of = graph.permutation().map(|original_of| {
            let mut internal_of = vec![0u32; original_of.len()];
            for (internal, &original) in original_of.iter().enumerate() {
                internal_of[original as usize] = internal as u32;
            }
            internal_of
        });
        Ok(ListReader { graph, internal_of })
    }

    /// Vertices in the graph.
    pub fn vertices(&self) -> u64 {
        self.graph.num_vertices() as u64
    }

    /// The sorted, distinct positions on `side` of the vertex at `position`.
    pub fn neighbors(&self, position: u64, side: ListSide) -> Result<Vec<u32>, ListError> {
        let vertex = self.internal(position)?;
        let list = self
            .graph
            .checked_list(side == ListSide::In, vertex as usize)?;
        let mut positions: Vec<u32> = match self.graph.permutation() {
            Some(original_of) => list
                .ids
                .iter()
                .map(|&id| original_of[id as usize])
                .collect(),
            None => list.ids.into_owned(),
        };
        positions.sort_unstable();
        positions.dedup();
        Ok(positions)
    }

    /// What the out-lists of each pair of positions share, in parallel.
    pub fn pair_counts(&self, pairs: &[(u64, u64)]) -> Result<Vec<PairCounts>, ListError> {
        pairs
            .par_iter()
            .map(|&(u, v)| {
                let (first, second) = (
                    self.neighbors(u, ListSide::Out)?,
                    self.neighbors(v, ListSide::Out)?,
                );
                Ok(counts_of(&first, &second, (u as u32, v as u32)))
            })
            .collect()
    }

    /// The internal vertex of `position`.
    fn internal(&self, position: u64) -> Result<u32, ListError> {
        if position >= self.vertices() {
            return Err(ListError::NotAVertex {
                vertex: position,
                vertices: self.vertices(),
            });
        }
        Ok(self
            .internal_of
            .as_ref()
            .map_or(position as u32, |internal_of| {
                internal_of[position as usize]
            }))
    }
}

/// What two sorted, distinct lists share, leaving the pair's own two out of the common.
fn counts_of(first: &[u32], second: &[u32], (u, v): (u32, u32)) -> PairCounts {
    let (mut i, mut j, mut both, mut common) = (0, 0, 0u64, 0u64);
    while i < first.len() && j < second.len() {
        let (x, y) = (first[i], second[j]);
        if x == y {
            both += 1;
            common += (x != u && x != v) as u64;
        }
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
    PairCounts {
        common,
        union: (first.len() + second.len()) as u64 - both,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_leave_the_pair_out_of_the_common_but_not_of_the_union() {
        // (first list, second list, the pair, (common, union)).
        type Case = (&'static [u32], &'static [u32], (u32, u32), (u64, u64));
        let cases: [Case; 4] = [
            (&[1, 2, 3], &[2, 3, 4], (0, 5), (2, 4)),
            // 0 and 1 linked (each in the other's list), with a self-loop on 0.
            (&[0, 1, 2], &[0, 2], (0, 1), (1, 3)),
            (&[], &[], (0, 1), (0, 0)),
            (&[7], &[], (0, 1), (0, 1)),
        ];
        for (first, second, pair, (common, union)) in cases {
            assert_eq!(
                counts_of(first, second, pair),
                PairCounts { common, union },
                "{first:?} {second:?}"
            );
        }
    }
}
