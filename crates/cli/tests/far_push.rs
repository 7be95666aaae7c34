//! A push is all or nothing, and nothing is left behind in Redis: re-pushes with another
//! chunk size, pushes killed midway, refused by a full server or racing each other leave
//! no key that `far ls` does not show and `far rm` cannot remove; a damaged chunk is
//! repaired by a push; `check` of a far graph checks every page.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use common::redis::{RedisCluster, RedisServer, far_fails, far_ok, far_swapless};
use common::*;
use swapless_format::SectionKind;

/// How many keys the server holds.
fn keys(server: &RedisServer) -> u64 {
    server.cli(&["dbsize"]).trim().parse().unwrap()
}

/// The manifest stored for `name`.
fn manifest(server: &RedisServer, name: &str) -> serde_json::Value {
    serde_json::from_str(&server.cli(&["get", &format!("swapless:{name}:manifest")])).unwrap()
}

/// The key of chunk `index` of the graph `name` as its manifest names it.
fn chunk_key(server: &RedisServer, name: &str, index: u64) -> String {
    let generation = manifest(server, name)["generation"]
        .as_str()
        .unwrap()
        .to_string();
    format!("swapless:{name}:{generation}:{index}")
}

/// Sets `key` to `bytes` exactly (through redis-cli's standard input).
fn set_bytes(server: &RedisServer, key: &str, bytes: &[u8]) {
    let mut child = Command::new("redis-cli")
        .args(["-p", &server.port.to_string(), "-x", "set", key])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    assert!(child.wait().unwrap().success());
}

/// The result a verified dram run of `kernel` on `graph` writes.
fn answer(dir: &Path, graph: &str, kernel: &str, extra: &[&str]) -> Vec<u8> {
    let out = dir.join(format!("{kernel}-{}.npy", extra.len()));
    let mut args = vec!["run", kernel, graph, "--out", arg(&out)];
    args.extend(extra);
    far_ok(dir, &args);
    npy_payload(&out)
}

/// What `far ls` on `server` prints.
fn listing(dir: &Path, server: &RedisServer) -> String {
    far_ok(dir, &["far", "ls", &format!("redis://{}", server.node())])
}

#[test]
fn a_push_again_with_another_chunk_size_leaves_no_orphans() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = dir.join("g.sl");
    generate_kron(&local, 12, 8, &[]);
    let file_bytes = std::fs::metadata(&local).unwrap().len();
    let server = RedisServer::start(dir, &[]);
    let url = format!("redis://{}/g", server.node());
    for (chunk, bytes) in [("64K", 64 << 10), ("4K", 4 << 10), ("256K", 256 << 10)] {
        far_ok(dir, &["far", "push", arg(&local), &url, "--chunk", chunk]);
        // The chunks of this push and its manifest, nothing of the one before.
        assert_eq!(
            keys(&server),
            file_bytes.div_ceil(bytes) + 1,
            "--chunk {chunk}"
        );
    }
    assert!(!listing(dir, &server).contains("incomplete"));
    assert_eq!(
        answer(dir, &url, "cc", &[]),
        answer(dir, arg(&local), "cc", &["--verify"])
    );
    far_ok(dir, &["far", "rm", &url]);
    assert_eq!(keys(&server), 0);
}

/// The server's memory for the chunks of the graph `name` (their allocations, as `MEMORY
/// USAGE` counts them) over the bytes they hold.
fn chunk_memory_share(server: &RedisServer, name: &str, chunks: u64) -> f64 {
    let (mut held, mut bytes) = (0u64, 0u64);
    for index in 0..chunks {
        let key = chunk_key(server, name, index);
        held += server
            .cli(&["memory", "usage", &key])
            .trim()
            .parse::<u64>()
            .unwrap();
        bytes += server.cli(&["strlen", &key]).trim().parse::<u64>().unwrap();
    }
    held as f64 / bytes as f64
}

#[test]
fn a_push_at_the_default_chunk_takes_little_more_server_memory_than_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = dir.join("g.sl");
    generate_kron(&local, 14, 16, &[]);
    let file_bytes = std::fs::metadata(&local).unwrap().len();
    let server = RedisServer::start(dir, &[]);
    let url = format!("redis://{}/g", server.node());
    far_ok(dir, &["far", "push", arg(&local), &url]);
    let chunk_bytes = manifest(&server, "g")["chunk_bytes"].as_u64().unwrap();
    let default_share = chunk_memory_share(&server, "g", file_bytes.div_ceil(chunk_bytes));
    assert!(
        default_share < 1.03,
        "default chunks took {default_share:.3}x their bytes"
    );
    // jemalloc (Redis's allocator unless built otherwise) puts a 256 KiB value with its
    // header in the 320 KiB class: the cost the default avoids.
    if server
        .cli(&["info", "memory"])
        .contains("mem_allocator:jemalloc")
    {
        far_ok(dir, &["far", "push", arg(&local), &url, "--chunk", "256K"]);
        let share = chunk_memory_share(&server, "g", file_bytes.div_ceil(256 << 10));
        assert!(share > 1.2, "256K chunks took {share:.3}x their bytes");
    }
}

