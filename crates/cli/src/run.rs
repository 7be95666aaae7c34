//! `swapless run KERNEL GRAPH`: load the graph, run trials, verify, report.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::Value;
use swapless_format::{GraphFile, SectionKind, VertexIds};
use swapless_run::checkpoint::{CheckpointEvery, CheckpointOptions};
use swapless_run::{ParameterKind, Placement, ResultArray, RunOptions, Warning};
use swapless_store::{GraphOrigin, OffsetForm, OriginOptions, Plan, Tier};
use swapless_system::{parse_size, peak_rss_bytes};

use crate::errors::CliError;
use crate::npy::{NpyArray, write_npy};
use crate::parameters::ParameterFlags;
use crate::text::{bytes, say, thousands};

pub use swapless_run::Kernel;

/// How the edges are served and within what memory: shared by `run` and `plan`.
#[derive(Args, Clone)]
pub struct PlacementArgs {
    /// Memory budget for the whole run (e.g. 512M, 2G): property arrays, offsets, caches
    /// and I/O buffers all count. Default: dram if the graph fits in half of the memory
    /// this process may use (physical memory, or its cgroup's limit if lower), else half
    /// of that memory.
    #[arg(long, value_name = "SIZE")]
    memory: Option<String>,
    /// Where edges are served from (default: dram if the footprint fits the budget, else
    /// direct, or mmap where io_uring is refused).
    #[arg(long, value_enum)]
    tier: Option<TierArg>,
    /// Bytes per read when streaming lists (4K to 4M) [default: 256K; 16K for a search
    /// on a banded graph]
    #[arg(long, value_name = "SIZE")]
    chunk: Option<String>,
    /// Reads kept in flight by the direct tier.
    #[arg(long, default_value_t = 128)]
    queue_depth: usize,
    /// Share of the direct tier's list cache that keeps the pages gathers read (CLOCK)
    /// instead of pinning a prefix: for searches whose frontiers revisit pages, such as
    /// BFS on grids and road networks (0 to 1) [default: 1 for a search (bfs, sssp, bc,
    /// radii) on a graph whose lists are banded, as the plan samples them; else 0]
    #[arg(long, value_name = "FRACTION")]
    gather_cache: Option<f64>,
    /// How a disk tier holds offsets: plain (4 bytes an entry) or Elias-Fano compressed
    /// (about 1 byte; each lookup a few nanoseconds slower). auto: compressed only when
    /// plain offsets would leave too little of the budget for a full queue of reads.
    #[arg(long, value_enum, default_value_t = OffsetsArg::Auto)]
    offsets: OffsetsArg,
    /// A graph in far memory: how long a request to its cluster may take.
    #[arg(long, value_name = "TIME", default_value = "10s", help = crate::far::FAR_TIMEOUT_HELP)]
    far_timeout: String,
    /// A graph in far memory: connections to each node.
    #[arg(long, value_name = "N", default_value_t = 4)]
    far_connections: usize,
    /// A graph in far memory: a local copy of the same graph (checked by fingerprint)
    /// that serves the reads the cluster fails to; the report counts them.
    #[arg(long, value_name = "FILE.sl")]
    fallback: Option<PathBuf>,
}

/// `--offsets` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OffsetsArg {
    /// Compressed only when the budget is tight.
    Auto,
    /// 4 bytes an entry (8 on graphs with 2^32 or more arcs).
    Plain,
    /// Elias-Fano.
    Compressed,
}

/// `--tier` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TierArg {
    /// The whole graph in memory.
    Dram,
    /// A memory map of the file, with prefetch hints.
    Mmap,
    /// The read pipeline into a budgeted cache: O_DIRECT reads through io_uring, or a
    /// far graph's values (the only tier for one).
    Direct,
    /// Not a tier any more (where a graph comes from is its address): kept hidden so
    /// that the old spelling is answered with what to do.
    #[value(hide = true)]
    Far,
}

