//! A 2-D mesh with a few random shortcuts: high diameter and low degree, like a
//! road network. Vertex `r × cols + c` links to its right and lower neighbors.

use super::random::Rng;
use crate::builder::BATCH_EDGES;
use crate::source::{Direction, EdgeSource, InputEdge};
use crate::{BuildError, Result};

/// Streams a grid graph.
pub struct GridSource {
    rows: u64,
    columns: u64,
    shortcuts: u64,
    weighted: bool,
    rng: Rng,
    next_vertex: u64,
    shortcuts_made: u64,
}

impl GridSource {
    /// The default number of shortcuts: one per million vertices (at least one), few
    /// enough that the diameter stays in the thousands on road-network-sized grids.
    pub fn default_shortcuts(rows: u64, columns: u64) -> u64 {
        (rows * columns).div_ceil(1_000_000).max(1)
    }

    /// A `rows × columns` grid with `shortcuts` random extra edges.
    pub fn new(rows: u64, columns: u64, shortcuts: u64, weighted: bool, seed: u64) -> Result<Self> {
        for (option, value) in [("rows", rows), ("cols", columns)] {
            if value == 0 {
                return Err(BuildError::InvalidOption {
                    option,
                    detail: "must be at least 1".to_string(),
                });
            }
        }
        match rows.checked_mul(columns) {
            Some(n) if n <= crate::source::MAX_VERTEX_ID + 1 => {}
            _ => {
                return Err(BuildError::InvalidOption {
                    option: "rows",
                    detail: format!(
                        "times cols must fit 32-bit ids, but a {rows} x {columns} grid does not"
                    ),
                });
            }
        }
        Ok(GridSource {
            rows,
            columns,
            shortcuts,
            weighted,
            rng: Rng::for_block(seed, 3, 0),
            next_vertex: 0,
            shortcuts_made: 0,
        })
    }

    fn push(&mut self, batch: &mut Vec<InputEdge>, source: u64, destination: u64) {
        let weight = if self.weighted {
            self.rng.weight()
        } else {
            1.0
        };
        batch.push(InputEdge {
            source: source as u32,
            destination: destination as u32,
            weight,
        });
    }
}

impl EdgeSource for GridSource {
    fn name(&self) -> String {
        format!("grid {} x {}", self.rows, self.columns)
    }

    fn direction(&self) -> Direction {
        Direction::Undirected
    }

    fn weighted(&self) -> bool {
        self.weighted
    }

    fn declared_vertices(&self) -> Option<u64> {
        Some(self.rows * self.columns)
    }

    fn progress_bytes(&self) -> (u64, Option<u64>) {
        (self.next_vertex, Some(self.rows * self.columns))
    }

    fn next_batch(&mut self, batch: &mut Vec<InputEdge>) -> Result<bool> {
        batch.clear();
        let vertices = self.rows * self.columns;
        while batch.len() + 2 <= BATCH_EDGES && self.next_vertex < vertices {
            let vertex = self.next_vertex;
            let (row, column) = (vertex / self.columns, vertex % self.columns);
            if column + 1 < self.columns {
                self.push(batch, vertex, vertex + 1);
            }
            if row + 1 < self.rows {
                self.push(batch, vertex, vertex + self.columns);
            }
            self.next_vertex += 1;
        }
        while batch.len() < BATCH_EDGES
            && self.next_vertex == vertices
            && self.shortcuts_made < self.shortcuts
        {
            let source = self.rng.below(vertices);
            let destination = self.rng.below(vertices);
            self.push(batch, source, destination);
            self.shortcuts_made += 1;
        }
        Ok(!batch.is_empty())
    }
}
