//! Storing a graph in far memory, listing what is stored, and removing it.

use std::collections::HashMap;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Duration;

use swapless_format::GraphFile;

use super::cluster::Cluster;
use super::manifest::{
    MANIFEST_PATTERN, Manifest, chunk_key, fingerprint_hex, manifest_key, name_of_manifest_key,
};
use super::{FarAddress, FarError};
use crate::{Result, StoreError};

/// Commands sent to a node at once by the control operations.
const CONTROL_BATCH: usize = 256;
/// How many times a request redirected by the cluster (or refused while it fails over)
/// is tried again after the slot map is read anew.
pub(crate) const REDIRECT_RETRIES: u32 = 20;
/// Chunks a node's uploader batches into one pipeline.
const UPLOAD_BATCH: usize = 8;

/// How a graph is stored.
#[derive(Clone, Debug)]
pub struct PushOptions {
    /// Bytes a chunk holds (4 KiB to 4 MiB).
    pub chunk_bytes: u64,
    /// Replace a different graph stored under the same name.
    pub replace: bool,
    /// Bytes of chunks in flight at most, over all nodes.
    pub buffer_bytes: u64,
    /// How long a node may take to answer.
    pub timeout: Duration,
}

/// Default chunk size: Fargraph's best.
pub const DEFAULT_FAR_CHUNK_BYTES: u64 = 256 << 10;
/// The smallest and largest chunk sizes.
pub const FAR_CHUNK_RANGE: std::ops::RangeInclusive<u64> = 4096..=(4 << 20);

/// What a push did.
#[derive(Clone, Debug)]
pub struct PushReport {
    /// The manifest now stored.
    pub manifest: Manifest,
    /// The nodes the chunks went to.
    pub nodes: Vec<String>,
    /// Whether the same graph was already stored whole, so nothing was sent.
    pub already_stored: bool,
    /// Bytes sent.
    pub bytes_sent: u64,
    /// A different graph that was replaced (its fingerprint).
    pub replaced: Option<String>,
}

/// A graph stored in far memory.
#[derive(Clone, Debug)]
pub struct StoredGraph {
    /// Its name.
    pub name: String,
    /// Its manifest.
    pub manifest: Manifest,
}

