//! Any vertex ids: an input whose ids are not the small integers `0..n` (64-bit user
//! ids, sparse ids, names) is read twice. The first pass collects its distinct ids
//! ([`DistinctIds`]); sorted, they become the graph's [`VertexIds`], vertex `v` being the
//! `v`-th. The second pass turns each id into its vertex through an [`IdTable`].
//!
//! Ids beyond the budget go to disk: the first pass writes sorted runs of them and
//! merges the runs (`spilled`), and the second pass works through the ids a range at a
//! time, reading the input once more for each range but the last (`ranged`).

mod fill;
mod ranged;
mod spilled;
mod table;

use std::path::Path;
use std::sync::Arc;

use swapless_format::{GraphWriter, IdKind, VertexIds};

pub use fill::Fill;
pub(crate) use fill::IdFill;
pub(crate) use ranged::MOST_RANGES;
pub use spilled::SpilledIds;
pub use table::IdTable;

use crate::importers::text::{TOKEN_CHARS, parse_vertex_id, shown};
use crate::{BuildError, Result};

/// How a build treats the input's vertex ids.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IdMode {
    /// Dense when the ids are integers in `0..2^32-1` that fill at least half of
    /// `0..=max id` (see [`Fill`]); compacted otherwise (names, larger or negative
    /// integers, sparse ids).
    #[default]
    Auto,
    /// The ids are the vertices `0..max id` themselves.
    Dense,
    /// Compacted to `0..n` in ascending order, the ids kept in the file.
    Compact,
}

/// Why an `auto` build of dense ids turns to compacting them, found while reading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompactReason {
    /// An id is not a non-negative integer (a name, a negative number).
    NotDense(String),
    /// An id needs more than 32 bits.
    TooLarge(String),
    /// Too few of `0..=max id` are used.
    Sparse(Fill),
}

impl std::fmt::Display for CompactReason {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompactReason::NotDense(id) => write!(formatter, "id `{id}` is not a number from 0 up"),
            CompactReason::TooLarge(id) => write!(formatter, "id {id} needs more than 32 bits"),
            CompactReason::Sparse(fill) => write!(formatter, "{fill}"),
        }
    }
}

/// An id as the input wrote it, parsed: an integer when it is one (decimal digits after
/// an optional sign, within 64 bits). Written out by hand: the second pass of a
/// compacted build parses every id of the input once more.
pub(crate) fn parse_integer(token: &[u8]) -> Option<i64> {
    let (negative, digits) = match token.first() {
        Some(b'-') => (true, &token[1..]),
        Some(b'+') => (false, &token[1..]),
        _ => (false, token),
    };
    if digits.is_empty() {
        return None;
    }
    let mut value: u64 = 0;
    for &byte in digits {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value.checked_mul(10)?.checked_add(digit as u64)?;
    }
    match negative {
        true if value <= 1 << 63 => Some((value as i64).wrapping_neg()),
        true => None,
        false => i64::try_from(value).ok(),
    }
}

/// An id as an importer reads it: a number (a Parquet integer column), or text.
#[derive(Clone, Copy, Debug)]
pub(crate) enum IdValue<'a> {
    /// An integer.
    Integer(i64),
    /// Text: a number written in decimal, or a name.
    Text(&'a [u8]),
}

/// The distinct ids of an input, gathered in a first pass: integers until a token is
/// not one, then names. Held sorted and deduplicated in batches, so memory follows the
/// distinct ids, not the edges.
pub(crate) enum DistinctIds {
    /// Integers: a sorted, deduplicated part and a batch not yet merged into it.
    Integers { sorted: Vec<i64>, batch: Vec<i64> },
    /// Names, the same way.
    Names {
        sorted: Vec<Box<[u8]>>,
        batch: Vec<Box<[u8]>>,
        batch_bytes: u64,
        /// What the sorted names hold with their overhead, counted at each merge so
        /// that the budget check need not walk them.
        sorted_bytes: u64,
    },
}

/// Ids a batch gathers before it is sorted into the rest.
const BATCH_IDS: usize = 1 << 20;
/// Bytes a name costs beside its own: its box's pointer and length, and the
/// allocator's header and rounding.
const NAME_OVERHEAD_BYTES: u64 = 32;

