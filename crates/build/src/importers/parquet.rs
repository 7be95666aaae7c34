//! Parquet tables of edges: one file, or a folder of part files as Spark and DuckDB
//! write them, read a record batch at a time with only the chosen columns. Ids may be
//! any integer or string column; weights any number column.

use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder,
};

use super::ImportOptions;
use super::table::{ColumnChoice, HeaderChoice, TableColumns, same_column};
use super::text::weight_from_number;
use crate::builder::BATCH_EDGES;
use crate::ids::{CompactedIds, Gathered, IdPasses, IdProblem, IdResolver, IdValue, compact_ids};
use crate::source::{Direction, EdgeSource, InputEdge};
use crate::{BuildError, Result};

/// Rows a record batch holds.
const BATCH_ROWS: usize = 1 << 16;

/// Whether `path` is Parquet input: a `.parquet` file, a file of any name that begins
/// with Parquet's magic bytes, or a folder holding `.parquet` files.
pub(crate) fn is_parquet(path: &Path) -> bool {
    let named = |path: &Path| {
        path.extension()
            .is_some_and(|extension| extension.eq_ignore_ascii_case("parquet"))
    };
    named(path)
        || (path.is_dir() && parts(path).is_ok_and(|parts| !parts.is_empty()))
        || (path.is_file() && starts_with_magic(path))
}

/// Whether the file at `path` begins with `PAR1`, as every Parquet file does.
fn starts_with_magic(path: &Path) -> bool {
    use std::io::Read;
    let mut start = [0u8; 4];
    File::open(path).is_ok_and(|mut file| file.read_exact(&mut start).is_ok() && &start == b"PAR1")
}

/// The part files of `path`: itself, or the `.parquet` files in the folder, in name
/// order (markers such as `_SUCCESS` and hidden files left out).
fn parts(path: &Path) -> Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let entries = std::fs::read_dir(path).map_err(|source| BuildError::io(path, source))?;
    let mut parts = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| BuildError::io(path, source))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let hidden = name.starts_with('_') || name.starts_with('.');
        if !hidden && name.to_ascii_lowercase().ends_with(".parquet") {
            parts.push(entry.path());
        }
    }
    parts.sort();
    Ok(parts)
}

/// Where a table's edge lies: the columns' names (a Parquet file always has them).
struct Layout {
    names: [String; 3],
    weighted: bool,
}

/// Reads a Parquet table of edges.
pub struct ParquetSource {
    path: PathBuf,
    parts: Vec<PathBuf>,
    /// The next part to open.
    next_part: usize,
    reader: Option<ParquetRecordBatchReader>,
    batch: Option<RecordBatch>,
    row_in_batch: usize,
    /// Rows of the current part before the current batch (for messages).
    rows_before: u64,
    layout: Layout,
    options: ImportOptions,
    ids: IdResolver,
    rows_read: u64,
    rows_total: u64,
    bytes_total: u64,
    /// The largest row group's chosen columns, compressed: what the reader holds.
    largest_row_group_bytes: u64,
}

/// The error for `part` of a Parquet input.
fn parquet_error(part: &Path, error: impl std::fmt::Display) -> BuildError {
    BuildError::bad_input(part, format!("not a readable Parquet file: {error}"))
}

/// The reader's next batch. The Parquet reader panics on some damaged files (a page
/// said to be dictionary-encoded in a column with no dictionary page, found by fuzzing):
/// that is a damaged file, not a failure of ours, so it becomes the reader's error.
fn next_of(
    reader: &mut ParquetRecordBatchReader,
) -> Option<std::result::Result<RecordBatch, ArrowError>> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reader.next())) {
        Ok(next) => next,
        Err(payload) => {
            let detail = payload
                .downcast_ref::<&str>()
                .map(|text| text.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a page it could not decode".to_string());
            Some(Err(ArrowError::ParquetError(format!("damaged: {detail}"))))
        }
    }
}

