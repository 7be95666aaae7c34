//! A chunk's tail (the gaps after its last whole block of 128) bit-packed at its widest
//! gap, for lists too short to fill a block: a uniform graph's lists of about 30 ids have
//! gaps of one size, which Stream VByte rounds up to whole bytes and bit-packing does not.
//!
//! ```text
//! tail = width byte (0..=32)  then ceil(gaps × width / 8) bytes, gap minus one after gap
//!                             minus one, low bits first
//!      | 0xff                 then the gaps in Stream VByte, where that is smaller
//! ```
//!
//! Tails shorter than the codec's threshold have no width byte: they are always in Stream
//! VByte, whose control bytes cost less than a width byte on two or three gaps.

use super::{may_wrap, rise_from, stream_vbyte};

/// The width byte saying the tail is in Stream VByte after all.
const STREAM_VBYTE_MARK: u8 = 0xff;

/// Bits of the widest gap minus one of `ids` (every id after the first).
fn widest_gap_bits(ids: &[u32]) -> u32 {
    let widest = ids
        .windows(2)
        .map(|pair| pair[1] - pair[0] - 1)
        .fold(0, u32::max);
    32 - widest.leading_zeros()
}

fn packed_bytes(gaps: usize, width: u32) -> usize {
    (gaps * width as usize).div_ceil(8)
}

/// Bytes the tail of `ids` (every id after the first) takes packed, or in Stream VByte,
/// whichever is smaller, its width byte included.
pub(crate) fn tail_bytes(ids: &[u32]) -> usize {
    let packed = packed_bytes(ids.len() - 1, widest_gap_bits(ids));
    1 + packed.min(stream_vbyte::gaps_bytes(ids))
}

/// Appends the tail coding `ids[1..]` after `ids[0]`, packed or in Stream VByte as
/// [`tail_bytes`] counts it.
pub(crate) fn encode_tail(ids: &[u32], out: &mut Vec<u8>) {
    let width = widest_gap_bits(ids);
    if packed_bytes(ids.len() - 1, width) > stream_vbyte::gaps_bytes(ids) {
        out.push(STREAM_VBYTE_MARK);
        stream_vbyte::encode_gaps(ids, out);
        return;
    }
    out.push(width as u8);
    let (mut bits, mut filled) = (0u64, 0u32);
    for pair in ids.windows(2) {
        bits |= u64::from(pair[1] - pair[0] - 1) << filled;
        filled += width;
        while filled >= 8 {
            out.push(bits as u8);
            bits >>= 8;
            filled -= 8;
        }
    }
    if filled > 0 {
        out.push(bits as u8);
    }
}

/// The most gaps a tail holds: fewer than a block of 128.
const MOST_GAPS: usize = 127;

/// Writes the `out.len()` gaps minus one packed at `width` bits from the start of
/// `source`, which holds eight bytes more than they take.
fn unpack(source: &[u8], width: u32, out: &mut [u32]) {
    // One copy of the loop for each width, so that its shifts and masks are constants.
    macro_rules! by_width {
        ($($width:literal)*) => {
            match width {
                $($width => unpack_at::<$width>(source, out),)*
                _ => unreachable!("widths above 32 are refused before unpacking"),
            }
        };
    }
    by_width!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
}

/// [`unpack`] at `WIDTH` bits: eight gaps take exactly `WIDTH` bytes, so each group of
/// eight is read from one window at fixed places.
#[inline(always)]
fn unpack_at<const WIDTH: usize>(source: &[u8], out: &mut [u32]) {
    let mask = (1u64 << WIDTH) - 1;
    let read = |window: &[u8], bit: usize| {
        let word = window[bit / 8..]
            .first_chunk::<8>()
            .map_or(0, |bytes| u64::from_le_bytes(*bytes));
        ((word >> (bit % 8)) & mask) as u32
    };
    let mut groups = out.chunks_exact_mut(8);
    let mut base = 0;
    for group in &mut groups {
        let window = &source[base..base + WIDTH + 8];
        for (slot, gap) in group.iter_mut().enumerate() {
            *gap = read(window, slot * WIDTH);
        }
        base += WIDTH;
    }
    let window = &source[base..];
    for (slot, gap) in groups.into_remainder().iter_mut().enumerate() {
        *gap = read(window, slot * WIDTH);
    }
}