/// Stores the graph at `path` under `address`'s name: every chunk, then the manifest.
/// `progress` hears the bytes sent so far and the total.
pub fn push(
    path: &Path,
    address: &FarAddress,
    options: &PushOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<PushReport> {
    let graph = GraphFile::open(path)?;
    let cluster = Cluster::discover(address, options.timeout)?;
    let name = address.name.clone();
    let fingerprint = fingerprint_hex(graph.fingerprint());
    let stored = read_manifest(&cluster, &name)?;
    let mut replaced = None;
    if let Some(stored) = &stored {
        if stored.fingerprint == fingerprint && stored.chunk_bytes == options.chunk_bytes {
            let keys: Vec<String> = (0..stored.chunks())
                .map(|index| chunk_key(&name, &fingerprint, index))
                .collect();
            let exists = per_node(&cluster, &keys, &|key| {
                let mut command = redis::cmd("EXISTS");
                command.arg(key);
                command
            })?;
            if exists
                .iter()
                .all(|value| matches!(value, redis::Value::Int(1)))
            {
                return Ok(PushReport {
                    manifest: stored.clone(),
                    nodes: cluster.nodes(),
                    already_stored: true,
                    bytes_sent: 0,
                    replaced: None,
                });
            }
        } else if stored.fingerprint != fingerprint {
            if !options.replace {
                return Err(FarError::NameTaken {
                    name,
                    stored: stored.fingerprint.clone(),
                }
                .into());
            }
            replaced = Some(stored.fingerprint.clone());
        }
    }
    let file = std::fs::File::open(path).map_err(|source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let file_bytes = graph.file_bytes();
    let chunks = file_bytes.div_ceil(options.chunk_bytes);
    let nodes = cluster.nodes();
    // Each node's uploader holds a queue and a batch of chunks.
    let per_node_chunks = (options.buffer_bytes / options.chunk_bytes / nodes.len().max(1) as u64)
        .clamp(2, 4 * UPLOAD_BATCH as u64) as usize;
    let failure: Mutex<Option<FarError>> = Mutex::new(None);
    let failed = AtomicBool::new(false);
    let mut checksums = Vec::with_capacity(chunks as usize);
    let sent = std::sync::atomic::AtomicU64::new(0);
    std::thread::scope(|scope| -> Result<()> {
        let mut senders: Vec<SyncSender<(String, Vec<u8>)>> = Vec::new();
        for node in &nodes {
            let (sender, receiver) =
                sync_channel(per_node_chunks.saturating_sub(UPLOAD_BATCH).max(1));
            senders.push(sender);
            let (cluster, failure, failed, sent) = (&cluster, &failure, &failed, &sent);
            scope.spawn(move || {
                if let Err(error) = upload_from(cluster, node, receiver, sent, progress, file_bytes)
                {
                    failed.store(true, Ordering::Relaxed);
                    if let Ok(mut slot) = failure.lock() {
                        slot.get_or_insert(error);
                    }
                }
            });
        }
        for index in 0..chunks {
            if failed.load(Ordering::Relaxed) {
                break;
            }
            let start = index * options.chunk_bytes;
            let length = options.chunk_bytes.min(file_bytes - start) as usize;
            let mut bytes = vec![0u8; length];
            file.read_exact_at(&mut bytes, start)
                .map_err(|source| StoreError::Io {
                    path: path.to_path_buf(),
                    source,
                })?;
            checksums.push(xxhash_rust::xxh3::xxh3_64(&bytes));
            let key = chunk_key(&name, &fingerprint, index);
            let (owner, _) = cluster.owner_of(key.as_bytes());
            if senders[owner].send((key, bytes)).is_err() {
                break;
            }
        }
        drop(senders);
        Ok(())
    })?;
    if let Some(error) = failure
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
    {
        return Err(error.into());
    }
    let manifest = Manifest::describe(&graph, options.chunk_bytes, checksums)?;
    let encoded = serde_json::to_vec(&manifest).map_err(|error| FarError::BadManifest {
        name: name.clone(),
        detail: error.to_string(),
    })?;
    let key = manifest_key(&name);
    per_node(&cluster, std::slice::from_ref(&key), &|key| {
        let mut command = redis::cmd("SET");
        command.arg(key).arg(&encoded[..]);
        command
    })?;
    if let (Some(old), Some(stored)) = (&replaced, &stored) {
        let keys: Vec<String> = (0..stored.chunks())
            .map(|index| chunk_key(&name, old, index))
            .collect();
        delete(&cluster, &keys)?;
    }
    Ok(PushReport {
        manifest,
        nodes,
        already_stored: false,
        bytes_sent: sent.into_inner(),
        replaced,
    })
}

/// One node's uploader: sets the chunks it receives, a batch per pipeline.
fn upload_from(
    cluster: &Cluster,
    node: &str,
    receiver: Receiver<(String, Vec<u8>)>,
    sent: &std::sync::atomic::AtomicU64,
    progress: &(dyn Fn(u64, u64) + Sync),
    total: u64,
) -> std::result::Result<(), FarError> {
    let mut connection = cluster.connect(node)?;
    while let Ok(first) = receiver.recv() {
        let mut batch = vec![first];
        while batch.len() < UPLOAD_BATCH {
            match receiver.try_recv() {
                Ok(next) => batch.push(next),
                Err(_) => break,
            }
        }
        let mut pipeline = redis::pipe();
        for (key, bytes) in &batch {
            pipeline.cmd("SET").arg(key).arg(&bytes[..]).ignore();
        }
        match pipeline.query::<()>(&mut connection) {
            Ok(()) => {}
            // The cluster moved slots: set these one by one through the current map.
            Err(error) if is_redirect(&error) => {
                cluster.refresh()?;
                let keys: Vec<String> = batch.iter().map(|(key, _)| key.clone()).collect();
                let values: HashMap<&str, &[u8]> = batch
                    .iter()
                    .map(|(key, bytes)| (key.as_str(), bytes.as_slice()))
                    .collect();
                per_node(cluster, &keys, &|key| {
                    let mut command = redis::cmd("SET");
                    command
                        .arg(key)
                        .arg(values.get(key).copied().unwrap_or_default());
                    command
                })?;
            }
            Err(error) => return Err(cluster.failure(node, &error)),
        }
        let bytes: u64 = batch.iter().map(|(_, bytes)| bytes.len() as u64).sum();
        let done = sent.fetch_add(bytes, Ordering::Relaxed) + bytes;
        progress(done, total);
    }
    Ok(())
}

/// Every graph stored on the cluster behind `address`.
pub fn list(address: &FarAddress, timeout: Duration) -> Result<Vec<StoredGraph>> {
    let cluster = Cluster::discover(address, timeout)?;
    let mut graphs = Vec::new();
    for node in cluster.nodes() {
        let mut connection = cluster.connect(&node)?;
        let mut cursor: u64 = 0;
        loop {
            let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(MANIFEST_PATTERN)
                .arg("COUNT")
                .arg(1000)
                .query(&mut connection)
                .map_err(|error| cluster.failure(&node, &error))?;
            for key in keys {
                let Some(name) = name_of_manifest_key(&key) else {
                    continue;
                };
                let bytes: Option<Vec<u8>> = redis::cmd("GET")
                    .arg(&key)
                    .query(&mut connection)
                    .map_err(|error| cluster.failure(&node, &error))?;
                if let Some(bytes) = bytes {
                    graphs.push(StoredGraph {
                        name: name.to_string(),
                        manifest: Manifest::decode(name, &bytes)?,
                    });
                }
            }
            cursor = next;
            if cursor == 0 {
                break;
            }
        }
    }
    graphs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(graphs)
}

/// Removes the graph `address` names: its chunks, then its manifest (so an interrupted
/// removal can be run again). Returns its manifest.
pub fn remove(address: &FarAddress, timeout: Duration) -> Result<Manifest> {
    let (cluster, manifest) = stored(address, timeout)?;
    let name = &address.name;
    let keys: Vec<String> = (0..manifest.chunks())
        .map(|index| chunk_key(name, &manifest.fingerprint, index))
        .collect();
    delete(&cluster, &keys)?;
    delete(&cluster, &[manifest_key(name)])?;
    Ok(manifest)
}

/// The cluster behind `address` and the manifest of the graph it names, which must be
/// stored there.
pub(crate) fn stored(address: &FarAddress, timeout: Duration) -> Result<(Cluster, Manifest)> {
    let cluster = Cluster::discover(address, timeout)?;
    let manifest = read_manifest(&cluster, &address.name)?.ok_or_else(|| FarError::NotFound {
        name: address.name.clone(),
        cluster: address.seeds.join(","),
    })?;
    Ok((cluster, manifest))
}

/// The manifest stored for `name`, if any.
pub(crate) fn read_manifest(cluster: &Cluster, name: &str) -> Result<Option<Manifest>> {
    let key = manifest_key(name);
    let values = per_node(cluster, std::slice::from_ref(&key), &|key| {
        let mut command = redis::cmd("GET");
        command.arg(key);
        command
    })?;
    match values.into_iter().next() {
        Some(redis::Value::BulkString(bytes)) => Ok(Some(Manifest::decode(name, &bytes)?)),
        _ => Ok(None),
    }
}

/// Deletes `keys`, in batches per node.
fn delete(cluster: &Cluster, keys: &[String]) -> Result<()> {
    per_node(cluster, keys, &|key| {
        let mut command = redis::cmd("DEL");
        command.arg(key);
        command
    })?;
    Ok(())
}

/// Whether `error` asks the client to read the slot map again and retry: a redirection,
/// or a cluster failing over.
pub(crate) fn is_redirect(error: &redis::RedisError) -> bool {
    matches!(
        error.kind(),
        redis::ErrorKind::Server(
            redis::ServerErrorKind::Moved
                | redis::ServerErrorKind::Ask
                | redis::ServerErrorKind::TryAgain
                | redis::ServerErrorKind::ClusterDown
        )
    )
}

/// Runs `command(key)` for each of `keys` on the node that owns it, pipelined in
/// batches, and returns the replies in the order of `keys`. Follows redirections and a
/// cluster that fails over by reading the slot map again, a bounded number of times.
pub(crate) fn per_node(
    cluster: &Cluster,
    keys: &[String],
    command: &dyn Fn(&str) -> redis::Cmd,
) -> std::result::Result<Vec<redis::Value>, FarError> {
    let mut replies = vec![redis::Value::Nil; keys.len()];
    let mut pending: Vec<usize> = (0..keys.len()).collect();
    let mut attempts = 0;
    // Retries stop with the timeout, so that a failover within it is survived and a
    // slot nobody serves ends the call about then.
    let deadline = std::time::Instant::now() + cluster.timeout;
    while !pending.is_empty() {
        let nodes = cluster.nodes();
        let mut by_node: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for &index in &pending {
            by_node[cluster.owner_of(keys[index].as_bytes()).0].push(index);
        }
        let mut retry = Vec::new();
        let mut last_error = None;
        for (node, indices) in nodes.iter().zip(by_node) {
            if indices.is_empty() {
                continue;
            }
            let mut connection = match cluster.idle_connection(node) {
                Ok(connection) => connection,
                Err(error) => {
                    last_error = Some(error);
                    retry.extend(indices);
                    continue;
                }
            };
            let mut healthy = true;
            for batch in indices.chunks(CONTROL_BATCH) {
                let mut pipeline = redis::pipe();
                for &index in batch {
                    pipeline.add_command(command(&keys[index]));
                }
                match pipeline.query::<Vec<redis::Value>>(&mut connection) {
                    Ok(values) => {
                        for (&index, value) in batch.iter().zip(values) {
                            replies[index] = value;
                        }
                    }
                    Err(error) if is_redirect(&error) || error.is_io_error() => {
                        healthy &= !error.is_io_error();
                        last_error = Some(cluster.failure(node, &error));
                        retry.extend_from_slice(batch);
                    }
                    Err(error) => return Err(cluster.failure(node, &error)),
                }
            }
            // A connection that failed on I/O is dropped; the others serve the next call.
            if healthy {
                cluster.give_back(node, connection);
            }
        }
        if retry.is_empty() {
            break;
        }
        attempts += 1;
        let now = std::time::Instant::now();
        if attempts > REDIRECT_RETRIES || now >= deadline {
            return Err(last_error.unwrap_or(FarError::Server {
                node: nodes.join(","),
                detail: "the cluster kept redirecting requests".to_string(),
            }));
        }
        std::thread::sleep(
            Duration::from_millis(100 * attempts.min(10) as u64).min(deadline - now),
        );
        // A failed refresh leaves the old map; the retry then fails the same way.
        let _ = cluster.refresh_before(deadline);
        pending = retry;
    }
    Ok(replies)
}

/// Reads every chunk of the graph `address` names and checks it against the manifest's
/// checksum, a window of chunks at a time; returns how many chunks were checked.
pub fn check(address: &FarAddress, timeout: Duration) -> Result<u64> {
    let (cluster, manifest) = stored(address, timeout)?;
    let name = &address.name;
    // About 8 MiB of chunks at once.
    let window = ((8 << 20) / manifest.chunk_bytes).max(1);
    let mut index = 0;
    while index < manifest.chunks() {
        let end = (index + window).min(manifest.chunks());
        let keys: Vec<String> = (index..end)
            .map(|chunk| chunk_key(name, &manifest.fingerprint, chunk))
            .collect();
        let values = per_node(&cluster, &keys, &|key| {
            let mut command = redis::cmd("GET");
            command.arg(key);
            command
        })?;
        for ((chunk, value), key) in (index..end).zip(values).zip(&keys) {
            let node = || cluster.owner_of(key.as_bytes()).1;
            let redis::Value::BulkString(bytes) = value else {
                return Err(FarError::MissingKey {
                    node: node(),
                    key: key.clone(),
                }
                .into());
            };
            let range = manifest.chunk_range(chunk);
            let expected = manifest.chunk_checksums[chunk as usize];
            if bytes.len() as u64 != range.end - range.start
                || xxhash_rust::xxh3::xxh3_64(&bytes) != expected
            {
                return Err(FarError::Damaged {
                    node: node(),
                    key: key.clone(),
                    detail: "it does not match the manifest's checksum".to_string(),
                }
                .into());
            }
        }
        index = end;
    }
    Ok(manifest.chunks())
}
