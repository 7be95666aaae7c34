//! Offsets in Elias-Fano form (as WebGraph keeps them): about `2 + log2(arcs / vertices)`
//! bits an entry instead of 32, for budgets too small to hold 4-byte offsets beside a
//! kernel's arrays (a quarter or less of plain offsets on a sparse graph). Entry `i` splits
//! into its low `low_bits` bits, packed side by side, and the rest, written in unary
//! as a set bit at position `(value >> low_bits) + i` of a bit vector; every
//! [`SAMPLE`]-th set bit's position is kept, so finding entry `i` scans about one word
//! from the nearest sample.

/// Set bits between two kept positions: 128 keeps the samples at 1/16 of a byte per
/// entry and leaves about two words to scan from one.
const SAMPLE: usize = 128;

/// Bits per word.
const WORD: usize = 64;

/// An ascending sequence of u64 in Elias-Fano form, with constant-time access.
pub struct EliasFano {
    len: usize,
    low_bits: u32,
    low: Vec<u64>,
    high: Vec<u64>,
    /// Position in `high` of set bit `k * SAMPLE`, for every k.
    samples: Vec<u64>,
}

/// How many bits of each value go to the low part for `len` values up to `largest`.
fn low_bits_for(len: u64, largest: u64) -> u32 {
    if len == 0 || largest / len.max(1) == 0 {
        0
    } else {
        (largest / len).ilog2()
    }
}

/// Words of the high part: one set bit per value plus the largest value's high part.
fn high_words(len: u64, largest: u64, low_bits: u32) -> u64 {
    (len + (largest >> low_bits) + 1).div_ceil(WORD as u64)
}

/// Bytes an [`EliasFano`] of `len` values up to `largest` holds (what the plan counts).
pub fn elias_fano_bytes(len: u64, largest: u64) -> u64 {
    let low_bits = low_bits_for(len, largest);
    let low_words = (len * low_bits as u64).div_ceil(WORD as u64);
    let sample_words = len.div_ceil(SAMPLE as u64);
    8 * (low_words + high_words(len, largest, low_bits) + sample_words)
}

/// Fills an [`EliasFano`] value by value.
pub struct EliasFanoBuilder {
    sequence: EliasFano,
    largest: u64,
    pushed: usize,
    last: u64,
}

impl EliasFanoBuilder {
    /// A builder for exactly `len` values, none above `largest`, in ascending order.
    pub fn new(len: usize, largest: u64) -> EliasFanoBuilder {
        let low_bits = low_bits_for(len as u64, largest);
        let low_words = (len as u64 * low_bits as u64).div_ceil(WORD as u64);
        EliasFanoBuilder {
            sequence: EliasFano {
                len,
                low_bits,
                low: vec![0; low_words as usize],
                high: vec![0; high_words(len as u64, largest, low_bits) as usize],
                samples: Vec::with_capacity(len.div_ceil(SAMPLE)),
            },
            largest,
            pushed: 0,
            last: 0,
        }
    }

    /// Appends `value`; false (and nothing stored) if it is out of order, above the
    /// largest value announced, or one value too many.
    pub fn push(&mut self, value: u64) -> bool {
        let index = self.pushed;
        if index >= self.sequence.len || value > self.largest || value < self.last {
            return false;
        }
        let low_bits = self.sequence.low_bits;
        if low_bits > 0 {
            let low = value & ((1u64 << low_bits) - 1);
            let bit = index * low_bits as usize;
            self.sequence.low[bit / WORD] |= low << (bit % WORD);
            // A value may straddle two words.
            if bit % WORD + low_bits as usize > WORD {
                self.sequence.low[bit / WORD + 1] |= low >> (WORD - bit % WORD);
            }
        }
        let position = (value >> low_bits) as usize + index;
        self.sequence.high[position / WORD] |= 1u64 << (position % WORD);
        if index.is_multiple_of(SAMPLE) {
            self.sequence.samples.push(position as u64);
        }
        self.pushed += 1;
        self.last = value;
        true
    }

    /// The sequence, once every announced value is in; `None` before.
    pub fn build(self) -> Option<EliasFano> {
        (self.pushed == self.sequence.len).then_some(self.sequence)
    }
}