impl DistinctIds {
    /// Nothing yet, expecting integers.
    pub(crate) fn integers() -> DistinctIds {
        DistinctIds::Integers {
            sorted: Vec::new(),
            batch: Vec::with_capacity(BATCH_IDS),
        }
    }

    /// Nothing yet, expecting names.
    pub(crate) fn names() -> DistinctIds {
        DistinctIds::Names {
            sorted: Vec::new(),
            batch: Vec::new(),
            batch_bytes: 0,
            sorted_bytes: 0,
        }
    }

    /// Adds one id; `Stop` when gathering integers and it is not one (the caller then
    /// reads the input again for names).
    pub(crate) fn add_value(&mut self, id: IdValue) -> Gathered {
        match (id, &mut *self) {
            (IdValue::Integer(id), DistinctIds::Integers { sorted, batch }) => {
                batch.push(id);
                if batch.len() >= BATCH_IDS.max(sorted.len()) {
                    merge_batch(sorted, batch);
                }
                Gathered::Added
            }
            (IdValue::Integer(id), DistinctIds::Names { .. }) => {
                self.add(id.to_string().as_bytes())
            }
            (IdValue::Text(token), _) => self.add(token),
        }
    }

    /// Adds one id written as text (see [`DistinctIds::add_value`]).
    pub(crate) fn add(&mut self, token: &[u8]) -> Gathered {
        match self {
            DistinctIds::Integers { sorted, batch } => {
                let Some(id) = parse_integer(token) else {
                    return Gathered::Stop;
                };
                batch.push(id);
                if batch.len() >= BATCH_IDS.max(sorted.len()) {
                    merge_batch(sorted, batch);
                }
            }
            DistinctIds::Names {
                sorted,
                batch,
                batch_bytes,
                sorted_bytes,
            } => {
                if let Some(problem) = name_problem(token) {
                    return Gathered::Refused(problem);
                }
                *batch_bytes += token.len() as u64 + NAME_OVERHEAD_BYTES;
                batch.push(token.into());
                if batch.len() >= BATCH_IDS.max(sorted.len()) {
                    merge_batch(sorted, batch);
                    *batch_bytes = 0;
                    *sorted_bytes = sorted
                        .iter()
                        .map(|name| name.len() as u64 + NAME_OVERHEAD_BYTES)
                        .sum();
                }
            }
        }
        Gathered::Added
    }

    /// Integers or names.
    fn kind(&self) -> IdKind {
        match self {
            DistinctIds::Integers { .. } => IdKind::Integers,
            DistinctIds::Names { .. } => IdKind::Names,
        }
    }

    /// Writes the ids gathered so far to a run in `folder` and forgets them.
    fn spill_into(&mut self, folder: &mut spilled::IdFolder) -> Result<()> {
        *self = match self {
            DistinctIds::Integers { sorted, batch } => {
                merge_batch(sorted, batch);
                folder.spill(sorted)?;
                DistinctIds::integers()
            }
            DistinctIds::Names { sorted, batch, .. } => {
                merge_batch(sorted, batch);
                folder.spill(sorted)?;
                DistinctIds::names()
            }
        };
        Ok(())
    }

    /// Bytes held now (the sorted part, the batch, and room to merge them).
    pub(crate) fn memory_bytes(&self) -> u64 {
        match self {
            DistinctIds::Integers { sorted, batch } => {
                (sorted.capacity() + batch.capacity()) as u64 * 8 + sorted.len() as u64 * 8
            }
            DistinctIds::Names {
                sorted,
                batch_bytes,
                sorted_bytes,
                ..
            } => sorted_bytes + batch_bytes + sorted.len() as u64 * 16,
        }
    }

    /// The ids, ascending.
    pub(crate) fn finish(self) -> VertexIds {
        match self {
            DistinctIds::Integers {
                mut sorted,
                mut batch,
            } => {
                merge_batch(&mut sorted, &mut batch);
                sorted.shrink_to_fit();
                VertexIds::Integers(sorted)
            }
            DistinctIds::Names {
                mut sorted,
                mut batch,
                ..
            } => {
                merge_batch(&mut sorted, &mut batch);
                let mut offsets = Vec::with_capacity(sorted.len() + 1);
                let total: usize = sorted.iter().map(|name| name.len()).sum();
                let mut bytes = Vec::with_capacity(total);
                offsets.push(0);
                for name in sorted {
                    bytes.extend_from_slice(&name);
                    offsets.push(bytes.len() as u64);
                }
                VertexIds::Names { offsets, bytes }
            }
        }
    }
}

