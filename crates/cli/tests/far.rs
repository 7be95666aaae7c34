//! Far memory on real Redis servers started here on loopback: push, list, remove; every
//! kernel on a far graph gives the dram answer at budgets that force reads, on one node
//! and on a cluster, with chunks from 4 KiB to 1 MiB; faults end a run in one sentence.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::redis::{RedisCluster, RedisServer, far_fails, far_ok, far_swapless};
use common::*;

/// A run of `kernel` on `graph` (a file or a far address) with `extra`: (report, result).
fn run(dir: &Path, graph: &str, kernel: &str, extra: &[&str]) -> (serde_json::Value, Vec<u8>) {
    let tag = format!(
        "{kernel}-{}",
        extra.join("").replace(['-', '/', ':', '.'], "")
    );
    let json = dir.join(format!("{tag}.json"));
    let out = dir.join(format!("{tag}.npy"));
    let mut args = vec!["run", kernel, graph, "--json", arg(&json)];
    if !returns_a_number(kernel) {
        args.extend(["--out", arg(&out)]);
    }
    args.extend(extra);
    far_ok(dir, &args);
    let result = match returns_a_number(kernel) {
        true => Vec::new(),
        false => npy_payload(&out),
    };
    (json_report(&json), result)
}

/// The least budget `plan` gives `kernel` on `graph`, in bytes.
fn least(dir: &Path, graph: &str, kernel: &str) -> u64 {
    let json = dir.join("plan.json");
    far_ok(dir, &["plan", graph, kernel, "--json", arg(&json)]);
    json_report(&json)["minimum_bytes"].as_u64().unwrap()
}

/// Every kernel on the far graph `url` gives the answer of a verified dram run on the
/// same graph's file `local`, at half its footprint (or its least budget): checks the
/// tier, the traffic and the peak.
fn every_kernel_matches_dram(dir: &Path, local: &Path, url: &str, kernels: &[&str]) {
    for &kernel in kernels {
        let dram = run(dir, arg(local), kernel, &["--tier", "dram", "--verify"]);
        let footprint = dram.0["footprint_bytes"].as_u64().unwrap();
        let budget = (least(dir, url, kernel) + (64 << 10)).max(footprint / 2);
        let memory = format!("{}K", budget >> 10);
        let far = run(dir, url, kernel, &["--memory", &memory]);
        // The tier and where the graph came from are named apart.
        assert_eq!(far.0["tier"], "direct", "{kernel}");
        assert_eq!(far.0["origin"], "far", "{kernel}");
        assert!(
            far.0["far"]["network_bytes"].as_u64().unwrap() > 0,
            "{kernel} read nothing"
        );
        let peak = far.0["peak_rss_bytes"].as_u64().unwrap();
        assert!(
            peak <= budget,
            "{kernel}: peak RSS {peak} over the budget {budget}"
        );
        assert_same_answer_on(local, kernel, "far", (&far.0, &far.1), (&dram.0, &dram.1));
    }
}

/// A weighted Kronecker graph of scale 16 in `dir`.
fn graph(dir: &Path) -> PathBuf {
    let path = dir.join("kron16.sl");
    generate_kron(&path, 16, 8, &["--weighted"]);
    path
}

