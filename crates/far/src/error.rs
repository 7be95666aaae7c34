//! What can go wrong with a graph in far memory, each kind with the node or key it
//! concerns, and no front end's words.

use swapless_store::StoreError;

/// A far-memory failure.
#[derive(Debug, thiserror::Error)]
pub enum FarError {
    /// The address could not be read.
    #[error("{address:?} is not a far-memory address: {detail}")]
    BadAddress {
        /// The address as given.
        address: String,
        /// What is wrong with it.
        detail: String,
    },
    /// No node of the cluster answered.
    #[error("cannot reach the Redis node {node}: {detail}")]
    Unreachable {
        /// `host:port`.
        node: String,
        /// What the connection said.
        detail: String,
    },
    /// The node refused the user name or password.
    #[error("the Redis node {node} refused the credentials: {detail}")]
    Refused {
        /// `host:port`.
        node: String,
        /// What the node said.
        detail: String,
    },
    /// A node did not answer within the timeout.
    #[error("the Redis node {node} did not answer within {seconds} s")]
    Timeout {
        /// `host:port`.
        node: String,
        /// The timeout.
        seconds: f64,
    },
    /// The peer answered with bytes that are not the Redis protocol (RESP).
    #[error("the peer at {node} does not speak the Redis protocol ({detail})")]
    NotRedis {
        /// `host:port`.
        node: String,
        /// What it sent, in one short line.
        detail: String,
    },
    /// The cluster refuses requests (`CLUSTERDOWN`): a master failed and no replica
    /// took over, so some slots have no node to serve them.
    #[error(
        "the Redis cluster is down (CLUSTERDOWN from {node}){}",
        match failed.as_slice() {
            [] => String::new(),
            failed => format!(": the master {} failed and no replica took over", failed.join(", ")),
        }
    )]
    ClusterDown {
        /// `host:port` of the node that answered.
        node: String,
        /// The masters the node counts as failed, `host:port` each.
        failed: Vec<String>,
    },
    /// A node answered with an error the client cannot recover from.
    #[error("the Redis node {node} answered: {detail}")]
    Server {
        /// `host:port`.
        node: String,
        /// The node's error.
        detail: String,
    },
    /// No graph of this name is stored.
    #[error("no graph named {name:?} is stored at {cluster}")]
    NotFound {
        /// The graph's name.
        name: String,
        /// The seed node(s).
        cluster: String,
    },
    /// A different graph is stored under the name.
    #[error(
        "a different graph (fingerprint {stored}) is already stored as {name:?}; \
         remove it first or replace it"
    )]
    NameTaken {
        /// The graph's name.
        name: String,
        /// The fingerprint of the graph stored there.
        stored: String,
    },
    /// A chunk's key is missing: evicted by a `maxmemory` policy, or the graph was
    /// removed or replaced while in use.
    #[error(
        "the key {key} is missing on the Redis node {node}: evicted (maxmemory policy), \
         or the graph was removed or replaced"
    )]
    MissingKey {
        /// `host:port`.
        node: String,
        /// The key.
        key: String,
    },
    /// The graph stored under the name changed during the run.
    #[error("the graph {name:?} was replaced while in use (fingerprint {expected}, now {found})")]
    Changed {
        /// The graph's name.
        name: String,
        /// The fingerprint the run started with.
        expected: String,
        /// The fingerprint stored now (`none` when removed).
        found: String,
    },
    /// A value does not match its checksum or length.
    #[error("the value of {key} on the Redis node {node} is damaged: {detail}")]
    Damaged {
        /// `host:port`.
        node: String,
        /// The key.
        key: String,
        /// What does not match.
        detail: String,
    },
    /// A node refused a push's chunk for want of memory (`maxmemory` under `noeviction`);
    /// the push's chunks were removed.
    #[error(
        "the Redis node {node} is out of memory (maxmemory) and refused the graph's chunks; \
         nothing of this push is left on it"
    )]
    OutOfMemory {
        /// `host:port`.
        node: String,
    },
    /// A node evicts keys to stay under `maxmemory`, so a stored graph could lose chunks.
    #[error(
        "the Redis node {node} evicts keys to stay under its maxmemory \
         (maxmemory-policy {policy}), so a graph stored there could lose chunks at any time"
    )]
    Evicting {
        /// `host:port`.
        node: String,
        /// Its `maxmemory-policy`.
        policy: String,
    },
    /// A chunk set by a push was gone (or shorter) when the push checked it, before the
    /// manifest was set; the push's chunks were removed.
    #[error(
        "the key {key} did not stay on the Redis node {node} after it was set (evicted to \
         stay under maxmemory); the graph was not stored and nothing of this push is left"
    )]
    NotKept {
        /// `host:port`.
        node: String,
        /// The key.
        key: String,
    },
    /// The manifest of a graph cannot be read.
    #[error("the manifest of {name:?} cannot be read: {detail}")]
    BadManifest {
        /// The graph's name.
        name: String,
        /// What is wrong.
        detail: String,
    },
    /// The local cache of a far graph's vertex sections could not be written or read.
    #[error("the far-memory cache {path} cannot be used: {source}")]
    Cache {
        /// The file or folder.
        path: std::path::PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The fallback file cannot be opened as a graph.
    #[error("the fallback {} cannot be read as a graph: {detail}", path.display())]
    FallbackUnreadable {
        /// The fallback file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// The fallback file holds another graph.
    #[error("{path} holds another graph than {name:?} (fingerprint {found}, not {expected})")]
    FallbackMismatch {
        /// The fallback file.
        path: std::path::PathBuf,
        /// The far graph's name.
        name: String,
        /// The far graph's fingerprint.
        expected: String,
        /// The file's.
        found: String,
    },
}

impl FarError {
    /// The error for a failed request to `node`, sorted by what failed.
    pub(crate) fn from_redis(
        node: &str,
        error: &redis::RedisError,
        timeout_seconds: f64,
    ) -> FarError {
        let node = node.to_string();
        if error.is_timeout() {
            return FarError::Timeout {
                node,
                seconds: timeout_seconds,
            };
        }
        if error.is_connection_refusal() || error.is_connection_dropped() || error.is_io_error() {
            return FarError::Unreachable {
                node,
                detail: error.to_string(),
            };
        }
        if error.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::ClusterDown) {
            return FarError::ClusterDown {
                node,
                failed: Vec::new(),
            };
        }
        if error.kind() == redis::ErrorKind::Parse {
            return FarError::NotRedis {
                node,
                detail: error
                    .detail()
                    .map_or_else(|| error.to_string(), str::to_string),
            }
            .in_one_line();
        }
        let text = error.to_string();
        let refused = matches!(
            error.kind(),
            redis::ErrorKind::AuthenticationFailed
                | redis::ErrorKind::Server(redis::ServerErrorKind::NoPerm)
        );
        if refused || text.contains("WRONGPASS") || text.contains("NOAUTH") {
            return FarError::Refused { node, detail: text };
        }
        FarError::Server { node, detail: text }
    }

    /// The error with its detail cut to the first line and a few dozen characters: the
    /// client library's parse errors span lines.
    fn in_one_line(self) -> FarError {
        match self {
            FarError::NotRedis { node, detail } => {
                let line = detail.lines().next().unwrap_or("").trim();
                let detail = match line.char_indices().nth(80) {
                    Some((cut, _)) => format!("{}...", &line[..cut]),
                    None => line.to_string(),
                };
                FarError::NotRedis { node, detail }
            }
            other => other,
        }
    }
}

/// A far failure reaches the store's callers as the error of a source outside the store,
/// which each front end finds again with [`far_error`] to word it.
impl From<FarError> for StoreError {
    fn from(error: FarError) -> StoreError {
        StoreError::Source(Box::new(error))
    }
}

/// The far-memory failure `error` carries, if it is one.
pub fn far_error(error: &StoreError) -> Option<&FarError> {
    match error {
        StoreError::Source(source) => source.downcast_ref(),
        _ => None,
    }
}

/// The far-memory failure `error` carries, or `error` itself when it is another kind.
pub fn into_far_error(error: StoreError) -> Result<FarError, StoreError> {
    match error {
        StoreError::Source(source) => match source.downcast::<FarError>() {
            Ok(far) => Ok(*far),
            Err(other) => Err(StoreError::Source(other)),
        },
        other => Err(other),
    }
}
