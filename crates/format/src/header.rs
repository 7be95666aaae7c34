//! The fixed 4 KiB header at the start of every `.sl` file.

use std::path::Path;

use crate::{FormatError, Result};

/// Magic bytes that open every `.sl` file.
pub const MAGIC: &[u8; 8] = b"SWAPLESS";
/// The newest format version this build reads, and the one it writes for a graph whose
/// lists are compressed.
///
/// Version 4 bit-packs the tails of compressed lists that version 3 coded in Stream
/// VByte ([`crate::compressed_lists::GapCoding`]; version 3 files are still read).
/// Version 3 brought compressed neighbor lists ([`GraphFlags::compressed_lists`]); a
/// graph with plain lists is still written as version 2, so that older readers keep
/// reading it. Version 2 checksums every 4 KiB page of a section; version 1 (still read)
/// checksummed 1 MiB blocks, which a disk tier's reads of a page or a 256 KiB chunk could
/// not check.
pub const FORMAT_VERSION: u32 = 4;
/// The first version that could hold compressed lists.
pub const FIRST_COMPRESSED_VERSION: u32 = 3;
/// The version written for a graph whose lists are plain `u32` ids.
pub const PLAIN_LISTS_VERSION: u32 = 2;
/// Every section starts at a multiple of this (the page size, and O_DIRECT's alignment).
pub const SECTION_ALIGN: u64 = 4096;
/// Size of one checksummed block of a section in the files this build writes: a page,
/// the least a disk tier reads, so that every read can be checked before it is used.
pub const CHECKSUM_BLOCK_BYTES: u64 = SECTION_ALIGN;
/// Size of one checksummed block in version-1 files.
pub const VERSION_1_CHECKSUM_BLOCK_BYTES: u64 = 1 << 20;
/// Bytes reserved for the header; the first section starts here.
pub const HEADER_BYTES: u64 = SECTION_ALIGN;

/// Out-neighbors per vertex in the `out_heads` section (cc's first links take two).
pub const HEAD_ENTRIES: u64 = 2;

const FIXED_FIELDS_BYTES: usize = 56;
const SECTION_ENTRY_BYTES: usize = 32;
const SECTION_NAME_BYTES: usize = 16;
/// How many sections fit in the header next to the fixed fields and the header checksum.
pub const MAX_SECTIONS: usize =
    (HEADER_BYTES as usize - FIXED_FIELDS_BYTES - 8) / SECTION_ENTRY_BYTES;

/// The sections swapless knows; each is stored under its name in the section table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SectionKind {
    /// `u64 × (n+1)`: where each vertex's out-list starts in `out_neighbors`.
    OutOffsets,
    /// `u32 × HEAD_ENTRIES × n`: each vertex's first [`HEAD_ENTRIES`] out-neighbors, the
    /// vertex's own id where its list is shorter. Optional: a pass that needs only the
    /// start of every list (cc's first links) reads these 8 bytes a vertex instead of
    /// every list.
    OutHeads,
    /// `u32` ids, each vertex's list sorted ascending; in a file with compressed lists,
    /// the lists in pages of delta-coded chunks, weights beside their ids
    /// (see [`crate::compressed_lists`]).
    OutNeighbors,
    /// `u64 × (n+1)`, in a file with compressed lists only: where each vertex's list
    /// starts in `out_neighbors`, in bytes (`out_offsets` keep counting entries, so
    /// degrees read as before).
    OutPositions,
    /// `f32`, parallel to `out_neighbors`.
    OutWeights,
    /// `u64 × (n+1)` for in-lists (directed graphs only).
    InOffsets,
    /// `u32` ids of in-neighbors, each list sorted ascending (compressed as
    /// `out_neighbors` is, in a file with compressed lists).
    InNeighbors,
    /// `u64 × (n+1)`: where each in-list starts in a compressed `in_neighbors`, in bytes.
    InPositions,
    /// `f32`, parallel to `in_neighbors`.
    InWeights,
    /// `u32 × n`: new id → original id, after reordering.
    Permutation,
    /// `i64 × n`: the input's id of each vertex, ascending, when its ids were compacted
    /// (a vertex's "original id" in the other sections is its position here).
    VertexIds,
    /// `u64 × (n+1)`: where each vertex's name starts in `names`.
    NameOffsets,
    /// The vertices' names (UTF-8), ascending by their bytes, when the input named its
    /// vertices with text.
    VertexNames,
    /// `u64` xxh3 per checksum block (4 KiB; 1 MiB in version 1) of every other section,
    /// in section-table order.
    Checksums,
}