#[test]
fn one_node_stores_lists_removes_and_serves_every_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = graph(dir);
    let server = RedisServer::start(dir, &[]);
    let url = format!("redis://{}/kron", server.node());
    let pushed = far_ok(dir, &["far", "push", arg(&local), &url, "--chunk", "64K"]);
    assert!(pushed.contains("stored"), "{pushed}");
    // The same graph again: nothing to send.
    let again = far_ok(dir, &["far", "push", arg(&local), &url, "--chunk", "64K"]);
    assert!(again.contains("already holds"), "{again}");
    let listed = far_ok(dir, &["far", "ls", &format!("redis://{}", server.node())]);
    assert!(
        listed.contains("kron") && listed.contains("65,536 vertices"),
        "{listed}"
    );
    every_kernel_matches_dram(dir, &local, &url, &kernels_of_linear_cost(&local));
    // The kernels that search from every vertex, on a graph of 1,024.
    let small = dir.join("kron10.sl");
    generate_kron(&small, 10, 8, &["--weighted"]);
    let small_url = format!("redis://{}/kron10", server.node());
    far_ok(
        dir,
        &["far", "push", arg(&small), &small_url, "--chunk", "64K"],
    );
    let every_vertex: Vec<&str> = all_kernels()
        .into_iter()
        .filter(|k| from_every_vertex(k))
        .collect();
    every_kernel_matches_dram(dir, &small, &small_url, &every_vertex);
    // --verify on a far graph fetches the whole file once and checks the answer.
    let (verified, _) = run(dir, &url, "cc", &["--verify"]);
    assert_eq!(verified["verified"], true);
    // The tier is apart from the origin: a far graph is served by the direct tier alone.
    let args = ["run", "pr", &url, "--tier", "mmap"];
    let refused = far_swapless(dir, &args, &[]);
    assert_eq!(refused.status.code(), Some(2), "{args:?}");
    let mmap = failed_in_one_line(&args, refused);
    assert!(
        mmap.contains("--tier must be direct for a graph from redis://"),
        "{mmap}"
    );
    // Chunks from 4 KiB to 1 MiB.
    for (chunk, kernel) in [("4K", "pr"), ("1M", "bfs")] {
        let chunked = format!("redis://{}/kron-{chunk}", server.node());
        far_ok(
            dir,
            &["far", "push", arg(&local), &chunked, "--chunk", chunk],
        );
        every_kernel_matches_dram(dir, &local, &chunked, &[kernel]);
    }
    // A budget that pins whole sections: reads far longer than a request, several of
    // them in one 1 MiB chunk, each asking for its own range.
    let pinned = run(
        dir,
        &format!("redis://{}/kron-1M", server.node()),
        "cc",
        &["--memory", "1G"],
    );
    let dram = run(dir, arg(&local), "cc", &["--tier", "dram"]);
    assert_eq!(
        (pinned.0["result"].clone(), pinned.1),
        (dram.0["result"].clone(), dram.1)
    );
    let removed = far_ok(dir, &["far", "rm", &url]);
    assert!(removed.contains("removed"), "{removed}");
    assert!(!far_ok(dir, &["far", "ls", &format!("redis://{}", server.node())]).contains("kron "));
    let gone = far_fails(dir, &["run", "pr", &url], &[]);
    assert!(gone.contains("no graph named \"kron\""), "{gone}");
}

#[test]
fn a_graph_with_compressed_lists_is_stored_smaller_and_serves_every_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = graph(dir);
    let compressed = dir.join("kron16-v3.sl");
    let plain = swapless_format::GraphFile::open(&local).unwrap();
    swapless_format::transcode(
        &plain,
        &compressed,
        swapless_format::ListForm::Compressed,
        &mut |_| true,
    )
    .unwrap();
    let server = RedisServer::start(dir, &[]);
    let used = || -> u64 {
        let info = server.cli(&["info", "memory"]);
        let line = info
            .lines()
            .find(|line| line.starts_with("used_memory:"))
            .unwrap();
        line["used_memory:".len()..].trim().parse().unwrap()
    };
    let empty = used();
    let plain_url = format!("redis://{}/plain", server.node());
    far_ok(dir, &["far", "push", arg(&local), &plain_url]);
    let with_plain = used();
    far_ok(dir, &["far", "rm", &plain_url]);
    let url = format!("redis://{}/kron", server.node());
    far_ok(dir, &["far", "push", arg(&compressed), &url]);
    let with_compressed = used();
    // Weights lie beside their ids uncompressed, and positions beside the offsets: the
    // ids alone shrink, to about half.
    assert!(
        (with_compressed - empty) * 10 < (with_plain - empty) * 9,
        "compressed lists took {} bytes of the server's memory, plain ones {}",
        with_compressed - empty,
        with_plain - empty
    );
    every_kernel_matches_dram(dir, &compressed, &url, &kernels_of_linear_cost(&compressed));
    // Chunks of a page: every read a few pages, each decoding alone.
    let paged = format!("redis://{}/kron-4K", server.node());
    far_ok(
        dir,
        &["far", "push", arg(&compressed), &paged, "--chunk", "4K"],
    );
    every_kernel_matches_dram(dir, &compressed, &paged, &["bfs", "pr"]);
}

