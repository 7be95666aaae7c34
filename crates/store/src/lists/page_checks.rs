//! Checks the pages a disk tier reads against the file's per-page checksums before a
//! kernel sees them, so a corrupt file fails the run instead of changing its answer.
//!
//! Each page of a file is checked the first time it is read in a run: a file that
//! changes under a run is caught by the run's change watch (a truncation apart), and
//! hashing every read again would cost a streamed PageRank a pass's worth of hashing
//! per iteration for nothing. A page of a source nothing watches (a far value, which any
//! client can rewrite) is checked every time it lands. A page of ids is also checked to
//! hold only vertices whenever it is hashed, while it is in the CPU's cache: checking
//! every list at every delivery instead took 4% of a streamed PageRank's time.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use swapless_format::{CHECKSUM_BLOCK_BYTES, FormatError, GraphFile, SectionKind};

use crate::Result;
use crate::lists::delivery::holds_id_beyond;
use crate::units::PAGE;

/// The checksums of one list section's pages, and which pages this run has checked.
pub(crate) struct PageChecks {
    path: PathBuf,
    kind: SectionKind,
    /// Where the section starts in the file (for error messages).
    section_offset: u64,
    section_bytes: u64,
    /// One checksum a page; empty for a version-1 file, whose 1 MiB blocks no read
    /// of a page or a chunk covers (its reads are only range-checked).
    checksums: Vec<u64>,
    /// One bit a page, set once the page has passed.
    checked: Vec<AtomicU64>,
    /// For a section of ids (neighbors, heads): the vertex count every id is below.
    ids_below: Option<usize>,
    /// Set when every read is checked, not only each page's first: from the start for a
    /// source that may change unnoticed, or once a page has failed and been read again
    /// from a second copy (the source may serve the damaged bytes again).
    every_read: AtomicBool,
}

impl PageChecks {
    /// Memory that checking a list section of `section_bytes` holds: a checksum and a
    /// bit a page. The plan counts it for each section a disk tier reads.
    pub fn held_bytes(section_bytes: u64) -> u64 {
        let pages = section_bytes.div_ceil(PAGE);
        pages * 8 + pages.div_ceil(64) * 8
    }

    /// Checks of nothing, for a section the run does not read.
    fn none(graph: &GraphFile, kind: SectionKind) -> PageChecks {
        PageChecks {
            path: graph.path().to_path_buf(),
            kind,
            section_offset: 0,
            section_bytes: 0,
            checksums: Vec::new(),
            checked: Vec::new(),
            ids_below: None,
            every_read: AtomicBool::new(false),
        }
    }

    /// Whether `graph` has a checksum a page (format version 2 on).
    pub fn available(graph: &GraphFile) -> bool {
        graph.checksum_block_bytes() == CHECKSUM_BLOCK_BYTES
    }

