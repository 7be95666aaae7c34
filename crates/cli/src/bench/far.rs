//! The bench's far mode: the graph pushed to a Redis server or cluster, given with
//! `--far URL` or started here with `--far-local N` on loopback (one plain server, or N
//! masters joined into a cluster) and stopped by process id when the bench ends.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use swapless_far::{DEFAULT_FAR_CHUNK_BYTES, FarAddress, PushOptions, push};
use swapless_format::GraphFile;

use crate::errors::CliError;

/// Where the far mode's graph is stored, and the servers started for it.
pub struct FarTarget {
    /// The graph's address, `redis://HOST:PORT/NAME`.
    pub url: String,
    servers: Vec<Child>,
}

impl FarTarget {
    /// Pushes `graph` to `cluster` (an address without a name), or to `local` servers
    /// started in `folder`.
    pub fn prepare(
        graph: &Path,
        cluster: Option<&str>,
        local: Option<usize>,
        folder: &Path,
    ) -> Result<FarTarget, CliError> {
        let mut target = FarTarget {
            url: String::new(),
            servers: Vec::new(),
        };
        let seeds = match (cluster, local) {
            (Some(url), _) => url.trim_end_matches('/').to_string(),
            (None, Some(nodes)) => target.start_local(nodes, folder)?,
            (None, None) => {
                return Err(CliError::Usage(
                    "far mode needs --far redis://HOST:PORT or --far-local N".to_string(),
                ));
            }
        };
        let fingerprint = format!("{:032x}", GraphFile::open(graph)?.fingerprint());
        target.url = format!("{seeds}/bench-{}", &fingerprint[..12]);
        let address = FarAddress::parse(&target.url).map_err(swapless_store::StoreError::from)?;
        let options = PushOptions {
            chunk_bytes: DEFAULT_FAR_CHUNK_BYTES,
            replace: true,
            buffer_bytes: 64 << 20,
            timeout: Duration::from_secs(30),
        };
        eprintln!("pushing {} to {}", graph.display(), address.display());
        push(graph, &address, &options, &|_, _| {})?;
        Ok(target)
    }

    /// Starts `nodes` servers in `folder`; returns the seed address.
    fn start_local(&mut self, nodes: usize, folder: &Path) -> Result<String, CliError> {
        let failed = |what: String| CliError::Other(format!("--far-local: {what}"));
        std::fs::create_dir_all(folder)
            .map_err(|error| CliError::Io(folder.to_path_buf(), error))?;
        let mut ports = Vec::new();
        for index in 0..nodes {
            let port = free_port();
            let node_folder: PathBuf = folder.join(format!("node-{index}"));
            std::fs::create_dir_all(&node_folder)
                .map_err(|error| CliError::Io(node_folder.clone(), error))?;
            let mut command = Command::new("redis-server");
            command
                .args([
                    "--port",
                    &port.to_string(),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                ])
                .args(["--appendonly", "no", "--protected-mode", "no"])
                .arg("--dir")
                .arg(&node_folder)
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            if nodes > 1 {
                command.args(["--cluster-enabled", "yes", "--cluster-node-timeout", "2000"]);
            }
            let child = command.spawn().map_err(|error| {
                failed(format!("cannot start redis-server ({error}); install it"))
            })?;
            self.servers.push(child);
            ports.push(port);
        }
        for &port in &ports {
            wait_for(port).map_err(failed)?;
        }
        let nodes_list: Vec<String> = ports
            .iter()
            .map(|port| format!("127.0.0.1:{port}"))
            .collect();
        if nodes > 1 {
            let output = Command::new("redis-cli")
                .args(["--cluster", "create"])
                .args(&nodes_list)
                .args(["--cluster-replicas", "0", "--cluster-yes"])
                .output()
                .map_err(|error| failed(format!("cannot run redis-cli ({error}); install it")))?;
            if !output.status.success() {
                return Err(failed("redis-cli --cluster create failed".to_string()));
            }
            let started = Instant::now();
            while !cluster_ok(ports[0]) {
                if started.elapsed() > Duration::from_secs(30) {
                    return Err(failed("the cluster did not form within 30 s".to_string()));
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        Ok(format!("redis://{}", nodes_list[0]))
    }
}

impl Drop for FarTarget {
    fn drop(&mut self) {
        for server in &mut self.servers {
            let _ = server.kill();
            let _ = server.wait();
        }
    }
}

/// A loopback port free now whose cluster bus port (+10000) is free too.
fn free_port() -> u16 {
    loop {
        let Ok(listener) = TcpListener::bind("127.0.0.1:0") else {
            continue;
        };
        let Ok(address) = listener.local_addr() else {
            continue;
        };
        let port = address.port();
        if port < 55000 && TcpListener::bind(("127.0.0.1", port + 10000)).is_ok() {
            return port;
        }
    }
}

/// Waits until a server answers on `port`.
fn wait_for(port: u16) -> Result<(), String> {
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if started.elapsed() > Duration::from_secs(10) {
            return Err(format!("redis-server on port {port} did not start"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// Whether the cluster seen from `port` says it is ok.
fn cluster_ok(port: u16) -> bool {
    Command::new("redis-cli")
        .args(["-p", &port.to_string(), "cluster", "info"])
        .output()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).contains("cluster_state:ok"))
}
