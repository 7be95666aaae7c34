//! Compressed neighbor lists (format versions 3 and 4): how they are laid out, written
//! and read.
//!
//! The lists of one direction are a byte stream cut into pages of [`LIST_PAGE_BYTES`].
//! A page holds whole *chunks*; a chunk is the part of one vertex's list on one page and
//! decodes from its own bytes and its vertex id alone, so a disk tier's read of any pages
//! (a gather, a partial scan, a far `GETRANGE`) decodes without the pages before them:
//!
//! ```text
//! chunk = varint(count << 1 | continues)   entries in this chunk; 1 if the list goes on
//!         varint(zigzag(first - vertex))   the chunk's first id, relative to its vertex
//!         gaps                             the other count - 1 ids as gaps minus one: blocks
//!                                          of 128 bit-packed at their widest gap, then the
//!                                          rest as the file's [`GapCoding`] says
//!         weights                          on a weighted graph, the chunk's count weights,
//!                                          f32 little-endian, beside their ids
//! ```
//!
//! A list starts where the one before it ended and crosses a page's end with a restart:
//! its next chunk begins at byte 0 of the next page. Where not even one entry fits before
//! a page's end, the list starts on the next page and the bytes between are zero padding,
//! never read. The codec was chosen by measurement (`docs/list-codecs.md`).
//!
//! `out_positions[v]` is the byte where `v`'s first chunk starts (an empty list has the
//! position of the next list, so positions never fall and the last is the stream's
//! length); `out_offsets` keep counting entries, so degrees and the order of entries are
//! as in a file with plain lists.

use crate::list_codec::{
    BitPackedBlocks, ListCodec, ListCodecError, TailCoding, first_id, get_varint, put_varint,
    varint_bytes, zigzag,
};
use crate::{FormatError, Result};

/// Bytes of one page of compressed lists, the unit every read decodes alone.
pub const LIST_PAGE_BYTES: u64 = 4096;

const PAGE: usize = LIST_PAGE_BYTES as usize;

/// The most ids a byte of lists decodes to: a block of 128 gaps of one packed at width 0
/// takes its width byte alone.
pub const MOST_IDS_A_BYTE: u64 = 128;

/// How a file's chunks code the gaps after their last whole block of 128.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GapCoding {
    /// Format version 3: in Stream VByte.
    StreamVByteTails,
    /// Format version 4: tails of [`PACKED_TAIL_GAPS`] gaps or more bit-packed at their
    /// widest gap (or in Stream VByte where that is smaller, a byte says which), shorter
    /// ones in Stream VByte. A uniform graph's lists of about 30 ids never fill a block,
    /// and Stream VByte spends whole bytes on each of their gaps.
    PackedTails,
}

/// Tails of at least this many gaps are bit-packed in format version 4: the least that
/// measured no larger than longer thresholds on any graph (`docs/list-codecs.md`).
pub const PACKED_TAIL_GAPS: usize = 4;

impl GapCoding {
    /// The coding of a file of format `version` (3 or later).
    pub fn of_version(version: u32) -> GapCoding {
        match version {
            ..=3 => GapCoding::StreamVByteTails,
            _ => GapCoding::PackedTails,
        }
    }

    /// The coding this build writes.
    pub const NEWEST: GapCoding = GapCoding::PackedTails;

    fn codec(self) -> BitPackedBlocks {
        BitPackedBlocks {
            tail: match self {
                GapCoding::StreamVByteTails => TailCoding::StreamVByte,
                GapCoding::PackedTails => TailCoding::PackedFrom(PACKED_TAIL_GAPS),
            },
        }
    }
}

/// The codec this build writes with.
const WRITTEN: BitPackedBlocks = BitPackedBlocks {
    tail: TailCoding::PackedFrom(PACKED_TAIL_GAPS),
};

/// Bytes a chunk holding `ids` of `vertex` takes, its header and weights included.
fn chunk_bytes(vertex: u32, ids: &[u32], weighted: bool, continues: bool) -> usize {
    let header = (ids.len() as u64) << 1 | u64::from(continues);
    varint_bytes(header)
        + varint_bytes(zigzag(i64::from(ids[0]) - i64::from(vertex)))
        + WRITTEN.body_bytes(ids)
        + if weighted { 4 * ids.len() } else { 0 }
}

