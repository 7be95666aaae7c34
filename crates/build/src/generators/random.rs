//! Seeded random numbers for the generators.
//!
//! The generators promise bit-for-bit identical graphs for the same seed across
//! swapless versions, so the generator algorithm is fixed here (xoshiro256**
//! seeded through splitmix64, both published and tiny) rather than borrowed from
//! a crate whose streams may change with its version.

/// splitmix64: a bijective mixer, used to derive well-spread seeds.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// xoshiro256** (Blackman and Vigna).
pub struct Rng {
    state: [u64; 4],
}

impl Rng {
    /// The generator for block `block` of stream `stream` under `seed`: independent
    /// of which thread generates the block, so output never depends on thread count.
    pub fn for_block(seed: u64, stream: u64, block: u64) -> Rng {
        let mut mix = seed
            ^ stream.wrapping_mul(0xd1b5_4a32_d192_ed03)
            ^ block.wrapping_mul(0x8cb9_2ba7_2f3d_8dd7);
        let state = [
            splitmix64(&mut mix),
            splitmix64(&mut mix),
            splitmix64(&mut mix),
            splitmix64(&mut mix),
        ];
        Rng { state }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.state[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.state[1] << 17;
        self.state[2] ^= self.state[0];
        self.state[3] ^= self.state[1];
        self.state[1] ^= self.state[2];
        self.state[0] ^= self.state[3];
        self.state[2] ^= t;
        self.state[3] = self.state[3].rotate_left(45);
        result
    }

    /// A uniform integer in `0..bound` (bound ≤ 2^32), by multiply-shift.
    pub fn below(&mut self, bound: u64) -> u64 {
        ((self.next_u64() >> 32) * bound) >> 32
    }

    /// A uniform integer weight in 1..=255, as GAP's generator draws them.
    pub fn weight(&mut self) -> f32 {
        (1 + self.below(255)) as f32
    }
}

/// A pseudo-random permutation of `0..2^bits` that needs no memory: rounds of
/// xor-with-key, multiply-by-odd and xorshift, each a bijection on `bits`-bit integers.
pub struct IdPermutation {
    mask: u64,
    shift: u32,
    keys: [u64; 4],
    multipliers: [u64; 4],
}

impl IdPermutation {
    /// A permutation of `0..2^bits` chosen by `seed`.
    pub fn new(bits: u32, seed: u64) -> IdPermutation {
        let mut mix = seed ^ 0x0005_eed0_f1d5;
        let mut next = || splitmix64(&mut mix);
        IdPermutation {
            mask: if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            },
            shift: bits.div_ceil(2).max(1),
            keys: [next(), next(), next(), next()],
            multipliers: [next() | 1, next() | 1, next() | 1, next() | 1],
        }
    }

    /// Where `id` goes.
    pub fn apply(&self, id: u64) -> u64 {
        let mut x = id & self.mask;
        for round in 0..4 {
            x = (x ^ self.keys[round]) & self.mask;
            x = x.wrapping_mul(self.multipliers[round]) & self.mask;
            x ^= x >> self.shift;
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutation_is_a_bijection_for_every_small_width() {
        for bits in 0..=12u32 {
            let permutation = IdPermutation::new(bits, 42);
            let n = 1u64 << bits;
            let mut seen = vec![false; n as usize];
            for id in 0..n {
                let image = permutation.apply(id);
                assert!(image < n && !seen[image as usize], "bits {bits}");
                seen[image as usize] = true;
            }
        }
    }

    #[test]
    fn weights_cover_1_to_255() {
        let mut rng = Rng::for_block(1, 2, 3);
        let weights: Vec<f32> = (0..100_000).map(|_| rng.weight()).collect();
        assert_eq!(weights.iter().cloned().fold(f32::MAX, f32::min), 1.0);
        assert_eq!(weights.iter().cloned().fold(0.0, f32::max), 255.0);
    }

    #[test]
    fn streams_are_reproducible() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::for_block(7, 0, 9);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::for_block(7, 0, 9);
                move |_| r.next_u64()
            })
            .collect();
        let c: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::for_block(7, 0, 10);
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
