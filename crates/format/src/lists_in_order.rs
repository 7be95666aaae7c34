//! Every list of one direction in vertex order, read from the file piece by piece
//! (checksums verified, the page cache dropped behind) and decoded when compressed: what
//! a reader that wants all the lists once (the dram tier's load, a copy) needs, holding
//! a few pieces and the longest list's bytes rather than the section.

use crate::compressed_lists::{LIST_PAGE_BYTES, decode_list};
use crate::reader::{ListSections, SectionReader};
use crate::{GraphFile, Result, SectionKind};

/// Bytes read at a time from each section: whole checksum blocks, and little beside the
/// budget a run loading its lists holds (three such pieces, and the longest list).
const PIECE_BYTES: u64 = 64 << 10;

/// A section of `u64` values read in order, a piece at a time.
struct Values<'a> {
    graph: &'a GraphFile,
    kind: SectionKind,
    reader: SectionReader<'a>,
    length: u64,
    piece: Vec<u64>,
    /// Section position of `piece[0]`, in bytes.
    piece_at: u64,
    next: usize,
}

impl<'a> Values<'a> {
    fn new(graph: &'a GraphFile, kind: SectionKind) -> Result<Values<'a>> {
        let length = graph.required_section(kind)?.length;
        let reader = SectionReader::open(graph, kind)?
            .ok_or_else(|| graph.corrupt(format!("section {} is missing", kind.name())))?;
        Ok(Values {
            graph,
            kind,
            reader,
            length,
            piece: Vec::new(),
            piece_at: 0,
            next: 0,
        })
    }

    fn next(&mut self) -> Result<u64> {
        if self.next == self.piece.len() {
            let at = self.piece_at + self.piece.len() as u64 * 8;
            let bytes = (self.length - at.min(self.length)).min(PIECE_BYTES);
            if bytes < 8 {
                return Err(self.graph.corrupt(format!(
                    "section {} ends before its last vertex",
                    self.kind.name()
                )));
            }
            self.piece.resize(bytes as usize / 8, 0);
            self.reader
                .read_piece(at, bytemuck::cast_slice_mut(&mut self.piece))?;
            self.piece_at = at;
            self.next = 0;
        }
        self.next += 1;
        Ok(self.piece[self.next - 1])
    }
}

/// What [`GraphFile::for_each_list`] calls: `visit(vertex, ids, weights)`.
pub type VisitList<'a> = dyn FnMut(u32, &[u32], Option<&[f32]>) + 'a;

impl GraphFile {
    /// Calls `visit(vertex, ids, weights)` for every non-empty list of one direction
    /// (the in-lists when `incoming` on a directed graph), in vertex order; weights only
    /// when `weights` and the graph has them. Compressed lists are read piece by piece
    /// and decoded, holding about two pieces and the longest list; plain lists are read
    /// through the map.
    pub fn for_each_list(
        &self,
        incoming: bool,
        weights: bool,
        visit: &mut VisitList,
    ) -> Result<()> {
        let sections = match incoming && self.flags().directed {
            true => ListSections::IN,
            false => ListSections::OUT,
        };
        let weights = weights && self.flags().weighted;
        let n = self.num_vertices();
        if !self.lists_compressed() {
            for v in 0..n {
                let list = self.list(sections, v)?;
                if !list.ids.is_empty() {
                    visit(
                        v as u32,
                        &list.ids,
                        list.weights.as_deref().filter(|_| weights),
                    );
                }
            }
            return Ok(());
        }
        let stream_bytes = self.required_section(sections.neighbors)?.length;
        let mut offsets = Values::new(self, sections.offsets)?;
        let mut positions = Values::new(self, sections.positions)?;
        let mut stream = SectionReader::open(self, sections.neighbors)?.ok_or_else(|| {
            self.corrupt(format!("section {} is missing", sections.neighbors.name()))
        })?;
        // Stream bytes from `window_at` (a page boundary) on.
        let mut window: Vec<u8> = Vec::new();
        let mut window_at = 0u64;
        let (mut ids, mut list_weights) = (Vec::new(), Vec::new());
        let (mut entry, mut position) = (offsets.next()?, positions.next()?);
        for v in 0..n {
            let (end_entry, end_position) = (offsets.next()?, positions.next()?);
            if end_entry < entry || end_position < position || end_position > stream_bytes {
                return Err(self.corrupt(format!(
                    "vertex {v}'s bounds in {} or {} fall or run past the lists",
                    sections.offsets.name(),
                    sections.positions.name()
                )));
            }
            let degree = end_entry - entry;
            if degree > 0 {
                let first_page = position / LIST_PAGE_BYTES * LIST_PAGE_BYTES;
                let needed_end = end_position
                    .div_ceil(LIST_PAGE_BYTES)
                    .saturating_mul(LIST_PAGE_BYTES)
                    .min(stream_bytes);
                // Bytes before the list's first page are done with; dropped a piece at a
                // time, so the copy is paid once a piece, not once a list.
                if first_page - window_at >= PIECE_BYTES {
                    window.drain(..(first_page - window_at) as usize);
                    window_at = first_page;
                }
                while window_at + (window.len() as u64) < needed_end {
                    let at = window_at + window.len() as u64;
                    let bytes = (stream_bytes - at).min(PIECE_BYTES) as usize;
                    window.resize(window.len() + bytes, 0);
                    let piece = window.len() - bytes;
                    stream.read_piece(at, &mut window[piece..])?;
                }
                ids.clear();
                list_weights.clear();
                decode_list(
                    &window,
                    (position - window_at) as usize,
                    v as u32,
                    degree,
                    degree,
                    &mut ids,
                    weights.then_some(&mut list_weights),
                )
                .map_err(|error| self.corrupt(format!("{}: {error}", sections.neighbors.name())))?;
                visit(v as u32, &ids, weights.then_some(&list_weights[..]));
            }
            (entry, position) = (end_entry, end_position);
        }
        Ok(())
    }
}
