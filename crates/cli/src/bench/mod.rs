//! `swapless bench`: every mode on the same graph, kernel and memory budget, side by
//! side. Each trial is a fresh `swapless run` process inside a memory cgroup whose limit
//! is a percentage of the kernel's in-memory peak RSS, with caches dropped first, and
//! the harness records the run's report with the machine's counters around it.

mod cgroup;
mod far;
mod figures;
mod records;
mod swap_file;
mod system_counters;

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use serde_json::Value;
use swapless_format::GraphFile;
use swapless_system::parse_size;

use crate::errors::CliError;
use crate::run::Kernel;
use crate::text::bytes;
use cgroup::{Cgroup, Hierarchy};
use records::{CSV_COLUMNS, csv_cell, record_json, trial_label, write_environment};
use swap_file::SwapFile;
use swapless_store::Tier;
use system_counters::{Disk, Snapshot, SystemFigures};

/// What the engine's budget leaves of a cgroup limit: the budget covers the whole
/// process (asserted in tests/tiers.rs), but the cgroup also counts page cache a tier has
/// read and not yet dropped, which the budget does not.
const RUNTIME_ALLOWANCE_BYTES: u64 = 16 << 20;

/// The `--chunks` value that leaves the read size to the run's plan.
const AUTO_CHUNK: &str = "auto";

/// Options of `swapless bench`.
#[derive(Args)]
pub struct BenchCommand {
    /// The .sl graph.
    #[arg(long, required_unless_present = "figures_only")]
    graph: Option<PathBuf>,
    /// Kernels, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "bfs,pr,cc")]
    kernels: Vec<Kernel>,
    /// Memory limits as percentages of each kernel's in-memory peak RSS (measured first), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "100,50,30,10")]
    budgets: Vec<f64>,
    /// Modes, comma-separated: dram (no limit), swap (dram tier on OS swapping), mmap,
    /// direct, far (with --far or --far-local).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "dram,swap,mmap,direct"
    )]
    modes: Vec<Mode>,
    /// Swap mode: threads per core to try (overcommit factors), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,16")]
    ocf: Vec<usize>,
    /// Fresh processes per configuration.
    #[arg(long, default_value_t = 3)]
    trials: u32,
    /// Directory for trials.csv, trials.jsonl, the reports, logs and figures.
    #[arg(long, default_value = "bench-out")]
    out: PathBuf,
    /// Swap mode: make a swap file at this new path for the run, removed afterwards.
    #[arg(long, value_name = "PATH")]
    swap_file: Option<PathBuf>,
    /// Size of that swap file or device (default: twice the largest in-memory peak RSS).
    #[arg(long, value_name = "SIZE")]
    swap_size: Option<String>,
    /// Swap mode: swap on the zram device (compressed memory; no disk, no network)
    /// instead of a file, set up for the run and reset afterwards.
    #[arg(long, value_name = "DEVICE", value_parser = ["zram"], conflicts_with = "swap_file")]
    swap_device: Option<String>,
    /// mmap and direct: read sizes to sweep, comma-separated (e.g. 4K,32K,256K,1M); auto
    /// is run's default (256K, or 16K for a search on a banded graph).
    #[arg(long, value_delimiter = ',', default_value = "auto")]
    chunks: Vec<String>,
    /// Huge-page fractions to sweep (run --hugepages), comma-separated; run's default is 1.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    hugepages: Vec<f64>,
    /// Seconds after which a trial is stopped and recorded as timed out.
    #[arg(long, default_value_t = 600)]
    timeout: u64,
    /// Cores to use: dram, mmap and direct run this many threads, swap this many times
    /// each --ocf (default: every core).
    #[arg(long)]
    cores: Option<usize>,
    /// Write the CSV and JSON lines only, no PNG figures.
    #[arg(long)]
    no_figures: bool,
    /// Only redraw the figures from an earlier run's --out directory.
    #[arg(long, conflicts_with = "no_figures")]
    figures_only: bool,
    /// Far mode: a Redis server or cluster (redis://HOST:PORT) to push the graph to.
    #[arg(long, value_name = "URL", conflicts_with = "far_local")]
    far: Option<String>,
    /// Far mode: start N redis-server processes on loopback for the bench (one plain
    /// server, or N masters joined into a cluster), stopped when it ends.
    #[arg(long, value_name = "N")]
    far_local: Option<usize>,
}

