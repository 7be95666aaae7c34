//! `swapless far push|ls|rm`: graphs stored in the memory of a Redis server or cluster.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use swapless_far::{
    DEFAULT_FAR_CHUNK_BYTES, FAR_CHUNK_RANGE, FarAddress, PushOptions, list, push, remove,
};
use swapless_run::checkpoint::CheckpointEvery;
use swapless_system::parse_size;

use crate::errors::CliError;
use crate::text::{bytes, say, thousands};

/// `swapless far` subcommands.
#[derive(Subcommand)]
pub enum FarCommand {
    /// Store a .sl graph in a Redis server's or cluster's memory, in chunks spread over its
    /// nodes, with a manifest: redis://HOST:PORT[,HOST:PORT...]/NAME (rediss:// for TLS).
    /// All or nothing: runs see the graph only once every chunk is stored.
    Push(PushCommand),
    /// List the graphs stored on a server or cluster, and incomplete pushes: redis://HOST:PORT.
    Ls {
        /// redis://HOST:PORT (any node of a cluster).
        url: String,
        #[arg(long, value_name = "TIME", default_value = "10s", help = FAR_TIMEOUT_HELP)]
        far_timeout: String,
    },
    /// Remove every key of a stored graph or an incomplete push: redis://HOST:PORT/NAME.
    Rm {
        /// redis://HOST:PORT/NAME.
        url: String,
        #[arg(long, value_name = "TIME", default_value = "10s", help = FAR_TIMEOUT_HELP)]
        far_timeout: String,
    },
}

/// Options of `swapless far push`.
#[derive(Args)]
pub struct PushCommand {
    /// The .sl graph.
    graph: PathBuf,
    /// redis://[USER@]HOST:PORT[,HOST:PORT...]/NAME; the password from SWAPLESS_REDIS_PASSWORD.
    url: String,
    /// Bytes a chunk holds (a multiple of 4K, from 4K to 4M); a power of two such as 256K
    /// takes a quarter more of Redis's memory than its bytes, 252K does not.
    #[arg(long, value_name = "SIZE", default_value = "252K")]
    chunk: String,
    /// Replace a different graph already stored under the name.
    #[arg(long)]
    replace: bool,
    /// Memory for chunks in flight (e.g. 64M).
    #[arg(long, value_name = "SIZE", default_value = "64M")]
    memory: String,
    #[arg(long, value_name = "TIME", default_value = "10s", help = FAR_TIMEOUT_HELP)]
    far_timeout: String,
}

/// Runs a `swapless far` command.
pub fn far(command: FarCommand) -> Result<(), CliError> {
    match command {
        FarCommand::Push(command) => push_graph(command),
        FarCommand::Ls { url, far_timeout } => {
            let address = FarAddress::parse(&url).map_err(swapless_store::StoreError::from)?;
            let listing = list(&address, parse_far_timeout(&far_timeout)?)?;
            if listing.graphs.is_empty() && listing.incomplete.is_empty() {
                say!("no graphs stored at {}", address.seeds.join(","));
            }
            for graph in listing.graphs {
                let manifest = &graph.manifest;
                say!(
                    "{:<24} {:>14} vertices {:>16} arcs {:>11} in {} chunks of {}  {}",
                    graph.name,
                    thousands(manifest.vertices),
                    thousands(manifest.arcs),
                    bytes(manifest.file_bytes),
                    thousands(manifest.chunks()),
                    bytes(manifest.chunk_bytes),
                    &manifest.fingerprint[..16]
                );
            }
            for push in listing.incomplete {
                let why = if push.unreadable_manifest {
                    "a manifest this version cannot read"
                } else {
                    "killed, refused or still running"
                };
                say!(
                    "{:<24} incomplete push, {} keys ({why}); remove with far rm",
                    push.name,
                    thousands(push.keys)
                );
            }
            Ok(())
        }
        FarCommand::Rm { url, far_timeout } => {
            let address = named(&url)?;
            let removal = remove(&address, parse_far_timeout(&far_timeout)?)?;
            match removal.manifest {
                Some(manifest) => say!(
                    "removed {} ({} in {} keys)",
                    address.display(),
                    bytes(manifest.file_bytes),
                    thousands(removal.keys)
                ),
                None => say!(
                    "removed {}: {} keys of an incomplete push",
                    address.display(),
                    thousands(removal.keys)
                ),
            }
            Ok(())
        }
    }
}

