//! Offsets (warm data) in memory: where each vertex's list starts in its section. The
//! file stores them as u64; in memory they take 4 bytes an entry while the section has
//! fewer than 2^32 entries (every graph up to about 4 billion arcs), which halves the
//! warm data a tier must hold before it can cache a single list. When a budget cannot
//! hold even those beside a kernel's arrays, a disk tier keeps them in Elias-Fano form
//! (see elias_fano.rs): about a quarter of the bytes again, for a few nanoseconds more
//! per lookup.

use std::ops::Range;

use swapless_format::{FormatError, GraphFile, SectionKind};

use crate::Result;
use crate::elias_fano::{EliasFano, EliasFanoBuilder, elias_fano_bytes};

/// Whether offsets into a section of `entries` entries fit in 4 bytes each.
pub fn offsets_fit_narrow(entries: u64) -> bool {
    entries <= u32::MAX as u64
}

/// How a tier holds offsets in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OffsetForm {
    /// 4 bytes an entry when the section allows it, else 8.
    Plain,
    /// Elias-Fano: about `2 + log2(entries / vertices)` bits an entry.
    Compressed,
}

impl OffsetForm {
    /// The form's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            OffsetForm::Plain => "plain",
            OffsetForm::Compressed => "compressed",
        }
    }
}

/// Bytes that `count` offsets into a section of `entries` entries take in `form`.
pub fn offsets_bytes(count: u64, entries: u64, form: OffsetForm) -> u64 {
    match form {
        OffsetForm::Plain if offsets_fit_narrow(entries) => count * 4,
        OffsetForm::Plain => count * 8,
        OffsetForm::Compressed => elias_fano_bytes(count, entries),
    }
}

/// Calls `each` with every entry of offsets section `kind`, in order, read in pieces
/// (checksums verified) so that no copy of the section is held.
pub(crate) fn for_each_offset(
    graph: &GraphFile,
    kind: SectionKind,
    mut each: impl FnMut(u64),
) -> Result<()> {
    // Pieces are whole checksum blocks, a whole number of 8-byte entries.
    graph.for_each_piece(kind, &mut |piece| {
        for word in piece.chunks_exact(8) {
            let mut value = [0u8; 8];
            value.copy_from_slice(word);
            each(u64::from_le_bytes(value));
        }
    })?;
    Ok(())
}

/// One direction's offsets, owned: `n + 1` entries, the last the section's length.
pub enum Offsets {
    /// Entries below 2^32.
    Narrow(Vec<u32>),
    /// Any entries.
    Wide(Vec<u64>),
    /// Elias-Fano form.
    Compressed(EliasFano),
    /// Every list `width` entries long (the heads section): computed, nothing held.
    Fixed {
        /// Entries a list.
        width: u64,
        /// Entries (vertices + 1).
        count: usize,
    },
}

impl Offsets {
    /// Reads offsets section `kinds[0]` of `graph` (checksums verified) into `form`,
    /// narrowing or compressing as it goes, so the wide copy is never held whole;
    /// `entries` is the length of section `kinds[1]`, which the offsets point into.
    /// `None` if the section is missing. Offsets that cannot describe that section
    /// (descending, or past its end) are refused where they are found, not loaded wide
    /// for a later check: the wide copy (8 bytes a vertex) is memory no plan counts.
    pub fn load(
        graph: &GraphFile,
        kinds: [SectionKind; 2],
        entries: u64,
        form: OffsetForm,
    ) -> Result<Option<Offsets>> {
        let kind = kinds[0];
        let corrupt = || offsets_do_not_describe(graph, kinds[0], kinds[1]);
        let Some(section) = graph.header().section(kind) else {
            return Ok(None);
        };
        let count = (section.length / 8) as usize;
        if form == OffsetForm::Compressed {
            let mut builder = EliasFanoBuilder::new(count, entries);
            let mut refused = false;
            for_each_offset(graph, kind, |value| {
                if !refused {
                    refused = !builder.push(value);
                }
            })?;
            return match builder.build() {
                Some(sequence) if !refused => Ok(Some(Offsets::Compressed(sequence))),
                // Descending or past the section.
                _ => Err(corrupt()),
            };
        }
        if !offsets_fit_narrow(entries) {
            return Ok(graph.load_section::<u64>(kind)?.map(Offsets::Wide));
        }
        let mut narrow = Vec::with_capacity(count);
        let mut too_large = false;
        for_each_offset(graph, kind, |value| {
            // A value past `entries` is caught by the caller's check; it must not wrap
            // into a plausible one here.
            too_large |= value > u32::MAX as u64;
            narrow.push(value.min(u32::MAX as u64) as u32);
        })?;
        if too_large {
            return Err(corrupt());
        }
        Ok(Some(Offsets::Narrow(narrow)))
    }

