//! Writes result arrays as NumPy `.npy` files (format version 1.0), atomically.

use std::io::Write;
use std::path::Path;

use swapless_format::FormatError;
use swapless_format::output::OutputFile;

/// An array in one of the element types kernels produce: 1-D, or of pairs.
pub enum NpyArray<'a> {
    /// `<i8` (int64).
    Int64(&'a [i64]),
    /// `<f8` (float64).
    Float64(&'a [f64]),
    /// `|i1` (int8).
    Int8(&'a [i8]),
    /// Vertex ids in pairs, written `<i8` (int64) of shape (pairs, 2): edges.
    Pairs(&'a [[u32; 2]]),
}

/// Writes `array` to `path` as one whole: under a temporary name renamed into place
/// when complete, or straight into a device or FIFO (see `swapless_format::output`).
pub fn write_npy(path: &Path, array: NpyArray) -> swapless_format::Result<()> {
    let (descr, bytes, shape): (&str, &[u8], String) = match array {
        NpyArray::Int64(values) => ("<i8", bytemuck::cast_slice(values), one_dimension(values)),
        NpyArray::Float64(values) => ("<f8", bytemuck::cast_slice(values), one_dimension(values)),
        NpyArray::Int8(values) => ("|i1", bytemuck::cast_slice(values), one_dimension(values)),
        NpyArray::Pairs(pairs) => ("<i8", &[][..], format!("({}, 2)", pairs.len())),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // magic (6) + version (2) + header length (2) + header must be a multiple of 64, ending in '\n'.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut file = OutputFile::create(path)?;
    let io = |error| FormatError::io(path, error);
    let mut writer = std::io::BufWriter::new(&mut file);
    writer.write_all(b"\x93NUMPY\x01\x00").map_err(io)?;
    writer
        .write_all(&(header.len() as u16).to_le_bytes())
        .map_err(io)?;
    writer.write_all(header.as_bytes()).map_err(io)?;
    writer.write_all(bytes).map_err(io)?;
    if let NpyArray::Pairs(pairs) = array {
        // Widened a block at a time, never the whole array at once.
        for block in pairs.chunks(1 << 14) {
            let wide: Vec<i64> = block.iter().flatten().map(|&id| i64::from(id)).collect();
            writer.write_all(bytemuck::cast_slice(&wide)).map_err(io)?;
        }
    }
    writer.flush().map_err(io)?;
    drop(writer);
    file.commit()
}

/// The shape of a 1-D array of `values`, as a header writes it.
fn one_dimension<T>(values: &[T]) -> String {
    format!("({},)", values.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_padded_to_64_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.npy");
        write_npy(&path, NpyArray::Int64(&[1, -1, 7])).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + header_len) % 64, 0);
        assert_eq!(bytes[10 + header_len - 1], b'\n');
        assert_eq!(bytes.len(), 10 + header_len + 24);
        assert!(String::from_utf8_lossy(&bytes[10..10 + header_len]).contains("'shape': (3,)"));
    }

    #[test]
    fn pairs_are_two_columns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("edges.npy");
        write_npy(&path, NpyArray::Pairs(&[[0, 1], [2, 5]])).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert!(String::from_utf8_lossy(&bytes[10..10 + header_len]).contains("'shape': (2, 2)"));
        let values: Vec<i64> = bytes[10 + header_len..]
            .chunks(8)
            .map(|chunk| i64::from_le_bytes(chunk.try_into().unwrap()))
            .collect();
        assert_eq!(values, [0, 1, 2, 5]);
    }
}