#[test]
fn a_push_killed_midway_is_listed_incomplete_and_rm_removes_every_key() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let (old, new) = (dir.join("old.sl"), dir.join("new.sl"));
    generate_kron(&old, 10, 4, &[]);
    generate_kron(&new, 13, 8, &["--weighted"]);
    let server = RedisServer::start(dir, &[]);
    let url = format!("redis://{}/g", server.node());
    far_ok(dir, &["far", "push", arg(&old), &url, "--chunk", "4K"]);
    let old_keys = keys(&server);
    let push = ["far", "push", arg(&new), &url, "--chunk", "4K", "--replace"];
    let killed = far_swapless(dir, &push, &[("SWAPLESS_TEST_KILL", "push-batch:10")]);
    assert!(was_killed(&killed), "the push was not killed");
    assert!(keys(&server) > old_keys, "the killed push sent nothing");
    // Runs and listings see the old graph whole, and the killed push beside it.
    let listed = listing(dir, &server);
    assert!(
        listed.contains("1,024 vertices") && listed.contains("incomplete push"),
        "{listed}"
    );
    assert_eq!(
        answer(dir, &url, "cc", &[]),
        answer(dir, arg(&old), "cc", &["--verify"])
    );
    // A later push completes, and its flip removes the old generation but not the
    // killed one (no manifest names it), which `far ls` keeps showing.
    far_ok(dir, &push);
    assert!(listing(dir, &server).contains("incomplete push"));
    let removed = far_ok(dir, &["far", "rm", &url]);
    assert!(removed.contains("removed"), "{removed}");
    assert_eq!(keys(&server), 0);
    // A push killed with no graph stored: rm names it an incomplete push.
    let killed = far_swapless(dir, &push, &[("SWAPLESS_TEST_KILL", "push-batch:10")]);
    assert!(was_killed(&killed));
    let missing = far_fails(dir, &["run", "cc", &url], &[]);
    assert!(missing.contains("no graph named \"g\""), "{missing}");
    let removed = far_ok(dir, &["far", "rm", &url]);
    assert!(removed.contains("incomplete push"), "{removed}");
    assert_eq!(keys(&server), 0);
    let gone = far_fails(dir, &["far", "rm", &url], &[]);
    assert!(gone.contains("no graph named"), "{gone}");
}

#[test]
fn rm_on_a_cluster_removes_every_key_on_every_master() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = dir.join("g.sl");
    generate_kron(&local, 13, 8, &["--weighted"]);
    let cluster = RedisCluster::start(dir, 3, 0);
    let url = cluster.url("g");
    let all_keys = || cluster.servers.iter().map(keys).sum::<u64>();
    far_ok(dir, &["far", "push", arg(&local), &url, "--chunk", "64K"]);
    let push = ["far", "push", arg(&local), &url, "--chunk", "4K"];
    let killed = far_swapless(dir, &push, &[("SWAPLESS_TEST_KILL", "push-batch:10")]);
    assert!(was_killed(&killed), "the push was not killed");
    // Keys of both pushes on every master.
    assert!(cluster.servers.iter().all(|server| keys(server) > 0));
    let listed = far_ok(dir, &["far", "ls", &url]);
    assert!(
        listed.contains("8,192 vertices") && listed.contains("incomplete push"),
        "{listed}"
    );
    far_ok(dir, &["far", "rm", &url]);
    assert_eq!(all_keys(), 0);
}

#[test]
fn a_push_refused_by_a_full_noeviction_server_says_so_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = dir.join("g.sl");
    generate_kron(&local, 15, 8, &["--weighted"]);
    let server = RedisServer::start(
        dir,
        &["--maxmemory", "2mb", "--maxmemory-policy", "noeviction"],
    );
    let url = format!("redis://{}/g", server.node());
    let refused = far_fails(
        dir,
        &["far", "push", arg(&local), &url, "--chunk", "64K"],
        &[],
    );
    assert!(
        refused.contains("out of memory") && refused.contains("maxmemory"),
        "{refused}"
    );
    assert_eq!(keys(&server), 0);
}

