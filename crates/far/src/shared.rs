//! What a far graph's reads share: the pieces a read is cut into (one `GETRANGE` within
//! a chunk each), the completions the workers send back, each node's traffic counters,
//! the fallback file, and the state one graph's queues and synchronous reads hold in
//! common. Below both the queue and its workers, so neither imports the other's half.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::FarError;
use crate::cluster::Cluster;
use crate::manifest::Manifest;
use swapless_store::{Result, StoreError};

/// Bytes of replies a connection's pipeline asks for at once, and the most a piece asks
/// for: a pipeline's replies stay under twice this (counted in the plan, per connection).
pub const PIPELINE_BYTES: u64 = 256 << 10;
/// Requests a connection's pipeline holds at most.
pub(crate) const PIPELINE_REQUESTS: usize = 64;

/// One `GETRANGE`: a piece of a read that lies within one chunk.
pub(crate) struct Piece {
    /// The read's tag.
    pub(crate) tag: u64,
    /// The chunk.
    pub(crate) chunk: u64,
    /// The piece's first byte within the chunk.
    pub(crate) start: u64,
    /// Its length.
    pub(crate) length: u32,
    /// Where it goes (an address in the pipeline's arena).
    pub(crate) destination: usize,
    /// How many times it was sent.
    pub(crate) attempts: u32,
    /// When it is given up: the timeout after it was first sent. Retries after a
    /// redirection or a lost node happen before then, so that a failover within the
    /// timeout is survived and nothing waits longer.
    pub(crate) deadline: Option<Instant>,
    /// Its chunk's key, named once when the queue first sends it (empty before).
    pub(crate) key: String,
}

impl Piece {
    /// The chunk it lies in.
    pub(crate) fn chunk(&self) -> u64 {
        self.chunk
    }
    /// Its first byte within the chunk.
    pub(crate) fn start(&self) -> u64 {
        self.start
    }
    /// Its length.
    pub(crate) fn length(&self) -> u32 {
        self.length
    }
    /// Where it goes: the address given to [`pieces`] plus its offset in the read.
    pub(crate) fn destination(&self) -> usize {
        self.destination
    }
}

/// The pieces of a read of `length` bytes at file `position`, each within one chunk, the
/// read cut where the file ends.
pub(crate) fn pieces(
    manifest: &Manifest,
    tag: u64,
    destination: usize,
    length: u64,
    position: u64,
) -> Vec<Piece> {
    let end = (position + length).min(manifest.file_bytes);
    let mut pieces = Vec::new();
    let mut at = position;
    while at < end {
        let chunk = at / manifest.chunk_bytes;
        let chunk_end = manifest
            .chunk_range(chunk)
            .end
            .min(end)
            .min(at + PIPELINE_BYTES);
        pieces.push(Piece {
            tag,
            chunk,
            start: at - chunk * manifest.chunk_bytes,
            length: (chunk_end - at) as u32,
            destination: destination + (at - position) as usize,
            attempts: 0,
            deadline: None,
            key: String::new(),
        });
        at = chunk_end;
    }
    pieces
}

/// What a worker reports.
pub(crate) enum Completion {
    /// A piece landed whole.
    Landed { tag: u64, bytes: u32 },
    /// The node redirected these pieces, or could not be reached while the cluster may
    /// fail over: the queue reads the slot map again and sends them anew.
    Redirected(Vec<Piece>, FarError),
    /// A failure, with the pieces that did not land: the end of the run, unless a
    /// fallback file serves them.
    Failed(Vec<Piece>, FarError),
}

/// Per-node traffic, for the report.
#[derive(Default)]
pub(crate) struct NodeTraffic {
    pub(crate) bytes: AtomicU64,
    pub(crate) requests: AtomicU64,
    pub(crate) in_flight: std::sync::Mutex<InFlight>,
}

/// Requests sent to a node and not yet answered, over time.
#[derive(Default)]
pub(crate) struct InFlight {
    pub(crate) now: u64,
    pub(crate) most: u64,
    /// The integral of `now` over time, in request-nanoseconds.
    pub(crate) weighted_nanos: u128,
    pub(crate) first: Option<Instant>,
    pub(crate) since: Option<Instant>,
}

