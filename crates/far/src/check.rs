//! Checking a far graph in full: every chunk against the manifest's checksum, and every
//! page of every section against the page checksums of the `.sl` file it holds.
//!
//! A chunk checksum only says a chunk is what the push sent; the page checksums say the
//! file sent was whole. The header and the checksum section are fetched first into a
//! sparse temporary file and checked against the manifest's fingerprint (which covers
//! both); then the chunks stream through a window, each page checked as it passes.

use std::os::unix::fs::FileExt;
use std::time::Duration;

use swapless_format::{FormatError, GraphFile, SectionKind};

use crate::cluster::Cluster;
use crate::manifest::{Manifest, fingerprint_hex};
use crate::upload::{per_node, stored};
use crate::{FarAddress, FarError};
use swapless_store::{Result, StoreError};

/// Bytes of chunks fetched at once.
const WINDOW_BYTES: u64 = 8 << 20;

/// What a check of a far graph covered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FarCheck {
    /// Chunks checked against the manifest's checksums.
    pub chunks: u64,
    /// Pages (checksum blocks) checked against the file's page checksums.
    pub pages: u64,
}

/// Reads every chunk of the graph `address` names, a window at a time, and checks each
/// against the manifest's checksum and each page against the file's page checksums.
pub fn check(address: &FarAddress, timeout: Duration) -> Result<FarCheck> {
    let (cluster, manifest) = stored(address, timeout)?;
    let reader = ChunkReader {
        cluster: &cluster,
        manifest: &manifest,
        name: &address.name,
    };
    let temporary = tempfile::NamedTempFile::new().map_err(|source| StoreError::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    let io = |source| StoreError::Io {
        path: temporary.path().to_path_buf(),
        source,
    };
    let file = temporary.as_file();
    file.set_len(manifest.file_bytes).map_err(io)?;
    let mut regions = vec![(0, manifest.header_bytes())];
    regions.extend(
        manifest
            .sections
            .iter()
            .filter(|section| section.name == SectionKind::Checksums.name())
            .map(|section| (section.offset, section.length)),
    );
    for (offset, length) in regions {
        reader.stream(offset, offset + length, &mut |position, bytes| {
            let start = position.max(offset);
            let end = (position + bytes.len() as u64).min(offset + length);
            let piece = &bytes[(start - position) as usize..(end - position) as usize];
            file.write_all_at(piece, start).map_err(io)
        })?;
    }
    let graph = GraphFile::open_bounded(temporary.path(), WINDOW_BYTES)
        .map_err(|error| reader.unreadable(error))?;
    let found = fingerprint_hex(graph.fingerprint());
    if found != manifest.fingerprint {
        return Err(reader.damaged(
            0,
            format!(
                "the file's header and page checksums give fingerprint {found}, not the \
                 manifest's {}",
                manifest.fingerprint
            ),
        ));
    }
    let mut pages = PageStream::new(&graph, &address.name, &manifest)?;
    reader.stream(0, manifest.file_bytes, &mut |position, bytes| {
        pages
            .feed(position, bytes)
            .map_err(|error| reader.unreadable(error))
    })?;
    Ok(FarCheck {
        chunks: manifest.chunks(),
        pages: pages.verified,
    })
}

/// Fetches a far graph's chunks and checks each against the manifest.
struct ChunkReader<'a> {
    cluster: &'a Cluster,
    manifest: &'a Manifest,
    name: &'a str,
}