impl SectionKind {
    /// Every kind, in the order the builder lays sections out.
    pub const ALL: [SectionKind; 14] = [
        SectionKind::OutOffsets,
        SectionKind::OutHeads,
        SectionKind::OutPositions,
        SectionKind::OutNeighbors,
        SectionKind::OutWeights,
        SectionKind::InOffsets,
        SectionKind::InPositions,
        SectionKind::InNeighbors,
        SectionKind::InWeights,
        SectionKind::Permutation,
        SectionKind::VertexIds,
        SectionKind::NameOffsets,
        SectionKind::VertexNames,
        SectionKind::Checksums,
    ];

    /// The name stored in the section table.
    pub fn name(self) -> &'static str {
        match self {
            SectionKind::OutOffsets => "out_offsets",
            SectionKind::OutHeads => "out_heads",
            SectionKind::OutNeighbors => "out_neighbors",
            SectionKind::OutPositions => "out_positions",
            SectionKind::OutWeights => "out_weights",
            SectionKind::InOffsets => "in_offsets",
            SectionKind::InNeighbors => "in_neighbors",
            SectionKind::InPositions => "in_positions",
            SectionKind::InWeights => "in_weights",
            SectionKind::Permutation => "permutation",
            SectionKind::VertexIds => "original_ids",
            SectionKind::NameOffsets => "name_offsets",
            SectionKind::VertexNames => "names",
            SectionKind::Checksums => "checksums",
        }
    }

    /// The kind stored under `name`, if swapless knows it.
    pub fn from_name(name: &str) -> Option<SectionKind> {
        SectionKind::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
    }
}

/// Boolean properties of a graph, stored as bits in the header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GraphFlags {
    /// Edges have a direction; the file then also holds in-edges.
    pub directed: bool,
    /// Every edge carries an `f32` weight.
    pub weighted: bool,
    /// Vertices were renumbered; the `permutation` section maps new ids to original ids.
    pub reordered: bool,
    /// What the input called its vertices.
    pub ids: IdKind,
    /// Neighbor lists are compressed (version 3): `out_positions` (and `in_positions`)
    /// locate them, and weights lie beside their ids, with no weight sections.
    pub compressed_lists: bool,
    /// Some lists hold their own vertex: the graph was built keeping self-loops, and has
    /// some ([`Header::self_loops`] counts them). A reader that predates self-loops
    /// refuses the file rather than count them as edges to other vertices.
    pub self_loops: bool,
}

/// What the input called its vertices, and so what results are keyed by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IdKind {
    /// The integers `0..n` themselves.
    #[default]
    Dense,
    /// Any 64-bit integers, compacted to `0..n` in ascending order (`original_ids`).
    Integers,
    /// Text, compacted to `0..n` in ascending byte order (`name_offsets`,
    /// `names`).
    Names,
}

impl GraphFlags {
    const DIRECTED: u32 = 1;
    const WEIGHTED: u32 = 2;
    const REORDERED: u32 = 4;
    const INTEGER_IDS: u32 = 8;
    const NAMES: u32 = 16;
    const COMPRESSED_LISTS: u32 = 32;
    const SELF_LOOPS: u32 = 64;
    const KNOWN: u32 = Self::DIRECTED
        | Self::WEIGHTED
        | Self::REORDERED
        | Self::INTEGER_IDS
        | Self::NAMES
        | Self::COMPRESSED_LISTS
        | Self::SELF_LOOPS;

