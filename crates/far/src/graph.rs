//! A graph in far memory, opened for runs: its manifest, the local cache of its vertex
//! sections, and the page source the read pipeline fetches its lists through.
//!
//! The cache is a sparse copy of the `.sl` file holding the header, the offsets, the
//! permutation and the checksums, with holes where the lists are: the tiers, the plan
//! and the verifier open it as they open any graph file, and the lists are read from
//! the cluster. It lives in `$SWAPLESS_CACHE_DIR` (else `$XDG_CACHE_HOME/swapless`, else
//! `~/.cache/swapless`), under the graph's fingerprint, written under a temporary name
//! and renamed once every page checks. Each open checks it again (its vertex sections
//! are small beside the lists): a cache damaged since is rebuilt, and said so, rather
//! than blamed on the cluster. The manifest's figures are checked against the header the
//! fingerprint binds, so no manifest field decides an answer alone.

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use swapless_format::{FormatError, GraphFile, SECTION_ALIGN, SectionKind};

use crate::manifest::{Manifest, chunk_key, fetched_while_running, fingerprint_hex};
use crate::queue::RedisQueue;
use crate::shared::{Fallback, FarShared, PIPELINE_BYTES, explain, pieces};
use crate::upload::{per_node, stored};
use crate::{FarAddress, FarError, into_far_error};
use swapless_store::sources::{PageQueue, PageSource};
use swapless_store::{AlignedBuffer, OriginOptions, Result, StoreError, VerifyCopy};

/// Bytes of vertex sections fetched at once while the cache is filled.
const FILL_WINDOW_BYTES: u64 = 2 << 20;

/// What one node served during a run.
#[derive(Clone, Debug)]
pub struct NodeFigures {
    /// `host:port`.
    pub node: String,
    /// Bytes it sent.
    pub bytes: u64,
    /// Requests it answered.
    pub requests: u64,
    /// Requests in flight to it, on average while it was read from.
    pub mean_in_flight: f64,
    /// The most requests in flight to it at once.
    pub max_in_flight: u64,
}

/// A far graph opened for runs.
pub struct FarGraph {
    shared: Arc<FarShared>,
    cache_path: PathBuf,
    options: OriginOptions,
    /// What was wrong with the local cache when it was found damaged and rebuilt.
    cache_rebuilt: Option<String>,
}

/// What the local cache of a far graph's vertex sections was found to be at open.
enum CacheState {
    /// Not there yet.
    Absent,
    /// This graph's, every page checked.
    Whole,
    /// There, but not this graph's or failing a check: what is wrong.
    Damaged(String),
}

impl FarGraph {
    /// Finds the graph `address` names, and its vertex sections in the local cache
    /// (fetching them when they are not there yet).
    pub fn open(address: &FarAddress, options: &OriginOptions) -> Result<FarGraph> {
        let (cluster, manifest) = stored(address, options.timeout)?;
        let folder = cache_folder();
        std::fs::create_dir_all(&folder).map_err(|source| FarError::Cache {
            path: folder.clone(),
            source,
        })?;
        let cache_path = folder.join(format!("{}.sl", manifest.fingerprint));
        let fallback = match &options.fallback {
            None => None,
            Some(path) => {
                let unreadable = |detail: String| FarError::FallbackUnreadable {
                    path: path.clone(),
                    detail,
                };
                let graph = GraphFile::open(path).map_err(|error| unreadable(error.to_string()))?;
                let found = fingerprint_hex(graph.fingerprint());
                if found != manifest.fingerprint {
                    return Err(FarError::FallbackMismatch {
                        path: path.clone(),
                        name: address.name.clone(),
                        expected: manifest.fingerprint.clone(),
                        found,
                    }
                    .into());
                }
                let file = std::fs::File::open(path).map_err(|source| StoreError::Io {
                    path: path.clone(),
                    source,
                })?;
                Some(Fallback {
                    file,
                    path: path.clone(),
                    reads: Default::default(),
                    bytes: Default::default(),
                    first_failure: Default::default(),
                })
            }
        };
        let shared = Arc::new(FarShared {
            fallback,
            cluster,
            manifest,
            traffic: Default::default(),
            retries: Default::default(),
            wait_nanos: Default::default(),
        });
        let mut graph = FarGraph {
            shared,
            cache_path,
            options: options.clone(),
            cache_rebuilt: None,
        };
        match graph.cache_state() {
            CacheState::Whole => {}
            CacheState::Absent => graph.fill_cache()?,
            CacheState::Damaged(detail) => {
                graph.fill_cache()?;
                graph.cache_rebuilt = Some(detail);
            }
        }
        graph.bind_manifest(&GraphFile::open(&graph.cache_path)?)?;
        // A whole copy kept by an earlier swapless for --verify: copies are removed
        // after each verification now.
        let _ = std::fs::remove_file(graph.cache_path.with_extension("whole.sl"));
        Ok(graph)
    }

