//! Tables of edges: CSV and TSV files (RFC 4180 quoting, a header row or none), one row
//! an edge, its source, target and weight in columns chosen by name or position.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::ImportOptions;
use super::compressed::{InputReader, open_maybe_compressed};
use super::text::{TOKEN_CHARS, parse_weight, shown};
use crate::builder::BATCH_EDGES;
use crate::ids::{CompactedIds, Gathered, IdPasses, IdProblem, IdResolver, IdValue, compact_ids};
use crate::source::{Direction, EdgeSource, InputEdge};
use crate::{BuildError, Result};

/// A column of a table input: by its name in the header, or its position from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ColumnChoice {
    /// The header's name for it.
    Name(String),
    /// Its position, counting from 1.
    Position(usize),
}

impl ColumnChoice {
    /// A column as a user writes it: a number is a position, anything else a name.
    pub fn parse(text: &str) -> ColumnChoice {
        match text.parse::<usize>() {
            Ok(position) => ColumnChoice::Position(position),
            Err(_) => ColumnChoice::Name(text.to_string()),
        }
    }

    fn describe(&self) -> String {
        match self {
            ColumnChoice::Name(name) => format!("column {name:?}"),
            ColumnChoice::Position(position) => format!("column {position}"),
        }
    }
}

/// Whether a table's first row names its columns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HeaderChoice {
    /// A header when a column is chosen by name, or when the first row's ids are not
    /// numbers and the second row's are; asked for when that cannot tell.
    #[default]
    Auto,
    /// The first row is a header.
    Yes,
    /// Every row is an edge.
    No,
}

/// Which columns of a table input hold an edge (default: the first, the second, and
/// the third for a weight).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableColumns {
    /// The source's column.
    pub source: Option<ColumnChoice>,
    /// The target's column.
    pub target: Option<ColumnChoice>,
    /// The weight's column (read with `weighted`).
    pub weight: Option<ColumnChoice>,
    /// Whether the first row is a header.
    pub header: HeaderChoice,
}

impl TableColumns {
    /// Whether any choice differs from the defaults (only tables take them).
    pub fn chosen(&self) -> bool {
        *self != TableColumns::default()
    }
}

/// Where a table's edge lies in each row.
#[derive(Clone)]
struct Layout {
    header: bool,
    /// Whether lines end in CR LF: the csv reader then places each row after the
    /// first on the line before its own, having not yet read the LF before it.
    crlf: bool,
    source: usize,
    target: usize,
    weight: Option<usize>,
    /// Each used column's name for messages.
    names: [String; 3],
}

/// Reads a CSV or TSV table of edges.
pub struct TableSource {
    path: PathBuf,
    reader: csv::Reader<LastLine>,
    record: csv::ByteRecord,
    layout: Layout,
    options: ImportOptions,
    ids: IdResolver,
    progress: (Arc<std::sync::atomic::AtomicU64>, u64),
}

/// The field separator a table's name calls for: a tab for `.tsv`, else a comma.
fn delimiter(path: &Path) -> u8 {
    let name = path.to_string_lossy().to_ascii_lowercase();
    let name = name
        .strip_suffix(".gz")
        .or_else(|| name.strip_suffix(".zst"))
        .unwrap_or(&name);
    match name.ends_with(".tsv") || name.ends_with(".tab") {
        true => b'\t',
        false => b',',
    }
}

/// A reader over `path` that returns every row, header included, as it is.
fn open_rows(path: &Path) -> Result<csv::Reader<LastLine>> {
    let input = LastLine {
        input: open_maybe_compressed(path)?,
        delimiter: delimiter(path),
        line: Vec::new(),
    };
    Ok(csv::ReaderBuilder::new()
        .delimiter(input.delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(input))
}

/// An input that keeps the bytes after its last line break, so the end of a table can
/// be checked for a quote left open: the csv reader takes a quoted field that runs into
/// the end of the input as closed, where pandas and pyarrow refuse it.
struct LastLine {
    input: InputReader,
    delimiter: u8,
    line: Vec<u8>,
}

impl std::io::Read for LastLine {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let count = self.input.read(buffer)?;
        let read = &buffer[..count];
        match read.iter().rposition(|&byte| byte == b'\n') {
            Some(at) => {
                self.line.clear();
                self.line.extend_from_slice(&read[at + 1..]);
            }
            None => self.line.extend_from_slice(read),
        }
        Ok(count)
    }
}

