//! Opens a `.sl` file, validates its header against the file's real length,
//! and exposes each section as a typed slice over a memory map.

use std::fs::File;
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use rayon::prelude::*;

use crate::header::HEADER_BYTES;
use crate::mapped_bound::MappedBound;
use crate::{FormatError, GraphCounts, GraphFlags, Header, Result, SectionKind};

/// Bytes a section reader asks for at a time: many checksum blocks (1 in version 1).
const READ_PIECE_BYTES: u64 = 1 << 20;

/// Least bytes of the pieces [`GraphFile::for_each_piece`] hands out.
const VISIT_PIECE_BYTES: u64 = 64 << 10;

/// Bytes of the pieces [`GraphFile::read_section_piece`] reads (whole checksum blocks).
pub const SECTION_PIECE_BYTES: u64 = READ_PIECE_BYTES;

/// An open `.sl` graph file.
pub struct GraphFile {
    path: PathBuf,
    header: Header,
    map: Mmap,
    /// Set by [`GraphFile::open_bounded`]: keeps the pages list reads map under a bound.
    bound: Option<MappedBound>,
}

impl GraphFile {
    /// Opens `path`, refusing a file that is not `.sl`, too new, truncated or structurally inconsistent.
    ///
    /// Opening is cheap: it reads the header only. Call [`GraphFile::verify_checksums`]
    /// or [`crate::check_file`] to read and verify every byte.
    pub fn open(path: &Path) -> Result<GraphFile> {
        let file = File::open(path).map_err(|source| FormatError::io(path, source))?;
        let metadata = file
            .metadata()
            .map_err(|source| FormatError::io(path, source))?;
        if !metadata.is_file() {
            return Err(FormatError::NotAFile {
                path: path.to_path_buf(),
                kind: crate::output::file_kind_name(&metadata.file_type()),
            });
        }
        let file_len = metadata.len();
        if file_len == 0 {
            return Err(FormatError::Truncated {
                path: path.to_path_buf(),
                detail: "the file is empty".to_string(),
            });
        }
        // SAFETY: the map is read-only and private to this process. Another process
        // truncating the file underneath would raise SIGBUS; swapless never writes to a
        // finished .sl file (the builder writes a temporary file and renames it), and
        // users are told not to modify graph files in place.
        let map = unsafe { Mmap::map(&file) }.map_err(|source| FormatError::io(path, source))?;
        let header_len = (HEADER_BYTES as usize).min(map.len());
        let header = Header::decode(&map[..header_len], path)?;
        let graph = GraphFile {
            path: path.to_path_buf(),
            header,
            map,
            bound: None,
        };
        graph.validate_layout(file_len)?;
        // The checksums are read a few entries at a time through the map; without this
        // each fault would read megabytes around it (the disk's readahead window) into
        // the page cache, outside any memory budget.
        if let Some(entry) = graph.header.section(SectionKind::Checksums) {
            let page = 4096;
            let start = (entry.offset / page * page) as usize;
            let end = ((entry.offset + entry.length).min(file_len)) as usize;
            let _ =
                graph
                    .map
                    .advise_range(memmap2::Advice::Random, start, end.saturating_sub(start));
        }
        Ok(graph)
    }

    /// Opens `path` as [`GraphFile::open`] does, for a reader that reads lists one vertex at
    /// a time (a serial verifier): the pages those reads map are dropped from the map now
    /// and then, so they hold at most `mapped_bytes` beside one list read longer than a
    /// quarter of it (the whole-section slices, such as [`GraphFile::out_neighbors`], are
    /// not counted).
    pub fn open_bounded(path: &Path, mapped_bytes: u64) -> Result<GraphFile> {
        let mut graph = GraphFile::open(path)?;
        // Readahead stays on: what it reads waits in the page cache, outside the process,
        // until a read maps it, and the verifiers' passes in vertex order need it.
        graph.bound = MappedBound::new(mapped_bytes);
        Ok(graph)
    }