/// What became of an id offered to [`DistinctIds::add`].
pub(crate) enum Gathered {
    /// It is among the ids.
    Added,
    /// It is not an integer, and integers were being gathered.
    Stop,
    /// It cannot name a vertex; why.
    Refused(String),
}

/// Why `token` cannot be a vertex's name: not UTF-8, or holding control characters
/// (a tab or line break inside a quoted CSV field, a stray byte), which would garble
/// every table and terminal that shows it.
fn name_problem(token: &[u8]) -> Option<String> {
    let shown = shown(token, TOKEN_CHARS);
    match std::str::from_utf8(token) {
        Err(_) => Some(format!(
            "`{shown}` is not UTF-8 text, so it cannot name a vertex"
        )),
        Ok(text) if text.chars().any(char::is_control) => Some(format!(
            "`{shown}` holds control characters, so it cannot name a vertex"
        )),
        Ok("") => Some("an empty id cannot name a vertex".to_string()),
        Ok(_) => None,
    }
}

/// The error for an input with more distinct ids than a graph may have vertices.
pub(crate) fn too_many_ids(path: &Path, ids: u64) -> BuildError {
    BuildError::bad_input(
        path,
        format!(
            "the input has {ids} distinct ids, more than the {} vertices a graph may have",
            crate::MAX_VERTEX_ID + 1
        ),
    )
}

/// Where a compacting build puts ids beyond its budget, and who hears of its passes
/// over the input.
#[derive(Clone, Copy, Default)]
pub struct IdPasses<'a> {
    /// Where to make the folder of id files (`None`: ids beyond the budget are refused).
    pub scratch: Option<&'a Path>,
    /// Told of each pass and of the ids it has read.
    pub progress: Option<&'a dyn crate::BuildProgress>,
    /// Set (by Ctrl-C) to stop the passes; the build then ends as interrupted.
    pub cancel: Option<&'a std::sync::atomic::AtomicBool>,
}

impl IdPasses<'_> {
    /// Tells of a new pass over the input.
    fn pass(&self, name: &str) {
        if let Some(progress) = self.progress {
            progress.phase(name, None);
        }
    }

    /// Tells of `offered` ids read in the pass, every so many; `Err` once the build is
    /// cancelled.
    fn offered(&self, offered: u64) -> Result<()> {
        if !offered.is_multiple_of(1 << 17) {
            return Ok(());
        }
        if let Some(progress) = self.progress {
            // Two ids an edge.
            progress.edges_read(offered / 2);
        }
        match self.cancel {
            Some(cancel) if cancel.load(std::sync::atomic::Ordering::Relaxed) => {
                Err(BuildError::Interrupted)
            }
            _ => Ok(()),
        }
    }
}

