//! Text edge lists: `u v` or `u v w` per line, separated by whitespace or commas,
//! with `#` and `%` starting comments.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use super::ImportOptions;
use super::compressed::{InputReader, open_maybe_compressed};
use crate::builder::BATCH_EDGES;
use crate::ids::{CompactedIds, Gathered, IdPasses, IdProblem, IdResolver, IdValue, compact_ids};
use crate::source::{Direction, EdgeSource, InputEdge, MAX_VERTEX_ID};
use crate::{BuildError, Result};

/// Reads a text edge list line by line.
pub struct TextEdgeListSource {
    path: PathBuf,
    reader: InputReader,
    options: ImportOptions,
    line_number: u64,
    columns: Option<usize>,
    line: Vec<u8>,
    ids: IdResolver,
}

/// Characters of a line an error message shows.
const EXCERPT_CHARS: usize = 80;

/// Characters of a single token an error message shows.
pub(crate) const TOKEN_CHARS: usize = 40;

/// Longest line the text importers read; a longer one is not an edge list's.
pub(crate) const MAX_LINE_BYTES: usize = 64 << 10;

/// Shortens a line for an error message.
pub(crate) fn excerpt(line: &[u8]) -> String {
    shown(line.trim_ascii_end(), EXCERPT_CHARS)
}

/// `bytes` as a message can show them: at most `limit` characters, with control
/// characters, invalid UTF-8 and invisible marks (a byte-order mark) escaped, so
/// binary input never reaches a terminal raw.
pub(crate) fn shown(bytes: &[u8], limit: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    for (count, character) in text.chars().enumerate() {
        if count == limit {
            out.push_str("...");
            break;
        }
        let visible = !character.is_control()
            && character != char::REPLACEMENT_CHARACTER
            && character != '\u{feff}';
        if visible {
            out.push(character);
        } else {
            out.extend(character.escape_unicode());
        }
    }
    out
}

/// Parses a vertex id: a non-negative decimal integer no larger than [`MAX_VERTEX_ID`].
pub(crate) fn parse_vertex_id(token: &[u8]) -> std::result::Result<u64, String> {
    if token.is_empty() || !token.iter().all(u8::is_ascii_digit) {
        return Err(format!(
            "`{}` is not a vertex id (ids are non-negative integers)",
            shown(token, TOKEN_CHARS)
        ));
    }
    let mut value: u64 = 0;
    for &digit in token {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add((digit - b'0') as u64))
            .filter(|&v| v <= MAX_VERTEX_ID)
            .ok_or_else(|| {
                format!(
                    "vertex id {} does not fit in 32 bits (the largest allowed is {MAX_VERTEX_ID})",
                    shown(token, TOKEN_CHARS)
                )
            })?;
    }
    Ok(value)
}

/// Parses a weight: any finite number that a 32-bit float holds.
pub(crate) fn parse_weight(token: &[u8]) -> std::result::Result<f32, String> {
    let wide = std::str::from_utf8(token)
        .ok()
        .and_then(|text| text.parse::<f64>().ok())
        .unwrap_or(f64::NAN);
    weight_from_number(wide, &shown(token, TOKEN_CHARS))
}

/// A weight as stored (f32) from a number, `written` as the user wrote it: every way
/// a weight enters swapless (text, Python arrays) is held to this one test.
pub fn weight_from_number(weight: f64, written: &str) -> std::result::Result<f32, String> {
    if !weight.is_finite() {
        Err(format!(
            "`{written}` is not a finite number, so it cannot be a weight"
        ))
    } else if weight.abs() > f32::MAX as f64 {
        Err(format!(
            "weight {written} is beyond the largest a 32-bit float holds (about 3.4e38)"
        ))
    } else if weight != 0.0 && weight as f32 == 0.0 {
        // Stored as 0 it would be another graph's weight (a vertex whose out-weights
        // vanish dangles in PageRank).
        Err(format!(
            "weight {written} is below the smallest a 32-bit float holds (about 1.4e-45), so it would be stored as 0"
        ))
    } else {
        Ok(weight as f32)
    }
}

/// Reads one line (up to and with its `\n`) into `line`, refusing lines longer than
/// [`MAX_LINE_BYTES`] so that a file without line breaks (binary data) cannot fill memory.
/// Returns the bytes read; 0 at the end.
pub(crate) fn read_line_bounded(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
) -> std::io::Result<usize> {
    line.clear();
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok(line.len());
        }
        let (take, done) = match available.iter().position(|&byte| byte == b'\n') {
            Some(end) => (end + 1, true),
            None => (available.len(), false),
        };
        let room = MAX_LINE_BYTES.saturating_sub(line.len());
        if take > room {
            line.extend_from_slice(&available[..room]);
            reader.consume(room);
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                LineTooLong,
            ));
        }
        line.extend_from_slice(&available[..take]);
        reader.consume(take);
        if done {
            return Ok(line.len());
        }
    }
}