    /// Tells the bound, if any, that `length` bytes at byte `position` of section `kind`
    /// are about to be read.
    #[inline]
    pub(crate) fn before_read(&self, kind: SectionKind, position: u64, length: u64) {
        if let (Some(bound), Some(entry)) = (&self.bound, self.header.section(kind)) {
            bound.before_read(&self.map, kind as usize, entry.offset + position, length);
        }
    }

    /// Entries `v` and `v + 1` of the offsets section `kind`: where vertex `v`'s list
    /// starts and ends.
    #[inline]
    pub(crate) fn list_range(
        &self,
        kind: SectionKind,
        offsets: &[u64],
        v: usize,
    ) -> (usize, usize) {
        self.before_read(kind, v as u64 * 8, 16);
        (offsets[v] as usize, offsets[v + 1] as usize)
    }

    pub(crate) fn corrupt(&self, detail: String) -> FormatError {
        FormatError::Corrupt {
            path: self.path.clone(),
            detail,
        }
    }

    fn validate_layout(&self, file_len: u64) -> Result<()> {
        let mut by_offset: Vec<_> = self.header.sections.iter().collect();
        by_offset.sort_by_key(|entry| entry.offset);
        let mut previous_end = HEADER_BYTES;
        for entry in &by_offset {
            let end = entry.offset.checked_add(entry.length).ok_or_else(|| {
                self.corrupt(format!("section {} has an impossible length", entry.name))
            })?;
            if entry.offset < previous_end {
                return Err(
                    self.corrupt(format!("section {} overlaps the one before it", entry.name))
                );
            }
            if end > file_len {
                return Err(FormatError::Truncated {
                    path: self.path.clone(),
                    detail: format!(
                        "section {} ends at byte {end} but the file has only {file_len} bytes",
                        entry.name
                    ),
                });
            }
            previous_end = end;
        }
        // Optional sections that are present must have their length too.
        let present_optional = [SectionKind::OutHeads]
            .into_iter()
            .filter(|&kind| self.header.section(kind).is_some());
        for kind in self
            .header
            .required_sections()
            .into_iter()
            .chain(present_optional)
        {
            let entry = self.header.section(kind).ok_or_else(|| {
                self.corrupt(format!("required section {} is missing", kind.name()))
            })?;
            let expected = self.header.expected_length(kind);
            if expected.is_some_and(|expected| expected != entry.length) {
                return Err(self.corrupt(format!(
                    "section {} has {} bytes but the header's counts ({} vertices, {} arcs) need {}",
                    kind.name(),
                    entry.length,
                    self.header.num_vertices,
                    self.header.num_arcs,
                    expected.unwrap_or(0)
                )));
            }
        }
        if self.header.num_vertices > u32::MAX as u64 {
            return Err(self.corrupt(format!(
                "{} vertices do not fit 32-bit ids",
                self.header.num_vertices
            )));
        }
        Ok(())
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The decoded header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Directed / weighted / reordered.
    pub fn flags(&self) -> GraphFlags {
        self.header.flags
    }

    /// Number of vertices `n`.
    pub fn num_vertices(&self) -> usize {
        self.header.num_vertices as usize
    }

    /// Number of stored out-neighbor entries (each undirected edge counts twice).
    pub fn num_arcs(&self) -> usize {
        self.header.num_arcs as usize
    }

    /// Vertices whose lists hold themselves (0 unless the graph was built keeping
    /// self-loops).
    pub fn num_self_loops(&self) -> u64 {
        self.header.self_loops
    }

    /// Number of edges as users count them: arcs, or for an undirected graph its edges
    /// between two vertices (stored twice) and its self-loops (stored once).
    pub fn num_edges(&self) -> u64 {
        if self.header.flags.directed {
            self.header.num_arcs
        } else {
            (self.header.num_arcs + self.header.self_loops) / 2
        }
    }

    /// The counts the header stores.
    pub fn counts(&self) -> GraphCounts {
        GraphCounts {
            vertices: self.header.num_vertices,
            arcs: self.header.num_arcs,
            self_loops: self.header.self_loops,
        }
    }

    /// Total size of the file in bytes.
    pub fn file_bytes(&self) -> u64 {
        self.map.len() as u64
    }

    /// The table entry of section `kind`, or the error that the file lacks it.
    pub fn required_section(&self, kind: SectionKind) -> Result<&crate::SectionEntry> {
        self.header
            .section(kind)
            .ok_or_else(|| self.corrupt(format!("section {} is missing", kind.name())))
    }

    /// The raw bytes of section `kind`, if present.
    pub fn section_bytes(&self, kind: SectionKind) -> Option<&[u8]> {
        let entry = self.header.section(kind)?;
        Some(&self.map[entry.offset as usize..(entry.offset + entry.length) as usize])
    }

    pub(crate) fn typed<T: bytemuck::Pod>(&self, kind: SectionKind) -> Option<&[T]> {
        // Sections start on 4 KiB boundaries of a page-aligned map and have lengths
        // validated at open, so the cast cannot fail.
        self.section_bytes(kind).map(bytemuck::cast_slice)
    }

    /// `u64 × (n+1)`: vertex `v`'s out-list is `out_neighbors[out_offsets[v]..out_offsets[v+1]]`.
    pub fn out_offsets(&self) -> &[u64] {
        self.typed(SectionKind::OutOffsets).unwrap_or(&[])
    }

    /// Every out-list, concatenated in vertex order; empty when the lists are compressed.
    pub fn out_neighbors(&self) -> &[u32] {
        match self.lists_compressed() {
            true => &[],
            false => self.typed(SectionKind::OutNeighbors).unwrap_or(&[]),
        }
    }

    /// Weights parallel to [`GraphFile::out_neighbors`], for weighted graphs.
    pub fn out_weights(&self) -> Option<&[f32]> {
        self.typed(SectionKind::OutWeights)
    }

    /// In-list offsets, for directed graphs.
    pub fn in_offsets(&self) -> Option<&[u64]> {
        self.typed(SectionKind::InOffsets)
    }

    /// In-lists concatenated, for directed graphs with plain lists.
    pub fn in_neighbors(&self) -> Option<&[u32]> {
        match self.lists_compressed() {
            true => None,
            false => self.typed(SectionKind::InNeighbors),
        }
    }

    /// Weights parallel to [`GraphFile::in_neighbors`].
    pub fn in_weights(&self) -> Option<&[f32]> {
        self.typed(SectionKind::InWeights)
    }

    /// Each vertex's first [`crate::HEAD_ENTRIES`] out-neighbors (its own id where the
    /// list is shorter), when the file has them.
    pub fn out_heads(&self) -> Option<&[u32]> {
        self.typed(SectionKind::OutHeads)
    }

    /// New id → original id, for reordered graphs.
    pub fn permutation(&self) -> Option<&[u32]> {
        self.typed(SectionKind::Permutation)
    }

    /// The graph's fingerprint: a 128-bit hash of its header (section table included)
    /// and of its checksum section, which covers every byte of every other section. Two
    /// files with the same fingerprint hold the same graph; it is read in microseconds,
    /// without touching the lists.
    pub fn fingerprint(&self) -> u128 {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(&self.header.encode());
        if let Some(checksums) = self.section_bytes(SectionKind::Checksums) {
            hasher.update(checksums);
        }
        hasher.digest128()
    }

    /// Bytes each stored checksum covers: 4 KiB, or 1 MiB in a version-1 file.
    pub fn checksum_block_bytes(&self) -> u64 {
        self.header.checksum_block_bytes
    }

    /// Where `kind`'s checksums sit in the checksum section, in entries.
    fn checksum_entries(&self, kind: SectionKind) -> Option<std::ops::Range<usize>> {
        let target = self.header.section(kind)?;
        let block_bytes = self.checksum_block_bytes();
        let before: u64 = self
            .header
            .sections
            .iter()
            .filter(|entry| {
                entry.name != SectionKind::Checksums.name() && entry.offset < target.offset
            })
            .map(|entry| entry.block_count(block_bytes))
            .sum();
        Some(before as usize..(before + target.block_count(block_bytes)) as usize)
    }

    /// The stored checksums of `kind`'s blocks, read through the map.
    pub fn block_checksums(&self, kind: SectionKind) -> Option<&[u64]> {
        let all: &[u64] = self.typed(SectionKind::Checksums)?;
        all.get(self.checksum_entries(kind)?)
    }

    /// Checks `bytes`, section `kind` from `position` (a multiple of the checksum block),
    /// block by block against the stored checksums; the last block may end where the
    /// section ends. The error names the first block that fails.
    pub fn verify_blocks(&self, kind: SectionKind, position: u64, bytes: &[u8]) -> Result<()> {
        let entry = self.required_section(kind)?;
        let checksums = self
            .block_checksums(kind)
            .ok_or_else(|| self.corrupt(format!("section {} has no checksums", kind.name())))?;
        let block_bytes = self.checksum_block_bytes();
        let first = position / block_bytes;
        for (index, block) in bytes.chunks(block_bytes as usize).enumerate() {
            let block_index = first + index as u64;
            if checksums.get(block_index as usize) != Some(&xxhash_rust::xxh3::xxh3_64(block)) {
                let start = entry.offset + block_index * block_bytes;
                return Err(FormatError::ChecksumMismatch {
                    path: self.path.clone(),
                    section: kind.name().to_string(),
                    block: block_index,
                    start,
                    end: start + block.len() as u64,
                });
            }
        }
        Ok(())
    }

    /// A copy of `kind`'s block checksums in this process's memory, read with one
    /// `pread` and dropped from the page cache after, for a store that checks its reads
    /// against them for a whole run; `None` if the graph has no such section.
    pub fn load_block_checksums(&self, kind: SectionKind) -> Result<Option<Vec<u64>>> {
        use std::os::unix::fs::FileExt;
        let (Some(entries), Some(section)) = (
            self.checksum_entries(kind),
            self.header.section(SectionKind::Checksums),
        ) else {
            return Ok(None);
        };
        let mut checksums = vec![0u64; entries.len()];
        let start = section.offset + entries.start as u64 * 8;
        let file = File::open(&self.path).map_err(|source| FormatError::io(&self.path, source))?;
        file.read_exact_at(bytemuck::cast_slice_mut(&mut checksums), start)
            .map_err(|source| FormatError::io(&self.path, source))?;
        advise(
            &file,
            start,
            entries.len() as u64 * 8,
            libc::POSIX_FADV_DONTNEED,
        );
        Ok(Some(checksums))
    }

    /// Reads section `kind` into anonymous memory with `pread`, verifying every block's
    /// checksum as it arrives, and leaves no copy in the page cache: a run under a
    /// memory budget (or a cgroup limit) must not hold the section twice.
    pub fn load_section<T: bytemuck::Pod>(&self, kind: SectionKind) -> Result<Option<Vec<T>>> {
        self.load_section_with(kind, |_| {})
    }

    /// [`load_section`](Self::load_section), calling `prepare` on the array after it is
    /// allocated and before it is first written (to advise the OS how to back it).
    pub fn load_section_with<T: bytemuck::Pod>(
        &self,
        kind: SectionKind,
        prepare: impl FnOnce(&mut [T]),
    ) -> Result<Option<Vec<T>>> {
        let Some(mut reader) = SectionReader::open(self, kind)? else {
            return Ok(None);
        };
        let element = std::mem::size_of::<T>() as u64;
        let mut values: Vec<T> = vec![T::zeroed(); (reader.length / element) as usize];
        prepare(&mut values);
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut values);
        for (index, piece) in bytes.chunks_mut(READ_PIECE_BYTES as usize).enumerate() {
            reader.read_piece(self, index as u64 * READ_PIECE_BYTES, piece)?;
        }
        Ok(Some(values))
    }

