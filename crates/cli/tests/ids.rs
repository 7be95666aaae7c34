//! Any vertex ids: one graph written with each kind of id a user's file may hold
//! (sparse, beyond 32 bits, negative, random 64-bit, names in Unicode), built with the
//! default `--ids auto`, gives every kernel's answer of the same graph with dense ids,
//! mapped back through the ids the file keeps.

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use common::*;

/// Vertices of the base graph; a ring through all of them makes each appear in an edge.
const VERTICES: u32 = 3000;

/// The base graph's edges in dense ids, with duplicates and self-loops.
fn base_edges() -> Vec<(u32, u32)> {
    let mut edges: Vec<(u32, u32)> = random_edges(20_000, VERTICES, 11)
        .into_iter()
        .map(|(s, d, _)| (s, d))
        .collect();
    edges.extend((0..VERTICES).map(|v| (v, (v + 1) % VERTICES)));
    edges.extend([(5, 5), (7, 8), (7, 8)]);
    edges
}

/// A reproducible scramble of 64 bits (splitmix64's finalizer), a bijection.
fn scramble(v: u32) -> u64 {
    let mut x = v as u64 ^ 0x9E37_79B9_7F4A_7C15;
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// One way a user's file may name the base graph's vertices.
struct Naming {
    name: &'static str,
    /// The id written for dense vertex `v`.
    id: fn(u32) -> String,
    /// Whether the ids sort as the dense ones do: then the compacted graph is the dense
    /// graph itself, and every kernel's answer must be the same bit for bit.
    order_kept: bool,
    /// What `info` must say the build chose.
    kind: &'static str,
    reorder: bool,
}

fn namings() -> Vec<Naming> {
    vec![
        Naming {
            name: "sparse",
            id: |v| (v as u64 * 1_000_003 + 7).to_string(),
            order_kept: true,
            kind: "integers",
            reorder: false,
        },
        Naming {
            name: "beyond 32 bits, reordered",
            id: |v| (v as u64 + (1 << 40)).to_string(),
            order_kept: true,
            kind: "integers",
            reorder: true,
        },
        Naming {
            name: "negative",
            id: |v| (v as i64 - 1_000_000).to_string(),
            order_kept: true,
            kind: "integers",
            reorder: false,
        },
        Naming {
            name: "unicode names",
            id: |v| format!("ü-{v:05}"),
            order_kept: true,
            kind: "names",
            reorder: false,
        },
        Naming {
            name: "random 64-bit",
            id: |v| (scramble(v) as i64).to_string(),
            order_kept: false,
            kind: "integers",
            reorder: false,
        },
        Naming {
            name: "shuffled names",
            id: |v| format!("名_{:016x}", scramble(v)),
            order_kept: false,
            kind: "names",
            reorder: true,
        },
    ]
}

/// Runs `kernel` on `graph` (from the vertex called `source`), writing its table to
/// `table`; returns the JSON report.
fn run_table(graph: &Path, kernel: &str, source: &str, table: &Path) -> serde_json::Value {
    let json = table.with_extension("json");
    let mut args = vec!["run", kernel, arg(graph), "--json", arg(&json)];
    if !returns_a_number(kernel) {
        args.extend(["--out", arg(table)]);
    }
    match kernel {
        "bfs" | "sssp" => args.extend(["--source", source]),
        "bc" | "wbc" => args.extend(["--sources", "all"]),
        _ => {}
    }
    swapless_ok(&args);
    json_report(&json)
}

/// A result table's rows: id to value ("" for none).
fn rows(table: &Path) -> HashMap<String, String> {
    let mut reader = csv::Reader::from_path(table).unwrap();
    reader
        .records()
        .map(|record| {
            let record = record.unwrap();
            (record[0].to_string(), record[1].to_string())
        })
        .collect()
}

/// Each vertex's depth in a BFS tree given as parents (the source its own parent).
fn depths(parents: &HashMap<String, String>) -> HashMap<String, i64> {
    let mut depths = HashMap::new();
    for start in parents.keys() {
        let (mut vertex, mut steps) = (start.clone(), 0i64);
        let depth = loop {
            match parents[&vertex].as_str() {
                "" => break -1,
                parent if parent == vertex => break steps,
                parent => {
                    vertex = parent.to_string();
                    steps += 1;
                }
            }
        };
        depths.insert(start.clone(), depth);
    }
    depths
}

/// Whether two labelings split the vertices the same way.
fn same_partition(a: &HashMap<String, String>, b: &HashMap<String, String>) -> bool {
    let (mut forward, mut backward) = (HashMap::new(), HashMap::new());
    a.iter().all(|(vertex, label)| {
        let other = &b[vertex];
        forward.entry(label).or_insert(other) == &other
            && backward.entry(other).or_insert(label) == &label
    })
}

fn close(a: &str, b: &str, relative: f64) -> bool {
    let (a, b): (f64, f64) = (a.parse().unwrap(), b.parse().unwrap());
    a == b || (a - b).abs() <= relative * b.abs().max(1e-12)
}

/// Every kernel's table on the base graph with dense ids, and its report.
type Reference = HashMap<&'static str, (HashMap<String, String>, serde_json::Value)>;

/// Builds the base graph with dense ids in `dir` and runs every kernel on it.
fn dense_reference(dir: &Path) -> Reference {
    let edges = base_edges();
    let dense_text: String = edges.iter().map(|(s, d)| format!("{s} {d}\n")).collect();
    let dense_input = dir.join("dense.el");
    write_input(&dense_input, dense_text.as_bytes());
    let dense = dir.join("dense.sl");
    swapless_ok(&[
        "build",
        arg(&dense_input),
        "-o",
        arg(&dense),
        "--ids",
        "dense",
    ]);
    // The kernels that search from every one of the 3,000 vertices are left out: the
    // Python tests name a small graph's vertices for them.
    kernels_of_linear_cost(&dense)
        .into_iter()
        .map(|kernel| {
            let table = dir.join(format!("dense-{kernel}.csv"));
            let report = run_table(&dense, kernel, "5", &table);
            let rows = match returns_a_number(kernel) {
                true => HashMap::new(),
                false => rows(&table),
            };
            (kernel, (rows, report))
        })
        .collect()
}

/// Checks `graph`, the base graph whose vertex `v` the input called `id_of(v)`, built
/// with the ids `kind`: every kernel's answer is the reference's, mapped back.
/// `same_order`: the ids sort as the dense ones do and the graph is not reordered, so
/// the answers must be the same bit for bit.
fn check_against_reference(
    graph: &Path,
    id_of: &dyn Fn(u32) -> String,
    kind: &str,
    same_order: bool,
    reference: &Reference,
    what: &str,
) {
    let dir = graph.parent().unwrap();
    swapless_ok(&["check", arg(graph)]);
    let info = dir.join("info.json");
    swapless_ok(&["info", arg(graph), "--json", arg(&info)]);
    let info = json_report(&info);
    assert_eq!(info["ids"], kind, "{what}");
    assert_eq!(info["vertices"], VERTICES as u64, "{what}");
    // Each id back to its dense vertex, as text.
    let dense_of: HashMap<String, String> =
        (0..VERTICES).map(|v| (id_of(v), v.to_string())).collect();
    let back = |id: &str| match id {
        "" => String::new(),
        id => dense_of[id].clone(),
    };
    for kernel in kernels_of_linear_cost(graph) {
        let table = dir.join(format!("named-{kernel}.csv"));
        let report = run_table(graph, kernel, &id_of(5), &table);
        let (expected, expected_report) = &reference[kernel];
        let what = format!("{kernel} with {what}");
        if returns_a_number(kernel) {
            assert_eq!(report["result"], expected_report["result"], "{what}");
            continue;
        }
        let vertex_valued = matches!(
            kernel,
            "bfs" | "cc" | "scc" | "lpa" | "louvain" | "wlouvain"
        );
        let found: HashMap<String, String> = rows(&table)
            .into_iter()
            .map(|(id, value)| {
                let value = match vertex_valued {
                    true => back(&value),
                    false => value,
                };
                (back(&id), value)
            })
            .collect();
        assert_eq!(found.len(), expected.len(), "{what}");
        if same_order {
            assert_eq!(&found, expected, "{what}");
            continue;
        }
        // Another order of the vertices: the same answer up to what the kernel may
        // choose (a BFS tree, component labels, float sums in another order); mis and
        // radii draw their priorities and sources by position, ppr picks its seed by
        // position when none is given, lpa breaks ties by id and Louvain visits the
        // vertices in order, so they answer another (verified) question.
        let same = match kernel {
            "bfs" => depths(&found) == depths(expected),
            "cc" | "scc" => same_partition(&found, expected),
            "pr" => found.iter().all(|(v, x)| close(x, &expected[v], 1e-5)),
            "bc" | "wbc" | "eigenvector" | "katz" | "hits" | "pr64" | "wpr64" => {
                found.iter().all(|(v, x)| close(x, &expected[v], 1e-9))
            }
            "sssp" | "kcore" | "triangles" | "neighbor-degree" | "wneighbor-degree"
            | "clustering" => &found == expected,
            // Sums of floats added in the order threads race.
            "wclustering" => found.iter().all(|(v, x)| close(x, &expected[v], 1e-9)),
            "mis" | "radii" | "ppr" | "lpa" | "louvain" | "wlouvain" => continue,
            other => panic!("no comparison for {other}"),
        };
        assert!(same, "{what}: the answers differ from dense ids'");
    }
}

#[test]
fn any_ids_give_the_answers_of_dense_ids() {
    let dir = tempfile::tempdir().unwrap();
    let reference = dense_reference(dir.path());
    let edges = base_edges();
    for naming in namings() {
        let text: String = edges
            .iter()
            .map(|&(s, d)| format!("{}\t{}\n", (naming.id)(s), (naming.id)(d)))
            .collect();
        let input = dir.path().join("named.el");
        write_input(&input, text.as_bytes());
        let graph = dir.path().join("named.sl");
        let mut args = vec!["build", arg(&input), "-o", arg(&graph)];
        if naming.reorder {
            args.extend(["--reorder", "dbg"]);
        }
        swapless_ok(&args);
        let what = format!("{} ids", naming.name);
        let same_order = naming.order_kept && !naming.reorder;
        check_against_reference(
            &graph,
            &naming.id,
            naming.kind,
            same_order,
            &reference,
            &what,
        );
    }
}

/// Writes `columns` as a Parquet file at `path`, in row groups of `group_rows`.
fn write_parquet(path: &Path, columns: Vec<(&str, ArrayRef)>, group_rows: usize) {
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group_rows))
        .set_compression(Compression::SNAPPY)
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(properties)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

