//! What each subcommand does: parse options, call the library, print a report.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;
use swapless_build::generators::{GridSource, SyntheticKind, SyntheticSource};
use swapless_build::ids::IdMode;
use swapless_build::importers::{
    ColumnChoice, HeaderChoice, ImportOptions, TableColumns, build_input,
};
use swapless_build::{
    BuildOptions, BuildReport, EdgeSource, OutHeads, Reorder, SelfLoops, build_graph,
};
use swapless_format::output::{
    OutputKind, output_target, same_file, seekable_output_target, write_output,
};
use swapless_format::{FormatError, GraphFile, IdKind, ListForm, SectionKind, check_file};
use swapless_system::{parse_size, peak_rss_bytes};

use crate::errors::CliError;
use crate::progress::TerminalProgress;
use crate::text::{self, bytes, say, thousands};
use crate::{
    BuildCommand, GenerateArgs, Generator, IdsChoice, OutHeadsChoice, OutputOptions, ReorderChoice,
    SelfLoopsChoice, SyntheticArgs,
};

type CliResult = Result<(), CliError>;

/// Turns a `--memory` value into bytes, if one was given; warns when it is more than
/// the process may use, since the promise to keep to it is then no shield.
pub fn parse_memory(text: Option<&str>) -> Result<Option<u64>, CliError> {
    let Some(text) = text else {
        return Ok(None);
    };
    let bytes = parse_size(text).ok_or_else(|| {
        CliError::Usage(format!(
            "--memory {text:?} is not a size; write it like 512M, 2G or 1.5GiB"
        ))
    })?;
    let setting = format!("--memory {text}");
    if let Some(warning) = swapless_system::beyond_usable_memory_warning(&setting, bytes) {
        eprintln!("warning: {warning}");
    }
    Ok(Some(bytes))
}

/// Turns a `--lists` value into the form the output's lists take.
fn parse_list_form(text: &str) -> Result<ListForm, CliError> {
    ListForm::from_name(text).ok_or_else(|| {
        CliError::Usage(format!(
            "--lists {text:?} is not a form of lists; write plain or compressed"
        ))
    })
}

/// Turns `--memory` into bytes; the default is half of the memory the process may use.
fn memory_budget(text: Option<&str>) -> Result<u64, CliError> {
    Ok(parse_memory(text)?.unwrap_or_else(swapless_run::default_memory_budget))
}

/// How long a command may take to stop after Ctrl-C before it is ended without waiting
/// for its clean-up (the next build in the folder removes what a stopped one left).
pub(crate) const INTERRUPT_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// A flag that Ctrl-C (or SIGTERM, SIGHUP) sets; the command polls it and cleans up.
/// With `grace`, a command still running that long after the signal exits with 130 at
/// once, so a phase that polls rarely never keeps the user waiting. A second Ctrl-C
/// exits at once.
pub(crate) fn interrupt_flag(grace: Option<std::time::Duration>) -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let handler_flag = flag.clone();
    let _ = ctrlc::set_handler(move || {
        if handler_flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        if let Some(grace) = grace {
            std::thread::spawn(move || {
                std::thread::sleep(grace);
                eprintln!("error: interrupted; no output was written");
                std::process::exit(130);
            });
        }
    });
    flag
}

/// Writes a JSON report to `path` as one whole (temporary name, then rename), or to
/// standard output for "-".
pub fn write_json(path: &Path, value: &serde_json::Value) -> CliResult {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    if path == Path::new("-") {
        println!("{text}");
        return Ok(());
    }
    write_output(path, (text + "\n").as_bytes())?;
    Ok(())
}

/// Checks a `--json` path before any work starts; "-" sends the human report to
/// standard error, so standard output carries the JSON alone.
pub fn prepare_json(path: Option<&Path>) -> CliResult {
    match path {
        Some(path) if path == Path::new("-") => text::report_to_stderr(),
        Some(path) => {
            output_target(path)?;
        }
        None => {}
    }
    Ok(())
}

/// Whether `path` is where the standard output goes: `-`, or the file, pipe or device
/// that the standard output is (`/dev/stdout`, `/proc/self/fd/1`, its own path).
fn is_standard_output(path: &Path) -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    if path == Path::new("-") {
        return true;
    }
    let standard_output = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .map(std::fs::File::from)
        .and_then(|file| file.metadata());
    match (std::fs::metadata(path), standard_output) {
        (Ok(at_path), Ok(standard_output)) => {
            (at_path.dev(), at_path.ino()) == (standard_output.dev(), standard_output.ino())
        }
        _ => false,
    }
}

