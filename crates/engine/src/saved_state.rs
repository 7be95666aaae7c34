//! A kernel's state as a checkpoint holds it: a sequence of named sections (numbers and
//! arrays of fixed-size values), each followed by its own checksum.
//!
//! Kernels write their state between two steps with a [`StateWriter`] and read it back
//! with a [`StateReader`], in the same order. Both stream through a small buffer, so a
//! checkpoint of a hot array never holds a copy of it: the run's memory budget has no
//! room for one. The file around the sections (what run and graph they belong to, the
//! checksum over the whole) is the runner's.

use std::io::{Read, Write};
use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering};

use xxhash_rust::xxh3::Xxh3;

/// Bytes a writer or reader buffers at a time.
const BUFFER_BYTES: usize = 64 << 10;

/// Why a saved state cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The file could not be read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A section other than the one expected came next.
    #[error("expected the section `{expected}` but found `{found}`")]
    UnexpectedSection {
        /// The section the kernel reads next.
        expected: String,
        /// The section the file holds there.
        found: String,
    },
    /// A section's length or value size is not the one the run needs.
    #[error(
        "the section `{name}` holds {found} values of {found_bytes} bytes, not {expected} of {expected_bytes}"
    )]
    WrongLength {
        /// The section.
        name: String,
        /// Values the run needs (`u64::MAX`: any number).
        expected: u64,
        /// Values the section holds.
        found: u64,
        /// Bytes a value takes in the run.
        expected_bytes: u8,
        /// Bytes a value takes in the section.
        found_bytes: u8,
    },
    /// A section's data does not match its checksum.
    #[error("the section `{name}` fails its checksum")]
    Damaged {
        /// The section.
        name: String,
    },
    /// A value no run could have saved (a vertex past the graph, an unknown phase).
    #[error("the section `{name}` holds a value no run of this graph makes: {detail}")]
    Invalid {
        /// The section.
        name: String,
        /// What is wrong with it.
        detail: String,
    },
    /// The graph could not be read while the state was rebuilt.
    #[error(transparent)]
    Store(#[from] swapless_store::StoreError),
}

/// A value of fixed size that a section holds, little-endian.
pub trait Element: Sized {
    /// Bytes a value takes.
    const BYTES: usize;
    /// Appends the value's bytes to `out`.
    fn put(&self, out: &mut Vec<u8>);
}

/// A plain value read back from a section.
pub trait Decode: Element {
    /// The value `bytes` (exactly [`Element::BYTES`] long) hold.
    fn decode(bytes: &[u8]) -> Self;
}

/// An atomic cell of a property array, set in place from a section.
pub trait Restore: Element {
    /// Stores the value `bytes` (exactly [`Element::BYTES`] long) hold.
    fn restore(&self, bytes: &[u8]);
}

macro_rules! plain_and_atomic {
    ($($plain:ty, $atomic:ty;)*) => {$(
        impl Element for $plain {
            const BYTES: usize = size_of::<$plain>();
            fn put(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
        impl Decode for $plain {
            fn decode(bytes: &[u8]) -> Self {
                let mut raw = [0u8; size_of::<$plain>()];
                raw.copy_from_slice(bytes);
                <$plain>::from_le_bytes(raw)
            }
        }
        impl Element for $atomic {
            const BYTES: usize = size_of::<$plain>();
            fn put(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.load(Ordering::Relaxed).to_le_bytes());
            }
        }
        impl Restore for $atomic {
            fn restore(&self, bytes: &[u8]) {
                self.store(<$plain>::decode(bytes), Ordering::Relaxed);
            }
        }
    )*};
}

plain_and_atomic! {
    u8, AtomicU8;
    u32, AtomicU32;
    u64, AtomicU64;
}

impl Element for (u64, u32) {
    const BYTES: usize = 12;
    fn put(&self, out: &mut Vec<u8>) {
        self.0.put(out);
        self.1.put(out);
    }
}

impl Decode for (u64, u32) {
    fn decode(bytes: &[u8]) -> Self {
        (u64::decode(&bytes[..8]), u32::decode(&bytes[8..]))
    }
}

/// Writes a state's sections to a file (or anything written to), a buffer at a time.
pub struct StateWriter<'a> {
    out: &'a mut dyn Write,
    buffer: Vec<u8>,
}

