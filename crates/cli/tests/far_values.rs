//! The read side of far memory on a real Redis server started here on loopback: a value
//! rewritten while a run reads it ends the run naming node and key (or the fallback file
//! serves it); no manifest field decides an answer alone; a damaged local cache is
//! rebuilt and said so; `--verify` leaves no copy of the graph behind.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::redis::RedisServer;
use common::*;
use swapless_format::SectionKind;

/// `swapless args`, its far cache in `dir`.
fn far_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_swapless"));
    command
        .args(args)
        .env("SWAPLESS_CACHE_DIR", dir.join("cache"))
        .env_remove("SWAPLESS_REDIS_PASSWORD")
        .env_remove("SWAPLESS_REDIS_USER");
    command
}

/// [`far_command`] run to its end, insisting that it succeeds.
fn far_ok(dir: &Path, args: &[&str]) -> Output {
    let output = far_command(dir, args).output().unwrap();
    assert!(
        output.status.success(),
        "swapless {args:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A PageRank run on `url` under a budget that pins almost nothing, so that every
/// iteration reads the lists from the server again: its arguments before the output's.
fn pagerank_args<'a>(url: &'a str, memory: &'a str, iterations: &'a str) -> Vec<&'a str> {
    vec![
        "run",
        "pr",
        url,
        "--memory",
        memory,
        "--tolerance",
        "0",
        "--max-iters",
        iterations,
    ]
}

/// GETRANGE commands the server has answered so far.
fn getranges(server: &RedisServer) -> u64 {
    server
        .cli(&["info", "commandstats"])
        .lines()
        .find_map(|line| line.strip_prefix("cmdstat_getrange:calls="))
        .map_or(0, |rest| {
            rest.split(',').next().unwrap().trim().parse().unwrap()
        })
}

/// A graph pushed in small chunks, with what a run of it needs to know.
struct Pushed {
    server: RedisServer,
    url: String,
    /// `--memory` for a PageRank that reads its lists every iteration.
    memory: String,
    /// The chunk size.
    chunk_bytes: u64,
    /// Where the out-lists are in the file.
    neighbors: (u64, u64),
}

/// Pushes `local` in 16 KiB chunks to a new server, as `name`.
fn push(dir: &Path, local: &Path, name: &str) -> Pushed {
    let server = RedisServer::start(dir, &[]);
    let url = format!("redis://{}/{name}", server.node());
    far_ok(dir, &["far", "push", arg(local), &url, "--chunk", "16K"]);
    let plan = dir.join("plan.json");
    far_ok(dir, &["plan", &url, "pr", "--json", arg(&plan)]);
    let least = json_report(&plan)["minimum_bytes"].as_u64().unwrap();
    Pushed {
        server,
        url,
        memory: format!("{}K", (least >> 10) + 64),
        chunk_bytes: 16 << 10,
        neighbors: section_position(local, SectionKind::OutNeighbors),
    }
}

impl Pushed {
    /// The key of the chunk holding the out-lists' byte at `fraction` of their length.
    fn chunk_in_lists(&self, name: &str, fraction: f64) -> (u64, String) {
        let (offset, length) = self.neighbors;
        let index = (offset + (length as f64 * fraction) as u64) / self.chunk_bytes;
        let key = self
            .server
            .cli(&["--scan", "--pattern", &format!("swapless:{name}:*:{index}")]);
        let key = key.trim().to_string();
        assert!(!key.is_empty(), "chunk {index} is stored");
        (index, key)
    }

    /// GETRANGEs a PageRank iteration sends, and those a run sends before its first.
    fn requests_per_iteration(&self, dir: &Path) -> (u64, u64) {
        let requests = |iterations: &str| {
            let json = dir.join(format!("pr-{iterations}.json"));
            let mut args = pagerank_args(&self.url, &self.memory, iterations);
            args.extend(["--json", arg(&json)]);
            far_ok(dir, &args);
            json_report(&json)["far"]["network_requests"]
                .as_u64()
                .unwrap()
        };
        let (one, two) = (requests("1"), requests("2"));
        assert!(two > one, "each iteration reads from the server");
        (two - one, one - (two - one))
    }

