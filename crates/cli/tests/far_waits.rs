//! Waits and messages of far memory: `--far-timeout` bounds every wait, whatever keeps
//! the answer from coming (a peer that trickles bytes, a stopped master, a master lost
//! with no replica), and a peer that is not Redis is named in one line.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::redis::{RedisCluster, RedisServer, certificates, far_swapless, free_port};
use common::*;

/// Slack over the timeout for a command to end: start-up, a refresh, a report.
const SLACK: Duration = Duration::from_secs(5);

/// `swapless args` with the far cache in `dir`; its output and how long it took.
fn timed(dir: &Path, args: &[&str]) -> (Output, Duration) {
    timed_with(dir, args, &[])
}

/// [`timed`] with the variables `env` set.
fn timed_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (Output, Duration) {
    let started = Instant::now();
    let output = far_swapless(dir, args, env);
    (output, started.elapsed())
}

/// Insists that `swapless args` fails in one line within `timeout` and [`SLACK`]; the line.
fn fails_within(dir: &Path, args: &[&str], timeout: Duration) -> String {
    fails_within_with(dir, args, &[], timeout)
}

/// [`fails_within`] with the variables `env` set.
fn fails_within_with(dir: &Path, args: &[&str], env: &[(&str, &str)], timeout: Duration) -> String {
    let (output, took) = timed_with(dir, args, env);
    assert_eq!(output.status.code(), Some(1), "{args:?}");
    let line = failed_in_one_line(args, output);
    assert!(
        took < timeout + SLACK,
        "{args:?} took {took:?}, past the timeout {timeout:?}: {line}"
    );
    line
}

/// A peer on a loopback port that answers every connection with `answer` (given what
/// the client sent first), for as long as the test runs.
fn peer(answer: fn(&mut TcpStream)) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                let mut first = [0u8; 256];
                let _ = stream.read(&mut first);
                answer(&mut stream);
            });
        }
    });
    port
}

