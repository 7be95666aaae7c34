//! The `swapless` command line: generate, build, inspect, check, plan, run and bench.
//! A library too, so that `python -m swapless` runs the very same commands.

mod bench;
mod commands;
mod errors;
mod far;
mod npy;
mod parameters;
mod progress;
mod run;
mod table;
mod text;

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Graph analytics for graphs that do not fit in memory.
#[derive(Parser)]
#[command(name = "swapless", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate a synthetic graph (GAP's definitions) straight into a .sl file.
    Generate {
        #[command(subcommand)]
        generator: Generator,
    },
    /// Build a .sl file from an edge list, Matrix Market or GAP .sg/.wsg file (optionally .gz/.zst).
    Build(BuildCommand),
    /// Print a graph's size, degree statistics and section sizes.
    Info {
        /// The .sl file.
        graph: PathBuf,
        /// Also write the facts as JSON to this file ("-" for standard output).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
    /// Run a kernel on a graph and report times, memory and the result.
    Run(run::RunCommand),
    /// Print where each data segment of a kernel's run would live under a memory budget.
    Plan(run::PlanCommand),
    /// Compare modes (dram, OS swap, mmap, direct) side by side under memory cgroups.
    Bench(bench::BenchCommand),
    /// Store graphs in the memory of a Redis server or cluster, list and remove them.
    Far {
        #[command(subcommand)]
        command: far::FarCommand,
    },
    /// Verify every checksum and structural invariant of a .sl file, or of a graph in far memory.
    Check {
        /// The .sl file, or redis://HOST:PORT/NAME for a graph in far memory.
        graph: PathBuf,
        /// How long a far graph's server may take to answer each request.
        #[arg(long, value_name = "TIME", default_value = "10s", help = far::FAR_TIMEOUT_HELP)]
        far_timeout: String,
    },
}

#[derive(Subcommand)]
enum Generator {
    /// Kronecker graph (Graph500 RMAT A=0.57 B=0.19 C=0.19), undirected, ids permuted.
    Kron(SyntheticArgs),
    /// Uniform random graph, undirected.
    Urand(SyntheticArgs),
    /// 2-D grid with a few random shortcuts: high diameter, like a road network.
    Grid(GridArgs),
}

#[derive(Args)]
struct SyntheticArgs {
    /// 2^scale vertices.
    #[arg(long)]
    scale: u32,
    /// Edges per vertex before symmetrizing (GAP's -k).
    #[arg(long, default_value_t = 16)]
    degree: u32,
    #[command(flatten)]
    common: GenerateArgs,
}

#[derive(Args)]
struct GridArgs {
    /// Rows of the mesh.
    #[arg(long)]
    rows: u64,
    /// Columns of the mesh.
    #[arg(long)]
    cols: u64,
    /// Random extra edges (default: one per million vertices, at least one).
    #[arg(long)]
    shortcuts: Option<u64>,
    #[command(flatten)]
    common: GenerateArgs,
}

#[derive(Args)]
struct GenerateArgs {
    /// Output .sl file (default: named after the generator, in the current directory).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Add uniform integer weights 1..255.
    #[arg(long)]
    weighted: bool,
    /// Random seed; the same seed gives the same graph bit for bit.
    #[arg(long, default_value_t = swapless_build::generators::DEFAULT_SEED)]
    seed: u64,
    #[command(flatten)]
    output_options: OutputOptions,
}

#[derive(Args)]
struct BuildCommand {
    /// Input: a text edge list (.el, .txt), a table (.csv, .tsv; a .parquet file or a
    /// folder of Parquet part files), Matrix Market (.mtx), GAP (.sg, .wsg) or .sl;
    /// .gz/.zst are decompressed.
    input: PathBuf,
    /// Output .sl file.
    #[arg(short, long)]
    output: PathBuf,
    /// Each input edge stands for both directions.
    #[arg(long)]
    undirected: bool,
    /// Keep the input's edge weights (third column, Matrix Market values, .wsg weights).
    #[arg(long)]
    weighted: bool,
    /// What a text or table input's ids are: `dense` ids are the vertices 0..max id;
    /// `compact` maps any ids (64-bit integers, names) to 0..n and keeps them in the
    /// file, so results speak them again; `auto` keeps integers dense when the distinct
    /// ids fill at least half of 0..max id, and compacts the rest (names, ids beyond 32
    /// bits, sparser ids); the build says which it chose.
    #[arg(long, value_enum, default_value = "auto")]
    ids: IdsChoice,
    /// A table's (.csv, .tsv, .parquet) source column: its header's name, or its position from 1 (default 1).
    #[arg(long, value_name = "COLUMN")]
    source_col: Option<String>,
    /// A table's target column (default 2).
    #[arg(long, value_name = "COLUMN")]
    target_col: Option<String>,
    /// A table's weight column, read with --weighted (default 3).
    #[arg(long, value_name = "COLUMN")]
    weight_col: Option<String>,
    /// The table's first row is a header (found by itself when its ids are numbers, or a
    /// column is chosen by name).
    #[arg(long, conflicts_with = "no_header")]
    header: bool,
    /// Every row of the table is an edge.
    #[arg(long)]
    no_header: bool,
    #[command(flatten)]
    output_options: OutputOptions,
}

