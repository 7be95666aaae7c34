//! Reads every list of one direction in vertex order with `pread`, plain or compressed:
//! each checksum block is verified as it arrives and dropped from the page cache
//! behind, and nothing is mapped, so a pass over a graph larger than memory (an import,
//! a check of the weights before a run) holds a few pieces and the list being read.

use crate::compressed_lists::{LIST_PAGE_BYTES, decode_chunk};
use crate::list_codec::ListCodecError;
use crate::lists::ListSections;
use crate::reader::SectionReader;
use crate::{GraphFile, Result, SectionKind};

/// A run of whole checksum blocks of one section, read forward as the scan needs them.
struct Window {
    reader: SectionReader,
    /// The section's bytes from `start` (a multiple of `block`) on.
    bytes: Vec<u8>,
    start: u64,
    block: u64,
    /// Bytes read at a time beyond what a request needs: whole blocks.
    step: u64,
}

impl Window {
    fn open(graph: &GraphFile, kind: SectionKind) -> Result<Window> {
        let entry = graph.required_section(kind)?;
        let block = graph.checksum_block_bytes();
        Ok(Window {
            reader: SectionReader::over(graph, kind, entry)?,
            bytes: Vec::new(),
            start: 0,
            block,
            step: graph.visit_piece_bytes() / block * block,
        })
    }

    /// The section's bytes `from..to`; reads go forward, and the blocks wholly before
    /// `from` are let go.
    fn get(&mut self, graph: &GraphFile, from: u64, to: u64) -> Result<&[u8]> {
        let length = self.reader.length;
        if from > to || to > length {
            return Err(graph.corrupt(format!(
                "a list at bytes {from}..{to} of section {} runs past its {length} bytes",
                self.reader.kind.name()
            )));
        }
        let first_needed = from / self.block * self.block;
        let end = self.start + self.bytes.len() as u64;
        if first_needed < self.start || first_needed >= end {
            self.bytes.clear();
            self.start = first_needed;
        } else if first_needed - self.start >= self.step {
            // Let go of what lies behind only a step at a time, so the copy stays rare.
            self.bytes.drain(..(first_needed - self.start) as usize);
            self.start = first_needed;
        }
        while self.start + (self.bytes.len() as u64) < to {
            let at = self.start + self.bytes.len() as u64;
            let wanted = (to - at).div_ceil(self.block) * self.block;
            let count = wanted.max(self.step).min(length - at) as usize;
            let held = self.bytes.len();
            self.bytes.resize(held + count, 0);
            self.reader.read_piece(graph, at, &mut self.bytes[held..])?;
        }
        Ok(&self.bytes[(from - self.start) as usize..(to - self.start) as usize])
    }

    /// The `u64` entries `index` and `index + 1` of the section.
    fn pair(&mut self, graph: &GraphFile, index: u64) -> Result<(u64, u64)> {
        let bytes = self.get(graph, index * 8, index * 8 + 16)?;
        let value =
            |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
        Ok((value(0), value(8)))
    }
}

/// Entries of a plain list handed out at a time by [`ListScan::next_part`].
const PLAIN_PART_ENTRIES: u64 = 1 << 16;

/// One direction's lists, read in vertex order by [`GraphFile::scan_lists`]. It holds
/// no borrow of its graph (an importer keeps both side by side): each read is given it.
pub struct ListScan {
    offsets: Window,
    /// The compressed lists' positions, or `None` for plain lists.
    positions: Option<Window>,
    neighbors: Window,
    /// Plain lists' weights, opened on the first part asked for with its weights.
    weights: Option<Window>,
    sections: ListSections,
    next_vertex: usize,
    /// The list being handed out in parts.
    current: Option<ListCursor>,
}

/// Where [`ListScan`] is in a list.
struct ListCursor {
    vertex: u32,
    /// The list's first entry, as the offsets count.
    start: u64,
    degree: u64,
    /// Entries handed out so far.
    done: u64,
    /// Compressed lists: the byte where the next chunk starts.
    position: u64,
    /// Compressed lists: the last id handed out, which the next chunk's ids must rise
    /// above.
    last_id: Option<u32>,
}

impl GraphFile {
    /// Reads the out-lists (the in-lists when `incoming`, which are the out-lists of an
    /// undirected graph) in vertex order with `pread`: see [`ListScan`].
    pub fn scan_lists(&self, incoming: bool) -> Result<ListScan> {
        self.scan_lists_from(incoming, 0)
    }

