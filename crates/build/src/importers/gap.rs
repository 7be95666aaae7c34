//! GAP benchmark suite serialized graphs (`.sg` unweighted, `.wsg` weighted),
//! as written by GAP's `converter`: a 1-byte directed flag, the number of
//! stored arcs and of vertices (both int64), then int64 out-offsets (n+1) and
//! the out-neighbors (int32 ids, or int32 id + int32 weight pairs), followed by
//! in-offsets and in-neighbors for directed graphs (not needed: we rebuild them).

use std::io::Read;
use std::path::{Path, PathBuf};

use super::ImportOptions;
use super::compressed::{InputReader, open_maybe_compressed};
use crate::builder::BATCH_EDGES;
use crate::source::{Direction, EdgeSource, InputEdge, MAX_VERTEX_ID};
use crate::{BuildError, Result};

const GAP_HEADER_BYTES: u64 = 1 + 8 + 8;

/// Streams the out-edges of a GAP `.sg`/`.wsg` file.
pub struct GapSource {
    path: PathBuf,
    reader: InputReader,
    options: ImportOptions,
    weighted_file: bool,
    directed: bool,
    vertices: u64,
    arcs: u64,
    offsets: Vec<u64>,
    arcs_read: u64,
    current_vertex: usize,
}

fn read_exact_or_truncated(
    reader: &mut InputReader,
    buffer: &mut [u8],
    path: &Path,
    what: &str,
) -> Result<()> {
    reader.read_exact(buffer).map_err(|error| {
        if error.kind() == std::io::ErrorKind::UnexpectedEof {
            BuildError::bad_input(
                path,
                format!("the GAP file is truncated: it ends inside its {what}"),
            )
        } else {
            BuildError::io(path, error)
        }
    })
}

impl GapSource {
    /// Opens a GAP file and reads its header and out-offsets.
    ///
    /// The offsets are held in memory (8 bytes a vertex); a header whose vertex count
    /// would need more than `budget_bytes` for them is refused before they are allocated.
    pub fn open(
        path: &Path,
        weighted_file: bool,
        options: ImportOptions,
        budget_bytes: Option<u64>,
    ) -> Result<GapSource> {
        let mut reader = open_maybe_compressed(path)?;
        let mut header = [0u8; GAP_HEADER_BYTES as usize];
        read_exact_or_truncated(&mut reader, &mut header, path, "header")?;
        let directed = match header[0] {
            0 => false,
            1 => true,
            other => {
                return Err(BuildError::bad_input(
                    path,
                    format!(
                        "this is not a GAP serialized graph (its first byte is {other}, not a 0/1 directed flag)"
                    ),
                ));
            }
        };
        let arcs = i64::from_le_bytes(header[1..9].try_into().expect("8 bytes"));
        let vertices = i64::from_le_bytes(header[9..17].try_into().expect("8 bytes"));
        if arcs < 0 || vertices < 0 || vertices as u64 > MAX_VERTEX_ID + 1 {
            return Err(BuildError::bad_input(
                path,
                format!("the GAP header is corrupt ({vertices} vertices, {arcs} arcs)"),
            ));
        }
        let (arcs, vertices) = (arcs as u64, vertices as u64);
        if options.weighted && !weighted_file {
            return Err(BuildError::NoWeights {
                path: path.to_path_buf(),
                line: None,
                found: "this is an unweighted GAP graph (.sg), not a .wsg",
            });
        }
        let neighbor_bytes = if weighted_file { 8 } else { 4 };
        let is_compressed = {
            let name = path.to_string_lossy().to_ascii_lowercase();
            name.ends_with(".gz") || name.ends_with(".zst")
        };
        if !is_compressed && reader.regular_file {
            let sides = if directed { 2 } else { 1 };
            let expected = (vertices + 1)
                .checked_mul(8)
                .and_then(|offsets| {
                    arcs.checked_mul(neighbor_bytes)
                        .map(|n| (offsets + n) * sides)
                })
                .map(|body| body + GAP_HEADER_BYTES);
            if expected != Some(reader.file_bytes) {
                let detail = match expected {
                    Some(expected) if reader.file_bytes < expected => format!(
                        "the GAP file is truncated: its header promises {expected} bytes but the file has {}",
                        reader.file_bytes
                    ),
                    Some(expected) => format!(
                        "the GAP file has {} bytes but its header describes {expected}; is it really a {} file?",
                        reader.file_bytes,
                        if weighted_file { ".wsg" } else { ".sg" }
                    ),
                    None => "the GAP header is corrupt (impossible sizes)".to_string(),
                };
                return Err(BuildError::bad_input(path, detail));
            }
        }
        let offsets_bytes = (vertices + 1) * 8;
        if let Some(budget_bytes) = budget_bytes
            && offsets_bytes > budget_bytes
        {
            return Err(BuildError::bad_input(
                path,
                format!(
                    "the GAP header claims {vertices} vertices, whose offsets alone take {}, more than the build's memory budget of {}; if the file is right, give the build more memory",
                    swapless_system::format_bytes(offsets_bytes),
                    swapless_system::format_bytes(budget_bytes)
                ),
            ));
        }
        let mut offsets = Vec::new();
        offsets
            .try_reserve_exact(vertices as usize + 1)
            .map_err(|_| {
                BuildError::bad_input(
                    path,
                    format!(
                        "the GAP header claims {vertices} vertices, and this machine cannot hold their offsets ({})",
                        swapless_system::format_bytes(offsets_bytes)
                    ),
                )
            })?;
        offsets.resize(vertices as usize + 1, 0u64);
        read_exact_or_truncated(
            &mut reader,
            bytemuck::cast_slice_mut(&mut offsets),
            path,
            "offsets",
        )?;
        if offsets[0] != 0 || offsets[vertices as usize] != arcs {
            return Err(BuildError::bad_input(
                path,
                format!(
                    "the GAP offsets are corrupt (they run from {} to {}, expected 0 to {arcs})",
                    offsets[0], offsets[vertices as usize]
                ),
            ));
        }
        if let Some(vertex) = offsets.windows(2).position(|pair| pair[0] > pair[1]) {
            return Err(BuildError::bad_input(
                path,
                format!("the GAP offsets are corrupt: they decrease at vertex {vertex}"),
            ));
        }
        Ok(GapSource {
            path: path.to_path_buf(),
            reader,
            options,
            weighted_file,
            directed,
            vertices,
            arcs,
            offsets,
            arcs_read: 0,
            current_vertex: 0,
        })
    }
}