/// The position of the `rank`-th (from 0) set bit of `word`, which has more than `rank`.
#[inline]
fn select_in_word(mut word: u64, mut rank: u32) -> u32 {
    // Skip whole bytes by their counts, then clear the few set bits left before it.
    let mut base = 0;
    loop {
        let in_byte = (word & 0xff).count_ones();
        if rank < in_byte {
            break;
        }
        rank -= in_byte;
        word >>= 8;
        base += 8;
    }
    for _ in 0..rank {
        word &= word - 1;
    }
    base + word.trailing_zeros()
}

impl EliasFano {
    /// Number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        8 * (self.low.len() + self.high.len() + self.samples.len()) as u64
    }

    /// Position in the high part of value `index`'s set bit.
    #[inline]
    fn high_position(&self, index: usize) -> usize {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("popcnt")
        {
            // SAFETY: the CPU has both features the function is compiled for, checked
            // just above (the check is a cached flag).
            return unsafe { self.high_position_bmi2(index) };
        }
        self.high_position_with(index, select_in_word)
    }

    /// [`Self::high_position`] with hardware popcount and BMI2's bit deposit, which
    /// selects the bit in one instruction: a lookup takes 6 ns instead of 21 (22 ns
    /// instead of 72 at random) on this project's machines, whose baseline target has
    /// neither instruction.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi2,popcnt")]
    unsafe fn high_position_bmi2(&self, index: usize) -> usize {
        // The closure is compiled with this function's features, so pdep is safe in it.
        self.high_position_with(index, |word, rank| {
            std::arch::x86_64::_pdep_u64(1u64 << rank, word).trailing_zeros()
        })
    }

    /// Finds value `index`'s set bit from the nearest sample, with `select(word, rank)`
    /// giving the position of a word's `rank`-th set bit.
    #[inline(always)]
    fn high_position_with(&self, index: usize, select: impl Fn(u64, u32) -> u32) -> usize {
        let start = self.samples[index / SAMPLE] as usize;
        let mut rank = (index % SAMPLE) as u32;
        let mut word_index = start / WORD;
        // Bits below the sample's own are not counted.
        let mut word = self.high[word_index] & (u64::MAX << (start % WORD));
        loop {
            let ones = word.count_ones();
            if rank < ones {
                return word_index * WORD + select(word, rank) as usize;
            }
            rank -= ones;
            word_index += 1;
            word = self.high[word_index];
        }
    }

    /// The position of the next set bit after `position`.
    #[inline]
    fn next_high_position(&self, position: usize) -> usize {
        let mut word_index = position / WORD;
        let shift = position % WORD + 1;
        let mut word = if shift == WORD {
            0
        } else {
            self.high[word_index] & (u64::MAX << shift)
        };
        while word == 0 {
            word_index += 1;
            word = self.high[word_index];
        }
        word_index * WORD + word.trailing_zeros() as usize
    }

    /// The low part of value `index`.
    #[inline]
    fn low_part(&self, index: usize) -> u64 {
        let low_bits = self.low_bits as usize;
        if low_bits == 0 {
            return 0;
        }
        let bit = index * low_bits;
        let mut value = self.low[bit / WORD] >> (bit % WORD);
        if bit % WORD + low_bits > WORD {
            value |= self.low[bit / WORD + 1] << (WORD - bit % WORD);
        }
        value & ((1u64 << low_bits) - 1)
    }

    /// The value at `position` in the high part, which is value `index`'s.
    #[inline]
    fn value_at(&self, index: usize, position: usize) -> u64 {
        (((position - index) as u64) << self.low_bits) | self.low_part(index)
    }

    /// Value `index`.
    #[inline]
    pub fn get(&self, index: usize) -> u64 {
        assert!(index < self.len, "index {index} past {} values", self.len);
        self.value_at(index, self.high_position(index))
    }

    /// Values `index` and `index + 1`, finding the second from the first.
    #[inline]
    pub fn pair(&self, index: usize) -> (u64, u64) {
        assert!(index + 1 < self.len, "index {index} has no next value");
        let position = self.high_position(index);
        let next = self.next_high_position(position);
        (
            self.value_at(index, position),
            self.value_at(index + 1, next),
        )
    }

    /// Writes values `first..first + out.len()` to `out`, walking the high part once:
    /// the current high word stays in a register, its set bits taken lowest first, and
    /// the low parts are read with a running bit cursor (3.8 ns a value before, when each
    /// value was found again from its position).
    pub fn decode(&self, first: usize, out: &mut [u64]) {
        if out.is_empty() {
            return;
        }
        assert!(first + out.len() <= self.len, "decode past the values");
        let position = self.high_position(first);
        let mut word_index = position / WORD;
        // The word holding value `first`'s bit, with the bits before it cleared.
        let mut word = self.high[word_index] & (u64::MAX << (position % WORD));
        let low_bits = self.low_bits as usize;
        let low_mask = (1u64 << low_bits) - 1;
        let mut low_bit = first * low_bits;
        for (index, slot) in (first..).zip(out.iter_mut()) {
            while word == 0 {
                word_index += 1;
                word = self.high[word_index];
            }
            let high = (word_index * WORD + word.trailing_zeros() as usize - index) as u64;
            word &= word - 1;
            let low = if low_bits == 0 {
                0
            } else {
                let (at, shift) = (low_bit / WORD, low_bit % WORD);
                let mut low = self.low[at] >> shift;
                if shift + low_bits > WORD {
                    low |= self.low[at + 1] << (WORD - shift);
                }
                low & low_mask
            };
            low_bit += low_bits;
            *slot = (high << low_bits) | low;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(values: &[u64], largest: u64) -> EliasFano {
        let mut builder = EliasFanoBuilder::new(values.len(), largest);
        for &value in values {
            assert!(builder.push(value));
        }
        builder.build().unwrap()
    }

    fn check(values: &[u64], largest: u64) {
        let sequence = build(values, largest);
        assert_eq!(sequence.len(), values.len());
        assert_eq!(
            sequence.bytes(),
            elias_fano_bytes(values.len() as u64, largest)
        );
        for (index, &value) in values.iter().enumerate() {
            assert_eq!(sequence.get(index), value, "value {index}");
            if index + 1 < values.len() {
                assert_eq!(sequence.pair(index), (value, values[index + 1]));
            }
        }
        // The portable select finds the same bits as the one the CPU may have used.
        for index in 0..values.len() {
            assert_eq!(
                sequence.high_position_with(index, select_in_word),
                sequence.high_position(index)
            );
        }
        for first in [0, 1, values.len() / 3, values.len().saturating_sub(5)] {
            let count = (values.len() - first).min(300);
            let mut out = vec![0; count];
            sequence.decode(first, &mut out);
            assert_eq!(out, &values[first..first + count]);
        }
    }

    #[test]
    fn values_come_back_for_sparse_dense_and_repeated_sequences() {
        // Offsets of a skewed graph: many empty lists, a few long ones.
        let mut state = 12345u64;
        let mut offsets = vec![0u64];
        for _ in 0..5000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let degree = match state >> 60 {
                0..=6 => 0,
                7..=13 => (state >> 40) % 8,
                _ => (state >> 30) % 5000,
            };
            offsets.push(offsets.last().unwrap() + degree);
        }
        let largest = *offsets.last().unwrap();
        check(&offsets, largest);
        // Every value equal, every value distinct and dense, a single value.
        check(&[7; 1000], 7);
        check(&(0..1000).collect::<Vec<u64>>(), 999);
        check(&[0], 0);
        // Low parts that straddle words (low_bits 7 and 33).
        check(&(0..700).map(|i| i * 200).collect::<Vec<u64>>(), 139_800);
        check(&(0..300).map(|i| i << 33).collect::<Vec<u64>>(), 299 << 33);
    }

    #[test]
    fn out_of_order_or_oversized_values_are_refused() {
        let mut builder = EliasFanoBuilder::new(3, 10);
        assert!(builder.push(4));
        assert!(!builder.push(3));
        assert!(!builder.push(11));
        assert!(builder.push(10));
        assert!(builder.build().is_none(), "two of three values");
    }

    #[test]
    fn a_word_select_finds_each_set_bit() {
        let word = 0b1011_0000_0000_0000_0001_0000_0000_1001u64 | (1 << 63);
        let positions: Vec<u32> = (0..word.count_ones())
            .map(|rank| select_in_word(word, rank))
            .collect();
        assert_eq!(positions, vec![0, 3, 12, 28, 29, 31, 63]);
    }
}
