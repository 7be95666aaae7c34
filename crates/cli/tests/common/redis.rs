//! Redis servers for the far-memory tests: started on loopback on free ports, each in
//! its own folder, and stopped by process id when dropped. A missing `redis-server`
//! fails the test (the README's test command installs it).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A running `redis-server`.
pub struct RedisServer {
    pub port: u16,
    child: Child,
}

impl RedisServer {
    /// A plain server on a free port, with `extra` arguments (`--requirepass x`).
    pub fn start(dir: &Path, extra: &[&str]) -> RedisServer {
        let port = free_port();
        let folder = dir.join(format!("redis-{port}"));
        std::fs::create_dir_all(&folder).unwrap();
        let mut args: Vec<String> = [
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--protected-mode",
            "no",
            "--dir",
            folder.to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        let child = Command::new("redis-server")
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server is installed (the README's test command installs it)");
        let server = RedisServer { port, child };
        server.wait_until_up(extra);
        server
    }

    /// `host:port`.
    pub fn node(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// `redis-cli` against this server, with `args`; its standard output.
    pub fn cli(&self, args: &[&str]) -> String {
        let output = Command::new("redis-cli")
            .args(["-p", &self.port.to_string()])
            .args(args)
            .output()
            .expect("redis-cli is installed");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Sends the server `signal` (`STOP` freezes it, `CONT` wakes it).
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Stops the server now (SIGKILL), as a crashed node.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn wait_until_up(&self, extra: &[&str]) {
        let password = extra
            .iter()
            .position(|a| *a == "--requirepass")
            .map(|at| extra[at + 1]);
        let started = Instant::now();
        loop {
            let mut args = vec!["ping"];
            if let Some(password) = password {
                args = vec!["-a", password, "--no-auth-warning", "ping"];
            }
            if self.cli(&args).contains("PONG") {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "redis-server did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        // A frozen server would not die of SIGKILL's delivery until woken on some systems.
        let _ = Command::new("kill")
            .args(["-CONT", &self.child.id().to_string()])
            .status();
        self.kill();
    }
}

/// A Redis Cluster of `masters` masters with `replicas` replicas each, on loopback.
pub struct RedisCluster {
    pub servers: Vec<RedisServer>,
}

impl RedisCluster {
    /// Starts the servers and joins them with `redis-cli --cluster create`.
    pub fn start(dir: &Path, masters: usize, replicas: usize) -> RedisCluster {
        let mut servers = Vec::new();
        for _ in 0..masters * (1 + replicas) {
            let config = dir.join(format!("nodes-{}.conf", servers.len()));
            servers.push(RedisServer::start(
                dir,
                &[
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    config.to_str().unwrap(),
                    "--cluster-node-timeout",
                    "1000",
                ],
            ));
        }
        let nodes: Vec<String> = servers.iter().map(RedisServer::node).collect();
        let output = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(&nodes)
            .args(["--cluster-replicas", &replicas.to_string(), "--cluster-yes"])
            .output()
            .expect("redis-cli is installed");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stdout)
        );
        let cluster = RedisCluster { servers };
        cluster.wait_until_ok();
        cluster
    }

    /// `redis://` with every node as a seed.
    pub fn url(&self, name: &str) -> String {
        format!("redis://{}/{name}", self.servers[0].node())
    }

    /// Waits until every node says the cluster is ok.
    pub fn wait_until_ok(&self) {
        let started = Instant::now();
        while !self.servers.iter().all(|server| {
            server
                .cli(&["cluster", "info"])
                .contains("cluster_state:ok")
        }) {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the cluster did not form"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// A port free on loopback now, whose cluster bus port (+10000) is free too.
pub fn free_port() -> u16 {
    loop {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        if port < 55000 && TcpListener::bind(("127.0.0.1", port + 10000)).is_ok() {
            return port;
        }
    }
}

/// `swapless args` with the far cache in `dir`, no Redis credentials or test kill point
/// from the caller's environment, and `env` set.
pub fn far_swapless(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_swapless"));
    command
        .args(args)
        .env("SWAPLESS_CACHE_DIR", dir.join("cache"))
        .env_remove("SWAPLESS_REDIS_PASSWORD")
        .env_remove("SWAPLESS_REDIS_USER")
        .env_remove("SWAPLESS_TEST_KILL");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("the swapless binary runs")
}

/// [`far_swapless`], insisting that it succeeds; its standard output.
pub fn far_ok(dir: &Path, args: &[&str]) -> String {
    let output = far_swapless(dir, args, &[]);
    assert!(
        output.status.success(),
        "swapless {args:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// [`far_swapless`], insisting that it fails in one sentence; that sentence.
pub fn far_fails(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let output = far_swapless(dir, args, env);
    assert_eq!(output.status.code(), Some(1), "{args:?}");
    super::failed_in_one_line(args, output)
}

/// A certificate authority and a server certificate for 127.0.0.1, made with openssl in
/// `dir`: (ca.crt, server.crt, server.key).
pub fn certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let openssl = |args: &[&str]| {
        let output = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl is installed");
        assert!(
            output.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-subj",
        "/CN=swapless-test-ca",
        "-days",
        "2",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=127.0.0.1",
    ]);
    std::fs::write(dir.join("san.ext"), "subjectAltName=IP:127.0.0.1\n").unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "2",
        "-extfile",
        "san.ext",
    ]);
    (
        dir.join("ca.crt"),
        dir.join("server.crt"),
        dir.join("server.key"),
    )
}
