//! Kronecker (RMAT) and uniform random graphs, as GAP generates them: `2^scale`
//! vertices, `degree × 2^scale` undirected edges drawn independently (self-loops
//! and duplicates are dropped by the build, as in GAP).

use rayon::prelude::*;

use super::random::{IdPermutation, Rng};
use crate::source::{Direction, EdgeSource, InputEdge};
use crate::{BuildError, Result};

/// Which random graph model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyntheticKind {
    /// Graph500 Kronecker / RMAT with A=0.57, B=0.19, C=0.19; ids permuted.
    Kronecker,
    /// Both endpoints uniform over all vertices.
    UniformRandom,
}

/// Edges generated per call of `next_batch`.
const GENERATE_BATCH_EDGES: u64 = 1 << 18;
/// Edges drawn from one random stream; batches are whole blocks.
const BLOCK_EDGES: u64 = 1 << 12;

const fn probability_threshold(probability: f64) -> u64 {
    (probability * (1u64 << 32) as f64) as u64
}
const RMAT_A: u64 = probability_threshold(0.57);
const RMAT_AB: u64 = probability_threshold(0.57 + 0.19);
const RMAT_ABC: u64 = probability_threshold(0.57 + 0.19 + 0.19);

/// Streams a Kronecker or uniform random graph.
pub struct SyntheticSource {
    kind: SyntheticKind,
    scale: u32,
    weighted: bool,
    seed: u64,
    total_edges: u64,
    next_edge: u64,
    permutation: IdPermutation,
}

impl SyntheticSource {
    /// A generator for `2^scale` vertices and `degree × 2^scale` edges.
    pub fn new(
        kind: SyntheticKind,
        scale: u32,
        degree: u32,
        weighted: bool,
        seed: u64,
    ) -> Result<Self> {
        if !(1..=31).contains(&scale) {
            return Err(BuildError::InvalidOption {
                option: "scale",
                detail: format!("must be between 1 and 31 (2^scale vertices), not {scale}"),
            });
        }
        if degree == 0 {
            return Err(BuildError::InvalidOption {
                option: "degree",
                detail: "must be at least 1".to_string(),
            });
        }
        Ok(SyntheticSource {
            kind,
            scale,
            weighted,
            seed,
            total_edges: (degree as u64) << scale,
            next_edge: 0,
            permutation: IdPermutation::new(scale, seed),
        })
    }

    fn generate_block(&self, block: u64, edges: &mut [InputEdge]) {
        let stream = match self.kind {
            SyntheticKind::Kronecker => 1,
            SyntheticKind::UniformRandom => 2,
        };
        let mut rng = Rng::for_block(self.seed, stream, block);
        let vertices = 1u64 << self.scale;
        for edge in edges.iter_mut() {
            let (source, destination) = match self.kind {
                SyntheticKind::Kronecker => {
                    let (mut source, mut destination) = (0u64, 0u64);
                    let mut random = 0u64;
                    for level in 0..self.scale {
                        // One 64-bit draw serves two levels of the recursion.
                        if level % 2 == 0 {
                            random = rng.next_u64();
                        }
                        let point = random & 0xffff_ffff;
                        random >>= 32;
                        // Quadrants A (0,0), B (0,1), C (1,0), D (1,1), as in GAP; computed without
                        // branches because the outcome is random and mispredicts would dominate.
                        let source_bit = (point >= RMAT_AB) as u64;
                        let destination_bit = (point >= RMAT_ABC) as u64
                            | ((point >= RMAT_A) as u64 & (point < RMAT_AB) as u64);
                        source = (source << 1) | source_bit;
                        destination = (destination << 1) | destination_bit;
                    }
                    (
                        self.permutation.apply(source),
                        self.permutation.apply(destination),
                    )
                }
                SyntheticKind::UniformRandom => (rng.below(vertices), rng.below(vertices)),
            };
            let weight = if self.weighted { rng.weight() } else { 1.0 };
            *edge = InputEdge {
                source: source as u32,
                destination: destination as u32,
                weight,
            };
        }
    }
}

impl EdgeSource for SyntheticSource {
    fn name(&self) -> String {
        match self.kind {
            SyntheticKind::Kronecker => format!("kron scale {}", self.scale),
            SyntheticKind::UniformRandom => format!("urand scale {}", self.scale),
        }
    }

    fn direction(&self) -> Direction {
        Direction::Undirected
    }

    fn weighted(&self) -> bool {
        self.weighted
    }

    fn declared_vertices(&self) -> Option<u64> {
        Some(1u64 << self.scale)
    }

    fn progress_bytes(&self) -> (u64, Option<u64>) {
        (self.next_edge, Some(self.total_edges))
    }

    fn next_batch(&mut self, batch: &mut Vec<InputEdge>) -> Result<bool> {
        let count = (self.total_edges - self.next_edge).min(GENERATE_BATCH_EDGES) as usize;
        batch.clear();
        if count == 0 {
            return Ok(false);
        }
        let blank = InputEdge {
            source: 0,
            destination: 0,
            weight: 1.0,
        };
        batch.resize(count, blank);
        let first_block = self.next_edge / BLOCK_EDGES;
        batch
            .par_chunks_mut(BLOCK_EDGES as usize)
            .enumerate()
            .for_each(|(index, edges)| self.generate_block(first_block + index as u64, edges));
        self.next_edge += count as u64;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_edges(mut source: SyntheticSource) -> Vec<(u32, u32, f32)> {
        let mut batch = Vec::new();
        let mut edges = Vec::new();
        while source.next_batch(&mut batch).unwrap() {
            edges.extend(batch.iter().map(|e| (e.source, e.destination, e.weight)));
        }
        edges
    }

    #[test]
    fn kronecker_is_skewed_and_reproducible() {
        let a = all_edges(SyntheticSource::new(SyntheticKind::Kronecker, 10, 16, true, 5).unwrap());
        let b = all_edges(SyntheticSource::new(SyntheticKind::Kronecker, 10, 16, true, 5).unwrap());
        assert_eq!(a.len(), 16 << 10);
        assert_eq!(a, b);
        let mut degrees = vec![0u32; 1 << 10];
        for &(s, d, _) in &a {
            degrees[s as usize] += 1;
            degrees[d as usize] += 1;
        }
        let max = *degrees.iter().max().unwrap();
        // RMAT's hubs have far more than the mean degree of 32.
        assert!(max > 300, "max degree {max}");
        let c = all_edges(SyntheticSource::new(SyntheticKind::Kronecker, 10, 16, true, 6).unwrap());
        assert_ne!(a, c);
    }

    #[test]
    fn uniform_random_is_flat() {
        let edges =
            all_edges(SyntheticSource::new(SyntheticKind::UniformRandom, 12, 8, false, 1).unwrap());
        let mut degrees = vec![0u32; 1 << 12];
        for &(s, d, w) in &edges {
            degrees[s as usize] += 1;
            degrees[d as usize] += 1;
            assert_eq!(w, 1.0);
        }
        assert!(*degrees.iter().max().unwrap() < 50);
    }

    #[test]
    fn bad_scales_are_refused() {
        assert!(SyntheticSource::new(SyntheticKind::Kronecker, 0, 16, false, 1).is_err());
        assert!(SyntheticSource::new(SyntheticKind::Kronecker, 32, 16, false, 1).is_err());
        assert!(SyntheticSource::new(SyntheticKind::Kronecker, 8, 0, false, 1).is_err());
    }
}