#[test]
fn a_push_to_an_evicting_server_notices_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = dir.join("g.sl");
    generate_kron(&local, 15, 8, &["--weighted"]);
    let evicting = ["--maxmemory", "2mb", "--maxmemory-policy", "allkeys-lru"];
    // Its policy read with CONFIG GET: refused before anything is sent.
    let server = RedisServer::start(dir, &evicting);
    let url = format!("redis://{}/g", server.node());
    let refused = far_fails(dir, &["far", "push", arg(&local), &url], &[]);
    assert!(
        refused.contains("evicts keys") && refused.contains("allkeys-lru"),
        "{refused}"
    );
    assert_eq!(keys(&server), 0);
    // CONFIG refused: the chunks are checked before the manifest names them.
    let hidden: Vec<&str> = evicting
        .iter()
        .copied()
        .chain(["--rename-command", "CONFIG", ""])
        .collect();
    let server = RedisServer::start(dir, &hidden);
    let url = format!("redis://{}/g", server.node());
    let lost = far_fails(
        dir,
        &["far", "push", arg(&local), &url, "--chunk", "64K"],
        &[],
    );
    assert!(lost.contains("did not stay"), "{lost}");
    assert_eq!(keys(&server), 0);
}

#[test]
fn two_concurrent_pushes_leave_one_whole_graph_and_no_orphans() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let (small, large) = (dir.join("small.sl"), dir.join("large.sl"));
    generate_kron(&small, 11, 8, &[]);
    generate_kron(&large, 13, 8, &[]);
    let server = RedisServer::start(dir, &[]);
    let url = format!("redis://{}/g", server.node());
    for round in 0..3 {
        let pushes: Vec<_> = [&small, &large]
            .into_iter()
            .map(|graph| {
                Command::new(env!("CARGO_BIN_EXE_swapless"))
                    .args([
                        "far",
                        "push",
                        arg(graph),
                        &url,
                        "--chunk",
                        "4K",
                        "--replace",
                    ])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for push in pushes {
            let output = push.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        // One graph whole (whichever flipped last) and nothing else.
        let stored = manifest(&server, "g");
        let chunks = stored["chunk_checksums"].as_array().unwrap().len() as u64;
        assert_eq!(keys(&server), chunks + 1, "round {round}");
        let listed = listing(dir, &server);
        assert!(!listed.contains("incomplete"), "{listed}");
        let local = match stored["vertices"].as_u64() {
            Some(2048) => &small,
            _ => &large,
        };
        assert_eq!(
            answer(dir, &url, "cc", &[]),
            answer(dir, arg(local), "cc", &["--verify"]),
            "round {round}"
        );
    }
}

#[test]
fn a_push_over_a_damaged_chunk_sends_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = dir.join("g.sl");
    generate_kron(&local, 12, 8, &["--weighted"]);
    let server = RedisServer::start(dir, &[]);
    let url = format!("redis://{}/g", server.node());
    far_ok(dir, &["far", "push", arg(&local), &url, "--chunk", "4K"]);
    server.cli(&["setrange", &chunk_key(&server, "g", 3), "100", "XYZ"]);
    server.cli(&["del", &chunk_key(&server, "g", 5)]);
    let damaged = far_fails(dir, &["check", &url], &[]);
    assert!(damaged.contains(":3"), "{damaged}");
    let repaired = far_ok(dir, &["far", "push", arg(&local), &url, "--chunk", "4K"]);
    assert!(
        repaired.contains("2 damaged or missing chunk(s)"),
        "{repaired}"
    );
    let checked = far_ok(dir, &["check", &url]);
    assert!(checked.contains("pages"), "{checked}");
    let again = far_ok(dir, &["far", "push", arg(&local), &url, "--chunk", "4K"]);
    assert!(again.contains("nothing sent"), "{again}");
    assert_eq!(
        answer(dir, &url, "sssp", &["--source", "0"]),
        answer(dir, arg(&local), "sssp", &["--source", "0", "--verify"])
    );
}

#[test]
fn check_of_a_far_graph_names_a_page_that_fails_its_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = dir.join("g.sl");
    generate_kron(&local, 12, 8, &[]);
    let server = RedisServer::start(dir, &[]);
    let url = format!("redis://{}/g", server.node());
    far_ok(dir, &["far", "push", arg(&local), &url, "--chunk", "64K"]);
    // A chunk of the out-lists changed, and the manifest's checksum of it forged to
    // match: the chunk checksums pass, the page checksums must not.
    let (offset, length) = section_position(&local, SectionKind::OutNeighbors);
    assert!(length > 8192);
    let position = offset + 4096;
    let chunk_bytes = 64 << 10;
    let index = position / chunk_bytes;
    let bytes = std::fs::read(&local).unwrap();
    let start = (index * chunk_bytes) as usize;
    let mut chunk = bytes[start..(start + chunk_bytes as usize).min(bytes.len())].to_vec();
    chunk[(position % chunk_bytes) as usize] ^= 0xff;
    set_bytes(&server, &chunk_key(&server, "g", index), &chunk);
    let mut stored = manifest(&server, "g");
    stored["chunk_checksums"][index as usize] = xxhash_rust::xxh3::xxh3_64(&chunk).into();
    set_bytes(
        &server,
        "swapless:g:manifest",
        stored.to_string().as_bytes(),
    );
    let failed = far_fails(dir, &["check", &url], &[]);
    assert!(
        failed.contains("page 1 of section out_neighbors")
            && failed.contains(&chunk_key(&server, "g", index)),
        "{failed}"
    );
    // The same change in a local file: the push refuses it before sending anything.
    let corrupt = dir.join("corrupt.sl");
    let mut changed = bytes.clone();
    changed[position as usize] ^= 0xff;
    std::fs::write(&corrupt, &changed).unwrap();
    let url = format!("redis://{}/corrupt", server.node());
    let refused = far_fails(dir, &["far", "push", arg(&corrupt), &url], &[]);
    assert!(refused.contains("checksum"), "{refused}");
    assert!(
        server
            .cli(&["keys", "swapless:corrupt:*"])
            .trim()
            .is_empty()
    );
}

