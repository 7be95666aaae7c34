//! Where PageRank's random surfer jumps instead of following an edge: to any vertex, or
//! to seed vertices (personalized PageRank).

/// Where the random surfer jumps instead of following an edge.
pub enum Jumps {
    /// To any vertex alike: PageRank.
    Uniform,
    /// To these vertices alike: personalized PageRank.
    Seeds(SeedSet),
}

/// Seed vertices as a set of internal ids, one bit a vertex.
pub struct SeedSet {
    bits: Vec<u64>,
    /// How many distinct seeds.
    pub count: u64,
}

impl SeedSet {
    /// The set of `seeds` (internal ids below `vertices`; repeats count once).
    pub fn new(vertices: usize, seeds: &[u32]) -> SeedSet {
        let mut bits = vec![0u64; vertices.div_ceil(64)];
        let mut count = 0;
        for &seed in seeds {
            let (word, bit) = (seed as usize / 64, 1u64 << (seed % 64));
            if let Some(word) = bits.get_mut(word)
                && *word & bit == 0
            {
                *word |= bit;
                count += 1;
            }
        }
        SeedSet { bits, count }
    }

    /// Bytes the set holds on a graph of `vertices`.
    pub fn bytes(vertices: u64) -> u64 {
        vertices.div_ceil(64) * 8
    }

    /// Whether `vertex` is a seed.
    #[inline]
    pub fn contains(&self, vertex: u32) -> bool {
        self.bits[vertex as usize / 64] & (1 << (vertex % 64)) != 0
    }
}

impl Jumps {
    /// What a vertex it jumps to receives of the mass that does not follow an edge
    /// (`1 - damping`, and the `uncarried` rank, damped), and the seeds when not all are.
    pub(super) fn base(
        &self,
        vertices: usize,
        damping: f64,
        uncarried: f64,
    ) -> (f64, Option<&SeedSet>) {
        match self {
            Jumps::Uniform => {
                let n = vertices as f64;
                ((1.0 - damping) / n + damping * uncarried / n, None)
            }
            Jumps::Seeds(seeds) => {
                let k = seeds.count as f64;
                ((1.0 - damping) / k + damping * uncarried / k, Some(seeds))
            }
        }
    }
}
