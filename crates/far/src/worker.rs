//! A worker of the far queue: one connection to a node, owned by a thread that
//! pipelines the `GETRANGE`s it is handed, copies each reply into the pipeline's slot and
//! reports each completion, following redirections and failovers within the deadline.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::time::Instant;

use crate::FarError;
use crate::shared::{Completion, FarShared, NodeTraffic, PIPELINE_BYTES, PIPELINE_REQUESTS, Piece};
use crate::wire::{RangeConnection, RangeReply, WireFailure, is_redirect_reply};

/// How a fetch went, and whether its connection is still in step.
struct Outcome {
    completion: Completion,
    drop_connection: bool,
}

impl Outcome {
    /// The connection can serve the next batch.
    fn keeping(completion: Completion) -> Outcome {
        Outcome {
            completion,
            drop_connection: false,
        }
    }
    /// The connection failed or has replies left unread: the next batch makes a new one.
    fn dropping(completion: Completion) -> Outcome {
        Outcome {
            completion,
            drop_connection: true,
        }
    }
}

/// One connection's worker.
pub(crate) struct Worker {
    pub(super) shared: Arc<FarShared>,
    pub(super) node: String,
    pub(super) traffic: Arc<NodeTraffic>,
    pub(super) completions: Sender<Completion>,
    pub(super) stopped: Arc<AtomicBool>,
}

impl Worker {
    /// Sends the pieces it receives, a pipeline at a time, until the queue is dropped.
    pub(super) fn run(self, pieces: Receiver<Piece>) {
        let mut connection: Option<RangeConnection> = None;
        while let Ok(first) = pieces.recv() {
            let mut batch = vec![first];
            let mut bytes = batch[0].length as u64;
            while batch.len() < PIPELINE_REQUESTS && bytes < PIPELINE_BYTES {
                match pieces.try_recv() {
                    Ok(piece) => {
                        bytes += piece.length as u64;
                        batch.push(piece);
                    }
                    Err(_) => break,
                }
            }
            let count = batch.len() as i64;
            let report = self.fetch(&mut connection, batch);
            self.traffic.change_in_flight(-count);
            if self.completions.send(report).is_err() {
                return;
            }
        }
    }

    /// Fetches `batch` over `connection` (made anew when `None`), lands each reply in
    /// its slot, and says how it went: one completion for what failed, else one per
    /// piece (sent here, the last returned).
    fn fetch(&self, connection: &mut Option<RangeConnection>, mut batch: Vec<Piece>) -> Completion {
        let first_sent = Instant::now() + self.shared.cluster.timeout;
        let mut deadline = first_sent;
        for piece in &mut batch {
            piece.attempts += 1;
            deadline = deadline.min(*piece.deadline.get_or_insert(first_sent));
        }
        let live = match connection {
            Some(live) => live,
            None => match self.connect(deadline) {
                Ok(made) => connection.insert(made),
                Err(error) => return self.unreachable(batch, error),
            },
        };
        live.set_deadline(deadline);
        let outcome = self.fetch_on_wire(live, batch);
        if outcome.drop_connection {
            *connection = None;
        }
        outcome.completion
    }

    /// A connection to the worker's node, made by `deadline`.
    fn connect(&self, deadline: Instant) -> std::result::Result<RangeConnection, FarError> {
        let cluster = &self.shared.cluster;
        RangeConnection::open(
            &cluster.address,
            cluster.tls.as_ref(),
            &self.node,
            deadline,
            cluster.timeout,
        )
    }

