//! Checkpoints and resumption: every kernel, killed at every step boundary on every
//! tier, resumes to the answer of an uninterrupted run; a kill while a checkpoint is
//! written, a damaged checkpoint and one of another run are each handled as the docs say.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::hostile::hidden_entries;
use common::*;

/// Arguments of a run of `kernel` on `graph` writing its report to `json` and its
/// result to `out`, with `extra`.
fn run_args<'a>(
    kernel: &'a str,
    graph: &'a Path,
    json: &'a Path,
    out: &'a Path,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec!["run", kernel, arg(graph), "--json", arg(json)];
    if !returns_a_number(kernel) {
        args.extend(["--out", arg(out)]);
    }
    args.extend(extra);
    args
}

/// The report and result of the run `run_args` made.
fn answer(kernel: &str, json: &Path, out: &Path) -> (serde_json::Value, Vec<u8>) {
    let result = match returns_a_number(kernel) {
        true => Vec::new(),
        false => npy_payload(out),
    };
    (json_report(json), result)
}

/// Asserts a resumed run's answer is the uninterrupted one's: bit for bit for every
/// deterministic kernel; bfs's tree verified with the same levels; bc's scores (sums
/// of f64s added in the order threads race) within 1e-9; sssp's distances exact.
fn assert_same_as_uninterrupted(
    kernel: &str,
    tier: &str,
    resumed: (&serde_json::Value, &[u8]),
    whole: (&serde_json::Value, &[u8]),
) {
    let deterministic =
        swapless_run::Kernel::from_name(kernel).is_some_and(|kernel| kernel.info().deterministic);
    if deterministic {
        assert_eq!(resumed.0["result"], whole.0["result"], "{kernel} on {tier}");
        assert_eq!(resumed.1, whole.1, "{kernel} on {tier}: not bit for bit");
    } else {
        assert_same_answer(kernel, tier, resumed, whole);
    }
}

/// The checkpoint files in `folder` (its lock and temporaries are hidden); none if it
/// is not made yet.
fn checkpoint_files(folder: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.'))
        .collect();
    names.sort();
    names
}

/// Runs `args` with a kill after the first checkpoint of each process and `--resume`
/// from the second process on, until a run finishes; the number of kills.
fn run_killed_after_every_checkpoint(args: &[&str]) -> u32 {
    let mut kills = 0;
    loop {
        let mut resumed = args.to_vec();
        if kills > 0 {
            resumed.push("--resume");
        }
        let output = swapless_killed_at(&resumed, "after-checkpoint:1");
        if was_killed(&output) {
            kills += 1;
            assert!(kills < 2000, "{args:?} never finished");
            continue;
        }
        assert!(
            output.status.success(),
            "swapless {resumed:?} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        return kills;
    }
}

fn kron(dir: &Path, scale: u32) -> PathBuf {
    let path = dir.join(format!("kron{scale}.sl"));
    generate_kron(&path, scale, 8, &["--weighted"]);
    path
}

/// The least budget `plan` gives with `extra`, in bytes.
fn least(graph: &Path, kernel: &str, extra: &[&str], dir: &Path) -> u64 {
    let json = dir.join("plan.json");
    let mut args = vec!["plan", arg(graph), kernel, "--json", arg(&json)];
    args.extend(extra);
    swapless_ok(&args);
    json_report(&json)["minimum_bytes"].as_u64().unwrap()
}

#[test]
fn every_kernel_killed_at_every_step_resumes_to_the_uninterrupted_answer_on_every_tier() {
    let dir = tempfile::tempdir().unwrap();
    let graph = kron(dir.path(), 11);
    killed_at_every_step_resumes_on_every_tier(&graph, dir.path(), &kernels_for(&graph));
    // The kernels that search from every vertex, on a graph of 512.
    let small = kron(dir.path(), 9);
    let every_vertex: Vec<&str> = all_kernels()
        .into_iter()
        .filter(|k| from_every_vertex(k))
        .collect();
    killed_at_every_step_resumes_on_every_tier(&small, dir.path(), &every_vertex);
}

#[test]
fn kernels_on_compressed_lists_killed_at_every_step_resume_to_the_uninterrupted_answer() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("kron11-v3.sl");
    generate_kron(&graph, 11, 8, &["--weighted", "--lists", "compressed"]);
    killed_at_every_step_resumes_on_every_tier(&graph, dir.path(), &["pr", "bfs", "sssp", "bc"]);
}

