//! Writes result arrays as NumPy `.npy` files (format version 1.0), atomically.

use std::io::Write;
use std::path::Path;

use swapless_format::FormatError;
use swapless_format::output::OutputFile;

/// A 1-D array in one of the element types kernels produce.
pub enum NpyArray<'a> {
    /// `<i8` (int64).
    Int64(&'a [i64]),
    /// `<f8` (float64).
    Float64(&'a [f64]),
    /// `|i1` (int8).
    Int8(&'a [i8]),
}

/// Writes `array` to `path` as one whole: under a temporary name renamed into place
/// when complete, or straight into a device or FIFO (see `swapless_format::output`).
pub fn write_npy(path: &Path, array: NpyArray) -> swapless_format::Result<()> {
    let (descr, bytes, len): (&str, &[u8], usize) = match array {
        NpyArray::Int64(values) => ("<i8", bytemuck::cast_slice(values), values.len()),
        NpyArray::Float64(values) => ("<f8", bytemuck::cast_slice(values), values.len()),
        NpyArray::Int8(values) => ("|i1", bytemuck::cast_slice(values), values.len()),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({len},), }}");
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
    writer.flush().map_err(io)?;
    drop(writer);
    file.commit()
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
}
