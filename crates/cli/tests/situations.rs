//! Hostile situations that need more than one command or a timed event: every kind of
//! output path, signals during build, generate and run, a graph written during a run,
//! a full file system, and least budgets typed back. The single-command cases are in
//! `catalogue.rs`.

mod common;

use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

use common::hostile::*;
use common::*;
use swapless_format::SectionKind;

/// What a successful run writes to each kind of output path, and where.
#[test]
fn output_paths_of_every_kind() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let g = graph(d, "g.sl");
    let run = |out: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_swapless"))
            .args(["run", "pr", &g, "--out", out, "--json", "r.json"])
            .current_dir(d)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    // /dev/null stays the device it was.
    run("/dev/null");
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    // A symlink is followed: the file it names is replaced, the link stays.
    std::fs::write(d.join("target.npy"), b"old").unwrap();
    std::os::unix::fs::symlink("target.npy", d.join("link.npy")).unwrap();
    run("link.npy");
    assert!(
        std::fs::symlink_metadata(d.join("link.npy"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let written = std::fs::read(d.join("target.npy")).unwrap();
    assert!(written.starts_with(b"\x93NUMPY"));
    // A FIFO gets the whole array.
    make_fifo(&d.join("pipe.npy"));
    let reader = {
        let path = d.join("pipe.npy");
        std::thread::spawn(move || std::fs::read(path).unwrap())
    };
    run("pipe.npy");
    assert_eq!(reader.join().unwrap(), written);
    assert!(
        std::fs::metadata(d.join("pipe.npy"))
            .unwrap()
            .file_type()
            .is_fifo()
    );
    // A new file follows the umask (0022 here): readable by others, as a .sl file is.
    run("new.npy");
    let mode = std::fs::metadata(d.join("new.npy"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    let sl_mode = std::fs::metadata(d.join("g.sl"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(
        mode & 0o044,
        sl_mode & 0o044,
        "{mode:o} against {sl_mode:o}"
    );
    // The report is whole JSON, written aside and renamed.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
    assert_eq!(report["kernel"], "pr");
    // `--json -` leaves standard output to the JSON.
    let output = swapless(&["run", "pr", arg(&d.join("g.sl")), "--json", "-"]);
    let parsed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(parsed["result"]["converged"], true);
    let names: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.'))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

/// Ctrl-C and SIGTERM stop build, generate and run within a second or two, with exit
/// 130, a sentence, and nothing left behind; a SIGKILL leaves temporaries that the
/// next build in the folder removes and reports.
#[test]
fn signals_during_build_generate_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let long_generate = [
        "generate", "kron", "--scale", "20", "--degree", "16", "-o", "k.sl", "--memory", "64M",
    ];
    for name in ["INT", "TERM"] {
        let child = start(d, &long_generate);
        wait_for(|| !hidden_entries(d).is_empty());
        std::thread::sleep(Duration::from_millis(300));
        let sent = Instant::now();
        signal(&child, name);
        let output = child.wait_with_output().unwrap();
        assert!(
            sent.elapsed() < Duration::from_secs(3),
            "took {:?}",
            sent.elapsed()
        );
        assert_eq!(output.status.code(), Some(130), "{name}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("interrupted"), "{stderr}");
        // The grace period's exit may leave temporaries; the next build removes them.
        assert!(!d.join("k.sl").exists());
    }
    // A run: stopped at its next pass, nothing written.
    let g = graph(d, "g.sl");
    let out = precious(d, "out.npy");
    let child = start(
        d,
        &[
            "run",
            "pr",
            &g,
            "--max-iters",
            "100000000",
            "--tolerance",
            "0",
            "--out",
            &out,
        ],
    );
    std::thread::sleep(Duration::from_millis(500));
    let sent = Instant::now();
    signal(&child, "INT");
    let output = child.wait_with_output().unwrap();
    assert!(sent.elapsed() < Duration::from_secs(3));
    assert_eq!(output.status.code(), Some(130));
    assert!(String::from_utf8_lossy(&output.stderr).contains("interrupted; no output was written"));
    assert_eq!(std::fs::read(d.join(&out)).unwrap(), b"precious");
    // SIGKILL: the build leaves its temporaries; the next one removes them and says so.
    let child = start(d, &long_generate);
    wait_for(|| {
        hidden_entries(d)
            .iter()
            .any(|name| name.ends_with(".partial"))
    });
    std::thread::sleep(Duration::from_millis(500));
    signal(&child, "KILL");
    child.wait_with_output().unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    let output = swapless(&[
        "generate",
        "kron",
        "--scale",
        "6",
        "-o",
        arg(&d.join("small.sl")),
    ]);
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("left by earlier builds that were killed"),
        "{stdout}"
    );
    // The killed build's runs stay for its `--resume`, which completes it and leaves
    // nothing behind.
    assert!(
        hidden_entries(d)
            .iter()
            .all(|name| name.starts_with(".swapless-build-")),
        "{:?}",
        hidden_entries(d)
    );
    let k = d.join("k.sl");
    let mut resume = long_generate.to_vec();
    resume[7] = arg(&k);
    resume.push("--resume");
    let resumed = swapless(&resume);
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert!(hidden_entries(d).is_empty(), "{:?}", hidden_entries(d));
}

/// A graph written in place while a run reads it gives no result: one sentence, exit 1.
#[test]
fn a_graph_written_during_a_run_gives_no_result() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Compressed lists too: on mmap a page checked once is decoded again from the map,
    // where the new bytes fail to decode before the pass ends.
    for (lists, tier) in [
        ("plain", "mmap"),
        ("plain", "direct"),
        ("plain", "dram"),
        ("compressed", "mmap"),
        ("compressed", "direct"),
    ] {
        generate_kron(&d.join("g.sl"), 14, 16, &["--lists", lists]);
        let (offset, _) = section_position(&d.join("g.sl"), SectionKind::OutNeighbors);
        let out = precious(d, "out.npy");
        let child = start(
            d,
            &[
                "run",
                "pr",
                "g.sl",
                "--tier",
                tier,
                "--memory",
                "16M",
                "--max-iters",
                "100000000",
                "--tolerance",
                "0",
                "--out",
                &out,
            ],
        );
        std::thread::sleep(Duration::from_millis(700));
        // Random bytes over one page of the lists, in place, as `dd conv=notrunc` would.
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(d.join("g.sl"))
            .unwrap();
        let noise: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        std::os::unix::fs::FileExt::write_all_at(&file, &noise, offset + 8192).unwrap();
        drop(file);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let case = format!("{lists} on {tier}");
        assert_eq!(output.status.code(), Some(1), "{case}: {stderr}");
        assert!(
            stderr.contains("changed while it was being read"),
            "{case}: {stderr}"
        );
        assert_eq!(stderr.trim_end().lines().count(), 1, "{case}: {stderr}");
        assert_eq!(std::fs::read(d.join(&out)).unwrap(), b"precious");
    }
}

/// A full file system (a small tmpfs the test mounts; root only): a build that would
/// not fit is refused before writing, with both figures, and a report that cannot be
/// written leaves the old one.
#[test]
fn a_full_file_system_is_refused_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let mount = dir.path().join("small");
    std::fs::create_dir(&mount).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs", arg(&mount)])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !mounted {
        eprintln!("skipped: this process may not mount a tmpfs");
        return;
    }
    let result = std::panic::catch_unwind(|| {
        let input = dir.path().join("wide.el");
        std::fs::write(&input, b"4000000000 1\n").unwrap();
        let output = mount.join("wide.sl");
        // Dense ids as asked: four billion vertices (compacted, it would be two).
        let refused = swapless(&["build", arg(&input), "-o", arg(&output), "--ids", "dense"]);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(1), "{stderr}");
        // A warning of the sparse ids first, then the refusal with both figures.
        assert!(stderr.contains("most vertices have none"), "{stderr}");
        assert!(
            stderr.contains("needs 29.80 GiB") && stderr.contains("1.00 MiB"),
            "{stderr}"
        );
        assert!(hidden_entries(&mount).is_empty());
        // Fill it, then a report that does not fit leaves the old one whole.
        std::fs::write(mount.join("old.json"), b"{}").unwrap();
        let mut filler = std::fs::File::create(mount.join("filler")).unwrap();
        while filler.write_all(&[0u8; 4096]).is_ok() {}
        drop(filler);
        let g = graph(dir.path(), "g.sl");
        let json = mount.join("old.json");
        let stderr = swapless_fails(&["info", arg(&dir.path().join(g)), "--json", arg(&json)]);
        assert!(stderr.contains("No space left"), "{stderr}");
        assert_eq!(std::fs::read(&json).unwrap(), b"{}");
        assert!(hidden_entries(&mount).is_empty());
    });
    let _ = Command::new("umount").arg(&mount).status();
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// The least budgets that `plan` prints and that a refused build names are accepted
/// when typed back as they are printed.
#[test]
fn a_least_budget_typed_back_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let g = d.join(graph(d, "g.sl"));
    let figure = |text: &str, after: &str| -> String {
        let start = text
            .find(after)
            .unwrap_or_else(|| panic!("no `{after}` in {text}"))
            + after.len();
        let rest = &text[start..];
        let number: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let unit = rest[number.len()..].trim_start().chars().next().unwrap();
        format!("{number}{unit}")
    };
    let plan = swapless_ok(&["plan", arg(&g), "pr"]);
    let least = figure(&plan, "least budget for a disk tier ");
    swapless_ok(&["run", "pr", arg(&g), "--memory", &least, "--tier", "direct"]);
    // Dense ids, names (whose compacting takes memory the first lines reveal), sparse
    // integers (found so only at the end), and a reordering build.
    let names: String = (0..3000)
        .map(|i| format!("vertex-{i} vertex-{}\n", i + 1))
        .collect();
    let inputs = [
        (file(d, "g.el", b"0 1\n1 2\n"), None),
        (file(d, "names.el", names.as_bytes()), None),
        (file(d, "sparse.el", b"0 1\n1000000 2\n"), None),
        (file(d, "r.el", b"0 1\n1 2\n"), Some("dbg")),
    ];
    for (input, reorder) in inputs {
        let (input, output) = (d.join(&input), d.join("b.sl"));
        let mut build = vec!["build", arg(&input), "-o", arg(&output)];
        if let Some(reorder) = reorder {
            build.extend(["--reorder", reorder]);
        }
        let refused = swapless_fails(&[&build[..], &["--memory", "1M"]].concat());
        let least = figure(&refused, "raise --memory to at least ");
        swapless_ok(&[&build[..], &["--memory", &least]].concat());
    }
    // A run that writes a table: `plan --out` counts the table's writer (and the input's
    // ids, when it has them) as the run does. On a grid the output phase needs the most.
    let grid = d.join("grid.sl");
    swapless_ok(&[
        "generate",
        "grid",
        "--rows",
        "100",
        "--cols",
        "120",
        "-o",
        arg(&grid),
    ]);
    let table = d.join("bfs.csv");
    let plan = swapless_ok(&["plan", arg(&grid), "bfs", "--out", arg(&table)]);
    let least = figure(&plan, "least budget for a disk tier ");
    let run = [
        "run",
        "bfs",
        arg(&grid),
        "--memory",
        &least,
        "--tier",
        "direct",
    ];
    swapless_ok(&[&run[..], &["--out", arg(&table)]].concat());
}

/// A reordering build holds its permutation to the end: its peak stays within the
/// budget while the arcs are merged too.
#[test]
fn a_reordering_build_stays_within_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Many vertices for the edges: the permutation is a large share of the budget.
    let text: String = random_edges(1_500_000, 1_000_000, 17)
        .iter()
        .map(|&(source, destination, _)| format!("{source} {destination}\n"))
        .collect();
    let input = d.join(file(d, "g.el", text.as_bytes()));
    let json = d.join("build.json");
    swapless_ok(&[
        "build",
        arg(&input),
        "-o",
        arg(&d.join("g.sl")),
        "--ids",
        "dense",
        "--undirected",
        "--reorder",
        "dbg",
        "--memory",
        "64M",
        "--json",
        arg(&json),
    ]);
    let report = json_report(&json);
    assert!(report["runs_spilled"].as_u64().unwrap() >= 2, "{report}");
    let peak = report["peak_rss_bytes"].as_u64().unwrap();
    assert!(peak <= 64 << 20, "peak RSS {peak} over a 64 MiB budget");
}

/// Two runs writing one report and one result at once: each output is whole (one run's
/// or the other's, never a mix), and no temporary is left.
#[test]
fn concurrent_writers_of_one_output_leave_a_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let g = graph(d, "g.sl");
    for _ in 0..3 {
        let runs: Vec<_> = ["pr", "cc"]
            .iter()
            .map(|kernel| {
                start(
                    d,
                    &["run", kernel, &g, "--json", "r.json", "--out", "x.npy"],
                )
            })
            .collect();
        for run in runs {
            assert!(run.wait_with_output().unwrap().status.success());
        }
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
        let kernel = report["kernel"].as_str().unwrap();
        assert!(kernel == "pr" || kernel == "cc", "{kernel}");
        let array = std::fs::read(d.join("x.npy")).unwrap();
        let header = String::from_utf8_lossy(&array[..64]).into_owned();
        // pr writes float64 scores, cc int64 labels; either whole file is fine.
        assert!(header.contains("<f8") || header.contains("<i8"), "{header}");
        assert_eq!(array.len(), 128 + 1024 * 8);
        assert!(hidden_entries(d).is_empty(), "{:?}", hidden_entries(d));
    }
}

