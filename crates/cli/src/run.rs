//! `swapless run KERNEL GRAPH`: load the graph, run trials, verify, report.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, ValueEnum};
use serde_json::{Value, json};
use swapless_build::memory::{
    page_faults, parse_size, peak_rss_bytes, system_anon_huge_page_bytes,
};
use swapless_engine::kernels::Reads;
use swapless_engine::kernels::bfs::{self, parents_in_original_ids};
use swapless_engine::kernels::connected_components;
use swapless_engine::kernels::pagerank::{self, PageRankOptions};
use swapless_engine::kernels::{
    betweenness, maximal_independent_set, pick_source, pick_sources, radii, sssp,
    to_original_order, triangle_count,
};
use swapless_format::GraphFile;
use swapless_store::{DirectStore, DramStore, EdgeStore, MmapStore, Plan, PlanRequest, Tier};

use crate::commands::CliError;
use crate::npy::{NpyArray, write_npy};
use crate::text::{bytes, thousands};

/// The kernels `run` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Kernel {
    /// Breadth-first search (direction-optimizing): parent per vertex.
    Bfs,
    /// PageRank (pull, damping 0.85, dangling mass spread): score per vertex.
    Pr,
    /// Connected components (weak, Afforest): label per vertex.
    Cc,
    /// Single-source shortest paths (delta-stepping): distance per vertex.
    Sssp,
    /// Betweenness centrality (Brandes from sampled sources): score per vertex.
    Bc,
    /// Triangle count on the undirected view: a number.
    Tc,
    /// Graph radii estimate (multi-source BFS from up to 64 sources): eccentricity estimate per vertex.
    Radii,
    /// Maximal independent set: membership per vertex.
    Mis,
}

impl Kernel {
    /// The name `run` takes on its command line.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Bfs => "bfs",
            Kernel::Pr => "pr",
            Kernel::Cc => "cc",
            Kernel::Sssp => "sssp",
            Kernel::Bc => "bc",
            Kernel::Tc => "tc",
            Kernel::Radii => "radii",
            Kernel::Mis => "mis",
        }
    }

    fn takes_source(self) -> bool {
        matches!(self, Kernel::Bfs | Kernel::Sssp)
    }

    /// Bytes of the kernel's own arrays, as the kernel states them.
    fn property_bytes(self, vertices: u64, arcs: u64) -> u64 {
        match self {
            Kernel::Bfs => bfs::property_bytes(vertices, arcs),
            Kernel::Pr => pagerank::property_bytes(vertices, arcs),
            Kernel::Cc => connected_components::property_bytes(vertices, arcs),
            Kernel::Sssp => sssp::property_bytes(vertices, arcs),
            Kernel::Bc => betweenness::property_bytes(vertices, arcs),
            Kernel::Tc => triangle_count::property_bytes(vertices, arcs),
            Kernel::Radii => radii::property_bytes(vertices, arcs),
            Kernel::Mis => maximal_independent_set::property_bytes(vertices, arcs),
        }
    }

    /// The lists the kernel reads.
    fn reads(self) -> Reads {
        match self {
            Kernel::Bfs => bfs::READS,
            Kernel::Pr => pagerank::READS,
            Kernel::Cc => connected_components::READS,
            Kernel::Sssp => sssp::READS,
            Kernel::Bc => betweenness::READS,
            Kernel::Tc => triangle_count::READS,
            Kernel::Radii => radii::READS,
            Kernel::Mis => maximal_independent_set::READS,
        }
    }
}

/// How the edges are served and within what memory: shared by `run` and `plan`.
#[derive(Args, Clone)]
pub struct PlacementArgs {
    /// Memory budget for the whole run (e.g. 512M, 2G): property arrays, offsets, caches
    /// and I/O buffers all count. Default: dram if the graph fits in half of physical
    /// memory, else half of physical memory.
    #[arg(long, value_name = "SIZE")]
    memory: Option<String>,
    /// Where edges are served from (default: dram if the footprint fits the budget, else direct).
    #[arg(long, value_enum)]
    tier: Option<TierArg>,
    /// Bytes per read when streaming lists (4K to 4M).
    #[arg(long, value_name = "SIZE", default_value = "256K")]
    chunk: String,
    /// Reads kept in flight by the direct tier.
    #[arg(long, default_value_t = 128)]
    queue_depth: usize,
}

