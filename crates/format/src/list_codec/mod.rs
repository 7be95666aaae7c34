//! Candidate encodings of neighbor lists for format v3, measured side by side before one
//! is chosen (issue 42; `benches/list_codecs.rs` prints the table, `docs/list-codecs.md`
//! keeps it). Nothing here is read or written by the `.sl` reader or writer yet.
//!
//! # Page layout, shared by every codec
//!
//! The encoded lists are one byte stream cut into pages of [`PAGE_BYTES`]. A page holds
//! whole *chunks*; a chunk is the part of one vertex's list that lies on one page, and
//! decodes with nothing but its own bytes and its vertex id:
//!
//! ```text
//! chunk = varint(count << 1 | continues)   ids in this chunk; 1 if the list goes on
//!         varint(zigzag(first - vertex))   the chunk's first id, relative to its vertex
//!         body                             the other count - 1 ids as gaps minus one,
//!                                          in the codec's own form
//! ```
//!
//! Lists are sorted and unique, so every gap is at least one and is stored as `gap - 1`.
//! The first id of a chunk is coded against the vertex id rather than the previous id,
//! so a page never needs the page before it (graphs with locality, such as grids, also
//! get a small number there).
//!
//! Where a reader finds a list: `offsets[v]` is the byte position of vertex `v`'s first
//! chunk in the stream, so its page is `offsets[v] / PAGE_BYTES` and its place in the page
//! the remainder. An empty list has no chunk and `offsets[v] == offsets[v + 1]`. A chunk
//! whose `continues` bit is set is followed by the list's next chunk at byte 0 of the next
//! page: a reader of a long list reads consecutive pages, each decoding alone. The bytes
//! after a page's last chunk are zero padding, never read: a reader always knows where
//! each chunk starts and how many ids it holds.
//!
//! By default ([`PagePolicy::KeepShortListsWhole`]) the writer never splits a list that
//! fits in one page: it pads to the next page instead, so a gather of a short list reads
//! exactly one page. A list longer than a page starts where the stream is and continues
//! page by page, each page full of its ids. [`PagePolicy::FillPages`] splits any list at
//! a page's end instead, trading the padding for a restart and for short lists that a
//! gather reads in two pages.
//!
//! The degree of a vertex is the sum of its chunks' counts: a kernel that needs degrees
//! without reading lists would keep them apart (a question for the format itself).

mod bit_packed;
mod byte_code;
mod packed_tail;
mod stream_vbyte;
#[cfg(test)]
mod tests;

pub use bit_packed::{BitPackedBlocks, TailCoding};
pub use byte_code::ByteCode;
pub use stream_vbyte::StreamVByte;

/// The unit of the stream: every page decodes alone.
pub const PAGE_BYTES: usize = 4096;

/// What can be wrong in encoded bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListCodecError {
    /// A chunk claims more bytes than its page holds, a bit width no gap can have, or
    /// gaps that add up past `u32::MAX` (which would wrap its ids out of order).
    #[error(
        "a chunk of vertex {vertex}'s list does not decode within its page (it runs past the page's end, names a bit width above 32, or its gaps add up past u32::MAX)"
    )]
    Truncated {
        /// The vertex whose chunk was being decoded.
        vertex: u32,
    },
    /// A chunk's first id, decoded from its vertex id, does not fit in 32 bits. (Gaps add
    /// up in wrapping arithmetic on the decoders' hot path; a damaged body is the job of
    /// the checksums and of `check`'s sorted-and-in-range test.)
    #[error("vertex {vertex}'s list decodes to an id outside 0..=u32::MAX")]
    IdOverflow {
        /// The vertex whose chunk was being decoded.
        vertex: u32,
    },
    /// A list's chunks do not add up to its degree, or one says the list goes on past it.
    #[error("vertex {vertex}'s chunks do not hold the {degree} entries its offsets give")]
    CountMismatch {
        /// The vertex whose list was being decoded.
        vertex: u32,
        /// Its degree from the offsets.
        degree: u64,
    },
    /// A list's next chunk does not start above where the one before it ended.
    #[error("vertex {vertex}'s list falls back where it goes on to its next page")]
    OutOfOrder {
        /// The vertex whose list was being decoded.
        vertex: u32,
    },
    /// A non-empty list's offset lies past the end of the encoded stream.
    #[error("vertex {vertex}'s offset {offset} lies past the encoded lists' end")]
    OffsetOutOfRange {
        /// The vertex whose list was asked for.
        vertex: u32,
        /// Its offset.
        offset: u64,
    },
}