    /// The format version a file with these flags is written as.
    pub fn version(self) -> u32 {
        match self.compressed_lists {
            true => FORMAT_VERSION,
            false => PLAIN_LISTS_VERSION,
        }
    }

    fn to_bits(self) -> u32 {
        let mut bits = 0;
        if self.directed {
            bits |= Self::DIRECTED;
        }
        if self.weighted {
            bits |= Self::WEIGHTED;
        }
        if self.reordered {
            bits |= Self::REORDERED;
        }
        if self.compressed_lists {
            bits |= Self::COMPRESSED_LISTS;
        }
        if self.self_loops {
            bits |= Self::SELF_LOOPS;
        }
        bits |= match self.ids {
            IdKind::Dense => 0,
            IdKind::Integers => Self::INTEGER_IDS,
            IdKind::Names => Self::NAMES,
        };
        bits
    }

    fn from_bits(bits: u32) -> Option<GraphFlags> {
        let ids = match (bits & Self::INTEGER_IDS != 0, bits & Self::NAMES != 0) {
            (false, false) => IdKind::Dense,
            (true, false) => IdKind::Integers,
            (false, true) => IdKind::Names,
            (true, true) => return None,
        };
        (bits & !Self::KNOWN == 0).then_some(GraphFlags {
            directed: bits & Self::DIRECTED != 0,
            weighted: bits & Self::WEIGHTED != 0,
            reordered: bits & Self::REORDERED != 0,
            ids,
            compressed_lists: bits & Self::COMPRESSED_LISTS != 0,
            self_loops: bits & Self::SELF_LOOPS != 0,
        })
    }
}

/// One row of the section table: where a section lives in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionEntry {
    /// The section's name (see [`SectionKind::name`]).
    pub name: String,
    /// First byte of the section; a multiple of [`SECTION_ALIGN`].
    pub offset: u64,
    /// Length in bytes (not padded).
    pub length: u64,
}

impl SectionEntry {
    /// How many checksum blocks of `block_bytes` cover this section.
    pub fn block_count(&self, block_bytes: u64) -> u64 {
        self.length.div_ceil(block_bytes)
    }
}

/// A graph's counts as its header stores them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GraphCounts {
    /// Vertices `n`.
    pub vertices: u64,
    /// Stored arcs (an undirected edge twice, a self-loop once).
    pub arcs: u64,
    /// Vertices whose lists hold themselves.
    pub self_loops: u64,
}

/// The decoded header of a `.sl` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version of the file.
    pub version: u32,
    /// Directed / weighted / reordered.
    pub flags: GraphFlags,
    /// Bytes per vertex id in neighbor lists (4).
    pub id_bytes: u32,
    /// Number of vertices `n`; ids are `0..n`.
    pub num_vertices: u64,
    /// Number of stored out-neighbor entries (an undirected edge is stored twice, a
    /// self-loop once).
    pub num_arcs: u64,
    /// Vertices whose lists hold themselves (0 unless [`GraphFlags::self_loops`]); a
    /// 32-bit field, as a vertex has at most one.
    pub self_loops: u64,
    /// Bytes each checksum covers ([`CHECKSUM_BLOCK_BYTES`]; 1 MiB in version 1).
    pub checksum_block_bytes: u64,
    /// The section table, in file order.
    pub sections: Vec<SectionEntry>,
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

impl Header {
    /// The entry for `kind`, if the file has that section.
    pub fn section(&self, kind: SectionKind) -> Option<&SectionEntry> {
        self.sections.iter().find(|entry| entry.name == kind.name())
    }

