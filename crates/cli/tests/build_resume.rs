//! Builds killed after spilling sorted runs resume with `--resume`, reuse every intact
//! run, and write a file byte-identical to an uninterrupted build's.

mod common;

use std::path::{Path, PathBuf};

use common::hostile;
use common::*;

/// The build folders left in `dir`.
fn build_folders(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with(".swapless-build-"))
        })
        .collect()
}

#[test]
fn a_build_killed_after_any_spill_resumes_to_a_byte_identical_file() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.sl");
    let json = dir.path().join("build.json");
    swapless_ok(&spilling_kron_args(&whole, &json));
    let spills = json_report(&json)["runs_spilled"].as_u64().unwrap();
    assert!(spills >= 3, "the budget spills only {spills} runs");
    let resumed = dir.path().join("resumed.sl");
    let args = spilling_kron_args(&resumed, &json);
    // Killed after each spill in turn; the last is the one made once reading is done,
    // after which a resumed build reads no input at all.
    for kill in 1..=spills {
        assert!(was_killed(&swapless_killed_at(
            &args,
            &format!("after-spill:{kill}")
        )));
        assert!(!resumed.exists());
        assert_eq!(build_folders(dir.path()).len(), 1);
        let resume = [&args[..], &["--resume"]].concat();
        succeeded(swapless_killed_at(&resume, ""));
        let report = json_report(&json);
        assert_eq!(report["resumed_runs"], kill, "killed after spill {kill}");
        let phases: Vec<String> = report["phase_seconds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|phase| phase["phase"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            phases.contains(&"reading".to_string()),
            kill < spills,
            "{phases:?}"
        );
        assert_eq!(report["input_edges"], 1u64 << 21);
        assert_eq!(
            std::fs::read(&resumed).unwrap(),
            std::fs::read(&whole).unwrap(),
            "killed after spill {kill}"
        );
        assert!(build_folders(dir.path()).is_empty());
        std::fs::remove_file(&resumed).unwrap();
    }
    // Killed after every spill, one process after another.
    let mut kills = 0;
    loop {
        let mut attempt = args.clone();
        if kills > 0 {
            attempt.push("--resume");
        }
        let output = swapless_killed_at(&attempt, "after-spill:1");
        if !was_killed(&output) {
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            break;
        }
        kills += 1;
        assert!(kills <= spills);
    }
    assert_eq!(kills, spills);
    assert_eq!(
        std::fs::read(&resumed).unwrap(),
        std::fs::read(&whole).unwrap()
    );
}

#[test]
fn a_damaged_run_or_a_changed_input_is_not_reused() {
    let dir = tempfile::tempdir().unwrap();
    // A directed, weighted edge list with duplicates and self-loops.
    let input = dir.path().join("edges.el");
    let mut text = String::new();
    for (source, destination, weight) in random_edges(2_000_000, 200_000, 11) {
        text.push_str(&format!("{source} {destination} {weight}\n"));
    }
    text.push_str("7 7 1\n7 8 2\n7 8 1\n");
    std::fs::write(&input, &text).unwrap();
    let build_args = |output: &Path, json: &Path| -> Vec<String> {
        [
            "build",
            arg(&input),
            "--weighted",
            "--memory",
            "57M",
            "-o",
            arg(output),
            "--json",
            arg(json),
        ]
        .map(str::to_string)
        .to_vec()
    };
    let (whole, json) = (dir.path().join("whole.sl"), dir.path().join("build.json"));
    let args = build_args(&whole, &json);
    swapless_ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(json_report(&json)["runs_spilled"].as_u64().unwrap() >= 4);
    let resumed = dir.path().join("resumed.sl");
    let args = build_args(&resumed, &json);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let resume = [&args[..], &["--resume"]].concat();

    // The second spill's out-run damaged: only the first spill is reused.
    assert!(was_killed(&swapless_killed_at(&args, "after-spill:3")));
    let folder = &build_folders(dir.path())[0];
    let journal: serde_json::Value =
        serde_json::from_slice(&std::fs::read(folder.join("journal.json")).unwrap()).unwrap();
    let damaged = folder.join(journal["spills"][1]["out_run"]["file"].as_str().unwrap());
    let mut bytes = std::fs::read(&damaged).unwrap();
    bytes[100] ^= 1;
    std::fs::write(&damaged, bytes).unwrap();
    swapless_ok(&resume);
    // A directed build spills out- and in-arcs together: two runs a spill.
    assert_eq!(json_report(&json)["resumed_runs"], 2);
    assert_eq!(
        std::fs::read(&resumed).unwrap(),
        std::fs::read(&whole).unwrap()
    );
    std::fs::remove_file(&resumed).unwrap();

    // The input written again after the kill: its runs are not this input's.
    assert!(was_killed(&swapless_killed_at(&args, "after-spill:2")));
    text.push_str("1 2 3\n");
    std::fs::write(&input, &text).unwrap();
    let stderr = succeeded(swapless_killed_at(&resume, ""));
    assert!(
        stderr.contains("changed since its build was killed (its size differs)"),
        "{stderr}"
    );
    let report = json_report(&json);
    assert_eq!(report["resumed_runs"], 0);
    assert_eq!(report["input_edges"], 2_000_004);
}