/// `--tier` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TierArg {
    /// The whole graph in memory.
    Dram,
    /// A memory map of the file, with prefetch hints.
    Mmap,
    /// O_DIRECT reads through io_uring into a budgeted cache.
    Direct,
}

impl PlacementArgs {
    /// The plan for `kernel` on `graph`.
    fn plan(&self, graph: &GraphFile, kernel: Kernel) -> Result<Plan, CliError> {
        let budget = crate::commands::parse_memory(self.memory.as_deref())?;
        let chunk = parse_size(&self.chunk)
            .filter(|&chunk| (4 << 10..=4 << 20).contains(&chunk) && chunk % 4096 == 0)
            .ok_or_else(|| {
                CliError::Usage(format!(
                    "--chunk {:?} must be a multiple of 4K between 4K and 4M",
                    self.chunk
                ))
            })?;
        if !(1..=4096).contains(&self.queue_depth) {
            return Err(CliError::Usage(
                "--queue-depth must be between 1 and 4096".to_string(),
            ));
        }
        let reads = kernel.reads();
        let request = PlanRequest {
            kernel: kernel.name().to_string(),
            property_bytes: kernel
                .property_bytes(graph.num_vertices() as u64, graph.num_arcs() as u64),
            out_lists: reads.out_lists,
            in_lists: reads.in_lists,
            budget_bytes: budget,
            default_budget_bytes: crate::commands::default_memory_budget(),
            tier: self.tier.map(|tier| match tier {
                TierArg::Dram => Tier::Dram,
                TierArg::Mmap => Tier::Mmap,
                TierArg::Direct => Tier::Direct,
            }),
            chunk_bytes: chunk,
            queue_depth: self.queue_depth,
        };
        Ok(swapless_store::plan::plan(graph, &request)?)
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
    /// Also write the plan as JSON to this file ("-" for standard output).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// `swapless plan`: what would live where, before anything is allocated.
pub fn plan(command: PlanCommand) -> Result<(), CliError> {
    let graph = GraphFile::open(&command.graph)?;
    let plan = command.placement.plan(&graph, command.kernel)?;
    println!(
        "{} on {}: tier {}, budget {}, dram footprint {}, least budget for a disk tier {}",
        plan.kernel,
        command.graph.display(),
        plan.tier,
        bytes(plan.budget_bytes),
        bytes(plan.footprint_bytes),
        bytes(plan.minimum_bytes)
    );
    println!(
        "  {:<36} {:>11}  {:<5} placement",
        "segment", "size", "class"
    );
    for segment in &plan.segments {
        println!(
            "  {:<36} {:>11}  {:<5} {}",
            segment.name,
            bytes(segment.bytes),
            segment.class,
            segment.placement
        );
    }
    let cached = plan.cached_list_bytes.0 + plan.cached_list_bytes.1;
    if plan.tier != Tier::Dram {
        println!(
            "  edge cache {} (lists held in memory), I/O buffers {} ({} KiB chunks, queue depth {})",
            bytes(cached),
            bytes(plan.io_buffer_bytes),
            plan.chunk_bytes >> 10,
            plan.queue_depth
        );
    }
    if let Some(path) = &command.json {
        let segments: Vec<Value> = plan
            .segments
            .iter()
            .map(|s| json!({"name": s.name, "bytes": s.bytes, "class": s.class, "placement": s.placement}))
            .collect();
        let report = json!({
            "kernel": plan.kernel,
            "tier": plan.tier.name(),
            "memory_budget_bytes": plan.budget_bytes,
            "footprint_bytes": plan.footprint_bytes,
            "minimum_bytes": plan.minimum_bytes,
            "edge_cache_bytes": cached,
            "io_buffer_bytes": plan.io_buffer_bytes,
            "chunk_bytes": plan.chunk_bytes,
            "queue_depth": plan.queue_depth,
            "segments": segments,
        });
        crate::commands::write_json(path, &report)?;
    }
    Ok(())
}

/// The least `--memory` with which `kernel` runs on `graph` in `tier`, reading
/// `chunk`-sized requests: what the plan refuses below.
pub(crate) fn least_budget(
    graph: &GraphFile,
    kernel: Kernel,
    tier: TierArg,
    chunk: &str,
) -> Result<u64, CliError> {
    let placement = PlacementArgs {
        memory: Some((1u64 << 60).to_string()),
        tier: Some(tier),
        chunk: chunk.to_string(),
        queue_depth: 128,
    };
    let plan = placement.plan(graph, kernel)?;
    Ok(if tier == TierArg::Dram {
        plan.footprint_bytes
    } else {
        plan.minimum_bytes
    })
}

/// Opens the store `plan` chose.
fn open_store(path: &Path, plan: &Plan, reads: Reads) -> Result<Box<dyn EdgeStore>, CliError> {
    let store: Box<dyn EdgeStore> = match plan.tier {
        Tier::Dram => Box::new(DramStore::load(path, reads.in_lists)?),
        Tier::Mmap => Box::new(MmapStore::open(path, plan)?),
        Tier::Direct => Box::new(DirectStore::open(path, plan)?),
    };
    Ok(store)
}

/// Options of `swapless run`.
#[derive(Args)]
pub struct RunCommand {
    /// Kernel to run.
    #[arg(value_enum)]
    kernel: Kernel,
    /// The .sl graph.
    graph: PathBuf,
    /// Source vertex (original id) for bfs; default: a reproducible random vertex with edges.
    #[arg(long)]
    source: Option<u64>,
    /// Write the result array here as .npy, indexed by original vertex id.
    #[arg(long, value_name = "FILE.npy")]
    out: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Trials to time; the report gives the median.
    #[arg(long, default_value_t = 1)]
    trials: u32,
    /// Check the result against the kernel's serial verifier.
    #[arg(long)]
    verify: bool,
    /// Also write the report as JSON to this file ("-" for standard output).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// PageRank: stop when the L1 change falls below this.
    #[arg(long, default_value_t = 1e-4)]
    tolerance: f64,
    /// PageRank: stop after this many iterations.
    #[arg(long, default_value_t = 20)]
    max_iters: u32,
    /// PageRank: damping factor.
    #[arg(long, default_value_t = 0.85)]
    damping: f64,
    /// SSSP: bucket width of delta-stepping.
    #[arg(long, default_value_t = 1.0)]
    delta: f64,
    /// Back the first FRACTION (0..1) of every property array with transparent huge
    /// pages; after `--reorder dbg` that prefix holds the hottest vertices.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.0)]
    hugepages: f64,
    /// BC: number of sampled sources, or `all` for exact betweenness.
    #[arg(long, default_value = "1")]
    sources: String,
    #[command(flatten)]
    placement: PlacementArgs,
}

/// One trial's result, in internal ids.
enum Outcome {
    Bfs(bfs::BfsResult),
    PageRank(pagerank::PageRankResult),
    Components(connected_components::ComponentsResult),
    Distances(sssp::SsspResult),
    Betweenness(betweenness::BetweennessResult),
    Triangles(u64),
    Radii(radii::RadiiResult),
    IndependentSet(maximal_independent_set::MisResult),
}

/// The middle value (mean of the two middle ones for an even count).
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[middle]
    } else {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    }
}