    /// Serializes the header into its 4 KiB block.
    pub fn encode(&self) -> Vec<u8> {
        assert!(self.sections.len() <= MAX_SECTIONS, "too many sections");
        let mut bytes = vec![0u8; HEADER_BYTES as usize];
        bytes[0..8].copy_from_slice(MAGIC);
        bytes[8..12].copy_from_slice(&self.version.to_le_bytes());
        bytes[12..16].copy_from_slice(&self.flags.to_bits().to_le_bytes());
        bytes[16..20].copy_from_slice(&self.id_bytes.to_le_bytes());
        let weight_bytes: u32 = if self.flags.weighted { 4 } else { 0 };
        bytes[20..24].copy_from_slice(&weight_bytes.to_le_bytes());
        bytes[24..32].copy_from_slice(&self.num_vertices.to_le_bytes());
        bytes[32..40].copy_from_slice(&self.num_arcs.to_le_bytes());
        bytes[40..48].copy_from_slice(&self.checksum_block_bytes.to_le_bytes());
        bytes[48..52].copy_from_slice(&(self.sections.len() as u32).to_le_bytes());
        bytes[52..56].copy_from_slice(&(self.self_loops as u32).to_le_bytes());
        let mut at = FIXED_FIELDS_BYTES;
        for entry in &self.sections {
            let name = entry.name.as_bytes();
            bytes[at..at + name.len()].copy_from_slice(name);
            bytes[at + 16..at + 24].copy_from_slice(&entry.offset.to_le_bytes());
            bytes[at + 24..at + 32].copy_from_slice(&entry.length.to_le_bytes());
            at += SECTION_ENTRY_BYTES;
        }
        let checksum = xxhash_rust::xxh3::xxh3_64(&bytes[..at]);
        bytes[at..at + 8].copy_from_slice(&checksum.to_le_bytes());
        bytes
    }

