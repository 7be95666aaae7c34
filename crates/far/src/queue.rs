//! The far source's reads in flight: per node, several connections, each owned by a
//! worker thread that pipelines the `GETRANGE`s it is handed and copies each reply into
//! the pipeline's slot. Completions come back on one channel, so the pipeline's I/O
//! thread waits on them as it waits on io_uring's, and compute runs on what has landed
//! while the rest is on the wire.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use crate::FarError;
use crate::manifest::chunk_key;
use crate::shared::{Completion, FarShared, NodeTraffic, Piece, explain, pieces};
use crate::worker::Worker;
use swapless_store::sources::{PageQueue, QueueFailure};
use swapless_store::{Result, StoreError};

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
        QueueFailure(error.into())
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