/// Refuses two outputs of one command that name the same file, or that both go to the
/// standard output (where one would be mixed into the other).
/// `second_flag` names the second for the message (`--json` is the first's).
pub fn distinct_outputs(
    first: Option<&Path>,
    second: Option<&Path>,
    second_flag: &str,
) -> CliResult {
    if let (Some(first), Some(second)) = (first, second)
        && is_standard_output(first)
        && is_standard_output(second)
    {
        return Err(CliError::Usage(format!(
            "--json {} and {second_flag} {} both write to the standard output, where they would be mixed; send one of them to a file",
            first.display(),
            second.display()
        )));
    }
    // Two reports into one device (`/dev/null`) are no conflict.
    let is_file =
        |path: &Path| output_target(path).is_ok_and(|target| target.kind == OutputKind::File);
    if let (Some(first), Some(second)) = (first, second)
        && first != Path::new("-")
        && same_file(first, second)
        && is_file(first)
    {
        return Err(CliError::Usage(format!(
            "{} and {} name the same file; give each output its own",
            first.display(),
            second.display()
        )));
    }
    Ok(())
}

/// A Kronecker or uniform random source, its options, and its default file name.
fn synthetic(
    kind: SyntheticKind,
    args: SyntheticArgs,
    name: &str,
) -> Result<(Box<dyn EdgeSource>, GenerateArgs, String, String), CliError> {
    let source = SyntheticSource::new(
        kind,
        args.scale,
        args.degree,
        args.common.weighted,
        args.common.seed,
    )?;
    let key = format!(
        "generate {name} scale {} degree {} weighted {} seed {}",
        args.scale, args.degree, args.common.weighted, args.common.seed
    );
    Ok((
        Box::new(source),
        args.common,
        format!("{name}{}.sl", args.scale),
        key,
    ))
}

/// `swapless generate ...`
pub fn generate(generator: Generator) -> CliResult {
    let (mut source, common, default_name, key): (Box<dyn EdgeSource>, _, String, String) =
        match generator {
            Generator::Kron(args) => synthetic(SyntheticKind::Kronecker, args, "kron")?,
            Generator::Urand(args) => synthetic(SyntheticKind::UniformRandom, args, "urand")?,
            Generator::Grid(args) => {
                let shortcuts = args
                    .shortcuts
                    .unwrap_or_else(|| GridSource::default_shortcuts(args.rows, args.cols));
                let key = format!(
                    "generate grid {} x {} shortcuts {shortcuts} weighted {} seed {}",
                    args.rows, args.cols, args.common.weighted, args.common.seed
                );
                (
                    Box::new(GridSource::new(
                        args.rows,
                        args.cols,
                        shortcuts,
                        args.common.weighted,
                        args.common.seed,
                    )?),
                    args.common,
                    format!("grid{}x{}.sl", args.rows, args.cols),
                    key,
                )
            }
        };
    let output = common
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(default_name));
    let budget = memory_budget(common.output_options.memory.as_deref())?;
    run_build(
        Input::Source(source.as_mut()),
        &output,
        &common.output_options,
        budget,
        Some(key),
    )
}

/// `swapless build INPUT -o OUTPUT`
pub fn build(command: BuildCommand) -> CliResult {
    if let Some(url) = command
        .input
        .to_str()
        .filter(|text| swapless_far::is_far_address(text))
    {
        return Err(CliError::Usage(format!(
            "build reads an edge list from a local file, not from a URL such as {url}; build the .sl file locally, then store it with `swapless far push GRAPH.sl URL`"
        )));
    }
    if same_file(&command.input, &command.output) {
        return Err(CliError::Usage(format!(
            "{} and {} are the same file; write the output to a different file from the input",
            command.input.display(),
            command.output.display()
        )));
    }
    let options = ImportOptions {
        undirected: command.undirected,
        weighted: command.weighted,
        ids: match command.ids {
            IdsChoice::Auto => IdMode::Auto,
            IdsChoice::Dense => IdMode::Dense,
            IdsChoice::Compact => IdMode::Compact,
        },
    };
    let budget = memory_budget(command.output_options.memory.as_deref())?;
    let columns = TableColumns {
        source: command.source_col.as_deref().map(ColumnChoice::parse),
        target: command.target_col.as_deref().map(ColumnChoice::parse),
        weight: command.weight_col.as_deref().map(ColumnChoice::parse),
        header: match (command.header, command.no_header) {
            (true, _) => HeaderChoice::Yes,
            (_, true) => HeaderChoice::No,
            _ => HeaderChoice::Auto,
        },
    };
    let key = input_key(&command.input).map(|input| {
        format!(
            "build {input} undirected {} weighted {} ids {:?} columns {columns:?}",
            command.undirected, command.weighted, options.ids
        )
    });
    run_build(
        Input::File(&command.input, options, &columns),
        &command.output,
        &command.output_options,
        budget,
        key,
    )
}

