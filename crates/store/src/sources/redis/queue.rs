//! The far source's reads in flight: per node, several connections, each owned by a
//! worker thread that pipelines the `GETRANGE`s it is handed and copies each reply into
//! the pipeline's slot. Completions come back on one channel, so the pipeline's I/O
//! thread waits on them as it waits on io_uring's, and compute runs on what has landed
//! while the rest is on the wire.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use super::FarError;
use super::cluster::Cluster;
use super::manifest::{Manifest, chunk_key};
use super::worker::Worker;
use crate::sources::{PageQueue, QueueFailure};
use crate::{Result, StoreError};

/// Bytes of replies a connection's pipeline asks for at once, and the most a piece asks
/// for: a pipeline's replies stay under twice this (counted in the plan, per connection).
pub const PIPELINE_BYTES: u64 = 256 << 10;
/// Requests a connection's pipeline holds at most.
pub(super) const PIPELINE_REQUESTS: usize = 64;

/// One `GETRANGE`: a piece of a read that lies within one chunk.
pub(crate) struct Piece {
    /// The read's tag.
    pub(super) tag: u64,
    /// The chunk.
    pub(super) chunk: u64,
    /// The piece's first byte within the chunk.
    pub(super) start: u64,
    /// Its length.
    pub(super) length: u32,
    /// Where it goes (an address in the pipeline's arena).
    pub(super) destination: usize,
    /// How many times it was sent.
    pub(super) attempts: u32,
    /// When it is given up: the timeout after it was first sent. Retries after a
    /// redirection or a lost node happen before then, so that a failover within the
    /// timeout is survived and nothing waits longer.
    pub(super) deadline: Option<Instant>,
    /// Its chunk's key, named once when the queue first sends it (empty before).
    pub(super) key: String,
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
pub(super) enum Completion {
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
    pub(super) in_flight: std::sync::Mutex<InFlight>,
}

/// Requests sent to a node and not yet answered, over time.
#[derive(Default)]
pub(super) struct InFlight {
    pub(super) now: u64,
    pub(super) most: u64,
    /// The integral of `now` over time, in request-nanoseconds.
    pub(super) weighted_nanos: u128,
    pub(super) first: Option<Instant>,
    pub(super) since: Option<Instant>,
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
        let read = crate::sources::read_some(&self.file, buffer, position).map_err(|source| {
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

/// A read waiting for its pieces.
struct Pending {
    pieces_left: u32,
    bytes: u32,
}

/// One node's connections: their workers' channels, and the node's traffic counters.
struct NodeWorkers {
    senders: Vec<Sender<Piece>>,
    traffic: Arc<NodeTraffic>,
}

/// The far source's queue.
pub(crate) struct RedisQueue {
    shared: Arc<FarShared>,
    connections_per_node: usize,
    /// Workers per node, made when a node is first sent a piece.
    workers: HashMap<String, NodeWorkers>,
    handles: Vec<std::thread::JoinHandle<()>>,
    next_worker: usize,
    completions: Receiver<Completion>,
    completion_sender: Sender<Completion>,
    pending: HashMap<u64, Pending>,
    /// Set when the queue fails: workers then write nothing more into the arena.
    stopped: Arc<AtomicBool>,
}

impl RedisQueue {
    /// A queue over `shared`'s cluster with `connections_per_node` connections a node.
    pub(crate) fn new(shared: Arc<FarShared>, connections_per_node: usize) -> RedisQueue {
        let (completion_sender, completions) = channel();
        RedisQueue {
            shared,
            connections_per_node: connections_per_node.max(1),
            workers: HashMap::new(),
            handles: Vec::new(),
            next_worker: 0,
            completions,
            completion_sender,
            pending: HashMap::new(),
            stopped: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Hands `piece` to a worker of the node that owns its chunk (after a redirection,
    /// the owner the slot map now names).
    fn send(&mut self, mut piece: Piece) {
        if piece.key.is_empty() {
            piece.key = chunk_key(
                &self.shared.cluster.address.name,
                &self.shared.manifest.generation,
                piece.chunk,
            );
        }
        let (_, node) = self.shared.cluster.owner_of(piece.key.as_bytes());
        if !self.workers.contains_key(&node) {
            let traffic = self.shared.traffic_of(&node);
            let mut senders = Vec::new();
            for _ in 0..self.connections_per_node {
                let (sender, receiver) = channel();
                senders.push(sender);
                let worker = Worker {
                    shared: self.shared.clone(),
                    node: node.clone(),
                    traffic: traffic.clone(),
                    completions: self.completion_sender.clone(),
                    stopped: self.stopped.clone(),
                };
                self.handles
                    .push(std::thread::spawn(move || worker.run(receiver)));
            }
            self.workers
                .insert(node.clone(), NodeWorkers { senders, traffic });
        }
        let workers = &self.workers[&node];
        workers.traffic.change_in_flight(1);
        self.next_worker = self.next_worker.wrapping_add(1);
        // A worker's channel closes only when the queue is dropped.
        let _ = workers.senders[self.next_worker % workers.senders.len()].send(piece);
    }

    /// Counts a piece of read `tag` landed with `bytes`; 1 when that completes the read.
    fn land(&mut self, tag: u64, bytes: u32, completions: &mut Vec<(u64, i32)>) -> usize {
        let Some(pending) = self.pending.get_mut(&tag) else {
            return 0;
        };
        pending.pieces_left -= 1;
        pending.bytes += bytes;
        if pending.pieces_left > 0 {
            return 0;
        }
        let bytes = pending.bytes;
        self.pending.remove(&tag);
        completions.push((tag, bytes as i32));
        1
    }

    /// Reads `pieces`, which the cluster failed to serve, from the fallback file; with
    /// none, fails the queue with `error` (said better when the graph was replaced).
    /// Returns how many reads that completed.
    fn fall_back(
        &mut self,
        pieces: Vec<Piece>,
        error: FarError,
        completions: &mut Vec<(u64, i32)>,
    ) -> std::result::Result<usize, QueueFailure> {
        let shared = self.shared.clone();
        let Some(fallback) = &shared.fallback else {
            return Err(self.fail(explain(&shared, error)));
        };
        let mut landed = 0;
        for piece in pieces {
            // SAFETY: `PageQueue::submit`'s contract: the destination lies in the arena
            // and is this read's alone until its completion is reaped; the worker that
            // failed it wrote nothing there.
            let buffer = unsafe {
                std::slice::from_raw_parts_mut(piece.destination as *mut u8, piece.length as usize)
            };
            let position = piece.chunk * shared.manifest.chunk_bytes + piece.start;
            let bytes = fallback
                .read(buffer, position, &error)
                .map_err(|error| self.fail_with(error))?;
            landed += self.land(piece.tag, bytes as u32, completions);
        }
        Ok(landed)
    }

    /// Fails the queue with a store error.
    fn fail_with(&self, error: StoreError) -> QueueFailure {
        self.stopped.store(true, Ordering::Relaxed);
        QueueFailure(error)
    }

    /// Fails the queue with `error`: workers stop writing into the arena.
    fn fail(&self, error: FarError) -> QueueFailure {
        self.stopped.store(true, Ordering::Relaxed);
        QueueFailure(StoreError::Far(error))
    }
}

impl PageQueue for RedisQueue {
    unsafe fn submit(
        &mut self,
        tag: u64,
        destination: *mut u8,
        length: u32,
        position: u64,
    ) -> Result<()> {
        let pieces = pieces(
            &self.shared.manifest,
            tag,
            destination as usize,
            length as u64,
            position,
        );
        if pieces.is_empty() {
            // A read wholly past the end of the file lands empty at once.
            let _ = self
                .completion_sender
                .send(Completion::Landed { tag, bytes: 0 });
            self.pending.insert(
                tag,
                Pending {
                    pieces_left: 1,
                    bytes: 0,
                },
            );
            return Ok(());
        }
        self.pending.insert(
            tag,
            Pending {
                pieces_left: pieces.len() as u32,
                bytes: 0,
            },
        );
        for piece in pieces {
            self.send(piece);
        }
        Ok(())
    }

    fn complete(
        &mut self,
        wanted: usize,
        completions: &mut Vec<(u64, i32)>,
    ) -> std::result::Result<(), QueueFailure> {
        let wanted = wanted.min(self.pending.len());
        let started = Instant::now();
        let mut landed = 0;
        while landed < wanted {
            let completion = match self.completions.recv() {
                Ok(completion) => completion,
                Err(_) => {
                    return Err(self.fail(FarError::Server {
                        node: self.shared.cluster.nodes().join(","),
                        detail: "the connections' workers stopped".to_string(),
                    }));
                }
            };
            match completion {
                Completion::Landed { tag, bytes } => {
                    landed += self.land(tag, bytes, completions);
                }
                Completion::Redirected(pieces, error) => {
                    let now = Instant::now();
                    let deadline = pieces
                        .iter()
                        .filter_map(|piece| piece.deadline)
                        .min()
                        .unwrap_or(now);
                    if deadline <= now {
                        landed += self.fall_back(pieces, error, completions)?;
                        continue;
                    }
                    self.shared
                        .retries
                        .fetch_add(pieces.len() as u64, Ordering::Relaxed);
                    // Give a failing-over cluster a moment, then follow its new map.
                    let attempts = pieces.iter().map(|piece| piece.attempts).max().unwrap_or(1);
                    let pause = Duration::from_millis(50 * attempts.min(20) as u64);
                    std::thread::sleep(pause.min(deadline - now));
                    let _ = self.shared.cluster.refresh_before(deadline);
                    for piece in pieces {
                        self.send(piece);
                    }
                }
                Completion::Failed(pieces, error) => {
                    landed += self.fall_back(pieces, error, completions)?;
                }
            }
        }
        self.shared
            .wait_nanos
            .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        Ok(())
    }
}

impl Drop for RedisQueue {
    fn drop(&mut self) {
        self.workers.clear();
        for handle in self.handles.drain(..) {
            let _ = handle.join();
        }
    }
}