impl<'a> StateWriter<'a> {
    /// A writer into `out`.
    pub fn new(out: &'a mut dyn Write) -> StateWriter<'a> {
        StateWriter {
            out,
            buffer: Vec::with_capacity(BUFFER_BYTES),
        }
    }

    /// A section of one number.
    pub fn number(&mut self, name: &str, value: u64) -> std::io::Result<()> {
        self.items::<u64, u64>(name, 1, std::iter::once(value))
    }

    /// A section holding `values`.
    pub fn array<T: Element>(&mut self, name: &str, values: &[T]) -> std::io::Result<()> {
        self.items::<T, &T>(name, values.len() as u64, values.iter())
    }

    /// A section of `count` values, made by `values` (which must give exactly that many).
    pub fn items<T: Element, V: std::borrow::Borrow<T>>(
        &mut self,
        name: &str,
        count: u64,
        values: impl Iterator<Item = V>,
    ) -> std::io::Result<()> {
        let name_bytes = name.as_bytes();
        debug_assert!(name_bytes.len() <= u8::MAX as usize);
        let mut head = vec![name_bytes.len() as u8];
        head.extend_from_slice(name_bytes);
        head.push(T::BYTES as u8);
        head.extend_from_slice(&count.to_le_bytes());
        self.out.write_all(&head)?;
        let mut hasher = Xxh3::new();
        let mut written = 0u64;
        for value in values {
            value.borrow().put(&mut self.buffer);
            written += 1;
            if self.buffer.len() + T::BYTES > BUFFER_BYTES {
                self.flush(&mut hasher)?;
            }
        }
        self.flush(&mut hasher)?;
        if written != count {
            return Err(std::io::Error::other(format!(
                "the section `{name}` was declared with {count} values but given {written}"
            )));
        }
        self.out.write_all(&hasher.digest().to_le_bytes())
    }

    fn flush(&mut self, hasher: &mut Xxh3) -> std::io::Result<()> {
        hasher.update(&self.buffer);
        self.out.write_all(&self.buffer)?;
        self.buffer.clear();
        Ok(())
    }
}

/// Reads a state's sections back, in the order they were written.
pub struct StateReader<'a> {
    input: &'a mut dyn Read,
    /// Bytes left in the input: a section never claims more than there is.
    remaining: u64,
    buffer: Vec<u8>,
}

/// A section's head: its name, the bytes a value takes, and how many values it holds.
struct SectionHead {
    name: String,
    value_bytes: u8,
    count: u64,
}

