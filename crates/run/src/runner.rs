//! One kernel run, end to end: plan, reserve the hot arrays, open the tier, drive the
//! kernel's steps for each trial, verify, and convert the result to original ids.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Instant;

use swapless_engine::kernel::{Finished, GraphShape, KernelOptions, Refusal, Step, Warning};
use swapless_engine::kernels::{Reads, pick_source};
use swapless_engine::parameters::{ParameterKind, ParameterValues};
use swapless_engine::property::PropertyArrays;
use swapless_format::{FileWatch, FormatError, GraphFile};
use swapless_store::{DirectStore, DramStore, EdgeStore, GraphOrigin, MmapStore, Plan, Tier};
use swapless_system::{page_faults, peak_rss_bytes};

use crate::huge_pages::{HugePageSampler, huge_page_bytes_now};

use crate::options::validate;
use crate::report::{PlanFigures, RunReport};
use crate::resume::{Checkpoints, run_identity};
use crate::watched::{Pattern, Watched};
use crate::{
    Kernel, ParameterError, Progress, ResultArray, RunError, RunOption, RunOptions, median,
    usable_cores,
};

/// What a run produced.
pub struct RunOutput {
    /// The result by original vertex id.
    pub array: ResultArray,
    /// The report: times, memory, I/O, faults, the result's figures.
    pub report: RunReport,
    /// The plan the run followed.
    pub plan: Plan,
    /// What the user should hear of about the result, for each front end to word.
    pub warnings: Vec<Warning>,
}

/// Runs `kernel` on the graph `path` names: a local file, or an address another origin
/// recognises (a far graph's), opened with `options.origin`.
pub fn run(
    path: &Path,
    kernel: Kernel,
    options: &RunOptions,
    progress: &dyn Progress,
) -> Result<RunOutput, RunError> {
    let origin = crate::open_origin(path, &options.origin, progress)?;
    run_on(&*origin, kernel, options, progress)
}

/// Runs `kernel` on the graph `origin` serves: for a caller that opened the origin
/// once for more than the run (its ids, a table's size).
pub fn run_on(
    origin: &dyn GraphOrigin,
    kernel: Kernel,
    options: &RunOptions,
    progress: &dyn Progress,
) -> Result<RunOutput, RunError> {
    validate(kernel, options)?;
    return_freed_memory_promptly();
    // The report's peak is this run's, not the process's earlier work's (a Python
    // interpreter runs many things before and between runs).
    swapless_system::reset_peak_rss();
    let rss_at_start_bytes = swapless_system::current_rss_bytes().unwrap_or(0);
    let threads = options.threads.unwrap_or_else(usable_cores);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|error| RunError::Threads {
            threads,
            detail: error.to_string(),
        })?;
    let mut output = pool.install(|| run_in_pool(origin, kernel, options, threads, progress))?;
    output.report.rss_at_start_bytes = rss_at_start_bytes;
    Ok(output)
}

/// Has the allocator hand memory back to the system as soon as it is freed, so that the
/// resident set follows the live heap, which the plan counts.
///
/// glibc raises its threshold for serving an allocation from its own map each time a
/// large block is freed, and then keeps large blocks that are freed on its heaps: sssp
/// under a budget peaked megabytes over it, and within it with both thresholds fixed at
/// 128 KiB, as fast in dram and on disk.
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

/// Opens the store `plan` chose over the graph `origin` serves.
fn open_store(
    origin: &dyn GraphOrigin,
    plan: &Plan,
    reads: Reads,
) -> Result<Box<dyn EdgeStore>, RunError> {
    if !origin.tiers().contains(&plan.tier()) {
        return Err(RunError::invalid(
            RunOption::Tier,
            format!(
                "cannot be {} for a graph from {}",
                plan.tier(),
                origin.shown()
            ),
        ));
    }
    let path = origin.local_file();
    let store: Box<dyn EdgeStore> = match plan.tier() {
        Tier::Dram => Box::new(DramStore::load(path, reads.in_lists, plan.weighted())?),
        Tier::Mmap => Box::new(MmapStore::open(path, plan)?),
        Tier::Direct => Box::new(DirectStore::over(origin.page_source()?, plan)?),
    };
    Ok(store)
}

/// The input's own ids of the vertices of the graph `origin` serves (from its local
/// file), when its build compacted them.
pub fn load_vertex_ids(
    origin: &dyn GraphOrigin,
) -> Result<Option<swapless_format::VertexIds>, RunError> {
    Ok(GraphFile::open(origin.local_file())?.load_vertex_ids()?)
}

