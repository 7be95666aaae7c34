//! Writing one direction's lists: its arcs sorted (in memory or by merging runs) and
//! turned into the offsets, neighbors, weights and heads sections of the output.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use swapless_format::compressed_lists::ListEncoder;
use swapless_format::{GraphWriter, HEAD_ENTRIES, ListForm, SectionKind, SectionWriter};

use crate::builder::Context;
use crate::builder::{MIN_MERGE_BUFFER_BYTES, OutHeads};
use crate::collector::ArcCollector;
use crate::record::Record;
use crate::runs::{merge_runs, reduce_runs, sort_and_deduplicate};
use crate::{BuildError, Result};

/// Sorts (in memory or by merging runs) one direction's arcs and writes its CSR sections.
pub(crate) fn write_adjacency<R: Record>(
    mut collector: ArcCollector<R>,
    writer: &mut GraphWriter,
    sections: [SectionKind; 3],
    vertices: u64,
    context: &mut Context,
) -> Result<ListsWritten> {
    let label = if sections[0] == SectionKind::OutOffsets {
        "out"
    } else {
        "in"
    };
    let expected = Some(collector.pushed);
    // Heads only where they save reading: with a mean out-degree of 8 or more they are at
    // most a quarter of the lists' bytes (arcs pushed count duplicates, which the
    // rare multigraph input may overstate).
    let heads = sections[0] == SectionKind::OutOffsets
        && match context.options.out_heads {
            OutHeads::Auto => collector.pushed >= HEADS_MIN_MEAN_DEGREE * vertices,
            OutHeads::Always => true,
            OutHeads::Never => false,
        };
    if collector.runs.is_empty() {
        context.phase(&format!("sorting {label}-edges"), None);
        sort_and_deduplicate(&mut collector.buffer);
        context.phase(&format!("writing {label}-edges"), expected);
        let mut csr = CsrWriter::begin(writer, sections, vertices, R::WEIGHTED, heads, context)?;
        for (index, &record) in collector.buffer.iter().enumerate() {
            if index % (1 << 22) == 0 {
                context.check_cancelled()?;
                context.position(index as u64);
            }
            csr.push(record)?;
        }
        return csr.finish(writer, context);
    }
    context.phase(&format!("spilling {label}-edges"), None);
    collector.spill(context)?;
    collector.buffer = Vec::new();
    let max_fan_in = (context.working_bytes / MIN_MERGE_BUFFER_BYTES).clamp(2, 1024) as usize;
    let runs = std::mem::take(&mut collector.runs);
    if runs.len() > max_fan_in {
        context.phase(&format!("pre-merging {label}-edges"), None);
    }
    let working_bytes = context.working_bytes;
    let (runs, passes) = reduce_runs::<R>(runs, max_fan_in, working_bytes, &mut || {
        context.new_run_path()
    })?;
    context.report.merge_passes += passes;
    context.phase(&format!("merging {label}-edges"), expected);
    let mut csr = CsrWriter::begin(writer, sections, vertices, R::WEIGHTED, heads, context)?;
    let mut merged = 0u64;
    merge_runs::<R>(&runs, context.working_bytes, |record| {
        merged += 1;
        if merged.is_multiple_of(1 << 22) {
            context.check_cancelled()?;
            context.position(merged);
        }
        csr.push(record)
    })?;
    for run in &runs {
        let _ = std::fs::remove_file(&run.path);
    }
    csr.finish(writer, context)
}

/// What one direction's lists hold once written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ListsWritten {
    /// Entries in the lists.
    pub arcs: u64,
    /// Lists that hold their own vertex.
    pub self_loops: u64,
}

/// Out-lists' mean length from which the builder writes the `out_heads` section.
const HEADS_MIN_MEAN_DEGREE: u64 = 8;

/// Turns a sorted, deduplicated arc stream into offsets, lists and weights sections (or
/// positions and compressed lists), and the out-lists' heads when asked.
struct CsrWriter {
    offsets: SectionWriter,
    /// The `out_heads` section, when asked for.
    heads: Option<SectionWriter>,
    /// Heads not yet written, the list being written's included.
    head_buffer: Vec<u32>,
    /// Where the list being written starts: its length so far is `arcs - list_start`.
    list_start: u64,
    lists: ListsOut,
    /// The build's folder of temporaries, which errors about its runs name.
    temp_dir: PathBuf,
    vertices: u64,
    next_vertex: u64,
    arcs: u64,
    self_loops: u64,
    offset_buffer: Vec<u64>,
    neighbor_buffer: Vec<u32>,
    weight_buffer: Vec<f32>,
}