    /// [`Worker::fetch`] on the worker's connection: each reply is read from the socket
    /// (or the TLS stream) into its slot.
    fn fetch_on_wire(&self, wire: &mut RangeConnection, batch: Vec<Piece>) -> Outcome {
        for piece in &batch {
            wire.push_range(
                &piece.key,
                piece.start,
                piece.start + piece.length as u64 - 1,
            );
        }
        if let Err(failure) = wire.flush() {
            return Outcome::dropping(self.unreachable(batch, self.wire_error(failure)));
        }
        self.traffic
            .requests
            .fetch_add(batch.len() as u64, Ordering::Relaxed);
        let count = batch.len();
        let mut redirected: Vec<Piece> = Vec::new();
        let mut redirection = None;
        let mut landing = batch.into_iter().enumerate();
        while let Some((index, piece)) = landing.next() {
            if self.stopped.load(Ordering::Relaxed) {
                let error = FarError::Server {
                    node: self.node.clone(),
                    detail: "the run stopped".to_string(),
                };
                return Outcome::dropping(Completion::Failed(Vec::new(), error));
            }
            // SAFETY: `PageQueue::submit`'s contract: the destination range lies in the
            // arena and is this read's alone until its completion is reaped, which
            // happens only after this worker reports it; on a failure the queue either
            // leaks the arena or the fallback overwrites the whole range.
            let destination = unsafe {
                std::slice::from_raw_parts_mut(piece.destination as *mut u8, piece.length as usize)
            };
            let reply = match wire.read_range(destination) {
                Ok(reply) => reply,
                Err(failure) => {
                    let unlanded = std::iter::once(piece)
                        .chain(landing.map(|(_, piece)| piece))
                        .chain(redirected)
                        .collect();
                    return Outcome::dropping(self.unreachable(unlanded, self.wire_error(failure)));
                }
            };
            match reply {
                RangeReply::Landed => {
                    self.traffic
                        .bytes
                        .fetch_add(piece.length as u64, Ordering::Relaxed);
                    let landed = Completion::Landed {
                        tag: piece.tag,
                        bytes: piece.length,
                    };
                    if index + 1 == count && redirected.is_empty() {
                        return Outcome::keeping(landed);
                    }
                    if self.completions.send(landed).is_err() {
                        let error = FarError::Server {
                            node: self.node.clone(),
                            detail: "the queue went away".to_string(),
                        };
                        return Outcome::dropping(Completion::Failed(Vec::new(), error));
                    }
                }
                RangeReply::WrongLength(length) => {
                    let error = self.wrong_length(&piece, length);
                    let unlanded = std::iter::once(piece)
                        .chain(landing.map(|(_, piece)| piece))
                        .chain(redirected)
                        .collect();
                    // The replies still on the wire belong to the pieces given up here.
                    return Outcome::dropping(Completion::Failed(unlanded, error));
                }
                RangeReply::Error(text) if is_redirect_reply(&text) => {
                    redirection.get_or_insert(match text.starts_with("CLUSTERDOWN") {
                        true => FarError::ClusterDown {
                            node: self.node.clone(),
                            failed: Vec::new(),
                        },
                        false => FarError::Server {
                            node: self.node.clone(),
                            detail: text,
                        },
                    });
                    redirected.push(piece);
                }
                RangeReply::Error(text) => {
                    let error = FarError::Server {
                        node: self.node.clone(),
                        detail: text,
                    };
                    let unlanded = std::iter::once(piece)
                        .chain(landing.map(|(_, piece)| piece))
                        .chain(redirected)
                        .collect();
                    return Outcome::dropping(Completion::Failed(unlanded, error));
                }
            }
        }
        match redirection {
            Some(error) => Outcome::keeping(Completion::Redirected(redirected, error)),
            None => Outcome::keeping(Completion::Failed(
                Vec::new(),
                FarError::Server {
                    node: self.node.clone(),
                    detail: "an empty batch".to_string(),
                },
            )),
        }
    }

    /// A failure of the worker's own connection as a far error.
    fn wire_error(&self, failure: WireFailure) -> FarError {
        failure.at(&self.node, self.shared.cluster.timeout)
    }

    /// The error for a reply of `length` bytes to `piece`: a missing key when empty.
    fn wrong_length(&self, piece: &Piece, length: usize) -> FarError {
        match length {
            0 => FarError::MissingKey {
                node: self.node.clone(),
                key: piece.key.clone(),
            },
            _ => FarError::Damaged {
                node: self.node.clone(),
                key: piece.key.clone(),
                detail: format!("{length} bytes where {} were asked for", piece.length),
            },
        }
    }

    /// `batch` could not be fetched from this node: sent again through a fresh slot map
    /// when the nodes form a cluster (a replica may take over), else the end of the run.
    fn unreachable(&self, batch: Vec<Piece>, error: FarError) -> Completion {
        match self.shared.cluster.clustered() {
            true => Completion::Redirected(batch, error),
            false => Completion::Failed(batch, error),
        }
    }
}