impl NodeTraffic {
    /// Adds `change` to the node's requests in flight.
    pub(crate) fn change_in_flight(&self, change: i64) {
        let mut in_flight = match self.in_flight.lock() {
            Ok(in_flight) => in_flight,
            Err(poisoned) => poisoned.into_inner(),
        };
        let now = Instant::now();
        if let Some(since) = in_flight.since {
            in_flight.weighted_nanos += in_flight.now as u128 * (now - since).as_nanos();
        }
        in_flight.first.get_or_insert(now);
        in_flight.since = Some(now);
        in_flight.now = in_flight.now.saturating_add_signed(change);
        in_flight.most = in_flight.most.max(in_flight.now);
    }

    /// The mean requests in flight since the first was sent, and the most at once.
    pub(crate) fn in_flight(&self) -> (f64, u64) {
        let in_flight = match self.in_flight.lock() {
            Ok(in_flight) => in_flight,
            Err(poisoned) => poisoned.into_inner(),
        };
        let span = match (in_flight.first, in_flight.since) {
            (Some(first), Some(since)) => (since - first).as_nanos(),
            _ => 0,
        };
        let mean = match span {
            0 => 0.0,
            span => in_flight.weighted_nanos as f64 / span as f64,
        };
        (mean, in_flight.most)
    }
}

/// Shared by the queue and its workers.
pub(crate) struct FarShared {
    pub(crate) cluster: Cluster,
    pub(crate) manifest: Manifest,
    /// Per node (`host:port`), bytes and requests.
    pub(crate) traffic: std::sync::Mutex<HashMap<String, Arc<NodeTraffic>>>,
    /// Requests sent again after a redirection or a failover.
    pub(crate) retries: AtomicU64,
    /// Nanoseconds the I/O thread waited for replies.
    pub(crate) wait_nanos: AtomicU64,
    /// A local copy of the same graph that serves what the cluster cannot.
    pub(crate) fallback: Option<Fallback>,
}

/// A local copy of the graph, read where the cluster fails.
pub(crate) struct Fallback {
    pub(crate) file: std::fs::File,
    pub(crate) path: std::path::PathBuf,
    /// Pieces and bytes read from it.
    pub(crate) reads: AtomicU64,
    pub(crate) bytes: AtomicU64,
    /// The first failure of the cluster that it served a read for.
    pub(crate) first_failure: std::sync::Mutex<Option<String>>,
}

impl Fallback {
    /// Reads `buffer.len()` bytes at file `position` (fewer at the file's end) in place
    /// of the cluster, which failed with `failure`.
    pub(crate) fn read(
        &self,
        buffer: &mut [u8],
        position: u64,
        failure: &dyn std::fmt::Display,
    ) -> Result<usize> {
        if let Ok(mut first) = self.first_failure.lock() {
            first.get_or_insert_with(|| failure.to_string());
        }
        let read =
            swapless_store::sources::read_some(&self.file, buffer, position).map_err(|source| {
                StoreError::Io {
                    path: self.path.clone(),
                    source,
                }
            })?;
        self.reads.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(read as u64, Ordering::Relaxed);
        Ok(read)
    }
}

/// `error` said better where a chunk is missing because the graph was replaced or
/// removed since the run began (its manifest says so).
pub(crate) fn explain(shared: &FarShared, error: FarError) -> FarError {
    if !matches!(error, FarError::MissingKey { .. }) {
        return shared.cluster.with_failed_masters(error);
    }
    let name = &shared.cluster.address.name;
    let found = match super::upload::read_manifest(&shared.cluster, name) {
        Ok(None) => "none: it was removed".to_string(),
        Ok(Some(stored)) if stored.fingerprint != shared.manifest.fingerprint => stored.fingerprint,
        _ => return error,
    };
    FarError::Changed {
        name: name.clone(),
        expected: shared.manifest.fingerprint.clone(),
        found,
    }
}

impl FarShared {
    /// The traffic counters of `node`.
    pub(crate) fn traffic_of(&self, node: &str) -> Arc<NodeTraffic> {
        let mut traffic = match self.traffic.lock() {
            Ok(traffic) => traffic,
            Err(poisoned) => poisoned.into_inner(),
        };
        traffic.entry(node.to_string()).or_default().clone()
    }
}