#[test]
fn tables_give_the_answers_of_dense_ids() {
    let dir = tempfile::tempdir().unwrap();
    let reference = dense_reference(dir.path());
    let edges = base_edges();
    let (sources, targets): (Vec<u32>, Vec<u32>) = edges.iter().copied().unzip();

    // CSV with a header, names with spaces, commas and quotes (quoted), weights beside.
    let quoted = |v: u32| format!("Smith, \"Ann\" {v}");
    let csv_path = dir.path().join("edges.csv");
    let mut writer = csv::Writer::from_path(&csv_path).unwrap();
    writer.write_record(["weight", "from", "to"]).unwrap();
    for &(s, d) in &edges {
        writer.write_record(["1", &quoted(s), &quoted(d)]).unwrap();
    }
    writer.flush().unwrap();
    let graph = dir.path().join("csv.sl");
    swapless_ok(&[
        "build",
        arg(&csv_path),
        "-o",
        arg(&graph),
        "--source-col",
        "from",
        "--target-col",
        "to",
    ]);
    check_against_reference(&graph, &quoted, "names", false, &reference, "CSV names");

    // TSV, gzip-compressed, no header, dense ids: found to be dense by itself.
    let tsv: String = edges.iter().map(|(s, d)| format!("{s}\t{d}\n")).collect();
    let tsv_path = dir.path().join("edges.tsv.gz");
    write_input(&tsv_path, tsv.as_bytes());
    let graph = dir.path().join("tsv.sl");
    swapless_ok(&["build", arg(&tsv_path), "-o", arg(&graph)]);
    let plain = |v: u32| v.to_string();
    check_against_reference(&graph, &plain, "dense", true, &reference, "TSV dense ids");

    // Parquet, random 64-bit ids in int64 columns chosen by name, several row groups.
    let wide = |v: u32| (scramble(v) as i64).to_string();
    let to_i64 = |ids: &[u32]| -> ArrayRef {
        Arc::new(Int64Array::from_iter_values(
            ids.iter().map(|&v| scramble(v) as i64),
        ))
    };
    let parquet_path = dir.path().join("edges.parquet");
    write_parquet(
        &parquet_path,
        vec![("dst", to_i64(&targets)), ("src", to_i64(&sources))],
        4096,
    );
    let graph = dir.path().join("parquet.sl");
    swapless_ok(&[
        "build",
        arg(&parquet_path),
        "-o",
        arg(&graph),
        "--source-col",
        "src",
        "--target-col",
        "dst",
    ]);
    check_against_reference(
        &graph,
        &wide,
        "integers",
        false,
        &reference,
        "Parquet int64 ids",
    );

    // A folder of Parquet parts with string ids, as Spark writes it.
    let named = |v: u32| format!("名-{v:05}");
    let folder = dir.path().join("edges-parts");
    std::fs::create_dir(&folder).unwrap();
    let half = edges.len() / 2;
    for (part, range) in [(0, 0..half), (1, half..edges.len())] {
        let strings = |ids: &[u32]| -> ArrayRef {
            Arc::new(StringArray::from_iter_values(ids.iter().map(|&v| named(v))))
        };
        write_parquet(
            &folder.join(format!("part-{part:05}.parquet")),
            vec![
                ("source", strings(&sources[range.clone()])),
                ("target", strings(&targets[range])),
            ],
            8192,
        );
    }
    std::fs::write(folder.join("_SUCCESS"), b"").unwrap();
    let graph = dir.path().join("parts.sl");
    swapless_ok(&["build", arg(&folder), "-o", arg(&graph)]);
    check_against_reference(&graph, &named, "names", true, &reference, "Parquet parts");
}

