//! `swapless._core`: the Rust side of the Python package. Each function takes plain
//! values (paths, numbers, JSON text for option bundles) and returns numpy arrays or
//! JSON text; `python/swapless/__init__.py` gives them their Pythonic shape. Long work
//! runs with the GIL released on a worker thread while this thread watches for Ctrl-C.

mod building;
mod lists;
mod progress;

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use swapless_run::checkpoint::{CheckpointError, CheckpointEvery, CheckpointOptions};

use numpy::{IntoPyArray, PyArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyOSError, PyResourceWarning, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use serde_json::{Value, json};
use swapless_build::BuildError;
use swapless_format::{GraphFile, VertexIds};
use swapless_run::{
    Given, Kernel, ParameterError, ParameterKind, Placement, ResultArray, RunError, RunOption,
    RunOptions, Warning,
};
use swapless_store::Tier;
use swapless_system::{beyond_usable_memory_warning, parse_size};

create_exception!(
    swapless,
    FormatError,
    PyException,
    "A graph or input file is not what it should be: not a .sl file, damaged, cut short, or unparsable."
);
create_exception!(
    swapless,
    BudgetError,
    PyException,
    "The memory budget cannot hold the run or build; the message says the least that works."
);
create_exception!(
    swapless,
    VerificationError,
    PyException,
    "A kernel's result disagreed with its serial verifier."
);

fn format_error(error: swapless_format::FormatError) -> PyErr {
    match error {
        swapless_format::FormatError::Io { .. } => PyOSError::new_err(error.to_string()),
        other => FormatError::new_err(other.to_string()),
    }
}

/// How the Python API spells `option`.
fn keyword(option: RunOption) -> &'static str {
    match option {
        RunOption::Trials => "trials",
        RunOption::Threads => "threads",
        RunOption::HugePageFraction => "hugepages",
        RunOption::Source => "source",
        RunOption::ChunkBytes => "chunk",
        RunOption::QueueDepth => "queue_depth",
        RunOption::GatherCacheFraction => "gather_cache",
        RunOption::Tier => "tier",
    }
}

/// A store error with what to do, in keywords.
fn store_sentence(error: &swapless_store::StoreError) -> String {
    use swapless_store::StoreError;
    match error {
        StoreError::Budget {
            needed_bytes,
            verifying,
            ..
        } => {
            let least = needed_bytes.div_ceil(1 << 20);
            match verifying {
                false => format!("{error}; raise memory= to at least \"{least}M\""),
                true => format!(
                    "{error}; raise memory= to at least \"{least}M\" or run without verify=True"
                ),
            }
        }
        StoreError::NoMemory { .. } => {
            format!("{error}; lower memory= to what this process may map")
        }
        StoreError::IoUring { .. } => format!("{error}; open the graph with tier=\"mmap\""),
        other => other.to_string(),
    }
}

fn run_error(error: RunError) -> PyErr {
    match error {
        RunError::InvalidOption { option, detail } => {
            PyValueError::new_err(format!("{} {detail}", keyword(option)))
        }
        RunError::NotTaken { kernel, option } => {
            PyValueError::new_err(format!("{kernel} takes no {}=", keyword(option)))
        }
        RunError::Parameter(error) => PyValueError::new_err(parameter_sentence(&error)),
        RunError::NotAVertex { .. }
        | RunError::NoSource { .. }
        | RunError::NegativeWeights
        | RunError::ZeroWeightPaths
        | RunError::Directed { .. }
        | RunError::Threads { .. }
        | RunError::TooManyThreads { .. } => PyValueError::new_err(error.to_string()),
        RunError::Format(error) => format_error(error),
        RunError::Budget(error) => BudgetError::new_err(store_sentence(&error)),
        RunError::Store(swapless_store::StoreError::Format(error)) => format_error(error),
        RunError::Store(error) => far_store_error(error),
        RunError::Reserve { .. } => pyo3::exceptions::PyMemoryError::new_err(error.to_string()),
        RunError::Verification(message) => VerificationError::new_err(message),
        RunError::Interrupted => {
            pyo3::exceptions::PyKeyboardInterrupt::new_err("the run was interrupted")
        }
        RunError::Checkpoint(
            error @ (CheckpointError::Folder { .. } | CheckpointError::Write { .. }),
        ) => PyOSError::new_err(error.to_string()),
        RunError::Checkpoint(CheckpointError::OtherRun {
            path,
            field,
            saved,
            this,
        }) if field.starts_with("option ") => {
            let name = parameter_keyword(&field["option ".len()..]);
            PyValueError::new_err(format!(
                "the checkpoint {} was written by a run with {name}={saved}, and this run has {name}={this}; run with {name}={saved} to resume it, or give another checkpoint folder",
                path.display()
            ))
        }
        RunError::Checkpoint(error) => PyValueError::new_err(error.to_string()),
    }
}