/// Each of `kernels` on `graph`, killed after every checkpoint on each tier and resumed,
/// gives a verified dram run's answer within its budget and leaves no checkpoint behind.
fn killed_at_every_step_resumes_on_every_tier(graph: &Path, dir: &Path, kernels: &[&str]) {
    let graph = graph.to_path_buf();
    for &kernel in kernels {
        // Several sources, so that betweenness has steps to checkpoint between.
        let kernel_options: &[&str] = if kernel.ends_with("bc") {
            &["--sources", "4"]
        } else {
            &[]
        };
        let (json, out) = (dir.join("whole.json"), dir.join("whole.npy"));
        let whole_args = [kernel_options, &["--tier", "dram", "--verify"]].concat();
        swapless_ok(&run_args(kernel, &graph, &json, &out, &whole_args));
        let whole = answer(kernel, &json, &out);
        let footprint = whole.0["footprint_bytes"].as_u64().unwrap();
        for tier in ["dram", "mmap", "direct"] {
            let folder = dir.join(format!("checkpoints-{kernel}-{tier}"));
            let tier_options = ["--tier", tier, "--verify"];
            let budget = match tier {
                "dram" => footprint * 4,
                _ => {
                    (least(&graph, kernel, &tier_options, dir) + (64 << 10)).max(footprint * 6 / 10)
                }
            };
            let memory = format!("{}K", budget.div_ceil(1024));
            let (json, out) = (dir.join("resumed.json"), dir.join("resumed.npy"));
            let extra = [
                kernel_options,
                &tier_options,
                &[
                    "--memory",
                    &memory,
                    "--checkpoint",
                    arg(&folder),
                    "--checkpoint-every",
                    "1",
                ],
            ]
            .concat();
            let kills =
                run_killed_after_every_checkpoint(&run_args(kernel, &graph, &json, &out, &extra));
            let resumed = answer(kernel, &json, &out);
            assert!(
                kills >= 1,
                "{kernel} on {tier} took no step to checkpoint after"
            );
            assert_eq!(resumed.0["verified"], true);
            assert_eq!(
                resumed.0["resumed_from_step"], kills as u64,
                "{kernel} on {tier}"
            );
            assert_eq!(resumed.0["tier"], tier);
            // Restoring and writing checkpoints stay within the budget, with no allowance.
            let peak = resumed.0["peak_rss_bytes"].as_u64().unwrap();
            assert!(
                peak <= budget.div_ceil(1024) * 1024,
                "{kernel} on {tier}: peak {peak} over {budget}"
            );
            assert_same_as_uninterrupted(
                kernel,
                tier,
                (&resumed.0, &resumed.1),
                (&whole.0, &whole.1),
            );
            // A finished run leaves no checkpoint behind: the next starts afresh.
            assert!(checkpoint_files(&folder).is_empty(), "{kernel} on {tier}");
        }
    }
}

/// A PageRank run of many iterations on `graph` into `folder`, with `extra`.
fn long_pagerank<'a>(
    graph: &'a Path,
    folder: &'a Path,
    json: &'a Path,
    out: &'a Path,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let options = [
        &[
            "--tolerance",
            "0",
            "--max-iters",
            "12",
            "--checkpoint",
            arg(folder),
        ][..],
        extra,
    ]
    .concat();
    run_args("pr", graph, json, out, &options)
}

