//! A run file: sorted arcs without parallels, delta-coded, so that a build's temporary
//! runs take a little more than the compressed output rather than 8 or 16 bytes an arc.
//!
//! ```text
//! run   = group*
//! group = varint(source - previous group's source)   0 on a later group: the same source
//!         varint(count - 1)
//!         count entries, each:
//!           varint(destination)                      a source's first entry
//!           varint(destination - previous - 1)       the others, its own group's or not
//!           f32 weight, little-endian                on a weighted build
//! ```
//!
//! A source's arcs come in groups of at most [`GROUP_ENTRIES`], so that a writer fed one
//! arc at a time (a pre-merge) holds no more than that. A reader releases to the file
//! system what it has read as it goes (see [`swapless_system::release_file_range`]): the
//! runs shrink as the output grows, and a build's peak disk use stays near the larger of
//! the two rather than their sum.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use swapless_format::list_codec::{get_varint, put_varint};
use xxhash_rust::xxh3::Xxh3;

use crate::journal::{RunFile, run_file_entry};
use crate::record::Record;
use crate::runs::read_full;
use crate::{BuildError, Result};

/// The layout of the run files this build writes, as its journal records it: a killed
/// build's runs of another layout are not resumed.
pub(crate) const RUN_FORMAT: u32 = 2;
/// The most entries a group holds.
const GROUP_ENTRIES: usize = 1024;
/// Bytes a writer gathers before writing.
const WRITE_BUFFER_BYTES: usize = 1 << 20;
/// The most bytes one entry takes: its destination's varint and a weight.
const MAX_ENTRY_BYTES: usize = 5 + 4;
/// The most bytes a group's header takes: two varints of up to 64 bits.
const MAX_HEADER_BYTES: usize = 20;
/// A reader gives read bytes back to the file system once this many have gathered (a
/// sixteenth of its run, within these bounds).
const RELEASE_STEP_BYTES: u64 = 32 << 20;
const MIN_RELEASE_STEP_BYTES: u64 = 1 << 20;

/// A run file this build wrote: its length and checksum, which its reader checks once
/// it has read it all, so that a run damaged on disk fails the build instead of
/// changing the graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SpilledRun {
    pub path: PathBuf,
    pub bytes: u64,
    pub checksum: u64,
}

impl SpilledRun {
    /// The run a journal entry names in `folder`.
    pub(crate) fn in_folder(folder: &Path, run: &RunFile) -> SpilledRun {
        SpilledRun {
            path: folder.join(&run.file),
            bytes: run.bytes,
            checksum: run.checksum,
        }
    }

    /// Its journal entry.
    pub(crate) fn journal_entry(&self) -> RunFile {
        run_file_entry(&self.path, self.bytes, self.checksum)
    }
}

/// Writes sorted records, without parallel arcs, as a run file.
pub(crate) struct RunWriter<R: Record> {
    path: PathBuf,
    file: BufWriter<File>,
    hasher: Xxh3,
    bytes: u64,
    encoded: Vec<u8>,
    /// The group being gathered: all of one source.
    group: Vec<R>,
    /// The last record written, whose source and destination the next group follows.
    previous: Option<R>,
}

impl<R: Record> RunWriter<R> {
    /// Creates the run file at `path`.
    pub(crate) fn create(path: &Path) -> Result<RunWriter<R>> {
        let file = File::create(path).map_err(|source| BuildError::io(path, source))?;
        Ok(RunWriter {
            path: path.to_path_buf(),
            file: BufWriter::with_capacity(WRITE_BUFFER_BYTES, file),
            hasher: Xxh3::new(),
            bytes: 0,
            encoded: Vec::with_capacity(WRITE_BUFFER_BYTES + GROUP_ENTRIES * 16),
            group: Vec::with_capacity(GROUP_ENTRIES),
            previous: None,
        })
    }

