//! Sorted runs on disk and their k-way merge: how the builder sorts more arcs
//! than fit in its memory budget.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::collections::binary_heap::PeekMut;
use std::io::Read;
use std::path::PathBuf;

use rayon::slice::ParallelSliceMut;

use crate::Result;
use crate::record::Record;
use crate::run_file::{RunReader, RunWriter, SpilledRun};

/// Sorts `records` and removes parallel arcs, keeping the smallest weight of each.
pub fn sort_and_deduplicate<R: Record>(records: &mut Vec<R>) {
    records.par_sort_unstable();
    records.dedup_by_key(|record| record.arc());
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

/// Merges sorted run files into one sorted stream without parallel arcs, calling
/// `emit` for each record. Uses `buffer_bytes` of read buffers in all.
pub(crate) fn merge_runs<R: Record>(
    runs: &[SpilledRun],
    buffer_bytes: u64,
    mut emit: impl FnMut(R) -> Result<()>,
) -> Result<()> {
    let per_run_bytes = (buffer_bytes / runs.len().max(1) as u64) as usize;
    let mut readers = runs
        .iter()
        .map(|run| RunReader::<R>::open(run, per_run_bytes))
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
/// read buffers fit the budget however many runs the input produced. Each merged run goes
/// where `new_run_path` says (the build's own naming, so that it never lands on a run
/// still to be read).
pub(crate) fn reduce_runs<R: Record>(
    mut runs: Vec<SpilledRun>,
    max_fan_in: usize,
    buffer_bytes: u64,
    new_run_path: &mut dyn FnMut() -> PathBuf,
) -> Result<(Vec<SpilledRun>, u64)> {
    let max_fan_in = max_fan_in.max(2);
    let mut passes = 0;
    while runs.len() > max_fan_in {
        passes += 1;
        let group: Vec<SpilledRun> = runs.drain(..max_fan_in).collect();
        let mut writer = RunWriter::<R>::create(&new_run_path())?;
        merge_runs::<R>(&group, buffer_bytes, |record| writer.push(record))?;
        let merged = writer.finish()?;
        for run in &group {
            let _ = std::fs::remove_file(&run.path);
        }
        runs.push(merged);
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
            let path = dir.path().join(format!("run-{}.bin", run + 1));
            runs.push(crate::run_file::write_run(&records, &path).unwrap());
        }
        // Named on from the last spilled run, as a build names them: merged runs must not
        // land on run-5, which is read last.
        let mut last_id = 5;
        let mut new_run_path = || {
            last_id += 1;
            dir.path().join(format!("run-{last_id}.bin"))
        };
        let (runs, passes) = reduce_runs::<u128>(runs, 2, 1 << 16, &mut new_run_path).unwrap();
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