impl PlacementArgs {
    /// How `graph`, if it is across a network (in far memory), is reached; `--fallback`
    /// is refused for a local graph, which it could not serve.
    pub fn origin_options(&self, graph: &Path) -> Result<OriginOptions, CliError> {
        let far = graph.to_str().is_some_and(swapless_far::is_far_address);
        if let (Some(fallback), false) = (&self.fallback, far) {
            return Err(CliError::Usage(format!(
                "--fallback {} serves the reads a Redis cluster fails, but {} is a local graph; drop --fallback",
                fallback.display(),
                graph.display()
            )));
        }
        if self.far_connections == 0 {
            return Err(CliError::Usage(
                "--far-connections must be at least 1".to_string(),
            ));
        }
        Ok(OriginOptions {
            timeout: crate::far::parse_far_timeout(&self.far_timeout)?,
            connections_per_node: self.far_connections,
            fallback: self.fallback.clone(),
        })
    }

    /// The runner's placement, with the options checked.
    fn placement(&self) -> Result<Placement, CliError> {
        let budget = crate::commands::parse_memory(self.memory.as_deref())?;
        let chunk = match &self.chunk {
            None => None,
            Some(text) => Some(parse_size(text).ok_or_else(|| {
                CliError::Usage(format!(
                    "--chunk {text:?} is not a size; write it like 256K or 1M"
                ))
            })?),
        };
        let tier = match self.tier {
            None => None,
            Some(TierArg::Dram) => Some(Tier::Dram),
            Some(TierArg::Mmap) => Some(Tier::Mmap),
            Some(TierArg::Direct) => Some(Tier::Direct),
            Some(TierArg::Far) => {
                return Err(CliError::Usage(
                    "--tier far is not a tier: a redis:// graph runs on the direct tier by itself; drop --tier far"
                        .to_string(),
                ));
            }
        };
        let mut placement = Placement::new(budget, tier);
        placement.chunk_bytes = chunk;
        placement.queue_depth = self.queue_depth;
        placement.gather_cache_fraction = self.gather_cache;
        placement.offset_form = match self.offsets {
            OffsetsArg::Auto => None,
            OffsetsArg::Plain => Some(OffsetForm::Plain),
            OffsetsArg::Compressed => Some(OffsetForm::Compressed),
        };
        Ok(placement)
    }
}

/// Options of `swapless plan`.
#[derive(Args)]
pub struct PlanCommand {
    /// The .sl graph.
    graph: PathBuf,
    /// Kernel to plan for.
    #[arg(value_enum)]
    kernel: Kernel,
    #[command(flatten)]
    placement: PlacementArgs,
    /// Plan for `run --verify`: count the serial verifier's phase after the run.
    #[arg(long)]
    verify: bool,
    /// Plan for `run --out FILE`: a table's writer (.csv, .parquet) and the input's ids
    /// that name its rows are counted too. Nothing is written.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Also write the plan as JSON to this file ("-" for standard output).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// The kernel's parameters, as `run` takes them: those that hold memory (vertex
    /// weights) are counted.
    #[command(flatten)]
    parameters: ParameterFlags,
}

/// `swapless plan`: what would live where, before anything is allocated.
pub fn plan(command: PlanCommand) -> Result<(), CliError> {
    crate::commands::prepare_json(command.json.as_deref())?;
    let origin = swapless_run::open_origin(
        &command.graph,
        &command.placement.origin_options(&command.graph)?,
        &crate::progress::Notes,
    )?;
    let mut placement = command.placement.placement()?;
    placement.verify = command.verify;
    // Which vertices the parameters name does not change their size: every id reads as 0.
    let given = command.parameters.values(command.kernel, &|_, _| Ok(0))?;
    placement.parameter_bytes = swapless_run::parameter_bytes(&given);
    // The ids, as `run` holds them: to find the vertices the parameters name, or to
    // name a table's rows.
    let table_format = command.out.as_deref().and_then(table_format);
    let ids_bytes = match table_format.is_some()
        || parameters_name_vertices(command.kernel, &command.parameters)
    {
        true => vertex_ids_bytes(&*origin)?,
        false => 0,
    };
    placement.output_held_bytes = output_held_bytes(ids_bytes, table_format.as_deref());
    let plan = swapless_run::plan_on(&*origin, command.kernel, &placement)?;
    say!(
        "{} on {}: tier {}, budget {}, dram footprint {}, least budget for a disk tier {}",
        plan.kernel(),
        origin.shown(),
        plan.tier(),
        bytes(plan.budget_bytes()),
        bytes(plan.footprint_bytes()),
        swapless_system::format_bytes_up(plan.minimum_bytes())
    );
    print_io_uring_refusal(&plan);
    say!(
        "  {:<36} {:>11}  {:<5} placement",
        "segment",
        "size",
        "class"
    );
    for segment in plan.segments() {
        say!(
            "  {:<36} {:>11}  {:<5} {}",
            segment.name,
            bytes(segment.bytes),
            segment.class,
            segment.placement
        );
    }
    let cached = plan.cached_list_bytes().0 + plan.cached_list_bytes().1;
    if plan.tier() != Tier::Dram {
        say!(
            "  edge cache {} (lists held in memory), I/O buffers {} ({} KiB chunks, queue depth {})",
            bytes(cached),
            bytes(plan.io_buffer_bytes()),
            plan.chunk_bytes() >> 10,
            plan.queue_depth()
        );
    }
    if let Some(path) = &command.json {
        let mut json = swapless_run::plan_json(&plan);
        json["graph"] = origin.shown().into();
        json["origin"] = origin.kind().into();
        crate::commands::write_json(path, &json)?;
    }
    Ok(())
}