/// The Python keyword of the kernel parameter whose flag is `flag` (`alpha` for
/// `damping`); `flag` itself for the run's own options (`source`).
fn parameter_keyword(flag: &str) -> &str {
    Kernel::all()
        .flat_map(|kernel| kernel.info().parameters)
        .find(|parameter| parameter.flag == flag)
        .map_or(flag, |parameter| parameter.keyword)
}

/// A kernel parameter's error, in keywords.
fn parameter_sentence(error: &ParameterError) -> String {
    match error {
        ParameterError::NotTaken { kernel, flag } => {
            format!("{kernel} takes no {}=", parameter_keyword(flag))
        }
        ParameterError::Invalid { flag, detail } => {
            format!("{} {detail}", parameter_keyword(flag))
        }
        ParameterError::Missing { kernel, flag } => {
            format!("{kernel} needs {}=", parameter_keyword(flag))
        }
    }
}

/// A kernel's warning about its result, in keywords.
fn warning_sentence(kernel: Kernel, warning: &Warning) -> String {
    match warning {
        Warning::NotConverged {
            iterations,
            last_change,
            tolerance,
            cap,
            tolerance_flag,
        } => format!(
            "{} stopped at {}={iterations} with a change of {last_change:.2e}, above {}={tolerance}; the scores are not converged",
            kernel.name(),
            parameter_keyword(cap),
            parameter_keyword(tolerance_flag)
        ),
        Warning::Diverged {
            iterations,
            parameter,
        } => format!(
            "{}'s values overflowed after {iterations} iterations: the series diverges, so the scores mean nothing (lower {}=)",
            kernel.name(),
            parameter_keyword(parameter)
        ),
    }
}

/// A progress line on standard error, redrawn at most ten times a second, when standard
/// error is a terminal; silent otherwise (a notebook, a log, a pipe).
struct TerminalLine {
    verb: &'static str,
    started: std::time::Instant,
    /// When the line was last drawn (`None` off a terminal).
    drawn: Option<std::sync::Mutex<std::time::Instant>>,
}

impl TerminalLine {
    fn new(verb: &'static str) -> TerminalLine {
        use std::io::IsTerminal;
        let started = std::time::Instant::now();
        let drawn = std::io::stderr()
            .is_terminal()
            .then(|| std::sync::Mutex::new(started));
        TerminalLine {
            verb,
            started,
            drawn,
        }
    }

    /// Shows `done` of `total` bytes and the rate so far.
    fn show(&self, done: u64, total: u64) {
        let Some(drawn) = &self.drawn else { return };
        let Ok(mut last) = drawn.lock() else { return };
        if last.elapsed() < std::time::Duration::from_millis(100) && done < total {
            return;
        }
        *last = std::time::Instant::now();
        let mebibytes = |bytes: u64| bytes as f64 / (1 << 20) as f64;
        let seconds = self.started.elapsed().as_secs_f64().max(1e-3);
        eprint!(
            "\r{} {:.1} of {:.1} MiB ({:.0} MiB/s)   ",
            self.verb,
            mebibytes(done),
            mebibytes(total),
            mebibytes(done) / seconds
        );
    }

    /// Ends the line, if one was drawn.
    fn finish(&self) {
        if self.drawn.is_some() {
            eprintln!();
        }
    }
}

