//! Rewrites a `.sl` file with its lists in the other form (plain `u32` ids, or compressed
//! as [`crate::compressed_lists`] lays them out): every other section is copied as it is,
//! checked against its checksums on the way.

use std::path::Path;

use crate::compressed_lists::ListEncoder;
use crate::{GraphFile, GraphWriter, Result, SectionKind};

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
/// called now and then. The output appears only when complete (see [`GraphWriter`]).
/// Returns the bytes its list sections take.
pub fn transcode(
    input: &GraphFile,
    output: &Path,
    form: ListForm,
    progress: &mut dyn FnMut(u64),
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
    let mut count = |progress: &mut dyn FnMut(u64)| {
        lists_done += 1;
        if lists_done % (1 << 16) == 0 {
            progress(lists_done);
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
    for (incoming, [positions_kind, neighbors_kind, weights_kind]) in directions {
        if incoming && !input.flags().directed {
            continue;
        }
        let list = |v: usize| match incoming {
            true => input.in_list(v),
            false => input.out_list(v),
        };
        match form {
            ListForm::Compressed => {
                let mut positions =
                    writer.begin_section(positions_kind, Some((n as u64 + 1) * 8))?;
                let mut neighbors = writer.begin_section(neighbors_kind, None)?;
                {
                    let mut encoder = ListEncoder::new(weighted);
                    let mut pages = |page: &[u8]| neighbors.write(page);
                    let mut position_of = |position: u64| positions.write_values(&[position]);
                    for v in 0..n {
                        let list = list(v)?;
                        encoder.push(
                            &list.ids,
                            list.weights.as_deref(),
                            &mut pages,
                            &mut position_of,
                        )?;
                        count(progress);
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
                for v in 0..n {
                    let list = list(v)?;
                    neighbors.write_values(&list.ids)?;
                    if let (Some(section), Some(list_weights)) = (&mut weights, &list.weights) {
                        section.write_values(list_weights)?;
                    }
                    count(progress);
                }
                list_bytes += entries * if weighted { 2 } else { 1 };
                writer.finish_section(neighbors)?;
                if let Some(section) = weights {
                    writer.finish_section(section)?;
                }
            }
        }
    }
    let mut flags = input.flags();
    flags.compressed_lists = form == ListForm::Compressed;
    writer.finish(flags, n as u64, input.num_arcs() as u64)?;
    progress(lists_done);
    Ok(list_bytes)
}