    /// What was wrong with the local cache, if this open found it damaged and rebuilt it.
    pub fn cache_rebuilt(&self) -> Option<&str> {
        self.cache_rebuilt.as_deref()
    }

    /// The local file the tiers open: the graph's vertex sections, holes for its lists.
    pub fn path(&self) -> &Path {
        &self.cache_path
    }

    /// The graph's manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.shared.manifest
    }

    /// The graph's address, without its password.
    pub fn display(&self) -> String {
        self.shared.cluster.address.display()
    }

    /// What each node served so far, by `host:port`.
    pub fn traffic(&self) -> Vec<NodeFigures> {
        let traffic = match self.shared.traffic.lock() {
            Ok(traffic) => traffic,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut nodes: Vec<NodeFigures> = traffic
            .iter()
            .map(|(node, counters)| {
                let (mean_in_flight, max_in_flight) = counters.in_flight();
                NodeFigures {
                    node: node.clone(),
                    bytes: counters.bytes.load(std::sync::atomic::Ordering::Relaxed),
                    requests: counters.requests.load(std::sync::atomic::Ordering::Relaxed),
                    mean_in_flight,
                    max_in_flight,
                }
            })
            .collect();
        nodes.sort_by(|a, b| a.node.cmp(&b.node));
        nodes
    }

    /// Requests sent again after a redirection or a failover.
    pub fn retries(&self) -> u64 {
        self.shared
            .retries
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The error for a page at file position `position` that failed its checksum: the
    /// value of the chunk holding it is damaged on its node (or changed during the run),
    /// or, for a page of the vertex sections, the local cache is damaged.
    pub fn damaged_at(&self, position: u64) -> FarError {
        let manifest = &self.shared.manifest;
        let fetched = manifest.sections.iter().any(|section| {
            (section.offset..section.offset + section.length).contains(&position)
                && fetched_while_running(&section.name)
        });
        if !fetched {
            return FarError::Cache {
                path: self.cache_path.clone(),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "the page at byte {position} fails its checksum (the next run rebuilds it)"
                    ),
                ),
            };
        }
        let key = chunk_key(
            &self.shared.cluster.address.name,
            &manifest.generation,
            position / manifest.chunk_bytes,
        );
        let (_, node) = self.shared.cluster.owner_of(key.as_bytes());
        FarError::Damaged {
            node,
            key,
            detail: format!(
                "the page at byte {position} of the file fails its checksum (the value was \
                 damaged or rewritten, during the run or before it)"
            ),
        }
    }

    /// Reads and bytes the fallback file served.
    pub fn fallback_reads(&self) -> (u64, u64) {
        self.shared.fallback.as_ref().map_or((0, 0), |fallback| {
            (
                fallback.reads.load(std::sync::atomic::Ordering::Relaxed),
                fallback.bytes.load(std::sync::atomic::Ordering::Relaxed),
            )
        })
    }

    /// The first failure of the cluster that the fallback file served a read for.
    pub fn fallback_reason(&self) -> Option<String> {
        let fallback = self.shared.fallback.as_ref()?;
        fallback.first_failure.lock().ok()?.clone()
    }

    /// Seconds the reads waited for replies.
    pub fn wait_seconds(&self) -> f64 {
        self.shared
            .wait_nanos
            .load(std::sync::atomic::Ordering::Relaxed) as f64
            / 1e9
    }

    /// Bytes of receive buffers the far source may hold while running: the plan counts
    /// them inside the budget.
    pub fn buffer_bytes(&self) -> u64 {
        let nodes = self.shared.cluster.nodes().len().max(1) as u64;
        nodes * self.options.connections_per_node as u64 * 2 * PIPELINE_BYTES
    }

    /// A local copy of the whole graph, lists included, for the serial verifier (which
    /// reads the file itself, never through a tier): fetched into the cache folder beside
    /// the vertex sections, each page checked, and removed when the copy is dropped, so
    /// that no copy of the graph stays on the disk.
    pub fn fetch_whole(&self) -> Result<VerifyCopy> {
        let vertex_sections = GraphFile::open_bounded(&self.cache_path, 4 * FILL_WINDOW_BYTES)?;
        // The manifest's sections are the header's (checked at open).
        let header_bytes = self.shared.manifest.header_bytes();
        let mut header = vec![0u8; header_bytes as usize];
        std::fs::File::open(&self.cache_path)
            .and_then(|file| file.read_exact_at(&mut header, 0))
            .map_err(|source| self.cache_error(source))?;
        let temporary = self.temporary()?;
        let file = temporary.as_file();
        let file_bytes = vertex_sections.file_bytes();
        file.set_len(file_bytes)
            .map_err(|source| self.cache_error(source))?;
        self.copy_region(file, 0, header_bytes, &|_, bytes| match bytes == header {
            true => Ok(()),
            false => Err(self.changed(fingerprint_hex(0))),
        })?;
        for section in &vertex_sections.header().sections {
            let kind = self.kind_of(&section.name)?;
            self.copy_region(file, section.offset, section.length, &|at, bytes| {
                match kind {
                    // The checksums are the fingerprint's: checked with the header.
                    SectionKind::Checksums => Ok(()),
                    _ => Ok(vertex_sections.verify_blocks(kind, at, bytes)?),
                }
            })?;
        }
        Ok(VerifyCopy::fetched(temporary.into_temp_path(), file_bytes))
    }

    /// The page source the read pipeline fetches this graph's lists through.
    pub(crate) fn source(&self) -> Box<dyn PageSource> {
        Box::new(RedisSource {
            shared: self.shared.clone(),
            cache_path: self.cache_path.clone(),
            connections_per_node: self.options.connections_per_node,
        })
    }

    /// Whether the cache file is there, and whole: this graph's, each page of its vertex
    /// sections passing its checksum.
    fn cache_state(&self) -> CacheState {
        if !self.cache_path.exists() {
            return CacheState::Absent;
        }
        let graph = match GraphFile::open(&self.cache_path) {
            Ok(graph) => graph,
            Err(error) => return CacheState::Damaged(damage(&error)),
        };
        let found = fingerprint_hex(graph.fingerprint());
        if found != self.shared.manifest.fingerprint {
            return CacheState::Damaged(format!(
                "its header and checksums have fingerprint {found}, not the graph's"
            ));
        }
        for section in &graph.header().sections {
            let kind = match SectionKind::from_name(&section.name) {
                // The checksums are the fingerprint's, checked above.
                Some(SectionKind::Checksums) => continue,
                Some(kind) if !fetched_while_running(&section.name) => kind,
                _ => continue,
            };
            if let Err(error) = graph.for_each_piece(kind, &mut |_| {}) {
                return CacheState::Damaged(damage(&error));
            }
        }
        CacheState::Whole
    }

    /// Checks that the manifest says of the graph what its header (which the fingerprint
    /// binds) says: its counts, its flags and its sections, so that a manifest rewritten
    /// alone cannot change what a run reads or how.
    fn bind_manifest(&self, graph: &GraphFile) -> Result<()> {
        let manifest = &self.shared.manifest;
        let flags = graph.flags();
        let header_sections: Vec<(&str, u64, u64)> = graph
            .header()
            .sections
            .iter()
            .map(|entry| (entry.name.as_str(), entry.offset, entry.length))
            .collect();
        let manifest_sections: Vec<(&str, u64, u64)> = manifest
            .sections
            .iter()
            .map(|section| (section.name.as_str(), section.offset, section.length))
            .collect();
        let disagreement = [
            ("vertices", manifest.vertices == graph.num_vertices() as u64),
            ("arcs", manifest.arcs == graph.num_arcs() as u64),
            ("directed", manifest.directed == flags.directed),
            ("weighted", manifest.weighted == flags.weighted),
            ("sections", manifest_sections == header_sections),
            ("file_bytes", manifest.file_bytes == graph.file_bytes()),
        ]
        .into_iter()
        .find(|(_, agrees)| !agrees);
        match disagreement {
            None => Ok(()),
            Some((field, _)) => Err(FarError::BadManifest {
                name: self.shared.cluster.address.name.clone(),
                detail: format!(
                    "its field {field:?} disagrees with the graph's header (fingerprint {})",
                    manifest.fingerprint
                ),
            }
            .into()),
        }
    }

    /// Writes the cache file: the header and the vertex sections, each page checked.
    fn fill_cache(&self) -> Result<()> {
        let manifest = &self.shared.manifest;
        let temporary = self.temporary()?;
        let file = temporary.as_file();
        file.set_len(manifest.file_bytes)
            .map_err(|source| self.cache_error(source))?;
        // The header (its first page, every header's length), then the checksums where
        // it says they are: the fingerprint covers both, and every later page is checked
        // against the checksums. The manifest's section table is not trusted for this.
        let accept = |_: u64, _: &[u8]| Ok(());
        self.copy_region(file, 0, SECTION_ALIGN.min(manifest.file_bytes), &accept)?;
        let checksums = GraphFile::open(temporary.path())?
            .header()
            .section(SectionKind::Checksums)
            .cloned();
        if let Some(section) = checksums {
            self.copy_region(file, section.offset, section.length, &accept)?;
        }
        let graph = GraphFile::open_bounded(temporary.path(), 4 * FILL_WINDOW_BYTES)?;
        let found = fingerprint_hex(graph.fingerprint());
        if found != manifest.fingerprint {
            return Err(self.changed(found));
        }
        self.bind_manifest(&graph)?;
        for section in &graph.header().sections {
            let kind = self.kind_of(&section.name)?;
            if fetched_while_running(&section.name) || kind == SectionKind::Checksums {
                continue;
            }
            self.copy_region(file, section.offset, section.length, &|at, bytes| {
                Ok(graph.verify_blocks(kind, at, bytes)?)
            })?;
        }
        file.sync_all().map_err(|source| self.cache_error(source))?;
        temporary
            .persist(&self.cache_path)
            .map_err(|error| self.cache_error(error.error))?;
        // The rename is durable once the folder is.
        if let Some(Ok(folder)) = self.cache_path.parent().map(std::fs::File::open) {
            let _ = folder.sync_all();
        }
        Ok(())
    }

    /// Copies `length` bytes at file `offset` from the cluster into `file`, a window at
    /// a time, each window passed to `check` (with its offset from `offset`) first.
    fn copy_region(
        &self,
        file: &std::fs::File,
        offset: u64,
        length: u64,
        check: &dyn Fn(u64, &[u8]) -> Result<()>,
    ) -> Result<()> {
        let mut window = vec![0u8; FILL_WINDOW_BYTES.min(length) as usize];
        let mut at = 0;
        while at < length {
            let bytes = FILL_WINDOW_BYTES.min(length - at) as usize;
            fetch_now(&self.shared, &mut window[..bytes], offset + at)?;
            if let Err(damaged) = check(at, &window[..bytes]) {
                // What the cluster holds damaged comes from the fallback file, if there is
                // one, checked as the cluster's bytes were.
                let Some(fallback) = &self.shared.fallback else {
                    return Err(damaged);
                };
                fallback.read(
                    &mut window[..bytes],
                    offset + at,
                    &"a page failed its checksum",
                )?;
                check(at, &window[..bytes])?;
            }
            file.write_all_at(&window[..bytes], offset + at)
                .map_err(|source| self.cache_error(source))?;
            at += bytes as u64;
        }
        Ok(())
    }

    /// A temporary file in the cache folder, renamed into place once whole.
    fn temporary(&self) -> Result<tempfile::NamedTempFile> {
        let folder = self.cache_path.parent().unwrap_or(Path::new("."));
        tempfile::Builder::new()
            .prefix(".far-")
            .suffix(".part")
            .tempfile_in(folder)
            .map_err(|source| self.cache_error(source))
    }

    /// The section kind called `name`.
    fn kind_of(&self, name: &str) -> Result<SectionKind> {
        SectionKind::from_name(name).ok_or_else(|| {
            FarError::BadManifest {
                name: self.shared.cluster.address.name.clone(),
                detail: format!("it names a section {name:?} this swapless does not know"),
            }
            .into()
        })
    }

    /// The error for a stored graph whose bytes are not the manifest's.
    fn changed(&self, found: String) -> StoreError {
        FarError::Changed {
            name: self.shared.cluster.address.name.clone(),
            expected: self.shared.manifest.fingerprint.clone(),
            found,
        }
        .into()
    }

    fn cache_error(&self, source: std::io::Error) -> StoreError {
        FarError::Cache {
            path: self.cache_path.clone(),
            source,
        }
        .into()
    }
}