    /// [`GraphFile::scan_lists`] from vertex `first_vertex` on: scans of disjoint ranges
    /// of vertices read side by side, each holding its own windows.
    pub fn scan_lists_from(&self, incoming: bool, first_vertex: usize) -> Result<ListScan> {
        let sections = match incoming && self.flags().directed {
            true => ListSections::IN,
            false => ListSections::OUT,
        };
        Ok(ListScan {
            offsets: Window::open(self, sections.offsets)?,
            positions: match self.lists_compressed() {
                true => Some(Window::open(self, sections.positions)?),
                false => None,
            },
            neighbors: Window::open(self, sections.neighbors)?,
            weights: None,
            sections,
            next_vertex: first_vertex,
            current: None,
        })
    }

    /// Whether every out-edge weight is zero or more (true on an unweighted graph): read
    /// with `pread`, every block checked, holding a piece at a time and none in the page
    /// cache, so a check before a run stays within its budget.
    pub fn out_weights_are_non_negative(&self) -> Result<bool> {
        if !self.flags().weighted {
            return Ok(true);
        }
        let mut non_negative = true;
        if !self.lists_compressed() {
            self.for_each_piece(SectionKind::OutWeights, &mut |piece| {
                non_negative &= piece.chunks_exact(4).all(|bytes| {
                    f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) >= 0.0
                });
            })?;
            return Ok(non_negative);
        }
        let mut scan = self.scan_lists(false)?;
        let (mut ids, mut weights) = (Vec::new(), Vec::new());
        while scan
            .next_part(self, &mut ids, Some(&mut weights))?
            .is_some()
        {
            if weights.iter().any(|&weight| weight < 0.0) {
                return Ok(false);
            }
            ids.clear();
            weights.clear();
        }
        Ok(true)
    }
}

impl ListScan {
    /// At most the bytes a scan of `graph` read part by part ([`ListScan::next_part`])
    /// holds: a window on each of four sections (two pieces and a part) and one part
    /// (a compressed page's chunk decodes to at most 128 ids a byte), twice over for
    /// the vectors' growth.
    pub fn part_held_bytes(graph: &GraphFile) -> u64 {
        let window = 2 * graph.visit_piece_bytes() + PLAIN_PART_ENTRIES * 4;
        let part = (LIST_PAGE_BYTES * 128 * 4).max(PLAIN_PART_ENTRIES * 8);
        2 * (4 * window + part)
    }

    /// Puts the next vertex's whole list of `graph` (the one the scan was made from) in
    /// `ids` (and its weights in `weights`, when given on a weighted graph), replacing
    /// what they held, and returns that vertex; `None` after the last. The error names a
    /// block that fails its checksum or a list that does not decode.
    pub fn next_list(
        &mut self,
        graph: &GraphFile,
        ids: &mut Vec<u32>,
        mut weights: Option<&mut Vec<f32>>,
    ) -> Result<Option<u32>> {
        ids.clear();
        if let Some(weights) = weights.as_deref_mut() {
            weights.clear();
        }
        loop {
            match self.next_part(graph, ids, weights.as_deref_mut())? {
                None => return Ok(None),
                Some((vertex, true)) => return Ok(Some(vertex)),
                Some((_, false)) => {}
            }
        }
    }

    /// Appends the next part of the lists of `graph` (the one the scan was made from) to
    /// `ids` (and `weights`, when given on a weighted graph): a page's chunk of a
    /// compressed list, up to 65,536 entries of a plain one, nothing for an empty list.
    /// Returns the vertex whose list it is and whether that list ends with it; `None`
    /// after the last vertex. What is held stays within [`ListScan::part_held_bytes`],
    /// however long the lists.
    pub fn next_part(
        &mut self,
        graph: &GraphFile,
        ids: &mut Vec<u32>,
        weights: Option<&mut Vec<f32>>,
    ) -> Result<Option<(u32, bool)>> {
        let weights = weights.filter(|_| graph.flags().weighted);
        let mut cursor = match self.current.take() {
            Some(cursor) => cursor,
            None => match self.start_list(graph)? {
                Some(cursor) => cursor,
                None => return Ok(None),
            },
        };
        if cursor.degree > cursor.done {
            match self.positions.is_some() {
                true => self.compressed_part(graph, &mut cursor, ids, weights)?,
                false => self.plain_part(graph, &mut cursor, ids, weights)?,
            }
        }
        let vertex = cursor.vertex;
        let ends = cursor.done == cursor.degree;
        if !ends {
            self.current = Some(cursor);
        }
        Ok(Some((vertex, ends)))
    }