impl<'a> StateReader<'a> {
    /// A reader of the `length` bytes of sections `input` holds.
    pub fn new(input: &'a mut dyn Read, length: u64) -> StateReader<'a> {
        StateReader {
            input,
            remaining: length,
            buffer: Vec::with_capacity(BUFFER_BYTES),
        }
    }

    /// The number the section `name` holds.
    pub fn number(&mut self, name: &str) -> Result<u64, StateError> {
        let values: Vec<u64> = self.items(name, Some(1))?;
        Ok(values[0])
    }

    /// The number the section `name` holds, which no run makes larger than `most`.
    pub fn number_at_most(&mut self, name: &str, most: u64) -> Result<u64, StateError> {
        match self.number(name)? {
            number if number <= most => Ok(number),
            number => Err(StateError::Invalid {
                name: name.to_string(),
                detail: format!("{number}, above the most a run reaches, {most}"),
            }),
        }
    }

    /// The values of the section `name` (exactly `count` of them, if given).
    pub fn items<T: Decode>(
        &mut self,
        name: &str,
        count: Option<u64>,
    ) -> Result<Vec<T>, StateError> {
        let head = self.head::<T>(name, count)?;
        let mut values = Vec::with_capacity(head.count as usize);
        self.stream(&head, |bytes| {
            values.extend(bytes.chunks_exact(T::BYTES).map(T::decode))
        })?;
        Ok(values)
    }

    /// Vertex ids (each below `vertices`) that the section `name` holds.
    pub fn vertices(&mut self, name: &str, vertices: usize) -> Result<Vec<u32>, StateError> {
        let values: Vec<u32> = self.items(name, None)?;
        match values.iter().find(|&&vertex| vertex as usize >= vertices) {
            Some(vertex) => Err(StateError::Invalid {
                name: name.to_string(),
                detail: format!("vertex {vertex} of a graph of {vertices}"),
            }),
            None => Ok(values),
        }
    }

    /// Sets every cell of `cells` from the section `name`, which holds as many values.
    pub fn fill<T: Restore>(&mut self, name: &str, cells: &[T]) -> Result<(), StateError> {
        let head = self.head::<T>(name, Some(cells.len() as u64))?;
        let mut next = 0;
        self.stream(&head, |bytes| {
            for value in bytes.chunks_exact(T::BYTES) {
                cells[next].restore(value);
                next += 1;
            }
        })
    }

    /// Reads the next section's head and checks it is `name`'s, of `T`s (and `count`).
    fn head<T: Element>(
        &mut self,
        name: &str,
        count: Option<u64>,
    ) -> Result<SectionHead, StateError> {
        let name_length = self.take(1)?[0] as usize;
        let found = String::from_utf8_lossy(&self.take(name_length)?).into_owned();
        if found != name {
            return Err(StateError::UnexpectedSection {
                expected: name.to_string(),
                found,
            });
        }
        let value_bytes = self.take(1)?[0];
        let found_count = u64::decode(&self.take(8)?);
        let fits = found_count
            .checked_mul(value_bytes as u64)
            .is_some_and(|bytes| bytes.saturating_add(8) <= self.remaining);
        if value_bytes as usize != T::BYTES || count.is_some_and(|c| c != found_count) || !fits {
            return Err(StateError::WrongLength {
                name: name.to_string(),
                expected: count.unwrap_or(u64::MAX),
                found: found_count,
                expected_bytes: T::BYTES as u8,
                found_bytes: value_bytes,
            });
        }
        Ok(SectionHead {
            name: found,
            value_bytes,
            count: found_count,
        })
    }

    /// Hands the section's data to `each` a buffer (of whole values) at a time, then
    /// checks its checksum.
    fn stream(
        &mut self,
        head: &SectionHead,
        mut each: impl FnMut(&[u8]),
    ) -> Result<(), StateError> {
        let value_bytes = head.value_bytes as usize;
        let per_buffer = (BUFFER_BYTES / value_bytes.max(1)).max(1) as u64;
        let mut hasher = Xxh3::new();
        let mut left = head.count;
        while left > 0 {
            let values = left.min(per_buffer);
            let bytes = self.take(values as usize * value_bytes)?;
            hasher.update(&bytes);
            each(&bytes);
            self.buffer = bytes;
            left -= values;
        }
        if u64::decode(&self.take(8)?) != hasher.digest() {
            return Err(StateError::Damaged {
                name: head.name.clone(),
            });
        }
        Ok(())
    }

    /// The next `bytes` bytes (in the reused buffer).
    fn take(&mut self, bytes: usize) -> Result<Vec<u8>, StateError> {
        if bytes as u64 > self.remaining {
            return Err(std::io::Error::from(std::io::ErrorKind::UnexpectedEof).into());
        }
        let mut buffer = std::mem::take(&mut self.buffer);
        buffer.resize(bytes, 0);
        self.input.read_exact(&mut buffer)?;
        self.remaining -= bytes as u64;
        Ok(buffer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(write: impl FnOnce(&mut StateWriter) -> std::io::Result<()>) -> Vec<u8> {
        let mut bytes = Vec::new();
        write(&mut StateWriter::new(&mut bytes)).unwrap();
        bytes
    }

    #[test]
    fn sections_come_back_as_written() {
        let cells: Vec<AtomicU32> = (0..100_000).map(AtomicU32::new).collect();
        let bytes = saved(|out| {
            out.number("level", 7)?;
            out.array("cells", &cells)?;
            out.items::<(u64, u32), _>("pairs", 2, [(1, 2), (3, 4)].into_iter())
        });
        let mut input = bytes.as_slice();
        let mut reader = StateReader::new(&mut input, bytes.len() as u64);
        assert_eq!(reader.number("level").unwrap(), 7);
        let restored: Vec<AtomicU32> = (0..100_000).map(|_| AtomicU32::new(0)).collect();
        reader.fill("cells", &restored).unwrap();
        assert!(
            restored
                .iter()
                .enumerate()
                .all(|(i, c)| c.load(Ordering::Relaxed) == i as u32)
        );
        let pairs: Vec<(u64, u32)> = reader.items("pairs", None).unwrap();
        assert_eq!(pairs, [(1, 2), (3, 4)]);
    }

    #[test]
    fn damage_and_mismatches_are_refused() {
        let bytes = saved(|out| out.array("frontier", &[1u32, 2, 9]));
        let read = |bytes: &[u8], vertices: usize| {
            let mut input = bytes;
            StateReader::new(&mut input, bytes.len() as u64).vertices("frontier", vertices)
        };
        assert_eq!(read(&bytes, 10).unwrap(), [1, 2, 9]);
        assert!(matches!(read(&bytes, 5), Err(StateError::Invalid { .. })));
        let mut flipped = bytes.clone();
        flipped[20] ^= 1;
        assert!(matches!(
            read(&flipped, 10),
            Err(StateError::Damaged { .. })
        ));
        assert!(read(&bytes[..bytes.len() - 3], 10).is_err());
        let mut input = bytes.as_slice();
        let wrong = StateReader::new(&mut input, bytes.len() as u64).number("level");
        assert!(matches!(wrong, Err(StateError::UnexpectedSection { .. })));
        // A count that claims more than the file holds is refused before any allocation.
        let mut huge = bytes.clone();
        huge[10..18].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(
            read(&huge, 10),
            Err(StateError::WrongLength { .. })
        ));
    }
}