    /// Appends `record`, which sorts after every record before it.
    pub(crate) fn push(&mut self, record: R) -> Result<()> {
        debug_assert!(
            self.group
                .last()
                .or(self.previous.as_ref())
                .is_none_or(|last| last.arc() < record.arc())
        );
        let same_source = self
            .group
            .first()
            .is_none_or(|first| first.source() == record.source());
        if !same_source || self.group.len() == GROUP_ENTRIES {
            self.write_group()?;
        }
        self.group.push(record);
        Ok(())
    }

    fn write_group(&mut self) -> Result<()> {
        let Some(&first) = self.group.first() else {
            return Ok(());
        };
        let previous_source = self.previous.map_or(0, |record| record.source());
        // The same source as the group before it only where it continues that source.
        let mut previous_destination = match self.previous {
            Some(previous) if previous.source() == first.source() => Some(previous.destination()),
            _ => None,
        };
        debug_assert!(first.source() >= previous_source);
        put_varint(
            u64::from(first.source() - previous_source),
            &mut self.encoded,
        );
        put_varint(self.group.len() as u64 - 1, &mut self.encoded);
        for record in &self.group {
            let destination = record.destination();
            let coded = match previous_destination {
                Some(previous) => destination - previous - 1,
                None => destination,
            };
            put_varint(u64::from(coded), &mut self.encoded);
            if R::WEIGHTED {
                self.encoded
                    .extend_from_slice(&record.weight().to_le_bytes());
            }
            previous_destination = Some(destination);
        }
        self.previous = self.group.last().copied();
        self.group.clear();
        if self.encoded.len() >= WRITE_BUFFER_BYTES {
            self.flush_encoded()?;
        }
        Ok(())
    }

    fn flush_encoded(&mut self) -> Result<()> {
        self.hasher.update(&self.encoded);
        self.bytes += self.encoded.len() as u64;
        self.file
            .write_all(&self.encoded)
            .map_err(|source| BuildError::io(&self.path, source))?;
        self.encoded.clear();
        Ok(())
    }

    /// Writes what is held and closes the file.
    pub(crate) fn finish(mut self) -> Result<SpilledRun> {
        self.write_group()?;
        self.flush_encoded()?;
        self.file
            .flush()
            .map_err(|source| BuildError::io(&self.path, source))?;
        Ok(SpilledRun {
            path: self.path,
            bytes: self.bytes,
            checksum: self.hasher.digest(),
        })
    }
}

/// Writes `records` (sorted, without parallel arcs) as the run file at `path`.
pub(crate) fn write_run<R: Record>(records: &[R], path: &Path) -> Result<SpilledRun> {
    let mut writer = RunWriter::create(path)?;
    for &record in records {
        writer.push(record)?;
    }
    writer.finish()
}

/// Reads the records of one run file back, through a buffer of a fixed size, giving
/// back to the file system what it has read.
pub(crate) struct RunReader<R: Record> {
    file: File,
    buffer: Vec<u8>,
    /// Where the next byte to decode lies in `buffer`.
    position: usize,
    /// Bytes of the file that `buffer` holds up to (its end's offset in the file).
    read_to: u64,
    /// Bytes of the file given back so far.
    released_to: u64,
    /// Bytes read past before they are given back.
    release_step: u64,
    /// The run as written, which what is read must match in length and checksum.
    written: SpilledRun,
    hasher: Xxh3,
    at_end: bool,
    /// Entries left in the group being read.
    group_left: u64,
    source: u32,
    /// The last destination read, of `source`.
    destination: Option<u32>,
    /// Whether a group has been read (a later group of source delta 0 continues it).
    started: bool,
    _record: std::marker::PhantomData<R>,
}

