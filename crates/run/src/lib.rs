//! One kernel run, end to end: plan the placement under the budget, open the tier,
//! run the trials, verify, and turn the result into arrays indexed by original vertex
//! id with a report. The CLI's `run` and the Python API both call [`run`], so a run
//! means the same thing from either.

use std::path::Path;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use serde_json::{Value, json};
use swapless_build::memory::{page_faults, peak_rss_bytes, system_anon_huge_page_bytes};
use swapless_engine::kernels::Reads;
use swapless_engine::kernels::bfs;
use swapless_engine::kernels::connected_components;
use swapless_engine::kernels::pagerank::{self, PageRankOptions};
use swapless_engine::kernels::{
    betweenness, maximal_independent_set, pick_source, pick_sources, radii, sssp,
    to_original_order, triangle_count,
};
use swapless_engine::property::PropertyVec;
use swapless_format::{FileWatch, FormatError, GraphFile};
use swapless_store::{
    DirectStore, DramStore, EdgeStore, MmapStore, OffsetForm, Plan, PlanRequest, StoreError, Tier,
};
use watched::{Pattern, PatternIo, Watched};

mod kernel;
mod watched;

pub use kernel::Kernel;

/// Why a run could not start or finish.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// An option is out of range or does not fit the graph; the message says which.
    #[error("{0}")]
    Invalid(String),
    /// The graph file could not be read or failed a check.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The budget cannot hold the run.
    #[error("{0}")]
    Budget(StoreError),
    /// Reading the graph failed while the kernel ran.
    #[error("{0}")]
    Store(StoreError),
    /// Memory for the kernel's property arrays could not be mapped.
    #[error(
        "cannot reserve {bytes} bytes for the kernel's vertex arrays ({source}); give the run more memory or free some"
    )]
    Reserve {
        /// Bytes asked for.
        bytes: u64,
        /// What the system said.
        source: std::io::Error,
    },
    /// The serial verifier disagreed with the kernel.
    #[error("verification failed: {0}")]
    Verification(String),
    /// The run's cancel flag was set; it stopped at the next scan or gather.
    #[error("interrupted")]
    Interrupted,
}

impl From<StoreError> for RunError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Format(error) => RunError::Format(error),
            budget @ StoreError::Budget { .. } => RunError::Budget(budget),
            StoreError::Interrupted => RunError::Interrupted,
            other => RunError::Store(other),
        }
    }
}

/// Where edges are served from and within what memory.
#[derive(Clone, Debug)]
pub struct Placement {
    /// The whole run's memory budget; `None`: dram if the footprint fits the default.
    pub budget_bytes: Option<u64>,
    /// The budget when none is given (the CLI uses [`default_memory_budget`]).
    pub default_budget_bytes: u64,
    /// The tier; `None`: dram if the footprint fits the budget, else direct (mmap where
    /// io_uring is refused).
    pub tier: Option<Tier>,
    /// Bytes per scan read (a multiple of 4 KiB, 4 KiB to 4 MiB); `None`: the plan's
    /// choice (256 KiB, or 16 KiB for a search on a banded graph).
    pub chunk_bytes: Option<u64>,
    /// Reads the direct tier keeps in flight (1 to 4096).
    pub queue_depth: usize,
    /// Share of the direct tier's list cache kept for pages gathers read (0 to 1);
    /// `None`: the plan's choice (all of it for a search on a banded graph, else none).
    pub gather_cache_fraction: Option<f64>,
    /// How a disk tier holds offsets; `None`: plain unless the budget is tight.
    pub offset_form: Option<OffsetForm>,
    /// Whether the run hands back its result as an array in original ids (the output
    /// phase the plan counts); a run whose caller wants only the report skips it.
    pub output_array: bool,
    /// Whether the run checks its result with the kernel's serial verifier after it (a
    /// phase the plan counts, after the run releases the graph's data).
    pub verify: bool,
    /// Worker threads the run will use; `None`: one per usable core.
    pub threads: Option<usize>,
}

