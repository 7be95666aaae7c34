//! Offsets (warm data) in memory: where each vertex's list starts in its section. The
//! file stores them as u64; in memory they take 4 bytes an entry while the section has
//! fewer than 2^32 entries (every graph up to about 4 billion arcs), which halves the
//! warm data a tier must hold before it can cache a single list.

use std::ops::Range;

use swapless_format::{GraphFile, SectionKind};

use crate::Result;

/// Whether offsets into a section of `entries` entries fit in 4 bytes each.
pub fn offsets_fit_narrow(entries: u64) -> bool {
    entries <= u32::MAX as u64
}

/// One direction's offsets, owned: `n + 1` entries, the last the section's length.
pub enum Offsets {
    /// Entries below 2^32.
    Narrow(Vec<u32>),
    /// Any entries.
    Wide(Vec<u64>),
}

impl Offsets {
    /// Reads section `kind` of `graph` (checksums verified), narrowing as it goes when
    /// `entries` (the length of the section the offsets point into) allows, so the
    /// wide copy is never held whole. `None` if the section is missing.
    pub fn load(graph: &GraphFile, kind: SectionKind, entries: u64) -> Result<Option<Offsets>> {
        let Some(section) = graph.header().section(kind) else {
            return Ok(None);
        };
        let count = (section.length / 8) as usize;
        if !offsets_fit_narrow(entries) {
            return Ok(graph.load_section::<u64>(kind)?.map(Offsets::Wide));
        }
        let mut narrow = Vec::with_capacity(count);
        let mut too_large = false;
        graph.for_each_block(kind, &mut |block| {
            for word in block.chunks_exact(8) {
                let mut value = [0u8; 8];
                value.copy_from_slice(word);
                let value = u64::from_le_bytes(value);
                // A value past `entries` is caught by the caller's check; it must not
                // wrap into a plausible one here.
                too_large |= value > u32::MAX as u64;
                narrow.push(value.min(u32::MAX as u64) as u32);
            }
        })?;
        if too_large {
            // Corrupt offsets: return them wide, so the caller's check sees the values.
            return Ok(graph.load_section::<u64>(kind)?.map(Offsets::Wide));
        }
        Ok(Some(Offsets::Narrow(narrow)))
    }

    /// All entries, borrowed.
    #[inline]
    pub fn as_slice(&self) -> OffsetSlice<'_> {
        match self {
            Offsets::Narrow(values) => OffsetSlice::Narrow(values),
            Offsets::Wide(values) => OffsetSlice::Wide(values),
        }
    }

    /// Entry `index`.
    #[inline]
    pub fn get(&self, index: usize) -> u64 {
        self.as_slice().get(index)
    }

    /// Number of entries (vertices + 1).
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// Whether there are no entries (never, for a loaded section).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        match self {
            Offsets::Narrow(values) => values.len() as u64 * 4,
            Offsets::Wide(values) => values.len() as u64 * 8,
        }
    }
}

/// Offsets, borrowed: all of a direction's or the entries of a block of vertices.
#[derive(Clone, Copy, Debug)]
pub enum OffsetSlice<'a> {
    /// Entries below 2^32.
    Narrow(&'a [u32]),
    /// Any entries.
    Wide(&'a [u64]),
}

impl<'a> OffsetSlice<'a> {
    /// Entry `index`.
    #[inline]
    pub fn get(&self, index: usize) -> u64 {
        match self {
            OffsetSlice::Narrow(values) => values[index] as u64,
            OffsetSlice::Wide(values) => values[index],
        }
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            OffsetSlice::Narrow(values) => values.len(),
            OffsetSlice::Wide(values) => values.len(),
        }
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The degree of the `index`-th vertex: entry `index + 1` less entry `index`.
    #[inline]
    pub fn degree(&self, index: usize) -> u64 {
        match self {
            OffsetSlice::Narrow(values) => (values[index + 1] - values[index]) as u64,
            OffsetSlice::Wide(values) => values[index + 1] - values[index],
        }
    }

    /// Entries `range.start..=range.end`: the offsets of the vertices `range` with the
    /// end of the last one's list.
    #[inline]
    pub fn vertices(&self, range: Range<usize>) -> OffsetSlice<'a> {
        match self {
            OffsetSlice::Narrow(values) => OffsetSlice::Narrow(&values[range.start..=range.end]),
            OffsetSlice::Wide(values) => OffsetSlice::Wide(&values[range.start..=range.end]),
        }
    }

    /// Calls `with` on these entries as u64: themselves when wide, else a copy (on the
    /// stack for a scan block's worth). Kernels' inner loops then index plain u64 offsets,
    /// with no choice between widths per list.
    #[inline]
    pub fn widened<R>(&self, with: impl FnOnce(&[u64]) -> R) -> R {
        // Two sizes on the stack: a gather's one-vertex blocks must not pay for zeroing
        // a scan block's buffer.
        const SMALL: usize = 16;
        const ON_STACK: usize = 1024;
        fn widen<const N: usize, R>(values: &[u32], with: impl FnOnce(&[u64]) -> R) -> R {
            let mut wide = [0u64; N];
            for (wide, &value) in wide.iter_mut().zip(values.iter()) {
                *wide = value as u64;
            }
            with(&wide[..values.len()])
        }
        match self {
            OffsetSlice::Wide(values) => with(values),
            OffsetSlice::Narrow(values) if values.len() <= SMALL => widen::<SMALL, R>(values, with),
            OffsetSlice::Narrow(values) if values.len() <= ON_STACK => {
                widen::<ON_STACK, R>(values, with)
            }
            OffsetSlice::Narrow(values) => {
                let wide: Vec<u64> = values.iter().map(|&value| value as u64).collect();
                with(&wide)
            }
        }
    }

    /// The first entry from which `below` is false (entries ascend).
    pub fn partition_point(&self, below: impl Fn(u64) -> bool) -> usize {
        match self {
            OffsetSlice::Narrow(values) => values.partition_point(|&value| below(value as u64)),
            OffsetSlice::Wide(values) => values.partition_point(|&value| below(value)),
        }
    }

    /// Whether no entry is smaller than the one before it.
    pub fn ascending(&self) -> bool {
        match self {
            OffsetSlice::Narrow(values) => values.is_sorted(),
            OffsetSlice::Wide(values) => values.is_sorted(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_and_wide_slices_answer_alike() {
        let wide = vec![0u64, 3, 3, 7, 12];
        let narrow: Vec<u32> = wide.iter().map(|&value| value as u32).collect();
        for slice in [OffsetSlice::Wide(&wide), OffsetSlice::Narrow(&narrow)] {
            assert_eq!(slice.len(), 5);
            assert_eq!(slice.get(3), 7);
            assert_eq!(slice.degree(0), 3);
            assert_eq!(slice.degree(1), 0);
            let part = slice.vertices(1..3);
            assert_eq!(part.len(), 3);
            assert_eq!((part.get(0), part.get(2)), (3, 7));
            assert_eq!(slice.partition_point(|end| end <= 3), 3);
            assert!(slice.ascending());
            slice.widened(|wide| assert_eq!(wide, &[0, 3, 3, 7, 12]));
        }
        assert!(offsets_fit_narrow(u32::MAX as u64));
        assert!(!offsets_fit_narrow(u32::MAX as u64 + 1));
    }
}