/// What a build reads.
enum Input<'a> {
    /// A generator (or any source made beforehand).
    Source(&'a mut dyn EdgeSource),
    /// A file, opened by the build (which may read it again to compact its ids), and
    /// the columns of a table.
    File(&'a Path, ImportOptions, &'a TableColumns),
}

/// The input file as a build's resume key names it: where it is (the build's journal
/// records its identity, times and contents); `None` for what cannot be read again the
/// same way (a pipe).
fn input_key(input: &Path) -> Option<String> {
    std::fs::metadata(input)
        .ok()
        .filter(|metadata| metadata.is_file())?;
    let path = std::fs::canonicalize(input).ok()?;
    Some(path.display().to_string())
}

/// Builds `output` from `source` within `budget_bytes` (the `--memory` of `options`,
/// parsed once by the caller).
fn run_build(
    input: Input,
    output: &Path,
    options: &OutputOptions,
    budget_bytes: u64,
    input_key: Option<String>,
) -> CliResult {
    // Every output is checked before the input is read.
    seekable_output_target(output)?;
    if output.extension().is_none_or(|ext| ext != "sl") {
        return Err(CliError::Usage(format!(
            "the output {} should end in .sl so swapless recognizes it",
            output.display()
        )));
    }
    let lists = parse_list_form(&options.lists)?;
    prepare_json(options.json.as_deref())?;
    distinct_outputs(options.json.as_deref(), Some(output), "-o")?;
    let progress = Arc::new(TerminalProgress::new());
    let mut build_options = BuildOptions::with_memory(budget_bytes);
    build_options.temp_dir = options.tmp_dir.clone();
    build_options.reorder = match options.reorder {
        Some(ReorderChoice::Dbg) => Reorder::DegreeBasedGrouping,
        None => Reorder::None,
    };
    build_options.out_heads = match options.out_heads {
        OutHeadsChoice::Auto => OutHeads::Auto,
        OutHeadsChoice::Always => OutHeads::Always,
        OutHeadsChoice::Never => OutHeads::Never,
    };
    build_options.lists = lists;
    build_options.self_loops = match options.self_loops {
        SelfLoopsChoice::Drop => SelfLoops::Drop,
        SelfLoopsChoice::Keep => SelfLoops::Keep,
    };
    build_options.cancel = Some(interrupt_flag(Some(INTERRUPT_GRACE)));
    build_options.progress = Some(progress.clone());
    // The runs of a killed build are reused only by a build of the same input into the
    // same output with the same options (the budget aside: runs are runs).
    build_options.resume_key = input_key.map(|input| {
        let output_folder =
            std::fs::canonicalize(swapless_format::output::folder_of(output)).unwrap_or_default();
        let output_name = output.file_name().unwrap_or_default().to_string_lossy();
        format!(
            "{input}; reorder {:?}; out_heads {:?}; self-loops {}; output {}",
            build_options.reorder,
            build_options.out_heads,
            build_options.self_loops.name(),
            output_folder.join(&*output_name).display()
        )
    });
    build_options.resume = options.resume;
    if let Input::File(path, ..) = &input
        && build_options.resume_key.is_some()
    {
        build_options.input_file = Some(path.to_path_buf());
    }
    let result = match input {
        Input::Source(source) => build_graph(source, output, &build_options),
        Input::File(path, import, columns) => {
            build_input(path, import, columns, output, &build_options)
        }
    };
    progress.finish();
    let report = result?;
    let peak_rss = peak_rss_bytes().unwrap_or(0);
    print_build_report(output, &report, peak_rss);
    if let Some(path) = &options.json {
        write_json(path, &report.to_json(output, peak_rss))?;
    }
    Ok(())
}

