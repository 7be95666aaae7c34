//! The out-of-core CSR builder: any [`EdgeSource`] in, a `.sl` file out, with
//! peak memory bounded by a budget whatever the input's size.
//!
//! Arcs are collected in a buffer sized from the budget; when it fills, it is
//! sorted, deduplicated and spilled to a run file on disk. At the end the runs
//! are merged (in one pass unless there are very many) straight into the CSR
//! sections of the output, which is written under a temporary name and renamed
//! only when complete.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use swapless_format::{
    GraphCounts, GraphFile, GraphFlags, GraphWriter, IdKind, ListForm, SectionKind,
};

use crate::collector::ArcCollector;
use crate::csr::write_adjacency;
use crate::input_record::{InputHasher, InputStamp};
pub(crate) use crate::journal::RawCopy;
use crate::journal::{BuildFolder, Journal, KilledBuild, Spill, find_killed_build};
use crate::record::Record;
use crate::reorder::Reorder;
use crate::run_file::SpilledRun;
use crate::source::{Direction, EdgeSource, InputEdge};
use crate::{BuildError, BuildReport, Result};

/// Memory kept out of the arc buffers for everything else the process holds:
/// the binary and its libraries, thread stacks, input batches, decompressors
/// and the output's write buffers. The builder's peak RSS stays within
/// `--memory` when this reserve covers those; tests hold it to that.
pub const RESERVED_BYTES: u64 = 40 << 20;
/// The smallest arc buffer worth running with.
pub(crate) const MIN_WORKING_BYTES: u64 = 16 << 20;
/// Edges per batch handed over by a source.
pub const BATCH_EDGES: usize = 1 << 16;
/// Smallest read buffer per run in the final merge.
pub(crate) const MIN_MERGE_BUFFER_BYTES: u64 = 256 << 10;

/// Receives progress while a build runs (the CLI draws a bar from it).
pub trait BuildProgress: Send + Sync {
    /// A new phase begins; `total` is its amount of work, if known.
    fn phase(&self, name: &str, total: Option<u64>);
    /// Work done so far in the current phase.
    fn position(&self, done: u64);
    /// Input edges read so far (called while reading).
    fn edges_read(&self, _edges: u64) {}
    /// Something the user should know that does not stop the build.
    fn warning(&self, _message: &str) {}
}

/// Vertices per input edge beyond which most ids have no edges, and the output says so.
const SPARSE_IDS_RATIO: u64 = 16;

/// How to build.
#[derive(Clone)]
pub struct BuildOptions {
    /// Peak memory the builder may use, in bytes.
    pub memory_bytes: u64,
    /// Where temporary runs go (default: next to the output).
    pub temp_dir: Option<PathBuf>,
    /// Vertex renumbering.
    pub reorder: Reorder,
    /// Whether to write the `out_heads` section.
    pub out_heads: OutHeads,
    /// How the output stores its lists (its temporary runs are delta-coded either way).
    pub lists: ListForm,
    /// Whether an edge from a vertex to itself is kept or dropped.
    pub self_loops: SelfLoops,
    /// Set to `true` (e.g. by a Ctrl-C handler) to stop the build and clean up.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Progress receiver.
    pub progress: Option<Arc<dyn BuildProgress>>,
    /// What the build reads and how (the input, its length and time, the options,
    /// the output), as the caller names it: with a key, the build keeps a journal of
    /// its sorted runs, and a killed build of the same key can be resumed. `None` for
    /// an input that cannot be read again the same way (standard input, arrays).
    pub resume_key: Option<String>,
    /// Whether to resume a killed build of the same `resume_key` from its runs.
    pub resume: bool,
    /// The file the input is read from, when it is one: its journal records its
    /// identity and a hash of what each spill read, so that a resumed build notices an
    /// input changed since (a generator has none, and needs none).
    pub input_file: Option<PathBuf>,
}