impl EdgeSource for GapSource {
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn direction(&self) -> Direction {
        if self.directed && !self.options.undirected {
            Direction::Directed
        } else {
            Direction::Undirected
        }
    }

    fn weighted(&self) -> bool {
        self.options.weighted
    }

    fn weights_ignored(&self) -> bool {
        self.weighted_file && !self.options.weighted
    }

    fn declared_vertices(&self) -> Option<u64> {
        Some(self.vertices)
    }

    fn memory_bytes(&self) -> u64 {
        self.offsets.len() as u64 * 8
    }

    fn expected_duplicate_edges(&self) -> u64 {
        // An undirected GAP graph stores every edge in both directions.
        if self.directed { 0 } else { self.arcs / 2 }
    }

    fn progress_bytes(&self) -> (u64, Option<u64>) {
        self.reader.progress()
    }

    fn next_batch(&mut self, batch: &mut Vec<InputEdge>) -> Result<bool> {
        batch.clear();
        let count = (self.arcs - self.arcs_read).min(BATCH_EDGES as u64) as usize;
        if count == 0 {
            return Ok(false);
        }
        let words_per_arc = if self.weighted_file { 2 } else { 1 };
        let mut words = vec![0i32; count * words_per_arc];
        read_exact_or_truncated(
            &mut self.reader,
            bytemuck::cast_slice_mut(&mut words),
            &self.path,
            "neighbor lists",
        )?;
        for arc in words.chunks_exact(words_per_arc) {
            while self.offsets[self.current_vertex + 1] <= self.arcs_read {
                self.current_vertex += 1;
            }
            let neighbor = arc[0];
            if neighbor < 0 || neighbor as u64 >= self.vertices {
                return Err(BuildError::bad_input(
                    &self.path,
                    format!(
                        "the GAP file is corrupt: vertex {} has neighbor {neighbor}, outside 0..{}",
                        self.current_vertex, self.vertices
                    ),
                ));
            }
            let weight = if self.options.weighted {
                arc[1] as f32
            } else {
                1.0
            };
            batch.push(InputEdge {
                source: self.current_vertex as u32,
                destination: neighbor as u32,
                weight,
            });
            self.arcs_read += 1;
        }
        Ok(true)
    }
}
