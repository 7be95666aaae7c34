//! Candidate (b): Stream VByte (Lemire, Kurz and Rupp 2018) of the gaps minus one: two bits
//! a value in control bytes (four values a byte, the byte length less one), then the
//! values' little-endian bytes, all control bytes first. Decoded here in scalar code.

use super::ListCodec;

/// Gaps in Stream VByte: control bytes, then each gap in one to four data bytes.
#[derive(Debug, Clone, Copy, Default)]
pub struct StreamVByte;

fn byte_length(value: u32) -> usize {
    (32 - (value | 1).leading_zeros() as usize).div_ceil(8)
}

impl ListCodec for StreamVByte {
    fn name(&self) -> &'static str {
        "Stream VByte (scalar)"
    }

    fn body_bytes(&self, ids: &[u32]) -> usize {
        let gaps = ids.len() - 1;
        gaps.div_ceil(4)
            + ids
                .windows(2)
                .map(|pair| byte_length(pair[1] - pair[0] - 1))
                .sum::<usize>()
    }

    fn encode_body(&self, ids: &[u32], out: &mut Vec<u8>) {
        let gaps = ids.len() - 1;
        let controls_at = out.len();
        out.resize(controls_at + gaps.div_ceil(4), 0);
        for (index, pair) in ids.windows(2).enumerate() {
            let gap = pair[1] - pair[0] - 1;
            let length = byte_length(gap);
            out[controls_at + index / 4] |= ((length - 1) as u8) << (2 * (index % 4));
            out.extend_from_slice(&gap.to_le_bytes()[..length]);
        }
    }

    fn decode_body(
        &self,
        first: u32,
        count: usize,
        bytes: &[u8],
        out: &mut Vec<u32>,
    ) -> Option<usize> {
        out.reserve(count);
        let controls = bytes.get(..count.div_ceil(4))?;
        let mut position = controls.len();
        let mut id = first;
        for (index, &control) in controls.iter().enumerate() {
            let in_this_byte = (count - index * 4).min(4);
            for slot in 0..in_this_byte {
                let length = usize::from((control >> (2 * slot)) & 3) + 1;
                // A whole 4-byte window, masked to the value's length, where the page has it.
                let gap = match bytes.get(position..position + 4) {
                    Some(window) => {
                        let word = u32::from_le_bytes([window[0], window[1], window[2], window[3]]);
                        word & (u32::MAX >> (32 - 8 * length))
                    }
                    None => {
                        let tail = bytes.get(position..position + length)?;
                        tail.iter()
                            .rev()
                            .fold(0u32, |value, &byte| value << 8 | u32::from(byte))
                    }
                };
                position += length;
                id = id.wrapping_add(gap).wrapping_add(1);
                out.push(id);
            }
        }
        Some(position)
    }
}
