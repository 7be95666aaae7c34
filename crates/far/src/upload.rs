//! Storing a graph in far memory, listing what is stored, and removing it.

use std::collections::HashMap;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Duration;

use swapless_format::GraphFile;

use crate::cluster::Cluster;
use crate::manifest::{Manifest, chunk_key, fingerprint_hex, manifest_key, new_generation};
use crate::wire::ControlStream;
use crate::{FarAddress, FarError, far_error};
use swapless_store::{Result, StoreError};

/// Commands sent to a node at once by the control operations.
pub(crate) const CONTROL_BATCH: usize = 256;
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

/// Default chunk size: 63 pages, one short of Fargraph's best 256 KiB. Redis keeps a value
/// in its allocator's size class (jemalloc's are 4 a doubling: 256, 320, 384 KiB...), and a
/// value of a whole class plus the string's header falls into the next: a 256 KiB chunk
/// took 320 KiB of the server's memory, a 252 KiB one 256 KiB.
pub const DEFAULT_FAR_CHUNK_BYTES: u64 = 252 << 10;
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
    /// Chunks of the same graph already stored that were damaged or missing, and were
    /// sent again.
    pub repaired_chunks: u64,
    /// Bytes sent.
    pub bytes_sent: u64,
    /// A different graph that was replaced (its fingerprint).
    pub replaced: Option<String>,
}