/// Options of `swapless run`.
#[derive(Args)]
pub struct RunCommand {
    /// Kernel to run.
    #[arg(value_enum)]
    kernel: Kernel,
    /// The .sl graph.
    graph: PathBuf,
    /// Source vertex for bfs and sssp, by the input's id (a name on a graph of named
    /// vertices); default: a reproducible random vertex with edges.
    #[arg(long, value_name = "ID", allow_hyphen_values = true)]
    source: Option<String>,
    /// Write the result here: .npy, an array indexed by vertex (the input's order of ids
    /// on a compacted graph), or .csv or .parquet, an `id` column and the value's.
    #[arg(long, value_name = "FILE.npy|.csv|.parquet")]
    out: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Trials to time; the report gives the median.
    #[arg(long, default_value_t = 1)]
    trials: u32,
    /// Check the result against the kernel's serial verifier, after the run and within
    /// its budget (`swapless plan --verify` shows what that phase holds).
    #[arg(long)]
    verify: bool,
    /// Also write the report as JSON to this file ("-" for standard output).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Back the first FRACTION (0..1) of every property array with transparent huge
    /// pages; after `--reorder dbg` that prefix holds the hottest vertices. All of
    /// them by default: random reads into them miss the TLB on 4 KiB pages.
    #[arg(long, value_name = "FRACTION", default_value_t = 1.0)]
    hugepages: f64,
    /// Write the kernel's state to checkpoints in this folder between steps, so that a
    /// killed run can continue with `--resume`; the newest two are kept, and all are
    /// removed once the run finishes.
    #[arg(long, value_name = "DIR")]
    checkpoint: Option<PathBuf>,
    /// How often to write a checkpoint: a time (`90s`, `5m`, `1h`) or a number of steps
    /// (`10`); `auto`: the first after 60 s, then by Young's rule from the time the last
    /// one took and one failure in 6 hours, never costing more than 5% of the run.
    #[arg(
        long,
        value_name = "TIME|STEPS",
        default_value = "auto",
        requires = "checkpoint"
    )]
    checkpoint_every: String,
    /// Continue from the newest intact checkpoint in the --checkpoint folder (from the
    /// beginning if it holds none yet).
    #[arg(long, requires = "checkpoint")]
    resume: bool,
    #[command(flatten)]
    placement: PlacementArgs,
    #[command(flatten)]
    parameters: ParameterFlags,
}