/// How a trial gets its edges and memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// The dram tier with no limit: the oracle every other mode is compared with.
    Dram,
    /// The dram tier in anonymous memory under the limit, paging through OS swap.
    Swap,
    /// The mmap tier under the limit.
    Mmap,
    /// The direct tier (O_DIRECT, io_uring) under the limit.
    Direct,
    /// The direct tier on a far graph under the limit: the lists in a Redis server's or
    /// cluster's memory.
    Far,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Dram => "dram",
            Mode::Swap => "swap",
            Mode::Mmap => "mmap",
            Mode::Direct => "direct",
            Mode::Far => "far",
        }
    }

    /// The tier `run` is told to use.
    fn tier(self) -> Tier {
        match self {
            Mode::Dram | Mode::Swap => Tier::Dram,
            Mode::Mmap => Tier::Mmap,
            Mode::Direct => Tier::Direct,
            // A far graph's origin is served by the direct tier's pipeline.
            Mode::Far => Tier::Direct,
        }
    }
}

/// One configuration to run as a fresh process.
#[derive(Clone, Debug)]
struct TrialSpec {
    kernel: Kernel,
    mode: Mode,
    /// Threads per core (swap mode's overcommit factor; 1 otherwise).
    ocf: usize,
    threads: usize,
    budget_percent: Option<f64>,
    /// The cgroup's memory limit.
    limit_bytes: Option<u64>,
    /// What `run --memory` gets: the limit less the runtime allowance; in swap mode, the
    /// harness's own default budget (the engine is not told the trial's limit).
    engine_memory_bytes: Option<u64>,
    chunk: Option<String>,
    hugepages: f64,
    trial: u32,
}

/// How a trial ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Ok,
    /// The plan refused the budget: hot and warm data alone do not fit.
    Refused,
    /// Stopped after --timeout.
    Timeout,
    /// Killed by the kernel's out-of-memory killer inside its cgroup.
    OutOfMemory,
    /// Any other failure; the log has the run's message.
    Failed,
}

impl Status {
    fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Refused => "refused",
            Status::Timeout => "timeout",
            Status::OutOfMemory => "out-of-memory",
            Status::Failed => "failed",
        }
    }
}

/// A finished (or refused) trial, as the CSV and JSON lines record it.
struct TrialRecord {
    spec: TrialSpec,
    status: Status,
    /// Kernel seconds from the run's report (load excluded).
    seconds: Option<f64>,
    /// The whole process, load included.
    wall_seconds: f64,
    /// This trial's seconds over the dram median of the same kernel.
    slowdown: Option<f64>,
    cgroup_peak_bytes: Option<u64>,
    caches_dropped: bool,
    system: SystemFigures,
    report: Option<Value>,
    message: String,
}

/// What every trial shares: where to write, what the machine offers.
struct Harness {
    /// How to start `swapless` (the binary, or `python -m swapless`).
    executable: Vec<std::ffi::OsString>,
    graph: PathBuf,
    out: PathBuf,
    hierarchy: Option<Hierarchy>,
    disk: Option<Disk>,
    timeout: Duration,
    interrupted: std::sync::Arc<AtomicBool>,
    csv: File,
    jsonl: File,
    trials_run: usize,
    /// Where far mode's graph is stored (and the servers started for it).
    far: Option<far::FarTarget>,
}