/// A reader of `part`'s rows as its Parquet types say, not as the Arrow schema stored
/// beside them would: a dictionary-encoded column (a pandas categorical) is then read
/// as its values' type, integers or strings, like any other.
fn reader_of(part: &Path) -> Result<ParquetRecordBatchReaderBuilder<File>> {
    let file = File::open(part).map_err(|source| BuildError::io(part, source))?;
    let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
    ParquetRecordBatchReaderBuilder::try_new_with_options(file, options)
        .map_err(|error| parquet_error(part, error))
}

/// A reader of `columns` of `part`, with its metadata's row count and the compressed
/// bytes of those columns in its largest row group.
fn open_part(part: &Path, columns: &[String]) -> Result<(ParquetRecordBatchReader, u64, u64, u64)> {
    let builder = reader_of(part)?;
    let schema = builder.schema().clone();
    let mut indices = Vec::new();
    for name in columns {
        let Some((index, field)) = schema.column_with_name(name) else {
            let found: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            return Err(BuildError::bad_input(
                part,
                format!(
                    "has no column named {name:?}; its columns are {}",
                    found.join(", ")
                ),
            ));
        };
        indices.push(index);
        let usable = match columns.iter().position(|c| c == name) {
            Some(2) => is_number(field.data_type()),
            _ => is_id(field.data_type()),
        };
        if !usable {
            return Err(BuildError::bad_input(
                part,
                format!(
                    "column {name:?} holds {}, which is not {}",
                    field.data_type(),
                    match columns.iter().position(|c| c == name) {
                        Some(2) => "a number",
                        _ => "an integer or a string",
                    }
                ),
            ));
        }
    }
    let metadata = builder.metadata().clone();
    let rows = metadata.file_metadata().num_rows().max(0) as u64;
    let leaves: Vec<usize> = indices.clone();
    let largest = metadata
        .row_groups()
        .iter()
        .map(|group| {
            group
                .columns()
                .iter()
                .enumerate()
                .filter(|(leaf, _)| leaves.contains(leaf))
                .map(|(_, column)| column.compressed_size().max(0) as u64)
                .sum::<u64>()
        })
        .max()
        .unwrap_or(0);
    let total: u64 = metadata
        .row_groups()
        .iter()
        .map(|group| group.compressed_size().max(0) as u64)
        .sum();
    let mask = ProjectionMask::roots(metadata.file_metadata().schema_descr(), indices);
    let reader = builder
        .with_projection(mask)
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|error| parquet_error(part, error))?;
    Ok((reader, rows, largest, total))
}

fn is_id(data_type: &DataType) -> bool {
    data_type.is_integer()
        || matches!(
            data_type,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
        )
}

fn is_number(data_type: &DataType) -> bool {
    data_type.is_integer() || matches!(data_type, DataType::Float32 | DataType::Float64)
}

/// The id in `row` of `column`, or `None` when it is null.
fn id_at(column: &ArrayRef, row: usize) -> Option<IdValue<'_>> {
    if column.is_null(row) {
        return None;
    }
    let integer = |value: i64| Some(IdValue::Integer(value));
    match column.data_type() {
        DataType::Int8 => integer(column.as_primitive::<Int8Type>().value(row) as i64),
        DataType::Int16 => integer(column.as_primitive::<Int16Type>().value(row) as i64),
        DataType::Int32 => integer(column.as_primitive::<Int32Type>().value(row) as i64),
        DataType::Int64 => integer(column.as_primitive::<Int64Type>().value(row)),
        DataType::UInt8 => integer(column.as_primitive::<UInt8Type>().value(row) as i64),
        DataType::UInt16 => integer(column.as_primitive::<UInt16Type>().value(row) as i64),
        DataType::UInt32 => integer(column.as_primitive::<UInt32Type>().value(row) as i64),
        DataType::UInt64 => {
            let value = column.as_primitive::<UInt64Type>().value(row);
            // Beyond i64, the id is kept as the text of its digits (a name).
            match i64::try_from(value) {
                Ok(value) => integer(value),
                Err(_) => None,
            }
        }
        DataType::Utf8 => Some(IdValue::Text(
            column.as_string::<i32>().value(row).as_bytes(),
        )),
        DataType::LargeUtf8 => Some(IdValue::Text(
            column.as_string::<i64>().value(row).as_bytes(),
        )),
        DataType::Utf8View => Some(IdValue::Text(column.as_string_view().value(row).as_bytes())),
        _ => None,
    }
}