    /// Loads the permutation section (new id to original id), if any, and checks that it
    /// is a bijection of `0..n`: every entry in range, none twice. A forged file whose
    /// checksums match could otherwise map two results to one place and leave another
    /// unwritten. The check holds a bit a vertex beside the section, briefly.
    pub fn load_permutation(&self) -> Result<Option<Vec<u32>>> {
        let Some(permutation) = self.load_section::<u32>(SectionKind::Permutation)? else {
            return Ok(None);
        };
        check_bijection(&permutation).map_err(|detail| self.corrupt(detail))?;
        Ok(Some(permutation))
    }

    /// Loads the input's ids of a compacted graph's vertices, if it has them, and checks
    /// them: one a vertex, strictly ascending, names UTF-8 within their section.
    pub fn load_vertex_ids(&self) -> Result<Option<crate::VertexIds>> {
        let ids = match self.flags().ids {
            crate::IdKind::Dense => return Ok(None),
            crate::IdKind::Integers => self
                .load_section::<i64>(SectionKind::VertexIds)?
                .map(crate::VertexIds::Integers),
            crate::IdKind::Names => {
                let offsets = self.load_section::<u64>(SectionKind::NameOffsets)?;
                let bytes = self.load_section::<u8>(SectionKind::VertexNames)?;
                offsets
                    .zip(bytes)
                    .map(|(offsets, bytes)| crate::VertexIds::Names { offsets, bytes })
            }
        };
        let Some(ids) = ids else {
            return Err(self.corrupt("the section of vertex ids its flags name is missing".into()));
        };
        if ids.len() != self.num_vertices() {
            return Err(self.corrupt(format!(
                "{} vertex ids for {} vertices",
                ids.len(),
                self.num_vertices()
            )));
        }
        if let Some(problem) = ids.problem() {
            return Err(self.corrupt(problem));
        }
        Ok(Some(ids))
    }