/// `swapless bench`.
pub fn bench(command: BenchCommand) -> Result<(), CliError> {
    if command.figures_only {
        return draw_figures(&command.out);
    }
    validate(&command)?;
    let graph_path = command.graph.clone().unwrap_or_default();
    GraphFile::open(&graph_path)?;
    let executable = crate::relaunch_command()
        .map_err(|error| CliError::Other(format!("cannot find the swapless binary: {error}")))?;
    for folder in ["reports", "logs"] {
        let path = command.out.join(folder);
        std::fs::create_dir_all(&path).map_err(|error| CliError::Io(path, error))?;
    }
    let create = |name: &str| {
        let path = command.out.join(name);
        File::create(&path).map_err(|error| CliError::Io(path, error))
    };
    let mut csv = create("trials.csv")?;
    writeln!(csv, "{}", CSV_COLUMNS.join(","))
        .map_err(|error| CliError::Io(command.out.join("trials.csv"), error))?;

    let hierarchy = Hierarchy::detect();
    let cores = command
        .cores
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut harness = Harness {
        executable,
        graph: graph_path.clone(),
        out: command.out.clone(),
        disk: Disk::holding(&graph_path),
        timeout: Duration::from_secs(command.timeout),
        interrupted: crate::commands::interrupt_flag(None),
        csv,
        jsonl: create("trials.jsonl")?,
        hierarchy,
        trials_run: 0,
        far: None,
    };
    let mut modes = enforceable_modes(&command, &harness);
    if modes.contains(&Mode::Far) {
        match far::FarTarget::prepare(
            &graph_path,
            command.far.as_deref(),
            command.far_local,
            &command.out.join("far-servers"),
        ) {
            Ok(target) => harness.far = Some(target),
            Err(error) => {
                eprintln!("note: far mode skipped: {error}");
                modes.retain(|&mode| mode != Mode::Far);
            }
        }
    }
    if let Some(hierarchy) = &harness.hierarchy {
        hierarchy.remove_stale();
    }
    write_environment(&command, &harness, cores)?;

    let mut swap: Option<SwapFile> = None;
    let mut swap_failed = false;
    let mut least_budgets = std::collections::HashMap::new();
    for &kernel in &command.kernels {
        let graph = GraphFile::open(&graph_path)?;
        for &hugepages in &command.hugepages {
            let oracle = run_dram(&mut harness, &command, kernel, hugepages, cores)?;
            let Some((footprint, dram_seconds)) = oracle else {
                eprintln!(
                    "{}: no successful dram trial, so no footprint to take percentages of; skipping its other modes",
                    kernel.name()
                );
                continue;
            };
            if modes.contains(&Mode::Swap) && swap.is_none() && !swap_failed {
                match prepare_swap(&command, footprint) {
                    Ok(made) => swap = made,
                    Err(message) => {
                        eprintln!("note: swap mode skipped: {message}");
                        swap_failed = true;
                    }
                }
            }
            let limited_modes: Vec<Mode> = modes
                .iter()
                .copied()
                .filter(|&mode| mode != Mode::Dram && !(mode == Mode::Swap && swap_failed))
                .collect();
            let limited = harness.hierarchy.is_some();
            let specs = limited_specs(
                &command,
                &limited_modes,
                kernel,
                hugepages,
                footprint,
                cores,
                limited,
            );
            for spec in specs {
                let far_url = harness.far.as_ref().map(|far| far.url.clone());
                let record = match refusal(&graph, far_url.as_deref(), &spec, &mut least_budgets)? {
                    Some(least) => {
                        harness.trials_run += 1;
                        let record = refused(spec, least);
                        let label = trial_label(&record.spec);
                        eprintln!("[{}] {label}: {}", harness.trials_run, record.message);
                        record
                    }
                    None => harness.run_trial(spec)?,
                };
                harness.record(record, Some(dram_seconds))?;
            }
        }
    }
    drop(swap);
    eprintln!(
        "{} trials written to {} and {}",
        harness.trials_run,
        command.out.join("trials.csv").display(),
        command.out.join("trials.jsonl").display()
    );
    if !command.no_figures
        && let Err(error) = draw_figures(&command.out)
    {
        eprintln!("figures skipped: {error}");
    }
    Ok(())
}