    /// Starts a PageRank of `iterations` on the graph, with `extra` arguments, and waits
    /// until it has read every list from the server at least twice (so each page has
    /// passed its first check); then calls `change`, and returns the run.
    fn change_mid_run(
        &self,
        dir: &Path,
        iterations: &str,
        extra: &[&str],
        change: impl FnOnce(),
    ) -> Child {
        let (per_iteration, at_open) = self.requests_per_iteration(dir);
        let before = getranges(&self.server);
        let mut args = pagerank_args(&self.url, &self.memory, iterations);
        args.extend(extra);
        let mut run = far_command(dir, &args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while getranges(&self.server) < before + at_open + 3 * per_iteration {
            assert!(
                run.try_wait().unwrap().is_none(),
                "the run ended before two iterations"
            );
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the run stalled"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        change();
        run
    }
}

/// A kron graph of scale 12 in `dir`, pushed in small chunks as `kron`.
fn kron_pushed(dir: &Path) -> (PathBuf, Pushed) {
    let local = dir.join("kron.sl");
    generate_kron(&local, 12, 8, &[]);
    let pushed = push(dir, &local, "kron");
    (local, pushed)
}

/// A kron graph of `scale` in `dir`, pushed as `kron` to a new server: the file, the
/// server and the graph's address.
fn kron_stored(dir: &Path, scale: u32) -> (PathBuf, RedisServer, String) {
    let local = dir.join("kron.sl");
    generate_kron(&local, scale, 8, &[]);
    let server = RedisServer::start(dir, &[]);
    let url = format!("redis://{}/kron", server.node());
    far_ok(dir, &["far", "push", arg(&local), &url]);
    (local, server, url)
}

/// Waits for `run`, insisting that it failed in one sentence naming `node` and `key`.
fn ends_naming(run: Child, node: &str, key: &str) {
    let output = run.wait_with_output().unwrap();
    let sentence = failed_in_one_line(&["run", "pr"], output);
    assert!(
        sentence.contains(node) && sentence.contains(key) && sentence.contains("damaged"),
        "{sentence}"
    );
}

#[test]
fn a_value_rewritten_with_setrange_mid_pagerank_ends_the_run_naming_node_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let (_, pushed) = kron_pushed(dir);
    let (_, key) = pushed.chunk_in_lists("kron", 0.75);
    // Random bytes (out-of-range ids among them): once a panic, or scores far off.
    let noise: String = (0..64u32)
        .map(|i| char::from(b'!' + (i * 37 % 90) as u8))
        .collect();
    let run = pushed.change_mid_run(dir, "100000", &[], || {
        pushed.server.cli(&["setrange", &key, "100", &noise]);
    });
    ends_naming(run, &pushed.server.node(), &key);
}

#[test]
fn a_chunk_copied_over_another_mid_pagerank_ends_the_run_naming_node_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let (_, pushed) = kron_pushed(dir);
    let (_, source) = pushed.chunk_in_lists("kron", 0.5);
    let (_, key) = pushed.chunk_in_lists("kron", 0.75);
    assert_ne!(source, key);
    let run = pushed.change_mid_run(dir, "100000", &[], || {
        // A whole value of the right length, only not this chunk's.
        assert_eq!(
            pushed
                .server
                .cli(&["copy", &source, &key, "replace"])
                .trim(),
            "1"
        );
    });
    ends_naming(run, &pushed.server.node(), &key);
}

#[test]
fn a_fallback_file_serves_a_value_rewritten_mid_run_and_the_answer_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let (local, pushed) = kron_pushed(dir);
    let (_, key) = pushed.chunk_in_lists("kron", 0.75);
    let (far_out, local_out) = (dir.join("far.npy"), dir.join("local.npy"));
    let json = dir.join("far.json");
    let extra = [
        "--fallback",
        arg(&local),
        "--out",
        arg(&far_out),
        "--json",
        arg(&json),
    ];
    let run = pushed.change_mid_run(dir, "300", &extra, || {
        pushed.server.cli(&["setrange", &key, "100", "rewritten"]);
    });
    let output = run.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        json_report(&json)["far"]["fallback_reads"]
            .as_u64()
            .unwrap()
            > 0
    );
    let mut args = pagerank_args(arg(&local), "1G", "300");
    args.extend(["--tier", "dram", "--out", arg(&local_out)]);
    swapless_ok(&args);
    assert!(
        npy_payload(&far_out) == npy_payload(&local_out),
        "the far run's scores differ from the local file's"
    );
}

/// Replaces `from` with `to` in the manifest of graph `name` on `server`.
fn forge_manifest(server: &RedisServer, name: &str, from: &str, to: &str) {
    let key = format!("swapless:{name}:manifest");
    let manifest = server.cli(&["get", &key]);
    assert!(manifest.contains(from), "{manifest}");
    let forged = manifest.trim_end().replace(from, to);
    assert_eq!(server.cli(&["set", &key, &forged]).trim(), "OK");
}