/// One way to code the ids of a chunk after its first: the part each candidate differs in.
pub trait ListCodec {
    /// The candidate's name in tables.
    fn name(&self) -> &'static str;

    /// Bytes the gaps of `ids` (sorted, unique; every id after the first) take in this
    /// codec, with `ids[0]` as the id before them.
    fn body_bytes(&self, ids: &[u32]) -> usize;

    /// Appends the body coding `ids[1..]` after `ids[0]`.
    fn encode_body(&self, ids: &[u32], out: &mut Vec<u8>);

    /// Decodes the `out.len()` ids following `first` from the start of `bytes` into `out`;
    /// returns the bytes read, or `None` when `bytes` ends too soon.
    fn decode_body(&self, first: u32, bytes: &[u8], out: &mut [u32]) -> Option<usize>;
}

/// Every candidate, in table order.
pub fn candidates() -> Vec<Box<dyn ListCodec + Send + Sync>> {
    vec![
        Box::new(ByteCode),
        Box::new(StreamVByte { ssse3: false }),
        Box::new(StreamVByte { ssse3: true }),
        Box::new(BitPackedBlocks {
            tail: TailCoding::Leb128,
        }),
        Box::new(BitPackedBlocks {
            tail: TailCoding::StreamVByte,
        }),
        Box::new(BitPackedBlocks {
            tail: TailCoding::PackedFrom(4),
        }),
        Box::new(BitPackedBlocks {
            tail: TailCoding::PackedFrom(16),
        }),
    ]
}

/// A graph's lists in one codec: the paged stream and where each list starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedLists {
    /// The stream, a whole number of pages.
    pub bytes: Vec<u8>,
    /// `n + 1` byte positions: vertex `v`'s first chunk starts at `offsets[v]`.
    pub offsets: Vec<u64>,
    /// Bytes of `bytes` that are padding after a page's last chunk.
    pub padding_bytes: u64,
}

/// The part of one list found on one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageChunk {
    /// Whose list.
    pub vertex: u32,
    /// Where its ids on this page lie in the ids [`decode_page`] appended to.
    pub ids: std::ops::Range<usize>,
}

/// Appends LEB128: seven bits a byte, low first, the high bit set on all but the last.
pub fn put_varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Bytes [`put_varint`] writes for `value`.
pub(crate) fn varint_bytes(value: u64) -> usize {
    (64 - (value | 1).leading_zeros() as usize).div_ceil(7)
}

/// Reads one LEB128 value at `*position`, moving past it; `None` if `bytes` ends first
/// or the value passes 64 bits.
#[inline(always)]
pub fn get_varint(bytes: &[u8], position: &mut usize) -> Option<u64> {
    let first = *bytes.get(*position)?;
    if first < 0x80 {
        *position += 1;
        return Some(u64::from(first));
    }
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = *bytes.get(*position)?;
        *position += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(value);
        }
        shift += 7;
        if shift >= 64 {
            return None;
        }
    }
}

pub(crate) fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

pub(crate) fn unzigzag(value: u64) -> i64 {
    (value >> 1) as i64 ^ -((value & 1) as i64)
}

/// Whether `ids` rise strictly from `before`: gaps add up in 32 bits, so a forged page
/// could otherwise wrap its ids round into a list out of order (which kernels that merge
/// lists, such as triangle counting, would count from without a word). The decoders ask
/// only where a wrap is possible at all.
pub(crate) fn rise_from(before: u32, ids: &[u32]) -> bool {
    let mut last = before;
    ids.iter().all(|&id| {
        let rises = id > last;
        last = id;
        rises
    })
}

/// Whether `gaps` gaps of at most `2^width` each, added to `before`, could pass
/// `u32::MAX`.
pub(crate) fn may_wrap(before: u32, gaps: usize, width: u32) -> bool {
    u64::from(before) + ((gaps as u64) << width) > u64::from(u32::MAX)
}