/// The most entries from the front of `ids` whose chunk fits in `room` bytes (0 if none),
/// and whether more entries after `ids` could have changed that: a chunk's size does not
/// grow with every entry (128 entries bit-pack into fewer bytes than 127 in Stream
/// VByte), so the answer is the search's, which stops at the first count that does not
/// fit or at the end of `ids`.
fn entries_that_fit(vertex: u32, ids: &[u32], weighted: bool, room: usize) -> (usize, bool) {
    let fits =
        |count: usize| chunk_bytes(vertex, &ids[..count], weighted, count < ids.len()) <= room;
    if !fits(1) {
        return (0, false);
    }
    // Galloping, then halving: the work stays near the entries taken, however long the
    // list (a hub's list of millions of ids fills thousands of pages).
    let (mut fitting, mut too_many) = (1, 2);
    while too_many <= ids.len() && fits(too_many) {
        fitting = too_many;
        too_many *= 2;
    }
    let cut_by_end = too_many > ids.len();
    let mut too_many = too_many.min(ids.len() + 1);
    while too_many - fitting > 1 {
        let middle = (fitting + too_many) / 2;
        match fits(middle) {
            true => fitting = middle,
            false => too_many = middle,
        }
    }
    (fitting, cut_by_end)
}

/// Writes one direction's lists as compressed pages, list by list, in vertex order:
/// full pages go to the caller's `pages`, each list's position to its `positions`.
pub struct ListEncoder {
    /// The page being filled (less than a page).
    page: Vec<u8>,
    /// Bytes already handed out in full pages.
    emitted: u64,
    weighted: bool,
    /// Lists pushed without entries whose position waits for the next list's start.
    pending_empty: u64,
    next_vertex: u64,
    /// Entries of the open list (pushed in parts) not yet in a chunk: they may share
    /// their chunk with entries still to come.
    held_ids: Vec<u32>,
    /// Their weights, on a weighted graph.
    held_weights: Vec<f32>,
    /// Whether the open list's first chunk is written (its position given).
    list_started: bool,
    /// The open list's last id so far, which the next part must pass.
    last_id: Option<u32>,
}

impl ListEncoder {
    /// An encoder for lists with weights beside their ids when `weighted`.
    pub fn new(weighted: bool) -> ListEncoder {
        ListEncoder {
            page: Vec::with_capacity(PAGE),
            emitted: 0,
            weighted,
            pending_empty: 0,
            next_vertex: 0,
            held_ids: Vec::new(),
            held_weights: Vec::new(),
            list_started: false,
            last_id: None,
        }
    }

    /// Whether its lists carry weights.
    pub fn weighted(&self) -> bool {
        self.weighted
    }

    fn position(&self) -> u64 {
        self.emitted + self.page.len() as u64
    }

    /// Zero-fills the page being filled and hands it out.
    fn finish_page(&mut self, pages: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
        self.page.resize(PAGE, 0);
        pages(&self.page)?;
        self.emitted += PAGE as u64;
        self.page.clear();
        Ok(())
    }

    fn settle_empty(
        &mut self,
        start: u64,
        positions: &mut dyn FnMut(u64) -> Result<()>,
    ) -> Result<()> {
        for _ in 0..std::mem::take(&mut self.pending_empty) {
            positions(start)?;
        }
        Ok(())
    }

    /// Appends the next vertex's list (`ids` sorted and unique, `weights` beside them on
    /// a weighted graph): its position goes to `positions` (an empty list's once the next
    /// list's start is known), every page it fills to `pages`.
    pub fn push(
        &mut self,
        ids: &[u32],
        weights: Option<&[f32]>,
        pages: &mut dyn FnMut(&[u8]) -> Result<()>,
        positions: &mut dyn FnMut(u64) -> Result<()>,
    ) -> Result<()> {
        self.push_part(ids, weights, true, pages, positions)
    }

