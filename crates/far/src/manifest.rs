//! What a far graph's manifest says, and the keys its chunks are stored under.
//!
//! The whole `.sl` file is stored in chunks of `chunk_bytes` at their file offsets, so a
//! read at a file position is a `GETRANGE` of one chunk (two where it crosses a chunk's
//! end). Chunk keys carry no hash tag, so they spread over every slot of a cluster, and
//! they carry the push's generation (16 hex digits, new for every push), so the chunks
//! of two pushes to one name never mix. The manifest names its generation and is set
//! last, once every chunk is confirmed: a graph whose manifest exists is stored whole,
//! and keys under a name whose generation no manifest names are an incomplete push.

use serde::{Deserialize, Serialize};
use swapless_format::{GraphFile, SectionKind};

use crate::FarError;

/// The manifest format this build writes; it reads this one and the one before.
pub const MANIFEST_FORMAT: u32 = 2;
/// The format before generations: its chunk keys carry the fingerprint's first 16 hex
/// digits where a generation stands now, so its graphs still run.
const FORMAT_WITHOUT_GENERATION: u32 = 1;
/// Hex digits of a generation.
const GENERATION_DIGITS: usize = 16;

/// A far graph's manifest.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    /// [`MANIFEST_FORMAT`].
    pub format: u32,
    /// The graph's fingerprint ([`GraphFile::fingerprint`]) in hex.
    pub fingerprint: String,
    /// The push whose chunks this manifest names (16 hex digits); absent in format 1.
    #[serde(default)]
    pub generation: String,
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
        generation: String,
        chunk_bytes: u64,
        chunk_checksums: Vec<u64>,
    ) -> Result<Manifest, swapless_format::FormatError> {
        let flags = graph.flags();
        let non_negative_weights = graph.out_weights_are_non_negative()?;
        Ok(Manifest {
            format: MANIFEST_FORMAT,
            fingerprint: fingerprint_hex(graph.fingerprint()),
            generation,
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
        let mut manifest: Manifest =
            serde_json::from_slice(bytes).map_err(|error| bad(error.to_string()))?;
        if manifest.format != MANIFEST_FORMAT && manifest.format != FORMAT_WITHOUT_GENERATION {
            return Err(bad(format!(
                "it is in format {}, and this swapless reads formats {FORMAT_WITHOUT_GENERATION} \
                 and {MANIFEST_FORMAT}; push the graph again with this swapless",
                manifest.format
            )));
        }
        if manifest.fingerprint.len() != 32 || !is_hex(&manifest.fingerprint) {
            return Err(bad(format!(
                "its fingerprint {:?} is not 32 hex digits",
                manifest.fingerprint
            )));
        }
        if manifest.format == FORMAT_WITHOUT_GENERATION {
            manifest.generation = manifest.fingerprint[..GENERATION_DIGITS].to_string();
        }
        if !is_generation(&manifest.generation) {
            return Err(bad(format!(
                "its generation {:?} is not {GENERATION_DIGITS} hex digits",
                manifest.generation
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

    /// The key of chunk `index` of this manifest's generation of the graph `name`.
    pub(crate) fn chunk_key(&self, name: &str, index: u64) -> String {
        chunk_key(name, &self.generation, index)
    }

    /// The keys of chunks `indices` of this manifest's generation of the graph `name`.
    pub(crate) fn chunk_keys(&self, name: &str, indices: std::ops::Range<u64>) -> Vec<String> {
        indices.map(|index| self.chunk_key(name, index)).collect()
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

/// The key of chunk `index` of the push `generation` of the graph `name`.
pub(crate) fn chunk_key(name: &str, generation: &str, index: u64) -> String {
    format!("swapless:{name}:{generation}:{index}")
}

/// A generation for a new push: 16 hex digits from the clock, the process and a hasher's
/// random keys, so two pushes (on one machine or two) do not draw the same.
pub(crate) fn new_generation() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    hasher.write_u128(nanos);
    hasher.write_u32(std::process::id());
    format!("{:016x}", hasher.finish())
}

/// The pattern every key this project stores matches.
pub(crate) const ALL_KEYS_PATTERN: &str = "swapless:*";

/// The pattern that matches every key of the graph `name` (and of names that start with
/// `name:`, which [`StoredKey::parse`] tells apart): `name` with glob characters escaped.
pub(crate) fn keys_pattern(name: &str) -> String {
    let mut pattern = String::from("swapless:");
    for character in name.chars() {
        if matches!(character, '*' | '?' | '[' | ']' | '\\') {
            pattern.push('\\');
        }
        pattern.push(character);
    }
    pattern.push_str(":*");
    pattern
}

/// What a key under `swapless:` is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum StoredKey {
    /// The manifest of the graph it names.
    Manifest {
        /// The graph's name.
        name: String,
    },
    /// A chunk of one push of the graph it names.
    Chunk {
        /// The graph's name.
        name: String,
        /// The push's generation.
        generation: String,
    },
}

impl StoredKey {
    /// What `key` is, if it is a key this project stores.
    pub(crate) fn parse(key: &str) -> Option<StoredKey> {
        let rest = key.strip_prefix("swapless:")?;
        if let Some(name) = rest.strip_suffix(":manifest") {
            return Some(StoredKey::Manifest {
                name: name.to_string(),
            });
        }
        let (rest, index) = rest.rsplit_once(':')?;
        let (name, generation) = rest.rsplit_once(':')?;
        let is_index = !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit());
        (is_index && is_generation(generation)).then(|| StoredKey::Chunk {
            name: name.to_string(),
            generation: generation.to_string(),
        })
    }

    /// The graph's name.
    pub(crate) fn name(&self) -> &str {
        match self {
            StoredKey::Manifest { name } | StoredKey::Chunk { name, .. } => name,
        }
    }
}

/// Whether `text` is a generation: 16 hex digits.
fn is_generation(text: &str) -> bool {
    text.len() == GENERATION_DIGITS && is_hex(text)
}

/// Whether `text` is all hex digits.
fn is_hex(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_that_does_not_add_up_is_refused_in_one_sentence() {
        let good = Manifest {
            format: MANIFEST_FORMAT,
            fingerprint: "0123456789abcdef0123456789abcdef".to_string(),
            generation: "00000000000000ff".to_string(),
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
        let cases: [(&str, Damage); 6] = [
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
            ("this swapless reads formats", |m| m.format = 99),
            ("generation", |m| m.generation = "g1".to_string()),
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

    #[test]
    fn a_format_1_manifest_names_the_chunks_it_was_stored_under() {
        let mut old = serde_json::json!({
            "format": 1, "fingerprint": "0123456789abcdef0123456789abcdef", "file_bytes": 4096,
            "chunk_bytes": 4096, "vertices": 1, "arcs": 0, "directed": false, "weighted": false,
            "non_negative_weights": true, "sections": [], "chunk_checksums": [0],
        });
        let manifest = Manifest::decode("g", old.to_string().as_bytes()).unwrap();
        assert_eq!(manifest.chunk_key("g", 0), "swapless:g:0123456789abcdef:0");
        old["format"] = 2.into();
        let error = Manifest::decode("g", old.to_string().as_bytes()).unwrap_err();
        assert!(error.to_string().contains("generation"), "{error}");
    }

    #[test]
    fn keys_of_one_name_are_told_from_keys_of_a_longer_name() {
        let chunk = |name: &str, generation: &str| StoredKey::Chunk {
            name: name.to_string(),
            generation: generation.to_string(),
        };
        let generation = "0123456789abcdef";
        assert_eq!(
            StoredKey::parse(&chunk_key("a:b", generation, 7)),
            Some(chunk("a:b", generation))
        );
        assert_eq!(
            StoredKey::parse(&manifest_key("a:b")),
            Some(StoredKey::Manifest {
                name: "a:b".to_string()
            })
        );
        assert_eq!(StoredKey::parse("swapless:a:notahexgeneration:7"), None);
        assert_eq!(StoredKey::parse("other:a:0123456789abcdef:7"), None);
        assert_eq!(keys_pattern("w*b[1]"), "swapless:w\\*b\\[1\\]:*");
        assert_ne!(new_generation(), new_generation());
    }
}
