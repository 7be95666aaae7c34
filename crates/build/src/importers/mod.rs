//! Importers: edge sources that read users' files.

mod compressed;
mod gap;
mod matrix_market;
mod parquet;
mod swapless_file;
mod table;
pub(crate) mod text;

pub use compressed::{InputReader, open_maybe_compressed};
pub use gap::GapSource;
pub use matrix_market::MatrixMarketSource;
pub use parquet::ParquetSource;
pub use swapless_file::SwaplessFileSource;
pub use table::{ColumnChoice, HeaderChoice, TableColumns, TableSource};
pub use text::TextEdgeListSource;

pub use text::weight_from_number;

use std::io::BufRead;
use std::path::Path;

use crate::ids::{IdMode, IdPasses};
use crate::source::EdgeSource;
use crate::{BuildError, Result};

/// What the user asked of an import.
#[derive(Clone, Copy, Debug, Default)]
pub struct ImportOptions {
    /// Each input edge stands for both directions.
    pub undirected: bool,
    /// Keep the input's weights (the input must have them).
    pub weighted: bool,
    /// Whether the input's ids are its vertices or are compacted to `0..n`.
    pub ids: IdMode,
}

impl ImportOptions {
    /// Whether each input edge is one arc or stands for both directions.
    pub fn direction(&self) -> crate::Direction {
        match self.undirected {
            true => crate::Direction::Undirected,
            false => crate::Direction::Directed,
        }
    }
}

/// The input formats swapless reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// `u v` or `u v w` per line.
    EdgeList,
    /// Matrix Market coordinate file.
    MatrixMarket,
    /// GAP's serialized unweighted graph.
    GapSerialized,
    /// GAP's serialized weighted graph.
    GapWeighted,
}

/// The path without a trailing `.gz` / `.zst`.
fn uncompressed_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name.strip_suffix(".gz")
        .or_else(|| name.strip_suffix(".zst"))
        .unwrap_or(&name)
        .to_string()
}