#[derive(Clone, Copy, ValueEnum)]
enum IdsChoice {
    /// Dense when the integer ids fill at least half of 0..max id; else compact.
    Auto,
    /// The ids are the vertices.
    Dense,
    /// Map the ids to 0..n, kept in the file.
    Compact,
}

#[derive(Args)]
struct OutputOptions {
    /// Peak memory for the build, e.g. 512M or 2G (default: half of the memory this process may use).
    #[arg(long, value_name = "SIZE")]
    memory: Option<String>,
    /// Directory for temporary runs (default: next to the output). They take about as
    /// much disk as the output, and are given back as the output is written.
    #[arg(long, value_name = "DIR")]
    tmp_dir: Option<PathBuf>,
    /// Renumber vertices: `dbg` groups them by degree, hottest first (results stay in original ids).
    #[arg(long, value_enum)]
    reorder: Option<ReorderChoice>,
    /// Write each vertex's first two out-neighbors apart (the `out_heads` section), which
    /// a disk tier reads for cc's first pass instead of the lists: `auto` when the lists
    /// average 8 entries or more.
    #[arg(long, value_enum, default_value = "auto")]
    out_heads: OutHeadsChoice,
    /// How the output stores its neighbor lists: `plain` (4 bytes an id; format v2, which
    /// every swapless reads) or `compressed` (delta-coded in pages that each decode alone;
    /// format v4, about half the bytes on kron, so half the reading out of memory).
    #[arg(long, value_name = "FORM", default_value = "plain")]
    lists: String,
    /// What to do with an edge from a vertex to itself: `drop` it (what GAP and most
    /// kernels assume) or `keep` it once per vertex, as networkx does (PageRank and the
    /// other walks then count it; paths, triangles and cores leave it out).
    #[arg(long, value_enum, default_value = "drop")]
    self_loops: SelfLoopsChoice,
    /// Also write the build report as JSON to this file ("-" for standard output).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Continue a build of this output from the same input and options that was killed,
    /// reusing the sorted runs it spilled and reading past the input they hold (from
    /// the beginning if there is none).
    #[arg(long)]
    resume: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum OutHeadsChoice {
    /// When the out-lists average 8 entries or more.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

#[derive(Clone, Copy, ValueEnum)]
enum SelfLoopsChoice {
    /// Drop them.
    Drop,
    /// Keep them.
    Keep,
}

#[derive(Clone, Copy, ValueEnum)]
enum ReorderChoice {
    /// Degree-based grouping.
    Dbg,
}

/// The command that starts `swapless` again, without arguments (the bench harness runs
/// each trial as a fresh process).
pub(crate) fn relaunch_command() -> Result<Vec<OsString>, std::io::Error> {
    Ok(vec![std::env::current_exe()?.into_os_string()])
}

/// Runs the command line `args` (the program name first) and returns the exit code.
pub fn main_with(args: Vec<OsString>) -> u8 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() { 2 } else { 0 };
        }
    };
    quiet_panics();
    let outcome = std::panic::catch_unwind(|| match cli.command {
        Command::Generate { generator } => commands::generate(generator),
        Command::Build(command) => commands::build(command),
        Command::Info { graph, json } => commands::info(&graph, json.as_deref()),
        Command::Check { graph, far_timeout } => commands::check(&graph, &far_timeout),
        Command::Run(command) => run::run(command),
        Command::Plan(command) => run::plan(command),
        Command::Bench(command) => bench::bench(command),
        Command::Far { command } => far::far(command),
    });
    let panic = PANIC_MESSAGE
        .lock()
        .map(|mut message| message.take())
        .unwrap_or_default();
    match outcome {
        Ok(Ok(())) => 0,
        Ok(Err(error)) => {
            eprintln!("error: {error}");
            // A file that changed under a run may make a kernel panic; that is said
            // by the error. Any other panic is a bug, and is shown.
            if let (Some(panic), false) = (panic, error.is_changed_file()) {
                eprintln!("  a thread stopped: {panic}");
            }
            error.exit_code()
        }
        Err(_) => {
            let panic = panic.unwrap_or_else(|| "unknown".to_string());
            eprintln!(
                "error: internal error ({panic}); please report it with the command that caused it"
            );
            101
        }
    }
}

/// The first panic's message and place, kept for one line at the end instead of the
/// default hook's several lines in the middle of the report.
static PANIC_MESSAGE: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Keeps panics' messages for [`main_with`] to say in one line.
fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let text = info.to_string().replace('\n', "; ");
        if let Ok(mut message) = PANIC_MESSAGE.lock() {
            message.get_or_insert(text);
        }
    }));
}