/// Stores the graph at `path` under `address`'s name, all or nothing: its chunks under a
/// new generation, each confirmed still there, then the manifest naming that generation
/// (set in one command, so a run or a listing sees the old graph or the new one whole),
/// then the chunks of the generation it replaced. A push that fails removes its chunks.
/// The same graph already stored with the same chunks is compared chunk by chunk and
/// any damaged chunk sent again. `progress` hears the bytes sent so far and the total.
pub fn push(
    path: &Path,
    address: &FarAddress,
    options: &PushOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<PushReport> {
    let graph = GraphFile::open(path)?;
    // A page that fails its checksum here would fail every run of the far graph.
    graph.verify_checksums()?;
    let cluster = Cluster::discover(address, options.timeout)?;
    let name = address.name.clone();
    let fingerprint = fingerprint_hex(graph.fingerprint());
    let stored = match read_manifest(&cluster, &name) {
        // A manifest that cannot be read names no graph to keep; --replace replaces it.
        Err(error)
            if options.replace
                && matches!(far_error(&error), Some(FarError::BadManifest { .. })) =>
        {
            None
        }
        other => other?,
    };
    if let Some(stored) = &stored {
        if stored.fingerprint == fingerprint && stored.chunk_bytes == options.chunk_bytes {
            let repair = repair(&cluster, &name, stored, path, options, progress)?;
            if let Some((repaired_chunks, bytes_sent)) = repair {
                return Ok(PushReport {
                    manifest: stored.clone(),
                    nodes: cluster.nodes(),
                    already_stored: repaired_chunks == 0,
                    bytes_sent,
                    repaired_chunks,
                    replaced: None,
                });
            }
        } else if stored.fingerprint != fingerprint && !options.replace {
            return Err(FarError::NameTaken {
                name,
                stored: stored.fingerprint.clone(),
            }
            .into());
        }
    }
    refuse_evicting(&cluster)?;
    let generation = new_generation();
    let chunks = graph.file_bytes().div_ceil(options.chunk_bytes);
    let stored = send_generation(&cluster, &graph, path, &generation, options, progress).and_then(
        |(checksums, bytes_sent)| {
            let manifest =
                Manifest::describe(&graph, generation.clone(), options.chunk_bytes, checksums)?;
            confirm_kept(&cluster, &name, &manifest)?;
            let before = flip(&cluster, &name, &manifest)?;
            Ok((manifest, before, bytes_sent))
        },
    );
    let (manifest, before, bytes_sent) = match stored {
        Ok(stored) => stored,
        Err(error) => {
            // Best effort: what a failed delete leaves, `far ls` shows and `far rm` removes.
            let keys: Vec<String> = (0..chunks)
                .map(|index| chunk_key(&name, &generation, index))
                .collect();
            let _ = delete(&cluster, &keys);
            return Err(out_of_memory(error));
        }
    };
    // The generation the flip replaced, whoever pushed it (another push may have
    // flipped since this one read the manifest): its chunks are nobody's now.
    let mut replaced = None;
    if let Some(before) = before.filter(|before| before.generation != generation) {
        let keys = before.chunk_keys(&name, 0..before.chunks());
        delete(&cluster, &keys)?;
        if before.fingerprint != fingerprint {
            replaced = Some(before.fingerprint);
        }
    }
    Ok(PushReport {
        manifest,
        nodes: cluster.nodes(),
        already_stored: false,
        bytes_sent,
        repaired_chunks: 0,
        replaced,
    })
}

/// Compares each chunk of the graph `stored` names with the file at `path` (the same
/// graph by fingerprint) and sets again those that differ or are missing; returns how
/// many it set and their bytes, or `None` when a fresh push must follow: the manifest's
/// checksums are not the file's chunks (a forged manifest), or another push replaced
/// the generation while this one repaired it.
fn repair(
    cluster: &Cluster,
    name: &str,
    stored: &Manifest,
    path: &Path,
    options: &PushOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Option<(u64, u64)>> {
    let file = open_file(path)?;
    // The stored chunks and the file's, half of the push's memory each.
    let window = (options.buffer_bytes / 2 / stored.chunk_bytes).max(1);
    let (mut repaired, mut bytes_sent) = (0, 0);
    for first in (0..stored.chunks()).step_by(window as usize) {
        let end = (first + window).min(stored.chunks());
        let keys = stored.chunk_keys(name, first..end);
        let values = per_node(cluster, &keys, &|_, key| {
            let mut command = redis::cmd("GET");
            command.arg(key);
            command
        })?;
        let mut damaged: HashMap<String, Vec<u8>> = HashMap::new();
        for ((index, key), value) in (first..end).zip(keys).zip(values) {
            let range = stored.chunk_range(index);
            let mut bytes = vec![0u8; (range.end - range.start) as usize];
            file.read_exact_at(&mut bytes, range.start)
                .map_err(|source| io_error(path, source))?;
            if xxhash_rust::xxh3::xxh3_64(&bytes) != stored.chunk_checksums[index as usize] {
                return Ok(None);
            }
            if !matches!(&value, redis::Value::BulkString(found) if *found == bytes) {
                damaged.insert(key, bytes);
            }
        }
        let keys: Vec<String> = damaged.keys().cloned().collect();
        per_node(cluster, &keys, &|_, key| {
            let mut command = redis::cmd("SET");
            command
                .arg(key)
                .arg(damaged.get(key).map(Vec::as_slice).unwrap_or_default());
            command
        })?;
        repaired += damaged.len() as u64;
        bytes_sent += damaged
            .values()
            .map(|bytes| bytes.len() as u64)
            .sum::<u64>();
        progress(stored.chunk_range(end - 1).end, stored.file_bytes);
    }
    let kept = confirm_kept(cluster, name, stored);
    // A push that flipped meanwhile removed this generation, perhaps before the chunks
    // set again here landed (so a chunk missing now is its doing, not an eviction):
    // they are nobody's, so they go too, and this push starts afresh.
    let current = read_manifest(cluster, name)?;
    if current.is_none_or(|current| current.generation != stored.generation) {
        let keys = stored.chunk_keys(name, 0..stored.chunks());
        delete(cluster, &keys)?;
        return Ok(None);
    }
    kept?;
    Ok(Some((repaired, bytes_sent)))
}

/// Refuses a cluster with a node that evicts any key to stay under a set `maxmemory`
/// (an `allkeys-*` policy): a graph's chunks have no expiry, so the `volatile-*`
/// policies and `noeviction` leave them be. A node that refuses `CONFIG` is not asked;
/// [`confirm_kept`] still notices what it evicts during the push.
fn refuse_evicting(cluster: &Cluster) -> Result<()> {
    for node in cluster.nodes() {
        let mut connection = cluster.idle_connection(&node)?;
        let setting = |connection: &mut ControlStream, name: &str| {
            redis::cmd("CONFIG")
                .arg("GET")
                .arg(name)
                .query::<Vec<String>>(connection)
                .ok()
                .and_then(|pair| pair.into_iter().nth(1))
        };
        let policy = setting(&mut connection, "maxmemory-policy");
        let limited = setting(&mut connection, "maxmemory").is_some_and(|bytes| bytes != "0");
        cluster.give_back(&node, connection);
        if let Some(policy) = policy.filter(|policy| policy.starts_with("allkeys-") && limited) {
            return Err(FarError::Evicting { node, policy }.into());
        }
    }
    Ok(())
}

/// Sends every chunk of `graph` under `generation`, a thread per node with a bounded
/// queue each; returns the chunks' checksums and the bytes sent.
fn send_generation(
    cluster: &Cluster,
    graph: &GraphFile,
    path: &Path,
    generation: &str,
    options: &PushOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(Vec<u64>, u64)> {
    let file = open_file(path)?;
    let name = &cluster.address.name;
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
            let (failure, failed, sent) = (&failure, &failed, &sent);
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
                .map_err(|source| io_error(path, source))?;
            checksums.push(xxhash_rust::xxh3::xxh3_64(&bytes));
            let key = chunk_key(name, generation, index);
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
    Ok((checksums, sent.into_inner()))
}

/// Checks that every chunk `manifest` names is on its node at its length: a node that
/// evicted some while the push went on is caught before the manifest names them.
fn confirm_kept(cluster: &Cluster, name: &str, manifest: &Manifest) -> Result<()> {
    let keys = manifest.chunk_keys(name, 0..manifest.chunks());
    let lengths = per_node(cluster, &keys, &|_, key| {
        let mut command = redis::cmd("STRLEN");
        command.arg(key);
        command
    })?;
    for ((index, key), length) in (0..manifest.chunks()).zip(keys).zip(lengths) {
        let range = manifest.chunk_range(index);
        if !matches!(length, redis::Value::Int(found) if found as u64 == range.end - range.start) {
            let node = cluster.owner_of(key.as_bytes()).1;
            return Err(FarError::NotKept { node, key }.into());
        }
    }
    Ok(())
}

/// Sets the manifest of `name` to `manifest` and returns the one it replaced, in one
/// command (`SET ... GET`), so two pushes that flip at once each learn which generation
/// they replaced and none is left unnamed.
fn flip(cluster: &Cluster, name: &str, manifest: &Manifest) -> Result<Option<Manifest>> {
    let encoded = serde_json::to_vec(manifest).map_err(|error| FarError::BadManifest {
        name: name.to_string(),
        detail: error.to_string(),
    })?;
    let key = manifest_key(name);
    let replies = per_node(cluster, std::slice::from_ref(&key), &|_, key| {
        let mut command = redis::cmd("SET");
        command.arg(key).arg(&encoded[..]).arg("GET");
        command
    })?;
    match replies.into_iter().next() {
        // A manifest that cannot be read names no chunks this push could remove; `far
        // ls` shows them as an incomplete push.
        Some(redis::Value::BulkString(bytes)) => Ok(Manifest::decode(name, &bytes).ok()),
        _ => Ok(None),
    }
}

/// `error`, or the out-of-memory kind when it is a node's refusal under `maxmemory`.
fn out_of_memory(error: StoreError) -> StoreError {
    match far_error(&error) {
        Some(FarError::Server { node, detail }) if detail.contains("OOM") => {
            FarError::OutOfMemory { node: node.clone() }.into()
        }
        _ => error,
    }
}

/// The file at `path`, opened for reading chunks.
fn open_file(path: &Path) -> Result<std::fs::File> {
    std::fs::File::open(path).map_err(|source| io_error(path, source))
}

/// A read of the file at `path` that failed.
fn io_error(path: &Path, source: std::io::Error) -> StoreError {
    StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
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
                per_node(cluster, &keys, &|_, key| {
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
    let values = per_node(cluster, std::slice::from_ref(&key), &|_, key| {
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
pub(crate) fn delete(cluster: &Cluster, keys: &[String]) -> Result<()> {
    per_node(cluster, keys, &|_, key| {
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

/// Runs `command(index, key)` for each of `keys` on the node that owns it, pipelined in
/// batches, and returns the replies in the order of `keys`. The index tells apart two
/// commands on one key (two ranges of one chunk). Follows redirections and a
/// cluster that fails over by reading the slot map again, a bounded number of times.
pub(crate) fn per_node(
    cluster: &Cluster,
    keys: &[String],
    command: &dyn Fn(usize, &str) -> redis::Cmd,
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
                    pipeline.add_command(command(index, &keys[index]));
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