impl LastLine {
    /// Whether the input, read to its end, ends inside a quoted field that began on its
    /// last line. (One that began on an earlier line holds a line break, which
    /// [`id_field`] refuses.)
    fn ends_in_open_quote(&self) -> bool {
        #[derive(Clone, Copy, PartialEq)]
        enum At {
            FieldStart,
            Unquoted,
            Quoted,
            QuoteInQuoted,
        }
        let mut at = At::FieldStart;
        for &byte in &self.line {
            at = match (at, byte) {
                (_, byte) if byte == self.delimiter => match at {
                    At::Quoted => At::Quoted,
                    _ => At::FieldStart,
                },
                (At::FieldStart, b'"') => At::Quoted,
                (At::Quoted, b'"') => At::QuoteInQuoted,
                (At::QuoteInQuoted, b'"') => At::Quoted,
                (At::Quoted, _) => At::Quoted,
                _ => At::Unquoted,
            };
        }
        at == At::Quoted
    }
}

/// The error for row `record` of `path`, whose lines end in CR LF when `crlf`.
fn row_error(path: &Path, crlf: bool, record: &csv::ByteRecord, detail: String) -> BuildError {
    let fields: Vec<String> = record
        .iter()
        .map(|field| shown(field, TOKEN_CHARS))
        .collect();
    let line = record.position().map_or(0, |position| {
        position.line() + (crlf && position.record() > 0) as u64
    });
    BuildError::Parse {
        path: path.to_path_buf(),
        line,
        text: fields.join(","),
        detail,
    }
}

/// Whether the first line of `path` ends in CR LF.
fn ends_lines_in_crlf(path: &Path) -> Result<bool> {
    use std::io::{BufRead, Read};
    let mut line = Vec::new();
    open_maybe_compressed(path)?
        .take(1 << 16)
        .read_until(b'\n', &mut line)
        .map_err(|source| BuildError::io(path, source))?;
    Ok(line.ends_with(b"\r\n"))
}

/// The id in a CSV `field`, as pandas and pyarrow read it: an integer with spaces
/// around it is that integer, and any other field is a name kept verbatim (so `" a"`
/// and `"a"` are two vertices). A line break in it means a quote was left open.
fn id_field(field: &[u8]) -> std::result::Result<&[u8], String> {
    if field.contains(&b'\n') || field.contains(&b'\r') {
        return Err(
            "a quoted field runs on past the end of this line; is its closing quote missing?"
                .to_string(),
        );
    }
    let trimmed = field.trim_ascii();
    match crate::ids::parse_integer(trimmed) {
        Some(_) => Ok(trimmed),
        None => Ok(field),
    }
}

/// A csv error as a build error about `path`.
fn csv_error(path: &Path, error: csv::Error) -> BuildError {
    let line = error.position().map_or(0, csv::Position::line);
    match error.into_kind() {
        csv::ErrorKind::Io(error) => BuildError::io(path, error),
        other => BuildError::Parse {
            path: path.to_path_buf(),
            line,
            text: String::new(),
            detail: format!("{other:?}"),
        },
    }
}

/// Reads the next row into `record`; `false` at the end.
fn next_row(
    path: &Path,
    reader: &mut csv::Reader<LastLine>,
    record: &mut csv::ByteRecord,
) -> Result<bool> {
    let more = reader
        .read_byte_record(record)
        .map_err(|error| csv_error(path, error))?;
    if !more && reader.get_ref().ends_in_open_quote() {
        return Err(BuildError::Parse {
            path: path.to_path_buf(),
            line: reader.position().line(),
            text: shown(&reader.get_ref().line, TOKEN_CHARS),
            detail: "a quoted field runs on to the end of the file; is its closing quote missing?"
                .to_string(),
        });
    }
    Ok(more)
}

