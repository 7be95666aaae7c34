//! Writes a `.sl` file under a temporary name and renames it into place only
//! when every section and checksum is on disk, so a crash or an error never
//! leaves a half-written graph behind the final name.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::header::{HEADER_BYTES, MAX_SECTIONS};
use crate::output::{OutputFile, folder_of, seekable_output_target};
use crate::{
    CHECKSUM_BLOCK_BYTES, FormatError, GraphCounts, GraphFlags, Header, Result, SectionEntry,
    SectionKind, align_up,
};

/// Builds a `.sl` file section by section.
///
/// Sections whose length is known up front can be written concurrently; a
/// section of unknown length must be finished before the next one begins.
pub struct GraphWriter {
    final_path: PathBuf,
    /// Where the temporary file and the checksum spills live (the output's folder).
    directory: PathBuf,
    output: OutputFile,
    next_offset: u64,
    open_ended_in_progress: bool,
    finished: Vec<(SectionEntry, ChecksumSpill)>,
    begun: Vec<SectionKind>,
}

/// Bytes a section writer gathers before each write to the file.
const WRITE_BUFFER_BYTES: usize = 1 << 20;

/// A sequential, buffered writer for one section; it checksums each 4 KiB block as it goes.
pub struct SectionWriter {
    kind: SectionKind,
    file: File,
    path: PathBuf,
    start: u64,
    written: u64,
    declared_length: Option<u64>,
    buffer: Vec<u8>,
    checksums: ChecksumSpill,
}

/// Checksums held in memory before they go to a spill file.
const CHECKSUMS_HELD: usize = 8192;

/// A section's block checksums, kept in an unnamed temporary file as they are made: a
/// checksum a page is 1/512 of the output (32 MiB for a 16 GiB graph), which a build
/// under `--memory` cannot hold beside its sort buffers.
struct ChecksumSpill {
    file: File,
    path: PathBuf,
    held: Vec<u64>,
    spilled: u64,
}

impl ChecksumSpill {
    fn new(directory: &Path, path: &Path) -> Result<ChecksumSpill> {
        Ok(ChecksumSpill {
            file: tempfile::tempfile_in(directory)
                .map_err(|source| FormatError::io(directory, source))?,
            path: path.to_path_buf(),
            held: Vec::with_capacity(CHECKSUMS_HELD),
            spilled: 0,
        })
    }

    fn push(&mut self, checksum: u64) -> Result<()> {
        self.held.push(checksum);
        if self.held.len() == CHECKSUMS_HELD {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let bytes: &[u8] = bytemuck::cast_slice(&self.held);
        self.file
            .write_all_at(bytes, self.spilled * 8)
            .map_err(|source| FormatError::io(&self.path, source))?;
        self.spilled += self.held.len() as u64;
        self.held.clear();
        Ok(())
    }

    /// Checksums made so far.
    fn len(&self) -> u64 {
        self.spilled + self.held.len() as u64
    }

    /// Copies every checksum (flushed first) to `output` at `position`, a piece at a time.
    fn copy_to(&mut self, output: &File, position: u64, output_path: &Path) -> Result<()> {
        self.flush()?;
        let mut piece = vec![0u8; CHECKSUMS_HELD * 8];
        let total = self.spilled * 8;
        let mut done = 0;
        while done < total {
            let length = (total - done).min(piece.len() as u64) as usize;
            self.file
                .read_exact_at(&mut piece[..length], done)
                .map_err(|source| FormatError::io(&self.path, source))?;
            output
                .write_all_at(&piece[..length], position + done)
                .map_err(|source| FormatError::io(output_path, source))?;
            done += length as u64;
        }
        Ok(())
    }
}

impl GraphWriter {
    /// Starts a new graph file that will appear at `path` when [`GraphWriter::finish`] succeeds.
    pub fn create(path: &Path) -> Result<GraphWriter> {
        // A symbolic link is followed; a folder, device or FIFO is refused (see `output`).
        let target = seekable_output_target(path)?;
        let directory = folder_of(&target.resolved);
        let output = OutputFile::create_at(target)?;
        Ok(GraphWriter {
            final_path: path.to_path_buf(),
            directory,
            output,
            next_offset: HEADER_BYTES,
            open_ended_in_progress: false,
            finished: Vec::new(),
            begun: Vec::new(),
        })
    }

    /// The path the file will have once finished.
    pub fn path(&self) -> &Path {
        &self.final_path
    }

    /// Begins section `kind`. With `length` known, later sections can begin before this one ends.
    pub fn begin_section(
        &mut self,
        kind: SectionKind,
        length: Option<u64>,
    ) -> Result<SectionWriter> {
        if self.open_ended_in_progress {
            return Err(self.invalid(format!(
                "section {} cannot begin while a section of unknown length is still open",
                kind.name()
            )));
        }
        if kind == SectionKind::Checksums || self.begun.contains(&kind) {
            return Err(self.invalid(format!("section {} cannot be written here", kind.name())));
        }
        if self.begun.len() + 1 >= MAX_SECTIONS {
            return Err(self.invalid("too many sections".to_string()));
        }
        self.begun.push(kind);
        let start = self.next_offset;
        match length {
            Some(length) => {
                self.next_offset = align_up(start + length);
                self.check_free_space()?;
            }
            None => self.open_ended_in_progress = true,
        }
        let file = self
            .output
            .file()
            .try_clone()
            .map_err(|source| FormatError::io(self.output.writing_path(), source))?;
        Ok(SectionWriter {
            kind,
            file,
            path: self.final_path.clone(),
            start,
            written: 0,
            declared_length: length,
            buffer: Vec::with_capacity(WRITE_BUFFER_BYTES),
            checksums: ChecksumSpill::new(&self.directory, &self.final_path)?,
        })
    }