/// The error [`read_line_bounded`] returns for a line beyond [`MAX_LINE_BYTES`].
#[derive(Debug)]
pub(crate) struct LineTooLong;

impl std::fmt::Display for LineTooLong {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "a line longer than {} KiB", MAX_LINE_BYTES >> 10)
    }
}

impl std::error::Error for LineTooLong {}

/// Splits a line into at most 4 fields, stopping at a comment.
fn fields(line: &[u8]) -> (usize, [&[u8]; 4]) {
    let mut found: [&[u8]; 4] = [&[]; 4];
    let mut count = 0;
    let mut start = None;
    for (index, &byte) in line.iter().enumerate() {
        let separator =
            byte == b' ' || byte == b'\t' || byte == b',' || byte == b'\r' || byte == b'\n';
        let comment = byte == b'#' || byte == b'%';
        if separator || comment {
            if let Some(begin) = start.take() {
                if count < 4 {
                    found[count] = &line[begin..index];
                }
                count += 1;
            }
            if comment {
                return (count, found);
            }
        } else if start.is_none() {
            start = Some(index);
        }
    }
    if let Some(begin) = start {
        if count < 4 {
            found[count] = &line[begin..];
        }
        count += 1;
    }
    (count, found)
}

impl TextEdgeListSource {
    /// Wraps an opened input whose ids are its vertices (`options.ids` dense or auto);
    /// an `auto` build counts its ids within a share of `id_allowance_bytes`.
    pub fn new(
        path: &Path,
        reader: InputReader,
        options: ImportOptions,
        id_allowance_bytes: u64,
    ) -> Self {
        TextEdgeListSource {
            path: path.to_path_buf(),
            reader,
            options,
            line_number: 0,
            columns: None,
            line: Vec::with_capacity(256),
            ids: IdResolver::new(options.ids, id_allowance_bytes),
        }
    }

    /// Wraps an opened input whose ids `ids` (from [`scan_ids`]) turns into vertices.
    pub(crate) fn compacted(
        path: &Path,
        reader: InputReader,
        options: ImportOptions,
        ids: IdResolver,
    ) -> Self {
        TextEdgeListSource {
            ids,
            ..TextEdgeListSource::new(path, reader, options, 0)
        }
    }

    fn parse_error(&self, detail: String) -> BuildError {
        BuildError::Parse {
            path: self.path.clone(),
            line: self.line_number,
            text: excerpt(&self.line),
            detail,
        }
    }

    fn parse_line(&mut self) -> Result<Option<InputEdge>> {
        // A byte-order mark (editors on Windows write one) is not part of the first id.
        if self.line_number == 1 && self.line.starts_with(b"\xef\xbb\xbf") {
            self.line.drain(..3);
        }
        let (count, tokens) = fields(&self.line);
        if count == 0 {
            return Ok(None);
        }
        if !(2..=3).contains(&count) {
            return Err(self.parse_error(format!(
                "expected 2 or 3 columns (source, destination, optional weight), found {count}"
            )));
        }
        match self.columns {
            None => {
                if self.options.weighted && count == 2 {
                    return Err(BuildError::NoWeights {
                        path: self.path.clone(),
                        line: Some(self.line_number),
                        found: "this line has no third column",
                    });
                }
                self.columns = Some(count);
            }
            Some(expected) if expected != count => {
                return Err(self.parse_error(format!(
                    "this line has {count} columns but the lines before it have {expected}; give a weight on every line or on none"
                )));
            }
            Some(_) => {}
        }
        let mut vertices = [0u32; 2];
        for (vertex, token) in vertices.iter_mut().zip(&tokens[..2]) {
            *vertex = match self.ids.vertex_of(token) {
                Ok(found) => found,
                Err(IdProblem::Compact(reason)) => {
                    return Err(BuildError::IdsNeedCompacting(reason));
                }
                Err(IdProblem::Detail(detail)) => return Err(self.parse_error(detail)),
            };
        }
        let [source, destination] = vertices;
        let weight = if self.options.weighted {
            parse_weight(tokens[2]).map_err(|detail| self.parse_error(detail))?
        } else {
            1.0
        };
        self.ids.count_edge();
        Ok(Some(InputEdge {
            source,
            destination,
            weight,
        }))
    }
}