/// How the ids of the input at `path` become vertices, within `allowance_bytes`:
/// `read_ids` reads the input from its start, offering each id to the function it is
/// given, and stops early when told to; it may be called several times. The first
/// pass gathers the distinct ids: integers while every id is one (the input is read
/// again for names at the first that is not). Ids beyond the allowance go to a folder
/// made in `passes.scratch`; without one they are refused.
pub(crate) fn compact_ids(
    path: &Path,
    allowance_bytes: u64,
    passes: IdPasses,
    mut read_ids: impl FnMut(&mut dyn FnMut(IdValue) -> Gathered) -> Result<()>,
) -> Result<IdResolver> {
    let mut distinct = DistinctIds::integers();
    let mut folder: Option<spilled::IdFolder> = None;
    for _ in 0..2 {
        let mut stopped = false;
        let mut offered = 0u64;
        let mut beyond = None;
        let mut failure = None;
        passes.pass("gathering ids");
        read_ids(&mut |token| {
            offered += 1;
            if let Err(stop) = passes.offered(offered) {
                failure = Some(stop);
                return Gathered::Stop;
            }
            if offered.is_multiple_of(1 << 17) && distinct.memory_bytes() > allowance_bytes {
                let Some(scratch) = passes.scratch else {
                    beyond = Some(distinct.memory_bytes());
                    return Gathered::Stop;
                };
                let spilled = match &mut folder {
                    Some(folder) => distinct.spill_into(folder),
                    None => spilled::IdFolder::create(scratch)
                        .and_then(|made| distinct.spill_into(folder.insert(made))),
                };
                if let Err(error) = spilled {
                    failure = Some(error);
                    return Gathered::Stop;
                }
            }
            let gathered = distinct.add_value(token);
            stopped |= matches!(gathered, Gathered::Stop);
            gathered
        })?;
        if let Some(failure) = failure {
            return Err(failure);
        }
        if let Some(held_bytes) = beyond {
            return Err(BuildError::IdsBeyondBudget {
                path: path.to_path_buf(),
                held_bytes,
                allowance_bytes,
            });
        }
        if !stopped {
            break;
        }
        distinct = DistinctIds::names();
        if let Some(folder) = &mut folder {
            folder.forget_runs();
        }
    }
    let kind = distinct.kind();
    let spilled = match folder {
        Some(mut folder) if folder.runs() > 0 => {
            distinct.spill_into(&mut folder)?;
            drop(distinct);
            let buffer_bytes = (allowance_bytes / 2 / folder.runs() as u64).clamp(4 << 10, 1 << 20);
            match kind {
                IdKind::Names => folder.merge_runs::<Box<[u8]>>(path, buffer_bytes as usize)?,
                _ => folder.merge_runs::<i64>(path, buffer_bytes as usize)?,
            }
        }
        _ => {
            let ids = distinct.finish();
            if ids.len() as u64 > crate::MAX_VERTEX_ID + 1 {
                return Err(too_many_ids(path, ids.len() as u64));
            }
            if IdTable::memory_bytes(&ids) <= allowance_bytes {
                return Ok(IdResolver::Compact(IdTable::new(ids)));
            }
            let Some(scratch) = passes.scratch else {
                return Err(BuildError::IdsBeyondBudget {
                    path: path.to_path_buf(),
                    held_bytes: IdTable::memory_bytes(&ids),
                    allowance_bytes,
                });
            };
            spilled::IdFolder::create(scratch)?.write_ids(path, &ids)?
        }
    };
    ranged::resolve_in_ranges(path, spilled, allowance_bytes, passes, read_ids)
}

/// The input's ids of a compacted build's vertices, as the output gets them.
#[derive(Clone)]
pub enum CompactedIds {
    /// In memory, with their index.
    InMemory(Arc<IdTable>),
    /// On disk, in files laid out as their sections.
    Spilled(Arc<SpilledIds>),
}