/// Decodes the `out.len()` ids following `first` from a tail coded by [`encode_tail`];
/// returns the bytes read, or `None` when `bytes` ends too soon, the width is not one, or
/// `out` is longer than a tail.
pub(crate) fn decode_tail(first: u32, bytes: &[u8], out: &mut [u32]) -> Option<usize> {
    let width = u32::from(*bytes.first()?);
    if width == u32::from(STREAM_VBYTE_MARK) {
        return stream_vbyte::decode_gaps(first, &bytes[1..], out, true).map(|used| 1 + used);
    }
    if width > 32 || out.len() > MOST_GAPS {
        return None;
    }
    let packed = bytes.get(1..1 + packed_bytes(out.len(), width))?;
    // Every gap is read as one unaligned word, which may take in up to seven bytes after
    // the packed ones (never into a gap: the mask keeps `width` bits). Where the page
    // holds them, they are read in place; where it ends first, from a padded copy.
    if bytes.len() >= 1 + packed.len() + 8 {
        unpack(&bytes[1..], width, out);
    } else {
        let mut padded = [0u8; MOST_GAPS * 4 + 8];
        padded[..packed.len()].copy_from_slice(packed);
        unpack(&padded, width, out);
    }
    // The gaps first, then their sum: the unpacking above has no chain from one to the next.
    let mut id = first;
    for slot in out.iter_mut() {
        id = id.wrapping_add(*slot).wrapping_add(1);
        *slot = id;
    }
    if may_wrap(first, out.len(), width) && !rise_from(first, out) {
        return None;
    }
    Some(1 + packed.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_round_trip_at_every_width_and_length() {
        for width in 0..=32u32 {
            for gaps in [1usize, 2, 7, 8, 31, 127] {
                let widest = if width == 0 { 0 } else { (1u64 << width) - 1 };
                let mut ids = vec![5u32];
                for index in 0..gaps {
                    // The widest gap once, the others small, so both forms are chosen.
                    let gap = if index == gaps / 2 {
                        widest
                    } else {
                        index as u64 % 3
                    };
                    let Some(next) = u64::from(*ids.last().unwrap_or(&0))
                        .checked_add(gap + 1)
                        .filter(|&next| next <= u64::from(u32::MAX))
                    else {
                        break;
                    };
                    ids.push(next as u32);
                }
                if ids.len() < 2 {
                    continue;
                }
                let mut bytes = Vec::new();
                encode_tail(&ids, &mut bytes);
                assert_eq!(bytes.len(), tail_bytes(&ids), "width {width}, gaps {gaps}");
                let mut out = vec![0u32; ids.len() - 1];
                assert_eq!(decode_tail(ids[0], &bytes, &mut out), Some(bytes.len()));
                assert_eq!(out, ids[1..], "width {width}, gaps {gaps}");
                // Cut one byte short, the tail is refused rather than read past.
                let mut out = vec![0u32; ids.len() - 1];
                assert_eq!(
                    decode_tail(ids[0], &bytes[..bytes.len() - 1], &mut out),
                    None
                );
            }
        }
    }

    #[test]
    fn even_gaps_are_packed_and_skewed_ones_stay_in_stream_vbyte() {
        let even: Vec<u32> = (0..32).map(|i| i * 300_000).collect();
        let mut bytes = Vec::new();
        encode_tail(&even, &mut bytes);
        assert_eq!(bytes[0], 19, "gaps below 2^19 pack at 19 bits");
        let mut skewed: Vec<u32> = (0..31).collect();
        skewed.push(4_000_000_000);
        bytes.clear();
        encode_tail(&skewed, &mut bytes);
        assert_eq!(bytes[0], STREAM_VBYTE_MARK);
    }

    #[test]
    fn a_width_past_32_is_refused() {
        assert_eq!(decode_tail(0, &[33, 0, 0, 0, 0], &mut [0u32; 1]), None);
    }
}