impl Placement {
    /// Default budget and tier, the plan's chunk size and cache split, queue depth 128.
    pub fn new(budget_bytes: Option<u64>, tier: Option<Tier>) -> Placement {
        Placement {
            budget_bytes,
            default_budget_bytes: default_memory_budget(),
            tier,
            chunk_bytes: None,
            queue_depth: 128,
            gather_cache_fraction: None,
            offset_form: None,
            output_array: true,
            verify: false,
            threads: None,
        }
    }

    /// The plan for `kernel` on `graph`.
    pub fn plan(&self, graph: &GraphFile, kernel: Kernel) -> Result<Plan, RunError> {
        if let Some(chunk) = self.chunk_bytes
            && (!(4 << 10..=4 << 20).contains(&chunk) || !chunk.is_multiple_of(4096))
        {
            return Err(RunError::Invalid(
                "the chunk size must be a multiple of 4K between 4K and 4M".to_string(),
            ));
        }
        if !(1..=4096).contains(&self.queue_depth) {
            return Err(RunError::Invalid(
                "the queue depth must be between 1 and 4096".to_string(),
            ));
        }
        if let Some(fraction) = self.gather_cache_fraction
            && !(0.0..=1.0).contains(&fraction)
        {
            return Err(RunError::Invalid(
                "the gather cache fraction must be between 0 and 1".to_string(),
            ));
        }
        let reads = kernel.reads();
        let request = PlanRequest {
            kernel: kernel.name().to_string(),
            property_bytes: kernel.property_bytes(
                graph.num_vertices() as u64,
                graph.num_arcs() as u64,
                graph.flags().directed,
            ),
            optional_property_bytes: kernel.optional_property_bytes(graph.num_vertices() as u64),
            thread_bytes: thread_bytes(self.threads.unwrap_or_else(usable_cores)),
            gather_cache_fraction: self.gather_cache_fraction,
            searches: kernel.searches(),
            output_bytes: match self.output_array {
                true => kernel.output_bytes(graph.num_vertices() as u64, graph.flags().reordered),
                false => 0,
            },
            verification_bytes: self
                .verify
                .then(|| kernel.verification_bytes(graph.num_vertices() as u64)),
            out_lists: reads.out_lists,
            in_lists: reads.in_lists,
            weights: reads.weights,
            out_heads: reads.out_heads,
            budget_bytes: self.budget_bytes,
            default_budget_bytes: self.default_budget_bytes,
            tier: self.tier,
            offset_form: self.offset_form,
            chunk_bytes: self.chunk_bytes,
            queue_depth: self.queue_depth,
        };
        Ok(swapless_store::plan::plan(graph, &request)?)
    }
}

/// Half of the memory this process may use (physical memory, or its cgroup's limit when
/// lower): the budget when none is given.
pub fn default_memory_budget() -> u64 {
    swapless_build::memory::usable_memory_bytes().unwrap_or(8 << 30) / 2
}

/// Betweenness sources: a sample, or every vertex (exact).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BetweennessSources {
    /// This many reproducibly sampled sources with edges.
    Sample(usize),
    /// Every vertex.
    All,
}

/// Everything a run takes besides the graph and kernel.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Where edges live.
    pub placement: Placement,
    /// bfs, sssp: the source (original id); `None` picks one reproducibly.
    pub source: Option<u64>,
    /// Worker threads; `None`: one per core.
    pub threads: Option<usize>,
    /// Timed trials; the report gives the median.
    pub trials: u32,
    /// PageRank's damping, tolerance and iteration cap.
    pub pagerank: PageRankOptions,
    /// SSSP's bucket width.
    pub delta: f64,
    /// Betweenness sources.
    pub betweenness_sources: BetweennessSources,
    /// Fraction of every property array on transparent huge pages.
    pub huge_page_fraction: f64,
    /// Set it (from another thread) to stop the run at the kernel's next scan or gather.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            placement: Placement::new(None, None),
            source: None,
            threads: None,
            trials: 1,
            pagerank: PageRankOptions::default(),
            delta: 1.0,
            betweenness_sources: BetweennessSources::Sample(1),
            // Random reads into property arrays miss the TLB on 4 KiB pages (PageRank
            // ran 20-30% faster on kron23 with them all on huge pages).
            huge_page_fraction: 1.0,
            cancel: None,
        }
    }
}

