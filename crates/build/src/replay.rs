//! Reordering needs every vertex's degree before any arc is sorted: the input is read
//! once while degrees are counted and its arcs are spilled raw to a temporary file,
//! which is then replayed, renumbered, as the builder's source.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::PathBuf;

use crate::builder::{BATCH_EDGES, Context};
use crate::reorder::{degree_based_grouping, invert_permutation};
use crate::source::{Direction, EdgeSource, InputEdge};
use crate::{BuildError, Result};

/// Reordering needs every vertex's degree before any arc is sorted, so the input
/// is first copied to a raw spill file while degrees are counted, then replayed
/// with the new ids.
pub(crate) fn spill_and_reorder(
    source: &mut dyn EdgeSource,
    context: &mut Context,
) -> Result<(RawReplay, Vec<u32>)> {
    let path = context.temp_dir.join("input.raw");
    let file = File::create(&path).map_err(|error| BuildError::io(&path, error))?;
    let mut spill = BufWriter::with_capacity(1 << 20, file);
    let mut degrees: Vec<u32> = Vec::new();
    let mut batch = Vec::with_capacity(BATCH_EDGES);
    let mut edges = 0u64;
    // Degrees now, two id maps later: 12 bytes per vertex must leave room for the arc buffers.
    let max_vertices = (context.working_bytes / 2 / 12) as usize;
    context.phase("reading (counting degrees)", source.progress_bytes().1);
    while source.next_batch(&mut batch)? {
        context.check_cancelled()?;
        for edge in &batch {
            let larger = edge.source.max(edge.destination) as usize;
            if larger >= degrees.len() {
                if larger >= max_vertices {
                    return Err(BuildError::BudgetTooSmall {
                        budget_bytes: context.options.memory_bytes,
                        needed_bytes: context.options.memory_bytes - context.working_bytes
                            + (larger as u64 + 1) * 24,
                    });
                }
                degrees.resize(larger + 1, 0);
            }
            if edge.source == edge.destination {
                context.report.input_edges += 1;
                context.report.self_loops_dropped += 1;
                continue;
            }
            degrees[edge.source as usize] = degrees[edge.source as usize].saturating_add(1);
            degrees[edge.destination as usize] =
                degrees[edge.destination as usize].saturating_add(1);
            let raw = [edge.source, edge.destination, edge.weight.to_bits()];
            spill
                .write_all(bytemuck::cast_slice(&raw))
                .map_err(|error| BuildError::io(&path, error))?;
            edges += 1;
        }
        context.report_reading(source, context.report.input_edges + edges);
    }
    spill
        .flush()
        .map_err(|error| BuildError::io(&path, error))?;
    drop(spill);
    if let Some(declared) = source.declared_vertices() {
        if (declared as usize) < degrees.len() {
            return Err(BuildError::bad_input(
                source.name(),
                format!(
                    "the input declares {declared} vertices but uses id {}",
                    degrees.len() - 1
                ),
            ));
        }
        // A header's vertex count is checked against the budget before it is allocated.
        if declared as usize > max_vertices {
            return Err(BuildError::BudgetTooSmall {
                budget_bytes: context.options.memory_bytes,
                needed_bytes: context.options.memory_bytes - context.working_bytes + declared * 24,
            });
        }
        degrees.resize(declared as usize, 0);
    }
    if edges == 0 && context.report.input_edges == 0 {
        return Err(BuildError::bad_input(
            source.name(),
            "the input contains no edges; check the file and its format",
        ));
    }
    let old_to_new = degree_based_grouping(&degrees);
    let vertices = degrees.len() as u64;
    drop(degrees);
    let new_to_old = invert_permutation(&old_to_new);
    let file = File::open(&path).map_err(|error| BuildError::io(&path, error))?;
    let replay = RawReplay {
        name: source.name(),
        path,
        reader: BufReader::with_capacity(1 << 20, file),
        old_to_new,
        direction: source.direction(),
        weighted: source.weighted(),
        vertices,
        expected_duplicates: source.expected_duplicate_edges(),
    };
    Ok((replay, new_to_old))
}

/// Replays a raw spill file with vertices renumbered.
pub(crate) struct RawReplay {
    name: String,
    path: PathBuf,
    reader: BufReader<File>,
    old_to_new: Vec<u32>,
    direction: Direction,
    weighted: bool,
    vertices: u64,
    expected_duplicates: u64,
}

impl EdgeSource for RawReplay {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn direction(&self) -> Direction {
        self.direction
    }
    fn weighted(&self) -> bool {
        self.weighted
    }
    fn declared_vertices(&self) -> Option<u64> {
        Some(self.vertices)
    }
    fn expected_duplicate_edges(&self) -> u64 {
        self.expected_duplicates
    }
    fn next_batch(&mut self, batch: &mut Vec<InputEdge>) -> Result<bool> {
        batch.clear();
        let mut raw = vec![[0u32; 3]; BATCH_EDGES];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut raw);
        let mut filled = 0;
        while filled < bytes.len() {
            let read = self
                .reader
                .read(&mut bytes[filled..])
                .map_err(|error| BuildError::io(&self.path, error))?;
            if read == 0 {
                break;
            }
            filled += read;
        }
        for &[source, destination, weight] in &raw[..filled / 12] {
            batch.push(InputEdge {
                source: self.old_to_new[source as usize],
                destination: self.old_to_new[destination as usize],
                weight: f32::from_bits(weight),
            });
        }
        Ok(!batch.is_empty())
    }
}