fn print_build_report(output: &Path, report: &BuildReport, peak_rss: u64) {
    let kind = format!(
        "{}, {}{}",
        if report.directed {
            "directed"
        } else {
            "undirected"
        },
        if report.weighted {
            "weighted"
        } else {
            "unweighted"
        },
        if report.reordered {
            ", reordered by degree"
        } else {
            ""
        }
    );
    say!(
        "built {}: {} vertices, {} edges ({kind})",
        output.display(),
        thousands(report.vertices),
        thousands(report.edges)
    );
    match (report.ids, &report.compacted_because) {
        (IdKind::Dense, _) => {
            if let Some(because) = &report.kept_dense_because {
                say!(
                    "  ids: the input's own, as the vertices 0..{} ({because})",
                    thousands(report.vertices.saturating_sub(1))
                );
            }
        }
        (kind, because) => say!(
            "  ids: the input's {} mapped to 0..{} and kept in the file{}{}",
            if kind == IdKind::Names {
                "names"
            } else {
                "integers"
            },
            thousands(report.vertices.saturating_sub(1)),
            because
                .as_ref()
                .map_or(String::new(), |because| format!(" ({because})")),
            match report.id_ranges {
                0 | 1 => String::new(),
                ranges => format!(
                    "; beyond the budget, so resolved in {ranges} ranges, one more pass over the input each but the last"
                ),
            }
        ),
    }
    let self_loops = match report.self_loops {
        0 => format!(
            "self-loops dropped {}",
            thousands(report.self_loops_dropped)
        ),
        kept => format!("self-loops kept {} (one a vertex)", thousands(kept)),
    };
    say!(
        "  input edges {}; {self_loops}; duplicate edges dropped {}",
        thousands(report.input_edges),
        thousands(report.duplicate_edges_dropped)
    );
    if report.weights_ignored {
        say!("  weights ignored; pass --weighted to keep them");
    }
    say!(
        "  {:.1} s ({:.2} M input edges/s); peak RSS {} of a {} budget; {} sorted runs spilled; output {}",
        report.seconds,
        report.input_edges as f64 / report.seconds.max(1e-9) / 1e6,
        bytes(peak_rss),
        bytes(report.memory_budget_bytes),
        report.runs_spilled,
        bytes(report.output_bytes)
    );
    say!(
        "  lists: {} ({}, {:.2} bytes an arc)",
        report.list_form.name(),
        bytes(report.list_bytes),
        report.list_bytes_per_arc
    );
    let removed = report.abandoned_temporaries_removed;
    if removed.temporaries > 0 {
        say!("  removed {removed} left by earlier builds that were killed");
    }
}

/// Degree statistics over a CSR offsets array.
struct DegreeStats {
    max: u64,
    mean: f64,
    zero: u64,
    /// `histogram[0]` counts degree 0, `histogram[k]` degrees in `2^(k-1)..2^k`.
    histogram: Vec<u64>,
}

/// `None` when the offsets fall somewhere (a damaged or crafted file).
fn degree_stats(offsets: &[u64]) -> Option<DegreeStats> {
    let vertices = offsets.len().saturating_sub(1);
    let mut histogram = vec![0u64; 66];
    let mut max = 0;
    for pair in offsets.windows(2) {
        let degree = pair[1].checked_sub(pair[0])?;
        max = max.max(degree);
        let bucket = if degree == 0 {
            0
        } else {
            64 - degree.leading_zeros() as usize
        };
        histogram[bucket] += 1;
    }
    let used = histogram
        .iter()
        .rposition(|&count| count > 0)
        .map_or(1, |last| last + 1);
    histogram.truncate(used);
    Some(DegreeStats {
        max,
        mean: offsets.last().copied().unwrap_or(0) as f64 / vertices.max(1) as f64,
        zero: histogram[0],
        histogram,
    })
}

/// Each kernel's footprint on `graph`: what a run held entirely in DRAM holds, as the
/// plan counts it (`swapless plan KERNEL GRAPH` says the same).
fn kernel_footprints(graph: &GraphFile) -> Result<Vec<(&'static str, u64)>, CliError> {
    // Planned under a budget nothing exceeds: the graphs this is for are those whose
    // footprint the machine's memory does not hold, which the default budget refuses.
    let unbounded = Some(u64::MAX / 4);
    swapless_run::Kernel::all()
        .map(|kernel| {
            let placement =
                swapless_run::Placement::new(unbounded, Some(swapless_store::Tier::Dram));
            let plan = placement.plan(graph, kernel)?;
            Ok((kernel.name(), plan.footprint_bytes()))
        })
        .collect()
}

