//! A sample of lists read with `pread`, for a plan's look at a graph: nothing is mapped,
//! so the look holds one list at a time however large the graph and whatever the page
//! cache holds of it (a read through the map counts every page a fault maps, and on
//! kernels that cache files in large folios one fault maps hundreds of KiB).

use std::fs::File;
use std::os::unix::fs::FileExt;

use crate::compressed_lists::{LIST_PAGE_BYTES, decode_list};
use crate::lists::ListSections;
use crate::reader::advise;
use crate::{FormatError, GraphFile, Result, SectionKind};

impl GraphFile {
    /// Reads the lists of `count` vertices spread evenly over the graph (the in-lists
    /// when `incoming` on a directed graph) and gives each, with its vertex, to `visit`,
    /// until `visit` returns false. A list taking more than `longest_bytes` on disk is
    /// passed over. The reads are not checked against the checksums: a sample feeds a
    /// heuristic, and a list that does not decode is an error the caller may ignore.
    pub fn sample_lists(
        &self,
        incoming: bool,
        count: u64,
        longest_bytes: u64,
        visit: &mut dyn FnMut(usize, &[u32]) -> bool,
    ) -> Result<()> {
        let sections = match incoming && self.flags().directed {
            true => ListSections::IN,
            false => ListSections::OUT,
        };
        let vertices = self.num_vertices() as u64;
        let taken = count.min(vertices);
        let file =
            File::open(self.path()).map_err(|source| FormatError::io(self.path(), source))?;
        advise(&file, 0, 0, libc::POSIX_FADV_RANDOM);
        let read = |kind: SectionKind, at: u64, bytes: &mut [u8]| -> Result<()> {
            let entry = self.required_section(kind)?;
            if at + bytes.len() as u64 > entry.length {
                return Err(self.corrupt(format!(
                    "a list at bytes {at}.. of section {} runs past its {} bytes",
                    kind.name(),
                    entry.length
                )));
            }
            file.read_exact_at(bytes, entry.offset + at)
                .map_err(|source| FormatError::io(self.path(), source))
        };
        let pair = |kind: SectionKind, index: u64| -> Result<(u64, u64)> {
            let mut bytes = [0u8; 16];
            read(kind, index * 8, &mut bytes)?;
            let [low, high] = [0, 8].map(|at| {
                let mut word = [0u8; 8];
                word.copy_from_slice(&bytes[at..at + 8]);
                u64::from_le_bytes(word)
            });
            Ok((low, high))
        };
        let (mut bytes, mut ids) = (Vec::new(), Vec::new());
        for index in 0..taken {
            let vertex = index * vertices / taken;
            let (start, end) = pair(sections.offsets, vertex)?;
            let degree = end.saturating_sub(start);
            if degree == 0 {
                continue;
            }
            ids.clear();
            if self.lists_compressed() {
                let (from, to) = pair(sections.positions, vertex)?;
                let page = from / LIST_PAGE_BYTES * LIST_PAGE_BYTES;
                let length = self.required_section(sections.neighbors)?.length;
                let last = to.div_ceil(LIST_PAGE_BYTES) * LIST_PAGE_BYTES;
                let last = last.min(length).max(page);
                if last - page > longest_bytes {
                    continue;
                }
                bytes.resize((last - page) as usize, 0);
                read(sections.neighbors, page, &mut bytes)?;
                let at = (from - page) as usize;
                decode_list(
                    self.gap_coding(),
                    &bytes,
                    at,
                    vertex as u32,
                    degree,
                    degree,
                    &mut ids,
                    None,
                )
                .map_err(|error| self.corrupt(format!("{}: {error}", sections.neighbors.name())))?;
            } else {
                if degree * 4 > longest_bytes {
                    continue;
                }
                bytes.resize(degree as usize * 4, 0);
                read(sections.neighbors, start * 4, &mut bytes)?;
                ids.extend(
                    bytes
                        .chunks_exact(4)
                        .map(|id| u32::from_le_bytes([id[0], id[1], id[2], id[3]])),
                );
            }
            if !visit(vertex as usize, &ids) {
                break;
            }
        }
        for kind in [sections.offsets, sections.positions, sections.neighbors] {
            if let Some(entry) = self.header().section(kind) {
                advise(&file, entry.offset, entry.length, libc::POSIX_FADV_DONTNEED);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::GraphFile;
    use crate::list_scan::tests::write_both;

    /// The sampled lists are the graph's, out and in, plain and compressed alike; a
    /// list too long is passed over, and `visit` stops the sample.
    #[test]
    fn sampled_lists_are_the_graphs_lists() {
        let dir = tempfile::tempdir().unwrap();
        let (plain, compressed) = write_both(dir.path(), 3000);
        for path in [&plain, &compressed] {
            let graph = GraphFile::open(path).unwrap();
            for incoming in [false, true] {
                let mut seen = 0;
                graph
                    .sample_lists(incoming, 200, u64::MAX, &mut |vertex, ids| {
                        let list = match incoming {
                            true => graph.in_list(vertex).unwrap(),
                            false => graph.out_list(vertex).unwrap(),
                        };
                        assert_eq!(ids, &list.ids[..], "vertex {vertex}");
                        seen += 1;
                        true
                    })
                    .unwrap();
                assert!(seen > 150, "{seen} lists seen");
            }
            let mut visits = Vec::new();
            graph
                .sample_lists(false, 200, 4096, &mut |vertex, _| {
                    visits.push(vertex);
                    visits.len() < 5
                })
                .unwrap();
            // Vertex 0, the hub, takes more than a page; the sample stops at five.
            assert_eq!(visits.len(), 5);
            assert!(!visits.contains(&0), "{visits:?}");
        }
    }
}
