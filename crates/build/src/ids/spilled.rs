//! Distinct ids beyond the memory budget: the first pass writes its sorted ids out in
//! runs when they outgrow the budget, and the runs are merged, without duplicates, into
//! files laid out as the output's sections (`original_ids`, or `name_offsets` and
//! `names`), from which the builder copies them and the second pass loads one range
//! of ids at a time (see `ranged`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use swapless_format::{GraphWriter, IdKind, SectionKind, VertexIds};

use crate::journal::BuildFolder;
use crate::{BuildError, Result};

/// An id as a run file holds it: an integer, or a name.
pub(crate) trait RunRecord: Ord + Sized {
    /// Which ids these are.
    const KIND: IdKind;
    /// Appends the record to a run.
    fn write_to(&self, out: &mut impl Write) -> std::io::Result<()>;
    /// The next record of a run, `None` at its end.
    fn read_from(input: &mut impl Read) -> std::io::Result<Option<Self>>;
    /// The bytes of a name (`None` for an integer).
    fn name(&self) -> Option<&[u8]>;
}

impl RunRecord for i64 {
    const KIND: IdKind = IdKind::Integers;

    fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        out.write_all(&self.to_le_bytes())
    }

    fn read_from(input: &mut impl Read) -> std::io::Result<Option<i64>> {
        Ok(next_bytes(input)?.map(i64::from_le_bytes))
    }

    fn name(&self) -> Option<&[u8]> {
        None
    }
}

impl RunRecord for Box<[u8]> {
    const KIND: IdKind = IdKind::Names;

    fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        out.write_all(&(self.len() as u32).to_le_bytes())?;
        out.write_all(self)
    }

    fn read_from(input: &mut impl Read) -> std::io::Result<Option<Box<[u8]>>> {
        let Some(length) = next_bytes(input)?.map(u32::from_le_bytes) else {
            return Ok(None);
        };
        let mut name = vec![0u8; length as usize];
        input.read_exact(&mut name)?;
        Ok(Some(name.into()))
    }

    fn name(&self) -> Option<&[u8]> {
        Some(self)
    }
}

/// The next `N` bytes of `input`, `None` at its end.
fn next_bytes<const N: usize>(input: &mut impl Read) -> std::io::Result<Option<[u8; N]>> {
    let mut bytes = [0u8; N];
    match input.read_exact(&mut bytes) {
        Ok(()) => Ok(Some(bytes)),
        Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
        Err(error) => Err(error),
    }
}

/// The folder of a compacting build's id files; removed when the last holder drops it.
pub(crate) struct IdFolder {
    folder: BuildFolder,
    runs: Vec<PathBuf>,
}

impl IdFolder {
    /// A new folder in `parent`, swept by a later build if this one is killed.
    pub(crate) fn create(parent: &Path) -> Result<IdFolder> {
        Ok(IdFolder {
            folder: BuildFolder::create(parent)?,
            runs: Vec::new(),
        })
    }

    /// A file of the folder.
    pub(crate) fn file(&self, name: &str) -> PathBuf {
        self.folder.path.join(name)
    }