#[test]
fn ids_that_are_not_there_or_not_allowed_are_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("names.el");
    write_input(&input, b"alice bob\nbob carol\n");
    let graph = dir.path().join("names.sl");
    swapless_ok(&["build", arg(&input), "-o", arg(&graph)]);
    let error = swapless_fails(&["run", "bfs", arg(&graph), "--source", "mallory"]);
    assert!(
        error.contains("no vertex of") && error.contains("mallory"),
        "{error}"
    );
    let dense = dir.path().join("dense.sl");
    let error = swapless_fails(&["build", arg(&input), "-o", arg(&dense), "--ids", "dense"]);
    assert!(
        error.contains("names.el:1") && error.contains("alice"),
        "{error}"
    );
    assert!(!dense.exists());
    let matrix = dir.path().join("m.mtx");
    write_input(
        &matrix,
        b"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n",
    );
    let error = swapless_fails(&["build", arg(&matrix), "-o", arg(&dense), "--ids", "compact"]);
    assert!(
        error.contains("compacted ids are for text edge lists"),
        "{error}"
    );
    let error = swapless_fails(&[
        "run",
        "pr",
        arg(&graph),
        "--out",
        arg(&dir.path().join("r.txt")),
    ]);
    assert!(error.contains(".npy") && error.contains(".csv"), "{error}");
}

