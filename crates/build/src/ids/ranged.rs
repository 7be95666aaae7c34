//! The second pass of a compacting build whose ids do not fit its budget with their
//! index. The ids (ascending, on disk) are cut into ranges whose index takes at most
//! half of what the budget leaves for ids, and the input is read once for each range
//! but the last: pass `k` turns each id of range `k` into its vertex and appends the
//! vertex, in input order, to stream `k`. The build's own pass then finds the ids of
//! the last range in memory and takes every other id's vertex from the next entry of
//! its range's stream. Each entry carries a hash of its id, checked as it is taken, so
//! an input that reads differently the second time fails the build instead of mixing
//! up its vertices.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use swapless_format::{IdKind, VertexIds};

use super::spilled::SpilledIds;
use super::{Gathered, IdPasses, IdResolver, IdTable, IdValue, parse_integer};
use crate::{BuildError, Result};

/// Passes over the input a build may make for its ids beyond the first; a budget that
/// would need more is refused with the least that works.
pub(crate) const MOST_RANGES: u64 = 32;

/// Bytes of an integer id with its index in a range's table (8 for the id, at most 16
/// for its buckets).
const INTEGER_BYTES: u64 = 24;
/// Bytes of a name's index beside its bytes (its offset, and its hash slots).
const NAME_INDEX_BYTES: u64 = 24;

/// An id as the ranges compare it.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Key<'a> {
    Integer(i64),
    Name(Cow<'a, [u8]>),
}

impl<'a> Key<'a> {
    /// The key of `value` among ids of `kind`; `None` for a token that is no integer
    /// among integers (it cannot be one of the ids).
    fn of(value: IdValue<'a>, kind: IdKind) -> Option<Key<'a>> {
        match (value, kind) {
            (IdValue::Integer(id), IdKind::Names) => {
                Some(Key::Name(Cow::Owned(id.to_string().into_bytes())))
            }
            (IdValue::Integer(id), _) => Some(Key::Integer(id)),
            (IdValue::Text(token), IdKind::Names) => Some(Key::Name(Cow::Borrowed(token))),
            (IdValue::Text(token), _) => parse_integer(token).map(Key::Integer),
        }
    }

    /// The top half of the key's hash, stored beside its vertex in a stream.
    fn hash(&self) -> u64 {
        match self {
            Key::Integer(id) => xxhash_rust::xxh3::xxh3_64(&id.to_le_bytes()) >> 32,
            Key::Name(name) => xxhash_rust::xxh3::xxh3_64(name) >> 32,
        }
    }

    /// Its vertex among the ids of `table`, which start at vertex `first`.
    fn vertex_in(&self, table: &IdTable, first: u64) -> Option<u32> {
        let local = match self {
            Key::Integer(id) => table.vertex_of_integer(*id),
            Key::Name(name) => table.vertex_of(name),
        }?;
        Some((first + local as u64) as u32)
    }
}

/// Ids resolved range by range (see the module's help).
pub(crate) struct RangedIds {
    ids: Arc<SpilledIds>,
    /// The first vertex of each range, then the count of ids.
    starts: Vec<u64>,
    /// The first id of each range after the first.
    bounds: Vec<Key<'static>>,
    /// The last range's ids and index.
    last: Arc<IdTable>,
    /// The streams of the other ranges, read in step with the input.
    streams: Vec<(PathBuf, BufReader<File>)>,
    buffer_bytes: usize,
}

/// The resolver for `ids`, which do not fit `allowance_bytes` with their index in
/// memory: reads the input (with `read_ids`) once for each range but the last.
pub(crate) fn resolve_in_ranges(
    input: &Path,
    ids: SpilledIds,
    allowance_bytes: u64,
    passes: IdPasses,
    mut read_ids: impl FnMut(&mut dyn FnMut(IdValue) -> Gathered) -> Result<()>,
) -> Result<IdResolver> {
    let table_bytes = (allowance_bytes / 2).max(1);
    let starts = range_starts(&ids, table_bytes)?;
    let ranges = starts.len() as u64 - 1;
    if ranges <= 1 {
        // They fit after all (the first pass's runs held duplicates).
        let all = ids.load(0..ids.len())?;
        return Ok(IdResolver::Compact(IdTable::new(all)));
    }
    if ranges > MOST_RANGES {
        return Err(BuildError::IdsNeedPasses {
            path: input.to_path_buf(),
            ids: ids.len(),
            passes: ranges,
            least_budget_bytes: table_size(&ids)?.div_ceil(MOST_RANGES) * 2
                + crate::RESERVED_BYTES
                + crate::builder::MIN_WORKING_BYTES,
        });
    }
    let kind = ids.kind();
    let mut bounds = Vec::with_capacity(starts.len() - 2);
    for &start in &starts[1..starts.len() - 1] {
        bounds.push(first_key(&ids.load(start..start + 1)?));
    }
    // The build's pass reads every other range's stream at once.
    let buffer_bytes = ((allowance_bytes / 4) / (ranges - 1)).clamp(16 << 10, 1 << 20) as usize;
    let range_of = |key: &Key| bounds.partition_point(|bound| bound <= key);
    let mut streams = Vec::with_capacity(ranges as usize - 1);
    for range in 0..ranges as usize - 1 {
        let table = IdTable::new(ids.load(starts[range]..starts[range + 1])?);
        let path = ids.file(&format!("stream-{range}"));
        let io = |source| BuildError::io(&path, source);
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&path).map_err(io)?);
        let mut failure = None;
        let mut offered = 0u64;
        passes.pass(&format!("ids of range {} of {ranges}", range + 1));
        read_ids(&mut |value| {
            offered += 1;
            if let Err(stop) = passes.offered(offered) {
                failure = Some(stop);
                return Gathered::Stop;
            }
            let Some(key) = Key::of(value, kind) else {
                failure = Some(changed(input));
                return Gathered::Stop;
            };
            if range_of(&key) != range {
                return Gathered::Added;
            }
            let Some(vertex) = key.vertex_in(&table, starts[range]) else {
                failure = Some(changed(input));
                return Gathered::Stop;
            };
            let entry = (key.hash() << 32) | vertex as u64;
            if let Err(source) = out.write_all(&entry.to_le_bytes()) {
                failure = Some(BuildError::io(&path, source));
                return Gathered::Stop;
            }
            Gathered::Added
        })?;
        if let Some(failure) = failure {
            return Err(failure);
        }
        out.flush().map_err(io)?;
        drop(out);
        let file = File::open(&path).map_err(io)?;
        streams.push((path, BufReader::with_capacity(buffer_bytes, file)));
    }
    let last_range = ranges as usize - 1;
    let last = IdTable::new(ids.load(starts[last_range]..starts[last_range + 1])?);
    Ok(IdResolver::Ranged(Box::new(RangedIds {
        ids: Arc::new(ids),
        starts,
        bounds,
        last,
        streams,
        buffer_bytes,
    })))
}