/// `swapless info FILE`
pub fn info(path: &Path, json_path: Option<&Path>) -> CliResult {
    prepare_json(json_path)?;
    // A graph from elsewhere (far memory) is described from its local file (the cache
    // of its vertex sections).
    let origin = swapless_run::open_origin(
        path,
        &swapless_store::OriginOptions::default(),
        &crate::progress::Notes,
    )?;
    let graph = GraphFile::open(origin.local_file())?;
    let header = graph.header();
    let flags = graph.flags();
    let stats = degree_stats(graph.out_offsets()).ok_or_else(|| FormatError::Corrupt {
        path: path.to_path_buf(),
        detail: "section out_offsets falls somewhere, so it describes no lists".to_string(),
    })?;
    let list_form = ListForm::of(&graph);
    let footprints = kernel_footprints(&graph)?;
    let footprint = footprints.iter().map(|(_, bytes)| *bytes).max();
    let label = |bucket: usize| -> String {
        match bucket {
            0 => "0".to_string(),
            1 => "1".to_string(),
            _ => format!("{}-{}", 1u64 << (bucket - 1), (1u64 << bucket) - 1),
        }
    };
    say!(
        "graph      {} (format v{}, {})",
        origin.shown(),
        header.version,
        bytes(graph.file_bytes())
    );
    if graph.checksum_block_bytes() != swapless_format::CHECKSUM_BLOCK_BYTES {
        // Older files still run; say what they miss and how to get it.
        say!(
            "checksums  one per {}: the disk tiers cannot check the lists they read \
             (`swapless build OLD.sl -o NEW.sl` writes a copy with one a page)",
            bytes(graph.checksum_block_bytes())
        );
    }
    say!(
        "checked    the header and layout now; the runs check each page they read, and the permutation; `swapless check` verifies the rest (every checksum, that lists are sorted and in range, and that in-lists, heads and an undirected graph's lists agree with the out-lists)"
    );
    say!("vertices   {}", thousands(graph.num_vertices() as u64));
    say!(
        "edges      {} ({}; {} stored arcs)",
        thousands(graph.num_edges()),
        if flags.directed {
            "directed"
        } else {
            "undirected"
        },
        thousands(graph.num_arcs() as u64)
    );
    say!(
        "self-loops {}",
        match graph.num_self_loops() {
            0 => "none (dropped when built, unless the input had none)".to_string(),
            kept => format!(
                "{} kept, one entry each in its vertex's list (PageRank and the other walks count them; paths, triangles and cores leave them out)",
                thousands(kept)
            ),
        }
    );
    say!(
        "weighted   {}; reordered by degree: {}",
        if flags.weighted { "yes (f32)" } else { "no" },
        if flags.reordered {
            "yes (results are reported in original ids)"
        } else {
            "no"
        }
    );
    say!(
        "ids        {}",
        match flags.ids {
            IdKind::Dense => "the input's own: 0 to n-1",
            IdKind::Integers =>
                "compacted from the input's integer ids, which the file keeps (--source, --out .csv and Python speak them)",
            IdKind::Names =>
                "compacted from the input's names, which the file keeps (--source, --out .csv and Python speak them)",
        }
    );
    say!(
        "lists      {}, {} ({:.2} bytes an arc{})",
        list_form.name(),
        bytes(graph.list_bytes()),
        graph.list_bytes_per_arc(),
        match list_form {
            ListForm::Plain => "",
            ListForm::Compressed => "; delta-coded in pages that each decode alone",
        }
    );
    let band_share = swapless_store::budget::band_share(&graph, SectionKind::OutNeighbors)?;
    let banded = band_share.is_some_and(|share| share >= swapless_store::budget::BANDED_SHARE);
    if let Some(share) = band_share {
        say!(
            "locality   {:.0}% of sampled neighbor ids lie near the ids whose lists hold them: {}",
            100.0 * share,
            if banded {
                "banded (a search on a disk tier caches the pages its steps read)"
            } else {
                "not banded"
            }
        );
    }
    say!(
        "out-degree max {}, mean {:.2}, {} vertices with none",
        thousands(stats.max),
        stats.mean,
        thousands(stats.zero)
    );
    say!("histogram  (vertices per out-degree range)");
    let widest = stats.histogram.iter().copied().max().unwrap_or(1).max(1);
    for (bucket, &count) in stats.histogram.iter().enumerate() {
        let bar = "#".repeat(((count as f64 / widest as f64) * 40.0).ceil() as usize);
        say!("  {:>21} {:>14} {bar}", label(bucket), thousands(count));
    }
    say!("sections");
    for entry in &header.sections {
        say!(
            "  {:<14} {:>12}  at byte {}",
            entry.name,
            bytes(entry.length),
            thousands(entry.offset)
        );
    }
    let each: Vec<String> = footprints
        .iter()
        .map(|(kernel, footprint)| format!("{kernel} {}", bytes(*footprint)))
        .collect();
    say!(
        "in memory  a run held entirely in DRAM: {} (each kernel's footprint, as `swapless plan` counts it{})",
        each.join(", "),
        match list_form {
            ListForm::Plain => "",
            ListForm::Compressed => "; compressed lists are decoded at load",
        }
    );
    let weights_bytes: u64 = [SectionKind::OutWeights, SectionKind::InWeights]
        .into_iter()
        .filter_map(|kind| header.section(kind))
        .map(|entry| entry.length)
        .sum();
    if weights_bytes > 0 {
        say!(
            "           of which {} are weights, which only the kernels by weight read (sssp, wpr64, wbc, wclustering, wcloseness, wneighbor-degree, wlouvain): the others leave them on disk",
            bytes(weights_bytes)
        );
    }
    if let Some(json_path) = json_path {
        let sections: Vec<_> = header
            .sections
            .iter()
            .map(|entry| json!({"name": entry.name, "offset": entry.offset, "bytes": entry.length}))
            .collect();
        let value = json!({
            "graph": origin.shown(),
            "origin": origin.kind(),
            "version": header.version,
            "vertices": graph.num_vertices(),
            "edges": graph.num_edges(),
            "arcs": graph.num_arcs(),
            "self_loops": graph.num_self_loops(),
            "directed": flags.directed,
            "weighted": flags.weighted,
            "reordered": flags.reordered,
            "ids": match flags.ids {
                IdKind::Dense => "dense",
                IdKind::Integers => "integers",
                IdKind::Names => "names",
            },
            "file_bytes": graph.file_bytes(),
            "lists": list_form.name(),
            "list_bytes": graph.list_bytes(),
            "list_bytes_per_arc": graph.list_bytes_per_arc(),
            "max_degree": stats.max,
            "mean_degree": stats.mean,
            "zero_degree_vertices": stats.zero,
            "degree_histogram_log2": stats.histogram,
            "band_share": band_share,
            "banded": banded,
            "sections": sections,
            "footprint_bytes": footprint,
            "footprint_bytes_by_kernel": footprints.iter().map(|(kernel, bytes)| (kernel.to_string(), json!(bytes))).collect::<serde_json::Map<String, serde_json::Value>>(),
        });
        write_json(json_path, &value)?;
    }
    Ok(())
}