    /// Appends the next part of the next vertex's list, `ends` on its last part, as
    /// [`ListEncoder::push`] appends a whole one: a hub's list then never has to be held
    /// whole. The pages come out as if the list had been pushed at once.
    pub fn push_part(
        &mut self,
        ids: &[u32],
        weights: Option<&[f32]>,
        ends: bool,
        pages: &mut dyn FnMut(&[u8]) -> Result<()>,
        positions: &mut dyn FnMut(u64) -> Result<()>,
    ) -> Result<()> {
        let vertex = self.next_vertex as u32;
        let invalid = |detail: &str| FormatError::InvalidList {
            vertex,
            detail: detail.to_string(),
        };
        let after_last = |id: u32| self.last_id.is_none_or(|last| last < id);
        if ids.windows(2).any(|pair| pair[0] >= pair[1])
            || !ids.first().is_none_or(|&id| after_last(id))
        {
            return Err(invalid("its ids are not sorted and unique"));
        }
        if weights.is_some_and(|weights| weights.len() != ids.len())
            || weights.is_some() != self.weighted
        {
            return Err(invalid("its weights do not match its ids"));
        }
        if let Some(&last) = ids.last() {
            self.last_id = Some(last);
        }
        if self.held_ids.is_empty() {
            let used = self.encode(vertex, ids, weights, ends, pages, positions)?;
            self.held_ids.extend_from_slice(&ids[used..]);
            if let Some(weights) = weights {
                self.held_weights.extend_from_slice(&weights[used..]);
            }
        } else {
            let mut held_ids = std::mem::take(&mut self.held_ids);
            let mut held_weights = std::mem::take(&mut self.held_weights);
            held_ids.extend_from_slice(ids);
            if let Some(weights) = weights {
                held_weights.extend_from_slice(weights);
            }
            let held = self.weighted.then_some(&held_weights[..]);
            let used = self.encode(vertex, &held_ids, held, ends, pages, positions)?;
            held_ids.drain(..used);
            held_weights.drain(..used.min(held_weights.len()));
            (self.held_ids, self.held_weights) = (held_ids, held_weights);
        }
        if ends {
            debug_assert!(self.held_ids.is_empty());
            if !self.list_started {
                self.pending_empty += 1;
            }
            self.next_vertex += 1;
            self.list_started = false;
            self.last_id = None;
        }
        Ok(())
    }

    /// Writes chunks of `vertex`'s entries `ids` (the open list's next ones) and returns
    /// how many it wrote: all of them when the list `ends` with them, otherwise all but
    /// those that would end a chunk on a page with room left, which wait for more.
    fn encode(
        &mut self,
        vertex: u32,
        ids: &[u32],
        weights: Option<&[f32]>,
        ends: bool,
        pages: &mut dyn FnMut(&[u8]) -> Result<()>,
        positions: &mut dyn FnMut(u64) -> Result<()>,
    ) -> Result<usize> {
        let mut rest = 0;
        while rest < ids.len() {
            let room = PAGE - self.page.len();
            let (taken, cut_by_end) = entries_that_fit(vertex, &ids[rest..], self.weighted, room);
            if taken == 0 {
                // Only a list's first chunk can meet a page partly full.
                self.finish_page(pages)?;
                continue;
            }
            // Entries still to come could change the chunk: it waits for them, so that a
            // list pushed in parts is written as if pushed whole.
            if !ends && cut_by_end {
                break;
            }
            if !self.list_started {
                let start = self.position();
                self.settle_empty(start, positions)?;
                positions(start)?;
                self.list_started = true;
            }
            let chunk = &ids[rest..rest + taken];
            let continues = rest + taken < ids.len();
            put_varint((taken as u64) << 1 | u64::from(continues), &mut self.page);
            put_varint(
                zigzag(i64::from(chunk[0]) - i64::from(vertex)),
                &mut self.page,
            );
            WRITTEN.encode_body(chunk, &mut self.page);
            if let Some(weights) = weights {
                for weight in &weights[rest..rest + taken] {
                    self.page.extend_from_slice(&weight.to_le_bytes());
                }
            }
            rest += taken;
            if continues || self.page.len() == PAGE {
                self.finish_page(pages)?;
            }
        }
        Ok(rest)
    }

    /// Pads and hands out the last page, settles the positions of trailing empty lists
    /// and the end position, and returns the stream's length in bytes.
    pub fn finish(
        mut self,
        pages: &mut dyn FnMut(&[u8]) -> Result<()>,
        positions: &mut dyn FnMut(u64) -> Result<()>,
    ) -> Result<u64> {
        if self.list_started || !self.held_ids.is_empty() {
            return Err(FormatError::InvalidList {
                vertex: self.next_vertex as u32,
                detail: "its last part was never pushed".to_string(),
            });
        }
        if !self.page.is_empty() {
            self.finish_page(pages)?;
        }
        let end = self.position();
        self.settle_empty(end, positions)?;
        positions(end)?;
        Ok(end)
    }
}