    /// Fills `buffer` with section `kind` from byte `position` with `pread`, verifying
    /// each checksum block, and drops the page cache behind it: for a reader that pulls a
    /// section piece by piece. `position` must be a multiple of [`SECTION_PIECE_BYTES`]
    /// and the buffer that long unless it reaches the section's end.
    pub fn read_section_piece(
        &self,
        kind: SectionKind,
        position: u64,
        buffer: &mut [u8],
    ) -> Result<()> {
        let mut reader = SectionReader::over(self, kind, self.required_section(kind)?)?;
        let fits = position.is_multiple_of(SECTION_PIECE_BYTES)
            && position + buffer.len() as u64 <= reader.length
            && (buffer.len() as u64 <= SECTION_PIECE_BYTES);
        if !fits {
            return Err(self.corrupt(format!(
                "a read of {} bytes at {position} does not fit section {} in pieces",
                buffer.len(),
                kind.name()
            )));
        }
        reader.read_piece(self, position, buffer)
    }

    /// Calls `visit` with each piece of section `kind` in turn (checksums verified;
    /// [`GraphFile::visit_piece_bytes`] long, a whole number of 8-byte entries), holding
    /// one piece in memory at a time and none in the page cache; nothing if the section
    /// is absent.
    pub fn for_each_piece(&self, kind: SectionKind, visit: &mut dyn FnMut(&[u8])) -> Result<()> {
        let Some(mut reader) = SectionReader::open(self, kind)? else {
            return Ok(());
        };
        let piece_bytes = self.visit_piece_bytes();
        let mut piece = vec![0u8; piece_bytes as usize];
        for start in (0..reader.length).step_by(piece_bytes as usize) {
            let length = (reader.length - start).min(piece_bytes) as usize;
            reader.read_piece(self, start, &mut piece[..length])?;
            visit(&piece[..length]);
        }
        Ok(())
    }