/// Draws the PNG figures from `out`/trials.csv and names them.
fn draw_figures(out: &Path) -> Result<(), CliError> {
    let csv = out.join("trials.csv");
    if !csv.is_file() {
        return Err(CliError::Usage(format!(
            "{} does not exist; run `swapless bench --graph G.sl --out {}` first",
            csv.display(),
            out.display()
        )));
    }
    for path in figures::draw(out).map_err(CliError::Other)? {
        eprintln!("figure: {}", path.display());
    }
    Ok(())
}

fn validate(command: &BenchCommand) -> Result<(), CliError> {
    let usage = |message: &str| Err(CliError::Usage(message.to_string()));
    if command.trials == 0 {
        return usage("--trials must be at least 1");
    }
    if command.kernels.is_empty() || command.modes.is_empty() {
        return usage("--kernels and --modes each need at least one name");
    }
    if command
        .budgets
        .iter()
        .any(|&budget| !(budget > 0.0 && budget <= 1000.0))
    {
        return usage(
            "--budgets are percentages of the in-memory footprint, each above 0 (e.g. 100,50,30,10)",
        );
    }
    if command.ocf.iter().any(|&ocf| !(1..=256).contains(&ocf)) {
        return usage("--ocf values are threads per core, between 1 and 256");
    }
    if command
        .hugepages
        .iter()
        .any(|fraction| !(0.0..=1.0).contains(fraction))
    {
        return usage("--hugepages values are fractions between 0 and 1");
    }
    if let Some(chunk) = command.chunks.iter().find(|chunk| {
        chunk.as_str() != AUTO_CHUNK
            && parse_size(chunk)
                .is_none_or(|size| !(4 << 10..=4 << 20).contains(&size) || size % 4096 != 0)
    }) {
        return Err(CliError::Usage(format!(
            "--chunks {chunk:?}: each must be a multiple of 4K between 4K and 4M"
        )));
    }
    if command.swap_size.is_some() && command.swap_file.is_none() && command.swap_device.is_none() {
        return usage(
            "--swap-size sizes the file made by --swap-file PATH (or --swap-device zram); give both",
        );
    }
    if let Some(size) = &command.swap_size
        && parse_size(size).is_none_or(|size| size < 1 << 20)
    {
        return Err(CliError::Usage(format!(
            "--swap-size {size:?} is not a size of at least 1M; write it like 16G"
        )));
    }
    if command.timeout == 0 {
        return usage("--timeout must be at least 1 second");
    }
    if command
        .far_local
        .is_some_and(|nodes| nodes == 0 || nodes == 2 || nodes > 64)
    {
        return usage("--far-local is 1 (one server) or 3 to 64 (a cluster's masters)");
    }
    Ok(())
}

/// The modes that can run here, after saying which cannot be enforced and why.
fn enforceable_modes(command: &BenchCommand, harness: &Harness) -> Vec<Mode> {
    let mut modes: Vec<Mode> = Vec::new();
    for &mode in &command.modes {
        if !modes.contains(&mode) {
            modes.push(mode);
        }
    }
    if harness.hierarchy.is_none() {
        eprintln!(
            "note: no writable memory cgroup (it needs root): swap mode cannot be limited and is skipped; \
             mmap and direct run under their own --memory budget only, and the page cache goes unchecked"
        );
        modes.retain(|&mode| mode != Mode::Swap);
    }
    if modes.contains(&Mode::Swap)
        && command.swap_file.is_none()
        && command.swap_device.is_none()
        && swap_file::enabled_swap_bytes() == 0
    {
        eprintln!(
            "note: this machine has no swap enabled, so swap mode is skipped; \
             pass --swap-file PATH (a new file; the harness removes it afterwards) to run it"
        );
        modes.retain(|&mode| mode != Mode::Swap);
    }
    modes
}