/// `swapless far push`.
fn push_graph(command: PushCommand) -> Result<(), CliError> {
    let address = named(&command.url)?;
    let chunk_bytes = parse_size(&command.chunk)
        .filter(|size| FAR_CHUNK_RANGE.contains(size) && size % 4096 == 0)
        .ok_or_else(|| {
            CliError::Usage(format!(
                "--chunk {:?} must be a multiple of 4K from 4K to 4M (default {}K)",
                command.chunk,
                DEFAULT_FAR_CHUNK_BYTES >> 10
            ))
        })?;
    let buffer_bytes = parse_size(&command.memory).ok_or_else(|| {
        CliError::Usage(format!(
            "--memory {:?} is not a size; write it like 64M",
            command.memory
        ))
    })?;
    let options = PushOptions {
        chunk_bytes,
        replace: command.replace,
        buffer_bytes,
        timeout: parse_far_timeout(&command.far_timeout)?,
    };
    let bar = ProgressBar::new(0);
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} pushing [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
    ) {
        bar.set_style(style);
    }
    let started = Instant::now();
    let batches_sent = std::sync::atomic::AtomicU64::new(0);
    let report = push(&command.graph, &address, &options, &|done, total| {
        bar.set_length(total);
        bar.set_position(done);
        let batches = batches_sent.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        swapless_system::kill_at_test_point("push-batch", batches);
    });
    bar.finish_and_clear();
    let report = report?;
    let seconds = started.elapsed().as_secs_f64().max(1e-6);
    if report.already_stored {
        say!(
            "{} already holds this graph whole (every chunk compared); nothing sent",
            address.display()
        );
    } else if report.repaired_chunks > 0 {
        say!(
            "{} held this graph with {} damaged or missing chunk(s); restored them ({} sent)",
            address.display(),
            thousands(report.repaired_chunks),
            bytes(report.bytes_sent)
        );
    } else {
        say!(
            "stored {} as {}: {} in {} chunks of {} on {} node(s), {:.1} s ({:.0} MiB/s)",
            command.graph.display(),
            address.display(),
            bytes(report.bytes_sent),
            thousands(report.manifest.chunks()),
            bytes(report.manifest.chunk_bytes),
            report.nodes.len(),
            seconds,
            report.bytes_sent as f64 / (1 << 20) as f64 / seconds
        );
    }
    if let Some(old) = report.replaced {
        say!(
            "  replaced the graph stored before (fingerprint {})",
            &old[..16]
        );
    }
    Ok(())
}

/// `url` parsed, with a graph's name required.
fn named(url: &str) -> Result<FarAddress, CliError> {
    FarAddress::parse_graph(url).map_err(|error| swapless_store::StoreError::from(error).into())
}

/// What `--far-timeout` bounds, as its help says it.
pub const FAR_TIMEOUT_HELP: &str = "The longest any request to the Redis server or cluster \
    may take, whole: looking the node's name up, connecting (the TLS handshake too), \
    authenticating, finding the cluster's nodes, and the reply \
    to its last byte, with the retries that follow a redirection or a failover. A command \
    that gets no answer by then ends, naming the node (10s, 2.5 for seconds, 1m)";

/// `--far-timeout`: seconds (`2.5`), or a time as `--checkpoint-every` takes one (`5s`,
/// `1m`).
pub fn parse_far_timeout(text: &str) -> Result<Duration, CliError> {
    let parsed = match text.trim().parse::<f64>() {
        Ok(seconds) => Duration::try_from_secs_f64(seconds).ok(),
        Err(_) => match CheckpointEvery::parse(text) {
            Some(CheckpointEvery::Interval(time)) => Some(time),
            _ => None,
        },
    };
    parsed.filter(|time| !time.is_zero()).ok_or_else(|| {
        CliError::Usage(format!(
            "--far-timeout {text:?} must be a positive time, such as 10s, 1m or 2.5 (seconds)"
        ))
    })
}