/// `swapless run`.
pub fn run(command: RunCommand) -> Result<(), CliError> {
    if command.kernel.returns_a_number() && command.out.is_some() {
        return Err(CliError::Usage(format!(
            "{} returns a single number (in the report), so it takes no --out",
            command.kernel.name()
        )));
    }
    check_outputs(&command)?;
    let origin_options = command.placement.origin_options(&command.graph)?;
    // The input's ids, when the graph has them, name the source and a table's rows.
    let table_out = command.out.as_deref().and_then(table_format);
    let progress = crate::progress::RunProgress::start(command.kernel.name(), command.trials);
    // Opened once, for the ids, the run and a table's names alike.
    let origin = swapless_run::open_origin(&command.graph, &origin_options, &progress)?;
    // The ids are held only while they are used (to find the source before the run, to
    // name a table's rows after it), never during the run, and the plan counts them.
    let names_vertices =
        command.source.is_some() || parameters_name_vertices(command.kernel, &command.parameters);
    let ids_bytes = match names_vertices || table_out.is_some() {
        true => vertex_ids_bytes(&*origin)?,
        false => 0,
    };
    let (source, parameters) = {
        let ids = match (names_vertices, ids_bytes) {
            (true, 1..) => swapless_run::load_vertex_ids(&*origin)?,
            _ => None,
        };
        let named = |flag: &str, id: &str| vertex_named(&command.graph, ids.as_ref(), flag, id);
        let source = match command.source.as_deref() {
            Some(id) => Some(named("source", id)?),
            None => None,
        };
        let parameters = command.parameters.values(command.kernel, &named)?;
        (source, parameters)
    };
    let mut placement = command.placement.placement()?;
    // Without --out nobody reads the result array, so the run skips making it and its
    // budget need not hold it.
    placement.output_array = command.out.is_some();
    placement.output_held_bytes = output_held_bytes(ids_bytes, table_out.as_deref());
    placement.verify = command.verify;
    let options = RunOptions {
        placement,
        source,
        threads: command.threads,
        trials: command.trials,
        parameters,
        huge_page_fraction: command.hugepages,
        // Ctrl-C stops the run at its next scan or gather, before any output is written.
        cancel: Some(crate::commands::interrupt_flag(Some(
            crate::commands::INTERRUPT_GRACE,
        ))),
        origin: origin_options,
        checkpoint: match &command.checkpoint {
            None => None,
            Some(folder) => Some(CheckpointOptions {
                folder: folder.clone(),
                every: CheckpointEvery::parse(&command.checkpoint_every).ok_or_else(|| {
                    CliError::Usage(format!(
                        "--checkpoint-every {:?} must be `auto`, a time such as 90s, 5m or 1h, or a number of steps",
                        command.checkpoint_every
                    ))
                })?,
                resume: command.resume,
            }),
        },
    };
    let output = swapless_run::run_on(&*origin, command.kernel, &options, &progress);
    progress.finish();
    let output = output?;
    if let Some(path) = &command.out {
        let column = command.kernel.info().column;
        let ids = match (table_out.is_some(), ids_bytes) {
            (true, 1..) => swapless_run::load_vertex_ids(&*origin)?,
            _ => None,
        };
        let written = match (&output.array, table_out.as_deref()) {
            (array, Some("csv")) => crate::table::write_csv(path, array, column, ids.as_ref()),
            (array, Some(_)) => crate::table::write_parquet(path, array, column, ids.as_ref()),
            (ResultArray::Int64(values), None) => write_npy(path, NpyArray::Int64(values)),
            (ResultArray::Float64(values), None) => write_npy(path, NpyArray::Float64(values)),
            (ResultArray::Int8(values), None) => write_npy(path, NpyArray::Int8(values)),
            (ResultArray::Edges(pairs), None) => write_npy(path, NpyArray::Pairs(pairs)),
            (ResultArray::None, None) => Ok(()),
        };
        written?;
    }
    let mut report = output.report.to_json();
    // The peak of the whole command, the writing of the result included.
    if let Some(peak) = peak_rss_bytes() {
        report["peak_rss_bytes"] = peak.into();
    }
    print_report(&report, &output.plan, command.source.as_deref());
    print_fallback_reads(&report["far"], command.placement.fallback.as_deref());
    for warning in &output.warnings {
        eprintln!("warning: {}", warning_sentence(command.kernel, warning));
    }
    if let Some(path) = &command.json {
        crate::commands::write_json(path, &report)?;
    }
    Ok(())
}

/// Checks `--out` and `--json` before the run starts, so a long run never ends in an
/// output it cannot write.
fn check_outputs(command: &RunCommand) -> Result<(), CliError> {
    use crate::commands::{distinct_outputs, prepare_json};
    // Two outputs on one stream are refused before either is looked at.
    distinct_outputs(command.json.as_deref(), command.out.as_deref(), "--out")?;
    if let Some(out) = &command.out {
        // No extension (a device, a pipe) gets the array.
        let written = |e: &std::ffi::OsStr| e == "npy" || e == "csv" || e == "parquet";
        if let Some(extension) = out.extension().filter(|&e| !written(e)) {
            return Err(CliError::Usage(format!(
                "--out {} ends in .{}, but results are written as .npy (a NumPy array), or .csv or .parquet (a table of ids and values); name the file so",
                out.display(),
                extension.to_string_lossy()
            )));
        }
        let target = swapless_format::output::output_target(out)?;
        // A run killed while writing its result leaves a locked temporary; what nobody
        // holds any more goes now, as a build does in its folder.
        let folder = swapless_format::output::folder_of(&target.resolved);
        let removed = swapless_build::stale::remove_abandoned(&folder, None);
        if removed.temporaries > 0 {
            eprintln!(
                "note: removed {removed} left in {} by commands that were killed",
                folder.display()
            );
        }
    }
    prepare_json(command.json.as_deref())
}