/// The number in `row` of `column`, or `None` when it is null.
fn number_at(column: &ArrayRef, row: usize) -> Option<f64> {
    if column.is_null(row) {
        return None;
    }
    match column.data_type() {
        DataType::Float32 => Some(column.as_primitive::<Float32Type>().value(row) as f64),
        DataType::Float64 => Some(column.as_primitive::<Float64Type>().value(row)),
        _ => match id_at(column, row)? {
            IdValue::Integer(value) => Some(value as f64),
            IdValue::Text(_) => None,
        },
    }
}

/// The columns the user chose, by name, from the first part's schema.
fn layout(path: &Path, first: &Path, columns: &TableColumns, weighted: bool) -> Result<Layout> {
    if columns.header == HeaderChoice::No {
        return Err(BuildError::bad_input(
            path,
            "a Parquet file names its columns itself; --no-header is for CSV and TSV files",
        ));
    }
    let builder = reader_of(first)?;
    let fields: Vec<String> = builder
        .schema()
        .fields()
        .iter()
        .map(|field| field.name().clone())
        .collect();
    let name_of = |choice: &Option<ColumnChoice>, position: usize| -> Result<String> {
        match choice.clone().unwrap_or(ColumnChoice::Position(position)) {
            ColumnChoice::Name(name) => Ok(name),
            ColumnChoice::Position(at) if at >= 1 && at <= fields.len() => {
                Ok(fields[at - 1].clone())
            }
            ColumnChoice::Position(at) => Err(BuildError::bad_input(
                first,
                format!(
                    "column {at} is not among its {} columns (positions count from 1)",
                    fields.len()
                ),
            )),
        }
    };
    if !weighted && columns.weight.is_some() {
        return Err(BuildError::bad_input(
            path,
            "a weight column is chosen but weights are not kept; add --weighted",
        ));
    }
    let weight = match weighted {
        true => name_of(&columns.weight, 3).map_err(|_| BuildError::NoWeights {
            path: path.to_path_buf(),
            line: None,
            found: "the table has no third column (choose the weight's with --weight-col)",
        })?,
        false => String::new(),
    };
    let names = [
        name_of(&columns.source, 1)?,
        name_of(&columns.target, 2)?,
        weight,
    ];
    // One column chosen twice would make every edge a self-loop, or weigh it by an id.
    if names[0] == names[1] {
        return Err(same_column(path, "source", "target", &names[0]));
    }
    for (role, name) in [("source", &names[0]), ("target", &names[1])] {
        if weighted && names[2] == *name {
            return Err(same_column(path, role, "weight", name));
        }
    }
    Ok(Layout { names, weighted })
}

impl Layout {
    /// The columns a reader projects.
    fn columns(&self) -> Vec<String> {
        let count = if self.weighted { 3 } else { 2 };
        self.names[..count].to_vec()
    }
}