    /// Writes `sorted` (ascending, without duplicates) as the next run.
    pub(crate) fn spill<T: RunRecord>(&mut self, sorted: &[T]) -> Result<()> {
        let path = self.file(&format!("ids-run-{}", self.runs.len()));
        let io = |source| BuildError::io(&path, source);
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&path).map_err(io)?);
        for id in sorted {
            id.write_to(&mut out).map_err(io)?;
        }
        out.flush().map_err(io)?;
        self.runs.push(path);
        Ok(())
    }

    /// Removes the runs written so far (the first pass starts again, for names).
    pub(crate) fn forget_runs(&mut self) {
        for run in self.runs.drain(..) {
            let _ = std::fs::remove_file(run);
        }
    }

    /// Runs written.
    pub(crate) fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Merges the runs, without duplicates, into the ids' files, reading each run
    /// through a buffer of `buffer_bytes`, and removes them.
    pub(crate) fn merge_runs<T: RunRecord>(
        mut self,
        input: &Path,
        buffer_bytes: usize,
    ) -> Result<SpilledIds> {
        let mut readers = Vec::with_capacity(self.runs.len());
        for run in &self.runs {
            let file = File::open(run).map_err(|source| BuildError::io(run, source))?;
            readers.push(BufReader::with_capacity(buffer_bytes, file));
        }
        let mut heap = BinaryHeap::with_capacity(readers.len());
        for (index, reader) in readers.iter_mut().enumerate() {
            let next =
                T::read_from(reader).map_err(|source| BuildError::io(&self.runs[index], source))?;
            if let Some(id) = next {
                heap.push(Reverse((id, index)));
            }
        }
        let mut out = SortedIdsWriter::create(&self, T::KIND)?;
        let mut last: Option<T> = None;
        while let Some(Reverse((id, index))) = heap.pop() {
            let next = T::read_from(&mut readers[index])
                .map_err(|source| BuildError::io(&self.runs[index], source))?;
            if let Some(next) = next {
                heap.push(Reverse((next, index)));
            }
            if last.as_ref() != Some(&id) {
                out.push(&id)?;
                last = Some(id);
            }
        }
        drop(readers);
        self.forget_runs();
        out.finish(self, input)
    }

    /// Writes ids already in memory to the ids' files.
    pub(crate) fn write_ids(self, input: &Path, ids: &VertexIds) -> Result<SpilledIds> {
        let mut out = SortedIdsWriter::create(&self, ids.kind())?;
        match ids {
            VertexIds::Integers(integers) => {
                for id in integers {
                    out.push(id)?;
                }
            }
            VertexIds::Names { offsets, bytes } => {
                for pair in offsets.windows(2) {
                    let name: Box<[u8]> = bytes[pair[0] as usize..pair[1] as usize].into();
                    out.push(&name)?;
                }
            }
        }
        out.finish(self, input)
    }
}

const INTEGERS_FILE: &str = "original_ids";
const OFFSETS_FILE: &str = "name_offsets";
const NAMES_FILE: &str = "names";

/// Writes ascending ids into the files of their sections.
struct SortedIdsWriter {
    kind: IdKind,
    /// The integers, or the names' offsets.
    first: (PathBuf, BufWriter<File>),
    /// The names' bytes.
    names: Option<(PathBuf, BufWriter<File>)>,
    count: u64,
    name_bytes: u64,
}

impl SortedIdsWriter {
    fn create(folder: &IdFolder, kind: IdKind) -> Result<SortedIdsWriter> {
        let open = |name: &str| -> Result<(PathBuf, BufWriter<File>)> {
            let path = folder.file(name);
            let file = File::create(&path).map_err(|source| BuildError::io(&path, source))?;
            Ok((path, BufWriter::with_capacity(1 << 20, file)))
        };
        let mut writer = match kind {
            IdKind::Names => SortedIdsWriter {
                kind,
                first: open(OFFSETS_FILE)?,
                names: Some(open(NAMES_FILE)?),
                count: 0,
                name_bytes: 0,
            },
            _ => SortedIdsWriter {
                kind,
                first: open(INTEGERS_FILE)?,
                names: None,
                count: 0,
                name_bytes: 0,
            },
        };
        if kind == IdKind::Names {
            writer.write_first(&0u64.to_le_bytes())?;
        }
        Ok(writer)
    }

    fn write_first(&mut self, bytes: &[u8]) -> Result<()> {
        let (path, out) = &mut self.first;
        out.write_all(bytes)
            .map_err(|source| BuildError::io(path.as_path(), source))
    }

    fn push<T: RunRecord>(&mut self, id: &T) -> Result<()> {
        self.count += 1;
        match (&mut self.names, id.name()) {
            // A name's bytes go to the names, its running end to the offsets.
            (Some((path, out)), Some(name)) => {
                out.write_all(name)
                    .map_err(|source| BuildError::io(path.as_path(), source))?;
                self.name_bytes += name.len() as u64;
                let end = self.name_bytes.to_le_bytes();
                self.write_first(&end)
            }
            _ => {
                let (path, out) = &mut self.first;
                id.write_to(out)
                    .map_err(|source| BuildError::io(path.as_path(), source))
            }
        }
    }

    fn finish(self, folder: IdFolder, input: &Path) -> Result<SpilledIds> {
        for (path, mut out) in std::iter::once(self.first).chain(self.names) {
            out.flush()
                .map_err(|source| BuildError::io(&path, source))?;
        }
        if self.count > crate::MAX_VERTEX_ID + 1 {
            return Err(super::too_many_ids(input, self.count));
        }
        Ok(SpilledIds {
            folder,
            kind: self.kind,
            count: self.count,
        })
    }
}