impl CompactedIds {
    /// How many (the graph's vertices).
    pub fn len(&self) -> u64 {
        match self {
            CompactedIds::InMemory(table) => table.ids().len() as u64,
            CompactedIds::Spilled(ids) => ids.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Integers or names.
    pub fn kind(&self) -> IdKind {
        match self {
            CompactedIds::InMemory(table) => table.ids().kind(),
            CompactedIds::Spilled(ids) => ids.kind(),
        }
    }

    /// Writes the ids' sections: the integers, or the names and their offsets.
    pub(crate) fn write_sections(&self, writer: &mut GraphWriter) -> Result<()> {
        let ids = match self {
            CompactedIds::Spilled(ids) => return ids.write_sections(writer),
            CompactedIds::InMemory(table) => table.ids(),
        };
        let parts: Vec<(swapless_format::SectionKind, &[u8])> = match ids {
            VertexIds::Integers(integers) => vec![(
                swapless_format::SectionKind::VertexIds,
                bytemuck::cast_slice(integers),
            )],
            VertexIds::Names { offsets, bytes } => vec![
                (
                    swapless_format::SectionKind::NameOffsets,
                    bytemuck::cast_slice(offsets),
                ),
                (swapless_format::SectionKind::VertexNames, bytes),
            ],
        };
        for (kind, bytes) in parts {
            let mut section = writer.begin_section(kind, Some(bytes.len() as u64))?;
            section.write(bytes)?;
            writer.finish_section(section)?;
        }
        Ok(())
    }
}

/// How an importer turns the ids it reads into vertices.
pub(crate) enum IdResolver {
    /// Each id is its vertex; `auto` (with a count of the ids) stops the build at the
    /// first id that says the input should be compacted, and at the end when the ids
    /// fill too little of `0..=max id`.
    Dense { fill: Option<IdFill>, edges: u64 },
    /// Through the table the first pass made.
    Compact(Arc<IdTable>),
    /// Through ids too many for the budget, a range at a time.
    Ranged(Box<ranged::RangedIds>),
}

/// Why an id is not a vertex.
pub(crate) enum IdProblem {
    /// What is wrong with it, for a parse error.
    Detail(String),
    /// An `auto` build should compact its ids.
    Compact(CompactReason),
}

impl IdResolver {
    /// Dense ids, stopping at the first sign of others when `mode` is `auto`, whose
    /// count of the ids takes a share of `allowance_bytes` (see [`IdFill::new`]).
    pub(crate) fn new(mode: IdMode, allowance_bytes: u64) -> IdResolver {
        IdResolver::Dense {
            fill: (mode == IdMode::Auto).then(|| IdFill::new(allowance_bytes)),
            edges: 0,
        }
    }

    /// The vertex of the id `token`.
    pub(crate) fn vertex_of(&mut self, token: &[u8]) -> std::result::Result<u32, IdProblem> {
        match self {
            IdResolver::Compact(table) => table.vertex_of(token).ok_or_else(|| {
                IdProblem::Detail(format!(
                    "id `{}` was not in the input when its ids were gathered; was the file changed while it was read?",
                    shown(token, TOKEN_CHARS)
                ))
            }),
            IdResolver::Ranged(ranged) => ranged
                .vertex_of(IdValue::Text(token))
                .map_err(|detail| {
                    IdProblem::Detail(format!("id `{}`: {detail}", shown(token, TOKEN_CHARS)))
                }),
            IdResolver::Dense { fill, .. } => {
                let id = match (parse_vertex_id(token), fill.is_some()) {
                    (Ok(id), _) => id,
                    (Err(_), true) => {
                        let id = shown(token, TOKEN_CHARS);
                        return Err(IdProblem::Compact(
                            match token.iter().all(u8::is_ascii_digit) {
                                true => CompactReason::TooLarge(id),
                                false => CompactReason::NotDense(id),
                            },
                        ));
                    }
                    (Err(detail), false) => return Err(IdProblem::Detail(detail)),
                };
                if let Some(fill) = fill {
                    fill.see(id);
                }
                Ok(id as u32)
            }
        }
    }

    /// The vertex of the id `value` (an integer read as one, or text).
    pub(crate) fn vertex_of_value(
        &mut self,
        value: IdValue,
    ) -> std::result::Result<u32, IdProblem> {
        let id = match value {
            IdValue::Integer(id) => id,
            IdValue::Text(token) => return self.vertex_of(token),
        };
        match self {
            IdResolver::Ranged(ranged) => ranged
                .vertex_of(IdValue::Integer(id))
                .map_err(|detail| IdProblem::Detail(format!("id {id}: {detail}"))),
            IdResolver::Compact(table) => match table.ids() {
                VertexIds::Integers(_) => table.vertex_of_integer(id),
                VertexIds::Names { .. } => table.vertex_of(id.to_string().as_bytes()),
            }
            .ok_or_else(|| {
                IdProblem::Detail(format!(
                    "id {id} was not in the input when its ids were gathered; was it changed while it was read?"
                ))
            }),
            IdResolver::Dense { fill, .. } => {
                let dense = u32::try_from(id)
                    .ok()
                    .filter(|&vertex| vertex as u64 <= crate::MAX_VERTEX_ID);
                match (dense, fill.is_some()) {
                    (Some(vertex), _) => {
                        if let Some(fill) = fill {
                            fill.see(vertex as u64);
                        }
                        Ok(vertex)
                    }
                    (None, true) if id < 0 => {
                        Err(IdProblem::Compact(CompactReason::NotDense(id.to_string())))
                    }
                    (None, true) => Err(IdProblem::Compact(CompactReason::TooLarge(id.to_string()))),
                    (None, false) => Err(IdProblem::Detail(format!(
                        "id {id} is not a vertex: dense ids are integers from 0 to {}",
                        crate::MAX_VERTEX_ID
                    ))),
                }
            }
        }
    }

    /// Counts an edge read (for the test of sparse ids when they are not counted).
    pub(crate) fn count_edge(&mut self) {
        if let IdResolver::Dense { edges, .. } = self {
            *edges += 1;
        }
    }

    /// At the end of the input: an `auto` build whose ids fill too little of
    /// `0..=max id` is to compact them; a build by ranges checks that it took back
    /// every vertex the ranges found.
    pub(crate) fn at_end(&mut self, path: &Path) -> Result<()> {
        if let IdResolver::Ranged(ranged) = self {
            return ranged
                .at_end()
                .map_err(|detail| BuildError::bad_input(path, detail));
        }
        match self.fill() {
            Some(fill @ Fill::Sparse { .. }) => {
                Err(BuildError::IdsNeedCompacting(CompactReason::Sparse(fill)))
            }
            _ => Ok(()),
        }
    }

    /// What an `auto` input's dense ids fill of `0..=max id`, once read through.
    pub(crate) fn fill(&self) -> Option<Fill> {
        match self {
            IdResolver::Dense {
                fill: Some(fill),
                edges,
            } => fill.verdict(*edges),
            _ => None,
        }
    }

    /// The vertices the ids make, when compacting.
    pub(crate) fn declared_vertices(&self) -> Option<u64> {
        self.compacted().map(|ids| ids.len())
    }

    /// Bytes the resolver holds: a table of ids, or a range's and its streams' buffers.
    pub(crate) fn memory_bytes(&self) -> u64 {
        match self {
            IdResolver::Compact(table) => IdTable::memory_bytes(table.ids()),
            IdResolver::Ranged(ranged) => ranged.memory_bytes(),
            IdResolver::Dense { fill, .. } => fill.as_ref().map_or(0, IdFill::reserved_bytes),
        }
    }

    /// The ids, when compacting.
    pub(crate) fn compacted(&self) -> Option<CompactedIds> {
        match self {
            IdResolver::Compact(table) => Some(CompactedIds::InMemory(table.clone())),
            IdResolver::Ranged(ranged) => Some(CompactedIds::Spilled(ranged.ids())),
            IdResolver::Dense { .. } => None,
        }
    }

    /// Ranges the ids are resolved in: 0 for dense ids, 1 for a table in memory.
    pub(crate) fn ranges(&self) -> u64 {
        match self {
            IdResolver::Dense { .. } => 0,
            IdResolver::Compact(_) => 1,
            IdResolver::Ranged(ranged) => ranged.ranges() as u64,
        }
    }
}

/// Sorts `batch`, merges it into `sorted` without duplicates, and empties it. A batch
/// is merged when it is as long as the sorted ids, so each id is merged a logarithmic
/// number of times, not once a batch.
fn merge_batch<T: Ord>(sorted: &mut Vec<T>, batch: &mut Vec<T>) {
    batch.sort_unstable();
    batch.dedup();
    if sorted.is_empty() {
        std::mem::swap(sorted, batch);
        *batch = Vec::with_capacity(BATCH_IDS.max(sorted.len()));
        return;
    }
    let mut merged = Vec::with_capacity(sorted.len() + batch.len());
    let mut left = std::mem::take(sorted).into_iter().peekable();
    let mut right = batch.drain(..).peekable();
    loop {
        let next = match (left.peek(), right.peek()) {
            (Some(a), Some(b)) => match a.cmp(b) {
                std::cmp::Ordering::Less => left.next(),
                std::cmp::Ordering::Greater => right.next(),
                std::cmp::Ordering::Equal => {
                    right.next();
                    left.next()
                }
            },
            (Some(_), None) => left.next(),
            (None, Some(_)) => right.next(),
            (None, None) => break,
        };
        merged.extend(next);
    }
    drop(right);
    *sorted = merged;
    *batch = Vec::with_capacity(BATCH_IDS.max(sorted.len()));
}

#[cfg(test)]
mod tests;