/// Makes the requested swap file, sized for the largest footprint unless told.
fn prepare_swap(command: &BenchCommand, footprint: u64) -> Result<Option<SwapFile>, String> {
    let size = command
        .swap_size
        .as_deref()
        .and_then(parse_size)
        .unwrap_or((footprint * 2).max(64 << 20));
    if command.swap_device.is_some() {
        eprintln!("setting up {} of swap on zram", bytes(size));
        return SwapFile::zram(size).map(Some);
    }
    let Some(path) = &command.swap_file else {
        return Ok(None);
    };
    eprintln!("making a {} swap file at {}", bytes(size), path.display());
    SwapFile::create(path, size).map(Some)
}

/// Runs the dram trials of `kernel`; returns the largest peak RSS (the footprint the
/// budgets are percentages of) and the median kernel seconds.
fn run_dram(
    harness: &mut Harness,
    command: &BenchCommand,
    kernel: Kernel,
    hugepages: f64,
    cores: usize,
) -> Result<Option<(u64, f64)>, CliError> {
    let mut records = Vec::new();
    for trial in 1..=command.trials {
        let spec = TrialSpec {
            kernel,
            mode: Mode::Dram,
            ocf: 1,
            threads: cores,
            budget_percent: None,
            limit_bytes: None,
            engine_memory_bytes: None,
            chunk: None,
            hugepages,
            trial,
        };
        records.push(harness.run_trial(spec)?);
    }
    let seconds: Vec<f64> = records.iter().filter_map(|record| record.seconds).collect();
    let footprint = records
        .iter()
        .filter_map(|record| record.report.as_ref()?["peak_rss_bytes"].as_u64())
        .max();
    let median = (!seconds.is_empty()).then(|| swapless_run::median(&seconds));
    for record in records {
        harness.record(record, median)?;
    }
    Ok(footprint.zip(median))
}

/// The trials under a limit for one kernel and huge-page fraction: every budget, mode,
/// overcommit factor (swap) and chunk size (mmap, direct), `--trials` times each.
#[allow(clippy::too_many_arguments)]
fn limited_specs(
    command: &BenchCommand,
    modes: &[Mode],
    kernel: Kernel,
    hugepages: f64,
    footprint: u64,
    cores: usize,
    limited: bool,
) -> Vec<TrialSpec> {
    let mut specs = Vec::new();
    for &budget_percent in &command.budgets {
        let limit = (footprint as f64 * budget_percent / 100.0) as u64;
        for &mode in modes {
            let (ocfs, chunks): (Vec<usize>, Vec<Option<String>>) = match mode {
                Mode::Swap => (command.ocf.clone(), vec![None]),
                _ => (vec![1], command.chunks.iter().cloned().map(Some).collect()),
            };
            for &ocf in &ocfs {
                for chunk in &chunks {
                    for trial in 1..=command.trials {
                        specs.push(TrialSpec {
                            kernel,
                            mode,
                            ocf,
                            threads: cores * ocf,
                            budget_percent: Some(budget_percent),
                            limit_bytes: limited.then_some(limit),
                            // The disk tiers plan within the limit less what the process
                            // itself needs. Swap mode's engine knows of no limit at all: it
                            // gets the budget it would take by default outside the trial's
                            // cgroup, as an in-memory program assumes all memory is its own.
                            engine_memory_bytes: Some(match mode {
                                Mode::Swap => swapless_run::default_memory_budget(),
                                _ => limit.saturating_sub(RUNTIME_ALLOWANCE_BYTES),
                            }),
                            chunk: chunk.clone(),
                            hugepages,
                            trial,
                        });
                    }
                }
            }
        }
    }
    specs
}