#[test]
fn a_different_graph_is_kept_unless_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let server = RedisServer::start(dir, &[]);
    let (first, second) = (dir.join("a.sl"), dir.join("b.sl"));
    generate_kron(&first, 10, 4, &[]);
    generate_kron(&second, 11, 4, &[]);
    let url = format!("redis://{}/g", server.node());
    far_ok(dir, &["far", "push", arg(&first), &url]);
    let taken = far_fails(dir, &["far", "push", arg(&second), &url], &[]);
    assert!(taken.contains("a different graph"), "{taken}");
    let replaced = far_ok(dir, &["far", "push", arg(&second), &url, "--replace"]);
    assert!(replaced.contains("replaced"), "{replaced}");
    // The old graph's chunks are gone: only the new one's and its manifest remain.
    let keys = server.cli(&["--scan", "--pattern", "swapless:g:*"]);
    let chunk_bytes = 256 << 10;
    let second_bytes = std::fs::metadata(&second).unwrap().len();
    assert_eq!(
        keys.lines().count() as u64,
        second_bytes.div_ceil(chunk_bytes) + 1,
        "{keys}"
    );
    let (report, _) = run(dir, &url, "cc", &[]);
    assert_eq!(report["vertices"], 2048);
}

#[test]
fn faults_end_a_far_run_in_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = graph(dir);
    let mut server = RedisServer::start(dir, &["--requirepass", "sesame"]);
    let url = format!("redis://{}/kron", server.node());
    let password = [("SWAPLESS_REDIS_PASSWORD", "sesame")];
    let refused = far_fails(dir, &["far", "push", arg(&local), &url], &[]);
    assert!(refused.contains("refused the credentials"), "{refused}");
    let wrong = far_fails(
        dir,
        &["far", "ls", &url],
        &[("SWAPLESS_REDIS_PASSWORD", "open")],
    );
    assert!(
        wrong.contains("refused the credentials") && wrong.contains("SWAPLESS_REDIS_PASSWORD"),
        "{wrong}"
    );
    let output = far_swapless(dir, &["far", "push", arg(&local), &url], &password);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // A password in the address never reaches what info and plan print or write.
    let with_password = format!("redis://:sesame@{}/kron", server.node());
    for command in [&["info"][..], &["plan"]] {
        let json = dir.join("described.json");
        let mut args = command.to_vec();
        args.extend([with_password.as_str(), "pr", "--json", arg(&json)]);
        if command == ["info"] {
            args.remove(2);
        }
        let said = far_ok(dir, &args);
        let written = std::fs::read_to_string(&json).unwrap();
        assert!(
            !said.contains("sesame") && !written.contains("sesame"),
            "{said}{written}"
        );
        assert_eq!(json_report(&json)["origin"], "far", "{command:?}");
    }
    let memory = format!(
        "{}K",
        (least(
            dir,
            &format!("redis://:sesame@{}/kron", server.node()),
            "pr"
        ) >> 10)
            + 64
    );
    // A chunk evicted (or deleted): the run names the key and stops.
    let key = server.cli(&[
        "-a",
        "sesame",
        "--no-auth-warning",
        "--scan",
        "--pattern",
        "swapless:kron:*:7",
    ]);
    let key = key.trim();
    assert!(!key.is_empty());
    server.cli(&["-a", "sesame", "--no-auth-warning", "del", key]);
    let missing = far_fails(dir, &["run", "pr", &url, "--memory", &memory], &password);
    assert!(
        missing.contains("is missing") && missing.contains(key),
        "{missing}"
    );
    // A value changed in place (same length): its page fails its checksum, and the
    // run names the key; `check` finds it too. (The lost chunk pushed back first.)
    let restored = far_swapless(dir, &["far", "push", arg(&local), &url], &password);
    assert!(restored.status.success());
    // Chunk 8 lies in the out-lists, which pr reads.
    let key = server.cli(&[
        "-a",
        "sesame",
        "--no-auth-warning",
        "--scan",
        "--pattern",
        "swapless:kron:*:8",
    ]);
    let key = key.trim();
    server.cli(&[
        "-a",
        "sesame",
        "--no-auth-warning",
        "setrange",
        key,
        "100",
        "XYZ",
    ]);
    let damaged = far_fails(dir, &["run", "pr", &url, "--memory", &memory], &password);
    assert!(
        damaged.contains("is damaged") && damaged.contains(key),
        "{damaged}"
    );
    let checked = far_fails(dir, &["check", &url], &password);
    assert!(
        checked.contains("is damaged") && checked.contains(key),
        "{checked}"
    );
    // The node stopped: one sentence naming it.
    server.kill();
    let unreachable = far_fails(dir, &["run", "pr", &url, "--memory", &memory], &password);
    assert!(unreachable.contains(&server.node()), "{unreachable}");
    // Not an address at all.
    let bad = far_fails(dir, &["run", "pr", "redis://nowhere/kron"], &[]);
    assert!(bad.contains("host:port"), "{bad}");
}