/// A chunk's first id from its coded offset to `vertex` (zigzag), or `None` when it
/// lies outside `0..=u32::MAX` (a damaged varint may say anything up to `2^64 - 1`).
pub(crate) fn first_id(vertex: u32, coded: u64) -> Option<u32> {
    i64::from(vertex)
        .checked_add(unzigzag(coded))
        .and_then(|id| u32::try_from(id).ok())
}

/// Bytes a chunk holding `ids` of `vertex` takes, its header included.
fn chunk_bytes(codec: &dyn ListCodec, vertex: u32, ids: &[u32], continues: bool) -> usize {
    let header = (ids.len() as u64) << 1 | u64::from(continues);
    varint_bytes(header)
        + varint_bytes(zigzag(i64::from(ids[0]) - i64::from(vertex)))
        + codec.body_bytes(ids)
}

fn encode_chunk(
    codec: &dyn ListCodec,
    vertex: u32,
    ids: &[u32],
    continues: bool,
    out: &mut Vec<u8>,
) {
    put_varint((ids.len() as u64) << 1 | u64::from(continues), out);
    put_varint(zigzag(i64::from(ids[0]) - i64::from(vertex)), out);
    codec.encode_body(ids, out);
}

/// Decodes the chunk at the start of `bytes` (which ends where its page ends), appending
/// its ids to `out`; returns whether the list continues on the next page.
fn decode_chunk(
    codec: &dyn ListCodec,
    vertex: u32,
    bytes: &[u8],
    out: &mut Vec<u32>,
) -> Result<bool, ListCodecError> {
    let truncated = ListCodecError::Truncated { vertex };
    let mut position = 0;
    let header = get_varint(bytes, &mut position).ok_or(truncated.clone())?;
    let coded = get_varint(bytes, &mut position).ok_or(truncated)?;
    let first = first_id(vertex, coded).ok_or(ListCodecError::IdOverflow { vertex })?;
    let count = (header >> 1) as usize;
    let at = out.len();
    out.resize(at + count.max(1), first);
    codec
        .decode_body(first, &bytes[position..], &mut out[at + 1..])
        .ok_or(ListCodecError::Truncated { vertex })?;
    Ok(header & 1 == 1)
}

/// The most ids from the front of `ids` whose chunk fits in `room` bytes (0 if none).
fn ids_that_fit(codec: &dyn ListCodec, vertex: u32, ids: &[u32], room: usize) -> usize {
    // Chunk size grows with its id count, so the largest that fits is found by halving.
    let (mut fits, mut too_many) = (0, ids.len() + 1);
    while too_many - fits > 1 {
        let middle = (fits + too_many) / 2;
        if chunk_bytes(codec, vertex, &ids[..middle], middle < ids.len()) <= room {
            fits = middle;
        } else {
            too_many = middle;
        }
    }
    fits
}

/// Zero-fills `bytes` to a whole number of pages; returns the bytes added.
fn pad_to_page(bytes: &mut Vec<u8>) -> u64 {
    let before = bytes.len();
    bytes.resize(before.next_multiple_of(PAGE_BYTES), 0);
    (bytes.len() - before) as u64
}

/// Where the writer lets a list cross a page's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PagePolicy {
    /// A list that fits in a page never crosses one: the writer pads instead, so a
    /// gather of it reads one page.
    KeepShortListsWhole,
    /// Any list goes on where the last one ended and crosses pages with a restart: no
    /// padding but a restart's header, and some short lists read two pages.
    FillPages,
}

