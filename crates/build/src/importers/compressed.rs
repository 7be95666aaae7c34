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
    /// Total file size (0 for a pipe, whose size is unknown).
    pub file_bytes: u64,
    /// Whether the input is a regular file (not a pipe or device), whose size is known.
    pub regular_file: bool,
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

/// The first bytes of a gzip stream.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The first bytes of a zstd frame.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// What the first bytes of a file say it is, when they say it: for messages about an
/// input whose name and contents disagree.
pub(crate) fn compression_of(start: &[u8]) -> Option<&'static str> {
    if start.starts_with(&GZIP_MAGIC) {
        Some("gzip")
    } else if start.starts_with(&ZSTD_MAGIC) {
        Some("zstd")
    } else {
        None
    }
}

/// Turns a decoder's errors into sentences that say what the file is and what was
/// expected (the decoders' own say "invalid gzip header" of trailing junk).
struct DecodeErrors<R> {
    inner: R,
    format: &'static str,
}

impl<R: Read> Read for DecodeErrors<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buffer).map_err(|error| match error.kind() {
            std::io::ErrorKind::InvalidInput
            | std::io::ErrorKind::InvalidData
            | std::io::ErrorKind::UnexpectedEof
            | std::io::ErrorKind::Other => std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "the {} data is damaged, truncated or followed by bytes that are not {} ({error})",
                    self.format, self.format
                ),
            ),
            _ => error,
        })
    }
}

/// Opens `path`, decompressing `.gz` (all members) and `.zst` inputs on the fly.
/// A pipe or device is read as a stream; a folder is refused.
pub fn open_maybe_compressed(path: &Path) -> Result<InputReader> {
    let file = File::open(path).map_err(|source| BuildError::io(path, source))?;
    let metadata = file
        .metadata()
        .map_err(|source| BuildError::io(path, source))?;
    if metadata.is_dir() {
        return Err(BuildError::bad_input(
            path,
            "this is a folder, not an input file; name a file inside it",
        ));
    }
    let regular_file = metadata.is_file();
    let file_bytes = if regular_file { metadata.len() } else { 0 };
    if regular_file && file_bytes == 0 {
        return Err(BuildError::bad_input(path, "the file is empty"));
    }
    let bytes_read = Arc::new(AtomicU64::new(0));
    let counted = CountingReader {
        inner: file,
        count: bytes_read.clone(),
    };
    let mut raw = BufReader::with_capacity(READ_BUFFER_BYTES, counted);
    let name = path.to_string_lossy().to_ascii_lowercase();
    let expected = if name.ends_with(".gz") {
        Some("gzip")
    } else if name.ends_with(".zst") {
        Some("zstd")
    } else {
        None
    };
    if let Some(expected) = expected {
        let start = raw
            .fill_buf()
            .map_err(|source| BuildError::io(path, source))?;
        let found = compression_of(start);
        if found != Some(expected) && !start.is_empty() {
            let extension = if expected == "gzip" { ".gz" } else { ".zst" };
            let detail = match found {
                Some(found) => format!(
                    "the name ends in {extension}, but the file holds {found} data; rename it to match"
                ),
                None => format!(
                    "the name ends in {extension}, but the file is not {expected}-compressed (it starts with `{}`); drop the {extension} from its name if it is plain text",
                    super::text::shown(&start[..start.len().min(16)], 16)
                ),
            };
            return Err(BuildError::bad_input(path, detail));
        }
    }
    let reader: Box<dyn BufRead + Send> = match expected {
        Some("gzip") => {
            let decoder = flate2::read::MultiGzDecoder::new(raw);
            Box::new(BufReader::with_capacity(
                READ_BUFFER_BYTES,
                DecodeErrors {
                    inner: decoder,
                    format: "gzip",
                },
            ))
        }
        Some(_) => {
            let decoder = zstd::stream::read::Decoder::with_buffer(raw)
                .map_err(|source| BuildError::io(path, source))?;
            Box::new(BufReader::with_capacity(
                READ_BUFFER_BYTES,
                DecodeErrors {
                    inner: decoder,
                    format: "zstd",
                },
            ))
        }
        None => Box::new(raw),
    };
    Ok(InputReader {
        reader,
        bytes_read,
        file_bytes,
        regular_file,
    })
}
