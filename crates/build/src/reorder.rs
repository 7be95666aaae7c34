//! Degree-based grouping (DBG, Faldu et al., IISWC'19): renumber vertices so the
//! hottest (highest-degree) ones form a small prefix, keeping the original order
//! inside each degree group to preserve whatever locality the input had.

/// How the builder numbers vertices in the output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reorder {
    /// Keep the input's ids.
    #[default]
    None,
    /// Degree-based grouping; the permutation is stored in the file.
    DegreeBasedGrouping,
}

/// Group thresholds as multiples of the average degree, hottest group first.
const GROUP_THRESHOLDS: [f64; 8] = [32.0, 16.0, 8.0, 4.0, 2.0, 1.0, 0.5, 0.0];

/// Returns `old_to_new`: vertex `v` gets id `old_to_new[v]` in the output.
///
/// Vertices fall into 8 groups by degree (at least 32, 16, 8, 4, 2, 1, 1/2 times
/// the average, and the rest); groups are numbered hottest first, and vertices
/// keep their relative order within a group.
pub fn degree_based_grouping(degrees: &[u32]) -> Vec<u32> {
    let n = degrees.len();
    if n == 0 {
        return Vec::new();
    }
    let average = degrees.iter().map(|&d| d as f64).sum::<f64>() / n as f64;
    let group_of = |degree: u32| -> usize {
        GROUP_THRESHOLDS
            .iter()
            .position(|&multiple| degree as f64 >= multiple * average)
            .unwrap_or(GROUP_THRESHOLDS.len() - 1)
    };
    let mut group_starts = [0u64; GROUP_THRESHOLDS.len() + 1];
    for &degree in degrees {
        group_starts[group_of(degree) + 1] += 1;
    }
    for group in 1..group_starts.len() {
        group_starts[group] += group_starts[group - 1];
    }
    let mut old_to_new = vec![0u32; n];
    for (vertex, &degree) in degrees.iter().enumerate() {
        let slot = &mut group_starts[group_of(degree)];
        old_to_new[vertex] = *slot as u32;
        *slot += 1;
    }
    old_to_new
}

/// Inverts a permutation: `new_to_old[old_to_new[v]] == v`.
pub fn invert_permutation(old_to_new: &[u32]) -> Vec<u32> {
    let mut new_to_old = vec![0u32; old_to_new.len()];
    for (old, &new) in old_to_new.iter().enumerate() {
        new_to_old[new as usize] = old as u32;
    }
    new_to_old
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hubs_come_first_and_groups_keep_input_order() {
        // average degree 10: vertex 3 (320) is >= 32x, vertex 1 (40) >= 4x, vertices 0, 2, 4 low.
        let degrees = [
            1, 40, 2, 320, 1, 0, 0, 0, 0, 0, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10,
            10, 10, 10, 10, 10, 10, 10, 10, 10,
        ];
        let old_to_new = degree_based_grouping(&degrees);
        assert_eq!(old_to_new[3], 0);
        assert_eq!(old_to_new[1], 1);
        let new_to_old = invert_permutation(&old_to_new);
        let reordered: Vec<u32> = new_to_old
            .iter()
            .map(|&old| degrees[old as usize])
            .collect();
        // groups are hottest first
        let average = degrees.iter().sum::<u32>() as f64 / degrees.len() as f64;
        let group = |d: u32| {
            GROUP_THRESHOLDS
                .iter()
                .position(|&k| d as f64 >= k * average)
                .unwrap()
        };
        assert!(
            reordered
                .windows(2)
                .all(|pair| group(pair[0]) <= group(pair[1]))
        );
        // inside the lowest group, original order is kept
        let low: Vec<u32> = new_to_old
            .iter()
            .copied()
            .filter(|&old| degrees[old as usize] < 4)
            .collect();
        assert!(low.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn permutation_is_a_bijection() {
        let degrees: Vec<u32> = (0..1000u32).map(|v| (v * 7919) % 97).collect();
        let old_to_new = degree_based_grouping(&degrees);
        let mut seen = vec![false; degrees.len()];
        for &new in &old_to_new {
            assert!(!seen[new as usize]);
            seen[new as usize] = true;
        }
    }
}