impl BuildOptions {
    /// Options with a budget and defaults for the rest.
    pub fn with_memory(memory_bytes: u64) -> BuildOptions {
        BuildOptions {
            memory_bytes,
            temp_dir: None,
            reorder: Reorder::None,
            out_heads: OutHeads::Auto,
            lists: ListForm::Plain,
            self_loops: SelfLoops::Drop,
            cancel: None,
            progress: None,
            resume_key: None,
            resume: false,
            input_file: None,
        }
    }
}

/// What a build does with an edge from a vertex to itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SelfLoops {
    /// Drops it, as GAP and most graph kernels assume (the command line's default).
    #[default]
    Drop,
    /// Keeps it, once per vertex, as networkx holds it: PageRank and the other walks
    /// count it, and the kernels about paths, triangles and cores leave it out.
    Keep,
}

impl SelfLoops {
    /// The option's name on the command line and in build journals.
    pub fn name(self) -> &'static str {
        match self {
            SelfLoops::Drop => "drop",
            SelfLoops::Keep => "keep",
        }
    }
}

/// Whether a build writes the `out_heads` section (each vertex's first out-neighbors,
/// which a disk tier reads for cc's first pass instead of the lists).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutHeads {
    /// When the out-lists average 8 entries or more: the heads are then at most a
    /// quarter of the lists' bytes.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// A build's options, temporaries and report, as its phases share them.
pub(crate) struct Context<'a> {
    pub(crate) options: &'a BuildOptions,
    pub(crate) temp_dir: PathBuf,
    pub(crate) working_bytes: u64,
    pub(crate) next_run_id: u64,
    /// The journal of the runs spilled, when the build keeps one (see `journal`).
    pub(crate) journal: Option<Journal>,
    /// Spills this process has journaled.
    spills_journaled: u64,
    /// The input file hashed as far as the spills have read it, when it is a file.
    input_hasher: Option<InputHasher>,
    pub(crate) report: BuildReport,
    phase_started: Instant,
    /// The input's own ids of the vertices, written beside the lists when compacted.
    vertex_ids: Option<crate::ids::CompactedIds>,
}

impl Context<'_> {
    pub(crate) fn check_cancelled(&self) -> Result<()> {
        match &self.options.cancel {
            Some(flag) if flag.load(Ordering::Relaxed) => Err(BuildError::Interrupted),
            _ => Ok(()),
        }
    }

    pub(crate) fn phase(&mut self, name: &str, total: Option<u64>) {
        self.end_phase();
        self.report.phase_seconds.push((name.to_string(), 0.0));
        if let Some(progress) = &self.options.progress {
            progress.phase(name, total);
        }
    }

    fn end_phase(&mut self) {
        let now = Instant::now();
        if let Some((_, seconds)) = self.report.phase_seconds.last_mut() {
            *seconds = (now - self.phase_started).as_secs_f64();
        }
        self.phase_started = now;
    }

    fn warning(&self, message: &str) {
        if let Some(progress) = &self.options.progress {
            progress.warning(message);
        }
    }

    pub(crate) fn position(&self, done: u64) {
        if let Some(progress) = &self.options.progress {
            progress.position(done);
        }
    }

    /// While reading, the bar follows input bytes (whose total is known) and the
    /// message counts edges.
    pub(crate) fn report_reading(&self, source: &dyn EdgeSource, edges: u64) {
        if let Some(progress) = &self.options.progress {
            match source.progress_bytes() {
                (done, Some(_)) => progress.position(done),
                _ => progress.position(edges),
            }
            progress.edges_read(edges);
        }
    }

    pub(crate) fn new_run_path(&mut self) -> PathBuf {
        self.next_run_id += 1;
        self.temp_dir.join(format!("run-{}.bin", self.next_run_id))
    }
}