    /// Bytes of the pieces [`GraphFile::for_each_piece`] holds: whole checksum blocks,
    /// at least 64 KiB. That piece is memory a run under a budget holds beside what its
    /// plan counts (while it loads offsets), so it is kept small where the blocks are:
    /// 64 KiB on version-2 files, 1 MiB (one block) on version-1 files.
    pub fn visit_piece_bytes(&self) -> u64 {
        self.checksum_block_bytes().max(VISIT_PIECE_BYTES)
    }

    /// Calls `visit(position in the section, page)` with up to `count` pages (4 KiB) of
    /// section `kind` spread evenly over it, read with readahead off and dropped from the
    /// page cache after, so a plan can look at a section's contents without the cache
    /// holding any of it. The pages are not checked against checksums: callers may only
    /// draw estimates from them.
    pub fn sample_pages(
        &self,
        kind: SectionKind,
        count: u64,
        visit: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<()> {
        use std::os::unix::fs::FileExt;
        const PAGE: u64 = 4096;
        let Some(entry) = self.header.section(kind) else {
            return Ok(());
        };
        let pages = entry.length / PAGE;
        if pages == 0 || count == 0 {
            return Ok(());
        }
        let file = File::open(&self.path).map_err(|source| FormatError::io(&self.path, source))?;
        advise(&file, 0, 0, libc::POSIX_FADV_RANDOM);
        let mut page = vec![0u8; PAGE as usize];
        let taken = count.min(pages);
        for index in 0..taken {
            let position = (index * pages / taken) * PAGE;
            file.read_exact_at(&mut page, entry.offset + position)
                .map_err(|source| FormatError::io(&self.path, source))?;
            visit(position, &page);
        }
        advise(&file, entry.offset, entry.length, libc::POSIX_FADV_DONTNEED);
        Ok(())
    }

    /// Checks every block of every section against its stored checksum.
    ///
    /// Reports the first failing block in file order.
    pub fn verify_checksums(&self) -> Result<u64> {
        let checksums: &[u64] = self.typed(SectionKind::Checksums).unwrap_or(&[]);
        let mut by_offset: Vec<_> = self
            .header
            .sections
            .iter()
            .filter(|entry| entry.name != SectionKind::Checksums.name())
            .collect();
        by_offset.sort_by_key(|entry| entry.offset);
        let block_bytes = self.checksum_block_bytes();
        let blocks: u64 = by_offset
            .iter()
            .map(|entry| entry.block_count(block_bytes))
            .sum();
        if blocks != checksums.len() as u64 {
            return Err(self.corrupt(format!(
                "the checksum section holds {} entries for {blocks} blocks",
                checksums.len()
            )));
        }
        let mut verified = 0;
        for entry in by_offset {
            let count = entry.block_count(block_bytes) as usize;
            let stored = &checksums[verified..verified + count];
            let section = &self.map[entry.offset as usize..(entry.offset + entry.length) as usize];
            let first_bad = section
                .par_chunks(block_bytes as usize)
                .zip(stored.par_iter())
                .position_first(|(block, &sum)| xxhash_rust::xxh3::xxh3_64(block) != sum);
            if let Some(block) = first_bad {
                let start = entry.offset + block as u64 * block_bytes;
                return Err(FormatError::ChecksumMismatch {
                    path: self.path.clone(),
                    section: entry.name.clone(),
                    block: block as u64,
                    start,
                    end: (start + block_bytes).min(entry.offset + entry.length),
                });
            }
            verified += count;
        }
        Ok(blocks)
    }
}

/// Reads one section in order with `pread`, a piece of whole checksum blocks at a time,
/// verifying each block, and
/// keeps the page cache clean behind it: once a block is in this process's memory, the
/// cache's copy would hold it twice, which a run under a budget or a cgroup cannot afford.
pub(crate) struct SectionReader {
    pub(crate) kind: SectionKind,
    file: File,
    offset: u64,
    pub(crate) length: u64,
    readahead_stopped: bool,
}

impl SectionReader {
    /// The reader for `kind`, or `None` if the graph has no such section.
    fn open(graph: &GraphFile, kind: SectionKind) -> Result<Option<SectionReader>> {
        graph
            .header
            .section(kind)
            .map(|entry| SectionReader::over(graph, kind, entry))
            .transpose()
    }