/// The first vertex of each range whose table fits `table_bytes`, then the count.
fn range_starts(ids: &SpilledIds, table_bytes: u64) -> Result<Vec<u64>> {
    let mut starts = vec![0];
    match ids.kind() {
        IdKind::Names => {
            let mut held = 0u64;
            for (position, length) in ids.name_lengths()?.enumerate() {
                let bytes = length? + NAME_INDEX_BYTES;
                if held > 0 && held + bytes > table_bytes {
                    starts.push(position as u64);
                    held = 0;
                }
                held += bytes;
            }
        }
        _ => {
            let per_range = (table_bytes / INTEGER_BYTES).max(1);
            starts.extend((per_range..ids.len()).step_by(per_range as usize));
        }
    }
    starts.push(ids.len());
    Ok(starts)
}

/// Bytes the index of all of `ids` would take.
fn table_size(ids: &SpilledIds) -> Result<u64> {
    Ok(match ids.kind() {
        IdKind::Names => {
            let mut bytes = 0;
            for length in ids.name_lengths()? {
                bytes += length? + NAME_INDEX_BYTES;
            }
            bytes
        }
        _ => ids.len() * INTEGER_BYTES,
    })
}

/// The key of the first of `ids`.
fn first_key(ids: &VertexIds) -> Key<'static> {
    match ids {
        VertexIds::Integers(integers) => Key::Integer(integers[0]),
        VertexIds::Names { offsets, bytes } => Key::Name(Cow::Owned(
            bytes[offsets[0] as usize..offsets[1] as usize].to_vec(),
        )),
    }
}

/// The error for an input that read differently on a later pass.
fn changed(input: &Path) -> BuildError {
    BuildError::bad_input(
        input,
        "its ids read differently on a later pass than on the first; was the file changed while it was read?",
    )
}