#[test]
fn a_three_master_cluster_spreads_chunks_and_serves_kernels() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = graph(dir);
    let cluster = RedisCluster::start(dir, 3, 0);
    let url = cluster.url("kron");
    far_ok(dir, &["far", "push", arg(&local), &url, "--chunk", "16K"]);
    // Every master holds some of the chunks.
    for server in &cluster.servers {
        let keys: usize = server.cli(&["dbsize"]).trim().parse().unwrap();
        assert!(keys > 10, "{} holds {keys} keys", server.node());
    }
    every_kernel_matches_dram(dir, &local, &url, &["pr", "bfs", "cc", "sssp"]);
    let (report, _) = run(dir, &url, "pr", &["--memory", "24M"]);
    let nodes = report["far"]["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 3, "{}", report["far"]);
    // The queue kept requests in flight to the nodes, and says how many.
    assert!(
        nodes
            .iter()
            .any(|node| node["max_in_flight"].as_u64().unwrap() > 1),
        "{nodes:?}"
    );
    assert!(
        nodes
            .iter()
            .all(|node| node["mean_in_flight"].as_f64().unwrap() >= 0.0)
    );
}

#[test]
fn a_master_killed_mid_run_fails_over_and_the_run_gives_the_same_answer() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = graph(dir);
    let mut cluster = RedisCluster::start(dir, 3, 1);
    let url = cluster.url("kron");
    far_ok(dir, &["far", "push", arg(&local), &url, "--chunk", "16K"]);
    let dram = run(dir, arg(&local), "pr", &["--tier", "dram"]);
    let memory = format!("{}K", (least(dir, &url, "pr") >> 10) + 64);
    // Wait for the replicas to hold every chunk before one of them has to take over.
    let started = std::time::Instant::now();
    while cluster.servers.iter().any(|s| {
        s.cli(&["info", "replication"])
            .contains("master_link_status:down")
    }) {
        assert!(
            started.elapsed().as_secs() < 30,
            "the replicas did not catch up"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    let json = dir.join("failover.json");
    let out = dir.join("failover.npy");
    let child = Command::new(env!("CARGO_BIN_EXE_swapless"))
        .args(["run", "pr", &url, "--memory", &memory, "--trials", "40"])
        .args(["--json", arg(&json), "--out", arg(&out)])
        .env("SWAPLESS_CACHE_DIR", dir.join("cache"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(400));
    // A master that is not the seed node.
    let victim = cluster
        .servers
        .iter()
        .position(|s| {
            s.node() != cluster.servers[0].node() && s.cli(&["role"]).starts_with("master")
        })
        .unwrap();
    cluster.servers[victim].kill();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = json_report(&json);
    assert!(
        report["far"]["retries"].as_u64().unwrap() > 0,
        "{}",
        report["far"]
    );
    assert_same_answer_on(
        &local,
        "pr",
        "far",
        (&report, &npy_payload(&out)),
        (&dram.0, &dram.1),
    );
}

#[test]
fn a_fallback_file_serves_what_the_cluster_lost_and_a_replaced_graph_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = graph(dir);
    let other = dir.join("other.sl");
    generate_kron(&other, 12, 4, &[]);
    let server = RedisServer::start(dir, &[]);
    let url = format!("redis://{}/kron", server.node());
    far_ok(dir, &["far", "push", arg(&local), &url, "--chunk", "64K"]);
    let dram = run(dir, arg(&local), "pr", &["--tier", "dram"]);
    let memory = format!("{}K", (least(dir, &url, "pr") >> 10) + 64);
    let keys = server.cli(&["--scan", "--pattern", "swapless:kron:*:3*"]);
    for key in keys.lines() {
        server.cli(&["del", key.trim()]);
    }
    let lost = far_fails(dir, &["run", "pr", &url, "--memory", &memory], &[]);
    assert!(lost.contains("is missing"), "{lost}");
    // The same graph's file serves the lost chunks' reads, counted in the report.
    let (report, result) = run(
        dir,
        &url,
        "pr",
        &["--memory", &memory, "--fallback", arg(&local)],
    );
    assert!(
        report["far"]["fallback_reads"].as_u64().unwrap() > 0,
        "{}",
        report["far"]
    );
    assert_same_answer_on(&local, "pr", "far", (&report, &result), (&dram.0, &dram.1));
    // A fallback that is no graph is named as the fallback.
    let missing = dir.join("no-such.sl");
    let unreadable = far_fails(dir, &["run", "pr", &url, "--fallback", arg(&missing)], &[]);
    assert!(
        unreadable.contains("the fallback") && unreadable.contains("--fallback"),
        "{unreadable}"
    );
    // Another graph's file is refused before anything is read.
    let mismatch = far_fails(dir, &["run", "pr", &url, "--fallback", arg(&other)], &[]);
    assert!(mismatch.contains("holds another graph"), "{mismatch}");
    // Pushed again, the same graph gets its lost chunks back.
    let restored = far_ok(dir, &["far", "push", arg(&local), &url, "--chunk", "64K"]);
    assert!(restored.contains("stored"), "{restored}");
    run(dir, &url, "pr", &["--memory", &memory]);
    // A value damaged in place (same length): its pages fail their checksums, and the
    // fallback file serves them; every later read of them is checked again, so the
    // damaged bytes never reach the kernel. Four iterations read each page four times.
    let key = server.cli(&["--scan", "--pattern", "swapless:kron:*:40"]);
    let key = key.trim();
    assert!(!key.is_empty());
    server.cli(&["setrange", key, "100", "XYZ"]);
    let damaged = far_fails(dir, &["run", "pr", &url, "--memory", &memory], &[]);
    assert!(
        damaged.contains("is damaged") && damaged.contains(key),
        "{damaged}"
    );
    let pagerank = ["--tolerance", "0", "--max-iters", "4"];
    let dram = run(
        dir,
        arg(&local),
        "pr",
        &[&pagerank[..], &["--tier", "dram"]].concat(),
    );
    let (report, result) = run(
        dir,
        &url,
        "pr",
        &[
            &pagerank[..],
            &["--memory", &memory, "--fallback", arg(&local)],
        ]
        .concat(),
    );
    assert!(
        report["far"]["fallback_reads"].as_u64().unwrap() >= 4,
        "{}",
        report["far"]
    );
    assert_same_answer_on(&local, "pr", "far", (&report, &result), (&dram.0, &dram.1));
    // With room to pin whole sections, and with --verify's whole copy, the damaged pages
    // are read at open and copied whole: the fallback file serves those reads too.
    let (report, result) = run(
        dir,
        &url,
        "pr",
        &[
            &pagerank[..],
            &["--memory", "1G", "--verify", "--fallback", arg(&local)],
        ]
        .concat(),
    );
    assert_eq!(report["verified"], true);
    assert!(
        report["far"]["fallback_reads"].as_u64().unwrap() > 0,
        "{}",
        report["far"]
    );
    assert_same_answer_on(&local, "pr", "far", (&report, &result), (&dram.0, &dram.1));
    // A push restores missing chunks, not damaged ones: the damaged one goes first.
    server.cli(&["del", key]);
    far_ok(dir, &["far", "push", arg(&local), &url, "--chunk", "64K"]);
    // Replaced while a run reads it: the run says so.
    let json = dir.join("replaced.json");
    let child = Command::new(env!("CARGO_BIN_EXE_swapless"))
        .args([
            "run",
            "pr",
            &url,
            "--memory",
            &memory,
            "--trials",
            "200",
            "--json",
            arg(&json),
        ])
        .env("SWAPLESS_CACHE_DIR", dir.join("cache"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(600));
    far_ok(dir, &["far", "push", arg(&other), &url, "--replace"]);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("was replaced while in use"), "{stderr}");
}

#[test]
fn a_node_that_stops_answering_ends_the_run_at_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = dir.join("small.sl");
    generate_kron(&local, 12, 4, &[]);
    let server = RedisServer::start(dir, &[]);
    let url = format!("redis://{}/small", server.node());
    far_ok(dir, &["far", "push", arg(&local), &url]);
    server.signal("STOP");
    let started = std::time::Instant::now();
    let silent = far_fails(dir, &["run", "pr", &url, "--far-timeout", "1"], &[]);
    server.signal("CONT");
    assert!(
        silent.contains("did not answer within 1 s") && silent.contains(&server.node()),
        "{silent}"
    );
    assert!(started.elapsed().as_secs() < 20);
}