/// `swapless run`.
pub fn run(command: RunCommand) -> Result<(), CliError> {
    if command.trials == 0 {
        return Err(CliError::Usage("--trials must be at least 1".to_string()));
    }
    let tolerance_ok = command.tolerance.is_finite() && command.tolerance >= 0.0;
    if !tolerance_ok || !(0.0..=1.0).contains(&command.damping) {
        return Err(CliError::Usage(
            "--tolerance must be >= 0 and --damping between 0 and 1".to_string(),
        ));
    }
    if !(0.0..=1.0).contains(&command.hugepages) {
        return Err(CliError::Usage(
            "--hugepages takes a fraction between 0 and 1".to_string(),
        ));
    }
    swapless_engine::property::set_huge_page_fraction(command.hugepages);
    let threads = command
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|error| CliError::Usage(format!("cannot start {threads} threads: {error}")))?;
    pool.install(|| run_in_pool(&command, threads))
}

fn run_in_pool(command: &RunCommand, threads: usize) -> Result<(), CliError> {
    let load_started = Instant::now();
    let plan = command
        .placement
        .plan(&GraphFile::open(&command.graph)?, command.kernel)?;
    let store = open_store(&command.graph, &plan, command.kernel.reads())?;
    let store: &dyn EdgeStore = &*store;
    let load_seconds = load_started.elapsed().as_secs_f64();
    let vertices = store.num_vertices();
    let source = match (command.kernel.takes_source(), command.source) {
        (true, Some(original)) => Some(internal_id(store, original)?),
        (true, None) => Some(pick_source(store, 0).ok_or_else(|| {
            CliError::Usage(format!(
                "the graph has no edges, so {} has no source",
                command.kernel.name()
            ))
        })?),
        (false, Some(_)) => {
            return Err(CliError::Usage(format!(
                "{} takes no --source",
                command.kernel.name()
            )));
        }
        (false, None) => None,
    };
    if command.kernel == Kernel::Sssp && !(command.delta.is_finite() && command.delta > 0.0) {
        return Err(CliError::Usage(
            "--delta must be a positive number".to_string(),
        ));
    }
    if command.kernel == Kernel::Sssp {
        let graph = GraphFile::open(&command.graph)?;
        if !sssp::weights_are_non_negative(&graph)? {
            return Err(CliError::Usage(
                "the graph has negative edge weights, which shortest paths by delta-stepping cannot handle".to_string(),
            ));
        }
    }
    if command.kernel == Kernel::Tc && command.out.is_some() {
        return Err(CliError::Usage(
            "tc returns a single count (in the report), so it takes no --out".to_string(),
        ));
    }
    let sampled_sources = match command.kernel {
        Kernel::Bc if command.sources == "all" => (0..vertices as u32).collect(),
        Kernel::Bc => {
            let count: usize =
                command
                    .sources
                    .parse()
                    .ok()
                    .filter(|&k| k > 0)
                    .ok_or_else(|| {
                        CliError::Usage(format!(
                            "--sources {:?} must be a positive number or `all`",
                            command.sources
                        ))
                    })?;
            pick_sources(store, count)
        }
        Kernel::Radii => pick_sources(store, radii::MAX_SOURCES),
        _ => Vec::new(),
    };
    let options = PageRankOptions {
        damping: command.damping,
        tolerance: command.tolerance,
        max_iterations: command.max_iters,
    };
    let faults_before = page_faults().unwrap_or((0, 0));
    let io_before = store.io_stats();
    let progress = crate::progress::RunProgress::start(command.kernel.name(), command.trials);
    // Huge pages live only as long as a trial's arrays, so they are sampled while
    // trials run, from the machine-wide counter (cheap to read; reading this process's
    // smaps_rollup instead walks its page tables and slowed kernels by 20%). The report
    // gives the peak above what the machine held before the run.
    let huge_pages_before = system_anon_huge_page_bytes().unwrap_or(0);
    let sampling = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let sampler = {
        let sampling = sampling.clone();
        std::thread::spawn(move || {
            let mut most = 0;
            while sampling.load(std::sync::atomic::Ordering::Relaxed) {
                most = most.max(system_anon_huge_page_bytes().unwrap_or(0));
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            most.saturating_sub(huge_pages_before)
        })
    };
    let mut trial_seconds = Vec::new();
    let mut outcome = None;
    for _ in 0..command.trials {
        // The previous trial's result goes first, so trials never hold two at once.
        drop(outcome.take());
        let started = Instant::now();
        let result = match command.kernel {
            Kernel::Bfs => bfs::bfs(store, source.unwrap_or(0)).map(Outcome::Bfs),
            Kernel::Pr => pagerank::pagerank(store, options).map(Outcome::PageRank),
            Kernel::Cc => {
                connected_components::connected_components(store).map(Outcome::Components)
            }
            Kernel::Sssp => {
                sssp::sssp(store, source.unwrap_or(0), command.delta).map(Outcome::Distances)
            }
            Kernel::Bc => {
                betweenness::betweenness(store, &sampled_sources).map(Outcome::Betweenness)
            }
            Kernel::Tc => triangle_count::triangle_count(store).map(Outcome::Triangles),
            Kernel::Radii => radii::radii(store, &sampled_sources).map(Outcome::Radii),
            Kernel::Mis => {
                maximal_independent_set::maximal_independent_set(store).map(Outcome::IndependentSet)
            }
        }
        .map_err(|error| CliError::Other(error.to_string()))?;
        trial_seconds.push(started.elapsed().as_secs_f64());
        outcome = Some(result);
        progress.trial_done(store.io_stats().since(&io_before).bytes_read);
    }
    progress.finish();
    let faults_after = page_faults().unwrap_or((0, 0));
    let io = store.io_stats().since(&io_before);
    let outcome = outcome.expect("at least one trial ran");
    sampling.store(false, std::sync::atomic::Ordering::Relaxed);
    let huge_page_bytes = sampler.join().unwrap_or(0);
    // Measured before verification, which maps the whole file again.
    let peak_rss = peak_rss_bytes().unwrap_or(0);

    let mut verified = Value::Null;
    if command.verify {
        let graph = GraphFile::open(&command.graph)?;
        let check = match &outcome {
            Outcome::Bfs(result) => bfs::verify(&graph, source.unwrap_or(0), &result.parents),
            Outcome::PageRank(result) => {
                pagerank::verify(&graph, options, result.iterations, &result.scores)
            }
            Outcome::Components(result) => connected_components::verify(&graph, &result.labels),
            Outcome::Distances(result) => {
                sssp::verify(&graph, source.unwrap_or(0), &result.distances)
            }
            Outcome::Betweenness(result) => {
                betweenness::verify(&graph, &result.sources, &result.scores)
            }
            Outcome::Triangles(count) => triangle_count::verify(&graph, *count),
            Outcome::Radii(result) => radii::verify(&graph, &result.sources, &result.radii),
            Outcome::IndependentSet(result) => {
                maximal_independent_set::verify(&graph, &result.members)
            }
        };
        check.map_err(|detail| CliError::Other(format!("verification failed: {detail}")))?;
        verified = Value::Bool(true);
    }

    let permutation = store.permutation();
    let original = |vertex: u32| permutation.map_or(vertex, |p| p[vertex as usize]) as u64;
    let result_json = match &outcome {
        Outcome::Bfs(result) => json!({"reached": result.reached, "levels": result.levels}),
        Outcome::PageRank(result) => {
            json!({"iterations": result.iterations, "last_change": result.last_change})
        }
        Outcome::Components(result) => json!({"components": result.components}),
        Outcome::Distances(result) => json!({"reached": result.reached, "steps": result.steps}),
        Outcome::Betweenness(result) => json!({
            "sources": result.sources.len(),
            "source_ids": result.sources.iter().map(|&s| original(s)).collect::<Vec<_>>(),
        }),
        Outcome::Triangles(count) => json!({"triangles": count}),
        Outcome::Radii(result) => json!({
            "sources": result.sources.len(),
            "source_ids": result.sources.iter().map(|&s| original(s)).collect::<Vec<_>>(),
            "rounds": result.rounds,
        }),
        Outcome::IndependentSet(result) => json!({"size": result.size, "rounds": result.rounds}),
    };
    if let Some(path) = &command.out {
        // The outcome is consumed here: its arrays become the output without a copy.
        let written = match outcome {
            Outcome::Bfs(result) => write_npy(
                path,
                NpyArray::Int64(&parents_in_original_ids(&result.parents, permutation)),
            ),
            Outcome::PageRank(result) => write_npy(
                path,
                NpyArray::Float64(&to_original_order(result.scores, permutation)),
            ),
            Outcome::Components(result) => {
                let labels: Vec<i64> = result
                    .labels
                    .iter()
                    .map(|&root| original(root) as i64)
                    .collect();
                write_npy(
                    path,
                    NpyArray::Int64(&to_original_order(labels, permutation)),
                )
            }
            Outcome::Distances(result) => write_npy(
                path,
                NpyArray::Float64(&to_original_order(result.distances, permutation)),
            ),
            Outcome::Betweenness(result) => write_npy(
                path,
                NpyArray::Float64(&to_original_order(result.scores, permutation)),
            ),
            Outcome::Triangles(_) => Ok(()),
            Outcome::Radii(result) => {
                let estimates: Vec<i64> = result
                    .radii
                    .iter()
                    .map(|&r| if r == u32::MAX { -1 } else { r as i64 })
                    .collect();
                write_npy(
                    path,
                    NpyArray::Int64(&to_original_order(estimates, permutation)),
                )
            }
            Outcome::IndependentSet(result) => {
                let members: Vec<i8> = result.members.iter().map(|&m| m as i8).collect();
                write_npy(
                    path,
                    NpyArray::Int8(&to_original_order(members, permutation)),
                )
            }
        };
        written.map_err(|error| CliError::Io(path.clone(), error))?;
    }

    let seconds = median(&trial_seconds);
    let footprint = plan.footprint_bytes;
    let trials = command.trials as f64;
    // Per trial, like `seconds`.
    let io_wait_seconds = io.io_wait_seconds / trials;
    let compute_seconds = if io_wait_seconds.is_nan() {
        seconds
    } else {
        (seconds - io_wait_seconds).max(0.0)
    };
    println!(
        "{} on {} ({} vertices, {} arcs, tier {}, {threads} threads)",
        command.kernel.name(),
        command.graph.display(),
        thousands(vertices as u64),
        thousands(store.num_arcs()),
        store.tier()
    );
    if let Some(source) = source {
        println!("  source {}", original(source));
    }
    println!(
        "  result {result_json}{}",
        if command.verify { " (verified)" } else { "" }
    );
    println!(
        "  {:.4} s median of {} trial(s); load {:.2} s; peak RSS {}; footprint {}",
        seconds,
        command.trials,
        load_seconds,
        bytes(peak_rss),
        bytes(footprint)
    );
    if plan.tier != Tier::Dram {
        let wait = if io_wait_seconds.is_nan() {
            "not measurable (threads wait in page faults)".to_string()
        } else {
            format!("{io_wait_seconds:.3} s")
        };
        println!(
            "  budget {}; read {} per trial in {} requests (queue depth mean {:.1}, max {}); cache hits {:.1}%; I/O wait {wait}",
            bytes(plan.budget_bytes),
            bytes(io.bytes_read / command.trials as u64),
            thousands(io.read_requests / command.trials as u64),
            io.mean_queue_depth(),
            io.max_queue_depth,
            100.0 * io.cache_hit_ratio()
        );
    }
    if let Some(path) = &command.json {
        let report = json!({
            "kernel": command.kernel.name(),
            "graph": command.graph.display().to_string(),
            "tier": store.tier(),
            "source": source.map(original),
            "threads": threads,
            "trials": command.trials,
            "seconds": seconds,
            "trial_seconds": trial_seconds,
            "load_seconds": load_seconds,
            "peak_rss_bytes": peak_rss,
            "footprint_bytes": footprint,
            "memory_budget_bytes": plan.budget_bytes,
            "edge_cache_bytes": plan.cached_list_bytes.0 + plan.cached_list_bytes.1,
            "io_buffer_bytes": plan.io_buffer_bytes,
            "chunk_bytes": plan.chunk_bytes,
            "queue_depth": plan.queue_depth,
            "bytes_read": io.bytes_read / command.trials as u64,
            "read_requests": io.read_requests / command.trials as u64,
            "mean_queue_depth": io.mean_queue_depth(),
            "max_queue_depth": io.max_queue_depth,
            "cache_hit_ratio": io.cache_hit_ratio(),
            "io_wait_seconds": io_wait_seconds,
            "compute_seconds": compute_seconds,
            "huge_page_bytes": huge_page_bytes,
            "huge_page_fraction": command.hugepages,
            "huge_page_advised_bytes": swapless_engine::property::huge_page_advised_bytes(),
            "major_faults": faults_after.0.saturating_sub(faults_before.0),
            "minor_faults": faults_after.1.saturating_sub(faults_before.1),
            "verified": verified,
            "result": result_json,
        });
        crate::commands::write_json(path, &report)?;
    }
    Ok(())
}

fn internal_id(store: &dyn EdgeStore, original: u64) -> Result<u32, CliError> {
    let vertices = store.num_vertices() as u64;
    if original >= vertices {
        return Err(CliError::Usage(format!(
            "--source {original} is not a vertex (the graph has ids 0..{})",
            vertices.saturating_sub(1)
        )));
    }
    Ok(match store.permutation() {
        None => original as u32,
        Some(new_to_old) => new_to_old
            .iter()
            .position(|&old| old as u64 == original)
            .expect("a permutation holds every id") as u32,
    })
}
