//! Sorted runs on disk and their k-way merge: how the builder sorts more arcs
//! than fit in its memory budget.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::collections::binary_heap::PeekMut;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use rayon::slice::ParallelSliceMut;

use crate::journal::{RunFile, checksum, run_file_entry};
use crate::record::Record;
use crate::{BuildError, Result};

/// Sorts `records` and removes parallel arcs, keeping the smallest weight of each.
pub fn sort_and_deduplicate<R: Record>(records: &mut Vec<R>) {
    records.par_sort_unstable();
    records.dedup_by_key(|record| record.arc());
}

/// Writes `records` (already sorted) as a run file; returns its journal entry.
pub fn write_run<R: Record>(records: &[R], path: &Path) -> Result<RunFile> {
    let bytes: &[u8] = bytemuck::cast_slice(records);
    let file = File::create(path).map_err(|source| BuildError::io(path, source))?;
    let mut writer = BufWriter::with_capacity(1 << 20, file);
    writer
        .write_all(bytes)
        .and_then(|_| writer.flush())
        .map_err(|source| BuildError::io(path, source))?;
    Ok(run_file_entry(path, bytes.len() as u64, checksum(bytes)))
}

/// Reads into `bytes` until it is full or the reader ends; the bytes read.
pub(crate) fn read_full(reader: &mut impl Read, bytes: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < bytes.len() {
        match reader.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(filled)
}

/// Streams the records of one run file through a fixed-size buffer.
struct RunReader<R: Record> {
    file: File,
    path: PathBuf,
    buffer: Vec<R>,
    position: usize,
}

impl<R: Record> RunReader<R> {
    fn open(path: &Path, buffer_records: usize) -> Result<Self> {
        let file = File::open(path).map_err(|source| BuildError::io(path, source))?;
        Ok(RunReader {
            file,
            path: path.to_path_buf(),
            buffer: Vec::with_capacity(buffer_records),
            position: 0,
        })
    }

    fn next(&mut self) -> Result<Option<R>> {
        if self.position == self.buffer.len() && !self.refill()? {
            return Ok(None);
        }
        let record = self.buffer[self.position];
        self.position += 1;
        Ok(Some(record))
    }

    fn refill(&mut self) -> Result<bool> {
        let capacity = self.buffer.capacity();
        self.buffer.resize(capacity, R::zeroed());
        let filled = read_full(&mut self.file, bytemuck::cast_slice_mut(&mut self.buffer))
            .map_err(|source| BuildError::io(&self.path, source))?;
        let record_bytes = std::mem::size_of::<R>();
        if filled % record_bytes != 0 {
            return Err(BuildError::bad_input(
                &self.path,
                "a temporary run file was truncated while the build was running",
            ));
        }
        self.buffer.truncate(filled / record_bytes);
        self.position = 0;
        Ok(!self.buffer.is_empty())
    }
}

/// Merges sorted run files into one sorted stream without parallel arcs, calling
/// `emit` for each record. Uses `buffer_bytes` of read buffers in all.
pub fn merge_runs<R: Record>(
    runs: &[PathBuf],
    buffer_bytes: u64,
    mut emit: impl FnMut(R) -> Result<()>,
) -> Result<()> {
    let per_run_records =
        ((buffer_bytes / runs.len().max(1) as u64) as usize / std::mem::size_of::<R>()).max(1024);
    let mut readers = runs
        .iter()
        .map(|path| RunReader::<R>::open(path, per_run_records))
        .collect::<Result<Vec<_>>>()?;
    let mut heap = BinaryHeap::with_capacity(readers.len());
    for (index, reader) in readers.iter_mut().enumerate() {
        if let Some(record) = reader.next()? {
            heap.push(Reverse((record, index)));
        }
    }
    let mut last_arc: Option<u64> = None;
    while let Some(mut top) = heap.peek_mut() {
        let Reverse((record, index)) = *top;
        if last_arc != Some(record.arc()) {
            last_arc = Some(record.arc());
            emit(record)?;
        }
        match readers[index].next()? {
            Some(next) => *top = Reverse((next, index)),
            None => {
                PeekMut::pop(top);
            }
        }
    }
    Ok(())
}

/// Merges groups of runs until at most `max_fan_in` remain, so the final merge's
/// read buffers fit the budget however many runs the input produced.
pub fn reduce_runs<R: Record>(
    mut runs: Vec<PathBuf>,
    max_fan_in: usize,
    buffer_bytes: u64,
    temp_dir: &Path,
    next_run_id: &mut u64,
) -> Result<(Vec<PathBuf>, u64)> {
    let max_fan_in = max_fan_in.max(2);
    let mut passes = 0;
    while runs.len() > max_fan_in {
        passes += 1;
        let group: Vec<PathBuf> = runs.drain(..max_fan_in).collect();
        let path = temp_dir.join(format!("run-{}.bin", *next_run_id));
        *next_run_id += 1;
        let file = File::create(&path).map_err(|source| BuildError::io(&path, source))?;
        let mut writer = BufWriter::with_capacity(1 << 20, file);
        merge_runs::<R>(&group, buffer_bytes, |record| {
            writer
                .write_all(bytemuck::bytes_of(&record))
                .map_err(|source| BuildError::io(&path, source))
        })?;
        writer
            .flush()
            .map_err(|source| BuildError::io(&path, source))?;
        for merged in &group {
            let _ = std::fs::remove_file(merged);
        }
        runs.push(path);
    }
    Ok((runs, passes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_keeps_order_and_drops_parallel_arcs_keeping_the_smallest_weight() {
        let dir = tempfile::tempdir().unwrap();
        let mut all = Vec::new();
        let mut runs = Vec::new();
        for run in 0..5u32 {
            let mut records: Vec<u128> = (0..2000u32)
                .map(|i| u128::new((i * 31 + run) % 97, (i * 17) % 89, ((i + run) % 5) as f32))
                .collect();
            sort_and_deduplicate(&mut records);
            all.extend_from_slice(&records);
            let path = dir.path().join(format!("run{run}"));
            write_run(&records, &path).unwrap();
            runs.push(path);
        }
        let mut next_id = 100;
        let (runs, passes) =
            reduce_runs::<u128>(runs, 2, 1 << 16, dir.path(), &mut next_id).unwrap();
        assert!(passes >= 1 && runs.len() <= 2);
        let mut merged = Vec::new();
        merge_runs::<u128>(&runs, 1 << 16, |record| {
            merged.push(record);
            Ok(())
        })
        .unwrap();
        sort_and_deduplicate(&mut all);
        assert_eq!(merged, all);
    }
}