/// A result array, indexed by original vertex id.
#[derive(Debug)]
pub enum ResultArray {
    /// bfs parents (-1 unreached), cc labels, radii estimates (-1 unreached).
    Int64(Vec<i64>),
    /// pr scores, sssp distances (+inf unreached), bc scores.
    Float64(Vec<f64>),
    /// mis membership (0 or 1).
    Int8(Vec<i8>),
    /// tc: the count is in the report.
    None,
}

/// What a run produced.
pub struct RunOutput {
    /// The result by original vertex id.
    pub array: ResultArray,
    /// The report (the CLI's `--json`): times, memory, I/O, faults, result summary.
    pub report: Value,
    /// The plan the run followed.
    pub plan: Plan,
}

/// Tells a run's progress to whoever shows it.
pub trait Progress: Sync {
    /// A trial finished; `bytes_read` is what the store has read so far.
    fn trial_done(&self, _bytes_read: u64) {}
    /// The running trial has made `passes` passes over lists (scans and gathers: a
    /// PageRank iteration, a BFS level) and the store has read `bytes_read` in all;
    /// called at most every 100 ms.
    fn pass_done(&self, _passes: u64, _bytes_read: u64) {}
}

/// Shows nothing.
pub struct Quiet;

impl Progress for Quiet {}

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
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.is_empty() {
        f64::NAN
    } else if sorted.len() % 2 == 1 {
        sorted[middle]
    } else {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    }
}

/// Checks `options` before anything is read.
fn validate(kernel: Kernel, options: &RunOptions) -> Result<(), RunError> {
    let invalid = |message: &str| Err(RunError::Invalid(message.to_string()));
    if options.trials == 0 {
        return invalid("trials must be at least 1");
    }
    let pagerank = options.pagerank;
    let tolerance_ok = pagerank.tolerance.is_finite() && pagerank.tolerance >= 0.0;
    if !tolerance_ok || !(0.0..=1.0).contains(&pagerank.damping) {
        return invalid("the tolerance must be >= 0 and the damping between 0 and 1");
    }
    if pagerank.max_iterations == 0 {
        return invalid("PageRank needs at least one iteration");
    }
    if !(0.0..=1.0).contains(&options.huge_page_fraction) {
        return invalid("the huge-page fraction must be between 0 and 1");
    }
    if kernel == Kernel::Sssp && !(options.delta.is_finite() && options.delta > 0.0) {
        return invalid("delta must be a positive number");
    }
    if options.betweenness_sources == BetweennessSources::Sample(0) {
        return invalid("betweenness needs at least one source");
    }
    if !kernel.takes_source() && options.source.is_some() {
        return Err(RunError::Invalid(format!(
            "{} takes no source",
            kernel.name()
        )));
    }
    if options.threads == Some(0) {
        return invalid("threads must be at least 1");
    }
    let cores = usable_cores();
    if let Some(threads) = options.threads
        && threads > THREADS_PER_CORE * cores
    {
        return Err(RunError::Invalid(format!(
            "{threads} threads is more than {} ({THREADS_PER_CORE} for each of the {cores} cores this process may use); more would only wait for the cores, and each thread's stack takes memory outside the budget",
            THREADS_PER_CORE * cores
        )));
    }
    Ok(())
}

/// Threads a run accepts per usable core. Kernels compute on every thread and the disk
/// tiers' I/O is asynchronous, so threads beyond the cores add no speed there; in dram
/// under OS swapping, though, a thread blocked in a fault is a read in flight, and the
/// swap baseline runs 16 a core. Beyond this many, threads only add scheduling.
pub const THREADS_PER_CORE: usize = 32;

/// Threads whose memory the fixed runtime allowance beside the budget covers.
const THREADS_IN_ALLOWANCE: usize = 8;

/// Memory a worker thread touches: its stack's used pages, thread-local state and its
/// share of the allocator's per-thread arenas, rounded up.
const BYTES_PER_THREAD: u64 = 128 << 10;

/// What `threads` worker threads add to a plan beyond the runtime allowance.
pub fn thread_bytes(threads: usize) -> u64 {
    threads.saturating_sub(THREADS_IN_ALLOWANCE) as u64 * BYTES_PER_THREAD
}