impl ChunkReader<'_> {
    /// Calls `visit(file position, chunk)` with each chunk that holds bytes of
    /// `start..end`, in order, each checked against the manifest's checksum.
    fn stream(
        &self,
        start: u64,
        end: u64,
        visit: &mut dyn FnMut(u64, &[u8]) -> Result<()>,
    ) -> Result<()> {
        let manifest = self.manifest;
        if start >= end {
            return Ok(());
        }
        let window = (WINDOW_BYTES / manifest.chunk_bytes).max(1);
        let last = (end - 1) / manifest.chunk_bytes;
        let mut first = start / manifest.chunk_bytes;
        while first <= last {
            let through = (first + window - 1).min(last);
            let keys = manifest.chunk_keys(self.name, first..through + 1);
            let values = per_node(self.cluster, &keys, &|_, key| {
                let mut command = redis::cmd("GET");
                command.arg(key);
                command
            })?;
            for ((index, key), value) in (first..=through).zip(&keys).zip(values) {
                let node = || self.cluster.owner_of(key.as_bytes()).1;
                let redis::Value::BulkString(bytes) = value else {
                    return Err(FarError::MissingKey {
                        node: node(),
                        key: key.clone(),
                    }
                    .into());
                };
                let range = manifest.chunk_range(index);
                if bytes.len() as u64 != range.end - range.start
                    || xxhash_rust::xxh3::xxh3_64(&bytes)
                        != manifest.chunk_checksums[index as usize]
                {
                    return Err(FarError::Damaged {
                        node: node(),
                        key: key.clone(),
                        detail: "it does not match the manifest's checksum".to_string(),
                    }
                    .into());
                }
                visit(range.start, &bytes)?;
            }
            first = through + 1;
        }
        Ok(())
    }

    /// The error for the chunk holding file position `position`, damaged as `detail` says.
    fn damaged(&self, position: u64, detail: String) -> StoreError {
        let key = self
            .manifest
            .chunk_key(self.name, position / self.manifest.chunk_bytes);
        let node = self.cluster.owner_of(key.as_bytes()).1;
        FarError::Damaged { node, key, detail }.into()
    }

    /// A format error met in the graph's bytes, named by the key that holds them (not
    /// the temporary file the check reads them through).
    fn unreadable(&self, error: FormatError) -> StoreError {
        match error {
            FormatError::ChecksumMismatch {
                section,
                block,
                start,
                ..
            } => self.damaged(
                start,
                format!(
                    "page {block} of section {section} (byte {start} of the file) fails its \
                     checksum"
                ),
            ),
            other => self.damaged(0, format!("the file it holds cannot be read: {other}")),
        }
    }
}

/// Checks a file's sections page by page as its bytes pass in file order, holding at
/// most one page that a chunk's end splits.
struct PageStream<'a> {
    graph: &'a GraphFile,
    /// The checked sections by offset: kind, offset, length.
    sections: Vec<(SectionKind, u64, u64)>,
    block_bytes: u64,
    /// The start of a page that a chunk's end split (in its section) and its bytes so far.
    partial: (u64, Vec<u8>),
    /// Pages checked.
    verified: u64,
}

impl<'a> PageStream<'a> {
    /// A stream over every section of `graph` but the checksums (which the fingerprint
    /// covers).
    fn new(graph: &'a GraphFile, name: &str, manifest: &Manifest) -> Result<PageStream<'a>> {
        let mut sections = Vec::new();
        for section in &manifest.sections {
            let kind =
                SectionKind::from_name(&section.name).ok_or_else(|| FarError::BadManifest {
                    name: name.to_string(),
                    detail: format!("it names an unknown section {:?}", section.name),
                })?;
            if kind != SectionKind::Checksums {
                sections.push((kind, section.offset, section.length));
            }
        }
        sections.sort_by_key(|&(_, offset, _)| offset);
        Ok(PageStream {
            graph,
            sections,
            block_bytes: graph.checksum_block_bytes(),
            partial: (0, Vec::new()),
            verified: 0,
        })
    }

    /// Checks the pages `bytes` (at file `position`, following what came before) ends.
    fn feed(&mut self, position: u64, bytes: &[u8]) -> std::result::Result<(), FormatError> {
        let end = position + bytes.len() as u64;
        for index in 0..self.sections.len() {
            let (kind, offset, length) = self.sections[index];
            let (from, to) = (position.max(offset), end.min(offset + length));
            if from >= to {
                continue;
            }
            let mut piece = &bytes[(from - position) as usize..(to - position) as usize];
            let mut at = from - offset;
            let section_ends = to == offset + length;
            if !self.partial.1.is_empty() {
                let (start, mut page) = std::mem::take(&mut self.partial);
                let take = ((self.block_bytes as usize) - page.len()).min(piece.len());
                page.extend_from_slice(&piece[..take]);
                piece = &piece[take..];
                at += take as u64;
                self.check(kind, start, page, section_ends && piece.is_empty())?;
            }
            let whole = piece.len() - piece.len() % self.block_bytes as usize;
            let whole = if section_ends { piece.len() } else { whole };
            if whole > 0 {
                self.graph.verify_blocks(kind, at, &piece[..whole])?;
                self.verified += (whole as u64).div_ceil(self.block_bytes);
            }
            if whole < piece.len() {
                self.partial = (at + whole as u64, piece[whole..].to_vec());
            }
        }
        Ok(())
    }

    /// Checks `page` at `start` in section `kind` if it is whole (or the section's last);
    /// keeps it for the next bytes if not.
    fn check(
        &mut self,
        kind: SectionKind,
        start: u64,
        page: Vec<u8>,
        last: bool,
    ) -> std::result::Result<(), FormatError> {
        if page.len() as u64 == self.block_bytes || last {
            self.graph.verify_blocks(kind, start, &page)?;
            self.verified += 1;
        } else {
            self.partial = (start, page);
        }
        Ok(())
    }
}
