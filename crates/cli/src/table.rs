//! Writes a kernel's result as a table people join back to their data, CSV or Parquet:
//! one row a vertex, its id as the input wrote it (an integer or a name), then the
//! value; values that are vertices (a BFS parent, a component's representative) are ids
//! too. A result that is edges (a k-truss) is one row an edge, the ids of its ends in
//! the columns `source` and `target`.

use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, Float64Array, Int8Array, Int64Array, RecordBatch};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use swapless_format::output::OutputFile;
use swapless_format::{FormatError, VertexIds};
use swapless_run::{Column, ResultArray};

/// Writes `array` (in original vertex order) to `path` as a CSV file with the columns
/// `id` and `column.name`, as one whole (see `swapless_format::output`). A vertex with
/// no value (a BFS parent of an unreached vertex) has an empty cell.
pub fn write_csv(
    path: &Path,
    array: &ResultArray,
    column: Column,
    ids: Option<&VertexIds>,
) -> swapless_format::Result<()> {
    let mut file = OutputFile::create(path)?;
    let failed = |error: csv::Error| match error.into_kind() {
        csv::ErrorKind::Io(error) => FormatError::io(path, error),
        other => FormatError::io(path, std::io::Error::other(format!("{other:?}"))),
    };
    let mut writer = csv::Writer::from_writer(std::io::BufWriter::new(&mut file));
    let id_of = |v: usize| match ids {
        Some(ids) => ids.text(v),
        None => v.to_string(),
    };
    if let ResultArray::Edges(pairs) = array {
        writer.write_record(EDGE_COLUMNS).map_err(failed)?;
        for &[u, v] in pairs {
            writer
                .write_record([id_of(u as usize), id_of(v as usize)])
                .map_err(failed)?;
        }
    } else {
        writer.write_record(["id", column.name]).map_err(failed)?;
    }
    let vertex_value = |value: i64| match value {
        value if value < 0 => String::new(),
        value => id_of(value as usize),
    };
    for v in 0..vertex_rows(array) {
        let value = match array {
            ResultArray::Int64(values) if column.vertices => vertex_value(values[v]),
            ResultArray::Int64(values) => values[v].to_string(),
            ResultArray::Float64(values) => values[v].to_string(),
            ResultArray::Int8(values) => values[v].to_string(),
            ResultArray::None | ResultArray::Edges(_) => String::new(),
        };
        writer.write_record([id_of(v), value]).map_err(failed)?;
    }
    writer
        .flush()
        .map_err(|error| FormatError::io(path, error))?;
    drop(writer);
    file.commit()
}

/// The columns of a table of edges.
const EDGE_COLUMNS: [&str; 2] = ["source", "target"];

/// Rows of a table of `array` by vertex: one a vertex, none for a number or edges.
fn vertex_rows(array: &ResultArray) -> usize {
    match array {
        ResultArray::Int64(values) => values.len(),
        ResultArray::Float64(values) => values.len(),
        ResultArray::Int8(values) => values.len(),
        ResultArray::None | ResultArray::Edges(_) => 0,
    }
}

/// Rows a Parquet row group of results holds at most: its arrays are made, encoded and
/// written one group at a time.
const GROUP_ROWS: usize = 1 << 14;

/// Bytes of names a row group holds at most (a group ends at whichever comes first),
/// so that long names cannot make a group large.
const GROUP_NAME_BYTES: u64 = 1 << 20;

/// Memory a table's writer holds beside the result and the ids, at most, for the plan
/// to count: a CSV writer's buffers; or the Parquet writer's code and tables (which a
/// run writing no Parquet never maps) and one row group's arrays and encoded pages.
pub fn writer_bytes(parquet: bool) -> u64 {
    match parquet {
        true => 10 << 20,
        false => 1 << 20,
    }
}

