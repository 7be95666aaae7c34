//! What a far graph's manifest says, and the keys its chunks are stored under.
//!
//! The whole `.sl` file is stored in chunks of `chunk_bytes` at their file offsets, so a
//! read at a file position is a `GETRANGE` of one chunk (two where it crosses a chunk's
//! end). Chunk keys carry no hash tag, so they spread over every slot of a cluster, and
//! they carry the graph's fingerprint, so a replaced graph's chunks are never mistaken
//! for the old one's. The manifest is written last: a graph whose manifest exists is
//! stored whole.

use serde::{Deserialize, Serialize};
use swapless_format::{GraphFile, SectionKind};

use super::FarError;

/// The manifest format this build writes and reads.
pub const MANIFEST_FORMAT: u32 = 1;

/// A far graph's manifest.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    /// [`MANIFEST_FORMAT`].
    pub format: u32,
    /// The graph's fingerprint ([`GraphFile::fingerprint`]) in hex.
    pub fingerprint: String,
    /// The `.sl` file's length.
    pub file_bytes: u64,
    /// Bytes a chunk holds (the last may be shorter).
    pub chunk_bytes: u64,
    /// Vertices, arcs and flags, for listings.
    pub vertices: u64,
    /// Stored arcs.
    pub arcs: u64,
    /// Whether the graph is directed.
    pub directed: bool,
    /// Whether it has weights.
    pub weighted: bool,
    /// Whether no weight is negative (its weights are not in a run's local cache, so a
    /// kernel that refuses negative weights learns it here).
    pub non_negative_weights: bool,
    /// The file's sections.
    pub sections: Vec<ManifestSection>,
    /// xxh3 of each chunk, in order.
    pub chunk_checksums: Vec<u64>,
}

/// One section of the file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ManifestSection {
    /// Its name in the section table.
    pub name: String,
    /// Its first byte in the file.
    pub offset: u64,
    /// Its length.
    pub length: u64,
}

/// The sections a run reads through the read pipeline (fetched page by page); the
/// others are the vertex sections, kept in the local cache.
pub(crate) fn fetched_while_running(name: &str) -> bool {
    [
        SectionKind::OutNeighbors,
        SectionKind::OutWeights,
        SectionKind::InNeighbors,
        SectionKind::InWeights,
        SectionKind::OutHeads,
    ]
    .iter()
    .any(|kind| kind.name() == name)
}

impl Manifest {
    /// The manifest of `graph` stored in chunks of `chunk_bytes` with these checksums.
    pub(crate) fn describe(
        graph: &GraphFile,
        chunk_bytes: u64,
        chunk_checksums: Vec<u64>,
    ) -> Result<Manifest, swapless_format::FormatError> {
        let flags = graph.flags();
        let mut non_negative_weights = true;
        graph.for_each_piece(SectionKind::OutWeights, &mut |piece| {
            non_negative_weights &= piece
                .chunks_exact(4)
                .all(|bytes| f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) >= 0.0);
        })?;
        Ok(Manifest {
            format: MANIFEST_FORMAT,
            fingerprint: fingerprint_hex(graph.fingerprint()),
            file_bytes: graph.file_bytes(),
            chunk_bytes,
            vertices: graph.num_vertices() as u64,
            arcs: graph.num_arcs() as u64,
            directed: flags.directed,
            weighted: flags.weighted,
            non_negative_weights,
            sections: graph
                .header()
                .sections
                .iter()
                .map(|entry| ManifestSection {
                    name: entry.name.clone(),
                    offset: entry.offset,
                    length: entry.length,
                })
                .collect(),
            chunk_checksums,
        })
    }

    /// Reads a manifest stored for the graph `name`.
    pub(crate) fn decode(name: &str, bytes: &[u8]) -> Result<Manifest, FarError> {
        let bad = |detail: String| FarError::BadManifest {
            name: name.to_string(),
            detail,
        };
        let manifest: Manifest =
            serde_json::from_slice(bytes).map_err(|error| bad(error.to_string()))?;
        if manifest.format != MANIFEST_FORMAT {
            return Err(bad(format!(
                "it is in format {}, and this swapless reads format {MANIFEST_FORMAT}",
                manifest.format
            )));
        }
        if manifest.fingerprint.len() != 32
            || !manifest.fingerprint.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return Err(bad(format!(
                "its fingerprint {:?} is not 32 hex digits",
                manifest.fingerprint
            )));
        }
        if let Some(section) = manifest.sections.iter().find(|section| {
            section
                .offset
                .checked_add(section.length)
                .is_none_or(|end| end > manifest.file_bytes)
        }) {
            return Err(bad(format!(
                "its section {:?} runs past the file's {} bytes",
                section.name, manifest.file_bytes
            )));
        }
        if !(4096..=(64 << 20)).contains(&manifest.chunk_bytes)
            || manifest.chunks() != manifest.chunk_checksums.len() as u64
        {
            return Err(bad(format!(
                "its chunks ({} of {} bytes for a file of {}) do not add up",
                manifest.chunk_checksums.len(),
                manifest.chunk_bytes,
                manifest.file_bytes
            )));
        }
        Ok(manifest)
    }

    /// How many chunks the file takes.
    pub fn chunks(&self) -> u64 {
        self.file_bytes.div_ceil(self.chunk_bytes)
    }

    /// Bytes before the first section: the header and its section table.
    pub(crate) fn header_bytes(&self) -> u64 {
        self.sections
            .iter()
            .map(|section| section.offset)
            .min()
            .unwrap_or(0)
    }

    /// The byte range of the file chunk `index` holds.
    pub(crate) fn chunk_range(&self, index: u64) -> std::ops::Range<u64> {
        let start = index * self.chunk_bytes;
        start..(start + self.chunk_bytes).min(self.file_bytes)
    }
}