/// A far-memory error as the OSError subclass that says what kind it is.
fn far_error(error: &swapless_far::FarError) -> PyErr {
    use swapless_far::{FarError, PASSWORD_VARIABLE};
    let sentence = error.to_string();
    match error {
        FarError::Unreachable { .. } | FarError::Timeout { .. } => {
            pyo3::exceptions::PyConnectionError::new_err(sentence)
        }
        FarError::Refused { .. } => pyo3::exceptions::PyPermissionError::new_err(format!(
            "{sentence}; set the password in {PASSWORD_VARIABLE}"
        )),
        FarError::NotFound { .. } => pyo3::exceptions::PyFileNotFoundError::new_err(sentence),
        FarError::NameTaken { .. } => {
            pyo3::exceptions::PyFileExistsError::new_err(format!("{sentence} (pass replace=True)"))
        }
        FarError::BadAddress { .. } => PyValueError::new_err(sentence),
        _ => PyOSError::new_err(sentence),
    }
}

/// A store error, a far graph's among them, as the exception that says what kind it is.
fn far_store_error(error: swapless_store::StoreError) -> PyErr {
    if let Some(far) = swapless_far::far_error(&error) {
        return far_error(far);
    }
    match error {
        swapless_store::StoreError::Format(error) => format_error(error),
        other => PyOSError::new_err(store_sentence(&other)),
    }
}

fn build_error(error: BuildError) -> PyErr {
    match error {
        BuildError::Io { .. } => PyOSError::new_err(error.to_string()),
        BuildError::BudgetTooSmall { needed_bytes, .. } => BudgetError::new_err(format!(
            "{error}; raise memory= to at least \"{}\"",
            swapless_system::format_bytes_up(needed_bytes)
                .replace(' ', "")
                .replace("iB", "")
        )),
        BuildError::IdsNeedPasses {
            least_budget_bytes, ..
        } => BudgetError::new_err(format!(
            "{error}; raise memory= to at least \"{}\"",
            swapless_system::format_bytes_up(least_budget_bytes)
                .replace(' ', "")
                .replace("iB", "")
        )),
        BuildError::InvalidOption { .. }
        | BuildError::InvalidArray(_)
        | BuildError::BudgetBeyondMachine { .. } => PyValueError::new_err(error.to_string()),
        BuildError::NoWeights { .. } => {
            FormatError::new_err(format!("{error}; pass weighted=False"))
        }
        BuildError::Interrupted => pyo3::exceptions::PyKeyboardInterrupt::new_err(
            "interrupted; no output was written and temporary files were removed",
        ),
        other => FormatError::new_err(other.to_string()),
    }
}

/// Bytes from a size such as "1G" or a plain number of bytes.
fn size(text: Option<&str>, what: &str) -> PyResult<Option<u64>> {
    text.map(|text| {
        parse_size(text).ok_or_else(|| {
            PyValueError::new_err(format!(
                "{what}={text:?} is not a size; write it like \"512M\", \"2G\" or a number of bytes"
            ))
        })
    })
    .transpose()
}

/// A `memory=` budget in bytes; one beyond what the process may use raises a
/// ResourceWarning, as the CLI warns: the budget is a promise only while the memory exists.
fn memory_size(py: Python<'_>, text: Option<&str>) -> PyResult<Option<u64>> {
    let bytes = size(text, "memory")?;
    let setting = format!("memory={:?}", text.unwrap_or_default());
    if let Some(message) = bytes.and_then(|bytes| beyond_usable_memory_warning(&setting, bytes)) {
        let category = py.get_type::<PyResourceWarning>();
        PyErr::warn(py, &category, &CString::new(message).unwrap_or_default(), 1)?;
    }
    Ok(bytes)
}

fn tier(name: Option<&str>) -> PyResult<Option<Tier>> {
    match name {
        None => Ok(None),
        Some("dram") => Ok(Some(Tier::Dram)),
        Some("mmap") => Ok(Some(Tier::Mmap)),
        Some("direct") => Ok(Some(Tier::Direct)),
        Some(other) => Err(PyValueError::new_err(format!(
            "tier={other:?} is not a tier; use \"dram\", \"mmap\", \"direct\" or None"
        ))),
    }
}

fn kernel(name: &str) -> PyResult<Kernel> {
    Kernel::from_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("{name:?} is not a kernel")))
}