fn run_in_pool(
    origin: &dyn GraphOrigin,
    kernel: Kernel,
    options: &RunOptions,
    threads: usize,
    progress: &dyn Progress,
) -> Result<RunOutput, RunError> {
    let load_started = Instant::now();
    let asked = Asked {
        kernel,
        options,
        threads,
        progress,
    };
    let run = run_graph(origin, asked, load_started);
    // A page of the local file that fails its checksum may be the origin's to name (a
    // far graph's page came from the cluster, not from the cache file).
    if let Err(RunError::Format(FormatError::ChecksumMismatch { path, start, .. })) = &run
        && path == origin.local_file()
        && let Some(error) = origin.damaged_at(*start)
    {
        return Err(error.into());
    }
    run
}

/// What a run takes besides the graph: the kernel, the caller's options, the threads
/// it runs on and who hears of its progress.
#[derive(Clone, Copy)]
struct Asked<'a> {
    kernel: Kernel,
    options: &'a RunOptions,
    threads: usize,
    progress: &'a dyn Progress,
}

/// A run made ready: planned, its hot arrays reserved, its store open, its file watched.
struct Prepared {
    plan: Plan,
    fingerprint: u128,
    /// Opened before anything else, so that a write into the file at any later point
    /// is noticed.
    watch: FileWatch,
    reservation: swapless_engine::property::PropertyReservation,
    huge_pages_before: u64,
    opened: Box<dyn EdgeStore>,
}

/// What the trials produced, for the report.
struct Trials<'a> {
    finished: Box<dyn Finished>,
    trial_seconds: Vec<f64>,
    io: swapless_store::IoStats,
    faults: (u64, u64),
    huge_page_bytes: u64,
    checkpoints: Option<Checkpoints<'a>>,
}

/// [`run_in_pool`]'s steps: prepare, run the trials, finish.
fn run_graph(
    origin: &dyn GraphOrigin,
    asked: Asked<'_>,
    load_started: Instant,
) -> Result<RunOutput, RunError> {
    let prepared = prepare(origin, asked)?;
    let watched = Watched::new(
        &*prepared.opened,
        &prepared.watch,
        asked.options.cancel.as_deref(),
        asked.progress,
    );
    let store: &dyn EdgeStore = &watched;
    let load_seconds = load_started.elapsed().as_secs_f64();
    let kernel_options =
        kernel_options(asked, store, &prepared.plan, prepared.reservation.arrays())?;
    let trials = run_trials(asked, &watched, &kernel_options, &prepared)?;
    // No result from a file that changed while the trials read it.
    prepared.watch.unchanged()?;
    let mut report = report(
        origin,
        asked,
        store,
        &kernel_options,
        &prepared,
        &trials,
        load_seconds,
    );
    report.file_checks = watched.file_checks() + 1;
    report.scan_io = watched.pattern_json(Pattern::Scan, asked.options.trials);
    report.gather_io = watched.pattern_json(Pattern::Gather, asked.options.trials);
    let permutation = store.permutation().map(<[u32]>::to_vec);
    finish(origin, asked, prepared, trials, report, permutation)
}

/// Plans the run, refuses what it cannot run, reserves the hot arrays and opens the
/// store.
fn prepare(origin: &dyn GraphOrigin, asked: Asked<'_>) -> Result<Prepared, RunError> {
    let contract = asked.kernel.contract();
    let path = origin.local_file();
    let watch = FileWatch::open(path)?;
    let graph = GraphFile::open(path)?;
    let mut placement = asked.options.placement.clone();
    placement.threads = Some(asked.threads);
    placement.place_on(origin)?;
    placement.parameter_bytes = crate::options::parameter_bytes(&asked.options.parameters);
    let plan = placement.plan(&graph, asked.kernel)?;
    // An origin that knows its weights without the lists (a far graph's manifest)
    // answers; else the file's own record does.
    let refused = match origin.negative_weights() {
        Some(negative) => contract.info().reads.weights && negative,
        None => contract.refusal(&graph)? == Some(Refusal::NegativeWeights),
    };
    if refused {
        return Err(RunError::NegativeWeights);
    }
    if contract.info().undirected_only && graph.flags().directed {
        return Err(RunError::Directed {
            kernel: contract.info().name,
        });
    }
    // Huge pages are counted from the machine-wide counter, above what it held before
    // the property arrays were reserved.
    let huge_pages_before = huge_page_bytes_now();
    // The hot arrays take their memory (and huge pages) first, before any graph data or
    // cache does (DESIGN §6); the plan has counted them within the budget.
    let array_bytes = contract.memory(GraphShape::of(&graph)).hot_arrays;
    let reservation =
        swapless_engine::property::reserve(&array_bytes, asked.options.huge_page_fraction)
            .map_err(|source| RunError::Reserve {
                bytes: array_bytes.iter().sum(),
                source,
            })?;
    let fingerprint = graph.fingerprint();
    drop(graph);
    let opened = open_store(origin, &plan, contract.info().reads)?;
    Ok(Prepared {
        plan,
        fingerprint,
        watch,
        reservation,
        huge_pages_before,
        opened,
    })
}