    /// The reader for `kind`, whose table entry is `entry`.
    pub(crate) fn over(
        graph: &GraphFile,
        kind: SectionKind,
        entry: &crate::SectionEntry,
    ) -> Result<SectionReader> {
        let file =
            File::open(&graph.path).map_err(|source| FormatError::io(&graph.path, source))?;
        Ok(SectionReader {
            kind,
            file,
            offset: entry.offset,
            length: entry.length,
            readahead_stopped: false,
        })
    }

    /// Fills `buffer` with the section of `graph` (the one it was opened on) from
    /// `position` (a multiple of the checksum block, as is the buffer's length unless it
    /// reaches the section's end) and verifies each block.
    pub(crate) fn read_piece(
        &mut self,
        graph: &GraphFile,
        position: u64,
        buffer: &mut [u8],
    ) -> Result<()> {
        use std::os::unix::fs::FileExt;
        let start = self.offset + position;
        let end = start + buffer.len() as u64;
        // Readahead runs megabytes ahead, asynchronously; near the section's end it would
        // read past it, into pages still in flight when the reader drops the cache. So it
        // stops once the rest of the section is within the largest window the kernel uses.
        if !self.readahead_stopped && self.offset + self.length <= start + (16 << 20) {
            advise(&self.file, 0, 0, libc::POSIX_FADV_RANDOM);
            self.readahead_stopped = true;
        }
        let path = &graph.path;
        self.file.read_exact_at(buffer, start).map_err(|source| {
            if source.kind() == std::io::ErrorKind::UnexpectedEof {
                FormatError::Truncated {
                    path: path.clone(),
                    detail: format!(
                        "section {} was cut short while being read",
                        self.kind.name()
                    ),
                }
            } else {
                FormatError::io(path, source)
            }
        })?;
        // The kernel caches readahead in folios of up to 2 MiB and drops only folios
        // wholly inside the range, so the range reaches back 8 MiB, not just this block.
        let behind = end.saturating_sub(8 << 20).max(self.offset);
        advise(&self.file, behind, end - behind, libc::POSIX_FADV_DONTNEED);
        graph.verify_blocks(self.kind, position, buffer)
    }
}

impl Drop for SectionReader {
    fn drop(&mut self) {
        // Whatever of the section (and past it) is still cached; length 0 is "to the end".
        advise(&self.file, self.offset, 0, libc::POSIX_FADV_DONTNEED);
    }
}

/// `posix_fadvise` on `file`; a failure only leaves the cache as it was.
pub(crate) fn advise(file: &File, start: u64, length: u64, advice: libc::c_int) {
    use std::os::fd::AsRawFd;
    // SAFETY: posix_fadvise only reads its integer arguments.
    unsafe {
        libc::posix_fadvise(
            file.as_raw_fd(),
            start as libc::off_t,
            length as libc::off_t,
            advice,
        );
    }
}

/// Why `permutation` is not a bijection of `0..permutation.len()`, if it is not.
pub(crate) fn check_bijection(permutation: &[u32]) -> std::result::Result<(), String> {
    let n = permutation.len();
    let mut seen = vec![0u64; n.div_ceil(64)];
    for (vertex, &original) in permutation.iter().enumerate() {
        let original = original as usize;
        if original >= n {
            return Err(format!(
                "the permutation maps vertex {vertex} to id {original}, beyond the {n} vertices"
            ));
        }
        let (word, bit) = (original / 64, 1u64 << (original % 64));
        if seen[word] & bit != 0 {
            return Err(format!(
                "the permutation maps two vertices to id {original} (the second is vertex {vertex})"
            ));
        }
        seen[word] |= bit;
    }
    Ok(())
}
