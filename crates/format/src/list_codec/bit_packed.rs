//! Candidate (c): the gaps in blocks of 128, each block bit-packed at the width of its
//! largest gap minus one (the `bitpacking` crate's BitPacker4x, SIMD on x86-64 and
//! portable elsewhere), a width byte before each block; the last fewer than 128 gaps of
//! a chunk as LEB128 varints, in Stream VByte, or bit-packed too (`packed_tail`).

use bitpacking::{BitPacker, BitPacker4x};

use super::{
    ListCodec, get_varint, may_wrap, packed_tail, put_varint, rise_from, stream_vbyte, varint_bytes,
};

/// How the gaps after a chunk's last whole block are coded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailCoding {
    /// LEB128 varints.
    Leb128,
    /// Stream VByte (SSSE3 where there).
    StreamVByte,
    /// Tails of at least this many gaps bit-packed at their widest gap, or in Stream VByte
    /// where that is smaller; shorter tails in Stream VByte.
    PackedFrom(usize),
}

/// Gaps bit-packed 128 at a time, the tail of a chunk as its [`TailCoding`] says.
#[derive(Debug, Clone, Copy)]
pub struct BitPackedBlocks {
    /// How the last fewer than 128 gaps are coded.
    pub tail: TailCoding,
}

const BLOCK: usize = BitPacker4x::BLOCK_LEN;

/// The packer, its SIMD level detected once: `BitPacker4x::new` detects it at every call,
/// which showed in the profile of a run decoding lists one at a time.
fn packer() -> BitPacker4x {
    static PACKER: std::sync::OnceLock<BitPacker4x> = std::sync::OnceLock::new();
    *PACKER.get_or_init(BitPacker4x::new)
}

impl ListCodec for BitPackedBlocks {
    fn name(&self) -> &'static str {
        match self.tail {
            TailCoding::Leb128 => "bit-packed blocks of 128, LEB128 tail",
            TailCoding::StreamVByte => "bit-packed blocks of 128, Stream VByte tail",
            TailCoding::PackedFrom(4) => "bit-packed blocks of 128, tails of 4+ packed",
            TailCoding::PackedFrom(16) => "bit-packed blocks of 128, tails of 16+ packed",
            TailCoding::PackedFrom(_) => "bit-packed blocks of 128, long tails packed",
        }
    }

    fn body_bytes(&self, ids: &[u32]) -> usize {
        let packer = packer();
        let gaps = ids.len() - 1;
        let mut bytes = 0;
        let mut before = 0;
        for _ in 0..gaps / BLOCK {
            let block = &ids[before + 1..before + 1 + BLOCK];
            let bits = packer.num_bits_strictly_sorted(Some(ids[before]), block);
            bytes += 1 + BitPacker4x::compressed_block_size(bits);
            before += BLOCK;
        }
        let tail = &ids[before..];
        bytes
            + match self.tail {
                TailCoding::Leb128 => tail
                    .windows(2)
                    .map(|pair| varint_bytes(u64::from(pair[1] - pair[0] - 1)))
                    .sum::<usize>(),
                TailCoding::PackedFrom(least) if tail.len() > least => {
                    packed_tail::tail_bytes(tail)
                }
                TailCoding::StreamVByte | TailCoding::PackedFrom(_) => {
                    stream_vbyte::gaps_bytes(tail)
                }
            }
    }

    fn encode_body(&self, ids: &[u32], out: &mut Vec<u8>) {
        let packer = packer();
        let gaps = ids.len() - 1;
        let mut before = 0;
        for _ in 0..gaps / BLOCK {
            let block = &ids[before + 1..before + 1 + BLOCK];
            let bits = packer.num_bits_strictly_sorted(Some(ids[before]), block);
            out.push(bits);
            let at = out.len();
            out.resize(at + BitPacker4x::compressed_block_size(bits), 0);
            packer.compress_strictly_sorted(Some(ids[before]), block, &mut out[at..], bits);
            before += BLOCK;
        }
        let tail = &ids[before..];
        match self.tail {
            TailCoding::Leb128 => {
                for pair in tail.windows(2) {
                    put_varint(u64::from(pair[1] - pair[0] - 1), out);
                }
            }
            TailCoding::PackedFrom(least) if tail.len() > least => {
                packed_tail::encode_tail(tail, out)
            }
            TailCoding::StreamVByte | TailCoding::PackedFrom(_) => {
                stream_vbyte::encode_gaps(tail, out)
            }
        }
    }

    fn decode_body(&self, first: u32, bytes: &[u8], out: &mut [u32]) -> Option<usize> {
        let packer = packer();
        let mut position = 0;
        let mut id = first;
        let mut blocks = out.chunks_exact_mut(BLOCK);
        for block in &mut blocks {
            let bits = *bytes.get(position)?;
            if bits > 32 {
                return None;
            }
            let packed =
                bytes.get(position + 1..position + 1 + BitPacker4x::compressed_block_size(bits))?;
            packer.decompress_strictly_sorted(Some(id), packed, block, bits);
            if may_wrap(id, BLOCK, u32::from(bits)) && !rise_from(id, block) {
                return None;
            }
            id = block[BLOCK - 1];
            position += 1 + packed.len();
        }
        let tail = blocks.into_remainder();
        let rest = bytes.get(position..)?;
        match self.tail {
            TailCoding::PackedFrom(least) if tail.len() >= least => {
                return packed_tail::decode_tail(id, rest, tail).map(|used| position + used);
            }
            TailCoding::StreamVByte | TailCoding::PackedFrom(_) => {
                return stream_vbyte::decode_gaps(id, rest, tail, true).map(|used| position + used);
            }
            TailCoding::Leb128 => {}
        }
        for slot in tail {
            let gap = u32::try_from(get_varint(bytes, &mut position)?).ok()?;
            id = id.wrapping_add(gap).wrapping_add(1);
            *slot = id;
        }
        Some(position)
    }
}