/// `swapless check FILE`
pub fn check(path: &Path, far_timeout: &str) -> CliResult {
    if let Some(text) = path
        .to_str()
        .filter(|text| swapless_far::is_far_address(text))
    {
        let address = swapless_far::FarAddress::parse_graph(text)
            .map_err(swapless_store::StoreError::from)?;
        let timeout = crate::far::parse_far_timeout(far_timeout)?;
        let checked = swapless_far::check(&address, timeout)?;
        say!(
            "ok: {} verified ({} chunks against the manifest's checksums, {} pages against \
             the graph's page checksums)",
            address.display(),
            thousands(checked.chunks),
            thousands(checked.pages)
        );
        return Ok(());
    }
    let report = check_file(path)?;
    say!(
        "ok: {} verified ({} checksum blocks, {} vertices, {} arcs)",
        path.display(),
        thousands(report.blocks_verified),
        thousands(report.vertices),
        thousands(report.arcs)
    );
    let _ = std::io::stdout().flush();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degree_histogram_buckets_by_powers_of_two() {
        // degrees 0, 1, 2, 3, 4
        let stats = degree_stats(&[0, 0, 1, 3, 6, 10]).unwrap();
        assert_eq!(stats.histogram, vec![1, 1, 2, 1]);
        assert_eq!(stats.max, 4);
        assert_eq!(stats.zero, 1);
        assert!((stats.mean - 2.0).abs() < 1e-12);
    }
}
