//! Candidate (b): Stream VByte (Lemire, Kurz and Rupp 2018) of the gaps minus one: two bits
//! a value in control bytes (four values a byte, the byte length less one), then the
//! values' little-endian bytes, all control bytes first. Decoded in scalar code, or four
//! values a step with SSSE3's byte shuffle where the processor has it.

use super::{ListCodec, may_wrap, rise_from};

/// Gaps in Stream VByte: control bytes, then each gap in one to four data bytes.
#[derive(Debug, Clone, Copy, Default)]
pub struct StreamVByte {
    /// Decode with SSSE3 where the processor has it (the scalar decoder otherwise).
    pub ssse3: bool,
}

/// The mask keeping a value's `length` low bytes of a 4-byte window, by length.
const LOW_BYTES: [u32; 5] = [0, 0xff, 0xffff, 0xff_ffff, 0xffff_ffff];

fn byte_length(value: u32) -> usize {
    (32 - (value | 1).leading_zeros() as usize).div_ceil(8)
}

/// Bytes the gaps of `ids` take (every id after the first).
pub(crate) fn gaps_bytes(ids: &[u32]) -> usize {
    let gaps = ids.len() - 1;
    gaps.div_ceil(4)
        + ids
            .windows(2)
            .map(|pair| byte_length(pair[1] - pair[0] - 1))
            .sum::<usize>()
}