    /// The cursor at the start of the next vertex's list, if any vertex is left.
    fn start_list(&mut self, graph: &GraphFile) -> Result<Option<ListCursor>> {
        let v = self.next_vertex;
        if v >= graph.num_vertices() {
            return Ok(None);
        }
        self.next_vertex += 1;
        let (start, end) = self.offsets.pair(graph, v as u64)?;
        if start > end {
            return Err(graph.corrupt(format!(
                "vertex {v}: {} fall ({start} then {end})",
                self.sections.offsets.name()
            )));
        }
        let mut position = 0;
        if let Some(positions) = &mut self.positions
            && end > start
        {
            let (from, to) = positions.pair(graph, v as u64)?;
            if from > to || to > self.neighbors.reader.length {
                return Err(graph.corrupt(format!(
                    "vertex {v}'s position in {} lies outside its lists",
                    self.sections.positions.name()
                )));
            }
            position = from;
        }
        Ok(Some(ListCursor {
            vertex: v as u32,
            start,
            degree: end - start,
            done: 0,
            position,
            last_id: None,
        }))
    }

    fn plain_part(
        &mut self,
        graph: &GraphFile,
        cursor: &mut ListCursor,
        ids: &mut Vec<u32>,
        weights: Option<&mut Vec<f32>>,
    ) -> Result<()> {
        let from = cursor.start + cursor.done;
        let to = from + (cursor.degree - cursor.done).min(PLAIN_PART_ENTRIES);
        let bytes = self.neighbors.get(graph, from * 4, to * 4)?;
        ids.extend(
            bytes
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        );
        if let Some(weights) = weights {
            let window = match &mut self.weights {
                Some(window) => window,
                None => self
                    .weights
                    .insert(Window::open(graph, self.sections.weights)?),
            };
            let bytes = window.get(graph, from * 4, to * 4)?;
            weights.extend(
                bytes
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            );
        }
        cursor.done += to - from;
        Ok(())
    }