#[test]
fn a_kill_while_a_checkpoint_is_written_or_a_damaged_one_falls_back_to_the_one_before() {
    let dir = tempfile::tempdir().unwrap();
    let graph = kron(dir.path(), 10);
    let (json, out) = (dir.path().join("whole.json"), dir.path().join("whole.npy"));
    let whole_args = ["--tolerance", "0", "--max-iters", "12"];
    swapless_ok(&run_args("pr", &graph, &json, &out, &whole_args));
    let whole = answer("pr", &json, &out);

    // Killed halfway through writing its third checkpoint: the first two are whole, the
    // third is a temporary that the resumed run removes.
    let folder = dir.path().join("inside");
    let (json, out) = (
        dir.path().join("resumed.json"),
        dir.path().join("resumed.npy"),
    );
    let args = long_pagerank(&graph, &folder, &json, &out, &["--checkpoint-every", "1"]);
    assert!(was_killed(&swapless_killed_at(
        &args,
        "inside-checkpoint:3"
    )));
    let names = hidden_entries(&folder);
    assert!(
        names.iter().any(|name| name.ends_with(".partial")),
        "{names:?}"
    );
    let resume = [&args[..], &["--resume"]].concat();
    succeeded(swapless_killed_at(&resume, ""));
    let resumed = answer("pr", &json, &out);
    assert_eq!(resumed.0["resumed_from_step"], 2);
    assert_same_as_uninterrupted("pr", "dram", (&resumed.0, &resumed.1), (&whole.0, &whole.1));
    assert!(hidden_entries(&folder).is_empty());

    // The newest damaged after the kill: the run says so and resumes from the one before.
    let folder = dir.path().join("damaged");
    let args = long_pagerank(&graph, &folder, &json, &out, &["--checkpoint-every", "1"]);
    assert!(was_killed(&swapless_killed_at(&args, "after-checkpoint:3")));
    let newest = folder.join("step-0000000003.slck");
    let mut bytes = std::fs::read(&newest).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&newest, bytes).unwrap();
    let resume = [&args[..], &["--resume"]].concat();
    let stderr = succeeded(swapless_killed_at(&resume, ""));
    assert!(
        stderr.contains("step-0000000003.slck is damaged"),
        "{stderr}"
    );
    assert!(stderr.contains("resuming after step 2"), "{stderr}");
    let resumed = answer("pr", &json, &out);
    assert_eq!(resumed.0["resumed_from_step"], 2);
    assert_same_as_uninterrupted("pr", "dram", (&resumed.0, &resumed.1), (&whole.0, &whole.1));

    // Every checkpoint damaged: one sentence, and nothing is removed.
    let folder = dir.path().join("all-damaged");
    let args = long_pagerank(&graph, &folder, &json, &out, &["--checkpoint-every", "1"]);
    assert!(was_killed(&swapless_killed_at(&args, "after-checkpoint:3")));
    for name in checkpoint_files(&folder) {
        let path = folder.join(name);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.truncate(bytes.len() - 1);
        std::fs::write(&path, bytes).unwrap();
    }
    let resume = [&args[..], &["--resume"]].concat();
    let error = failed_in_one_line(&resume, swapless_killed_at(&resume, ""));
    assert!(
        error.contains("no checkpoint in") && error.contains("remove them to start over"),
        "{error}"
    );
    assert_eq!(checkpoint_files(&folder).len(), 2);
}

