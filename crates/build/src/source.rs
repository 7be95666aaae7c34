//! The one interface every importer and generator offers the builder: batches of edges.

use crate::Result;

/// One input edge, in the input's own vertex ids.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InputEdge {
    /// Source vertex.
    pub source: u32,
    /// Destination vertex.
    pub destination: u32,
    /// Weight (1.0 when the input has none).
    pub weight: f32,
}

/// How the builder turns input edges into stored arcs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Each input edge is one arc; the file also stores in-edges.
    Directed,
    /// Each input edge stands for both directions.
    Undirected,
}

/// The largest vertex id any input may use: ids are stored in 32 bits and `n = max id + 1` must fit too.
pub const MAX_VERTEX_ID: u64 = u32::MAX as u64 - 1;

/// A stream of edges from a file or a generator.
pub trait EdgeSource: Send {
    /// A short description for messages (usually the input path).
    fn name(&self) -> String;
    /// Whether the graph is directed or each edge stands for both directions.
    fn direction(&self) -> Direction;
    /// Whether the edges delivered carry weights the user asked to keep.
    fn weighted(&self) -> bool;
    /// Fills `batch` (cleared first) with the next edges; returns `false` once the input is exhausted.
    fn next_batch(&mut self, batch: &mut Vec<InputEdge>) -> Result<bool>;
    /// The vertex count the input declares (generators, headers); `None` means max id + 1.
    fn declared_vertices(&self) -> Option<u64> {
        None
    }
    /// Bytes of memory the source itself holds while streaming (counted against the budget).
    fn memory_bytes(&self) -> u64 {
        0
    }
    /// Edges the input holds twice by construction (an undirected GAP file lists each
    /// edge in both directions); they are not reported as duplicates.
    fn expected_duplicate_edges(&self) -> u64 {
        0
    }
    /// Input bytes consumed so far and the total, when known, for progress display.
    fn progress_bytes(&self) -> (u64, Option<u64>) {
        (0, None)
    }
    /// Ranges the source resolved its compacted ids in (see [`crate::BuildReport`]).
    fn id_ranges(&self) -> u64 {
        0
    }
    /// What an `auto` input's dense ids fill of `0..=max id` (why they stayed dense).
    fn id_fill(&self) -> Option<crate::ids::Fill> {
        None
    }
    /// Whether the input had weights that were dropped because none were asked for.
    fn weights_ignored(&self) -> bool {
        false
    }
    /// The input's own ids of the vertices, when the source compacted them.
    fn vertex_ids(&self) -> Option<crate::ids::CompactedIds> {
        None
    }
}
