//! Rewrites a `.sl` file with its lists in the other form (plain `u32` ids, or compressed
//! as [`crate::compressed_lists`] lays them out): every other section is copied as it is,
//! checked against its checksums on the way.

use std::path::Path;

use crate::compressed_lists::ListEncoder;
use crate::{FormatError, GraphFile, GraphWriter, Result, SectionKind};

/// How a `.sl` file stores its neighbor lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ListForm {
    /// `u32` ids, 4 bytes an entry (format version 2, read by every swapless).
    #[default]
    Plain,
    /// Delta-coded in pages that each decode alone (format version 3).
    Compressed,
}

impl ListForm {
    /// The form of `graph`'s lists.
    pub fn of(graph: &GraphFile) -> ListForm {
        match graph.lists_compressed() {
            true => ListForm::Compressed,
            false => ListForm::Plain,
        }
    }

    /// Its name in options and reports.
    pub fn name(self) -> &'static str {
        match self {
            ListForm::Plain => "plain",
            ListForm::Compressed => "compressed",
        }
    }

    /// The form named `name` ("plain" or "compressed"), as options spell it.
    pub fn from_name(name: &str) -> Option<ListForm> {
        [ListForm::Plain, ListForm::Compressed]
            .into_iter()
            .find(|form| form.name() == name)
    }
}

impl GraphFile {
    /// Bytes of the sections that hold the lists' entries: ids and weights, both
    /// directions (the offsets and positions, 8 bytes a vertex, aside).
    pub fn list_bytes(&self) -> u64 {
        [
            SectionKind::OutNeighbors,
            SectionKind::OutWeights,
            SectionKind::InNeighbors,
            SectionKind::InWeights,
        ]
        .into_iter()
        .filter_map(|kind| self.header().section(kind))
        .map(|entry| entry.length)
        .sum()
    }

    /// [`GraphFile::list_bytes`] an arc: a directed graph keeps each arc twice (in an
    /// out-list and an in-list), an undirected one each edge as two arcs.
    pub fn list_bytes_per_arc(&self) -> f64 {
        let entries = self.num_arcs() as u64 * if self.flags().directed { 2 } else { 1 };
        self.list_bytes() as f64 / entries.max(1) as f64
    }
}

/// The sections copied as they are.
const COPIED: [SectionKind; 7] = [
    SectionKind::OutOffsets,
    SectionKind::OutHeads,
    SectionKind::InOffsets,
    SectionKind::Permutation,
    SectionKind::VertexIds,
    SectionKind::NameOffsets,
    SectionKind::VertexNames,
];

/// Writes `input` to `output` with its lists in `form`; `progress(lists written)` is
/// called now and then, and stops the write when it returns `false`
/// ([`crate::FormatError::Stopped`]). The output appears only when complete (see
/// [`GraphWriter`]). Returns the bytes its list sections take.
pub fn transcode(
    input: &GraphFile,
    output: &Path,
    form: ListForm,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<u64> {
    let mut writer = GraphWriter::create(output)?;
    for kind in COPIED {
        let Some(entry) = input.header().section(kind) else {
            continue;
        };
        let mut section = writer.begin_section(kind, Some(entry.length))?;
        let mut failed = Ok(());
        input.for_each_piece(kind, &mut |piece| {
            if failed.is_ok() {
                failed = section.write(piece);
            }
        })?;
        failed?;
        writer.finish_section(section)?;
    }
    let mut list_bytes = 0;
    let mut lists_done = 0;
    let stopped = || FormatError::Stopped {
        path: output.to_path_buf(),
    };
    let mut count = |progress: &mut dyn FnMut(u64) -> bool| {
        lists_done += 1;
        match lists_done % (1 << 16) != 0 || progress(lists_done) {
            true => Ok(()),
            false => Err(stopped()),
        }
    };
    let directions = [
        (
            false,
            [
                SectionKind::OutPositions,
                SectionKind::OutNeighbors,
                SectionKind::OutWeights,
            ],
        ),
        (
            true,
            [
                SectionKind::InPositions,
                SectionKind::InNeighbors,
                SectionKind::InWeights,
            ],
        ),
    ];
    let n = input.num_vertices();
    let weighted = input.flags().weighted;
    // The lists are read with `pread`, each page checked, none mapped: a build's
    // transcode of a graph larger than memory stays within its budget.
    let (mut ids, mut list_weights) = (Vec::new(), Vec::new());
    for (incoming, [positions_kind, neighbors_kind, weights_kind]) in directions {
        if incoming && !input.flags().directed {
            continue;
        }
        match form {
            ListForm::Compressed => {
                let mut positions =
                    writer.begin_section(positions_kind, Some((n as u64 + 1) * 8))?;
                let mut neighbors = writer.begin_section(neighbors_kind, None)?;
                {
                    let mut encoder = ListEncoder::new(weighted);
                    let mut pages = |page: &[u8]| neighbors.write(page);
                    let mut position_of = |position: u64| positions.write_values(&[position]);
                    // A list goes in part by part, as it is read: a hub's is never held whole.
                    let mut scan = input.scan_lists(incoming)?;
                    while let Some((_, ends)) =
                        scan.next_part(input, &mut ids, weighted.then_some(&mut list_weights))?
                    {
                        encoder.push_part(
                            &ids,
                            weighted.then_some(&list_weights[..]),
                            ends,
                            &mut pages,
                            &mut position_of,
                        )?;
                        ids.clear();
                        list_weights.clear();
                        if ends {
                            count(progress)?;
                        }
                    }
                    list_bytes += encoder.finish(&mut pages, &mut position_of)?;
                }
                writer.finish_section(neighbors)?;
                writer.finish_section(positions)?;
            }
            ListForm::Plain => {
                let entries = input.num_arcs() as u64 * 4;
                let mut neighbors = writer.begin_section(neighbors_kind, Some(entries))?;
                let mut weights = match weighted {
                    true => Some(writer.begin_section(weights_kind, Some(entries))?),
                    false => None,
                };
                // Plain lists go out part by part: a hub's list is never held whole.
                let mut scan = input.scan_lists(incoming)?;
                while let Some((_, ends)) =
                    scan.next_part(input, &mut ids, weighted.then_some(&mut list_weights))?
                {
                    neighbors.write_values(&ids)?;
                    if let Some(section) = &mut weights {
                        section.write_values(&list_weights)?;
                    }
                    ids.clear();
                    list_weights.clear();
                    if ends {
                        count(progress)?;
                    }
                }
                list_bytes += entries * if weighted { 2 } else { 1 };
                writer.finish_section(neighbors)?;
                if let Some(section) = weights {
                    writer.finish_section(section)?;
                }
            }
        }
    }
    if !progress(lists_done) {
        return Err(stopped());
    }
    let mut flags = input.flags();
    flags.compressed_lists = form == ListForm::Compressed;
    writer.finish(flags, input.counts())?;
    Ok(list_bytes)
}