/// Encodes every list of a CSR (`offsets` into `neighbors`, each list sorted and unique)
/// into pages, as the module doc lays out.
pub fn encode_lists(
    codec: &dyn ListCodec,
    offsets: &[u64],
    neighbors: &[u32],
    policy: PagePolicy,
) -> EncodedLists {
    let vertices = offsets.len().saturating_sub(1);
    let mut bytes = Vec::with_capacity(neighbors.len() * 2);
    let mut starts = vec![0u64; vertices + 1];
    let mut padding_bytes = 0;
    for v in 0..vertices {
        let mut ids = &neighbors[offsets[v] as usize..offsets[v + 1] as usize];
        let vertex = v as u32;
        if ids.is_empty() {
            // Resolved below to the next list's start, so that empty means equal offsets.
            starts[v] = u64::MAX;
            continue;
        }
        let room = PAGE_BYTES - bytes.len() % PAGE_BYTES;
        let whole = chunk_bytes(codec, vertex, ids, false);
        if policy == PagePolicy::KeepShortListsWhole && whole > room && whole <= PAGE_BYTES {
            padding_bytes += pad_to_page(&mut bytes);
        }
        starts[v] = bytes.len() as u64;
        while !ids.is_empty() {
            let room = PAGE_BYTES - bytes.len() % PAGE_BYTES;
            let taken = ids_that_fit(codec, vertex, ids, room);
            if taken == 0 {
                // Not even one id fits before the page's end (only a list's first chunk
                // can meet a page partly full): the list starts on the next page.
                padding_bytes += pad_to_page(&mut bytes);
                starts[v] = bytes.len() as u64;
                continue;
            }
            let continues = taken < ids.len();
            encode_chunk(codec, vertex, &ids[..taken], continues, &mut bytes);
            ids = &ids[taken..];
            if continues {
                padding_bytes += pad_to_page(&mut bytes);
            }
        }
    }
    starts[vertices] = bytes.len() as u64;
    for v in (0..vertices).rev() {
        if starts[v] == u64::MAX {
            starts[v] = starts[v + 1];
        }
    }
    padding_bytes += pad_to_page(&mut bytes);
    EncodedLists {
        bytes,
        offsets: starts,
        padding_bytes,
    }
}

/// Appends vertex `vertex`'s whole list to `out`, reading its chunk and those continuing
/// it on the following pages.
pub fn decode_list(
    codec: &dyn ListCodec,
    lists: &EncodedLists,
    vertex: usize,
    out: &mut Vec<u32>,
) -> Result<(), ListCodecError> {
    let (start, end) = (lists.offsets[vertex], lists.offsets[vertex + 1]);
    if start == end {
        return Ok(());
    }
    let mut position = usize::try_from(start)
        .ok()
        .filter(|&position| position < lists.bytes.len())
        .ok_or(ListCodecError::OffsetOutOfRange {
            vertex: vertex as u32,
            offset: start,
        })?;
    loop {
        let page_end = (position / PAGE_BYTES + 1) * PAGE_BYTES;
        let page_end = page_end.min(lists.bytes.len());
        if !decode_chunk(codec, vertex as u32, &lists.bytes[position..page_end], out)? {
            return Ok(());
        }
        position = page_end;
        if position >= lists.bytes.len() {
            return Err(ListCodecError::Truncated {
                vertex: vertex as u32,
            });
        }
    }
}

/// Decodes page `page` given only its bytes (`page_bytes`) and the offsets: appends the
/// ids of every chunk on it to `ids` and says whose they are in `chunks`, the continuation
/// of a list begun on an earlier page first. What a gather of one page, or a far
/// `GETRANGE` of it, would do.
pub fn decode_page(
    codec: &dyn ListCodec,
    offsets: &[u64],
    page: usize,
    page_bytes: &[u8],
    ids: &mut Vec<u32>,
    chunks: &mut Vec<PageChunk>,
) -> Result<(), ListCodecError> {
    let page_start = (page * PAGE_BYTES) as u64;
    let page_end = page_start + PAGE_BYTES as u64;
    let vertices = offsets.len().saturating_sub(1);
    // The first vertex whose list starts at or after the page's start.
    let first_here = offsets[..vertices].partition_point(|&offset| offset < page_start);
    if first_here > 0 {
        // The last list begun before this page continues onto it if it ends past its start.
        let before = first_here - 1;
        if offsets[before] < offsets[before + 1] && offsets[before + 1] > page_start {
            let from = ids.len();
            decode_chunk(codec, before as u32, page_bytes, ids)?;
            chunks.push(PageChunk {
                vertex: before as u32,
                ids: from..ids.len(),
            });
        }
    }
    for v in first_here..vertices {
        let (start, end) = (offsets[v], offsets[v + 1]);
        if start >= page_end {
            break;
        }
        if start == end {
            continue;
        }
        let from = ids.len();
        let at = (start - page_start) as usize;
        let bytes = page_bytes
            .get(at..)
            .ok_or(ListCodecError::Truncated { vertex: v as u32 })?;
        decode_chunk(codec, v as u32, bytes, ids)?;
        chunks.push(PageChunk {
            vertex: v as u32,
            ids: from..ids.len(),
        });
    }
    Ok(())
}