impl EdgeSource for TextEdgeListSource {
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn direction(&self) -> Direction {
        self.options.direction()
    }

    fn weighted(&self) -> bool {
        self.options.weighted
    }

    fn weights_ignored(&self) -> bool {
        // A third column of an edge list is its weight.
        self.columns == Some(3) && !self.options.weighted
    }

    fn progress_bytes(&self) -> (u64, Option<u64>) {
        self.reader.progress()
    }

    fn declared_vertices(&self) -> Option<u64> {
        self.ids.declared_vertices()
    }

    fn memory_bytes(&self) -> u64 {
        self.ids.memory_bytes()
    }

    fn id_fill(&self) -> Option<crate::ids::Fill> {
        self.ids.fill()
    }

    fn vertex_ids(&self) -> Option<CompactedIds> {
        self.ids.compacted()
    }

    fn id_ranges(&self) -> u64 {
        self.ids.ranges()
    }

    fn next_batch(&mut self, batch: &mut Vec<InputEdge>) -> Result<bool> {
        batch.clear();
        while batch.len() < BATCH_EDGES {
            let read = read_line_bounded(&mut self.reader, &mut self.line);
            let read = match read {
                Err(error)
                    if error
                        .get_ref()
                        .is_some_and(|inner| inner.is::<LineTooLong>()) =>
                {
                    self.line_number += 1;
                    return Err(self.parse_error(format!(
                        "{error}, which no edge list holds; is this really a text edge list (a binary or compressed file would need its own extension)?"
                    )));
                }
                read => read.map_err(|source| BuildError::io(&self.path, source))?,
            };
            if read == 0 {
                self.ids.at_end(&self.path)?;
                break;
            }
            self.line_number += 1;
            if let Some(edge) = self.parse_line()? {
                batch.push(edge);
            }
        }
        Ok(!batch.is_empty())
    }
}

/// Compacting a text input's ids (see `crate::ids`) within `allowance_bytes` of
/// memory, spilling beyond it as `passes` says.
pub(crate) fn scan_ids(path: &Path, allowance_bytes: u64, passes: IdPasses) -> Result<IdResolver> {
    compact_ids(path, allowance_bytes, passes, |add| {
        let mut reader = open_maybe_compressed(path)?;
        let mut line = Vec::with_capacity(256);
        let mut line_number = 0u64;
        loop {
            // A line too long is reported, with its number, by the second pass.
            let Ok(read) = read_line_bounded(&mut reader, &mut line) else {
                return Ok(());
            };
            if read == 0 {
                return Ok(());
            }
            line_number += 1;
            if line_number == 1 && line.starts_with(b"\xef\xbb\xbf") {
                line.drain(..3);
            }
            let (count, tokens) = fields(&line);
            // Lines the second pass refuses are reported there.
            if !(2..=3).contains(&count) {
                continue;
            }
            for token in &tokens[..2] {
                match add(IdValue::Text(token)) {
                    Gathered::Added => {}
                    Gathered::Stop => return Ok(()),
                    Gathered::Refused(detail) => {
                        return Err(BuildError::Parse {
                            path: path.to_path_buf(),
                            line: line_number,
                            text: excerpt(&line),
                            detail,
                        });
                    }
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_split_on_whitespace_commas_and_stop_at_comments() {
        let (count, tokens) = fields(b"  12,\t7 3.5 # note");
        assert_eq!(count, 3);
        assert_eq!(&tokens[..3], &[&b"12"[..], b"7", b"3.5"]);
        assert_eq!(fields(b"% header").0, 0);
        assert_eq!(fields(b"\r\n").0, 0);
        assert_eq!(fields(b"1 2 3 4 5").0, 5);
    }

    #[test]
    fn ids_are_checked() {
        assert_eq!(parse_vertex_id(b"4294967294"), Ok(4294967294));
        assert!(
            parse_vertex_id(b"4294967295")
                .unwrap_err()
                .contains("does not fit")
        );
        assert!(
            parse_vertex_id(b"-1")
                .unwrap_err()
                .contains("not a vertex id")
        );
        assert!(parse_vertex_id(b"1.5").is_err());
        assert!(parse_weight(b"nan").is_err());
        assert_eq!(parse_weight(b"1e3"), Ok(1000.0));
        assert!(parse_weight(b"1e-50").is_err());
        assert_eq!(parse_weight(b"-0"), Ok(-0.0));
        assert!(parse_weight(b"1e-40").is_ok());
    }
}