/// What is wrong with a cache file that failed to open or a check, in words without its
/// path (the note about it names the file).
fn damage(error: &FormatError) -> String {
    match error {
        FormatError::ChecksumMismatch {
            section,
            start,
            end,
            ..
        } => format!("section {section} fails its checksum at bytes {start}..{end}"),
        other => other.to_string(),
    }
}

/// The folder far graphs' vertex sections are cached in.
pub fn cache_folder() -> PathBuf {
    let base = std::env::var_os("SWAPLESS_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|x| PathBuf::from(x).join("swapless")))
        .or_else(|| {
            std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache/swapless"))
        })
        .unwrap_or_else(|| std::env::temp_dir().join("swapless-cache"));
    base.join("far")
}

/// The page source of a far graph.
struct RedisSource {
    shared: Arc<FarShared>,
    cache_path: PathBuf,
    connections_per_node: usize,
}

impl PageSource for RedisSource {
    fn path(&self) -> &Path {
        &self.cache_path
    }

    fn shown(&self) -> String {
        self.shared.cluster.address.display()
    }

    fn direct_io(&self) -> bool {
        false
    }

    fn may_change_unnoticed(&self) -> bool {
        true
    }

    fn read_now(&self, buffer: &mut [u8], position: u64, needed: usize) -> Result<()> {
        let landed = fetch_now(&self.shared, buffer, position)?;
        if landed < needed {
            return Err(FarError::Damaged {
                node: self.shared.cluster.nodes().join(","),
                key: format!("bytes {position}.. of the file"),
                detail: format!("{landed} bytes where {needed} were needed"),
            }
            .into());
        }
        Ok(())
    }

    fn queue(&self, _arena: &AlignedBuffer, _entries: u32) -> Result<Box<dyn PageQueue>> {
        Ok(Box::new(RedisQueue::new(
            self.shared.clone(),
            self.connections_per_node,
        )))
    }

    /// A value the cluster holds damaged is read from the fallback file, if there is one.
    fn read_second_copy(&self, buffer: &mut [u8], position: u64, needed: usize) -> Result<bool> {
        let Some(fallback) = &self.shared.fallback else {
            return Ok(false);
        };
        let landed = fallback.read(buffer, position, &"a page failed its checksum")?;
        if landed < needed {
            return Err(StoreError::Io {
                path: fallback.path.clone(),
                source: std::io::Error::from(std::io::ErrorKind::UnexpectedEof),
            });
        }
        Ok(true)
    }
}

/// Reads `buffer.len()` bytes at file `position` (fewer at the file's end) from the
/// cluster on the calling thread, or from the fallback file where the cluster fails;
/// returns how many landed.
fn fetch_now(shared: &FarShared, buffer: &mut [u8], position: u64) -> Result<usize> {
    match (
        fetch_from_cluster(shared, buffer, position),
        &shared.fallback,
    ) {
        (Ok(landed), _) => Ok(landed),
        (Err(error), Some(fallback)) => fallback.read(buffer, position, &error),
        (Err(error), None) => match into_far_error(error) {
            Ok(error) => Err(explain(shared, error).into()),
            Err(error) => Err(error),
        },
    }
}

/// [`fetch_now`] from the cluster alone.
fn fetch_from_cluster(shared: &FarShared, buffer: &mut [u8], position: u64) -> Result<usize> {
    let manifest = &shared.manifest;
    let name = &shared.cluster.address.name;
    let pieces = pieces(manifest, 0, 0, buffer.len() as u64, position);
    let keys: Vec<String> = pieces
        .iter()
        .map(|piece| chunk_key(name, &manifest.generation, piece.chunk()))
        .collect();
    // Each piece's own range: a read longer than a piece has several in one chunk, so
    // a chunk's key does not name its range.
    let replies = per_node(&shared.cluster, &keys, &|index, key| {
        let piece = &pieces[index];
        let mut command = redis::cmd("GETRANGE");
        command
            .arg(key)
            .arg(piece.start())
            .arg(piece.start() + piece.length() as u64 - 1);
        command
    })?;
    let mut landed = 0;
    for ((piece, reply), key) in pieces.iter().zip(replies).zip(&keys) {
        match reply {
            redis::Value::BulkString(bytes) if bytes.len() == piece.length() as usize => {
                let at = piece.destination();
                buffer[at..at + bytes.len()].copy_from_slice(&bytes);
                landed += bytes.len();
                let traffic = shared.traffic_of(&shared.cluster.owner_of(key.as_bytes()).1);
                traffic
                    .bytes
                    .fetch_add(bytes.len() as u64, std::sync::atomic::Ordering::Relaxed);
                traffic
                    .requests
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            redis::Value::BulkString(bytes) if !bytes.is_empty() => {
                let (_, node) = shared.cluster.owner_of(key.as_bytes());
                return Err(FarError::Damaged {
                    node,
                    key: key.clone(),
                    detail: format!(
                        "{} bytes where {} were asked for",
                        bytes.len(),
                        piece.length()
                    ),
                }
                .into());
            }
            _ => {
                let (_, node) = shared.cluster.owner_of(key.as_bytes());
                return Err(FarError::MissingKey {
                    node,
                    key: key.clone(),
                }
                .into());
            }
        }
    }
    Ok(landed)
}