/// Where a direction's entries go, in the form the output stores its lists.
enum ListsOut {
    /// `u32` ids; weights in a section after them, gathered in a temporary file until the
    /// ids' length is known.
    Plain {
        neighbors: SectionWriter,
        weights: Option<(PathBuf, BufWriter<File>)>,
        weights_kind: SectionKind,
    },
    /// Pages of compressed lists, weights inline, and each list's position.
    Compressed {
        positions: SectionWriter,
        neighbors: SectionWriter,
        encoder: Box<ListEncoder>,
    },
}

const CSR_BUFFER_ENTRIES: usize = 1 << 15;

impl CsrWriter {
    fn begin(
        writer: &mut GraphWriter,
        sections: [SectionKind; 3],
        vertices: u64,
        weighted: bool,
        heads: bool,
        context: &mut Context,
    ) -> Result<CsrWriter> {
        let offsets = writer.begin_section(sections[0], Some((vertices + 1) * 8))?;
        // Known lengths first: the lists' length is known only at the end.
        let positions = match context.options.lists {
            ListForm::Plain => None,
            ListForm::Compressed => {
                let kind = match sections[0] {
                    SectionKind::OutOffsets => SectionKind::OutPositions,
                    _ => SectionKind::InPositions,
                };
                Some(writer.begin_section(kind, Some((vertices + 1) * 8))?)
            }
        };
        let heads = match heads {
            true => Some(
                writer.begin_section(SectionKind::OutHeads, Some(vertices * HEAD_ENTRIES * 4))?,
            ),
            false => None,
        };
        let neighbors = writer.begin_section(sections[1], None)?;
        let lists = match positions {
            Some(positions) => ListsOut::Compressed {
                positions,
                neighbors,
                encoder: Box::new(ListEncoder::new(weighted)),
            },
            None => {
                let weights = if weighted {
                    // Weights follow the neighbors, whose final length dedup decides; they
                    // wait in a temporary file.
                    let path = context.temp_dir.join(format!("{}.tmp", sections[2].name()));
                    let file =
                        File::create(&path).map_err(|source| BuildError::io(&path, source))?;
                    Some((path, BufWriter::with_capacity(1 << 20, file)))
                } else {
                    None
                };
                ListsOut::Plain {
                    neighbors,
                    weights,
                    weights_kind: sections[2],
                }
            }
        };
        Ok(CsrWriter {
            offsets,
            heads,
            head_buffer: Vec::with_capacity(CSR_BUFFER_ENTRIES),
            list_start: 0,
            lists,
            temp_dir: context.temp_dir.clone(),
            vertices,
            next_vertex: 0,
            arcs: 0,
            self_loops: 0,
            offset_buffer: Vec::with_capacity(CSR_BUFFER_ENTRIES),
            neighbor_buffer: Vec::with_capacity(CSR_BUFFER_ENTRIES),
            weight_buffer: Vec::with_capacity(CSR_BUFFER_ENTRIES),
        })
    }

    fn weighted(&self) -> bool {
        match &self.lists {
            ListsOut::Plain { weights, .. } => weights.is_some(),
            ListsOut::Compressed { encoder, .. } => encoder.weighted(),
        }
    }

    fn push<R: Record>(&mut self, record: R) -> Result<()> {
        let source = record.source() as u64;
        // Only runs changed on disk under the build can break these (their checksums
        // tell once read through): said here before they break the sections' lengths.
        let largest = source.max(record.destination() as u64);
        if largest >= self.vertices || source + 1 < self.next_vertex {
            return Err(BuildError::bad_input(
                &self.temp_dir,
                format!(
                    "the build's temporary runs hold an arc from {source} to {} out of order or past its {} vertices: they were changed while the build was running; build again",
                    record.destination(),
                    self.vertices
                ),
            ));
        }
        while self.next_vertex <= source {
            self.push_offset()?;
        }
        self.neighbor_buffer.push(record.destination());
        self.self_loops += u64::from(source == record.destination() as u64);
        if self.heads.is_some() && self.arcs - self.list_start < HEAD_ENTRIES {
            self.head_buffer.push(record.destination());
        }
        if R::WEIGHTED {
            self.weight_buffer.push(record.weight());
        }
        self.arcs += 1;
        if self.neighbor_buffer.len() == CSR_BUFFER_ENTRIES {
            self.flush_lists(false)?;
        }
        Ok(())
    }