#[test]
fn bad_table_rows_name_their_file_row_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.sl");
    let nulls = dir.path().join("nulls.parquet");
    let with_null: ArrayRef = Arc::new(arrow_array::Int32Array::from(vec![Some(0), Some(1), None]));
    let plain: ArrayRef = Arc::new(arrow_array::Int32Array::from(vec![1, 2, 0]));
    write_parquet(&nulls, vec![("a", plain), ("b", with_null)], 2);
    let cases: [(&str, &[u8], &[&str], &str); 6] = [
        (
            "names.csv",
            b"src,dst\na,b\n",
            &[],
            "is this first row a header?",
        ),
        (
            "short.csv",
            b"src,dst\n1,2\n3\n",
            &[],
            "short.csv:3: the row has 1 fields, so no column dst",
        ),
        (
            "named.csv",
            b"src,dst\n1,2\n",
            &["--source-col", "from"],
            "no column named \"from\"; its columns are src, dst",
        ),
        (
            "weights.tsv",
            b"1\t2\tx\n",
            &["--weighted"],
            "weights.tsv:1: column 3: `x` is not a finite number",
        ),
        (
            "plain.el",
            b"1 2\n",
            &["--source-col", "2"],
            "columns and headers are chosen for tables",
        ),
        (
            "nulls.parquet",
            b"",
            &[],
            "nulls.parquet: row 3, column \"b\": the id is null",
        ),
    ];
    for (name, content, extra, phrase) in cases {
        let input = dir.path().join(name);
        if !content.is_empty() {
            write_input(&input, content);
        }
        let mut args = vec!["build", arg(&input), "-o", arg(&output)];
        args.extend(extra);
        let error = swapless_fails(&args);
        assert!(error.contains(phrase), "{name}: {error}");
        assert!(!output.exists(), "{name}");
    }
}