#[test]
fn tls_and_an_acl_user_from_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = dir.join("small.sl");
    generate_kron(&local, 12, 4, &[]);
    let (ca, cert, key) = common::redis::certificates(dir);
    let tls_port = common::redis::free_port().to_string();
    let server = RedisServer::start(
        dir,
        &[
            "--tls-port",
            &tls_port,
            "--tls-cert-file",
            arg(&cert),
            "--tls-key-file",
            arg(&key),
            "--tls-ca-cert-file",
            arg(&ca),
            "--tls-auth-clients",
            "no",
            "--user",
            "reader",
            "on",
            ">s3cret",
            "~*",
            "+@all",
        ],
    );
    let url = format!("rediss://127.0.0.1:{tls_port}/small");
    let env = [
        ("SWAPLESS_REDIS_CA", arg(&ca)),
        ("SWAPLESS_REDIS_USER", "reader"),
        ("SWAPLESS_REDIS_PASSWORD", "s3cret"),
    ];
    let pushed = far_swapless(dir, &["far", "push", arg(&local), &url], &env);
    assert!(
        pushed.status.success(),
        "{}",
        String::from_utf8_lossy(&pushed.stderr)
    );
    let json = dir.join("tls.json");
    let ran = far_swapless(
        dir,
        &["run", "cc", &url, "--memory", "16M", "--json", arg(&json)],
        &env,
    );
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let dram = run(dir, arg(&local), "cc", &["--tier", "dram"]);
    assert_eq!(json_report(&json)["result"], dram.0["result"]);
    // The user and the password never reach the report or the process's arguments.
    assert!(!std::fs::read_to_string(&json).unwrap().contains("s3cret"));
    // Without the authority, one sentence that says where to name it.
    let untrusted = far_fails(dir, &["far", "ls", &url], &env[1..]);
    assert!(untrusted.contains("SWAPLESS_REDIS_CA"), "{untrusted}");
    // A wrong password for the ACL user.
    let wrong = far_fails(
        dir,
        &["far", "ls", &url],
        &[env[0], env[1], ("SWAPLESS_REDIS_PASSWORD", "nope")],
    );
    assert!(wrong.contains("refused the credentials"), "{wrong}");
    drop(server);
}

