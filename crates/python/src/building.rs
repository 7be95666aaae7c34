//! Building `.sl` files from Python: files, generators and arrays, each within a
//! memory budget, interruptible with Ctrl-C, their progress handed to a Python bar.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use swapless_build::generators::{GridSource, SyntheticKind, SyntheticSource};
use swapless_build::ids::IdMode;
use swapless_build::importers::{
    ColumnChoice, HeaderChoice, ImportOptions, TableColumns, build_input,
};
use swapless_build::{BuildOptions, EdgeSource, OutHeads, Reorder, SelfLoops, build_graph};
use swapless_format::ListForm;

use crate::progress::{Reporter, SharedProgress};
use crate::{build_error, format_error, interruptible, memory_size};

/// A table's column as Python names it: by name, or by position from 0 (pandas'
/// `usecols`).
#[derive(FromPyObject)]
pub(crate) enum Column {
    /// Its position, from 0.
    Position(usize),
    /// Its name in the header.
    Name(String),
}

impl Column {
    fn choice(self) -> ColumnChoice {
        match self {
            Column::Position(position) => ColumnChoice::Position(position + 1),
            Column::Name(name) => ColumnChoice::Name(name),
        }
    }
}

/// What a build reads.
enum Input {
    /// A generator or arrays.
    Source(Box<dyn EdgeSource>),
    /// A file, opened by the build (which may read it again to compact its ids), and
    /// the columns of a table.
    File(PathBuf, ImportOptions, TableColumns),
}

/// The options of a build within `memory_bytes`, its choices as Python names them.
fn build_options(
    memory_bytes: u64,
    reorder: Option<&str>,
    out_heads: &str,
    lists: &str,
    self_loops: &str,
) -> PyResult<BuildOptions> {
    let mut options = BuildOptions::with_memory(memory_bytes);
    options.self_loops = match self_loops {
        "keep" => SelfLoops::Keep,
        "drop" => SelfLoops::Drop,
        other => {
            return Err(PyValueError::new_err(format!(
                "self_loops={other:?} is not a choice; use \"keep\" or \"drop\""
            )));
        }
    };
    options.reorder = match reorder {
        None => Reorder::None,
        Some("dbg") => Reorder::DegreeBasedGrouping,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "reorder={other:?} is not a reordering; use \"dbg\" or None"
            )));
        }
    };
    options.out_heads = match out_heads {
        "auto" => OutHeads::Auto,
        "always" => OutHeads::Always,
        "never" => OutHeads::Never,
        other => {
            return Err(PyValueError::new_err(format!(
                "out_heads={other:?} is not a choice; use \"auto\", \"always\" or \"never\""
            )));
        }
    };
    options.lists = ListForm::from_name(lists).ok_or_else(|| {
        PyValueError::new_err(format!(
            "lists={lists:?} is not a form of lists; use \"plain\" or \"compressed\""
        ))
    })?;
    Ok(options)
}

/// Builds `output` from `input` with `options`; returns the build report as JSON.
fn build_from(
    py: Python<'_>,
    input: Input,
    output: PathBuf,
    mut options: BuildOptions,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    // A folder, device or missing folder is refused before the input is read.
    swapless_format::output::seekable_output_target(&output).map_err(format_error)?;
    if output.extension().is_none_or(|extension| extension != "sl") {
        return Err(PyValueError::new_err(format!(
            "the output {} should end in .sl so swapless recognizes it",
            output.display()
        )));
    }
    let cancel = Arc::new(AtomicBool::new(false));
    options.cancel = Some(cancel.clone());
    let output_path = output.clone();
    // The report's peak is this build's, not the interpreter's earlier work's.
    swapless_system::reset_peak_rss();
    let shared = Arc::new(SharedProgress::default());
    options.progress = Some(shared.clone());
    let mut reporter = Reporter::new(shared, progress);
    let report = interruptible(py, cancel, true, &mut reporter, move || match input {
        Input::Source(mut source) => build_graph(source.as_mut(), &output, &options),
        Input::File(path, import, columns) => {
            build_input(&path, import, &columns, &output, &options)
        }
    })?
    .map_err(build_error)?;
    let peak_rss = swapless_system::peak_rss_bytes().unwrap_or(0);
    Ok(report.to_json(&output_path, peak_rss).to_string())
}