/// Runs `work` on a new thread with the GIL released, checking for Ctrl-C every 50 ms
/// and handing `reporter` its chance to show progress. On Ctrl-C (or an exception from
/// the progress bar), `cancel` is set and, with `wait_after_cancel`, the work is waited
/// for (a build stops and removes its temporary files; a kernel run stops at its next
/// scan or gather) before the exception is raised.
fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    cancel: Arc<AtomicBool>,
    wait_after_cancel: bool,
    reporter: &mut progress::Reporter,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(work());
    });
    // Only this thread receives; the mutex makes the receiver shareable with `detach`.
    let receiver = std::sync::Mutex::new(receiver);
    let receive = |timeout: Option<Duration>| {
        let receiver = receiver.lock().unwrap_or_else(|poison| poison.into_inner());
        match timeout {
            Some(timeout) => receiver.recv_timeout(timeout),
            None => receiver
                .recv()
                .map_err(|_| std::sync::mpsc::RecvTimeoutError::Disconnected),
        }
    };
    loop {
        let received = py.detach(|| receive(Some(Duration::from_millis(50))));
        match received {
            Ok(value) => {
                reporter.finish(py)?;
                return Ok(value);
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if let Err(interrupt) = py.check_signals().and_then(|()| reporter.tick(py)) {
                    cancel.store(true, Ordering::SeqCst);
                    if wait_after_cancel {
                        let _ = py.detach(|| receive(None));
                    }
                    return Err(interrupt);
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err(
                    "the engine's worker thread ended without a result (a bug: please report it)",
                ));
            }
        }
    }
}

/// Facts about a .sl file, as JSON.
#[pyfunction]
fn graph_info(path: PathBuf) -> PyResult<String> {
    // A graph from elsewhere (far memory) is described from its local file (the cache
    // of its vertex sections).
    let origin = open_origin(&path)?;
    let graph = GraphFile::open(origin.local_file()).map_err(format_error)?;
    let flags = graph.flags();
    let info = json!({
        "path": path.display().to_string(),
        "vertices": graph.num_vertices(),
        "arcs": graph.num_arcs(),
        "edges": graph.num_edges(),
        "self_loops": graph.num_self_loops(),
        "directed": flags.directed,
        "weighted": flags.weighted,
        "reordered": graph.permutation().is_some(),
        "ids": match flags.ids {
            swapless_format::IdKind::Dense => "dense",
            swapless_format::IdKind::Integers => "integers",
            swapless_format::IdKind::Names => "names",
        },
        "file_bytes": graph.file_bytes(),
        "version": graph.header().version,
        "lists": swapless_format::ListForm::of(&graph).name(),
        "list_bytes": graph.list_bytes(),
        "list_bytes_per_arc": graph.list_bytes_per_arc(),
        "origin": origin.kind(),
        "tiers": origin.tiers().iter().map(|tier| tier.name()).collect::<Vec<_>>(),
        "far": (origin.kind() == "far").then(|| origin.shown()),
        "sections": graph.header().sections.iter().map(|entry| json!({
            "name": entry.name, "bytes": entry.length,
        })).collect::<Vec<_>>(),
    });
    Ok(info.to_string())
}

/// The origin of the graph `path` names (a local file, a far graph), reached with the
/// default options.
fn open_origin(path: &Path) -> PyResult<Box<dyn swapless_store::GraphOrigin>> {
    swapless_run::open_origin(
        path,
        &swapless_store::OriginOptions::default(),
        &swapless_run::Quiet,
    )
    .map_err(run_error)
}

/// The input's ids of a compacted graph's vertices: an int64 array, or a list of names;
/// None for a graph whose ids are its vertices.
#[pyfunction]
fn vertex_ids(py: Python<'_>, path: PathBuf) -> PyResult<Option<Py<PyAny>>> {
    let ids = swapless_run::load_vertex_ids(&*open_origin(&path)?).map_err(run_error)?;
    Ok(match ids {
        None => None,
        Some(VertexIds::Integers(integers)) => Some(integers.into_pyarray(py).into_any().unbind()),
        Some(names @ VertexIds::Names { .. }) => {
            let list: Vec<String> = (0..names.len()).map(|v| names.text(v)).collect();
            Some(list.into_pyobject(py)?.into_any().unbind())
        }
    })
}

