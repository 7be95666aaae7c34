//! Transparent decompression, chosen by the file's extension.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{BuildError, Result};

/// Counts the (compressed) bytes read from the file, for progress display.
pub struct CountingReader<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buffer)?;
        self.count.fetch_add(read as u64, Ordering::Relaxed);
        Ok(read)
    }
}

/// An open input: buffered, decompressed, with a counter of file bytes consumed.
pub struct InputReader {
    /// The decompressed stream.
    pub reader: Box<dyn BufRead + Send>,
    /// File bytes read so far.
    pub bytes_read: Arc<AtomicU64>,
    /// Total file size.
    pub file_bytes: u64,
}

impl InputReader {
    /// File bytes consumed so far and the file's size, for progress display.
    pub fn progress(&self) -> (u64, Option<u64>) {
        (
            self.bytes_read.load(Ordering::Relaxed),
            Some(self.file_bytes),
        )
    }
}

impl Read for InputReader {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        self.reader.read(buffer)
    }
}

impl BufRead for InputReader {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.reader.fill_buf()
    }
    fn consume(&mut self, amount: usize) {
        self.reader.consume(amount)
    }
}

/// Read buffer size for inputs: large enough for sequential throughput.
const READ_BUFFER_BYTES: usize = 1 << 20;

/// Opens `path`, decompressing `.gz` (all members) and `.zst` inputs on the fly.
pub fn open_maybe_compressed(path: &Path) -> Result<InputReader> {
    let file = File::open(path).map_err(|source| BuildError::io(path, source))?;
    let file_bytes = file
        .metadata()
        .map_err(|source| BuildError::io(path, source))?
        .len();
    if file_bytes == 0 {
        return Err(BuildError::bad_input(path, "the file is empty"));
    }
    let bytes_read = Arc::new(AtomicU64::new(0));
    let counted = CountingReader {
        inner: file,
        count: bytes_read.clone(),
    };
    let name = path.to_string_lossy().to_ascii_lowercase();
    let reader: Box<dyn BufRead + Send> = if name.ends_with(".gz") {
        let decoder =
            flate2::read::MultiGzDecoder::new(BufReader::with_capacity(READ_BUFFER_BYTES, counted));
        Box::new(BufReader::with_capacity(READ_BUFFER_BYTES, decoder))
    } else if name.ends_with(".zst") {
        let decoder = zstd::stream::read::Decoder::new(counted)
            .map_err(|source| BuildError::io(path, source))?;
        Box::new(BufReader::with_capacity(READ_BUFFER_BYTES, decoder))
    } else {
        Box::new(BufReader::with_capacity(READ_BUFFER_BYTES, counted))
    };
    Ok(InputReader {
        reader,
        bytes_read,
        file_bytes,
    })
}