/// A fingerprint as 32 hex digits.
pub(crate) fn fingerprint_hex(fingerprint: u128) -> String {
    format!("{fingerprint:032x}")
}

/// The key of the manifest of the graph `name`.
pub(crate) fn manifest_key(name: &str) -> String {
    format!("swapless:{name}:manifest")
}

/// The key of chunk `index` of the graph `name` with fingerprint `fingerprint` (hex).
pub(crate) fn chunk_key(name: &str, fingerprint: &str, index: u64) -> String {
    format!(
        "swapless:{name}:{}:{index}",
        &fingerprint[..16.min(fingerprint.len())]
    )
}

/// The pattern every manifest key matches, for listings.
pub(crate) const MANIFEST_PATTERN: &str = "swapless:*:manifest";

/// The graph's name in a manifest key, if it is one.
pub(crate) fn name_of_manifest_key(key: &str) -> Option<&str> {
    key.strip_prefix("swapless:")?.strip_suffix(":manifest")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_that_does_not_add_up_is_refused_in_one_sentence() {
        let good = Manifest {
            format: MANIFEST_FORMAT,
            fingerprint: "0123456789abcdef0123456789abcdef".to_string(),
            file_bytes: 10_000,
            chunk_bytes: 4096,
            vertices: 1,
            arcs: 0,
            directed: false,
            weighted: false,
            non_negative_weights: true,
            sections: Vec::new(),
            chunk_checksums: vec![0; 3],
        };
        let encode = |manifest: &Manifest| serde_json::to_vec(manifest).unwrap();
        assert_eq!(Manifest::decode("g", &encode(&good)).unwrap(), good);
        type Damage = fn(&mut Manifest);
        let cases: [(&str, Damage); 5] = [
            ("runs past the file", |m| {
                m.sections.push(ManifestSection {
                    name: "out_neighbors".to_string(),
                    offset: 8192,
                    length: u64::MAX,
                })
            }),
            ("not 32 hex digits", |m| m.fingerprint = "short".to_string()),
            ("do not add up", |m| m.chunk_checksums.truncate(2)),
            ("do not add up", |m| m.chunk_bytes = 17),
            ("this swapless reads format", |m| m.format = 99),
        ];
        for (says, damage) in cases {
            let mut manifest = good.clone();
            damage(&mut manifest);
            let error = Manifest::decode("g", &encode(&manifest))
                .unwrap_err()
                .to_string();
            assert!(error.contains(says), "{error}");
        }
        let error = Manifest::decode("g", b"{not json").unwrap_err().to_string();
        assert!(error.contains("manifest of \"g\""), "{error}");
    }
}