/// The kernel's options on `store`: its source and vertex parameters in internal ids
/// (picked reproducibly when not given), its parameters checked, its arrays from the
/// run's reservation.
fn kernel_options(
    asked: Asked<'_>,
    store: &dyn EdgeStore,
    plan: &Plan,
    arrays: &PropertyArrays,
) -> Result<KernelOptions<ParameterValues>, RunError> {
    let kernel = asked.kernel;
    let vertices = store.num_vertices();
    let picked = || {
        pick_source(store, 0).ok_or(RunError::NoSource {
            kernel: kernel.name(),
        })
    };
    let source = match (kernel.takes_source(), asked.options.source) {
        (true, Some(original)) => internal_id(store, original)?,
        (true, None) => picked()?,
        (false, _) => 0,
    };
    let mut parameters = crate::options::parameter_values(kernel, asked.options)?;
    // Vertices are given by original id, as the source is, and picked as it is when
    // not given.
    let outside = |flag: &'static str, id: u64| ParameterError::Invalid {
        flag,
        detail: format!(
            "{id} is not a vertex (the graph has ids 0..{})",
            vertices.saturating_sub(1)
        ),
    };
    for (flag, ids) in parameters.vertices_mut() {
        internal_ids(store, ids).map_err(|id| outside(flag, id))?;
        let picks = kernel.info().parameters.iter().any(|parameter| {
            parameter.flag == flag && parameter.kind == ParameterKind::Vertices { picked: true }
        });
        if ids.is_empty() && picks {
            ids.push(picked()? as u64);
        }
    }
    for (flag, weights) in parameters.vertex_weights_mut() {
        let mut ids: Vec<u64> = weights.iter().map(|&(id, _)| id).collect();
        internal_ids(store, &mut ids).map_err(|id| outside(flag, id))?;
        for ((id, _), internal) in weights.iter_mut().zip(ids) {
            *id = internal;
        }
    }
    Ok(KernelOptions {
        source,
        optional_bytes: plan.kernel_arrays().optional_bytes,
        parameters,
        arrays: arrays.clone(),
    })
}

/// Runs the timed trials (resuming the first from a checkpoint when asked), keeping the
/// last one's result.
fn run_trials<'a>(
    asked: Asked<'a>,
    watched: &Watched<'_>,
    kernel_options: &KernelOptions<ParameterValues>,
    prepared: &Prepared,
) -> Result<Trials<'a>, RunError> {
    let (kernel, options, progress) = (asked.kernel, asked.options, asked.progress);
    let store: &dyn EdgeStore = watched;
    let contract = kernel.contract();
    let faults_before = page_faults().unwrap_or((0, 0));
    let io_before = store.io_stats();
    let sampler = HugePageSampler::start(prepared.huge_pages_before);
    let mut trial_seconds = Vec::new();
    let mut finished: Option<Box<dyn Finished>> = None;
    let mut checkpoints = match &options.checkpoint {
        Some(checkpoint) => Some(Checkpoints::open(
            checkpoint,
            run_identity(kernel, prepared.fingerprint, kernel_options),
            progress,
        )?),
        None => None,
    };
    for _ in 0..options.trials {
        // The previous trial's result goes first, so trials never hold two at once.
        drop(finished.take());
        let started = Instant::now();
        let trial = || -> Result<Box<dyn Finished>, RunError> {
            let (mut running, mut steps) = match checkpoints.as_mut() {
                Some(checkpoints) => checkpoints.start(contract, store, kernel_options)?,
                None => (contract.start(store, kernel_options)?, 0),
            };
            loop {
                match running.step(store)? {
                    Step::More => {}
                    Step::Done => break,
                    Step::Refused(refusal) => return Err(refusal.into()),
                }
                steps += 1;
                // Between two steps the run stops if asked to; the store also checks at
                // every scan and gather, within a step.
                if options
                    .cancel
                    .as_deref()
                    .is_some_and(|cancel| cancel.load(Ordering::Relaxed))
                {
                    return Err(RunError::Interrupted);
                }
                if let Some(checkpoints) = checkpoints.as_mut() {
                    checkpoints.writer.after_step(steps, &mut *running)?;
                }
            }
            Ok(running.finish())
        };
        // A kernel that meets ids out of range (an index out of bounds) in a page
        // written since it was checked may panic. That is the file's doing, not a bug,
        // and is said so.
        let result = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(trial)) {
            Ok(result) => result,
            Err(panic) => {
                prepared.watch.unchanged()?;
                std::panic::resume_unwind(panic);
            }
        };
        trial_seconds.push(started.elapsed().as_secs_f64());
        finished = Some(result?);
        progress.trial_done(store.io_stats().since(&io_before).bytes_read);
        watched.trial_done();
    }
    let faults_after = page_faults().unwrap_or((0, 0));
    let io = store.io_stats().since(&io_before);
    let huge_page_bytes = sampler.stop();
    let Some(finished) = finished else {
        return Err(RunError::invalid(RunOption::Trials, "must be at least 1"));
    };
    Ok(Trials {
        finished,
        trial_seconds,
        io,
        faults: (
            faults_after.0.saturating_sub(faults_before.0),
            faults_after.1.saturating_sub(faults_before.1),
        ),
        huge_page_bytes,
        checkpoints,
    })
}