    fn push_offset(&mut self) -> Result<()> {
        // The offset that starts a vertex's list ends the one before it: its heads are known.
        if self.next_vertex > 0 {
            if let ListsOut::Compressed { .. } = self.lists {
                self.flush_lists(true)?;
            }
            if let Some(section) = &mut self.heads {
                // A list shorter than its heads is padded with its own vertex's id.
                let vertex = (self.next_vertex - 1) as u32;
                let held = (self.arcs - self.list_start).min(HEAD_ENTRIES);
                for _ in held..HEAD_ENTRIES {
                    self.head_buffer.push(vertex);
                }
                if self.head_buffer.len() >= CSR_BUFFER_ENTRIES {
                    section.write_values(&self.head_buffer)?;
                    self.head_buffer.clear();
                }
            }
        }
        self.list_start = self.arcs;
        self.offset_buffer.push(self.arcs);
        self.next_vertex += 1;
        if self.offset_buffer.len() == CSR_BUFFER_ENTRIES {
            self.offsets.write_values(&self.offset_buffer)?;
            self.offset_buffer.clear();
        }
        Ok(())
    }

    /// Writes the entries held; in compressed form they are the open list's next part,
    /// and `list_ends` says whether it is its last.
    fn flush_lists(&mut self, list_ends: bool) -> Result<()> {
        let weighted = self.weighted();
        match &mut self.lists {
            ListsOut::Plain {
                neighbors, weights, ..
            } => {
                neighbors.write_values(&self.neighbor_buffer)?;
                if let Some((path, weights)) = weights {
                    weights
                        .write_all(bytemuck::cast_slice(&self.weight_buffer))
                        .map_err(|source| BuildError::io(path.as_path(), source))?;
                }
            }
            ListsOut::Compressed {
                positions,
                neighbors,
                encoder,
            } => encoder.push_part(
                &self.neighbor_buffer,
                weighted.then_some(&self.weight_buffer[..]),
                list_ends,
                &mut |page| neighbors.write(page),
                &mut |position| positions.write_values(&[position]),
            )?,
        }
        self.neighbor_buffer.clear();
        self.weight_buffer.clear();
        Ok(())
    }

    fn finish(mut self, writer: &mut GraphWriter, context: &mut Context) -> Result<ListsWritten> {
        while self.next_vertex <= self.vertices {
            self.push_offset()?;
        }
        self.offsets.write_values(&self.offset_buffer)?;
        // (The last offset ended the last compressed list.)
        if let ListsOut::Plain { .. } = self.lists {
            self.flush_lists(true)?;
        }
        let mut weights_to_copy = None;
        match self.lists {
            ListsOut::Compressed {
                mut positions,
                mut neighbors,
                encoder,
            } => {
                encoder.finish(&mut |page| neighbors.write(page), &mut |position| {
                    positions.write_values(&[position])
                })?;
                writer.finish_section(neighbors)?;
                writer.finish_section(positions)?;
            }
            ListsOut::Plain {
                neighbors,
                weights,
                weights_kind,
            } => {
                writer.finish_section(neighbors)?;
                weights_to_copy = weights.map(|(path, file)| (path, file, weights_kind));
            }
        }
        writer.finish_section(self.offsets)?;
        if let Some(mut section) = self.heads {
            section.write_values(&self.head_buffer)?;
            writer.finish_section(section)?;
        }
        if let Some((path, weights, kind)) = weights_to_copy {
            copy_weights(writer, kind, self.arcs, &path, weights, context)?;
        }
        Ok(ListsWritten {
            arcs: self.arcs,
            self_loops: self.self_loops,
        })
    }
}

/// Writes the weights gathered at `path` as the `kind` section of `arcs` weights.
fn copy_weights(
    writer: &mut GraphWriter,
    kind: SectionKind,
    arcs: u64,
    path: &Path,
    weights: BufWriter<File>,
    context: &mut Context,
) -> Result<()> {
    let io = |source| BuildError::io(path, source);
    weights
        .into_inner()
        .map_err(|error| io(error.into_error()))?;
    let mut section = writer.begin_section(kind, Some(arcs * 4))?;
    let mut reader = BufReader::with_capacity(1 << 20, File::open(path).map_err(io)?);
    let mut chunk = vec![0u8; 1 << 20];
    loop {
        context.check_cancelled()?;
        let read = reader.read(&mut chunk).map_err(io)?;
        if read == 0 {
            break;
        }
        section.write(&chunk[..read])?;
    }
    writer.finish_section(section)?;
    let _ = std::fs::remove_file(path);
    Ok(())
}