#[test]
fn a_reordered_build_resumes_from_its_copy_of_the_input_and_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, json) = (dir.path().join("whole.sl"), dir.path().join("build.json"));
    let mut args = spilling_kron_args(&whole, &json);
    args.extend(["--reorder", "dbg"]);
    swapless_ok(&args);
    let spills = json_report(&json)["runs_spilled"].as_u64().unwrap();
    assert!(spills >= 3, "{spills}");
    let resumed = dir.path().join("resumed.sl");
    let mut args = spilling_kron_args(&resumed, &json);
    args.extend(["--reorder", "dbg"]);
    let resume = [&args[..], &["--resume"]].concat();
    // Killed once its copy of the input is whole (nothing spilled), and after spills.
    for (kill, reused) in [
        ("after-copy:1", 0),
        ("after-spill:2", 2),
        (&format!("after-spill:{spills}"), spills),
    ] {
        assert!(was_killed(&swapless_killed_at(&args, kill)), "{kill}");
        succeeded(swapless_killed_at(&resume, ""));
        let report = json_report(&json);
        assert_eq!(report["resumed_runs"], reused, "{kill}");
        assert_eq!(report["reordered"], true);
        let phases = report["phase_seconds"].to_string();
        assert!(
            phases.contains("from the copy of a killed build"),
            "{kill}: {phases}"
        );
        assert_eq!(
            std::fs::read(&resumed).unwrap(),
            std::fs::read(&whole).unwrap(),
            "{kill}"
        );
        std::fs::remove_file(&resumed).unwrap();
    }
}

#[test]
fn an_input_edited_in_place_with_its_time_put_back_is_not_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("edges.el");
    let mut text = String::new();
    for (source, destination, _) in random_edges(2_000_000, 200_000, 5) {
        text.push_str(&format!("{source} {destination}\n"));
    }
    std::fs::write(&input, &text).unwrap();
    let (output, json) = (dir.path().join("g.sl"), dir.path().join("build.json"));
    let args = [
        "build",
        arg(&input),
        "--memory",
        "57M",
        "-o",
        arg(&output),
        "--json",
        arg(&json),
    ];
    assert!(was_killed(&swapless_killed_at(&args, "after-spill:2")));
    // The first edge's source changed to another of the same width, the size the same
    // and the modification time put back as `touch -r` would.
    let modified = std::fs::metadata(&input).unwrap().modified().unwrap();
    let first_digit = text.find(|c: char| c.is_ascii_digit()).unwrap();
    let other = if &text[first_digit..=first_digit] == "1" {
        "2"
    } else {
        "1"
    };
    text.replace_range(first_digit..=first_digit, other);
    std::fs::write(&input, &text).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&input)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let resume = [&args[..], &["--resume"]].concat();
    let stderr = succeeded(swapless_killed_at(&resume, ""));
    assert!(
        stderr.contains("edges.el changed since its build was killed")
            && stderr.contains("building from the beginning"),
        "{stderr}"
    );
    assert_eq!(json_report(&json)["resumed_runs"], 0);
    let fresh = dir.path().join("fresh.sl");
    swapless_ok(&["build", arg(&input), "--memory", "57M", "-o", arg(&fresh)]);
    assert_eq!(
        std::fs::read(&output).unwrap(),
        std::fs::read(&fresh).unwrap()
    );
    assert!(build_folders(dir.path()).is_empty());
}

#[test]
fn a_build_of_another_output_leaves_a_killed_builds_runs_for_its_resume() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, json) = (dir.path().join("whole.sl"), dir.path().join("build.json"));
    swapless_ok(&spilling_kron_args(&whole, &json));
    let resumed = dir.path().join("resumed.sl");
    let args = spilling_kron_args(&resumed, &json);
    assert!(was_killed(&swapless_killed_at(&args, "after-spill:2")));
    let killed = build_folders(dir.path());
    assert_eq!(killed.len(), 1);
    // Older than the sweep's grace, as a build killed a while ago is.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    // Another build and a run writing into the same folder.
    let other = dir.path().join("other.sl");
    swapless_ok(&spilling_kron_args(&other, &json));
    swapless_ok(&[
        "run",
        "cc",
        arg(&other),
        "--out",
        arg(&dir.path().join("cc.npy")),
    ]);
    assert_eq!(build_folders(dir.path()), killed);
    let resume = [&args[..], &["--resume"]].concat();
    succeeded(swapless_killed_at(&resume, ""));
    assert_eq!(json_report(&json)["resumed_runs"], 2);
    assert_eq!(
        std::fs::read(&resumed).unwrap(),
        std::fs::read(&whole).unwrap()
    );
    // A build of the same output without --resume removes what it would have reused.
    assert!(was_killed(&swapless_killed_at(&args, "after-spill:1")));
    std::thread::sleep(std::time::Duration::from_millis(1100));
    swapless_ok(&args);
    assert!(build_folders(dir.path()).is_empty());
}

/// The run file `name` in `dir`'s build folder, once there is one.
fn run_in_build_folder(dir: &Path, name: &str) -> Option<PathBuf> {
    build_folders(dir)
        .into_iter()
        .map(|folder| folder.join(name))
        .find(|run| run.exists())
}

#[test]
fn a_run_changed_on_disk_during_a_build_fails_it_instead_of_changing_the_graph() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("k.sl"), b"precious").unwrap();
    let args = [
        "generate", "kron", "--scale", "18", "--degree", "16", "--memory", "57M", "-o", "k.sl",
    ];
    let child = hostile::start(d, &args);
    // Paused while it spills its later runs, its first run gets one bit flipped inside a
    // varint, which still decodes, to another arc.
    hostile::wait_for(|| run_in_build_folder(d, "run-3.bin").is_some());
    hostile::signal(&child, "STOP");
    let first = run_in_build_folder(d, "run-1.bin").unwrap();
    let mut bytes = std::fs::read(&first).unwrap();
    let inside = (bytes.len() / 2..).find(|&at| bytes[at] >= 0x80).unwrap();
    bytes[inside] ^= 1;
    std::fs::write(&first, &bytes).unwrap();
    hostile::signal(&child, "CONT");
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("was changed while the build was running"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(d.join("k.sl")).unwrap(), b"precious");
    assert!(build_folders(d).is_empty());
}