/// Each vertex's count of out- or in-neighbors (`direction` "out" or "in"; the same on
/// an undirected graph), in the order of every result array, read from the offsets.
#[pyfunction]
fn degrees(py: Python<'_>, path: PathBuf, direction: &str) -> PyResult<Py<PyAny>> {
    let origin = open_origin(&path)?;
    let graph = GraphFile::open(origin.local_file()).map_err(format_error)?;
    let offsets = match direction {
        "out" => graph.out_offsets(),
        "in" => graph.in_offsets().unwrap_or(graph.out_offsets()),
        other => {
            return Err(PyValueError::new_err(format!(
                "direction must be \"out\" or \"in\", not {other:?}"
            )));
        }
    };
    let mut counts = vec![0u64; graph.num_vertices()];
    for (vertex, pair) in offsets.windows(2).enumerate() {
        let original = graph.permutation().map_or(vertex, |p| p[vertex] as usize);
        counts[original] = pair[1] - pair[0];
    }
    Ok(counts.into_pyarray(py).into_any().unbind())
}

/// What a table of `kernel`'s results calls their column, and whether its values are
/// vertices.
#[pyfunction]
fn kernel_column(kernel_name: &str) -> PyResult<(&'static str, bool)> {
    let column = kernel(kernel_name)?.info().column;
    Ok((column.name, column.vertices))
}

/// Every kernel and its parameters, as JSON: what `swapless.run` takes.
#[pyfunction]
fn kernels() -> String {
    let kind = |kind: ParameterKind| match kind {
        ParameterKind::Number { .. } => "number",
        ParameterKind::Count { .. } => "count",
        ParameterKind::CountOrAll => "count or all",
        ParameterKind::Choice(_) => "choice",
        ParameterKind::Vertices { .. } => "vertices",
        ParameterKind::VertexWeights => "vertex weights",
    };
    let described: Vec<Value> = Kernel::all()
        .map(|kernel| {
            let info = kernel.info();
            let parameters: Vec<Value> = info
                .parameters
                .iter()
                .map(|parameter| {
                    json!({
                        "keyword": parameter.keyword,
                        "help": parameter.help,
                        "kind": kind(parameter.kind),
                        "must_be": parameter.must_be(),
                        "default": parameter.default,
                    })
                })
                .collect();
            json!({
                "name": info.name,
                "about": info.about,
                "takes_source": info.takes_source,
                "returns_a_number": kernel.returns_a_number(),
                "returns_edges": kernel.returns_edges(),
                "parameters": parameters,
            })
        })
        .collect();
    Value::from(described).to_string()
}

/// The placement plan of `kernel` on the graph, as JSON.
#[pyfunction]
#[pyo3(signature = (path, kernel_name, memory=None, tier_name=None, verify=false))]
fn plan(
    py: Python<'_>,
    path: PathBuf,
    kernel_name: &str,
    memory: Option<&str>,
    tier_name: Option<&str>,
    verify: bool,
) -> PyResult<String> {
    let mut placement = Placement::new(memory_size(py, memory)?, tier(tier_name)?);
    placement.verify = verify;
    let plan = swapless_run::plan(&path, kernel(kernel_name)?, &placement).map_err(run_error)?;
    Ok(swapless_run::plan_json(&plan).to_string())
}