    /// `values` (ascending) in Elias-Fano form; `None` if they do not ascend.
    pub fn compressed_from(values: &[u64]) -> Option<Offsets> {
        let mut builder = EliasFanoBuilder::new(values.len(), values.last().copied().unwrap_or(0));
        values
            .iter()
            .all(|&value| builder.push(value))
            .then(|| builder.build())
            .flatten()
            .map(Offsets::Compressed)
    }

    /// All entries, borrowed.
    #[inline]
    pub fn as_slice(&self) -> OffsetSlice<'_> {
        match self {
            Offsets::Narrow(values) => OffsetSlice::Narrow(values),
            Offsets::Wide(values) => OffsetSlice::Wide(values),
            Offsets::Compressed(sequence) => OffsetSlice::Compressed {
                all: sequence,
                first: 0,
                len: sequence.len(),
            },
            &Offsets::Fixed { width, count } => OffsetSlice::Fixed {
                width,
                first: 0,
                len: count,
            },
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
            Offsets::Compressed(sequence) => sequence.bytes(),
            Offsets::Fixed { .. } => 0,
        }
    }
}

/// The error for offsets section `offsets` that does not describe section `neighbors`.
pub(crate) fn offsets_do_not_describe(
    graph: &GraphFile,
    offsets: SectionKind,
    neighbors: SectionKind,
) -> crate::StoreError {
    FormatError::Corrupt {
        path: graph.path().to_path_buf(),
        detail: format!(
            "section {} does not describe section {}",
            offsets.name(),
            neighbors.name()
        ),
    }
    .into()
}

/// Entries [`OffsetSlice::widened`] copies on the stack (more go to the heap): a scan
/// block's worth, so kernels that widen blocks of their own size them by it.
pub(crate) const WIDENED_ON_STACK: usize = 1024;

/// Offsets, borrowed: all of a direction's or the entries of a block of vertices.
#[derive(Clone, Copy)]
pub enum OffsetSlice<'a> {
    /// Entries below 2^32.
    Narrow(&'a [u32]),
    /// Any entries.
    Wide(&'a [u64]),
    /// Entries `first..first + len` of an Elias-Fano sequence.
    Compressed {
        /// The whole sequence.
        all: &'a EliasFano,
        /// Its entry that is this slice's entry 0.
        first: usize,
        /// Entries in the slice.
        len: usize,
    },
    /// Entries `first..first + len` of offsets whose lists are all `width` entries long.
    Fixed {
        /// Entries a list.
        width: u64,
        /// The entry that is this slice's entry 0.
        first: usize,
        /// Entries in the slice.
        len: usize,
    },
}

impl std::fmt::Debug for OffsetSlice<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "OffsetSlice of {} entries", self.len())
    }
}

impl<'a> OffsetSlice<'a> {
    /// Vertices of a block whose offsets (one entry more) [`OffsetSlice::widened`]
    /// copies on the stack: kernels that widen blocks of their own size them by it.
    pub const BLOCK_VERTICES: usize = WIDENED_ON_STACK - 1;