    fn compressed_part(
        &mut self,
        graph: &GraphFile,
        cursor: &mut ListCursor,
        ids: &mut Vec<u32>,
        weights: Option<&mut Vec<f32>>,
    ) -> Result<()> {
        let vertex = cursor.vertex;
        let damaged = |error: crate::list_codec::ListCodecError| {
            graph.corrupt(format!("{}: {error}", self.sections.neighbors.name()))
        };
        let stream_bytes = self.neighbors.reader.length;
        let page_end = (cursor.position / LIST_PAGE_BYTES + 1) * LIST_PAGE_BYTES;
        let page_end = page_end.min(stream_bytes);
        if cursor.position >= page_end {
            return Err(damaged(ListCodecError::Truncated { vertex }));
        }
        let bytes = self.neighbors.get(graph, cursor.position, page_end)?;
        let coding = graph.gap_coding();
        let at = ids.len();
        let (count, continues) =
            decode_chunk(coding, vertex, bytes, ids, at, cursor.last_id, weights)
                .map_err(damaged)?;
        cursor.last_id = ids.last().copied();
        cursor.done += count;
        if cursor.done > cursor.degree || continues != (cursor.done < cursor.degree) {
            return Err(damaged(ListCodecError::CountMismatch {
                vertex,
                degree: cursor.degree,
            }));
        }
        cursor.position = page_end;
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::{GraphCounts, GraphFlags, GraphWriter, IdKind, ListForm, transcode};

    /// A directed, weighted graph of `n` vertices, with a hub whose list crosses pages,
    /// some empty lists and some weights below zero.
    pub(crate) fn write_plain(path: &std::path::Path, n: u32) -> Vec<Vec<(u32, f32)>> {
        let mut lists: Vec<Vec<(u32, f32)>> = (0..n)
            .map(|v| match v {
                0 => (1..n).map(|u| (u, u as f32)).collect(),
                _ if v % 7 == 0 => Vec::new(),
                _ => (0..(v % 13))
                    .map(|i| ((v * 31 + i * 977) % n, -(i as f32)))
                    .collect(),
            })
            .collect();
        for list in &mut lists {
            list.sort_by_key(|&(u, _)| u);
            list.dedup_by_key(|(u, _)| *u);
        }
        let mut reverse: Vec<Vec<(u32, f32)>> = vec![Vec::new(); n as usize];
        for (v, list) in lists.iter().enumerate() {
            for &(u, w) in list {
                reverse[u as usize].push((v as u32, w));
            }
        }
        let mut writer = GraphWriter::create(path).unwrap();
        for (side, kinds) in [
            (
                &lists,
                [
                    SectionKind::OutOffsets,
                    SectionKind::OutNeighbors,
                    SectionKind::OutWeights,
                ],
            ),
            (
                &reverse,
                [
                    SectionKind::InOffsets,
                    SectionKind::InNeighbors,
                    SectionKind::InWeights,
                ],
            ),
        ] {
            let mut offsets = vec![0u64];
            for list in side {
                offsets.push(offsets.last().unwrap() + list.len() as u64);
            }
            let ids: Vec<u32> = side.iter().flatten().map(|&(u, _)| u).collect();
            let weights: Vec<f32> = side.iter().flatten().map(|&(_, w)| w).collect();
            for (kind, bytes) in [
                (kinds[0], bytemuck::cast_slice(&offsets).to_vec()),
                (kinds[1], bytemuck::cast_slice(&ids).to_vec()),
                (kinds[2], bytemuck::cast_slice(&weights).to_vec()),
            ] {
                let mut section = writer.begin_section(kind, None).unwrap();
                section.write(&bytes).unwrap();
                writer.finish_section(section).unwrap();
            }
        }
        let arcs = lists.iter().map(Vec::len).sum::<usize>() as u64;
        let flags = GraphFlags {
            directed: true,
            weighted: true,
            reordered: false,
            ids: IdKind::Dense,
            compressed_lists: false,
            self_loops: false,
        };
        let counts = GraphCounts {
            vertices: n as u64,
            arcs,
            self_loops: 0,
        };
        writer.finish(flags, counts).unwrap();
        lists
    }

    /// The graph of [`write_plain`] in `dir`, plain and compressed.
    pub(crate) fn write_both(
        dir: &std::path::Path,
        n: u32,
    ) -> (std::path::PathBuf, std::path::PathBuf) {
        let (plain, compressed) = (dir.join("plain.sl"), dir.join("compressed.sl"));
        write_plain(&plain, n);
        let form = ListForm::Compressed;
        transcode(
            &GraphFile::open(&plain).unwrap(),
            &compressed,
            form,
            &mut |_| true,
        )
        .unwrap();
        (plain, compressed)
    }

    #[test]
    fn a_scan_reads_every_list_as_out_list_does_in_either_form() {
        let dir = tempfile::tempdir().unwrap();
        let (plain, compressed) = write_both(dir.path(), 70_000);
        for path in [&plain, &compressed] {
            let graph = GraphFile::open(path).unwrap();
            for incoming in [false, true] {
                let mut scan = graph.scan_lists(incoming).unwrap();
                let (mut ids, mut weights) = (Vec::new(), Vec::new());
                let mut vertices = 0;
                while let Some(v) = scan
                    .next_list(&graph, &mut ids, Some(&mut weights))
                    .unwrap()
                {
                    let expected = match incoming {
                        true => graph.in_list(v as usize).unwrap(),
                        false => graph.out_list(v as usize).unwrap(),
                    };
                    assert_eq!(ids[..], expected.ids[..], "{path:?} vertex {v}");
                    assert_eq!(
                        Some(&weights[..]),
                        expected.weights.as_deref(),
                        "vertex {v}"
                    );
                    vertices += 1;
                }
                assert_eq!(vertices, graph.num_vertices());
            }
            assert!(!graph.out_weights_are_non_negative().unwrap());
        }
    }

    #[test]
    fn a_damaged_page_fails_its_checksum_in_a_scan() {
        let dir = tempfile::tempdir().unwrap();
        let (_, compressed) = write_both(dir.path(), 20_000);
        let offset = GraphFile::open(&compressed)
            .unwrap()
            .required_section(SectionKind::OutNeighbors)
            .unwrap()
            .offset;
        let mut bytes = std::fs::read(&compressed).unwrap();
        bytes[offset as usize + 3 * 4096 + 100] ^= 1;
        std::fs::write(&compressed, bytes).unwrap();
        let graph = GraphFile::open(&compressed).unwrap();
        let mut scan = graph.scan_lists(false).unwrap();
        let mut ids = Vec::new();
        let error = loop {
            match scan.next_list(&graph, &mut ids, None) {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("the damage went unseen"),
                Err(error) => break error,
            }
        };
        assert!(
            matches!(error, crate::FormatError::ChecksumMismatch { ref section, block: 3, .. } if section == "out_neighbors"),
            "{error}"
        );
    }
}
