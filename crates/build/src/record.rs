//! The fixed-size records the builder sorts and spills: an arc packed into an
//! integer whose natural order is (source, destination, weight).

/// One arc as the builder sorts it. Sorting the integers sorts by source, then
/// destination, then weight, so after a sort the first of several parallel arcs
/// carries the smallest weight: deduplication keeps the minimum weight, the
/// same choice whatever order the input had.
pub trait Record: Copy + Ord + Send + Sync + bytemuck::Pod + 'static {
    /// Whether this record carries a weight.
    const WEIGHTED: bool;
    /// Packs an arc.
    fn new(source: u32, destination: u32, weight: f32) -> Self;
    /// The arc's source vertex.
    fn source(self) -> u32;
    /// The arc's destination vertex.
    fn destination(self) -> u32;
    /// The arc's weight (1.0 when unweighted).
    fn weight(self) -> f32;
    /// Source and destination only: equal for parallel arcs.
    fn arc(self) -> u64;
}

/// Maps an `f32` to a `u32` whose unsigned order is the float's numeric order.
fn weight_to_ordered_bits(weight: f32) -> u32 {
    let bits = weight.to_bits();
    if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

fn ordered_bits_to_weight(bits: u32) -> f32 {
    if bits & 0x8000_0000 != 0 {
        f32::from_bits(bits & 0x7fff_ffff)
    } else {
        f32::from_bits(!bits)
    }
}

/// An unweighted arc: source in the high 32 bits, destination in the low.
impl Record for u64 {
    const WEIGHTED: bool = false;
    fn new(source: u32, destination: u32, _weight: f32) -> Self {
        ((source as u64) << 32) | destination as u64
    }
    fn source(self) -> u32 {
        (self >> 32) as u32
    }
    fn destination(self) -> u32 {
        self as u32
    }
    fn weight(self) -> f32 {
        1.0
    }
    fn arc(self) -> u64 {
        self
    }
}

/// A weighted arc: source, destination, order-preserving weight bits, 32 bits each, high to low.
impl Record for u128 {
    const WEIGHTED: bool = true;
    fn new(source: u32, destination: u32, weight: f32) -> Self {
        ((source as u128) << 64)
            | ((destination as u128) << 32)
            | weight_to_ordered_bits(weight) as u128
    }
    fn source(self) -> u32 {
        (self >> 64) as u32
    }
    fn destination(self) -> u32 {
        (self >> 32) as u32
    }
    fn weight(self) -> f32 {
        ordered_bits_to_weight(self as u32)
    }
    fn arc(self) -> u64 {
        (self >> 32) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighted_records_sort_by_weight_within_an_arc() {
        let weights = [3.5f32, -2.0, 0.0, 1e-3, -0.5, 255.0, f32::MAX, f32::MIN];
        let mut records: Vec<u128> = weights.iter().map(|&w| u128::new(7, 9, w)).collect();
        records.sort_unstable();
        let sorted: Vec<f32> = records.iter().map(|r| r.weight()).collect();
        let mut expected = weights.to_vec();
        expected.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(sorted, expected);
        assert!(
            records
                .iter()
                .all(|r| r.source() == 7 && r.destination() == 9)
        );
    }

    #[test]
    fn unweighted_records_round_trip() {
        let record = u64::new(u32::MAX - 1, 5, 2.0);
        assert_eq!(
            (record.source(), record.destination(), record.weight()),
            (u32::MAX - 1, 5, 1.0)
        );
    }
}