/// A result's temporary left by a run that was killed (no lock, older than a second) is
/// removed by the next run writing into that folder, which says so.
#[test]
fn a_run_removes_the_temporaries_of_killed_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let g = graph(d, "g.sl");
    let left = d.join(".ranks.npy.Ab12Cd.partial");
    std::fs::write(&left, vec![0u8; 5000]).unwrap();
    let old = std::time::SystemTime::now() - Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&left)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let output = swapless(&[
        "run",
        "pr",
        arg(&d.join(&g)),
        "--out",
        arg(&d.join("ranks.npy")),
    ]);
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("removed 1 temporary"), "{stderr}");
    assert!(!left.exists());
}

/// A budget beyond what the system will map is warned of once and refused in a
/// sentence, not an abort, leaving nothing behind.
#[test]
fn a_budget_beyond_the_machine_is_refused_not_an_abort() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join(file(d, "g.el", b"0 1\n1 2\n"));
    let output = swapless(&[
        "build",
        arg(&input),
        "-o",
        arg(&d.join("g.sl")),
        "--memory",
        "100T",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.matches("warning: --memory 100T").count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.contains("more than this process can allocate"),
        "{stderr}"
    );
    assert!(!d.join("g.sl").exists() && hidden_entries(d).is_empty());
}

/// A table's ids are inside the plan, as an `.npy` array is: a run writing a table of
/// long names asks for the ids' bytes more, and at that least it stays as near its
/// budget as a run writing the array does at its own.
#[test]
fn a_table_of_names_is_written_within_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let vertices = 20_000u32;
    let name = |v: u32| format!("{v:0>8}-{}", "n".repeat(190));
    let text: String = (0..vertices)
        .flat_map(|v| [(v, (v + 1) % vertices), (v, (7 * v + 1) % vertices)])
        .map(|(s, t)| format!("{} {}\n", name(s), name(t)))
        .collect();
    let input = d.join(file(d, "names.el", text.as_bytes()));
    let graph = d.join("names.sl");
    swapless_ok(&["build", arg(&input), "-o", arg(&graph)]);
    let json = d.join("run.json");
    // The least a run writing `out` is refused with, and its peak when given it.
    let least_and_peak = |out: &str| -> (u64, u64) {
        let out = d.join(out);
        let run = [
            "run",
            "pr",
            arg(&graph),
            "--tier",
            "direct",
            "--out",
            arg(&out),
        ];
        let refused = swapless_fails(&[&run[..], &["--memory", "1M"]].concat());
        let start = refused.find("at least ").unwrap() + "at least ".len();
        let mib: u64 = refused[start..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap_or_else(|_| panic!("{refused}"));
        let memory = format!("{mib}M");
        swapless_ok(&[&run[..], &["--memory", &memory, "--json", arg(&json)]].concat());
        (
            mib << 20,
            json_report(&json)["peak_rss_bytes"].as_u64().unwrap(),
        )
    };
    let names_bytes = u64::from(vertices) * 199;
    let (array_least, array_peak) = least_and_peak("ranks.npy");
    for table in ["ranks.csv", "ranks.parquet"] {
        let (least, peak) = least_and_peak(table);
        assert!(
            least >= array_least + names_bytes,
            "{table}: least {least}, the array's {array_least}"
        );
        assert!(
            peak.saturating_sub(least) <= array_peak.saturating_sub(array_least),
            "{table}: peak RSS {peak} at a budget of {least}; the array's {array_peak} at {array_least}"
        );
    }
    let rows = std::fs::read_to_string(d.join("ranks.csv")).unwrap();
    assert_eq!(rows.lines().count(), vertices as usize + 1);
    assert!(rows.lines().nth(1).unwrap().starts_with(&name(0)));
}