impl ParquetSource {
    /// Opens the Parquet file or folder at `path` with the user's `columns`; compacted
    /// ids are gathered first, within `allowance_bytes`.
    pub fn open(
        path: &Path,
        options: ImportOptions,
        columns: &TableColumns,
        allowance_bytes: u64,
        passes: IdPasses,
    ) -> Result<ParquetSource> {
        let parts = parts(path)?;
        let Some(first) = parts.first() else {
            return Err(BuildError::bad_input(
                path,
                "the folder holds no .parquet files",
            ));
        };
        let layout = layout(path, first, columns, options.weighted)?;
        let (mut rows_total, mut bytes_total, mut largest) = (0, 0, 0);
        for part in &parts {
            let (_, rows, part_largest, bytes) = open_part(part, &layout.columns())?;
            rows_total += rows;
            bytes_total += bytes;
            largest = largest.max(part_largest);
        }
        let ids = match options.ids {
            crate::ids::IdMode::Compact => {
                // The ids share the allowance with the row groups being decoded.
                let ids_bytes = allowance_bytes.saturating_sub(buffer_bytes(largest));
                scan_ids(path, &parts, &layout, ids_bytes, passes)?
            }
            mode => IdResolver::new(mode, allowance_bytes.saturating_sub(buffer_bytes(largest))),
        };
        Ok(ParquetSource {
            path: path.to_path_buf(),
            parts,
            next_part: 0,
            reader: None,
            batch: None,
            row_in_batch: 0,
            rows_before: 0,
            layout,
            options,
            ids,
            rows_read: 0,
            rows_total,
            bytes_total,
            largest_row_group_bytes: largest,
        })
    }

    /// The next batch of rows, from the next part when one ends; `false` at the end.
    fn next_record_batch(&mut self) -> Result<bool> {
        loop {
            if let Some(reader) = &mut self.reader {
                if let Some(batch) = &self.batch {
                    self.rows_before += batch.num_rows() as u64;
                }
                match next_of(reader) {
                    Some(Ok(batch)) => {
                        self.batch = Some(batch);
                        self.row_in_batch = 0;
                        return Ok(true);
                    }
                    Some(Err(error)) => {
                        let part = &self.parts[self.next_part - 1];
                        return Err(parquet_error(part, error));
                    }
                    None => self.reader = None,
                }
            }
            self.batch = None;
            let Some(part) = self.parts.get(self.next_part) else {
                return Ok(false);
            };
            let (reader, ..) = open_part(part, &self.layout.columns())?;
            self.reader = Some(reader);
            self.rows_before = 0;
            self.next_part += 1;
        }
    }

    /// The error about `row` of the current batch's part, in `column`.
    fn row_error(&self, row: usize, column: usize, detail: String) -> BuildError {
        let part = &self.parts[self.next_part.saturating_sub(1)];
        BuildError::bad_input(
            part,
            format!(
                "row {}, column {:?}: {detail}",
                self.rows_before + row as u64 + 1,
                self.layout.names[column]
            ),
        )
    }
}

/// Bytes a Parquet input holds while it streams, beside its ids: the row group being
/// decoded (its pages and its arrays) and a batch of rows.
fn buffer_bytes(largest_row_group_bytes: u64) -> u64 {
    3 * largest_row_group_bytes + BATCH_ROWS as u64 * 48
}