    /// Parses and validates a header block read from `path`.
    pub fn decode(bytes: &[u8], path: &Path) -> Result<Header> {
        let corrupt = |detail: String| FormatError::Corrupt {
            path: path.to_path_buf(),
            detail,
        };
        if bytes.len() < 8 || &bytes[0..8] != MAGIC {
            return Err(FormatError::NotGraphFile {
                path: path.to_path_buf(),
            });
        }
        if bytes.len() < HEADER_BYTES as usize {
            return Err(FormatError::Truncated {
                path: path.to_path_buf(),
                detail: format!(
                    "the file has {} bytes but its header alone needs {HEADER_BYTES}",
                    bytes.len()
                ),
            });
        }
        let version = read_u32(bytes, 8);
        // The checksum is tested before the version is believed: a flipped version byte
        // is damage, not a newer file. A newer swapless that changed the header's
        // layout would fail it too, which the message allows for.
        let section_count = read_u32(bytes, 48) as usize;
        let end = FIXED_FIELDS_BYTES + section_count.min(MAX_SECTIONS) * SECTION_ENTRY_BYTES;
        let intact = read_u64(bytes, end) == xxhash_rust::xxh3::xxh3_64(&bytes[..end]);
        let supported = (1..=FORMAT_VERSION).contains(&version);
        if !intact && !supported {
            return Err(corrupt(format!(
                "the header fails its checksum and names format version {version}, which does not exist (this swapless reads 1..{FORMAT_VERSION}); it was damaged, or written by a newer swapless with another header layout"
            )));
        }
        if !supported {
            return Err(FormatError::UnsupportedVersion {
                path: path.to_path_buf(),
                found: version,
                supported: FORMAT_VERSION,
            });
        }
        if section_count > MAX_SECTIONS {
            return Err(corrupt(format!(
                "the header claims {section_count} sections (at most {MAX_SECTIONS} fit)"
            )));
        }
        if !intact {
            return Err(corrupt("the header fails its checksum".to_string()));
        }
        let flags = GraphFlags::from_bits(read_u32(bytes, 12))
            .ok_or_else(|| corrupt(format!("unknown flag bits {:#x}", read_u32(bytes, 12))))?;
        if flags.compressed_lists && version < FIRST_COMPRESSED_VERSION {
            return Err(corrupt(format!(
                "a version {version} file cannot hold compressed lists (version {FIRST_COMPRESSED_VERSION} brought them)"
            )));
        }
        let num_vertices = read_u64(bytes, 24);
        let num_arcs = read_u64(bytes, 32);
        let self_loops = u64::from(read_u32(bytes, 52));
        if flags.self_loops != (self_loops > 0) || self_loops > num_vertices.min(num_arcs) {
            return Err(corrupt(format!(
                "the header counts {self_loops} self-loops among {num_vertices} vertices and {num_arcs} arcs, with the self-loop flag {}",
                if flags.self_loops { "set" } else { "clear" }
            )));
        }
        let id_bytes = read_u32(bytes, 16);
        if id_bytes != 4 {
            return Err(corrupt(format!(
                "vertex ids of {id_bytes} bytes are not supported (only 4)"
            )));
        }
        let block_bytes = read_u64(bytes, 40);
        let version_block_bytes = match version {
            1 => VERSION_1_CHECKSUM_BLOCK_BYTES,
            _ => CHECKSUM_BLOCK_BYTES,
        };
        if block_bytes != version_block_bytes {
            return Err(corrupt(format!(
                "checksum blocks of {block_bytes} bytes are not supported in a version {version} file"
            )));
        }
        let mut sections = Vec::with_capacity(section_count);
        for index in 0..section_count {
            let at = FIXED_FIELDS_BYTES + index * SECTION_ENTRY_BYTES;
            let raw_name = &bytes[at..at + SECTION_NAME_BYTES];
            let name_len = raw_name
                .iter()
                .position(|&b| b == 0)
                .unwrap_or(SECTION_NAME_BYTES);
            let name = std::str::from_utf8(&raw_name[..name_len])
                .map_err(|_| corrupt(format!("section {index} has a name that is not UTF-8")))?
                .to_string();
            let offset = read_u64(bytes, at + 16);
            let length = read_u64(bytes, at + 24);
            if !offset.is_multiple_of(SECTION_ALIGN) || offset < HEADER_BYTES {
                return Err(corrupt(format!(
                    "section {name} starts at byte {offset}, not on a 4 KiB boundary after the header"
                )));
            }
            sections.push(SectionEntry {
                name,
                offset,
                length,
            });
        }
        Ok(Header {
            version,
            flags,
            id_bytes,
            num_vertices,
            num_arcs,
            self_loops,
            checksum_block_bytes: block_bytes,
            sections,
        })
    }

    /// Length in bytes that `kind` must have for this header's counts; `None` for the
    /// names, whose length their offsets give.
    pub fn expected_length(&self, kind: SectionKind) -> Option<u64> {
        let n = self.num_vertices;
        let m = self.num_arcs;
        match kind {
            SectionKind::OutOffsets | SectionKind::InOffsets => Some((n + 1) * 8),
            // Compressed lists are as long as their positions say, checked when loaded.
            SectionKind::OutNeighbors | SectionKind::InNeighbors if self.flags.compressed_lists => {
                None
            }
            SectionKind::OutNeighbors | SectionKind::InNeighbors => Some(m * self.id_bytes as u64),
            SectionKind::OutPositions | SectionKind::InPositions => Some((n + 1) * 8),
            SectionKind::OutWeights | SectionKind::InWeights => Some(m * 4),
            SectionKind::Permutation => Some(n * 4),
            SectionKind::VertexIds => Some(n * 8),
            SectionKind::NameOffsets => Some((n + 1) * 8),
            // As long as the names are: `name_offsets` says, checked when loaded.
            SectionKind::VertexNames => None,
            SectionKind::OutHeads => Some(n * HEAD_ENTRIES * 4),
            SectionKind::Checksums => Some(
                self.sections
                    .iter()
                    .filter(|entry| entry.name != SectionKind::Checksums.name())
                    .map(|entry| entry.block_count(self.checksum_block_bytes) * 8)
                    .sum(),
            ),
        }
    }