/// The least `--memory` the plan accepts for `spec`, if its engine memory is below it
/// (then the trial is recorded as refused without starting a process). Plans are
/// remembered per kernel, tier and chunk: making one reads the offsets.
fn refusal(
    graph: &GraphFile,
    far_url: Option<&str>,
    spec: &TrialSpec,
    least_budgets: &mut std::collections::HashMap<(&'static str, &'static str, String), u64>,
) -> Result<Option<u64>, CliError> {
    let (Some(memory), Some(chunk)) = (spec.engine_memory_bytes, &spec.chunk) else {
        return Ok(None);
    };
    let key = (spec.kernel.name(), spec.mode.name(), chunk.clone());
    let least = match least_budgets.get(&key) {
        Some(&least) => least,
        None => {
            // The least budget a disk tier accepts does not depend on the budget given.
            let mut placement = swapless_run::Placement::new(Some(1 << 60), Some(spec.mode.tier()));
            placement.chunk_bytes = parse_size(chunk);
            // Trials run without --out, so they make no output array.
            placement.output_array = false;
            let least = match (spec.mode, far_url) {
                // The far plan counts the connections' buffers, from the cluster's size.
                (Mode::Far, Some(url)) => {
                    swapless_run::plan(Path::new(url), spec.kernel, &placement)?.minimum_bytes()
                }
                _ => placement.plan(graph, spec.kernel)?.minimum_bytes(),
            };
            least_budgets.insert(key, least);
            least
        }
    };
    Ok((memory < least).then_some(least))
}

fn refused(spec: TrialSpec, least: u64) -> TrialRecord {
    let message = format!(
        "refused: the plan needs at least {} for --memory, the limit leaves {}",
        bytes(least),
        bytes(spec.engine_memory_bytes.unwrap_or(0))
    );
    TrialRecord {
        spec,
        status: Status::Refused,
        seconds: None,
        wall_seconds: 0.0,
        slowdown: None,
        cgroup_peak_bytes: None,
        caches_dropped: false,
        system: SystemFigures::default(),
        report: None,
        message,
    }
}

/// Drops clean page cache (root only), so a trial starts cold like the one before it.
fn drop_caches() -> bool {
    // SAFETY: sync takes no arguments and only flushes dirty data.
    unsafe { libc::sync() };
    std::fs::write("/proc/sys/vm/drop_caches", "3").is_ok()
}