/// Appends the gaps of `ids` minus one: their control bytes, then their data bytes.
pub(crate) fn encode_gaps(ids: &[u32], out: &mut Vec<u8>) {
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

/// Decodes `out.len()` ids after `first` from gaps coded by [`encode_gaps`]; returns the
/// bytes read, or `None` when `bytes` ends too soon or a partial last quad's unused
/// control bits are set.
pub(crate) fn decode_gaps(first: u32, bytes: &[u8], out: &mut [u32], ssse3: bool) -> Option<usize> {
    let controls = bytes.get(..out.len().div_ceil(4))?;
    // The writer leaves them zero; set, the SSSE3 decoder (which counts every unused slot
    // as one byte) and the scalar one (which skips them) would end the data apart, and
    // the weights after them would differ from one processor to another.
    let used_slots = out.len() % 4;
    if used_slots > 0
        && controls
            .last()
            .is_some_and(|&last| last >> (2 * used_slots) != 0)
    {
        return None;
    }
    let mut position = controls.len();
    let mut id = first;
    let mut quads_done = 0;
    #[cfg(target_arch = "x86_64")]
    if ssse3 && std::is_x86_feature_detected!("ssse3") {
        // SAFETY: the processor has SSSE3, checked just above.
        (quads_done, position, id) =
            unsafe { ssse3::decode_quads(controls, bytes, position, first, out) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ssse3;
    for (quad, &control) in out.chunks_mut(4).zip(controls).skip(quads_done) {
        match bytes.get(position..position + 16) {
            // The common case: the quad's 4 to 16 bytes read through whole 4-byte windows.
            Some(window) => {
                let mut at = 0;
                for (slot, value) in quad.iter_mut().enumerate() {
                    let length = usize::from((control >> (2 * slot)) & 3) + 1;
                    let word = u32::from_le_bytes([
                        window[at],
                        window[at + 1],
                        window[at + 2],
                        window[at + 3],
                    ]);
                    id = id.wrapping_add(word & LOW_BYTES[length]).wrapping_add(1);
                    *value = id;
                    at += length;
                }
                position += at;
            }
            _ => {
                for (slot, value) in quad.iter_mut().enumerate() {
                    let length = usize::from((control >> (2 * slot)) & 3) + 1;
                    let gap = bytes
                        .get(position..position + length)?
                        .iter()
                        .rev()
                        .fold(0u32, |gap, &byte| gap << 8 | u32::from(byte));
                    position += length;
                    id = id.wrapping_add(gap).wrapping_add(1);
                    *value = id;
                }
            }
        }
    }
    // A gap of 4 bytes may pass u32::MAX alone; gaps of 3 bytes or fewer add up to it
    // only from near its top.
    let four_bytes = controls
        .iter()
        .any(|&control| control & (control >> 1) & 0x55 != 0);
    if (four_bytes || may_wrap(first, out.len(), 24)) && !rise_from(first, out) {
        return None;
    }
    Some(position)
}

impl ListCodec for StreamVByte {
    fn name(&self) -> &'static str {
        if self.ssse3 {
            "Stream VByte (SSSE3)"
        } else {
            "Stream VByte (scalar)"
        }
    }

    fn body_bytes(&self, ids: &[u32]) -> usize {
        gaps_bytes(ids)
    }

    fn encode_body(&self, ids: &[u32], out: &mut Vec<u8>) {
        encode_gaps(ids, out);
    }

    fn decode_body(&self, first: u32, bytes: &[u8], out: &mut [u32]) -> Option<usize> {
        decode_gaps(first, bytes, out, self.ssse3)
    }
}

#[cfg(target_arch = "x86_64")]
mod ssse3 {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi32, _mm_cvtsi128_si32, _mm_loadu_si128, _mm_set1_epi32,
        _mm_shuffle_epi8, _mm_shuffle_epi32, _mm_slli_si128, _mm_storeu_si128,
    };

    /// For each control byte: the shuffle that spreads its four values' bytes into four
    /// 32-bit lanes (0x80 zeroes a byte), and the data bytes the four take.
    static SHUFFLES: [([u8; 16], u8); 256] = {
        let mut table = [([0x80u8; 16], 0u8); 256];
        let mut control = 0;
        while control < 256 {
            let mut from = 0u8;
            let mut slot = 0;
            while slot < 4 {
                let length = ((control >> (2 * slot)) & 3) as u8 + 1;
                let mut byte = 0;
                while byte < length {
                    table[control].0[slot * 4 + byte as usize] = from + byte;
                    byte += 1;
                }
                from += length;
                slot += 1;
            }
            table[control].1 = from;
            control += 1;
        }
        table
    };

    /// Decodes whole quads while 16 bytes of data remain readable, from data byte
    /// `position` on, the last id before them `previous`; returns the quads decoded, the
    /// position after them and the last id.
    #[target_feature(enable = "ssse3")]
    pub(super) fn decode_quads(
        controls: &[u8],
        bytes: &[u8],
        mut position: usize,
        previous: u32,
        out: &mut [u32],
    ) -> (usize, usize, u32) {
        let mut last = _mm_set1_epi32(previous as i32);
        let ones = _mm_set1_epi32(1);
        let mut quads = 0;
        for (quad, &control) in out.chunks_mut(4).zip(controls) {
            let Some(window) = bytes.get(position..position + 16) else {
                break;
            };
            let (shuffle, length) = &SHUFFLES[usize::from(control)];
            // SAFETY: `window` and `shuffle` are 16 bytes; unaligned loads are allowed.
            let (data, shuffle) = unsafe {
                (
                    _mm_loadu_si128(window.as_ptr().cast::<__m128i>()),
                    _mm_loadu_si128(shuffle.as_ptr().cast::<__m128i>()),
                )
            };
            // The gaps, one added back, then summed along the lanes onto the last id.
            let mut ids = _mm_add_epi32(_mm_shuffle_epi8(data, shuffle), ones);
            ids = _mm_add_epi32(ids, _mm_slli_si128::<4>(ids));
            ids = _mm_add_epi32(ids, _mm_slli_si128::<8>(ids));
            ids = _mm_add_epi32(ids, last);
            if let Ok(whole) = <&mut [u32; 4]>::try_from(&mut *quad) {
                // SAFETY: `whole` is four u32s, 16 bytes; unaligned stores are allowed.
                unsafe { _mm_storeu_si128(whole.as_mut_ptr().cast::<__m128i>(), ids) };
            } else {
                // A list's last, partial quad: its unused control bits read as one-byte
                // values that are decoded and dropped.
                let mut four = [0u32; 4];
                // SAFETY: `four` is four u32s, 16 bytes; unaligned stores are allowed.
                unsafe { _mm_storeu_si128(four.as_mut_ptr().cast::<__m128i>(), ids) };
                quad.copy_from_slice(&four[..quad.len()]);
                let length = usize::from(*length) - (4 - quad.len());
                return (quads + 1, position + length, four[quad.len() - 1]);
            }
            last = _mm_shuffle_epi32::<0xff>(ids);
            position += usize::from(*length);
            quads += 1;
        }
        (quads, position, _mm_cvtsi128_si32(last) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_bits_past_a_partial_quad_are_refused_by_both_decoders() {
        // Long enough that the SSSE3 decoder takes the last quad too (16 bytes follow it).
        let ids: Vec<u32> = (0..8u32).map(|i| i * 1000).chain([1_000_000]).collect();
        let mut bytes = Vec::new();
        encode_gaps(&ids, &mut bytes);
        bytes.extend_from_slice(&[0; 32]);
        for ssse3 in [false, true] {
            let mut out = vec![0; ids.len() - 1];
            assert!(decode_gaps(ids[0], &bytes, &mut out, ssse3).is_some());
            assert_eq!(out, ids[1..], "ssse3 {ssse3}");
        }
        // Eight gaps fill two quads: add a ninth id, so the third quad holds one gap and
        // three unused slots, and set one of them.
        let ids: Vec<u32> = ids.iter().copied().chain([2_000_000]).collect();
        for unused_slot in 1..4 {
            let mut bytes = Vec::new();
            encode_gaps(&ids, &mut bytes);
            bytes[2] |= 3 << (2 * unused_slot);
            bytes.extend_from_slice(&[0; 32]);
            for ssse3 in [false, true] {
                let mut out = vec![0; ids.len() - 1];
                let decoded = decode_gaps(ids[0], &bytes, &mut out, ssse3);
                assert_eq!(decoded, None, "slot {unused_slot}, ssse3 {ssse3}");
            }
        }
    }
}