    /// Loads the page checksums of section `kind` of `graph`.
    pub fn load(graph: &GraphFile, kind: SectionKind) -> Result<PageChecks> {
        let entry = graph.required_section(kind)?;
        let checksums = match Self::available(graph) {
            true => graph.load_block_checksums(kind)?.unwrap_or_default(),
            false => Vec::new(),
        };
        let checked = (0..checksums.len().div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        // Compressed ids are checked once decoded, at delivery.
        let holds_ids = match kind {
            SectionKind::OutNeighbors | SectionKind::InNeighbors => !graph.lists_compressed(),
            SectionKind::OutHeads => true,
            _ => false,
        };
        Ok(PageChecks {
            path: graph.path().to_path_buf(),
            kind,
            section_offset: entry.offset,
            section_bytes: entry.length,
            checksums,
            checked,
            ids_below: holds_ids.then(|| graph.num_vertices()),
            every_read: AtomicBool::new(false),
        })
    }

    /// Checks the pages of `bytes`, which hold the section from `start` (a page
    /// boundary) on, skipping pages checked before; a page `bytes` holds only part of
    /// (before the section's end) is left for a read that holds all of it. Returns
    /// whether every page `bytes` holds of the section has now passed, ids included:
    /// if so, the lists it holds need no further check of their ids.
    pub fn check(&self, start: u64, bytes: &[u8]) -> Result<bool> {
        if self.checksums.is_empty() {
            return Ok(false);
        }
        debug_assert!(start.is_multiple_of(PAGE));
        let first = start / PAGE;
        let mut all_passed = true;
        for (index, page) in bytes.chunks(PAGE as usize).enumerate() {
            let page_index = first + index as u64;
            let page_start = page_index * PAGE;
            if page_start >= self.section_bytes {
                break;
            }
            let length = (self.section_bytes - page_start).min(PAGE) as usize;
            if page.len() < length {
                all_passed = false;
                continue;
            }
            if self.is_checked(page_index) {
                continue;
            }
            let page = &page[..length];
            if xxhash_rust::xxh3::xxh3_64(page) != self.checksums[page_index as usize] {
                return Err(self.mismatch(page_index, length as u64));
            }
            if let Some(vertices) = self.ids_below
                && holds_id_at_or_above(page, vertices)
            {
                return Err(self.id_beyond(page_index, length as u64));
            }
            self.checked[(page_index / 64) as usize]
                .fetch_or(1 << (page_index % 64), Ordering::Relaxed);
        }
        Ok(all_passed)
    }

    /// Checks the pages of section bytes `range`, given the whole section as `section`
    /// (a map of it); returns whether they have all passed, as [`PageChecks::check`].
    pub fn check_range(&self, section: &[u8], range: std::ops::Range<u64>) -> Result<bool> {
        if self.checksums.is_empty() {
            return Ok(false);
        }
        if range.is_empty() {
            return Ok(true);
        }
        let start = range.start / PAGE * PAGE;
        let end = (range.end.div_ceil(PAGE) * PAGE).min(section.len() as u64);
        self.check(start, &section[start as usize..end as usize])
    }

    fn is_checked(&self, page_index: u64) -> bool {
        !self.every_read.load(Ordering::Relaxed)
            && self.checked[(page_index / 64) as usize].load(Ordering::Relaxed)
                & (1 << (page_index % 64))
                != 0
    }

    /// The error for a page whose checksum matches but which holds an id that is no vertex
    /// (a crafted file, or one a buggy writer made).
    fn id_beyond(&self, page_index: u64, length: u64) -> crate::StoreError {
        let start = self.section_offset + page_index * PAGE;
        FormatError::Corrupt {
            path: self.path.clone(),
            detail: format!(
                "section {} holds an id beyond the vertices (bytes {start}..{} of the file)",
                self.kind.name(),
                start + length
            ),
        }
        .into()
    }

    fn mismatch(&self, page_index: u64, length: u64) -> crate::StoreError {
        let start = self.section_offset + page_index * PAGE;
        FormatError::ChecksumMismatch {
            path: self.path.clone(),
            section: self.kind.name().to_string(),
            block: page_index,
            start,
            end: start + length,
        }
        .into()
    }
}

/// Whether `page`, u32 ids, holds one at or above `vertices`.
fn holds_id_at_or_above(page: &[u8], vertices: usize) -> bool {
    // The tiers' pages are aligned (maps, aligned buffers); any other slice is copied
    // to an aligned page first.
    match bytemuck::try_cast_slice::<u8, u32>(page) {
        Ok(ids) => holds_id_beyond(ids, vertices),
        Err(_) => {
            let mut ids = [0u32; (PAGE / 4) as usize];
            let count = page.len() / 4;
            for (id, bytes) in ids.iter_mut().zip(page.chunks_exact(4)) {
                *id = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            }
            holds_id_beyond(&ids[..count], vertices)
        }
    }
}

/// The checks of one direction's lists: their neighbors, and their weights when the run
/// reads them.
pub(crate) struct ListChecks {
    neighbors: PageChecks,
    weights: Option<PageChecks>,
}

impl ListChecks {
    /// Loads the checksums of list sections `kinds` (offsets, neighbors, weights) of
    /// `graph` that the run reads (and the plan counts the memory of): none unless `read`
    /// (a direction the run does not read), the weights' only when `weighted`.
    pub fn load(
        graph: &GraphFile,
        kinds: [SectionKind; 3],
        read: bool,
        weighted: bool,
    ) -> Result<ListChecks> {
        let load = |kind| match read {
            true => PageChecks::load(graph, kind),
            false => Ok(PageChecks::none(graph, kind)),
        };
        Ok(ListChecks {
            neighbors: load(kinds[1])?,
            weights: match weighted {
                true => Some(load(kinds[2])?),
                false => None,
            },
        })
    }

    /// Checks of the `out_heads` section's pages (which has no weights).
    pub fn heads(graph: &GraphFile) -> Result<ListChecks> {
        Ok(ListChecks {
            neighbors: PageChecks::load(graph, SectionKind::OutHeads)?,
            weights: None,
        })
    }

    /// Checks every read from now on, not only each page's first: the source may change
    /// unnoticed, or a page failed and was read from a second copy, and the first may
    /// serve its damaged bytes again.
    pub fn check_every_read(&self) {
        for checks in std::iter::once(&self.neighbors).chain(&self.weights) {
            checks.every_read.store(true, Ordering::Relaxed);
        }
    }

    /// Checks a read of the lists from section position `start`: `neighbors`, and
    /// `weights` (the same positions of the weight section). Returns whether every id
    /// the read holds has passed (see [`PageChecks::check`]).
    pub fn check(&self, start: u64, neighbors: &[u8], weights: Option<&[u8]>) -> Result<bool> {
        let ids_passed = self.neighbors.check(start, neighbors)?;
        if let (Some(checks), Some(weights)) = (&self.weights, weights) {
            checks.check(start, weights)?;
        }
        Ok(ids_passed)
    }