/// The report of the trials, before verification and the output.
fn report(
    origin: &dyn GraphOrigin,
    asked: Asked<'_>,
    store: &dyn EdgeStore,
    kernel_options: &KernelOptions<ParameterValues>,
    prepared: &Prepared,
    trials: &Trials<'_>,
    load_seconds: f64,
) -> RunReport {
    let options = asked.options;
    let permutation = store.permutation();
    let original = |vertex: u32| swapless_engine::kernel::original_id(permutation, vertex) as u64;
    let seconds = median(&trials.trial_seconds);
    let per_trial = options.trials as u64;
    let io = &trials.io;
    // Per trial, like `seconds`.
    let io_wait_seconds = io.io_wait_seconds / options.trials as f64;
    let compute_seconds = if io_wait_seconds.is_nan() {
        seconds
    } else {
        (seconds - io_wait_seconds).max(0.0)
    };
    let checkpoints = trials.checkpoints.as_ref();
    RunReport {
        kernel: asked.kernel.name(),
        graph: origin.shown(),
        origin: origin.kind(),
        vertices: store.num_vertices(),
        arcs: store.num_arcs(),
        tier: store.tier(),
        direct_io: store.direct_io(),
        source: asked
            .kernel
            .takes_source()
            .then(|| original(kernel_options.source)),
        threads: asked.threads,
        trials: options.trials,
        seconds,
        trial_seconds: trials.trial_seconds.clone(),
        load_seconds,
        peak_rss_bytes: 0,
        rss_at_start_bytes: 0,
        bytes_read: io.bytes_read / per_trial,
        read_requests: io.read_requests / per_trial,
        mean_queue_depth: io.mean_queue_depth(),
        scan_io: serde_json::Value::Null,
        gather_io: serde_json::Value::Null,
        max_queue_depth: io.max_queue_depth,
        cache_hit_ratio: io.cache_hit_ratio(),
        io_wait_seconds,
        compute_seconds,
        huge_page_bytes: trials.huge_page_bytes,
        huge_page_fraction: options.huge_page_fraction,
        huge_page_advised_bytes: prepared.reservation.arrays().huge_page_advised_bytes(),
        property_reserved_bytes: prepared.reservation.arrays().reserved_bytes(),
        property_unreserved_bytes: prepared.reservation.arrays().unreserved_bytes(),
        major_faults: trials.faults.0,
        minor_faults: trials.faults.1,
        verified: None,
        file_checks: 0,
        result: trials.finished.summary(&original),
        plan: PlanFigures::of(&prepared.plan),
        origin_figures: origin
            .figures()
            .map(|figures| serde_json::Map::from_iter([(origin.kind().to_string(), figures)]))
            .unwrap_or_default(),
        resumed_from_step: checkpoints.and_then(|c| c.resumed_from),
        checkpoints_written: checkpoints.map_or(0, |c| c.writer.written),
        checkpoint_seconds: checkpoints.map_or(0.0, |c| c.writer.seconds),
        restore_seconds: checkpoints.map_or(0.0, |c| c.restore_seconds),
    }
}