    /// The sections this header's flags require.
    pub fn required_sections(&self) -> Vec<SectionKind> {
        let mut kinds = vec![SectionKind::OutOffsets, SectionKind::OutNeighbors];
        let compressed = self.flags.compressed_lists;
        match compressed {
            true => kinds.push(SectionKind::OutPositions),
            false if self.flags.weighted => kinds.push(SectionKind::OutWeights),
            false => {}
        }
        if self.flags.directed {
            kinds.extend([SectionKind::InOffsets, SectionKind::InNeighbors]);
            match compressed {
                true => kinds.push(SectionKind::InPositions),
                false if self.flags.weighted => kinds.push(SectionKind::InWeights),
                false => {}
            }
        }
        if self.flags.reordered {
            kinds.push(SectionKind::Permutation);
        }
        match self.flags.ids {
            IdKind::Dense => {}
            IdKind::Integers => kinds.push(SectionKind::VertexIds),
            IdKind::Names => kinds.extend([SectionKind::NameOffsets, SectionKind::VertexNames]),
        }
        kinds.push(SectionKind::Checksums);
        kinds
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Header {
        Header {
            version: FORMAT_VERSION,
            flags: GraphFlags {
                directed: true,
                weighted: false,
                reordered: true,
                ids: IdKind::Dense,
                compressed_lists: true,
                self_loops: true,
            },
            id_bytes: 4,
            num_vertices: 10,
            num_arcs: 20,
            self_loops: 3,
            checksum_block_bytes: CHECKSUM_BLOCK_BYTES,
            sections: vec![SectionEntry {
                name: "out_offsets".into(),
                offset: 4096,
                length: 88,
            }],
        }
    }

    #[test]
    fn header_round_trips() {
        let header = sample();
        let bytes = header.encode();
        assert_eq!(Header::decode(&bytes, Path::new("x")).unwrap(), header);
    }

    #[test]
    fn newer_version_is_refused() {
        let mut header = sample();
        header.version = FORMAT_VERSION + 1;
        let bytes = header.encode();
        let error = Header::decode(&bytes, Path::new("x")).unwrap_err();
        assert!(
            matches!(error, FormatError::UnsupportedVersion { found, .. } if found == FORMAT_VERSION + 1)
        );
        assert!(error.to_string().contains("upgrade swapless"));
    }

    #[test]
    fn version_1_files_keep_their_1_mib_blocks() {
        let mut header = sample();
        header.version = 1;
        header.flags.compressed_lists = false;
        header.checksum_block_bytes = VERSION_1_CHECKSUM_BLOCK_BYTES;
        let bytes = header.encode();
        assert_eq!(Header::decode(&bytes, Path::new("x")).unwrap(), header);
        header.checksum_block_bytes = CHECKSUM_BLOCK_BYTES;
        let error = Header::decode(&header.encode(), Path::new("x")).unwrap_err();
        assert!(error.to_string().contains("version 1 file"), "{error}");
    }

    #[test]
    fn a_self_loop_count_must_agree_with_its_flag() {
        for (flag, count) in [(true, 0), (false, 2), (true, 11)] {
            let mut header = sample();
            header.flags.self_loops = flag;
            header.self_loops = count;
            let error = Header::decode(&header.encode(), Path::new("x")).unwrap_err();
            assert!(error.to_string().contains("self-loop"), "{error}");
        }
    }

    #[test]
    fn flipped_header_byte_is_caught() {
        let mut bytes = sample().encode();
        bytes[30] ^= 1;
        let error = Header::decode(&bytes, Path::new("x")).unwrap_err();
        assert!(
            error.to_string().contains("header fails its checksum"),
            "{error}"
        );
    }

    #[test]
    fn wrong_magic_is_not_a_graph() {
        let error = Header::decode(b"hello world, this is text", Path::new("x")).unwrap_err();
        assert!(matches!(error, FormatError::NotGraphFile { .. }));
    }
}