#[test]
fn a_manifest_that_cannot_be_read_is_listed_incomplete_and_replaced_or_removed() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = dir.join("g.sl");
    generate_kron(&local, 11, 8, &[]);
    let server = RedisServer::start(dir, &[]);
    let good = format!("redis://{}/good", server.node());
    far_ok(dir, &["far", "push", arg(&local), &good]);
    set_bytes(&server, "swapless:junk:manifest", b"{not json");
    // The good graph still lists; the unreadable name shows as incomplete, not an error.
    let listed = listing(dir, &server);
    assert!(
        listed.contains("good") && listed.contains("junk") && listed.contains("cannot read"),
        "{listed}"
    );
    let junk = format!("redis://{}/junk", server.node());
    let run = far_fails(dir, &["run", "cc", &junk], &[]);
    assert!(run.contains("far rm"), "{run}");
    let refused = far_fails(dir, &["far", "push", arg(&local), &junk], &[]);
    assert!(refused.contains("--replace"), "{refused}");
    far_ok(dir, &["far", "push", arg(&local), &junk, "--replace"]);
    assert_eq!(
        answer(dir, &junk, "cc", &[]),
        answer(dir, arg(&local), "cc", &["--verify"])
    );
    set_bytes(&server, "swapless:junk:manifest", b"\x00\xff");
    far_ok(dir, &["far", "rm", &junk]);
    assert!(!listing(dir, &server).contains("junk"));
    // A timeout given to `check` is taken.
    let checked = far_ok(dir, &["check", &good, "--far-timeout", "3s"]);
    assert!(checked.contains("ok"), "{checked}");
}

#[test]
fn a_compressed_graph_is_stored_whole_with_its_positions_and_its_weights_read() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let server = RedisServer::start(dir, &[]);
    // Weights lie inside a compressed file's lists: the manifest's record of them is read
    // from there, below zero or not.
    let input = dir.join("w.el");
    let edges: String = (0..5000u32)
        .map(|i| format!("{} {} {}\n", i % 900, (i * 7 + 1) % 900, i % 7))
        .collect();
    std::fs::write(&input, format!("{edges}3 4 -0.5\n")).unwrap();
    let negative = dir.join("negative.sl");
    let args = [
        "build",
        arg(&input),
        "-o",
        arg(&negative),
        "--weighted",
        "--lists",
        "compressed",
    ];
    swapless_ok(&args);
    let kron = dir.join("kron.sl");
    generate_kron(&kron, 12, 8, &["--weighted", "--lists", "compressed"]);
    for (local, name, non_negative) in [(&negative, "negative", false), (&kron, "kron", true)] {
        let url = format!("redis://{}/{name}", server.node());
        far_ok(dir, &["far", "push", arg(local), &url, "--chunk", "16K"]);
        let stored = manifest(&server, name);
        assert_eq!(stored["non_negative_weights"], non_negative, "{name}");
        let sections: Vec<&str> = stored["sections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|section| section["name"].as_str().unwrap())
            .collect();
        let graph = swapless_format::GraphFile::open(local).unwrap();
        let expected: Vec<&str> = graph
            .header()
            .sections
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(sections, expected);
        assert!(sections.contains(&"out_positions"), "{sections:?}");
        assert_eq!(sections.contains(&"in_positions"), graph.flags().directed);
        let file_bytes = std::fs::metadata(local).unwrap().len();
        assert_eq!(stored["file_bytes"], file_bytes);
        assert!(far_ok(dir, &["check", &url]).starts_with("ok: "));
    }
    assert_eq!(
        keys(&server),
        [&negative, &kron]
            .iter()
            .map(|path| std::fs::metadata(path).unwrap().len().div_ceil(16 << 10) + 1)
            .sum::<u64>()
    );
}