/// Cores this process may run on (its affinity and CPU quota).
pub fn usable_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `kernel` on the graph at `path`.
pub fn run(
    path: &Path,
    kernel: Kernel,
    options: &RunOptions,
    progress: &dyn Progress,
) -> Result<RunOutput, RunError> {
    validate(kernel, options)?;
    return_freed_memory_promptly();
    swapless_engine::property::set_huge_page_fraction(options.huge_page_fraction);
    let threads = options.threads.unwrap_or_else(usable_cores);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|error| RunError::Invalid(format!("cannot start {threads} threads: {error}")))?;
    pool.install(|| run_in_pool(path, kernel, options, threads, progress))
}

/// Has the allocator hand memory back to the system as soon as it is freed, so that the
/// resident set follows the live heap, which the plan counts.
///
/// glibc raises its threshold for serving an allocation from its own map each time a
/// large block is freed, and then keeps large blocks that are freed on its heaps: sssp
/// on urand22w at 25% of its footprint peaked 3.5-10.4 MiB over its 284 MiB budget (the
/// runtime allowance is 10 MiB), and 275-281 MiB with both thresholds fixed at 128 KiB,
/// as fast in dram and on disk.
fn return_freed_memory_promptly() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const THRESHOLD_BYTES: libc::c_int = 128 << 10;
        // SAFETY: mallopt only sets glibc's allocator parameters, under the allocator's
        // own lock, so it may be called from any thread with allocations live; both
        // values are in range. A refusal (0) leaves the defaults, which only weakens
        // this.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, THRESHOLD_BYTES);
            libc::mallopt(libc::M_TRIM_THRESHOLD, THRESHOLD_BYTES);
        }
    }
}

/// Opens the store `plan` chose.
fn open_store(path: &Path, plan: &Plan, reads: Reads) -> Result<Box<dyn EdgeStore>, RunError> {
    let store: Box<dyn EdgeStore> = match plan.tier {
        Tier::Dram => Box::new(DramStore::load(path, reads.in_lists, plan.weighted)?),
        Tier::Mmap => Box::new(MmapStore::open(path, plan)?),
        Tier::Direct => Box::new(DirectStore::open(path, plan)?),
    };
    Ok(store)
}