/// Decodes at least `entries` entries (all of them when it has fewer) of `vertex`'s list,
/// whose first chunk starts at byte `start` of `stream` (byte 0 of `stream` lies on a
/// page boundary of the lists), coded in `coding`: appends `min(entries, degree)` ids to
/// `ids`, and their weights to `weights` when given. `degree` is the list's length from
/// the offsets: the chunks must add up to it, and `stream` must hold every chunk up to
/// the entries asked.
#[allow(clippy::too_many_arguments)]
pub fn decode_list(
    coding: GapCoding,
    stream: &[u8],
    start: usize,
    vertex: u32,
    degree: u64,
    entries: u64,
    ids: &mut Vec<u32>,
    weights: Option<&mut Vec<f32>>,
) -> std::result::Result<(), ListCodecError> {
    let at = ids.len();
    let written = decode_list_at(
        coding, stream, start, vertex, degree, entries, ids, at, weights,
    )?;
    ids.truncate(at + written);
    Ok(())
}

/// [`decode_list`] into a reused buffer: writes the ids over `ids[at..]`, growing `ids`
/// where it is too short but never shortening it, and returns how many it wrote. A
/// buffer kept at its longest is not filled before each list is decoded into it.
#[allow(clippy::too_many_arguments)]
pub fn decode_list_at(
    coding: GapCoding,
    stream: &[u8],
    start: usize,
    vertex: u32,
    degree: u64,
    entries: u64,
    ids: &mut Vec<u32>,
    at: usize,
    mut weights: Option<&mut Vec<f32>>,
) -> std::result::Result<usize, ListCodecError> {
    let wanted = entries.min(degree);
    let mut decoded = 0u64;
    let mut position = start;
    while decoded < wanted {
        let page_end = (position / PAGE + 1) * PAGE;
        let bytes = stream
            .get(position..page_end.min(stream.len()))
            .filter(|bytes| !bytes.is_empty())
            .ok_or(ListCodecError::Truncated { vertex })?;
        let chunk_at = at + decoded as usize;
        let previous = (decoded > 0).then(|| ids[chunk_at - 1]);
        let chunk_weights = weights.as_deref_mut();
        let (count, continues) = decode_chunk(
            coding,
            vertex,
            bytes,
            ids,
            chunk_at,
            previous,
            chunk_weights,
        )?;
        decoded += count;
        if decoded > degree || continues != (decoded < degree) {
            return Err(ListCodecError::CountMismatch { vertex, degree });
        }
        position = page_end;
    }
    if let Some(weights) = weights {
        weights.truncate(weights.len() - (decoded - wanted) as usize);
    }
    Ok(wanted as usize)
}

/// Decodes the chunk at the start of `bytes` (which end where its page ends), coded in
/// `coding`, writing its ids over `ids[at..]` (grown where too short) and appending its
/// weights to `weights` when given; `previous` is the last id of the list's chunk before
/// it, which its ids must rise above. Returns its count and whether the list continues.
#[inline]
pub(crate) fn decode_chunk(
    coding: GapCoding,
    vertex: u32,
    bytes: &[u8],
    ids: &mut Vec<u32>,
    at: usize,
    previous: Option<u32>,
    weights: Option<&mut Vec<f32>>,
) -> std::result::Result<(u64, bool), ListCodecError> {
    let truncated = ListCodecError::Truncated { vertex };
    let mut position = 0;
    let header = get_varint(bytes, &mut position).ok_or(truncated.clone())?;
    let count = header >> 1;
    if count == 0 || count > LIST_PAGE_BYTES * MOST_IDS_A_BYTE {
        return Err(truncated);
    }
    let coded = get_varint(bytes, &mut position).ok_or(truncated)?;
    let first = first_id(vertex, coded).ok_or(ListCodecError::IdOverflow { vertex })?;
    if previous.is_some_and(|last| first <= last) {
        return Err(ListCodecError::OutOfOrder { vertex });
    }
    let end = at + count as usize;
    if ids.len() < end {
        ids.resize(end, 0);
    }
    let chunk = &mut ids[at..end];
    chunk[0] = first;
    position += coding
        .codec()
        .decode_body(first, &bytes[position..], &mut chunk[1..])
        .ok_or(ListCodecError::Truncated { vertex })?;
    if let Some(weights) = weights {
        let raw = bytes
            .get(position..position + 4 * count as usize)
            .ok_or(ListCodecError::Truncated { vertex })?;
        weights.extend(
            raw.chunks_exact(4)
                .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]])),
        );
    }
    Ok((count, header & 1 == 1))
}

#[cfg(test)]
mod tests;