/// An input of `ids` distinct ids in a ring, in each form a user's file may take.
struct ManyIds {
    file: &'static str,
    /// Bytes of the file, given the ids' count.
    write: fn(&Path, u32),
    /// A budget that leaves the ids a small part of what they need.
    tight: &'static str,
    /// What the build needs told about the file.
    args: &'static [&'static str],
}

fn many_ids() -> Vec<ManyIds> {
    fn text(path: &Path, ids: u32, id: fn(u32) -> String, header: &str) {
        let mut text = String::from(header);
        for v in 0..ids {
            text.push_str(&format!("{},{}\n", id(v), id((v + 1) % ids)));
        }
        write_input(path, text.as_bytes());
    }
    vec![
        ManyIds {
            file: "names.el",
            write: |path, ids| text(path, ids, |v| format!("name-{v:08}"), ""),
            tight: "57M",
            args: &[],
        },
        ManyIds {
            file: "wide.el",
            write: |path, ids| text(path, ids, |v| (scramble(v) as i64).to_string(), ""),
            tight: "57M",
            args: &[],
        },
        ManyIds {
            file: "names.csv",
            write: |path, ids| text(path, ids, |v| format!("\"Ort {v}, Zoë\""), "from,to\n"),
            tight: "57M",
            args: &["--header"],
        },
        ManyIds {
            file: "wide.parquet",
            write: |path, ids| {
                let column = |shift: u32| -> ArrayRef {
                    Arc::new(Int64Array::from_iter_values(
                        (0..ids).map(|v| scramble((v + shift) % ids) as i64),
                    ))
                };
                write_parquet(
                    path,
                    vec![("source", column(0)), ("target", column(1))],
                    10_000,
                );
            },
            // The row groups being decoded take their share beside the ids.
            tight: "61M",
            args: &[],
        },
    ]
}

#[test]
fn distinct_ids_beyond_the_budget_are_compacted_a_range_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    for case in many_ids() {
        // 2-5 MiB of ids with their index, against the 1 MiB or so the tight
        // budget leaves them.
        let input = dir.path().join(case.file);
        (case.write)(&input, 120_000);
        let roomy = dir.path().join("roomy.sl");
        let tight = dir.path().join("tight.sl");
        let (roomy_json, tight_json) =
            (dir.path().join("roomy.json"), dir.path().join("tight.json"));
        let build = |output: &Path, memory: &str, json: &Path| {
            let mut args = vec![
                "build",
                arg(&input),
                "-o",
                arg(output),
                "--undirected",
                "--memory",
                memory,
                "--json",
                arg(json),
            ];
            args.extend(case.args);
            swapless_ok(&args)
        };
        build(&roomy, "256M", &roomy_json);
        let said = build(&tight, case.tight, &tight_json);
        let (roomy_report, tight_report) = (json_report(&roomy_json), json_report(&tight_json));
        assert_eq!(roomy_report["id_ranges"], 1, "{}", case.file);
        let ranges = tight_report["id_ranges"].as_u64().unwrap();
        assert!(ranges > 1, "{}: {tight_report}", case.file);
        assert!(
            said.contains(&format!("resolved in {ranges} ranges")),
            "{said}"
        );
        assert!(
            tight_report["peak_rss_bytes"].as_u64().unwrap()
                <= tight_report["memory_budget_bytes"].as_u64().unwrap(),
            "{}: {tight_report}",
            case.file
        );
        // The same graph, ids and all, bit for bit.
        assert_eq!(
            std::fs::read(&roomy).unwrap(),
            std::fs::read(&tight).unwrap(),
            "{}",
            case.file
        );
        swapless_ok(&["check", arg(&tight)]);
        // The ranges' files went with the build.
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with('.'))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}