/// Builds `output` from the file `path` within `options.memory_bytes`. An `auto` build
/// whose ids call for compacting (names, ids beyond 32 bits, sparse ids) starts again
/// with compacted ids, and its report says why.
pub fn build_input(
    path: &Path,
    import: ImportOptions,
    columns: &TableColumns,
    output: &Path,
    options: &crate::BuildOptions,
) -> Result<crate::BuildReport> {
    let started = std::time::Instant::now();
    let scratch = crate::builder::temp_parent(options, output);
    let passes = IdPasses {
        scratch: Some(&scratch),
        progress: options.progress.as_deref(),
        cancel: options.cancel.as_deref(),
    };
    let open = |import| open_input_in(path, import, columns, Some(options.memory_bytes), passes);
    let compact = ImportOptions {
        ids: IdMode::Compact,
        ..import
    };
    // Compacted ids take memory by the budget they are opened in: a refusal names the
    // least found by opening them again (see `least_that_works`).
    let open_within = |budget| open_input_in(path, compact, columns, Some(budget), passes);
    let refusal = |error| least_that_works(error, open_within);
    let mut source = open(import).map_err(refusal)?;
    let reason = match crate::build_graph(source.as_mut(), output, options) {
        Err(BuildError::IdsNeedCompacting(reason)) if import.ids == IdMode::Auto => reason,
        Err(error) if import.ids == IdMode::Compact => return Err(refusal(error)),
        Ok(mut report) => {
            report.kept_dense_because = source.id_fill().map(|fill| fill.to_string());
            report.weights_ignored = source.weights_ignored();
            return Ok(report);
        }
        failed => return failed,
    };
    drop(source);
    let mut options = options.clone();
    options.resume_key = options
        .resume_key
        .map(|key| format!("{key}; ids compacted"));
    let mut source = open(compact).map_err(refusal)?;
    let built = crate::build_graph(source.as_mut(), output, &options);
    let weights_ignored = source.weights_ignored();
    drop(source);
    let mut report = built.map_err(refusal)?;
    report.compacted_because = Some(reason.to_string());
    report.weights_ignored = weights_ignored;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// `error` with the least budget it names raised to one that works, when it is a
/// refusal for want of memory. Compacted ids take memory by the budget they are opened
/// in (all in memory, or a range at a time), so the least named by a source opened
/// within a smaller budget may not be enough: the source is opened again within the
/// figure until it names no more.
fn least_that_works(
    error: BuildError,
    open_within: impl Fn(u64) -> Result<Box<dyn EdgeSource>>,
) -> BuildError {
    let mut needed = match &error {
        BuildError::BudgetTooSmall { needed_bytes, .. } => *needed_bytes,
        BuildError::IdsNeedPasses {
            least_budget_bytes, ..
        } => *least_budget_bytes,
        _ => return error,
    };
    // The figure is tried as the user will type it back: rounded up as it is printed.
    let typed_back = |bytes: u64| {
        swapless_system::parse_size(&swapless_system::format_bytes_up(bytes))
            .map_or(bytes, |typed| typed.max(bytes))
    };
    loop {
        needed = typed_back(needed);
        let within = match open_within(needed) {
            Ok(source) => crate::builder::least_build_budget(source.as_ref()),
            Err(BuildError::IdsNeedPasses {
                least_budget_bytes, ..
            }) => least_budget_bytes,
            Err(other) => return other,
        };
        if within <= needed {
            break;
        }
        needed = within;
    }
    match error {
        BuildError::BudgetTooSmall { budget_bytes, .. } => BuildError::BudgetTooSmall {
            budget_bytes,
            needed_bytes: needed,
        },
        BuildError::IdsNeedPasses {
            path, ids, passes, ..
        } => BuildError::IdsNeedPasses {
            path,
            ids,
            passes,
            least_budget_bytes: needed,
        },
        other => other,
    }
}

/// Opens `path` with the importer its name (and, for text, its first line) calls for.
pub fn open_input(path: &Path, options: ImportOptions) -> Result<Box<dyn EdgeSource>> {
    open_input_within(path, options, None)
}

/// Opens `path` as [`open_input`] does, for a build within `budget_bytes`: an importer
/// that holds data sized by the input's header refuses a header that would need more.
pub fn open_input_within(
    path: &Path,
    options: ImportOptions,
    budget_bytes: Option<u64>,
) -> Result<Box<dyn EdgeSource>> {
    open_input_with(path, options, &TableColumns::default(), budget_bytes)
}

/// Opens `path` as [`open_input_within`] does, a table input (CSV, TSV) with the
/// user's choice of `columns`. Compacted ids must fit the budget.
pub fn open_input_with(
    path: &Path,
    options: ImportOptions,
    columns: &TableColumns,
    budget_bytes: Option<u64>,
) -> Result<Box<dyn EdgeSource>> {
    open_input_in(path, options, columns, budget_bytes, IdPasses::default())
}

/// Opens `path` as [`open_input_with`] does; compacted ids beyond the budget go to a
/// folder made in `passes.scratch` (removed when the source is dropped), and the passes
/// over the input for the ids are told to `passes.progress`.
pub fn open_input_in(
    path: &Path,
    options: ImportOptions,
    columns: &TableColumns,
    budget_bytes: Option<u64>,
    passes: IdPasses,
) -> Result<Box<dyn EdgeSource>> {
    let name = uncompressed_name(path);
    // What compacted ids may hold: what is left of the budget after the builder's
    // reserve and its least arc buffer (the table and its index stay through the build).
    let allowance = budget_bytes.map_or(u64::MAX, |budget| {
        budget.saturating_sub(crate::RESERVED_BYTES + crate::builder::MIN_WORKING_BYTES)
    });
    let stream =
        std::fs::metadata(path).is_ok_and(|metadata| !metadata.is_file() && !metadata.is_dir());
    if options.ids == IdMode::Compact && stream {
        return Err(BuildError::bad_input(
            path,
            "compacting ids reads the input twice, which a pipe cannot give; write it to a file first",
        ));
    }
    let table = [".csv", ".tsv", ".tab"]
        .iter()
        .any(|extension| name.ends_with(extension));
    if parquet::is_parquet(path) {
        return Ok(Box::new(ParquetSource::open(
            path, options, columns, allowance, passes,
        )?));
    }
    if columns.chosen() && !table {
        return Err(BuildError::bad_input(
            path,
            "columns and headers are chosen for tables: .csv, .tsv or .parquet inputs",
        ));
    }
    let numbered = [".wsg", ".sg", ".sl", ".mtx"]
        .iter()
        .any(|extension| name.ends_with(extension));
    if options.ids == IdMode::Compact && numbered {
        return Err(BuildError::bad_input(
            path,
            "compacted ids are for text edge lists; this format numbers its vertices 0..n itself",
        ));
    }
    if name.ends_with(".wsg") {
        return Ok(Box::new(GapSource::open(
            path,
            true,
            options,
            budget_bytes,
        )?));
    }
    if name.ends_with(".sg") {
        return Ok(Box::new(GapSource::open(
            path,
            false,
            options,
            budget_bytes,
        )?));
    }
    if name.ends_with(".sl") {
        if !path.to_string_lossy().to_ascii_lowercase().ends_with(".sl") {
            return Err(BuildError::bad_input(
                path,
                "a .sl file is read as it is, not compressed; decompress it first",
            ));
        }
        return Ok(Box::new(SwaplessFileSource::open(path, options)?));
    }
    let mut reader = open_maybe_compressed(path)?;
    let start = reader
        .fill_buf()
        .map_err(|source| BuildError::io(path, source))?;
    if let Some(found) = compressed::compression_of(start) {
        return Err(BuildError::bad_input(
            path,
            format!(
                "this file holds {found}-compressed data, but its name does not say so; name it with {} at the end",
                if found == "gzip" { ".gz" } else { ".zst" }
            ),
        ));
    }
    if start.is_empty() {
        return Err(BuildError::bad_input(path, "the input is empty"));
    }
    let sample = &start[..start.len().min(4096)];
    if sample.contains(&0) {
        return Err(BuildError::bad_input(
            path,
            "this file holds binary data (zero bytes), not a text edge list or Matrix Market file; swapless reads .el/.txt/.csv text, .mtx, GAP .sg/.wsg and .sl files",
        ));
    }
    if table {
        drop(reader);
        return Ok(Box::new(TableSource::open(
            path, options, columns, allowance, passes,
        )?));
    }
    let starts_like_matrix_market = start.starts_with(b"%%MatrixMarket");
    if name.ends_with(".mtx") || starts_like_matrix_market {
        if options.ids == IdMode::Compact {
            return Err(BuildError::bad_input(
                path,
                "compacted ids are for text edge lists; a Matrix Market file numbers its vertices 1..n itself",
            ));
        }
        return Ok(Box::new(MatrixMarketSource::new(path, reader, options)?));
    }
    if options.ids != IdMode::Compact {
        return Ok(Box::new(TextEdgeListSource::new(
            path, reader, options, allowance,
        )));
    }
    let ids = text::scan_ids(path, allowance, passes)?;
    Ok(Box::new(TextEdgeListSource::compacted(
        path, reader, options, ids,
    )))
}
