//! Writes a kernel's result as a CSV table people join back to their data: one row a
//! vertex, its id as the input wrote it (an integer or a name), then the value; values
//! that are vertices (a BFS parent, a component's representative) are ids too.

use std::path::Path;

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
    writer.write_record(["id", column.name]).map_err(failed)?;
    let id_of = |v: usize| match ids {
        Some(ids) => ids.text(v),
        None => v.to_string(),
    };
    let vertex_value = |value: i64| match value {
        value if value < 0 => String::new(),
        value => id_of(value as usize),
    };
    let length = match array {
        ResultArray::Int64(values) => values.len(),
        ResultArray::Float64(values) => values.len(),
        ResultArray::Int8(values) => values.len(),
        ResultArray::None => 0,
    };
    for v in 0..length {
        let value = match array {
            ResultArray::Int64(values) if column.vertices => vertex_value(values[v]),
            ResultArray::Int64(values) => values[v].to_string(),
            ResultArray::Float64(values) => values[v].to_string(),
            ResultArray::Int8(values) => values[v].to_string(),
            ResultArray::None => String::new(),
        };
        writer.write_record([id_of(v), value]).map_err(failed)?;
    }
    writer
        .flush()
        .map_err(|error| FormatError::io(path, error))?;
    drop(writer);
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