#[test]
fn checkpoints_of_another_run_are_refused_and_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let graph = kron(dir.path(), 10);
    let other_graph = dir.path().join("other.sl");
    generate_kron(&other_graph, 10, 4, &[]);
    let folder = dir.path().join("checkpoints");
    let (json, out) = (dir.path().join("run.json"), dir.path().join("run.npy"));
    let args = long_pagerank(&graph, &folder, &json, &out, &["--checkpoint-every", "1"]);
    assert!(was_killed(&swapless_killed_at(&args, "after-checkpoint:2")));

    // Without --resume the folder's checkpoints are neither used nor replaced.
    let error = swapless_fails(&args);
    assert!(
        error.contains("already holds 2 checkpoint(s)") && error.contains("--resume"),
        "{error}"
    );

    let other_options = long_pagerank(
        &graph,
        &folder,
        &json,
        &out,
        &["--damping", "0.9", "--resume"],
    );
    let other_kernel = run_args(
        "bfs",
        &graph,
        &json,
        &out,
        &["--checkpoint", arg(&folder), "--resume"],
    );
    let other_method = long_pagerank(
        &graph,
        &folder,
        &json,
        &out,
        &["--method", "gauss-seidel", "--resume"],
    );
    let other_file = long_pagerank(&other_graph, &folder, &json, &out, &["--resume"]);
    // Options are named as the user spells them, the one that differs alone.
    let cases: [(&[&str], &str); 4] = [
        (
            &other_options,
            "was written by a run with --damping 0.85, and this run has --damping 0.9; run with --damping 0.85 to resume it",
        ),
        (
            &other_method,
            "a run with --method power, and this run has --method gauss-seidel",
        ),
        (
            &other_kernel,
            "is of another run (its kernel: pr; this run's: bfs)",
        ),
        (&other_file, "is of another run (its graph fingerprint: "),
    ];
    for (args, expected) in cases {
        let error = swapless_fails(args);
        assert!(error.contains(expected), "{error}");
    }
    assert_eq!(checkpoint_files(&folder).len(), 2);
    // A run refused leaves no lock file behind (a kill alone leaves one).
    assert!(!folder.join(".owner.lock").exists());
    // Betweenness samples are named as typed, all as all.
    let bc = |sources: &'static str, resume: bool| -> Vec<String> {
        let mut args = [
            "run",
            "bc",
            arg(&graph),
            "--sources",
            sources,
            "--checkpoint",
        ]
        .map(str::to_string)
        .to_vec();
        args.push(arg(&dir.path().join("bc")).to_string());
        args.extend(["--checkpoint-every", "1"].map(str::to_string));
        if resume {
            args.push("--resume".to_string());
        }
        args
    };
    let first = bc("3", false);
    assert!(was_killed(&swapless_killed_at(
        &first.iter().map(String::as_str).collect::<Vec<_>>(),
        "after-checkpoint:1"
    )));
    let error = swapless_fails(
        &bc("all", true)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(
        error.contains("a run with --sources 3, and this run has --sources all"),
        "{error}"
    );

    // Flags that make no sense are refused before any work.
    let usage: [(&[&str], &str); 3] = [
        (
            &["--checkpoint-every", "soon"],
            "--checkpoint-every \"soon\" must be",
        ),
        (
            &["--checkpoint-every", "0"],
            "--checkpoint-every \"0\" must be",
        ),
        (
            &["--trials", "2"],
            "--trials must be 1 for a run that writes checkpoints",
        ),
    ];
    // A file named as the folder is refused as one, not with the system's "File exists".
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"mine").unwrap();
    let error = swapless_fails(&long_pagerank(&graph, &file, &json, &out, &[]));
    assert!(
        error.contains("is a file, not a folder; give --checkpoint a folder"),
        "{error}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"mine");
    let fresh = dir.path().join("fresh");
    for (extra, expected) in usage {
        let args = long_pagerank(&graph, &fresh, &json, &out, extra);
        let error = swapless_fails(&args);
        assert!(error.contains(expected), "{error}");
    }
    let output = swapless(&["run", "pr", arg(&graph), "--resume"]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--checkpoint"));
}

#[test]
fn kills_at_random_times_then_resumes_give_the_uninterrupted_answer() {
    let dir = tempfile::tempdir().unwrap();
    let graph = kron(dir.path(), 16);
    for (kernel, extra) in [
        ("pr", &["--tolerance", "0", "--max-iters", "40"][..]),
        ("kcore", &[][..]),
    ] {
        let (json, out) = (dir.path().join("whole.json"), dir.path().join("whole.npy"));
        let started = std::time::Instant::now();
        swapless_ok(&run_args(
            kernel,
            &graph,
            &json,
            &out,
            &[extra, &["--tier", "direct", "--memory", "64M"]].concat(),
        ));
        let whole = answer(kernel, &json, &out);
        // The whole process's time, start-up included: kills fall within its first 60%.
        let whole_seconds = started.elapsed().as_secs_f64();
        let folder = dir.path().join(format!("random-{kernel}"));
        let (json, out) = (
            dir.path().join("resumed.json"),
            dir.path().join("resumed.npy"),
        );
        let mut args = run_args(kernel, &graph, &json, &out, extra);
        args.extend([
            "--tier",
            "direct",
            "--memory",
            "64M",
            "--checkpoint",
            arg(&folder),
            "--checkpoint-every",
            "1",
            "--verify",
        ]);
        // A reproducible sequence of kill times within the run's length.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let (mut kills, mut kills_after_a_checkpoint) = (0, 0);
        loop {
            let mut attempt = args.clone();
            if kills > 0 {
                attempt.push("--resume");
            }
            let mut child = Command::new(env!("CARGO_BIN_EXE_swapless"))
                .args(&attempt)
                .env_remove("SWAPLESS_TEST_KILL")
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let fraction = (state >> 33) as f64 / (1u64 << 31) as f64;
            let delay = std::time::Duration::from_secs_f64(0.6 * fraction * whole_seconds);
            if kills >= 10 && kills_after_a_checkpoint < 3 {
                // On a loaded machine the runs are slower than the one timed, and kills at
                // random may all fall before the first checkpoint: wait for one (or the
                // run's end), then kill at random within a fifth of the run's length.
                while checkpoint_files(&folder).is_empty() && child.try_wait().unwrap().is_none() {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                std::thread::sleep(delay / 3);
            } else {
                std::thread::sleep(delay);
            }
            match child.try_wait().unwrap() {
                Some(status) => {
                    assert!(status.success(), "{kernel}: {attempt:?} failed");
                    break;
                }
                // Killed until three kills have fallen after a checkpoint (and so lost
                // less than the whole run).
                None if kills_after_a_checkpoint < 3 && kills < 40 => {
                    child.kill().unwrap();
                    child.wait().unwrap();
                    kills += 1;
                    kills_after_a_checkpoint += u32::from(!checkpoint_files(&folder).is_empty());
                }
                // Enough kills: this one runs to its end.
                None => {
                    assert!(
                        child.wait().unwrap().success(),
                        "{kernel}: {attempt:?} failed"
                    );
                    break;
                }
            }
        }
        let resumed = answer(kernel, &json, &out);
        assert_eq!(kills_after_a_checkpoint, 3, "{kernel}: {kills} kills");
        assert!(
            resumed.0["resumed_from_step"]
                .as_u64()
                .is_some_and(|step| step > 0)
        );
        assert_eq!(resumed.0["verified"], true);
        assert_same_as_uninterrupted(
            kernel,
            "direct",
            (&resumed.0, &resumed.1),
            (&whole.0, &whole.1),
        );
    }
}
