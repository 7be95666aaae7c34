//! Whether the integer ids of an `auto` build fill enough of `0..=max id` to be the
//! vertices themselves. Each id missing from the input would be a vertex the input does
//! not have (in every result, in PageRank's `n`, in the components), so the ids stay
//! dense only when at least half of `0..=max id` is used ([`FILL_DENOMINATOR`]); below
//! that, most vertices would be ones the input never named, and compacting costs one
//! more pass over it. The distinct ids are counted exactly in a bitmap of
//! `0..=max id`, within a share of the budget.

use std::fmt;

/// The ids stay dense when the distinct ids are at least `1 / FILL_DENOMINATOR` of
/// `0..=max id`.
pub(crate) const FILL_DENOMINATOR: u64 = 2;

/// The most bytes the bitmap may take: ids up to 2^28 are counted at most.
const MOST_BITMAP_BYTES: u64 = 32 << 20;

/// The bitmap's bytes for an input opened with no budget: ids up to about 2^24.
const UNBUDGETED_BITMAP_BYTES: u64 = 4 << 20;

/// The distinct ids among those seen, counted in a bitmap that grows with the largest.
pub(crate) struct IdFill {
    words: Vec<u64>,
    /// The most words the bitmap may grow to.
    most_words: usize,
    /// The bytes reserved for it (the words at most, and room to grow them).
    reserved_bytes: u64,
    distinct: u64,
    largest: Option<u64>,
    /// Whether every id seen fit the bitmap, so `distinct` is exact.
    counted: bool,
}

/// What an `auto` build found of its integer ids at the end of the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// `distinct` of the `span` ids `0..span` are used: enough to keep them dense.
    Dense {
        /// How many ids the input uses.
        distinct: u64,
        /// One past the largest id.
        span: u64,
    },
    /// Too few of `0..span` are used: at most `distinct` (exactly, when `exact`).
    Sparse {
        /// How many ids the input uses, or at most how many.
        distinct: u64,
        /// One past the largest id.
        span: u64,
        /// Whether `distinct` is the exact count.
        exact: bool,
    },
    /// The ids run to `span - 1`, beyond what the budget lets the build count, and the
    /// edges could use half of them: kept dense.
    Uncounted {
        /// One past the largest id.
        span: u64,
    },
}

impl fmt::Display for Fill {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Fill::Dense { distinct, span } => write!(
                formatter,
                "{distinct} distinct ids fill {:.0}% of 0..{}, at least 1/{FILL_DENOMINATOR}",
                100.0 * distinct as f64 / span as f64,
                span - 1
            ),
            Fill::Sparse {
                distinct,
                span,
                exact,
            } => write!(
                formatter,
                "{}{distinct} distinct ids fill {:.0}% of 0..{}, under 1/{FILL_DENOMINATOR}",
                if exact { "" } else { "at most " },
                100.0 * distinct as f64 / span as f64,
                span - 1
            ),
            Fill::Uncounted { span } => write!(
                formatter,
                "the ids 0..{} are too many to count within the memory budget; the edges could fill them",
                span - 1
            ),
        }
    }
}

impl IdFill {
    /// A count whose bitmap takes at most an eighth of `allowance_bytes` (what the
    /// budget leaves beside the builder's reserve and least buffer).
    pub(crate) fn new(allowance_bytes: u64) -> IdFill {
        // An input opened with no budget (an unbounded allowance) is built within one
        // given later, which its reservation must not outgrow.
        let share = match allowance_bytes {
            u64::MAX => UNBUDGETED_BITMAP_BYTES,
            allowance => allowance / 8,
        };
        let reserved_bytes = share.min(MOST_BITMAP_BYTES);
        IdFill {
            words: Vec::new(),
            // Growing by doubling holds the old words beside the new for a moment.
            most_words: (reserved_bytes * 2 / 3 / 8) as usize,
            reserved_bytes,
            distinct: 0,
            largest: None,
            counted: true,
        }
    }

    /// Bytes to count against the budget.
    pub(crate) fn reserved_bytes(&self) -> u64 {
        self.reserved_bytes
    }

    /// Counts the id `id`.
    pub(crate) fn see(&mut self, id: u64) {
        self.largest = Some(self.largest.map_or(id, |largest| largest.max(id)));
        if !self.counted {
            return;
        }
        let word = (id / 64) as usize;
        if word >= self.words.len() {
            if word >= self.most_words {
                self.counted = false;
                self.words = Vec::new();
                return;
            }
            let grown = (word + 1).max(self.words.len() * 2).min(self.most_words);
            self.words.resize(grown, 0);
        }
        let bit = 1u64 << (id % 64);
        if self.words[word] & bit == 0 {
            self.words[word] |= bit;
            self.distinct += 1;
        }
    }

    /// What the ids seen fill of `0..=max id`, the input having had `edges` edges.
    pub(crate) fn verdict(&self, edges: u64) -> Option<Fill> {
        let span = self.largest? + 1;
        let enough = |distinct: u64| distinct.saturating_mul(FILL_DENOMINATOR) >= span;
        // Each edge names two ids at most.
        let at_most = edges.saturating_mul(2);
        Some(match self.counted {
            true if enough(self.distinct) => Fill::Dense {
                distinct: self.distinct,
                span,
            },
            true => Fill::Sparse {
                distinct: self.distinct,
                span,
                exact: true,
            },
            false if !enough(at_most) => Fill::Sparse {
                distinct: at_most,
                span,
                exact: false,
            },
            false => Fill::Uncounted { span },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_small_ids_are_not_enough() {
        let mut fill = IdFill::new(1 << 30);
        for id in [1000, 1001, 1002, 1001] {
            fill.see(id);
        }
        assert_eq!(
            fill.verdict(2),
            Some(Fill::Sparse {
                distinct: 3,
                span: 1003,
                exact: true
            })
        );
    }

    #[test]
    fn half_of_the_ids_is_enough() {
        let mut fill = IdFill::new(1 << 30);
        for id in (0..1000).step_by(2) {
            fill.see(id);
        }
        fill.see(999);
        assert_eq!(
            fill.verdict(300),
            Some(Fill::Dense {
                distinct: 501,
                span: 1000
            })
        );
    }

    #[test]
    fn ids_beyond_the_bitmap_fall_back_on_the_edges() {
        // No allowance: nothing is counted.
        let mut fill = IdFill::new(0);
        fill.see(5);
        fill.see(1000);
        assert!(matches!(
            fill.verdict(1),
            Some(Fill::Sparse { exact: false, .. })
        ));
        assert_eq!(fill.verdict(400), Some(Fill::Uncounted { span: 1001 }));
    }
}
