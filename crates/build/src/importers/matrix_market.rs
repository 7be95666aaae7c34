//! Matrix Market coordinate files: `pattern`, `integer` or `real` values,
//! `general` or `symmetric` (the latter read as an undirected graph).
//! Indices are 1-based; the graph has max(rows, columns) vertices.

use std::path::{Path, PathBuf};

use super::ImportOptions;
use super::compressed::InputReader;
use super::text::{excerpt, parse_vertex_id, parse_weight, read_line_bounded};
use crate::builder::BATCH_EDGES;
use crate::source::{Direction, EdgeSource, InputEdge};
use crate::{BuildError, Result};

/// Reads a Matrix Market coordinate file.
pub struct MatrixMarketSource {
    path: PathBuf,
    reader: InputReader,
    options: ImportOptions,
    symmetric: bool,
    has_values: bool,
    vertices: u64,
    declared_entries: u64,
    entries_read: u64,
    line_number: u64,
    line: Vec<u8>,
}

impl MatrixMarketSource {
    /// Reads the banner and size line of `reader`.
    pub fn new(path: &Path, mut reader: InputReader, options: ImportOptions) -> Result<Self> {
        let mut line = Vec::new();
        let mut line_number = 0u64;
        let parse_error = |line_number: u64, line: &[u8], detail: &str| BuildError::Parse {
            path: path.to_path_buf(),
            line: line_number,
            text: excerpt(line),
            detail: detail.to_string(),
        };
        let mut read_line = |line: &mut Vec<u8>, line_number: &mut u64| -> Result<bool> {
            line.clear();
            *line_number += 1;
            Ok(read_line_bounded(&mut reader, line)
                .map_err(|source| BuildError::io(path, source))?
                > 0)
        };
        read_line(&mut line, &mut line_number)?;
        let banner = String::from_utf8_lossy(&line).to_ascii_lowercase();
        let words: Vec<&str> = banner.split_whitespace().collect();
        if words.len() != 5 || words[0] != "%%matrixmarket" || words[1] != "matrix" {
            return Err(parse_error(
                line_number,
                &line,
                "a Matrix Market file must start with `%%MatrixMarket matrix coordinate <field> <symmetry>`",
            ));
        }
        if words[2] != "coordinate" {
            return Err(parse_error(
                line_number,
                &line,
                "only sparse `coordinate` Matrix Market files describe graphs; this one is dense (`array`)",
            ));
        }
        let has_values = match words[3] {
            "pattern" => false,
            "integer" | "real" => true,
            other => {
                return Err(parse_error(
                    line_number,
                    &line,
                    &format!(
                        "values of type `{other}` are not supported (use pattern, integer or real)"
                    ),
                ));
            }
        };
        let symmetric = match words[4] {
            "general" => false,
            "symmetric" => true,
            other => {
                return Err(parse_error(
                    line_number,
                    &line,
                    &format!("`{other}` matrices are not supported (use general or symmetric)"),
                ));
            }
        };
        if options.weighted && !has_values {
            return Err(BuildError::NoWeights {
                path: path.to_path_buf(),
                line: Some(line_number),
                found: "this is a `pattern` Matrix Market file, without values",
            });
        }
        loop {
            if !read_line(&mut line, &mut line_number)? {
                return Err(BuildError::bad_input(
                    path,
                    "the Matrix Market file ends before its size line",
                ));
            }
            let trimmed = line.trim_ascii();
            if !trimmed.is_empty() && trimmed[0] != b'%' {
                break;
            }
        }
        let sizes: Vec<&[u8]> = line
            .split(|b| b.is_ascii_whitespace())
            .filter(|t| !t.is_empty())
            .collect();
        if sizes.len() != 3 {
            return Err(parse_error(
                line_number,
                &line,
                "the size line must be `rows columns entries`",
            ));
        }
        let mut numbers = [0u64; 3];
        for (slot, token) in numbers.iter_mut().zip(&sizes) {
            *slot = parse_vertex_id(token)
                .map_err(|detail| parse_error(line_number, &line, &detail))?;
        }
        Ok(MatrixMarketSource {
            path: path.to_path_buf(),
            reader,
            options,
            symmetric,
            has_values,
            vertices: numbers[0].max(numbers[1]),
            declared_entries: numbers[2],
            entries_read: 0,
            line_number,
            line,
        })
    }

    fn parse_error(&self, detail: String) -> BuildError {
        BuildError::Parse {
            path: self.path.clone(),
            line: self.line_number,
            text: excerpt(&self.line),
            detail,
        }
    }

    fn parse_entry(&self) -> Result<Option<InputEdge>> {
        let trimmed = self.line.trim_ascii();
        if trimmed.is_empty() || trimmed[0] == b'%' {
            return Ok(None);
        }
        let tokens: Vec<&[u8]> = trimmed
            .split(|b| b.is_ascii_whitespace())
            .filter(|t| !t.is_empty())
            .collect();
        let expected = if self.has_values { 3 } else { 2 };
        if tokens.len() != expected {
            return Err(self.parse_error(format!(
                "expected {expected} numbers per entry, found {}",
                tokens.len()
            )));
        }
        let mut ids = [0u32; 2];
        for (slot, token) in ids.iter_mut().zip(&tokens) {
            let index = parse_vertex_id(token).map_err(|detail| self.parse_error(detail))?;
            if index == 0 || index > self.vertices {
                return Err(self.parse_error(format!(
                    "index {index} is outside 1..={} declared by the size line",
                    self.vertices
                )));
            }
            *slot = (index - 1) as u32;
        }
        let weight = if self.options.weighted {
            parse_weight(tokens[2]).map_err(|detail| self.parse_error(detail))?
        } else {
            1.0
        };
        Ok(Some(InputEdge {
            source: ids[0],
            destination: ids[1],
            weight,
        }))
    }
}

impl EdgeSource for MatrixMarketSource {
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn direction(&self) -> Direction {
        if self.symmetric || self.options.undirected {
            Direction::Undirected
        } else {
            Direction::Directed
        }
    }

    fn weighted(&self) -> bool {
        self.options.weighted
    }

    fn weights_ignored(&self) -> bool {
        self.has_values && !self.options.weighted
    }

    fn declared_vertices(&self) -> Option<u64> {
        Some(self.vertices)
    }

    fn progress_bytes(&self) -> (u64, Option<u64>) {
        self.reader.progress()
    }

    fn next_batch(&mut self, batch: &mut Vec<InputEdge>) -> Result<bool> {
        batch.clear();
        while batch.len() < BATCH_EDGES {
            self.line.clear();
            let read = read_line_bounded(&mut self.reader, &mut self.line)
                .map_err(|source| BuildError::io(&self.path, source))?;
            if read == 0 {
                if self.entries_read != self.declared_entries {
                    return Err(BuildError::bad_input(
                        &self.path,
                        format!(
                            "the size line declares {} entries but the file has {}; the file may be truncated",
                            self.declared_entries, self.entries_read
                        ),
                    ));
                }
                break;
            }
            self.line_number += 1;
            if let Some(edge) = self.parse_entry()? {
                self.entries_read += 1;
                if self.entries_read > self.declared_entries {
                    return Err(self.parse_error(format!(
                        "the size line declares {} entries but there are more",
                        self.declared_entries
                    )));
                }
                batch.push(edge);
            }
        }
        Ok(!batch.is_empty())
    }
}
