//! Edges handed over in memory (the Python API's `from_edges`), as an [`EdgeSource`].

use crate::source::{Direction, EdgeSource, InputEdge};
use crate::{BuildError, Result};

/// Edges from three parallel arrays: sources, destinations and optional weights.
pub struct ArraySource {
    sources: Vec<u32>,
    destinations: Vec<u32>,
    weights: Option<Vec<f32>>,
    direction: Direction,
    vertices: Option<u64>,
    position: usize,
}

impl ArraySource {
    /// A source over `sources[i] -> destinations[i]` (weight `weights[i]`), with
    /// `vertices` ids in all (default: the largest id + 1). Weights pass the text
    /// importers' test ([`crate::importers::weight_from_number`]): finite, within f32.
    pub fn new(
        sources: Vec<u32>,
        destinations: Vec<u32>,
        weights: Option<&[f64]>,
        direction: Direction,
        vertices: Option<u64>,
    ) -> Result<ArraySource> {
        let invalid = |detail: String| Err(BuildError::InvalidArray(detail));
        if sources.len() != destinations.len() {
            return invalid(format!(
                "the source and destination arrays differ in length ({} and {})",
                sources.len(),
                destinations.len()
            ));
        }
        if let Some(weights) = &weights
            && weights.len() != sources.len()
        {
            return invalid(format!(
                "the weights array has {} entries for {} edges",
                weights.len(),
                sources.len()
            ));
        }
        let weights = match weights {
            None => None,
            Some(weights) => Some(
                weights
                    .iter()
                    .enumerate()
                    .map(|(index, &weight)| {
                        crate::importers::weight_from_number(weight, &weight.to_string()).map_err(
                            |detail| {
                                BuildError::InvalidArray(format!("weights[{index}]: {detail}"))
                            },
                        )
                    })
                    .collect::<Result<Vec<f32>>>()?,
            ),
        };
        if let Some(vertices) = vertices {
            let largest = sources.iter().chain(&destinations).max();
            if let Some(&largest) = largest
                && u64::from(largest) >= vertices
            {
                return invalid(format!(
                    "vertex id {largest} is not below the vertex count {vertices}"
                ));
            }
        }
        Ok(ArraySource {
            sources,
            destinations,
            weights,
            direction,
            vertices,
            position: 0,
        })
    }
}

impl EdgeSource for ArraySource {
    fn name(&self) -> String {
        "edge arrays".to_string()
    }

    fn direction(&self) -> Direction {
        self.direction
    }

    fn weighted(&self) -> bool {
        self.weights.is_some()
    }

    fn next_batch(&mut self, batch: &mut Vec<InputEdge>) -> Result<bool> {
        batch.clear();
        let end = (self.position + crate::builder::BATCH_EDGES).min(self.sources.len());
        for index in self.position..end {
            batch.push(InputEdge {
                source: self.sources[index],
                destination: self.destinations[index],
                weight: self.weights.as_ref().map_or(1.0, |weights| weights[index]),
            });
        }
        self.position = end;
        Ok(!batch.is_empty())
    }

    fn declared_vertices(&self) -> Option<u64> {
        self.vertices
    }

    fn memory_bytes(&self) -> u64 {
        // The arrays are held for the whole build.
        (self.sources.len() * 8 + self.weights.as_ref().map_or(0, |w| w.len() * 4)) as u64
    }

    fn progress_bytes(&self) -> (u64, Option<u64>) {
        (self.position as u64, Some(self.sources.len() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_must_agree_in_length_and_stay_below_the_vertex_count() {
        assert!(ArraySource::new(vec![0, 1], vec![1], None, Direction::Directed, None).is_err());
        assert!(ArraySource::new(vec![0], vec![1], Some(&[]), Direction::Directed, None).is_err());
        for (weight, phrase) in [(f64::NAN, "not a finite"), (1e40, "32-bit float")] {
            let refused =
                ArraySource::new(vec![0], vec![1], Some(&[weight]), Direction::Directed, None);
            let message = refused.err().expect("refused").to_string();
            assert!(
                message.contains("weights[0]") && message.contains(phrase),
                "{message}"
            );
        }
        assert!(ArraySource::new(vec![0], vec![5], None, Direction::Directed, Some(5)).is_err());
        let mut source =
            ArraySource::new(vec![0, 2], vec![1, 0], None, Direction::Undirected, Some(3)).unwrap();
        let mut batch = Vec::new();
        assert!(source.next_batch(&mut batch).unwrap());
        assert_eq!(batch.len(), 2);
        assert_eq!(batch[1].source, 2);
        assert!(!source.next_batch(&mut batch).unwrap());
    }
}