impl<R: Record> RunReader<R> {
    /// Opens `run` to read through a buffer of `buffer_bytes`.
    pub(crate) fn open(run: &SpilledRun, buffer_bytes: usize) -> Result<RunReader<R>> {
        let path = &run.path;
        // Open for writing too: giving bytes back is a write.
        let file = File::options()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|source| BuildError::io(path, source))?;
        Ok(RunReader {
            file,
            buffer: Vec::with_capacity(buffer_bytes.max(4 * (MAX_HEADER_BYTES + MAX_ENTRY_BYTES))),
            position: 0,
            read_to: 0,
            released_to: 0,
            // Small runs are given back too, in a few steps.
            release_step: (run.bytes / 16).clamp(MIN_RELEASE_STEP_BYTES, RELEASE_STEP_BYTES),
            written: run.clone(),
            hasher: Xxh3::new(),
            at_end: false,
            group_left: 0,
            source: 0,
            destination: None,
            started: false,
            _record: std::marker::PhantomData,
        })
    }

    fn damaged(&self) -> BuildError {
        BuildError::bad_input(
            &self.written.path,
            "a temporary run file was changed while the build was running (damaged, cut short or written by another program); build again",
        )
    }

    /// Makes sure `bytes` bytes lie past `position`, unless the file ends first.
    fn fill(&mut self, bytes: usize) -> Result<()> {
        if self.buffer.len() - self.position >= bytes || self.at_end {
            return Ok(());
        }
        self.buffer.drain(..self.position);
        self.position = 0;
        let held = self.buffer.len();
        let capacity = self.buffer.capacity();
        self.buffer.resize(capacity, 0);
        let read = read_full(&mut self.file, &mut self.buffer[held..])
            .map_err(|source| BuildError::io(&self.written.path, source))?;
        self.buffer.truncate(held + read);
        self.hasher.update(&self.buffer[held..]);
        self.at_end = held + read < capacity;
        self.read_to += read as u64;
        if self.at_end
            && (self.read_to != self.written.bytes || self.hasher.digest() != self.written.checksum)
        {
            return Err(self.damaged());
        }
        // Everything before what the buffer holds has been decoded.
        let decoded_to = self.read_to - self.buffer.len() as u64;
        if decoded_to - self.released_to >= self.release_step {
            swapless_system::release_file_range(&self.file, self.released_to, decoded_to);
            self.released_to = decoded_to;
        }
        Ok(())
    }

    fn varint(&mut self) -> Result<u64> {
        get_varint(&self.buffer, &mut self.position).ok_or_else(|| self.damaged())
    }

    /// The next record, `None` after the last.
    pub(crate) fn next(&mut self) -> Result<Option<R>> {
        if self.group_left == 0 {
            self.fill(MAX_HEADER_BYTES + MAX_ENTRY_BYTES)?;
            if self.position == self.buffer.len() {
                return Ok(None);
            }
            let source_delta = self.varint()?;
            self.group_left = self
                .varint()?
                .checked_add(1)
                .ok_or_else(|| self.damaged())?;
            if !self.started || source_delta != 0 {
                self.destination = None;
            }
            self.started = true;
            self.source = u64::from(self.source)
                .checked_add(source_delta)
                .and_then(|source| u32::try_from(source).ok())
                .ok_or_else(|| self.damaged())?;
        } else {
            self.fill(MAX_ENTRY_BYTES)?;
        }
        let coded = self.varint()?;
        let destination = match self.destination {
            Some(previous) => u64::from(previous) + 1 + coded,
            None => coded,
        };
        let destination = u32::try_from(destination).map_err(|_| self.damaged())?;
        let weight = if R::WEIGHTED {
            let bytes = self
                .buffer
                .get(self.position..self.position + 4)
                .ok_or_else(|| self.damaged())?;
            let weight = f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            self.position += 4;
            weight
        } else {
            1.0
        };
        self.destination = Some(destination);
        self.group_left -= 1;
        Ok(Some(R::new(self.source, destination, weight)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records<R: Record>(count: u32) -> Vec<R> {
        let mut records: Vec<R> = (0..count)
            .map(|i| {
                // A hub (source 3) with thousands of arcs, sources far apart, big ids.
                let source = match i % 4 {
                    0 => 3,
                    _ => u32::MAX - 1_000_000 + i.wrapping_mul(2_654_435_761) % 1_000_000,
                };
                R::new(
                    source,
                    i.wrapping_mul(40_503) ^ (i << 20),
                    (i % 7) as f32 - 2.5,
                )
            })
            .collect();
        crate::runs::sort_and_deduplicate(&mut records);
        records
    }

    fn round_trip<R: Record + std::fmt::Debug>(records: &[R], buffer_bytes: usize) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run");
        let run = write_run(records, &path).unwrap();
        assert_eq!(run.bytes, std::fs::metadata(&path).unwrap().len());
        let mut reader = RunReader::<R>::open(&run, buffer_bytes).unwrap();
        let mut read = Vec::new();
        while let Some(record) = reader.next().unwrap() {
            read.push(record);
        }
        assert_eq!(read, records);
    }

    #[test]
    fn runs_round_trip_through_small_and_large_buffers() {
        for buffer_bytes in [1, 100, 4096, 1 << 20] {
            round_trip(&records::<u64>(20_000), buffer_bytes);
            round_trip(&records::<u128>(20_000), buffer_bytes);
        }
        round_trip::<u64>(&[], 64);
        round_trip(&[u64::new(0, 0, 1.0)], 64);
        round_trip(
            &[u64::new(0, u32::MAX, 1.0), u64::new(u32::MAX, 0, 1.0)],
            64,
        );
    }

    #[test]
    fn a_run_read_is_given_back_and_no_longer_matches_its_journal_entry() {
        let records = records::<u64>(50_000);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run");
        let entry = write_run(&records, &path).unwrap();
        let mut reader = RunReader::<u64>::open(&entry, 4096).unwrap();
        reader.release_step = 8192;
        for _ in 0..records.len() / 2 {
            reader.next().unwrap().unwrap();
        }
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len() as u64, entry.bytes);
        let probe = dir.path().join("probe");
        std::fs::write(&probe, vec![1u8; 8192]).unwrap();
        let probe = File::options().write(true).open(&probe).unwrap();
        if swapless_system::release_file_range(&probe, 0, 4096) {
            assert!(bytes[..8192].iter().all(|&byte| byte == 0));
            // What a resumed build checks: this run is not reused.
            assert_ne!(xxhash_rust::xxh3::xxh3_64(&bytes), entry.checksum);
        }
    }

    #[test]
    fn a_run_takes_fewer_bytes_than_its_records() {
        // A thousand sources of a hundred arcs each among a million vertices.
        let mut records: Vec<u64> = (0..100_000u32)
            .map(|i| u64::new(i % 1000, i.wrapping_mul(2_654_435_761) % 1_000_000, 1.0))
            .collect();
        crate::runs::sort_and_deduplicate(&mut records);
        let dir = tempfile::tempdir().unwrap();
        let entry = write_run(&records, &dir.path().join("run")).unwrap();
        assert!(
            entry.bytes * 2 < records.len() as u64 * 8,
            "{} bytes",
            entry.bytes
        );
    }

    #[test]
    fn a_damaged_or_cut_run_is_an_error_not_a_panic_nor_a_wrong_arc() {
        let records = records::<u128>(5_000);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run");
        let run = write_run(&records, &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        // A bit flipped inside a varint still decodes, to another arc: only the checksum
        // tells.
        let mut flipped = bytes.clone();
        let inside = (bytes.len() / 2..).find(|&at| bytes[at] >= 0x80).unwrap();
        flipped[inside] ^= 1;
        let cases: Vec<Vec<u8>> = vec![
            flipped,
            bytes[..bytes.len() - 3].to_vec(),
            bytes[..1].to_vec(),
            Vec::new(),
            vec![0xff; 64],
            [&[0u8, 0, 0xff, 0xff, 0xff, 0xff, 0x7f][..], &bytes[..]].concat(),
            [&bytes[..], &[0u8, 0, 7][..]].concat(),
        ];
        for (case, damaged) in cases.iter().enumerate() {
            std::fs::write(&path, damaged).unwrap();
            let mut reader = RunReader::<u128>::open(&run, 256).unwrap();
            let mut outcome = Ok(None);
            for _ in 0..records.len() + 10 {
                outcome = reader.next();
                if !matches!(outcome, Ok(Some(_))) {
                    break;
                }
            }
            let error = outcome.expect_err(&format!("damage {case} went unnoticed"));
            assert!(
                error.to_string().contains("was changed while the build"),
                "{error}"
            );
        }
    }
}