/// A reply that never ends: a long string announced, then one byte every half second.
fn trickle(stream: &mut TcpStream) {
    if stream.write_all(b"$1000000\r\n").is_err() {
        return;
    }
    while stream.write_all(b"x").is_ok() {
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// An HTTP server's answer.
fn http(stream: &mut TcpStream) {
    let _ = stream
        .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/html\r\nContent-Length: 11\r\n\r\nBad Request");
}

/// Bytes of no protocol.
fn garbage(stream: &mut TcpStream) {
    let bytes: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
    let _ = stream.write_all(&bytes);
}

/// Arrays nested a hundred thousand deep.
fn nested(stream: &mut TcpStream) {
    let _ = stream.write_all(&b"*1\r\n".repeat(100_000));
}

#[test]
fn a_peer_that_trickles_bytes_ends_far_ls_and_run_at_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let port = peer(trickle);
    let node = format!("127.0.0.1:{port}");
    let timeout = Duration::from_secs(2);
    for args in [
        vec![
            "far",
            "ls",
            &format!("redis://{node}"),
            "--far-timeout",
            "2s",
        ],
        vec![
            "run",
            "pr",
            &format!("redis://{node}/g"),
            "--far-timeout",
            "2",
        ],
    ] {
        let args: Vec<&str> = args.iter().map(|a| a.as_ref()).collect();
        let line = fails_within(dir, &args, timeout);
        assert!(
            line.contains("did not answer within 2 s") && line.contains(&node),
            "{line}"
        );
    }
}

/// A TLS server (`openssl s_server`) that completes the handshake of one connection, then
/// answers whatever it is asked with a reply that never ends: a long string announced,
/// then one byte every half second.
struct TlsTrickle {
    port: u16,
    child: Child,
}

impl TlsTrickle {
    /// Starts one on a free port with the certificate and key in `dir`.
    fn start(dir: &Path) -> TlsTrickle {
        let port = free_port();
        let mut child = Command::new("openssl")
            .args(["s_server", "-naccept", "1", "-accept"])
            .arg(format!("127.0.0.1:{port}"))
            .args(["-cert", "server.crt", "-key", "server.key"])
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("openssl is installed");
        // It says ACCEPT once it listens; what it prints after is dropped.
        let mut said = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        while !line.starts_with("ACCEPT") {
            line.clear();
            let read = said.read_line(&mut line).unwrap();
            assert!(read > 0, "openssl s_server did not start");
        }
        std::thread::spawn(move || std::io::copy(&mut said, &mut std::io::sink()));
        // What it reads on its input, it sends to the client.
        let input = child.stdin.take().unwrap();
        std::thread::spawn(move || trickle_into(input));
        TlsTrickle { port, child }
    }

    /// `host:port`.
    fn node(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
}

impl Drop for TlsTrickle {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// [`trickle`] into the input of a TLS server, until it is gone.
fn trickle_into(mut input: ChildStdin) {
    if input.write_all(b"$1000000\r\n").is_err() {
        return;
    }
    while input.write_all(b"x").and_then(|()| input.flush()).is_ok() {
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// A TLS handshake that never ends: a handshake record of 16 KiB announced, then one
/// byte every half second.
fn trickled_handshake(stream: &mut TcpStream) {
    if stream.write_all(&[0x16, 0x03, 0x03, 0x40, 0x00]).is_err() {
        return;
    }
    while stream.write_all(&[0]).is_ok() {
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn a_tls_peer_that_trickles_bytes_ends_far_ls_and_run_at_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let (ca, _, _) = certificates(dir);
    let env = [("SWAPLESS_REDIS_CA", arg(&ca))];
    let ends_at_the_timeout = |node: &str, command: &[&str], url: &str| {
        let args = [command, &[url, "--far-timeout", "2s"]].concat();
        let line = fails_within_with(dir, &args, &env, Duration::from_secs(2));
        assert!(
            line.contains("did not answer within 2 s") && line.contains(node),
            "{line}"
        );
    };
    // After a whole handshake, in the reply: a server for each command, as it serves one.
    for (command, name) in [(&["far", "ls"][..], ""), (&["run", "pr"], "g")] {
        let server = TlsTrickle::start(dir);
        let node = server.node();
        ends_at_the_timeout(&node, command, &format!("rediss://{node}/{name}"));
    }
    // Within the handshake.
    let node = format!("127.0.0.1:{}", peer(trickled_handshake));
    for (command, name) in [(&["far", "ls"][..], ""), (&["run", "pr"], "g")] {
        ends_at_the_timeout(&node, command, &format!("rediss://{node}/{name}"));
    }
}

#[test]
fn a_tls_certificate_for_another_name_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let (ca, _, _) = certificates(dir);
    let server = TlsTrickle::start(dir);
    // The certificate holds 127.0.0.1, not localhost.
    let node = format!("localhost:{}", server.port);
    let line = fails_within_with(
        dir,
        &["far", "ls", &format!("rediss://{node}")],
        &[("SWAPLESS_REDIS_CA", arg(&ca))],
        Duration::from_secs(10),
    );
    assert!(
        line.contains(&node)
            && line.contains("not valid for name \"localhost\"")
            && line.contains("a name its certificate holds"),
        "{line}"
    );
}

#[test]
fn a_peer_that_is_not_redis_is_named_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    for (answer, says) in [
        (http as fn(&mut TcpStream), "HTTP/1.1 400"),
        (garbage, "does not speak"),
        (nested, "nested deeper than"),
    ] {
        let node = format!("127.0.0.1:{}", peer(answer));
        for args in [
            vec!["far".to_string(), "ls".into(), format!("redis://{node}")],
            vec!["run".into(), "pr".into(), format!("redis://{node}/g")],
        ] {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let line = fails_within(dir, &args, Duration::from_secs(10));
            assert!(
                line.contains(&format!(
                    "the peer at {node} does not speak the Redis protocol"
                )) && line.contains(says),
                "{line}"
            );
        }
    }
}

#[test]
fn a_stopped_master_and_a_lost_master_end_a_cluster_run_within_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = dir.join("kron.sl");
    generate_kron(&local, 14, 8, &[]);
    let mut cluster = RedisCluster::start(dir, 3, 0);
    let url = cluster.url("kron");
    let (pushed, _) = timed(dir, &["far", "push", arg(&local), &url, "--chunk", "16K"]);
    assert!(pushed.status.success(), "{pushed:?}");
    // A master that is not the seed node.
    let victim = 1;
    let node = cluster.servers[victim].node();
    cluster.servers[victim].signal("STOP");
    let line = fails_within(
        dir,
        &["run", "pr", &url, "--far-timeout", "3s"],
        Duration::from_secs(3),
    );
    assert!(line.contains(&node), "{line}");
    // Lost for good, with no replica to take over: the slots it served stay unserved.
    cluster.servers[victim].kill();
    let line = fails_within(
        dir,
        &["run", "pr", &url, "--far-timeout", "2"],
        Duration::from_secs(2),
    );
    assert!(line.contains(&node), "{line}");
}

#[test]
fn reads_the_fallback_served_are_told_on_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = dir.join("kron.sl");
    generate_kron(&local, 12, 4, &[]);
    let server = RedisServer::start(dir, &[]);
    let url = format!("redis://{}/kron", server.node());
    let (pushed, _) = timed(dir, &["far", "push", arg(&local), &url, "--chunk", "16K"]);
    assert!(pushed.status.success(), "{pushed:?}");
    let keys = server.cli(&["--scan", "--pattern", "swapless:kron:*:1*"]);
    for key in keys.lines() {
        server.cli(&["del", key.trim()]);
    }
    let (output, _) = timed(
        dir,
        &[
            "run",
            "pr",
            &url,
            "--memory",
            "16M",
            "--fallback",
            arg(&local),
        ],
    );
    let stderr = succeeded(output);
    let note = stderr
        .lines()
        .find(|line| line.contains("note: the fallback"))
        .unwrap_or_else(|| panic!("no note of the fallback's reads: {stderr}"));
    assert!(
        note.contains(" reads (") && note.contains("is missing"),
        "{note}"
    );
}

#[test]
fn a_bracketed_ipv6_address_reaches_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let local = dir.join("small.sl");
    generate_kron(&local, 10, 4, &[]);
    let server = RedisServer::start(dir, &["--bind", "127.0.0.1 ::1"]);
    let url = format!("redis://[::1]:{}/small", server.port);
    let (pushed, _) = timed(dir, &["far", "push", arg(&local), &url]);
    assert!(pushed.status.success(), "{pushed:?}");
    let (listed, _) = timed(
        dir,
        &["far", "ls", &format!("redis://[::1]:{}", server.port)],
    );
    assert!(
        String::from_utf8_lossy(&listed.stdout).contains("small"),
        "{listed:?}"
    );
    let (ran, _) = timed(dir, &["run", "pr", &url]);
    succeeded(ran);
}