/// Where the edge lies in `path`'s rows, from its first rows and the user's choices.
fn layout(path: &Path, columns: &TableColumns, weighted: bool) -> Result<Layout> {
    let mut reader = open_rows(path)?;
    let (mut first, mut second) = (csv::ByteRecord::new(), csv::ByteRecord::new());
    if !next_row(path, &mut reader, &mut first)? {
        return Err(BuildError::bad_input(path, "the table has no rows"));
    }
    let has_second = next_row(path, &mut reader, &mut second)?;
    let by_name = [&columns.source, &columns.target, &columns.weight]
        .into_iter()
        .flatten()
        .any(|choice| matches!(choice, ColumnChoice::Name(_)));
    let default = |choice: &Option<ColumnChoice>, position: usize| {
        choice.clone().unwrap_or(ColumnChoice::Position(position))
    };
    let chosen = [
        default(&columns.source, 1),
        default(&columns.target, 2),
        default(&columns.weight, 3),
    ];
    let position_only = |choice: &ColumnChoice| match choice {
        ColumnChoice::Position(position) => Some(position - 1),
        ColumnChoice::Name(_) => None,
    };
    let numbers = |record: &csv::ByteRecord| {
        [&chosen[0], &chosen[1]].iter().all(|choice| {
            position_only(choice)
                .and_then(|at| record.get(at))
                .is_some_and(|field| crate::ids::parse_integer(field.trim_ascii()).is_some())
        })
    };
    let header = match (columns.header, by_name) {
        (HeaderChoice::No, true) => {
            return Err(BuildError::bad_input(
                path,
                "columns are chosen by name, but the table is said to have no header; choose them by position (from 1)",
            ));
        }
        (HeaderChoice::Yes, _) | (HeaderChoice::Auto, true) => true,
        (HeaderChoice::No, false) => false,
        (HeaderChoice::Auto, false) if numbers(&first) => false,
        (HeaderChoice::Auto, false) if has_second && numbers(&second) => true,
        (HeaderChoice::Auto, false) => {
            return Err(row_error(
                path,
                false,
                &first,
                "is this first row a header? its ids are not numbers, so say which: --header or --no-header (header=True or False in Python)".to_string(),
            ));
        }
    };
    let index_of = |choice: &ColumnChoice| -> Result<usize> {
        match choice {
            ColumnChoice::Position(0) => {
                Err(BuildError::bad_input(path, "column positions count from 1"))
            }
            ColumnChoice::Position(position) if *position > first.len() => {
                Err(BuildError::bad_input(
                    path,
                    format!(
                        "{} is beyond the {} columns of the first row",
                        choice.describe(),
                        first.len()
                    ),
                ))
            }
            ColumnChoice::Position(position) => Ok(position - 1),
            ColumnChoice::Name(name) => first
                .iter()
                .position(|field| field.trim_ascii() == name.as_bytes())
                .ok_or_else(|| {
                    let found: Vec<String> = first
                        .iter()
                        .map(|field| shown(field, TOKEN_CHARS))
                        .collect();
                    BuildError::bad_input(
                        path,
                        format!(
                            "the header has no column named {name:?}; its columns are {}",
                            found.join(", ")
                        ),
                    )
                }),
        }
    };
    let source = index_of(&chosen[0])?;
    let target = index_of(&chosen[1])?;
    let weight = match (weighted, &columns.weight) {
        (true, _) => Some(index_of(&chosen[2]).map_err(|_| BuildError::NoWeights {
            path: path.to_path_buf(),
            line: None,
            found: "the table has no weight column (choose one with --weight-col)",
        })?),
        (false, None) => None,
        (false, Some(_)) => {
            return Err(BuildError::bad_input(
                path,
                "a weight column is chosen but weights are not kept; add --weighted",
            ));
        }
    };
    let name_of = |at: usize| match header {
        true => String::from_utf8_lossy(first.get(at).unwrap_or_default()).into_owned(),
        false => (at + 1).to_string(),
    };
    // One column chosen twice would make every edge a self-loop, or weigh it by an id.
    if source == target {
        return Err(same_column(path, "source", "target", &name_of(source)));
    }
    for (role, at) in [("source", source), ("target", target)] {
        if weight == Some(at) {
            return Err(same_column(path, role, "weight", &name_of(at)));
        }
    }
    Ok(Layout {
        header,
        crlf: ends_lines_in_crlf(path)?,
        source,
        target,
        weight,
        names: [
            name_of(source),
            name_of(target),
            weight.map(name_of).unwrap_or_default(),
        ],
    })
}

/// The error for a table whose columns chosen for `first` and `second` are one, `name`.
pub(crate) fn same_column(path: &Path, first: &str, second: &str, name: &str) -> BuildError {
    BuildError::bad_input(
        path,
        format!(
            "the {first} and {second} columns are both column {name:?}; choose a different column for each"
        ),
    )
}

/// A reader over `path`'s rows of edges, past the header when `layout` has one.
fn open_edges(path: &Path, layout: &Layout) -> Result<csv::Reader<LastLine>> {
    let mut reader = open_rows(path)?;
    if layout.header {
        let mut header = csv::ByteRecord::new();
        next_row(path, &mut reader, &mut header)?;
    }
    Ok(reader)
}