/// Runs a kernel; returns the result array (None for triangle counting) and the report as
/// JSON. `progress`, if given, is called with a dict of the progress a few times a second.
#[pyfunction]
#[pyo3(signature = (path, kernel_name, options, progress=None))]
fn run(
    py: Python<'_>,
    path: PathBuf,
    kernel_name: &str,
    options: &str,
    progress: Option<Py<PyAny>>,
) -> PyResult<(Option<Py<PyAny>>, String)> {
    let kernel = kernel(kernel_name)?;
    let options: Value = serde_json::from_str(options)
        .map_err(|error| PyValueError::new_err(format!("bad options: {error}")))?;
    let text = |key: &str| options[key].as_str().map(str::to_string);
    let mut run_options = RunOptions {
        placement: Placement::new(
            memory_size(py, text("memory").as_deref())?,
            tier(text("tier").as_deref())?,
        ),
        ..RunOptions::default()
    };
    if let Some(source) = options["source"].as_u64() {
        run_options.source = Some(source);
    } else if !options["source"].is_null() {
        return Err(PyValueError::new_err(
            "source must be a vertex id (a non-negative integer) or None",
        ));
    }
    run_options.threads = options["threads"].as_u64().map(|threads| threads as usize);
    // The kernel's parameters by their keywords, its own first (kernels may share a
    // keyword under different flags: `alpha` is pr's damping and katz's attenuation); a
    // keyword of another kernel's is passed on for the run to refuse in its own words.
    let own = kernel.info().parameters.iter();
    let mut keywords_read = Vec::new();
    for parameter in own.chain(Kernel::all().flat_map(|kernel| kernel.info().parameters)) {
        let value = &options[parameter.keyword];
        if value.is_null() || keywords_read.contains(&parameter.keyword) {
            continue;
        }
        keywords_read.push(parameter.keyword);
        let value = parameter
            .from_json(value)
            .map_err(|detail| PyValueError::new_err(format!("{} {detail}", parameter.keyword)))?;
        run_options.parameters.push(Given {
            flag: parameter.flag.to_string(),
            value,
        });
    }
    if let Some(chunk) = text("chunk") {
        run_options.placement.chunk_bytes = size(Some(&chunk), "chunk")?;
    }
    if let Some(depth) = options["queue_depth"].as_u64() {
        run_options.placement.queue_depth = depth as usize;
    }
    if let Some(fraction) = options["hugepages"].as_f64() {
        run_options.huge_page_fraction = fraction;
    }
    run_options.placement.verify = options["verify"].as_bool().unwrap_or(false);
    if let Some(folder) = text("checkpoint") {
        let every = text("checkpoint_every").unwrap_or_else(|| "auto".to_string());
        run_options.checkpoint = Some(CheckpointOptions {
            folder: PathBuf::from(folder),
            every: CheckpointEvery::parse(&every).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "checkpoint_every={every:?} must be \"auto\", a time like \"90s\", \"5m\" or \"1h\", or a number of steps"
                ))
            })?,
            // A folder that holds a checkpoint of the same run is resumed from.
            resume: true,
        });
    }

    let cancel = Arc::new(AtomicBool::new(false));
    run_options.cancel = Some(cancel.clone());
    // On Ctrl-C the run stops at its next scan or gather; waiting for that keeps two
    // runs' memory from ever overlapping.
    let shared = Arc::new(progress::SharedProgress::default());
    let mut reporter = progress::Reporter::new(shared.clone(), progress);
    let output = interruptible(py, cancel, true, &mut reporter, move || {
        swapless_run::run(&path, kernel, &run_options, shared.as_ref())
    })?
    .map_err(run_error)?;
    let array = match output.array {
        ResultArray::Int64(values) => Some(values.into_pyarray(py).into_any().unbind()),
        ResultArray::Float64(values) => Some(values.into_pyarray(py).into_any().unbind()),
        ResultArray::Int8(values) => Some(values.into_pyarray(py).into_any().unbind()),
        ResultArray::Edges(pairs) => {
            let rows = pairs.len();
            let flat = pairs.into_flattened().into_pyarray(py);
            let wide = flat.cast_array::<i64>(false)?;
            Some(wide.reshape([rows, 2])?.into_any().unbind())
        }
        ResultArray::None => None,
    };
    let mut report = output.report.to_json();
    report["warnings"] = output
        .warnings
        .iter()
        .map(|warning| warning_sentence(kernel, warning))
        .collect::<Vec<_>>()
        .into();
    Ok((array, report.to_string()))
}

/// A `memory=` size in bytes (None for None), or ValueError: for checking a budget when
/// a graph is opened rather than at its first kernel.
#[pyfunction]
#[pyo3(signature = (text=None))]
fn memory_bytes(py: Python<'_>, text: Option<&str>) -> PyResult<Option<u64>> {
    memory_size(py, text)
}

