//! Reordering needs every vertex's degree before any arc is sorted: the input is read
//! once while degrees are counted and its arcs are spilled raw to a temporary file,
//! which is then replayed, renumbered, as the builder's source.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use crate::builder::{BATCH_EDGES, Context, RawCopy, SelfLoops};
use crate::journal::run_file_entry;
use crate::reorder::{degree_based_grouping, invert_permutation};
use crate::runs::read_full;
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
    // Degrees now, two id maps later: 12 bytes per vertex must leave room for the arc buffers.
    let max_vertices = (context.working_bytes / 2 / 12) as usize;
    let resumed = context
        .journal
        .as_ref()
        .and_then(|journal| journal.raw.clone());
    let (mut degrees, edges) = match resumed {
        // A resumed build counts the degrees from its copy of the input, not the input.
        Some(raw) => {
            context.report.input_edges = raw.self_loops_dropped;
            context.report.self_loops_dropped = raw.self_loops_dropped;
            let degrees = degrees_of_copy(&path, raw.vertices_seen, context)?;
            (degrees, raw.file.bytes / 12)
        }
        None => copy_input(source, &path, max_vertices, context)?,
    };
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
    if edges == 0 && context.report.input_edges == 0 && source.declared_vertices().is_none() {
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
        let filled = read_full(&mut self.reader, bytemuck::cast_slice_mut(&mut raw))
            .map_err(|error| BuildError::io(&self.path, error))?;
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

/// Copies the input to `path` as raw edges (self-loops left out) while counting every
/// vertex's degree; journals the complete copy. The degrees and the edges copied.
fn copy_input(
    source: &mut dyn EdgeSource,
    path: &Path,
    max_vertices: usize,
    context: &mut Context,
) -> Result<(Vec<u32>, u64)> {
    let file = File::create(path).map_err(|error| BuildError::io(path, error))?;
    let mut spill = BufWriter::with_capacity(1 << 20, file);
    let mut hasher = Xxh3::new();
    let mut degrees: Vec<u32> = Vec::new();
    let mut batch = Vec::with_capacity(BATCH_EDGES);
    let mut raw: Vec<[u32; 3]> = Vec::with_capacity(BATCH_EDGES);
    let mut edges = 0u64;
    context.phase("reading (counting degrees)", source.progress_bytes().1);
    while source.next_batch(&mut batch)? {
        context.check_cancelled()?;
        raw.clear();
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
            let self_loop = edge.source == edge.destination;
            if self_loop && context.options.self_loops == SelfLoops::Drop {
                context.report.input_edges += 1;
                context.report.self_loops_dropped += 1;
                continue;
            }
            degrees[edge.source as usize] = degrees[edge.source as usize].saturating_add(1);
            if !self_loop {
                degrees[edge.destination as usize] =
                    degrees[edge.destination as usize].saturating_add(1);
            }
            raw.push([edge.source, edge.destination, edge.weight.to_bits()]);
        }
        let bytes: &[u8] = bytemuck::cast_slice(&raw);
        hasher.update(bytes);
        spill
            .write_all(bytes)
            .map_err(|error| BuildError::io(path, error))?;
        edges += raw.len() as u64;
        context.report_reading(source, context.report.input_edges + edges);
    }
    spill.flush().map_err(|error| BuildError::io(path, error))?;
    drop(spill);
    let copy = RawCopy {
        file: run_file_entry(path, edges * 12, hasher.digest()),
        self_loops_dropped: context.report.self_loops_dropped,
        vertices_seen: degrees.len() as u64,
    };
    if let Some(journal) = context.journal.as_mut() {
        journal.raw = Some(copy);
        journal.save(&context.temp_dir)?;
        swapless_system::kill_at_test_point("after-copy", 1);
    }
    Ok((degrees, edges))
}

/// The degrees of the `vertices_seen` vertices of the raw copy at `path`.
fn degrees_of_copy(path: &Path, vertices_seen: u64, context: &mut Context) -> Result<Vec<u32>> {
    context.phase("counting degrees (from the copy of a killed build)", None);
    let file = File::open(path).map_err(|error| BuildError::io(path, error))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut degrees = vec![0u32; vertices_seen as usize];
    let mut raw = vec![[0u32; 3]; BATCH_EDGES];
    loop {
        let filled = read_full(&mut reader, bytemuck::cast_slice_mut(&mut raw))
            .map_err(|error| BuildError::io(path, error))?;
        if filled == 0 {
            return Ok(degrees);
        }
        context.check_cancelled()?;
        for &[source, destination, _] in &raw[..filled / 12] {
            // The copy passed its checksum; an id past the count would be this build's bug.
            for vertex in [source, destination] {
                let degree = degrees.get_mut(vertex as usize).ok_or_else(|| {
                    BuildError::bad_input(
                        path,
                        "the copy of the input holds an id past its vertex count",
                    )
                })?;
                *degree = degree.saturating_add(1);
            }
        }
    }
}