/// Whether `parameters` name vertices by id (sources, vertex weights), which the
/// input's ids must be read to find.
fn parameters_name_vertices(kernel: Kernel, parameters: &ParameterFlags) -> bool {
    kernel.info().parameters.iter().any(|parameter| {
        matches!(
            parameter.kind,
            ParameterKind::Vertices { .. } | ParameterKind::VertexWeights
        ) && parameters.has(parameter.flag)
    })
}

/// The table format `out` names by its extension (`csv`, `parquet`), if any.
fn table_format(out: &Path) -> Option<String> {
    out.extension()
        .filter(|&extension| extension == "csv" || extension == "parquet")
        .map(|extension| extension.to_string_lossy().into_owned())
}

/// What writing a result holds beside the run for the plan to count: the input's ids
/// (`ids_bytes`, when they are held) and a table's writer.
fn output_held_bytes(ids_bytes: u64, table_format: Option<&str>) -> u64 {
    ids_bytes
        + match table_format {
            Some(format) => crate::table::writer_bytes(format == "parquet"),
            None => 0,
        }
}

/// Bytes the input's ids of `graph` take once loaded (0 when its ids are dense).
fn vertex_ids_bytes(origin: &dyn GraphOrigin) -> Result<u64, CliError> {
    let file = GraphFile::open(origin.local_file())?;
    Ok([
        SectionKind::VertexIds,
        SectionKind::NameOffsets,
        SectionKind::VertexNames,
    ]
    .into_iter()
    .filter_map(|kind| file.header().section(kind))
    .map(|section| section.length)
    .sum())
}

/// The vertex (before any reordering) the user's `id` names: its place among the
/// graph's ids when its build compacted them, else the number itself.
fn vertex_named(
    graph: &Path,
    ids: Option<&VertexIds>,
    flag: &str,
    id: &str,
) -> Result<u64, CliError> {
    let found = match ids {
        Some(ids) => ids.position_of(id).map(u64::from),
        None => id.trim().parse::<u64>().ok(),
    };
    found.ok_or_else(|| {
        CliError::Usage(match ids {
            Some(_) => format!(
                "--{flag} {id:?}: no vertex of {} has this id",
                graph.display()
            ),
            None => format!(
                "--{flag} {id:?} is not a vertex of {}: its vertices are numbered 0 up",
                graph.display()
            ),
        })
    })
}

/// A kernel's warning about its result, in flags.
fn warning_sentence(kernel: Kernel, warning: &Warning) -> String {
    match warning {
        Warning::NotConverged {
            iterations,
            last_change,
            tolerance,
            cap,
            tolerance_flag,
        } => format!(
            "{} stopped at its limit of {iterations} iterations (--{cap}) with a change of {last_change:.2e}, above --{tolerance_flag} {tolerance:e}; the scores are not converged (raise --{cap})",
            kernel.name()
        ),
        Warning::Diverged {
            iterations,
            parameter,
        } => format!(
            "{}'s values overflowed after {iterations} iterations: the series diverges, so the scores mean nothing (lower --{parameter})",
            kernel.name()
        ),
    }
}

/// Says why the mmap tier serves a plan that would have been direct's, if it does.
fn print_io_uring_refusal(plan: &Plan) {
    if let Some(refusal) = plan.io_uring_refused() {
        say!(
            "  note: this process may not use io_uring ({refusal}), so the mmap tier serves the lists instead of direct"
        );
    }
}

/// Lists in a result longer than this are counted on the terminal, not listed (the
/// JSON report lists them).
const LISTED_ON_THE_TERMINAL: usize = 8;