/// Where a build of `output` keeps its temporaries: `--temp-dir`, or beside the output.
pub(crate) fn temp_parent(options: &BuildOptions, output: &Path) -> PathBuf {
    match (&options.temp_dir, output.parent()) {
        (Some(dir), _) => dir.clone(),
        (None, Some(parent)) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The least budget a build from `source` (as opened) works in: the reserve, what the
/// source holds, and the smallest arc buffer.
pub(crate) fn least_build_budget(source: &dyn EdgeSource) -> u64 {
    RESERVED_BYTES + source.memory_bytes() + MIN_WORKING_BYTES
}

/// Builds `output` from `source` within `options.memory_bytes`.
pub fn build_graph(
    source: &mut dyn EdgeSource,
    output: &Path,
    options: &BuildOptions,
) -> Result<BuildReport> {
    let started = Instant::now();
    let temp_parent = temp_parent(options, output);
    // A killed build of the same input and options is claimed before the sweep below
    // could remove it.
    let killed = match (&options.resume_key, options.resume) {
        (Some(key), true) => find_killed_build(&temp_parent, key, options.input_file.as_deref()),
        _ => KilledBuild::Absent,
    };
    // What builds killed before this one left behind (a kill skips every clean-up).
    let removed = crate::stale::remove_abandoned_in(
        &[
            temp_parent.clone(),
            swapless_format::output::folder_of(output),
        ],
        output,
    );
    let least = least_build_budget(source);
    let working_bytes = options
        .memory_bytes
        .saturating_sub(least - MIN_WORKING_BYTES);
    if working_bytes < MIN_WORKING_BYTES {
        // An `auto` source finds out only by reading whether its ids are to be
        // compacted, and compacted ids take memory of their own: it reads through
        // first (holding nothing), so that the least named is one that works.
        let mut batch = Vec::with_capacity(BATCH_EDGES);
        while source.next_batch(&mut batch)? {
            if let Some(flag) = &options.cancel
                && flag.load(Ordering::Relaxed)
            {
                return Err(BuildError::Interrupted);
            }
        }
        return Err(BuildError::BudgetTooSmall {
            budget_bytes: options.memory_bytes,
            needed_bytes: least,
        });
    }
    // The folder and every run in it are removed when this is dropped, on success, on
    // error and on Ctrl-C; only a kill leaves them, for `--resume`.
    let input_stamp = match &options.input_file {
        Some(path) if options.resume_key.is_some() => Some(InputStamp::of(path)?),
        _ => None,
    };
    let input_changed = match &killed {
        KilledBuild::InputChanged(change) => Some(*change),
        _ => None,
    };
    let (folder, journal, input_hasher) = match killed {
        KilledBuild::Found(mut resumed) => {
            let journal = resumed.journal.clone();
            let hasher = resumed.hasher.take();
            (BuildFolder::adopt(*resumed), Some(journal), hasher)
        }
        KilledBuild::Absent | KilledBuild::InputChanged(_) => {
            let journal = options.resume_key.as_ref().map(|key| Journal {
                key: key.clone(),
                output: crate::stale::output_identity(output),
                input: input_stamp,
                raw: None,
                spills: Vec::new(),
                run_format: crate::run_file::RUN_FORMAT,
            });
            let hasher = match &options.input_file {
                Some(path) if journal.is_some() => Some(InputHasher::open(path)?),
                _ => None,
            };
            (BuildFolder::create(&temp_parent)?, journal, hasher)
        }
    };
    let mut context = Context {
        options,
        temp_dir: folder.path.clone(),
        working_bytes,
        next_run_id: journal.as_ref().map_or(0, Journal::largest_run_id),
        journal,
        spills_journaled: 0,
        input_hasher,
        report: BuildReport {
            memory_budget_bytes: options.memory_bytes,
            working_memory_bytes: working_bytes,
            ..BuildReport::default()
        },
        phase_started: Instant::now(),
        vertex_ids: source.vertex_ids(),
    };
    if let Some(change) = input_changed {
        let input = options
            .input_file
            .as_deref()
            .unwrap_or(Path::new("the input"));
        context.warning(&format!(
            "{} changed since its build was killed ({change}), so that build's runs are not reused; building from the beginning",
            input.display()
        ));
    } else if options.resume {
        match context.journal.as_ref() {
            None => context.warning(
                "this input cannot be read again the same way, so its build cannot be resumed; building from the beginning",
            ),
            Some(journal) if journal.spills.is_empty() && journal.raw.is_none() => {
                context.warning(
                    "no killed build of this output with intact runs was found; building from the beginning",
                )
            }
            _ => {}
        }
    }
    let result = match options.reorder {
        Reorder::None => build_sorted(source, output, None, &mut context),
        Reorder::DegreeBasedGrouping => {
            let (mut replay, new_to_old) = crate::replay::spill_and_reorder(source, &mut context)?;
            build_sorted(&mut replay, output, Some(new_to_old), &mut context)
        }
    };
    context.end_phase();
    let mut report = result?;
    report.phase_seconds = context.report.phase_seconds.clone();
    report.abandoned_temporaries_removed = removed;
    report.output_bytes = std::fs::metadata(output)
        .map_err(|source| BuildError::io(output, source))?
        .len();
    report.list_form = options.lists;
    let built = GraphFile::open(output)?;
    report.list_bytes = built.list_bytes();
    report.list_bytes_per_arc = built.list_bytes_per_arc();
    report.seconds = started.elapsed().as_secs_f64();
    drop(folder);
    Ok(report)
}

fn build_sorted(
    source: &mut dyn EdgeSource,
    output: &Path,
    new_to_old: Option<Vec<u32>>,
    context: &mut Context,
) -> Result<BuildReport> {
    if source.weighted() {
        build_with::<u128>(source, output, new_to_old, context)
    } else {
        build_with::<u64>(source, output, new_to_old, context)
    }
}

/// The input read so far, as a spill records it.
#[derive(Clone, Copy, Default)]
struct ReadSoFar {
    /// Input edges consumed (self-loops included).
    edges: u64,
    /// The largest id seen.
    max_id: Option<u32>,
}

/// Spills both directions' buffers at an input-edge boundary and journals the spill,
/// with a hash of the input file's first `input_bytes` (what the source has read of it).
fn spill_both<R: Record>(
    out_arcs: &mut ArcCollector<R>,
    in_arcs: &mut ArcCollector<R>,
    read: ReadSoFar,
    (reading_done, input_bytes): (bool, u64),
    context: &mut Context,
) -> Result<()> {
    let out_run = out_arcs.spill(context)?;
    let in_run = in_arcs.spill(context)?;
    let self_loops_dropped = context.report.self_loops_dropped;
    if let Some(journal) = context.journal.as_mut() {
        // A reordering build's spills are of its copy, which has a checksum of its own.
        let (input_bytes, input_hash) = match (&journal.input, &mut context.input_hasher) {
            (Some(stamp), Some(hasher)) if journal.raw.is_none() => {
                let bytes = match reading_done {
                    true => stamp.bytes,
                    false => input_bytes.min(stamp.bytes).max(hasher.hashed()),
                };
                match hasher.hash_to(bytes)? {
                    Some(hash) => (bytes, hash),
                    None => (0, 0),
                }
            }
            _ => (0, 0),
        };
        journal.spills.push(Spill {
            out_run,
            in_run,
            input_edges: read.edges,
            self_loops_dropped,
            max_id: read.max_id,
            arcs_pushed: [out_arcs.pushed, in_arcs.pushed],
            reading_done,
            input_bytes,
            input_hash,
        });
        journal.save(&context.temp_dir)?;
        context.spills_journaled += 1;
        swapless_system::kill_at_test_point("after-spill", context.spills_journaled);
    }
    Ok(())
}

fn build_with<R: Record>(
    source: &mut dyn EdgeSource,
    output: &Path,
    new_to_old: Option<Vec<u32>>,
    context: &mut Context,
) -> Result<BuildReport> {
    let directed = source.direction() == Direction::Directed;
    // A reordering build holds both id maps to the end (the replay's, and the one
    // written last): the arc buffers, the pre-merges and the merge's read buffers are
    // all sized without them.
    let permutation_bytes = new_to_old.as_ref().map_or(0, |p| p.len() as u64 * 8);
    context.working_bytes = context.working_bytes.saturating_sub(permutation_bytes);
    let buffer_bytes = context.working_bytes;
    let sides = if directed { 2 } else { 1 };
    let capacity = ((buffer_bytes / sides) / std::mem::size_of::<R>() as u64).max(1024) as usize;
    let mut out_arcs = ArcCollector::<R>::new(capacity);
    let mut in_arcs = ArcCollector::<R>::new(if directed { capacity } else { 0 });

    // A resumed build starts with the runs its journal holds, past the input they cover.
    let mut read = ReadSoFar::default();
    let mut reading_done = false;
    let spills = context
        .journal
        .as_ref()
        .map_or(&[][..], |journal| &journal.spills[..]);
    if let Some(last) = spills.last() {
        read = ReadSoFar {
            edges: last.input_edges,
            max_id: last.max_id,
        };
        reading_done = last.reading_done;
        // (A reordering build has counted its input's self-loops already.)
        context.report.input_edges += last.input_edges;
        context.report.self_loops_dropped = last.self_loops_dropped;
        let folder = &context.temp_dir;
        let spilled = |run| SpilledRun::in_folder(folder, run);
        for spill in spills {
            out_arcs.runs.extend(spill.out_run.iter().map(spilled));
            in_arcs.runs.extend(spill.in_run.iter().map(spilled));
        }
        context.report.runs_spilled = (out_arcs.runs.len() + in_arcs.runs.len()) as u64;
        context.report.resumed_runs = context.report.runs_spilled;
        context.report.resumed_input_edges = last.input_edges;
        [out_arcs.pushed, in_arcs.pushed] = last.arcs_pushed;
    }
    // Arcs each input edge adds to the out-arcs' buffer.
    let arcs_per_edge = if directed { 1 } else { 2 };
    let mut batch: Vec<InputEdge> = Vec::with_capacity(crate::builder::BATCH_EDGES);
    if !reading_done {
        context.phase("reading", source.progress_bytes().1);
        let skip = read.edges;
        let mut seen = 0u64;
        while source.next_batch(&mut batch)? {
            context.check_cancelled()?;
            // Edges the reused runs hold are read past, not sorted again.
            let fresh = (skip.saturating_sub(seen) as usize).min(batch.len());
            seen += batch.len() as u64;
            for edge in &batch[fresh..] {
                if !out_arcs.has_room_for(arcs_per_edge) {
                    let input_bytes = source.progress_bytes().0;
                    spill_both(
                        &mut out_arcs,
                        &mut in_arcs,
                        read,
                        (false, input_bytes),
                        context,
                    )?;
                }
                read.edges += 1;
                context.report.input_edges += 1;
                let larger = edge.source.max(edge.destination);
                read.max_id = Some(read.max_id.map_or(larger, |m| m.max(larger)));
                let self_loop = edge.source == edge.destination;
                if self_loop && context.options.self_loops == SelfLoops::Drop {
                    context.report.self_loops_dropped += 1;
                    continue;
                }
                out_arcs.push(R::new(edge.source, edge.destination, edge.weight), context)?;
                let reverse = R::new(edge.destination, edge.source, edge.weight);
                if directed {
                    in_arcs.push(reverse, context)?;
                } else if !self_loop {
                    // An undirected self-loop is one entry of its vertex's list, as
                    // networkx's adjacency holds it.
                    out_arcs.push(reverse, context)?;
                }
            }
            context.report_reading(source, seen);
        }
        if seen < skip {
            return Err(BuildError::bad_input(
                source.name(),
                format!(
                    "the input now holds {seen} edges, fewer than the {skip} its build's runs hold: it changed since the build was killed; build again without --resume"
                ),
            ));
        }
        // With runs on disk, what the buffers hold is spilled now, so that a build
        // killed while merging resumes without reading the input at all.
        if !out_arcs.runs.is_empty() {
            let input_bytes = source.progress_bytes().0;
            spill_both(
                &mut out_arcs,
                &mut in_arcs,
                read,
                (true, input_bytes),
                context,
            )?;
        }
    }
    let max_id = read.max_id;
    // An input without edges is a mistake (a wrong format, an empty file) unless it
    // declares its vertices: a graph of isolated vertices is a graph.
    if context.report.input_edges == 0 && source.declared_vertices().is_none() {
        return Err(BuildError::bad_input(
            source.name(),
            "the input contains no edges; check the file and its format",
        ));
    }
    let seen_vertices = max_id.map_or(0, |m| m as u64 + 1);
    let vertices = match source.declared_vertices() {
        Some(declared) if declared < seen_vertices => {
            return Err(BuildError::bad_input(
                source.name(),
                format!(
                    "the input declares {declared} vertices but uses id {}",
                    seen_vertices - 1
                ),
            ));
        }
        Some(declared) => declared,
        None => seen_vertices,
    };
    // Ids are vertices: `4000000000 1` alone makes four billion of them (a 32 GB file).
    let offsets_bytes = (vertices + 1) * 8;
    if vertices > SPARSE_IDS_RATIO * context.report.input_edges
        && offsets_bytes > 1 << 30
        && let Some(progress) = &context.options.progress
    {
        progress.warning(&format!(
            "the ids run to {} but there are only {} edges, so most vertices have none; their offsets alone take {:.1} GiB of the output",
            vertices - 1,
            context.report.input_edges,
            offsets_bytes as f64 / (1u64 << 30) as f64
        ));
    }

    let mut writer = GraphWriter::create(output)?;
    let out_sections = [
        SectionKind::OutOffsets,
        SectionKind::OutNeighbors,
        SectionKind::OutWeights,
    ];
    let out_lists = write_adjacency(out_arcs, &mut writer, out_sections, vertices, context)?;
    let arcs = out_lists.arcs;
    if directed {
        let in_sections = [
            SectionKind::InOffsets,
            SectionKind::InNeighbors,
            SectionKind::InWeights,
        ];
        let in_lists = write_adjacency(in_arcs, &mut writer, in_sections, vertices, context)?;
        debug_assert_eq!(in_lists, out_lists);
    }
    if let Some(new_to_old) = &new_to_old {
        let mut section = writer.begin_section(SectionKind::Permutation, Some(vertices * 4))?;
        section.write_values(new_to_old)?;
        writer.finish_section(section)?;
    }
    let ids = context.vertex_ids.clone();
    if let Some(ids) = &ids {
        ids.write_sections(&mut writer)?;
    }
    let flags = GraphFlags {
        directed,
        weighted: R::WEIGHTED,
        reordered: new_to_old.is_some(),
        ids: ids.map_or(IdKind::Dense, |ids| ids.kind()),
        compressed_lists: context.options.lists == ListForm::Compressed,
        self_loops: out_lists.self_loops > 0,
    };
    context.check_cancelled()?;
    context.phase("syncing", None);
    let counts = GraphCounts {
        vertices,
        arcs,
        self_loops: out_lists.self_loops,
    };
    writer.finish(flags, counts)?;

    let report = &mut context.report;
    // An undirected edge is stored twice, a self-loop once.
    let edges = match directed {
        true => arcs,
        false => (arcs + out_lists.self_loops) / 2,
    };
    let duplicate_edges = report.input_edges - report.self_loops_dropped - edges;
    report.vertices = vertices;
    report.arcs = arcs;
    report.self_loops = out_lists.self_loops;
    report.edges = edges;
    report.directed = directed;
    report.weighted = R::WEIGHTED;
    report.reordered = new_to_old.is_some();
    report.ids = flags.ids;
    report.id_ranges = source.id_ranges();
    report.duplicate_edges_dropped =
        duplicate_edges.saturating_sub(source.expected_duplicate_edges());
    Ok(report.clone())
}