impl RangedIds {
    /// The vertex of `value`, or why it has none.
    pub(crate) fn vertex_of(&mut self, value: IdValue) -> std::result::Result<u32, String> {
        let not_gathered = || {
            "this id was not in the input when its ids were gathered; was the file changed while it was read?".to_string()
        };
        let key = Key::of(value, self.ids.kind()).ok_or_else(not_gathered)?;
        let range = self.bounds.partition_point(|bound| *bound <= key);
        let Some((_, stream)) = self.streams.get_mut(range) else {
            let first = self.starts[range];
            return key.vertex_in(&self.last, first).ok_or_else(not_gathered);
        };
        let mut entry = [0u8; 8];
        stream.read_exact(&mut entry).map_err(|_| not_gathered())?;
        let entry = u64::from_le_bytes(entry);
        match entry >> 32 == key.hash() {
            true => Ok(entry as u32),
            false => Err(not_gathered()),
        }
    }

    /// At the end of the input: why the streams were not all used up, if they were not.
    pub(crate) fn at_end(&mut self) -> std::result::Result<(), String> {
        for (path, stream) in &mut self.streams {
            let mut byte = [0u8; 1];
            match stream.read(&mut byte) {
                Ok(0) => {}
                Ok(_) => {
                    return Err(
                        "the input ended before all its ids were read again; was the file changed while it was read?"
                            .to_string(),
                    );
                }
                Err(error) => return Err(format!("{}: {error}", path.display())),
            }
        }
        Ok(())
    }

    /// Bytes held: the last range's table and the streams' buffers.
    pub(crate) fn memory_bytes(&self) -> u64 {
        IdTable::memory_bytes(self.last.ids()) + (self.streams.len() * self.buffer_bytes) as u64
    }

    /// The ids, for the output.
    pub(crate) fn ids(&self) -> Arc<SpilledIds> {
        self.ids.clone()
    }

    /// How many ranges the ids were cut into.
    pub(crate) fn ranges(&self) -> usize {
        self.streams.len() + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::spilled::IdFolder;

    /// 10,000 ascending ids, negative ones among them.
    fn ids() -> Vec<i64> {
        (0..10_000).map(|v| v * 7 - 30_000).collect()
    }

    /// The ids in a scrambled order, each three times.
    fn input_order() -> Vec<i64> {
        let ids = ids();
        (0..30_000).map(|i| ids[(i * 7919) % ids.len()]).collect()
    }

    /// The ranges over `ids()` after their passes over `input`: 1,000 ids a range.
    fn ranged(dir: &Path, input: &[i64]) -> Box<RangedIds> {
        let spilled = IdFolder::create(dir)
            .unwrap()
            .write_ids(Path::new("input"), &VertexIds::Integers(ids()))
            .unwrap();
        let offer = |add: &mut dyn FnMut(IdValue) -> Gathered| {
            for &id in input {
                if let Gathered::Stop = add(IdValue::Integer(id)) {
                    break;
                }
            }
            Ok(())
        };
        match resolve_in_ranges(
            Path::new("input"),
            spilled,
            2 * 1_000 * INTEGER_BYTES,
            IdPasses::default(),
            offer,
        ) {
            Ok(IdResolver::Ranged(ranged)) => ranged,
            _ => panic!("ranges expected"),
        }
    }

    #[test]
    fn every_id_finds_its_vertex_through_the_ranges() {
        let dir = tempfile::tempdir().unwrap();
        let input = input_order();
        let mut ranged = ranged(dir.path(), &input);
        assert_eq!(ranged.ranges(), 10);
        let ids = ids();
        for &id in &input {
            let vertex = ranged.vertex_of(IdValue::Integer(id)).unwrap();
            assert_eq!(ids[vertex as usize], id);
        }
        assert!(ranged.at_end().is_ok());
    }

    #[test]
    fn an_input_that_reads_differently_the_last_time_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let input = input_order();
        // Two ids of the same early range trade places: each finds the other's vertex
        // in the stream, and the hash says so.
        let mut swapped = input.clone();
        let (a, b) = (
            input.iter().position(|&id| id == -30_000).unwrap(),
            input.iter().position(|&id| id == -29_993).unwrap(),
        );
        swapped.swap(a, b);
        let mut ranged = ranged(dir.path(), &input);
        let failed = swapped
            .iter()
            .map(|&id| ranged.vertex_of(IdValue::Integer(id)))
            .any(|found| found.is_err());
        assert!(failed);

        // An input that ends early leaves vertices in the streams.
        let mut ranged = super::tests::ranged(dir.path(), &input);
        for &id in &input[..input.len() / 2] {
            ranged.vertex_of(IdValue::Integer(id)).unwrap();
        }
        assert!(ranged.at_end().is_err());

        // An id the first pass never saw.
        let mut ranged = super::tests::ranged(dir.path(), &input);
        assert!(ranged.vertex_of(IdValue::Integer(-29_999)).is_err());
        assert!(ranged.vertex_of(IdValue::Text(b"not a number")).is_err());
    }
}