    /// Checks section bytes `range` of mapped sections `neighbors` and `weights`.
    pub fn check_range(
        &self,
        neighbors: &[u8],
        weights: Option<&[u8]>,
        range: std::ops::Range<u64>,
    ) -> Result<bool> {
        let ids_passed = self.neighbors.check_range(neighbors, range.clone())?;
        if let (Some(checks), Some(weights)) = (&self.weights, weights) {
            checks.check_range(weights, range)?;
        }
        Ok(ids_passed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks of a section of `bytes`, with the checksums of its pages.
    fn checks_of(bytes: &[u8]) -> PageChecks {
        let checksums: Vec<u64> = bytes
            .chunks(PAGE as usize)
            .map(xxhash_rust::xxh3::xxh3_64)
            .collect();
        PageChecks {
            path: PathBuf::from("g.sl"),
            kind: SectionKind::OutNeighbors,
            section_offset: 8192,
            section_bytes: bytes.len() as u64,
            checked: (0..checksums.len().div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            checksums,
            ids_below: None,
            every_read: AtomicBool::new(false),
        }
    }

    #[test]
    fn pages_pass_once_and_a_changed_page_is_named() {
        // Three pages and a half; reads of whole pages, the last padded past the end.
        let section: Vec<u8> = (0..PAGE as usize * 7 / 2)
            .map(|i| (i % 251) as u8)
            .collect();
        let checks = checks_of(&section);
        let mut padded = section.clone();
        padded.resize(PAGE as usize * 4, 0xee);
        assert!(checks.check(0, &padded[..PAGE as usize * 2]).unwrap());
        assert!(checks.is_checked(0) && checks.is_checked(1) && !checks.is_checked(2));
        assert!(
            checks
                .check(PAGE * 2, &padded[PAGE as usize * 2..])
                .unwrap()
        );
        assert!(
            checks.is_checked(3),
            "the last page is checked up to the section's end"
        );

        let mut changed = padded.clone();
        changed[PAGE as usize * 2 + 5] ^= 1;
        let fresh = checks_of(&section);
        let error = fresh.check(0, &changed).unwrap_err().to_string();
        assert!(
            error.contains("block 2 of section out_neighbors")
                && error.contains(&format!("bytes {}..{}", 8192 + PAGE * 2, 8192 + PAGE * 3)),
            "{error}"
        );
        // A page checked before is not hashed again (a run reads the same file).
        checks
            .check(PAGE * 2, &changed[PAGE as usize * 2..])
            .unwrap();
    }

    #[test]
    fn a_page_of_a_source_that_may_change_is_checked_every_time_it_lands() {
        let ids: Vec<u32> = (0..PAGE as u32 / 4 * 2).map(|i| i % 1000).collect();
        let section: Vec<u8> = bytemuck::cast_slice(&ids).to_vec();
        let mut checks = checks_of(&section);
        checks.ids_below = Some(1000);
        let checks = ListChecks {
            neighbors: checks,
            weights: None,
        };
        checks.check_every_read();
        assert!(checks.check(0, &section, None).unwrap());
        // The same page rewritten after it passed, with an id beyond the vertices: it
        // fails now, where a file's page is not hashed again.
        let mut rewritten = section.clone();
        rewritten[PAGE as usize + 8..PAGE as usize + 12].copy_from_slice(&5000u32.to_le_bytes());
        let error = checks.check(0, &rewritten, None).unwrap_err().to_string();
        assert!(
            error.contains("block 1 of section out_neighbors"),
            "{error}"
        );
    }

    #[test]
    fn a_page_held_only_in_part_is_left_for_a_whole_read() {
        let section: Vec<u8> = (0..PAGE as usize * 2).map(|i| (i % 13) as u8).collect();
        let checks = checks_of(&section);
        let all_passed = checks.check(0, &section[..PAGE as usize + 100]).unwrap();
        assert!(!all_passed, "ids on the part page are not vouched for");
        assert!(checks.is_checked(0) && !checks.is_checked(1));
        assert!(checks.check_range(&section, PAGE + 10..PAGE + 20).unwrap());
        assert!(checks.is_checked(1));
    }

    #[test]
    fn a_page_of_ids_passes_only_if_every_id_is_a_vertex() {
        let ids: Vec<u32> = (0..PAGE as u32 / 4 * 2).map(|i| i % 1000).collect();
        let mut section: Vec<u8> = bytemuck::cast_slice(&ids).to_vec();
        let mut checks = checks_of(&section);
        checks.ids_below = Some(1000);
        assert!(checks.check(0, &section).unwrap());

        // The second page's last id is the vertex count: its checksum matches (the file
        // was written so), the page does not pass.
        let last = section.len() - 4;
        section[last..].copy_from_slice(&1000u32.to_le_bytes());
        let mut checks = checks_of(&section);
        checks.ids_below = Some(1000);
        let error = checks.check(0, &section).unwrap_err().to_string();
        assert!(
            error.contains("section out_neighbors holds an id beyond the vertices")
                && error.contains(&format!("bytes {}..{}", 8192 + PAGE, 8192 + 2 * PAGE)),
            "{error}"
        );
        assert!(checks.is_checked(0) && !checks.is_checked(1));
        // The same ids from a slice not aligned for u32 (the byte-wise path).
        let mut unaligned = vec![0u8; section.len() + 1];
        unaligned[1..].copy_from_slice(&section);
        assert!(holds_id_at_or_above(&unaligned[1 + PAGE as usize..], 1000));
        assert!(!holds_id_at_or_above(
            &unaligned[1..1 + PAGE as usize],
            1000
        ));
    }
}