/// A kernel's result as the terminal shows it: its figures, with a long list (every
/// source of an exact betweenness) given as its length.
fn result_line(result: &Value) -> Value {
    match result {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(key, value)| match value {
                    Value::Array(items) if items.len() > LISTED_ON_THE_TERMINAL => (
                        key.clone(),
                        Value::String(format!(
                            "{} of them, listed in --json",
                            thousands(items.len() as u64)
                        )),
                    ),
                    other => (key.clone(), other.clone()),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A note of the reads `--fallback` served in place of the cluster, and why: the run's
/// answer is right, but the cluster needs repair.
fn print_fallback_reads(far: &Value, fallback: Option<&Path>) {
    let (Some(reads), Some(path)) = (far["fallback_reads"].as_u64(), fallback) else {
        return;
    };
    if reads > 0 {
        eprintln!(
            "note: the fallback {} served {} reads ({}) that the cluster could not serve (the first: {}); repair or refill the cluster",
            path.display(),
            thousands(reads),
            bytes(far["fallback_bytes"].as_u64().unwrap_or(0)),
            far["fallback_reason"].as_str().unwrap_or("unknown")
        );
    }
}

/// The short human report.
fn print_report(report: &Value, plan: &Plan, source_id: Option<&str>) {
    let count = |key: &str| report[key].as_u64().unwrap_or(0);
    let number = |key: &str| report[key].as_f64().unwrap_or(f64::NAN);
    say!(
        "{} on {} ({} vertices, {} arcs, tier {}, {} threads)",
        report["kernel"].as_str().unwrap_or(""),
        report["graph"].as_str().unwrap_or(""),
        thousands(count("vertices")),
        thousands(count("arcs")),
        report["tier"].as_str().unwrap_or(""),
        count("threads"),
    );
    print_io_uring_refusal(plan);
    if let Some(source) = report["source"].as_u64() {
        say!(
            "  source {}",
            source_id.map_or(source.to_string(), str::to_string)
        );
    }
    say!(
        "  result {}{}",
        result_line(&report["result"]),
        if report["verified"] == Value::Bool(true) {
            " (verified)"
        } else {
            ""
        }
    );
    say!(
        "  {:.4} s median of {} trial(s); load {:.2} s; peak RSS {}; footprint {}",
        number("seconds"),
        count("trials"),
        number("load_seconds"),
        bytes(count("peak_rss_bytes")),
        bytes(count("footprint_bytes"))
    );
    if plan.tier() != Tier::Dram {
        let io_wait = number("io_wait_seconds");
        let wait = if io_wait.is_nan() {
            "not measurable (threads wait in page faults)".to_string()
        } else {
            format!("{io_wait:.3} s")
        };
        say!(
            "  budget {} ({} offsets); read {} per trial in {} requests (queue depth mean {:.1}, max {}); cache hits {:.1}%; I/O wait {wait}",
            bytes(plan.budget_bytes()),
            plan.offset_form().name(),
            bytes(count("bytes_read")),
            thousands(count("read_requests")),
            number("mean_queue_depth"),
            count("max_queue_depth"),
            100.0 * number("cache_hit_ratio")
        );
        let pattern = |key: &str, field: &str| report[key][field].as_f64().unwrap_or(0.0);
        say!(
            "  scans {:.0} MB/s over {:.3} s; gathers {} requests/s at mean queue depth {:.1} over {:.3} s (per trial)",
            pattern("scan_io", "bytes_per_second") / 1e6,
            pattern("scan_io", "seconds"),
            thousands(pattern("gather_io", "requests_per_second") as u64),
            pattern("gather_io", "mean_queue_depth"),
            pattern("gather_io", "seconds"),
        );
        let far = &report["far"];
        if let Some(nodes) = far["nodes"].as_array() {
            let figure = |key: &str| far[key].as_u64().unwrap_or(0);
            say!(
                "  far memory: {} in {} requests from {} node(s) over the whole run; network wait {:.3} s; {} retries",
                bytes(figure("network_bytes")),
                thousands(figure("network_requests")),
                nodes.len(),
                far["network_wait_seconds"].as_f64().unwrap_or(0.0),
                thousands(figure("retries"))
            );
        }
        // A file's reads only: a far graph's never go through the page cache at all.
        if plan.tier() == Tier::Direct
            && report["origin"] == "file"
            && report["direct_io"] == serde_json::json!(false)
        {
            say!("  note: this filesystem refused O_DIRECT, so reads went through the page cache");
        }
    }
}