/// Compacting a Parquet table's ids (see `crate::ids`): the passes before the build's
/// own offer the ids row by row, source before target, as the build's pass takes them.
fn scan_ids(
    path: &Path,
    parts: &[PathBuf],
    layout: &Layout,
    allowance_bytes: u64,
    passes: IdPasses,
) -> Result<IdResolver> {
    let id_columns = layout.names[..2].to_vec();
    compact_ids(path, allowance_bytes, passes, |add| {
        for part in parts {
            let (reader, ..) = open_part(part, &id_columns)?;
            for batch in reader {
                let batch = batch.map_err(|error| parquet_error(part, error))?;
                let columns: Vec<(&String, &ArrayRef)> = id_columns
                    .iter()
                    .filter_map(|name| Some((name, batch.column_by_name(name)?)))
                    .collect();
                for row in 0..batch.num_rows() {
                    for &(name, column) in &columns {
                        let value = match id_at(column, row) {
                            Some(value) => value,
                            // Nulls are reported, with their row, by the second pass.
                            None if column.is_null(row) => continue,
                            None => {
                                let text =
                                    column.as_primitive::<UInt64Type>().value(row).to_string();
                                match add(IdValue::Text(text.as_bytes())) {
                                    Gathered::Added => continue,
                                    Gathered::Stop => return Ok(()),
                                    Gathered::Refused(detail) => {
                                        return Err(BuildError::bad_input(part, detail));
                                    }
                                }
                            }
                        };
                        match add(value) {
                            Gathered::Added => {}
                            Gathered::Stop => return Ok(()),
                            Gathered::Refused(detail) => {
                                return Err(BuildError::bad_input(
                                    part,
                                    format!("column {name:?}: {detail}"),
                                ));
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    })
}

impl EdgeSource for ParquetSource {
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
        let share = self.rows_read as f64 / self.rows_total.max(1) as f64;
        (
            (share * self.bytes_total as f64) as u64,
            Some(self.bytes_total),
        )
    }

    fn declared_vertices(&self) -> Option<u64> {
        self.ids.declared_vertices()
    }

    fn memory_bytes(&self) -> u64 {
        // A row group's chosen columns as read and as decompressed pages, and a batch.
        self.ids.memory_bytes() + buffer_bytes(self.largest_row_group_bytes)
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
            let exhausted = self
                .batch
                .as_ref()
                .is_none_or(|records| self.row_in_batch >= records.num_rows());
            if exhausted && !self.next_record_batch()? {
                self.ids.at_end(&self.path)?;
                break;
            }
            let Some(records) = self.batch.clone() else {
                break;
            };
            let columns: Vec<ArrayRef> = self
                .layout
                .columns()
                .iter()
                .map(|name| records.column_by_name(name).cloned())
                .collect::<Option<_>>()
                .ok_or_else(|| BuildError::bad_input(&self.path, "a part lacks a chosen column"))?;
            while self.row_in_batch < records.num_rows() && batch.len() < BATCH_EDGES {
                let row = self.row_in_batch;
                let mut vertices = [0u32; 2];
                for (at, vertex) in vertices.iter_mut().enumerate() {
                    let value = match id_at(&columns[at], row) {
                        Some(value) => value,
                        None if columns[at].is_null(row) => {
                            return Err(self.row_error(row, at, "the id is null".into()));
                        }
                        None => {
                            let text = columns[at]
                                .as_primitive::<UInt64Type>()
                                .value(row)
                                .to_string();
                            let resolved = self.ids.vertex_of(text.as_bytes());
                            *vertex = self.resolved(resolved, row, at)?;
                            continue;
                        }
                    };
                    let resolved = self.ids.vertex_of_value(value);
                    *vertex = self.resolved(resolved, row, at)?;
                }
                let weight = match self.layout.weighted {
                    false => 1.0,
                    true => {
                        let number = number_at(&columns[2], row)
                            .ok_or_else(|| self.row_error(row, 2, "the weight is null".into()))?;
                        weight_from_number(number, &number.to_string())
                            .map_err(|detail| self.row_error(row, 2, detail))?
                    }
                };
                self.ids.count_edge();
                self.row_in_batch += 1;
                self.rows_read += 1;
                batch.push(InputEdge {
                    source: vertices[0],
                    destination: vertices[1],
                    weight,
                });
            }
        }
        Ok(!batch.is_empty())
    }
}

impl ParquetSource {
    /// A resolved id, or the error for it at `row` of `column`.
    fn resolved(
        &self,
        resolved: std::result::Result<u32, IdProblem>,
        row: usize,
        column: usize,
    ) -> Result<u32> {
        match resolved {
            Ok(vertex) => Ok(vertex),
            Err(IdProblem::Compact(reason)) => Err(BuildError::IdsNeedCompacting(reason)),
            Err(IdProblem::Detail(detail)) => Err(self.row_error(row, column, detail)),
        }
    }
}