#[test]
fn a_far_run_killed_after_a_checkpoint_resumes_to_the_same_answer() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = graph(dir);
    let server = RedisServer::start(dir, &[]);
    let url = format!("redis://{}/kron", server.node());
    far_ok(dir, &["far", "push", arg(&local), &url]);
    let pagerank = ["--tolerance", "0", "--max-iters", "8"];
    let whole = run(
        dir,
        arg(&local),
        "pr",
        &[&pagerank[..], &["--tier", "dram"]].concat(),
    );
    let budget = format!("{}K", (least(dir, &url, "pr") >> 10) + 64);
    let folder = dir.join("checkpoints");
    let (json, out) = (dir.join("far-resumed.json"), dir.join("far-resumed.npy"));
    let mut args = vec!["run", "pr", &url, "--json", arg(&json), "--out", arg(&out)];
    args.extend(pagerank);
    args.extend([
        "--memory",
        &budget,
        "--checkpoint",
        arg(&folder),
        "--checkpoint-every",
        "1",
    ]);
    let killed = far_swapless(dir, &args, &[("SWAPLESS_TEST_KILL", "after-checkpoint:3")]);
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&killed.status),
        Some(libc::SIGKILL)
    );
    args.push("--resume");
    far_ok(dir, &args);
    let resumed = json_report(&json);
    assert_eq!(resumed["origin"], "far");
    assert_eq!(resumed["resumed_from_step"], 3);
    assert_eq!(resumed["result"], whole.0["result"]);
    assert_eq!(
        npy_payload(&out),
        whole.1,
        "pr on far after a resume: not bit for bit"
    );
}