fn run_in_pool(
    path: &Path,
    kernel: Kernel,
    options: &RunOptions,
    threads: usize,
    progress: &dyn Progress,
) -> Result<RunOutput, RunError> {
    let load_started = Instant::now();
    // Opened first, so that a write into the file at any later point is noticed.
    let watch = FileWatch::open(path)?;
    let graph = GraphFile::open(path)?;
    let mut placement = options.placement.clone();
    placement.threads = Some(threads);
    let plan = placement.plan(&graph, kernel)?;
    if kernel == Kernel::Sssp && !sssp::weights_are_non_negative(&graph)? {
        return Err(RunError::Invalid(
            "the graph has negative edge weights, which shortest paths by delta-stepping cannot handle".to_string(),
        ));
    }
    // Huge pages are counted from the machine-wide counter, above what it held before
    // the property arrays were reserved (see the sampler below).
    let huge_pages_before = system_anon_huge_page_bytes().unwrap_or(0);
    // The hot arrays take their memory (and huge pages) first, before any graph data or
    // cache does (DESIGN §6); the plan has counted them within the budget.
    let array_bytes = kernel.property_arrays(graph.num_vertices() as u64);
    let unreserved_before = swapless_engine::property::unreserved_property_bytes();
    let reservation =
        swapless_engine::property::reserve(&array_bytes).map_err(|source| RunError::Reserve {
            bytes: array_bytes.iter().sum(),
            source,
        })?;
    drop(graph);
    let opened = open_store(path, &plan, kernel.reads())?;
    let watched = Watched {
        inner: &*opened,
        cancel: options.cancel.as_deref(),
        watch: &watch,
        file_checks: AtomicU64::new(0),
        progress,
        passes: AtomicU64::new(0),
        last_report: Mutex::new(None),
        active: AtomicU64::new(0),
        patterns: Mutex::new([PatternIo::default(); 2]),
    };
    let store: &dyn EdgeStore = &watched;
    let load_seconds = load_started.elapsed().as_secs_f64();
    let vertices = store.num_vertices();
    let source = match (kernel.takes_source(), options.source) {
        (true, Some(original)) => Some(internal_id(store, original)?),
        (true, None) => Some(pick_source(store, 0).ok_or_else(|| {
            RunError::Invalid(format!(
                "the graph has no edges, so {} has no source",
                kernel.name()
            ))
        })?),
        (false, _) => None,
    };
    let sampled_sources = match (kernel, options.betweenness_sources) {
        (Kernel::Bc, BetweennessSources::All) => (0..vertices as u32).collect(),
        (Kernel::Bc, BetweennessSources::Sample(count)) => pick_sources(store, count),
        (Kernel::Radii, _) => pick_sources(store, radii::MAX_SOURCES),
        _ => Vec::new(),
    };
    let faults_before = page_faults().unwrap_or((0, 0));
    let io_before = store.io_stats();
    // Arrays made from the heap (those no reserved slot fits) hold huge pages only
    // while a trial runs, so the counter is sampled while trials run; it is the
    // machine-wide one (cheap to read; reading this process's smaps_rollup instead walks
    // its page tables and slowed kernels by 20%). The report gives the peak above what
    // the machine held before the reservation.
    let sampling = std::sync::Arc::new(AtomicBool::new(true));
    let sampler = {
        let sampling = sampling.clone();
        std::thread::spawn(move || {
            let mut most = 0;
            while sampling.load(Ordering::Relaxed) {
                most = most.max(system_anon_huge_page_bytes().unwrap_or(0));
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            most.saturating_sub(huge_pages_before)
        })
    };
    let stop_sampling = || {
        sampling.store(false, Ordering::Relaxed);
    };
    let mut trial_seconds = Vec::new();
    let mut outcome = None;
    for _ in 0..options.trials {
        // The previous trial's result goes first, so trials never hold two at once.
        drop(outcome.take());
        let started = Instant::now();
        let trial = || match kernel {
            Kernel::Bfs => {
                bfs::bfs_keeping_lists(store, source.unwrap_or(0), plan.optional_property_held)
                    .map(Outcome::Bfs)
            }
            Kernel::Pr => pagerank::pagerank(store, options.pagerank).map(Outcome::PageRank),
            Kernel::Cc => {
                connected_components::connected_components(store).map(Outcome::Components)
            }
            Kernel::Sssp => {
                sssp::sssp(store, source.unwrap_or(0), options.delta).map(Outcome::Distances)
            }
            Kernel::Bc => {
                betweenness::betweenness(store, &sampled_sources).map(Outcome::Betweenness)
            }
            Kernel::Tc => triangle_count::triangle_count(store).map(Outcome::Triangles),
            Kernel::Radii => radii::radii(store, &sampled_sources).map(Outcome::Radii),
            Kernel::Mis => {
                maximal_independent_set::maximal_independent_set(store).map(Outcome::IndependentSet)
            }
        };
        // A page is checked once a run, when first read: a kernel that meets ids out of
        // range (an index out of bounds) in a page written since may panic. That is the
        // file's doing, not a bug, and is said so.
        let result = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(trial)) {
            Ok(result) => result,
            Err(panic) => {
                stop_sampling();
                watch.unchanged()?;
                std::panic::resume_unwind(panic);
            }
        };
        let result = match result {
            Ok(result) => result,
            Err(error) => {
                stop_sampling();
                return Err(error.into());
            }
        };
        trial_seconds.push(started.elapsed().as_secs_f64());
        outcome = Some(result);
        progress.trial_done(store.io_stats().since(&io_before).bytes_read);
        watched.passes.store(0, Ordering::Relaxed);
    }
    // No result from a file that changed while the trials read it.
    if let Err(error) = watch.unchanged() {
        stop_sampling();
        return Err(error.into());
    }
    let faults_after = page_faults().unwrap_or((0, 0));
    let io = store.io_stats().since(&io_before);
    let patterns = *watched
        .patterns
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    stop_sampling();
    let huge_page_bytes = sampler.join().unwrap_or(0);
    let Some(outcome) = outcome else {
        return Err(RunError::Invalid("trials must be at least 1".to_string()));
    };
    let permutation = store.permutation();
    let original = |vertex: u32| permutation.map_or(vertex, |p| p[vertex as usize]) as u64;
    let result_json = match &outcome {
        Outcome::Bfs(result) => json!({"reached": result.reached, "levels": result.levels}),
        Outcome::PageRank(result) => {
            json!({
                "iterations": result.iterations,
                "last_change": result.last_change,
                "converged": result.last_change < options.pagerank.tolerance,
                "method": options.pagerank.method.name(),
            })
        }
        Outcome::Components(result) => json!({"components": result.components}),
        Outcome::Distances(result) => json!({
            "reached": result.reached,
            "steps": result.steps,
            "integer_distances": result.integer_distances,
        }),
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
    let seconds = median(&trial_seconds);
    let trials = options.trials as f64;
    // Per trial, like `seconds`.
    let io_wait_seconds = io.io_wait_seconds / trials;
    let compute_seconds = if io_wait_seconds.is_nan() {
        seconds
    } else {
        (seconds - io_wait_seconds).max(0.0)
    };
    let mut report = json!({
        "kernel": kernel.name(),
        "graph": path.display().to_string(),
        "vertices": vertices,
        "arcs": store.num_arcs(),
        "tier": store.tier(),
        "direct_io": store.direct_io(),
        "source": source.map(original),
        "threads": threads,
        "trials": options.trials,
        "seconds": seconds,
        "trial_seconds": trial_seconds,
        "load_seconds": load_seconds,
        "peak_rss_bytes": Value::Null,
        "bytes_read": io.bytes_read / options.trials as u64,
        "read_requests": io.read_requests / options.trials as u64,
        "mean_queue_depth": io.mean_queue_depth(),
        "scan_io": patterns[Pattern::Scan as usize].json(options.trials),
        "gather_io": patterns[Pattern::Gather as usize].json(options.trials),
        "max_queue_depth": io.max_queue_depth,
        "cache_hit_ratio": io.cache_hit_ratio(),
        "io_wait_seconds": io_wait_seconds,
        "compute_seconds": compute_seconds,
        "huge_page_bytes": huge_page_bytes,
        "huge_page_fraction": options.huge_page_fraction,
        "huge_page_advised_bytes": swapless_engine::property::huge_page_advised_bytes(),
        "property_reserved_bytes": reservation.bytes(),
        "property_unreserved_bytes": swapless_engine::property::unreserved_property_bytes() - unreserved_before,
        "major_faults": faults_after.0.saturating_sub(faults_before.0),
        "minor_faults": faults_after.1.saturating_sub(faults_before.1),
        "verified": Value::Null,
        // The checks that the graph file is unchanged, over all trials, and the last.
        "file_checks": watched.file_checks.load(Ordering::Relaxed) + 1,
        "result": result_json,
    });
    add_plan_figures(&mut report, &plan);
    // Verification and the output array come only after the graph's data, the caches,
    // the buffers and the property arrays the result does not use are given back: the
    // plan counts those phases apart from the run's (`Kernel::verification_bytes`,
    // `Kernel::output_bytes`).
    let permutation = permutation.map(<[u32]>::to_vec);
    drop(opened);
    drop(reservation);
    if options.placement.verify {
        verify(
            path,
            &outcome,
            source.unwrap_or(0),
            options.pagerank,
            plan.verify_mapped_bytes,
        )?;
        watch.unchanged()?;
        report["verified"] = Value::Bool(true);
    }
    let array = match options.placement.output_array {
        true => original_order(outcome, permutation.as_deref()),
        false => ResultArray::None,
    };
    drop(permutation);
    // The peak of the whole run, the phases after it included.
    report["peak_rss_bytes"] = json!(peak_rss_bytes().unwrap_or(0));
    Ok(RunOutput {
        array,
        report,
        plan,
    })
}

/// Runs the kernel's serial verifier on the file itself (never through the store),
/// through a map whose pages are dropped as they pass `mapped_bytes` (the plan's).
/// Triangle counting's verifier copies blocks of lists into memory: it takes half of
/// those bytes for them and leaves its map the other half.
fn verify(
    path: &Path,
    outcome: &Outcome,
    source: u32,
    pagerank_options: PageRankOptions,
    mapped_bytes: u64,
) -> Result<(), RunError> {
    let (mapped_bytes, block_bytes) = match outcome {
        Outcome::Triangles(_) => (mapped_bytes / 2, mapped_bytes / 2),
        _ => (mapped_bytes, 0),
    };
    let graph = GraphFile::open_bounded(path, mapped_bytes)?;
    let check = match outcome {
        Outcome::Bfs(result) => bfs::verify(&graph, source, &result.parents),
        Outcome::PageRank(result) => pagerank::verify(&graph, pagerank_options, result),
        Outcome::Components(result) => connected_components::verify(&graph, &result.labels),
        Outcome::Distances(result) => sssp::verify(&graph, source, &result.distances),
        Outcome::Betweenness(result) => {
            betweenness::verify(&graph, &result.sources, &result.scores)
        }
        Outcome::Triangles(count) => triangle_count::verify(&graph, *count, block_bytes),
        Outcome::Radii(result) => radii::verify(&graph, &result.sources, &result.radii),
        Outcome::IndependentSet(result) => maximal_independent_set::verify(&graph, &result.members),
    };
    check.map_err(RunError::Verification)
}

/// The outcome's array, consumed, in original vertex order.
fn original_order(outcome: Outcome, permutation: Option<&[u32]>) -> ResultArray {
    let original = |vertex: u32| permutation.map_or(vertex, |p| p[vertex as usize]) as i64;
    let same = |&value: &f64| value;
    match outcome {
        Outcome::Bfs(result) => {
            ResultArray::Int64(reorder(result.parents, permutation, |&parent| {
                if parent == u32::MAX {
                    -1
                } else {
                    original(parent)
                }
            }))
        }
        Outcome::PageRank(result) => {
            let sum = result.sum;
            ResultArray::Float64(reorder(result.scores, permutation, |&score| {
                pagerank::normalized_score(score, sum)
            }))
        }
        Outcome::Components(result) => {
            ResultArray::Int64(reorder(result.labels, permutation, |&root| original(root)))
        }
        Outcome::Distances(result) => {
            ResultArray::Float64(to_original_order(&result.distances, permutation, same))
        }
        Outcome::Betweenness(result) => {
            ResultArray::Float64(reorder(result.scores, permutation, same))
        }
        Outcome::Triangles(_) => ResultArray::None,
        Outcome::Radii(result) => {
            ResultArray::Int64(reorder(result.radii, permutation, |&radius| {
                if radius == u32::MAX {
                    -1
                } else {
                    radius as i64
                }
            }))
        }
        Outcome::IndependentSet(result) => {
            ResultArray::Int8(to_original_order(&result.members, permutation, |&member| {
                member as i8
            }))
        }
    }
}

/// A result array in original vertex order, each value converted by `convert`: without a
/// permutation, copied out with its memory released as it goes (see
/// `PropertyVec::into_vec`), so the two are never both held.
fn reorder<S: Copy, T: Copy + Default>(
    values: PropertyVec<S>,
    permutation: Option<&[u32]>,
    convert: impl Fn(&S) -> T,
) -> Vec<T> {
    match permutation {
        None => values.into_vec(convert),
        Some(_) => to_original_order(&values, permutation, convert),
    }
}

/// The internal id of original vertex `original`.
fn internal_id(store: &dyn EdgeStore, original: u64) -> Result<u32, RunError> {
    let vertices = store.num_vertices() as u64;
    if original >= vertices {
        return Err(RunError::Invalid(format!(
            "source {original} is not a vertex (the graph has ids 0..{})",
            vertices.saturating_sub(1)
        )));
    }
    Ok(match store.permutation() {
        None => original as u32,
        Some(new_to_old) => new_to_old
            .iter()
            .position(|&old| old as u64 == original)
            .map_or(0, |position| position as u32),
    })
}

/// The plan as JSON (the CLI's `plan --json`).
pub fn plan_json(plan: &Plan) -> Value {
    let segments: Vec<Value> = plan
        .segments
        .iter()
        .map(|s| json!({"name": s.name, "bytes": s.bytes, "class": s.class, "placement": s.placement}))
        .collect();
    let mut report = json!({
        "kernel": plan.kernel,
        "tier": plan.tier.name(),
        "minimum_bytes": plan.minimum_bytes,
        "segments": segments,
    });
    add_plan_figures(&mut report, plan);
    report
}

/// Adds the plan's figures that both a run's report and `plan --json` give to `report`.
fn add_plan_figures(report: &mut Value, plan: &Plan) {
    let figures = json!({
        "memory_budget_bytes": plan.budget_bytes,
        "footprint_bytes": plan.footprint_bytes,
        "edge_cache_bytes": plan.cached_list_bytes.0 + plan.cached_list_bytes.1,
        "gather_cache_bytes": plan.gather_cache_bytes,
        "offsets": plan.offset_form.name(),
        "io_buffer_bytes": plan.io_buffer_bytes,
        "chunk_bytes": plan.chunk_bytes,
        "queue_depth": plan.queue_depth,
        "banded_search": plan.banded_search,
        "io_uring_refused": plan.io_uring_refused,
        "optional_property_held": plan.optional_property_held,
    });
    if let (Value::Object(report), Value::Object(figures)) = (report, figures) {
        report.extend(figures);
    }
}

/// A graph file's path and plan for `kernel` under `placement`.
pub fn plan(path: &Path, kernel: Kernel, placement: &Placement) -> Result<Plan, RunError> {
    placement.plan(&GraphFile::open(path)?, kernel)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Remembers what the run told it.
    #[derive(Default)]
    struct Recorder {
        passes: Mutex<Vec<(u64, u64)>>,
        trials: AtomicU64,
    }

    impl Progress for Recorder {
        fn trial_done(&self, _bytes_read: u64) {
            self.trials.fetch_add(1, Ordering::Relaxed);
        }
        fn pass_done(&self, passes: u64, bytes_read: u64) {
            if let Ok(mut seen) = self.passes.lock() {
                seen.push((passes, bytes_read));
            }
        }
    }

    #[test]
    fn progress_hears_of_passes_and_trials() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kron.sl");
        swapless_build::generators::write_kronecker(&path, 10, 8, false, 1).unwrap();
        let recorder = Recorder::default();
        let options = RunOptions {
            trials: 2,
            ..RunOptions::default()
        };
        run(&path, Kernel::Pr, &options, &recorder).unwrap();
        assert_eq!(recorder.trials.load(Ordering::Relaxed), 2);
        let passes = recorder.passes.lock().unwrap();
        // The first pass is always reported; a PageRank pass is one scan.
        assert_eq!(passes.first(), Some(&(1, 0)));
    }

    #[test]
    fn a_run_without_an_output_array_neither_plans_nor_makes_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kron.sl");
        swapless_build::generators::write_kronecker(&path, 12, 4, false, 1).unwrap();
        let graph = GraphFile::open(&path).unwrap();
        let output_segment = |plan: &Plan| {
            plan.segments
                .iter()
                .any(|segment| segment.name == "result as output array")
        };
        let with_array = Placement::new(None, Some(Tier::Direct));
        let without_array = Placement {
            output_array: false,
            ..with_array.clone()
        };
        let planned_with = with_array.plan(&graph, Kernel::Bfs).unwrap();
        let planned_without = without_array.plan(&graph, Kernel::Bfs).unwrap();
        assert!(output_segment(&planned_with));
        assert!(!output_segment(&planned_without));
        assert!(planned_without.minimum_bytes <= planned_with.minimum_bytes);
        let options = RunOptions {
            placement: Placement {
                verify: true,
                ..without_array
            },
            ..RunOptions::default()
        };
        let output = run(&path, Kernel::Bfs, &options, &Quiet).unwrap();
        assert!(matches!(output.array, ResultArray::None));
        assert_eq!(output.report["verified"], true);
        assert!(output.report["result"]["reached"].as_u64().unwrap() > 0);
    }
}