    /// Entry `index`.
    #[inline]
    pub fn get(&self, index: usize) -> u64 {
        match self {
            OffsetSlice::Narrow(values) => values[index] as u64,
            OffsetSlice::Wide(values) => values[index],
            OffsetSlice::Compressed { all, first, len } => {
                assert!(index < *len, "offset {index} past {len}");
                all.get(first + index)
            }
            OffsetSlice::Fixed { width, first, len } => {
                assert!(index < *len, "offset {index} past {len}");
                (first + index) as u64 * width
            }
        }
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            OffsetSlice::Narrow(values) => values.len(),
            OffsetSlice::Wide(values) => values.len(),
            OffsetSlice::Compressed { len, .. } | OffsetSlice::Fixed { len, .. } => *len,
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
            OffsetSlice::Compressed { .. } => {
                let bounds = self.bounds(index);
                bounds.end - bounds.start
            }
            OffsetSlice::Fixed { width, len, .. } => {
                assert!(index + 1 < *len, "list {index} past {len} offsets");
                *width
            }
        }
    }

    /// Entries `index` and `index + 1`: where the `index`-th vertex's list starts and ends.
    #[inline]
    pub fn bounds(&self, index: usize) -> Range<u64> {
        match self {
            OffsetSlice::Narrow(values) => values[index] as u64..values[index + 1] as u64,
            OffsetSlice::Wide(values) => values[index]..values[index + 1],
            OffsetSlice::Compressed { all, first, len } => {
                assert!(index + 1 < *len, "list {index} past {len} offsets");
                let (start, end) = all.pair(first + index);
                start..end
            }
            OffsetSlice::Fixed { .. } => self.get(index)..self.get(index + 1),
        }
    }

    /// Entries `range.start..=range.end`: the offsets of the vertices `range` with the
    /// end of the last one's list.
    #[inline]
    pub fn vertices(&self, range: Range<usize>) -> OffsetSlice<'a> {
        match self {
            OffsetSlice::Narrow(values) => OffsetSlice::Narrow(&values[range.start..=range.end]),
            OffsetSlice::Wide(values) => OffsetSlice::Wide(&values[range.start..=range.end]),
            OffsetSlice::Compressed { all, first, len } => {
                assert!(
                    range.start <= range.end && range.end < *len,
                    "vertices {range:?} past {len} offsets"
                );
                OffsetSlice::Compressed {
                    all,
                    first: first + range.start,
                    len: range.end - range.start + 1,
                }
            }
            OffsetSlice::Fixed { width, first, len } => {
                assert!(
                    range.start <= range.end && range.end < *len,
                    "vertices {range:?} past {len} offsets"
                );
                OffsetSlice::Fixed {
                    width: *width,
                    first: first + range.start,
                    len: range.end - range.start + 1,
                }
            }
        }
    }

    /// Calls `with` on these entries as u64: themselves when wide, else a copy (on the
    /// stack for a scan block's worth). Kernels' inner loops then index plain u64 offsets,
    /// with no choice between widths per list.
    #[inline]
    pub fn widened<R>(&self, with: impl FnOnce(&[u64]) -> R) -> R {
        // Three sizes on the stack: a gather's one-vertex blocks and an in-memory scan's
        // blocks must not pay for zeroing the largest buffer (8 KiB) each.
        const SMALL: usize = 16;
        const IN_MEMORY_BLOCK: usize = crate::SCAN_BLOCK as usize + 1;
        fn widen<const N: usize, R>(slice: &OffsetSlice, with: impl FnOnce(&[u64]) -> R) -> R {
            let mut wide = [0u64; N];
            slice.copy_to(&mut wide[..slice.len()]);
            with(&wide[..slice.len()])
        }
        match self {
            OffsetSlice::Wide(values) => with(values),
            _ if self.len() <= SMALL => widen::<SMALL, R>(self, with),
            _ if self.len() <= IN_MEMORY_BLOCK => widen::<IN_MEMORY_BLOCK, R>(self, with),
            _ if self.len() <= WIDENED_ON_STACK => widen::<WIDENED_ON_STACK, R>(self, with),
            _ => {
                let mut wide = vec![0; self.len()];
                self.copy_to(&mut wide);
                with(&wide)
            }
        }
    }

    /// Writes the entries to `out`, which has room for exactly them.
    fn copy_to(&self, out: &mut [u64]) {
        match self {
            OffsetSlice::Narrow(values) => {
                for (wide, &value) in out.iter_mut().zip(values.iter()) {
                    *wide = value as u64;
                }
            }
            OffsetSlice::Wide(values) => out.copy_from_slice(values),
            OffsetSlice::Compressed { all, first, .. } => all.decode(*first, out),
            OffsetSlice::Fixed { width, first, .. } => {
                for (index, wide) in out.iter_mut().enumerate() {
                    *wide = (first + index) as u64 * width;
                }
            }
        }
    }

    /// The first entry from which `below` is false (entries ascend).
    pub fn partition_point(&self, below: impl Fn(u64) -> bool) -> usize {
        match self {
            OffsetSlice::Narrow(values) => values.partition_point(|&value| below(value as u64)),
            OffsetSlice::Wide(values) => values.partition_point(|&value| below(value)),
            OffsetSlice::Compressed { len, .. } | OffsetSlice::Fixed { len, .. } => {
                // Binary search over the entries (they ascend).
                let (mut low, mut high) = (0, *len);
                while low < high {
                    let middle = low + (high - low) / 2;
                    if below(self.get(middle)) {
                        low = middle + 1;
                    } else {
                        high = middle;
                    }
                }
                low
            }
        }
    }

    /// Whether no entry is smaller than the one before it.
    pub fn ascending(&self) -> bool {
        match self {
            OffsetSlice::Narrow(values) => values.is_sorted(),
            OffsetSlice::Wide(values) => values.is_sorted(),
            // The builder takes values only in ascending order.
            OffsetSlice::Compressed { .. } => true,
            OffsetSlice::Fixed { .. } => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_wide_and_compressed_slices_answer_alike() {
        let wide = vec![0u64, 3, 3, 7, 12];
        let narrow: Vec<u32> = wide.iter().map(|&value| value as u32).collect();
        let compressed = Offsets::compressed_from(&wide).unwrap();
        assert!(Offsets::compressed_from(&[3, 2]).is_none());
        for slice in [
            OffsetSlice::Wide(&wide),
            OffsetSlice::Narrow(&narrow),
            compressed.as_slice(),
        ] {
            assert_eq!(slice.len(), 5);
            assert_eq!(slice.get(3), 7);
            assert_eq!(slice.degree(0), 3);
            assert_eq!(slice.degree(1), 0);
            assert_eq!(slice.bounds(2), 3..7);
            let part = slice.vertices(1..3);
            assert_eq!(part.len(), 3);
            assert_eq!((part.get(0), part.get(2)), (3, 7));
            assert_eq!(slice.partition_point(|end| end <= 3), 3);
            assert!(slice.ascending());
            slice.widened(|wide| assert_eq!(wide, &[0, 3, 3, 7, 12]));
        }
        let compressed_part = compressed.as_slice().vertices(1..4);
        assert_eq!(compressed_part.partition_point(|end| end < 7), 2);
        compressed_part.widened(|wide| assert_eq!(wide, &[3, 3, 7, 12]));
        assert_eq!(compressed_part.degree(2), 5);
        let fixed = Offsets::Fixed { width: 2, count: 5 };
        let slice = fixed.as_slice();
        assert_eq!((slice.len(), slice.get(3), slice.degree(1)), (5, 6, 2));
        assert_eq!(slice.bounds(2), 4..6);
        let part = slice.vertices(1..3);
        part.widened(|wide| assert_eq!(wide, &[2, 4, 6]));
        assert_eq!(part.partition_point(|end| end <= 4), 2);
        assert_eq!(fixed.bytes(), 0);
        assert!(offsets_fit_narrow(u32::MAX as u64));
        assert!(!offsets_fit_narrow(u32::MAX as u64 + 1));
    }
}