/// Verifies the result when asked and makes the output array, after the graph's data,
/// the caches, the buffers and the property arrays the result does not use are given
/// back: the plan counts those phases apart from the run's
/// (`KernelMemory::verification_bytes`, `KernelMemory::output_bytes`).
fn finish(
    origin: &dyn GraphOrigin,
    asked: Asked<'_>,
    prepared: Prepared,
    trials: Trials<'_>,
    mut report: RunReport,
    permutation: Option<Vec<u32>>,
) -> Result<RunOutput, RunError> {
    let Prepared {
        plan,
        watch,
        reservation,
        opened,
        ..
    } = prepared;
    drop(opened);
    drop(reservation);
    let Trials {
        finished,
        checkpoints,
        ..
    } = trials;
    if asked.options.placement.verify {
        let grant = plan.verification(asked.kernel.info().verifier_copies_lists);
        // The verifier reads a whole file itself: the origin's (a far graph's is fetched
        // into the cache folder first, and removed once verified; the budget bounds what
        // of it is mapped, the disk holds it only meanwhile).
        let copy = origin.verify_copy()?;
        let graph = GraphFile::open_bounded(copy.path(), grant.mapped_bytes)?;
        let verified = finished
            .verify(&graph, grant.block_bytes)
            .map_err(RunError::Verification);
        drop(graph);
        if let Some(bytes) = copy.fetched_bytes() {
            let folder = copy.path().parent().map(Path::to_path_buf);
            drop(copy);
            if let Some(serde_json::Value::Object(figures)) =
                report.origin_figures.get_mut(origin.kind())
            {
                figures.insert("verify_copy_bytes".to_string(), bytes.into());
            }
            asked.progress.note(&format!(
                "checked the result against a whole copy of the graph ({}) fetched into {} and removed since",
                swapless_system::format_bytes(bytes),
                folder.unwrap_or_default().display()
            ));
        }
        verified?;
        watch.unchanged()?;
        report.verified = Some(true);
    }
    let warnings = finished.warnings();
    let array = match asked.options.placement.output_array {
        true => finished.output(permutation.as_deref()),
        false => ResultArray::None,
    };
    drop(permutation);
    if let Some(checkpoints) = &checkpoints {
        checkpoints.writer.finished();
    }
    // The peak of the whole run, the phases after it included.
    report.peak_rss_bytes = peak_rss_bytes().unwrap_or(0);
    Ok(RunOutput {
        warnings,
        array,
        report,
        plan,
    })
}

/// The internal id of original vertex `original`.
fn internal_id(store: &dyn EdgeStore, original: u64) -> Result<u32, RunError> {
    let mut ids = [original];
    internal_ids(store, &mut ids).map_err(|_| RunError::NotAVertex {
        source_id: original,
        vertices: store.num_vertices() as u64,
    })?;
    Ok(ids[0] as u32)
}

/// Maps the original ids `ids` to internal ids in place, in one pass over the
/// permutation whatever their number; `Err` names one that is not a vertex.
fn internal_ids(store: &dyn EdgeStore, ids: &mut [u64]) -> Result<(), u64> {
    let vertices = store.num_vertices() as u64;
    if let Some(&outside) = ids.iter().find(|&&id| id >= vertices) {
        return Err(outside);
    }
    let Some(new_to_old) = store.permutation() else {
        return Ok(());
    };
    let mut wanted: Vec<u64> = ids.to_vec();
    wanted.sort_unstable();
    wanted.dedup();
    let mut internal = vec![0u64; wanted.len()];
    for (new, &old) in new_to_old.iter().enumerate() {
        if let Ok(at) = wanted.binary_search(&(old as u64)) {
            internal[at] = new as u64;
        }
    }
    for id in ids.iter_mut() {
        if let Ok(at) = wanted.binary_search(id) {
            *id = internal[at];
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::atomic::AtomicU64;

    use super::*;
    use crate::{Placement, Quiet};

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
        run(&path, Kernel::from_name("pr").unwrap(), &options, &recorder).unwrap();
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
            plan.segments()
                .iter()
                .any(|segment| segment.name == "result as output array")
        };
        let with_array = Placement::new(None, Some(Tier::Direct));
        let without_array = Placement {
            output_array: false,
            ..with_array.clone()
        };
        let planned_with = with_array
            .plan(&graph, Kernel::from_name("bfs").unwrap())
            .unwrap();
        let planned_without = without_array
            .plan(&graph, Kernel::from_name("bfs").unwrap())
            .unwrap();
        assert!(output_segment(&planned_with));
        assert!(!output_segment(&planned_without));
        assert!(planned_without.minimum_bytes() <= planned_with.minimum_bytes());
        let options = RunOptions {
            placement: Placement {
                verify: true,
                ..without_array
            },
            ..RunOptions::default()
        };
        let output = run(&path, Kernel::from_name("bfs").unwrap(), &options, &Quiet).unwrap();
        assert!(matches!(output.array, ResultArray::None));
        assert_eq!(output.report.verified, Some(true));
        assert!(output.report.result["reached"].as_u64().unwrap() > 0);
    }
}