/// The distinct ids of an input, ascending, in files laid out as the output's
/// sections; removed with their folder when dropped.
pub struct SpilledIds {
    folder: IdFolder,
    kind: IdKind,
    count: u64,
}

impl SpilledIds {
    /// How many.
    pub fn len(&self) -> u64 {
        self.count
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Integers or names.
    pub fn kind(&self) -> IdKind {
        self.kind
    }

    /// A file of the ids' folder (the streams of the second pass go there too).
    pub(crate) fn file(&self, name: &str) -> PathBuf {
        self.folder.file(name)
    }

    /// Where name `index` starts in the names (only for names).
    fn name_offsets(&self, positions: Range<u64>) -> Result<Vec<u64>> {
        let mut offsets = vec![0u64; (positions.end - positions.start) as usize];
        let bytes = bytemuck::cast_slice_mut(&mut offsets);
        read_at(&self.file(OFFSETS_FILE), positions.start * 8, bytes)?;
        Ok(offsets)
    }

    /// The ids at `positions`, in memory.
    pub(crate) fn load(&self, positions: Range<u64>) -> Result<VertexIds> {
        match self.kind {
            IdKind::Names => {
                let offsets = self.name_offsets(positions.start..positions.end + 1)?;
                let (first, last) = (offsets[0], offsets[offsets.len() - 1]);
                let mut bytes = vec![0u8; (last - first) as usize];
                read_at(&self.file(NAMES_FILE), first, &mut bytes)?;
                Ok(VertexIds::Names {
                    offsets: offsets.iter().map(|offset| offset - first).collect(),
                    bytes,
                })
            }
            _ => {
                let mut integers = vec![0i64; (positions.end - positions.start) as usize];
                let bytes = bytemuck::cast_slice_mut(&mut integers);
                read_at(&self.file(INTEGERS_FILE), positions.start * 8, bytes)?;
                Ok(VertexIds::Integers(integers))
            }
        }
    }

    /// Each name's length in bytes, in order, read through a small buffer (only for
    /// names; for splitting them into ranges).
    pub(crate) fn name_lengths(&self) -> Result<impl Iterator<Item = Result<u64>> + '_> {
        let path = self.file(OFFSETS_FILE);
        let file = File::open(&path).map_err(|source| BuildError::io(&path, source))?;
        let mut reader = BufReader::with_capacity(1 << 16, file);
        let mut previous = 0u64;
        let mut bytes = [0u8; 8];
        // The first offset is 0.
        reader
            .read_exact(&mut bytes)
            .map_err(|source| BuildError::io(&path, source))?;
        Ok((0..self.count).map(move |_| {
            reader
                .read_exact(&mut bytes)
                .map_err(|source| BuildError::io(&path, source))?;
            let end = u64::from_le_bytes(bytes);
            let length = end - previous;
            previous = end;
            Ok(length)
        }))
    }

    /// Writes the ids' sections into the output.
    pub(crate) fn write_sections(&self, writer: &mut GraphWriter) -> Result<()> {
        let parts = match self.kind {
            IdKind::Names => vec![
                (SectionKind::NameOffsets, self.file(OFFSETS_FILE)),
                (SectionKind::VertexNames, self.file(NAMES_FILE)),
            ],
            _ => vec![(SectionKind::VertexIds, self.file(INTEGERS_FILE))],
        };
        let mut buffer = vec![0u8; 1 << 20];
        for (kind, path) in parts {
            let io = |source| BuildError::io(&path, source);
            let mut file = File::open(&path).map_err(io)?;
            let length = file.metadata().map_err(io)?.len();
            let mut section = writer.begin_section(kind, Some(length))?;
            loop {
                let read = file.read(&mut buffer).map_err(io)?;
                if read == 0 {
                    break;
                }
                section.write(&buffer[..read])?;
            }
            writer.finish_section(section)?;
        }
        Ok(())
    }
}

/// Fills `bytes` from `path` at `offset`.
fn read_at(path: &Path, offset: u64, bytes: &mut [u8]) -> Result<()> {
    let io = |source| BuildError::io(path, source);
    let mut file = File::open(path).map_err(io)?;
    file.seek(SeekFrom::Start(offset)).map_err(io)?;
    file.read_exact(bytes).map_err(io)
}