/// The first pass of compacting a table's ids (see `crate::ids`).
fn scan_ids(
    path: &Path,
    layout: &Layout,
    allowance_bytes: u64,
    passes: IdPasses,
) -> Result<IdResolver> {
    compact_ids(path, allowance_bytes, passes, |add| {
        let mut reader = open_edges(path, layout)?;
        let mut record = csv::ByteRecord::new();
        while next_row(path, &mut reader, &mut record)? {
            for (at, column) in [(layout.source, 0), (layout.target, 1)] {
                // A row without the column is reported by the second pass.
                let Some(field) = record.get(at) else {
                    continue;
                };
                let refused = |detail: String| {
                    let detail = format!("column {}: {detail}", layout.names[column]);
                    row_error(path, layout.crlf, &record, detail)
                };
                match add(IdValue::Text(id_field(field).map_err(refused)?)) {
                    Gathered::Added => {}
                    Gathered::Stop => return Ok(()),
                    Gathered::Refused(detail) => return Err(refused(detail)),
                }
            }
        }
        Ok(())
    })
}

impl TableSource {
    /// Opens the table at `path` with the user's `columns`; compacted ids are gathered
    /// first, within `allowance_bytes`.
    pub fn open(
        path: &Path,
        options: ImportOptions,
        columns: &TableColumns,
        allowance_bytes: u64,
        passes: IdPasses,
    ) -> Result<TableSource> {
        let layout = layout(path, columns, options.weighted)?;
        let ids = match options.ids {
            crate::ids::IdMode::Compact => scan_ids(path, &layout, allowance_bytes, passes)?,
            mode => IdResolver::new(mode, allowance_bytes),
        };
        let reader = open_edges(path, &layout)?;
        let progress = (
            reader.get_ref().input.bytes_read.clone(),
            reader.get_ref().input.file_bytes,
        );
        Ok(TableSource {
            path: path.to_path_buf(),
            reader,
            record: csv::ByteRecord::new(),
            layout,
            options,
            ids,
            progress,
        })
    }

    /// The edge in the row just read.
    fn edge(&mut self) -> Result<InputEdge> {
        let mut vertices = [0u32; 2];
        for (column, at) in [self.layout.source, self.layout.target]
            .into_iter()
            .enumerate()
        {
            let Some(field) = self.record.get(at) else {
                let detail = format!(
                    "the row has {} fields, so no column {}",
                    self.record.len(),
                    self.layout.names[column]
                );
                return Err(row_error(
                    &self.path,
                    self.layout.crlf,
                    &self.record,
                    detail,
                ));
            };
            let refused = |detail: String| {
                let detail = format!("column {}: {detail}", self.layout.names[column]);
                row_error(&self.path, self.layout.crlf, &self.record, detail)
            };
            let token = id_field(field).map_err(refused)?;
            vertices[column] = match self.ids.vertex_of(token) {
                Ok(vertex) => vertex,
                Err(IdProblem::Compact(reason)) => {
                    return Err(BuildError::IdsNeedCompacting(reason));
                }
                Err(IdProblem::Detail(detail)) => return Err(refused(detail)),
            };
        }
        let weight = match self.layout.weight {
            None => 1.0,
            Some(at) => {
                let field = self.record.get(at).unwrap_or_default().trim_ascii();
                parse_weight(field).map_err(|detail| {
                    let detail = format!("column {}: {detail}", self.layout.names[2]);
                    row_error(&self.path, self.layout.crlf, &self.record, detail)
                })?
            }
        };
        self.ids.count_edge();
        Ok(InputEdge {
            source: vertices[0],
            destination: vertices[1],
            weight,
        })
    }
}

impl EdgeSource for TableSource {
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn direction(&self) -> Direction {
        self.options.direction()
    }

    fn weighted(&self) -> bool {
        self.options.weighted
    }

    fn progress_bytes(&self) -> (u64, Option<u64>) {
        let read = self.progress.0.load(std::sync::atomic::Ordering::Relaxed);
        (read, Some(self.progress.1))
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
            if !next_row(&self.path, &mut self.reader, &mut self.record)? {
                self.ids.at_end(&self.path)?;
                break;
            }
            // A blank line is no row.
            if self.record.len() == 1 && self.record[0].trim_ascii().is_empty() {
                continue;
            }
            let edge = self.edge()?;
            batch.push(edge);
        }
        Ok(!batch.is_empty())
    }
}