#[test]
fn a_forged_non_negative_weights_flag_never_lets_sssp_run_on_negative_weights() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    // 0 -> 2 costs 1 directly, -4 through 1: delta-stepping would settle 2 at 1.
    let edges = dir.join("negative.txt");
    write_input(&edges, b"0 1 1\n1 2 -5\n0 2 1\n2 3 1\n");
    let local = dir.join("negative.sl");
    swapless_ok(&["build", arg(&edges), "-o", arg(&local), "--weighted"]);
    let server = RedisServer::start(dir, &[]);
    let url = format!("redis://{}/negative", server.node());
    far_ok(dir, &["far", "push", arg(&local), &url]);
    let args = ["run", "sssp", url.as_str(), "--source", "0"];
    let honest = failed_in_one_line(&args, far_command(dir, &args).output().unwrap());
    assert!(honest.contains("negative edge weights"), "{honest}");
    forge_manifest(
        &server,
        "negative",
        "\"non_negative_weights\":false",
        "\"non_negative_weights\":true",
    );
    let forged = failed_in_one_line(&args, far_command(dir, &args).output().unwrap());
    assert!(forged.contains("negative edge weights"), "{forged}");
}

#[test]
fn a_manifest_field_that_disagrees_with_the_header_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let (_, server, url) = kron_stored(dir, 10);
    let args = ["run", "bfs", url.as_str()];
    for (from, to, field) in [
        ("\"directed\":false", "\"directed\":true", "directed"),
        ("\"weighted\":false", "\"weighted\":true", "weighted"),
        ("\"vertices\":1024", "\"vertices\":1000", "vertices"),
    ] {
        // With the cache there, and without it: both are checked against the header.
        far_ok(dir, &args);
        forge_manifest(&server, "kron", from, to);
        for cached in [true, false] {
            if !cached {
                std::fs::remove_dir_all(dir.join("cache")).unwrap();
            }
            let refused = failed_in_one_line(&args, far_command(dir, &args).output().unwrap());
            assert!(
                refused.contains(&format!("field \"{field}\" disagrees")),
                "{refused}"
            );
        }
        forge_manifest(&server, "kron", to, from);
    }
}

/// The far cache's file of the one graph cached in `dir`.
fn cache_file(dir: &Path) -> PathBuf {
    let files: Vec<_> = std::fs::read_dir(dir.join("cache/far"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

#[test]
fn a_damaged_local_cache_is_rebuilt_and_said_so_not_blamed_on_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let (_, _server, url) = kron_stored(dir, 12);
    let run = |name: &str| {
        let (json, out) = (
            dir.join(format!("{name}.json")),
            dir.join(format!("{name}.npy")),
        );
        let args = ["run", "pr", &url, "--json", arg(&json), "--out", arg(&out)];
        let stderr = String::from_utf8_lossy(&far_ok(dir, &args).stderr).into_owned();
        (stderr, json_report(&json), npy_payload(&out))
    };
    let (_, first, scores) = run("first");
    assert!(first["far"]["cache_rebuilt"].is_null());
    // A few bytes of the cached offsets changed on the local disk.
    let cache = cache_file(dir);
    let (offsets, _) = section_position(&cache, SectionKind::OutOffsets);
    let mut bytes = std::fs::read(&cache).unwrap();
    bytes[offsets as usize + 100..offsets as usize + 104].copy_from_slice(b"\xff\xff\xff\x7f");
    std::fs::write(&cache, bytes).unwrap();
    let (said, rebuilt, rebuilt_scores) = run("rebuilt");
    let said: Vec<&str> = said.lines().filter(|line| line.contains("cache")).collect();
    assert!(
        said.len() == 1
            && said[0].contains(arg(&cache))
            && said[0].contains("out_offsets")
            && said[0].contains("rebuilt"),
        "{said:?}"
    );
    let reason = rebuilt["far"]["cache_rebuilt"].as_str().unwrap();
    assert!(reason.contains("out_offsets"), "{reason}");
    assert!(rebuilt_scores == scores);
    let (again, after, _) = run("after");
    assert!(!again.contains("cache"), "{again}");
    assert!(after["far"]["cache_rebuilt"].is_null());
}

#[test]
fn verify_on_a_far_graph_leaves_no_copy_of_the_graph_behind_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let (local, _server, url) = kron_stored(dir, 12);
    let json = dir.join("verify.json");
    let args = ["run", "pr", &url, "--verify", "--json", arg(&json)];
    let stderr = String::from_utf8_lossy(&far_ok(dir, &args).stderr).into_owned();
    let report = json_report(&json);
    assert_eq!(report["verified"], true);
    let file_bytes = std::fs::metadata(&local).unwrap().len();
    assert_eq!(report["far"]["verify_copy_bytes"], file_bytes);
    assert!(
        stderr.contains("whole copy") && stderr.contains("removed"),
        "{stderr}"
    );
    // Only the vertex sections stay: the cache file, holes where the lists are.
    let cache = cache_file(dir);
    let held = std::os::unix::fs::MetadataExt::blocks(&std::fs::metadata(&cache).unwrap()) * 512;
    let (_, lists) = section_position(&local, SectionKind::OutNeighbors);
    assert!(
        held < file_bytes - lists / 2,
        "the cache holds {held} bytes of a {file_bytes}-byte graph"
    );
}