#[test]
fn ids_that_would_need_too_many_passes_are_refused_with_a_budget_that_works() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("names.el");
    (many_ids()[0].write)(&input, 600_000);
    let output = dir.path().join("many.sl");
    let error = swapless_fails(&["build", arg(&input), "-o", arg(&output), "--memory", "57M"]);
    assert!(
        error.contains("distinct ids") && error.contains("more times"),
        "{error}"
    );
    assert!(!output.exists());
    let least = error
        .rsplit("at least ")
        .next()
        .unwrap()
        .trim()
        .replace(' ', "");
    let said = swapless_ok(&["build", arg(&input), "-o", arg(&output), "--memory", &least]);
    assert!(said.contains("ranges"), "{said}");
}

#[test]
fn result_tables_in_parquet_hold_what_the_csv_holds() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Float64Type;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("names.el");
    write_input(
        &input,
        "ana bo\nbo Zoë\nZoë ana\nbo cy\nlone lone\n".as_bytes(),
    );
    let graph = dir.path().join("names.sl");
    swapless_ok(&["build", arg(&input), "-o", arg(&graph)]);
    for (kernel, extra) in [("bfs", &["--source", "bo"][..]), ("pr", &[][..])] {
        let (csv_out, parquet_out) = (dir.path().join("r.csv"), dir.path().join("r.parquet"));
        for out in [&csv_out, &parquet_out] {
            let mut args = vec!["run", kernel, arg(&graph), "--out", arg(out)];
            args.extend(extra);
            swapless_ok(&args);
        }
        let file = std::fs::File::open(&parquet_out).unwrap();
        let mut found = HashMap::new();
        for batch in ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap()
        {
            let batch = batch.unwrap();
            let ids = batch.column(0).as_string::<i32>();
            for row in 0..batch.num_rows() {
                let value = match kernel {
                    "bfs" => batch.column(1).as_string::<i32>().value(row).to_string(),
                    _ => batch
                        .column(1)
                        .as_primitive::<Float64Type>()
                        .value(row)
                        .to_string(),
                };
                found.insert(ids.value(row).to_string(), value);
            }
            assert_eq!(
                batch.schema().field(1).name(),
                if kernel == "bfs" { "parent" } else { "score" }
            );
        }
        assert_eq!(found, rows(&csv_out), "{kernel}");
    }
}

/// Ids 1000-1002 are three vertices, not 1,003: PageRank and components list just them,
/// and they form one component, as networkx says (issue 40).
#[test]
fn sparse_small_ids_give_only_the_inputs_vertices() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g.el");
    std::fs::write(&input, "1000 1001\n1001 1002\n").unwrap();
    let graph = dir.path().join("g.sl");
    swapless_ok(&["build", arg(&input), "-o", arg(&graph)]);
    let expected: Vec<String> = ["1000", "1001", "1002"].map(String::from).to_vec();
    for kernel in ["pr", "cc"] {
        let table = dir.path().join(format!("{kernel}.csv"));
        run_table(&graph, kernel, "1000", &table);
        let mut ids: Vec<String> = rows(&table).into_keys().collect();
        ids.sort();
        assert_eq!(ids, expected, "{kernel}");
    }
    let labels = rows(&dir.path().join("cc.csv"));
    let components: std::collections::HashSet<&String> = labels.values().collect();
    assert_eq!(components.len(), 1);
}