impl Harness {
    /// Runs one trial as a fresh process and waits for it (or its timeout, or Ctrl-C).
    fn run_trial(&mut self, spec: TrialSpec) -> Result<TrialRecord, CliError> {
        self.trials_run += 1;
        let id = self.trials_run;
        let label = trial_label(&spec);
        let report_path = self.out.join("reports").join(format!("{id:04}.json"));
        let log_path = self.out.join("logs").join(format!("{id:04}.log"));
        let _ = std::fs::remove_file(&report_path);
        let log = File::create(&log_path).map_err(|error| CliError::Io(log_path.clone(), error))?;

        let mut process = Command::new(&self.executable[0]);
        process
            .args(&self.executable[1..])
            .arg("run")
            .arg(spec.kernel.name())
            .arg(match (spec.mode, &self.far) {
                (Mode::Far, Some(far)) => std::ffi::OsString::from(&far.url),
                _ => self.graph.clone().into_os_string(),
            })
            .arg("--json")
            .arg(&report_path)
            .arg("--threads")
            .arg(spec.threads.to_string())
            .arg("--hugepages")
            .arg(spec.hugepages.to_string())
            .arg("--tier")
            .arg(spec.mode.tier().name())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        if let Some(memory) = spec.engine_memory_bytes {
            process.arg("--memory").arg(memory.to_string());
        }
        if let Some(chunk) = spec.chunk.as_ref().filter(|chunk| *chunk != AUTO_CHUNK) {
            process.arg("--chunk").arg(chunk);
        }
        let cgroup = match (&self.hierarchy, spec.limit_bytes) {
            (Some(hierarchy), Some(limit)) => {
                let cgroup = hierarchy.create(id, limit).map_err(|error| {
                    CliError::Other(format!("cannot make a memory cgroup: {error}"))
                })?;
                cgroup
                    .put(&mut process)
                    .map_err(|error| CliError::Other(format!("cannot use the cgroup: {error}")))?;
                Some(cgroup)
            }
            _ => None,
        };

        let caches_dropped = drop_caches();
        let before = Snapshot::take(self.disk.as_ref());
        let started = Instant::now();
        let mut child = process.spawn().map_err(|error| {
            CliError::Other(format!(
                "cannot start {}: {error}",
                self.executable[0].to_string_lossy()
            ))
        })?;
        let mut timed_out = false;
        let exit = loop {
            if let Some(exit) = child
                .try_wait()
                .map_err(|error| CliError::Other(format!("lost the trial process: {error}")))?
            {
                break exit;
            }
            if self.interrupted.load(Ordering::SeqCst) {
                let _ = child.kill();
                let _ = child.wait();
                drop(cgroup);
                return Err(CliError::Interrupted(format!(
                    "interrupted; the trials finished before it are in {}, and the cgroups and swap file are removed",
                    self.out.join("trials.csv").display()
                )));
            }
            if started.elapsed() > self.timeout {
                timed_out = true;
                let _ = child.kill();
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let wall_seconds = started.elapsed().as_secs_f64();
        let system = before.figures_until(&Snapshot::take(self.disk.as_ref()), wall_seconds);
        let cgroup_peak_bytes = cgroup.as_ref().and_then(Cgroup::peak_bytes);
        let killed_for_memory = cgroup
            .as_ref()
            .is_some_and(|cgroup| cgroup.out_of_memory_kills() > 0);
        drop(cgroup);

        let report: Option<Value> = std::fs::read_to_string(&report_path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok());
        let log_text = std::fs::read_to_string(&log_path).unwrap_or_default();
        let last_line = log_text
            .lines()
            .rev()
            .find(|line| !line.trim().is_empty())
            .unwrap_or("")
            .to_string();
        let (status, message) = if timed_out {
            (
                Status::Timeout,
                format!("stopped after {} s", self.timeout.as_secs()),
            )
        } else if exit.success() && report.is_some() {
            (Status::Ok, String::new())
        } else if killed_for_memory {
            (
                Status::OutOfMemory,
                "killed by the out-of-memory killer inside its cgroup".to_string(),
            )
        } else {
            (Status::Failed, format!("{exit}: {last_line}"))
        };
        let seconds = report
            .as_ref()
            .filter(|_| status == Status::Ok)
            .and_then(|report| report["seconds"].as_f64());
        eprintln!(
            "[{id}] {label}: {}",
            match seconds {
                Some(seconds) => format!("{seconds:.3} s (wall {wall_seconds:.1} s)"),
                None => format!("{} {message}", status.name()),
            }
        );
        Ok(TrialRecord {
            spec,
            status,
            seconds,
            wall_seconds,
            slowdown: None,
            cgroup_peak_bytes,
            caches_dropped,
            system,
            report,
            message,
        })
    }

    /// Appends a trial to trials.csv and trials.jsonl (flushed, so an interrupted
    /// run keeps every finished trial).
    fn record(
        &mut self,
        mut record: TrialRecord,
        dram_seconds: Option<f64>,
    ) -> Result<(), CliError> {
        record.slowdown = record
            .seconds
            .zip(dram_seconds)
            .filter(|&(_, dram)| dram > 0.0)
            .map(|(seconds, dram)| seconds / dram);
        let row = record_json(&self.graph, &record);
        let cells: Vec<String> = CSV_COLUMNS
            .iter()
            .map(|column| csv_cell(&row[*column]))
            .collect();
        let csv_path = self.out.join("trials.csv");
        writeln!(self.csv, "{}", cells.join(","))
            .and_then(|()| self.csv.flush())
            .map_err(|error| CliError::Io(csv_path, error))?;
        let mut line = row;
        line["report"] = record.report.clone().unwrap_or(Value::Null);
        let jsonl_path = self.out.join("trials.jsonl");
        writeln!(self.jsonl, "{line}")
            .and_then(|()| self.jsonl.flush())
            .map_err(|error| CliError::Io(jsonl_path, error))?;
        Ok(())
    }
}