/// Writes `array` to `path` as a Parquet file with the columns `id` (int64, or string for
/// names) and `column.name` (float64, int64 or int8; a vertex column as ids, null for
/// none), snappy-compressed, as one whole.
pub fn write_parquet(
    path: &Path,
    array: &ResultArray,
    column: Column,
    ids: Option<&VertexIds>,
) -> swapless_format::Result<()> {
    let failed = |error: parquet::errors::ParquetError| {
        FormatError::io(path, std::io::Error::other(error.to_string()))
    };
    let length = match array {
        ResultArray::Edges(pairs) => pairs.len(),
        array => vertex_rows(array),
    };
    // The ids of the vertices `values` names (None: no vertex) as a column.
    let id_column = |values: &mut dyn Iterator<Item = Option<usize>>| -> ArrayRef {
        match ids {
            Some(ids @ VertexIds::Names { .. }) => {
                let mut builder = StringBuilder::new();
                for v in values {
                    builder.append_option(v.and_then(|v| ids.name(v)));
                }
                Arc::new(builder.finish())
            }
            Some(VertexIds::Integers(integers)) => {
                let mut builder = Int64Builder::new();
                for v in values {
                    builder.append_option(v.map(|v| integers[v]));
                }
                Arc::new(builder.finish())
            }
            None => {
                let mut builder = Int64Builder::new();
                for v in values {
                    builder.append_option(v.map(|v| v as i64));
                }
                Arc::new(builder.finish())
            }
        }
    };
    // Where the group from `start` ends: at GROUP_ROWS rows or GROUP_NAME_BYTES of
    // names (of the rows' ids, and of the ids a vertex column names: at most as many).
    let group_end = |start: usize| -> usize {
        let end = (start + GROUP_ROWS).min(length);
        match ids {
            // An edge's ends are any vertices: its rows go by their count alone.
            _ if matches!(array, ResultArray::Edges(_)) => end,
            Some(VertexIds::Names { offsets, .. }) => {
                let limit = offsets[start] + GROUP_NAME_BYTES / 2;
                let within = offsets[start + 1..=end].partition_point(|&offset| offset <= limit);
                (start + within.max(1)).min(end)
            }
            _ => end,
        }
    };
    let group = |range: std::ops::Range<usize>| -> swapless_format::Result<RecordBatch> {
        let table_failed = |error: String| FormatError::io(path, std::io::Error::other(error));
        if let ResultArray::Edges(pairs) = array {
            let end = |side: usize| {
                id_column(
                    &mut pairs[range.clone()]
                        .iter()
                        .map(|pair| Some(pair[side] as usize)),
                )
            };
            return RecordBatch::try_from_iter([
                (EDGE_COLUMNS[0], end(0)),
                (EDGE_COLUMNS[1], end(1)),
            ])
            .map_err(|error| table_failed(error.to_string()));
        }
        let id = id_column(&mut range.clone().map(Some));
        let value: ArrayRef = match array {
            ResultArray::Int64(values) if column.vertices => id_column(
                &mut values[range]
                    .iter()
                    .map(|&value| usize::try_from(value).ok()),
            ),
            ResultArray::Int64(values) => Arc::new(Int64Array::from(values[range].to_vec())),
            ResultArray::Float64(values) => Arc::new(Float64Array::from(values[range].to_vec())),
            ResultArray::Int8(values) => Arc::new(Int8Array::from(values[range].to_vec())),
            ResultArray::None | ResultArray::Edges(_) => {
                Arc::new(Float64Array::from(Vec::<f64>::new()))
            }
        };
        RecordBatch::try_from_iter([("id", id), (column.name, value)])
            .map_err(|error| table_failed(error.to_string()))
    };
    let first_end = group_end(0);
    let first = group(0..first_end)?;
    // Each batch is a row group of its own, written before the next is made.
    let properties = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(GROUP_ROWS))
        .set_dictionary_enabled(false)
        .build();
    let mut file = OutputFile::create(path)?;
    let mut writer =
        ArrowWriter::try_new(&mut file, first.schema(), Some(properties)).map_err(failed)?;
    writer.write(&first).map_err(failed)?;
    writer.flush().map_err(failed)?;
    drop(first);
    let mut start = first_end;
    while start < length {
        let end = group_end(start);
        writer.write(&group(start..end)?).map_err(failed)?;
        writer.flush().map_err(failed)?;
        start = end;
    }
    writer.close().map_err(failed)?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_name_vertices_by_their_ids() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("parents.csv");
        let mut offsets = vec![0u64];
        let mut bytes = Vec::new();
        for name in ["a,b", "x", "Zoë \"東京\""] {
            bytes.extend_from_slice(name.as_bytes());
            offsets.push(bytes.len() as u64);
        }
        let names = VertexIds::Names { offsets, bytes };
        let parents = ResultArray::Int64(vec![0, 0, -1]);
        let column = Column {
            name: "parent",
            vertices: true,
        };
        write_csv(&path, &parents, column, Some(&names)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "id,parent\n\"a,b\",\"a,b\"\nx,\"a,b\"\n\"Zoë \"\"東京\"\"\",\n"
        );
        let distances = ResultArray::Float64(vec![0.5, f64::INFINITY]);
        let column = Column {
            name: "distance",
            vertices: false,
        };
        write_csv(&path, &distances, column, None).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "id,distance\n0,0.5\n1,inf\n");
    }
}