/// Imports an edge list, Matrix Market or GAP file into a .sl file.
#[pyfunction]
#[pyo3(signature = (input, output, memory=None, undirected=false, weighted=false, reorder=None, out_heads="auto", ids="auto", source_col=None, target_col=None, weight_col=None, header=None, lists="plain", self_loops="keep", progress=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn build(
    py: Python<'_>,
    input: PathBuf,
    output: PathBuf,
    memory: Option<&str>,
    undirected: bool,
    weighted: bool,
    reorder: Option<&str>,
    out_heads: &str,
    ids: &str,
    source_col: Option<Column>,
    target_col: Option<Column>,
    weight_col: Option<Column>,
    header: Option<bool>,
    lists: &str,
    self_loops: &str,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    if swapless_format::output::same_file(&input, &output) {
        return Err(PyValueError::new_err(format!(
            "{} and {} are the same file; write the output to a different file from the input",
            input.display(),
            output.display()
        )));
    }
    let budget = memory_size(py, memory)?.unwrap_or_else(swapless_run::default_memory_budget);
    let ids = match ids {
        "auto" => IdMode::Auto,
        "dense" => IdMode::Dense,
        "compact" => IdMode::Compact,
        other => {
            return Err(PyValueError::new_err(format!(
                "ids={other:?} is not a choice; use \"auto\", \"dense\" or \"compact\""
            )));
        }
    };
    let import = ImportOptions {
        undirected,
        weighted,
        ids,
    };
    let columns = TableColumns {
        source: source_col.map(Column::choice),
        target: target_col.map(Column::choice),
        weight: weight_col.map(Column::choice),
        header: match header {
            None => HeaderChoice::Auto,
            Some(true) => HeaderChoice::Yes,
            Some(false) => HeaderChoice::No,
        },
    };
    let options = build_options(budget, reorder, out_heads, lists, self_loops)?;
    build_from(
        py,
        Input::File(input, import, columns),
        output,
        options,
        progress,
    )
}

/// Generates a synthetic graph (kron, urand: scale and degree; grid: rows and cols).
#[pyfunction]
#[pyo3(signature = (kind, output, scale=None, degree=16, rows=None, cols=None, weighted=false, seed=None, memory=None, reorder=None, out_heads="auto", lists="plain", self_loops="drop", progress=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn generate(
    py: Python<'_>,
    kind: &str,
    output: PathBuf,
    scale: Option<u32>,
    degree: u32,
    rows: Option<u64>,
    cols: Option<u64>,
    weighted: bool,
    seed: Option<u64>,
    memory: Option<&str>,
    reorder: Option<&str>,
    out_heads: &str,
    lists: &str,
    self_loops: &str,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let seed = seed.unwrap_or(swapless_build::generators::DEFAULT_SEED);
    let source: Box<dyn EdgeSource> = match (kind, scale, rows, cols) {
        ("kron" | "urand", Some(scale), None, None) => {
            let synthetic = if kind == "kron" {
                SyntheticKind::Kronecker
            } else {
                SyntheticKind::UniformRandom
            };
            Box::new(
                SyntheticSource::new(synthetic, scale, degree, weighted, seed)
                    .map_err(build_error)?,
            )
        }
        ("grid", None, Some(rows), Some(cols)) => Box::new(
            GridSource::new(
                rows,
                cols,
                GridSource::default_shortcuts(rows, cols),
                weighted,
                seed,
            )
            .map_err(build_error)?,
        ),
        ("kron" | "urand", ..) => {
            return Err(PyValueError::new_err(format!(
                "{kind} takes scale= (2^scale vertices) and degree=, not rows= or cols="
            )));
        }
        ("grid", ..) => {
            return Err(PyValueError::new_err(
                "grid takes rows= and cols=, not scale=",
            ));
        }
        _ => {
            return Err(PyValueError::new_err(format!(
                "{kind:?} is not a generator; use \"kron\", \"urand\" or \"grid\""
            )));
        }
    };
    let budget = memory_size(py, memory)?.unwrap_or_else(swapless_run::default_memory_budget);
    let options = build_options(budget, reorder, out_heads, lists, self_loops)?;
    build_from(py, Input::Source(source), output, options, progress)
}

/// Writes edges given as arrays (uint32 ids, optional float64 weights, stored as float32) to a .sl file.
#[pyfunction]
#[pyo3(signature = (sources, destinations, weights, directed, output, vertices=None, memory=None, reorder=None, self_loops="keep", progress=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn from_edges(
    py: Python<'_>,
    sources: PyReadonlyArray1<'_, u32>,
    destinations: PyReadonlyArray1<'_, u32>,
    weights: Option<PyReadonlyArray1<'_, f64>>,
    directed: bool,
    output: PathBuf,
    vertices: Option<u64>,
    memory: Option<&str>,
    reorder: Option<&str>,
    self_loops: &str,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let copy = |array: &PyReadonlyArray1<'_, u32>| array.as_array().to_vec();
    let source = swapless_build::arrays::ArraySource::new(
        copy(&sources),
        copy(&destinations),
        weights
            .as_ref()
            .map(|weights| weights.as_slice())
            .transpose()
            .map_err(|_| PyValueError::new_err("weights must be a contiguous array"))?,
        if directed {
            swapless_build::Direction::Directed
        } else {
            swapless_build::Direction::Undirected
        },
        vertices,
    )
    .map_err(build_error)?;
    let budget = memory_size(py, memory)?.unwrap_or_else(swapless_run::default_memory_budget);
    let options = build_options(budget, reorder, "auto", "plain", self_loops)?;
    build_from(
        py,
        Input::Source(Box::new(source)),
        output,
        options,
        progress,
    )
}