/// Stores the .sl file at `path` in far memory at `url`; returns the push's report as JSON.
#[pyfunction]
#[pyo3(signature = (path, url, chunk="252K", replace=false, memory="64M", timeout=10.0))]
fn far_push(
    py: Python<'_>,
    path: PathBuf,
    url: &str,
    chunk: &str,
    replace: bool,
    memory: &str,
    timeout: f64,
) -> PyResult<String> {
    use swapless_far::{FAR_CHUNK_RANGE, FarAddress, PushOptions};
    let address = FarAddress::parse(url).map_err(|error| far_error(&error))?;
    if address.name.is_empty() {
        return Err(PyValueError::new_err(format!(
            "{} names no graph; end it with /NAME",
            address.display()
        )));
    }
    let chunk_bytes = swapless_system::parse_size(chunk)
        .filter(|size| FAR_CHUNK_RANGE.contains(size) && size % 4096 == 0)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "chunk={chunk:?} must be a multiple of 4K from 4K to 4M"
            ))
        })?;
    let buffer_bytes = swapless_system::parse_size(memory).ok_or_else(|| {
        PyValueError::new_err(format!("memory={memory:?} is not a size like \"64M\""))
    })?;
    if !(timeout.is_finite() && timeout > 0.0) {
        return Err(PyValueError::new_err(
            "timeout must be a positive number of seconds",
        ));
    }
    let options = PushOptions {
        chunk_bytes,
        replace,
        buffer_bytes,
        timeout: std::time::Duration::from_secs_f64(timeout),
    };
    let progress = TerminalLine::new("pushed");
    let report = py
        .detach(|| {
            swapless_far::push(&path, &address, &options, &|sent, total| {
                progress.show(sent, total)
            })
        })
        .map_err(far_store_error)?;
    progress.finish();
    Ok(json!({
        "url": address.display(),
        "already_stored": report.already_stored,
        "repaired_chunks": report.repaired_chunks,
        "bytes_sent": report.bytes_sent,
        "nodes": report.nodes,
        "chunks": report.manifest.chunks(),
        "chunk_bytes": report.manifest.chunk_bytes,
        "fingerprint": report.manifest.fingerprint,
        "replaced": report.replaced,
    })
    .to_string())
}

/// Checks every checksum and structural invariant of a .sl file.
#[pyfunction]
fn check(path: PathBuf) -> PyResult<()> {
    if let Some(text) = path
        .to_str()
        .filter(|text| swapless_far::is_far_address(text))
    {
        let address = swapless_far::FarAddress::parse(text).map_err(|error| far_error(&error))?;
        return swapless_far::check(&address, std::time::Duration::from_secs(10))
            .map(|_| ())
            .map_err(far_store_error);
    }
    swapless_format::check_file(Path::new(&path))
        .map(|_| ())
        .map_err(format_error)
}

/// The module.
#[pymodule]
fn _core(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add("FormatError", py.get_type::<FormatError>())?;
    module.add("BudgetError", py.get_type::<BudgetError>())?;
    module.add("VerificationError", py.get_type::<VerificationError>())?;
    module.add_function(wrap_pyfunction!(graph_info, module)?)?;
    module.add_function(wrap_pyfunction!(vertex_ids, module)?)?;
    module.add_function(wrap_pyfunction!(degrees, module)?)?;
    module.add_function(wrap_pyfunction!(kernel_column, module)?)?;
    module.add_function(wrap_pyfunction!(kernels, module)?)?;
    module.add_function(wrap_pyfunction!(memory_bytes, module)?)?;
    module.add_function(wrap_pyfunction!(plan, module)?)?;
    module.add_function(wrap_pyfunction!(run, module)?)?;
    module.add_function(wrap_pyfunction!(building::build, module)?)?;
    module.add_function(wrap_pyfunction!(building::generate, module)?)?;
    module.add_function(wrap_pyfunction!(building::from_edges, module)?)?;
    module.add_function(wrap_pyfunction!(check, module)?)?;
    module.add_function(wrap_pyfunction!(far_push, module)?)?;
    module.add_class::<lists::PyListReader>()?;
    Ok(())
}