    /// Flushes `section` and records it in the section table.
    pub fn finish_section(&mut self, mut section: SectionWriter) -> Result<()> {
        section.flush_buffer()?;
        match section.declared_length {
            Some(declared) if declared != section.written => {
                return Err(self.invalid(format!(
                    "section {} was declared as {declared} bytes but {} were written",
                    section.kind.name(),
                    section.written
                )));
            }
            Some(_) => {}
            None => {
                self.open_ended_in_progress = false;
                self.next_offset = align_up(section.start + section.written);
            }
        }
        self.finished.push((
            SectionEntry {
                name: section.kind.name().to_string(),
                offset: section.start,
                length: section.written,
            },
            section.checksums,
        ));
        Ok(())
    }

    /// Writes the checksum section and the header, syncs, and renames the file into place.
    pub fn finish(mut self, flags: GraphFlags, counts: GraphCounts) -> Result<()> {
        let GraphCounts {
            vertices: num_vertices,
            arcs: num_arcs,
            self_loops,
        } = counts;
        if flags.self_loops != (self_loops > 0) {
            return Err(self.invalid(format!(
                "{self_loops} self-loops do not agree with the self-loop flag"
            )));
        }
        if self.open_ended_in_progress {
            return Err(self.invalid("a section is still open".to_string()));
        }
        self.finished.sort_by_key(|(entry, _)| entry.offset);
        let checksum_bytes: u64 = self
            .finished
            .iter()
            .map(|(_, checksums)| checksums.len() * 8)
            .sum();
        let checksum_offset = self.next_offset;
        let mut sections: Vec<SectionEntry> = self
            .finished
            .iter()
            .map(|(entry, _)| entry.clone())
            .collect();
        sections.push(SectionEntry {
            name: SectionKind::Checksums.name().to_string(),
            offset: checksum_offset,
            length: checksum_bytes,
        });
        let header = Header {
            version: flags.version(),
            flags,
            id_bytes: 4,
            num_vertices,
            num_arcs,
            self_loops,
            checksum_block_bytes: CHECKSUM_BLOCK_BYTES,
            sections,
        };
        for kind in header.required_sections() {
            let Some(entry) = header.section(kind) else {
                return Err(self.invalid(format!("required section {} is missing", kind.name())));
            };
            if let Some(expected) = header.expected_length(kind)
                && expected != entry.length
            {
                return Err(self.invalid(format!(
                    "section {} has {} bytes, but {} vertices and {} arcs need {expected}",
                    kind.name(),
                    entry.length,
                    num_vertices,
                    num_arcs,
                )));
            }
        }
        let file = self.output.file();
        let temp_path = self.output.writing_path().to_path_buf();
        let io = |source| FormatError::io(&temp_path, source);
        let mut position = checksum_offset;
        for (_, checksums) in &mut self.finished {
            checksums.copy_to(file, position, &temp_path)?;
            position += checksums.len() * 8;
        }
        // Pad the file to a 4 KiB multiple so O_DIRECT reads of the last section never run short.
        let total = align_up(checksum_offset + checksum_bytes);
        file.set_len(total).map_err(io)?;
        file.write_all_at(&header.encode(), 0).map_err(io)?;
        self.output.commit()
    }

    /// Refuses sections that would not fit on the output's file system, before their
    /// bytes are written: what is declared and not yet on disk, against what is free.
    fn check_free_space(&self) -> Result<()> {
        use std::os::unix::fs::MetadataExt;
        let io = |source| FormatError::io(self.output.writing_path(), source);
        let allocated = self.output.file().metadata().map_err(io)?.blocks() * 512;
        let needed = self.next_offset.saturating_sub(allocated);
        match crate::output::free_bytes(&self.directory) {
            Some(available) if needed > available => Err(FormatError::NoSpace {
                path: self.final_path.clone(),
                needed,
                available,
            }),
            _ => Ok(()),
        }
    }

    fn invalid(&self, detail: String) -> FormatError {
        FormatError::InvalidWrite {
            path: self.final_path.clone(),
            detail,
        }
    }
}

impl SectionWriter {
    /// Appends raw bytes to the section.
    pub fn write(&mut self, mut bytes: &[u8]) -> Result<()> {
        while !bytes.is_empty() {
            let room = WRITE_BUFFER_BYTES - self.buffer.len();
            let take = room.min(bytes.len());
            self.buffer.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.buffer.len() == WRITE_BUFFER_BYTES {
                self.flush_buffer()?;
            }
        }
        Ok(())
    }

    /// Appends a slice of plain values (ids, offsets, weights) in their little-endian layout.
    pub fn write_values<T: bytemuck::Pod>(&mut self, values: &[T]) -> Result<()> {
        self.write(bytemuck::cast_slice(values))
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written + self.buffer.len() as u64
    }

    fn flush_buffer(&mut self) -> Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let at = self.start + self.written;
        if let Some(declared) = self.declared_length
            && self.written + self.buffer.len() as u64 > declared
        {
            return Err(FormatError::InvalidWrite {
                path: self.path.clone(),
                detail: format!(
                    "section {} grew past its declared {declared} bytes",
                    self.kind.name()
                ),
            });
        }
        self.file
            .write_all_at(&self.buffer, at)
            .map_err(|source| FormatError::io(&self.path, source))?;
        // The buffer is flushed only when full (a whole number of blocks) or at the
        // section's end, so its blocks are the section's.
        for block in self.buffer.chunks(CHECKSUM_BLOCK_BYTES as usize) {
            self.checksums.push(xxhash_rust::xxh3::xxh3_64(block))?;
        }
        self.written += self.buffer.len() as u64;
        self.buffer.clear();
        Ok(())
    }
}
