//! Candidate (a): every gap minus one as a LEB128 varint, one to five bytes.

use super::{ListCodec, get_varint, put_varint, varint_bytes};

/// Gaps as LEB128 varints: the simplest byte code, decoded one byte at a time.
#[derive(Debug, Clone, Copy, Default)]
pub struct ByteCode;

impl ListCodec for ByteCode {
    fn name(&self) -> &'static str {
        "byte code (LEB128)"
    }

    fn body_bytes(&self, ids: &[u32]) -> usize {
        ids.windows(2)
            .map(|pair| varint_bytes(u64::from(pair[1] - pair[0] - 1)))
            .sum()
    }

    fn encode_body(&self, ids: &[u32], out: &mut Vec<u8>) {
        for pair in ids.windows(2) {
            put_varint(u64::from(pair[1] - pair[0] - 1), out);
        }
    }

    fn decode_body(&self, first: u32, bytes: &[u8], out: &mut [u32]) -> Option<usize> {
        let mut position = 0;
        let mut id = first;
        for slot in out {
            // One byte holds most gaps of a sorted list: read it without the loop.
            let gap = match bytes.get(position) {
                Some(&byte) if byte < 0x80 => {
                    position += 1;
                    u32::from(byte)
                }
                _ => u32::try_from(get_varint(bytes, &mut position)?).ok()?,
            };
            id = id.wrapping_add(gap).wrapping_add(1);
            *slot = id;
        }
        Some(position)
    }
}
