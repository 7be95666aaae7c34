//! Tables of edges as users give them: CSV and TSV with quotes, headers and columns
//! chosen by name or by position, and Parquet files; built the way `swapless build`
//! builds them (an `auto` build restarts with compacted ids when the ids call for it).

use std::path::Path;

use swapless_build::BuildOptions;
use swapless_build::ids::IdMode;
use swapless_build::importers::{
    ColumnChoice, HeaderChoice, ImportOptions, TableColumns, build_input,
};
use swapless_format::check_file;

use crate::{BUDGET_BYTES, input_file, names_large_ids, run_kernels, scratch};

/// The column choices a table target tries, as a user may write them: the defaults,
/// positions, names (one with a leading space), a name beside a position, and the
/// choices that must be refused (one column twice, a duplicated name, position 0).
fn column_choices(index: u8) -> TableColumns {
    use ColumnChoice::{Name, Position};
    let name = |text: &str| Some(Name(text.to_string()));
    let (source, target, weight) = match index % 8 {
        0 => (None, None, None),
        1 => (Some(Position(2)), Some(Position(1)), Some(Position(3))),
        2 => (name("src"), name("dst"), name("weight")),
        3 => (name("dst"), Some(Position(1)), None),
        4 => (name("a"), name(" a"), name("w")),
        5 => (Some(Position(1)), Some(Position(1)), None),
        6 => (name("src"), name("src"), name("src")),
        _ => (Some(Position(0)), Some(Position(4)), name("")),
    };
    TableColumns {
        source,
        target,
        weight,
        header: HeaderChoice::Auto,
    }
}

/// A CSV or TSV table. The first byte chooses how it is read: bit 0 the suffix
/// (`.csv` or `.tsv`), bit 1 weights, bit 2 undirected, bits 3-4 the header choice,
/// bits 5-7 the columns ([`column_choices`]); the rest is the table.
pub fn csv_table(data: &[u8]) {
    let Some((&choice, table)) = data.split_first() else {
        return;
    };
    let suffix = match choice & 1 {
        0 => "csv",
        _ => "tsv",
    };
    let path = input_file(&format!("input.{suffix}"), table);
    let mut columns = column_choices(choice >> 5);
    columns.header = match (choice >> 3) & 3 {
        1 => HeaderChoice::Yes,
        2 => HeaderChoice::No,
        _ => HeaderChoice::Auto,
    };
    let import = ImportOptions {
        undirected: choice & 4 != 0,
        weighted: choice & 2 != 0,
        ids: match names_large_ids(table) {
            true => IdMode::Compact,
            false => IdMode::Auto,
        },
    };
    build_table(&path, import, &columns);
}

/// Raw bytes as a `.parquet` file, built with the default columns, then undirected,
/// weighted (by its second column) and with compacted ids.
pub fn parquet_table(data: &[u8]) {
    let path = input_file("input.parquet", data);
    let directed = ImportOptions {
        undirected: false,
        weighted: false,
        ids: IdMode::Auto,
    };
    build_table(&path, directed, &TableColumns::default());
    let undirected_weighted = ImportOptions {
        undirected: true,
        weighted: true,
        ids: IdMode::Compact,
    };
    let weight_beside = TableColumns {
        weight: Some(ColumnChoice::Position(2)),
        ..TableColumns::default()
    };
    build_table(&path, undirected_weighted, &weight_beside);
}

/// Builds the table at `input` as the CLI does; a build that succeeds must write a file
/// that passes `check` and that every kernel reads without panic.
fn build_table(input: &Path, import: ImportOptions, columns: &TableColumns) {
    let output = scratch().join("table.sl");
    let mut build = BuildOptions::with_memory(BUDGET_BYTES);
    build.temp_dir = Some(scratch());
    if build_input(input, import, columns, &output, &build).is_ok() {
        if let Err(error) = check_file(&output) {
            panic!("a table's build fails its check: {error}");
        }
        run_kernels(&output);
    }
}
