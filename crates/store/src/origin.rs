//! Where a graph comes from, apart from the tier that serves its edges: a local file, or
//! a copy elsewhere whose lists a page source fetches while the graph's small sections
//! (header, offsets, checksums) sit in a local file (a far graph on Redis, in the
//! `swapless-far` crate). The runner holds one [`GraphOrigin`] whatever it is, and asks
//! it what a run needs: the local file, a page source, the memory its connections hold,
//! the tiers it can be served by, a whole copy to verify against, how to name a damaged
//! page, and the figures of its report.
//!
//! A new origin (an object store, HTTP) is a crate that implements this trait and
//! [`crate::sources::PageSource`], and one line in the list of origins the runner
//! chooses from (`swapless_run::origins`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::sources::{PageSource, UringFile};
use crate::{Result, StoreError, Tier};

/// Every tier: what a local file can be served by.
pub const ALL_TIERS: &[Tier] = &[Tier::Dram, Tier::Mmap, Tier::Direct];

/// How an origin across a network is reached; a local file uses none of it.
#[derive(Clone, Debug)]
pub struct OriginOptions {
    /// How long a server may take to answer a request.
    pub timeout: Duration,
    /// Connections to each server.
    pub connections_per_node: usize,
    /// A local copy of the same graph (by fingerprint) that serves the reads the origin
    /// fails to; the report counts them.
    pub fallback: Option<PathBuf>,
}

impl Default for OriginOptions {
    fn default() -> OriginOptions {
        OriginOptions {
            timeout: Duration::from_secs(10),
            connections_per_node: 4,
            fallback: None,
        }
    }
}

/// A whole local copy of the graph, for the serial verifier: the file itself, or a copy
/// fetched for the check and removed when this is dropped.
pub struct VerifyCopy {
    path: PathBuf,
    /// Bytes fetched for the copy, and the file that is removed on drop; `None` when
    /// the copy is the graph's own file.
    fetched: Option<(u64, tempfile::TempPath)>,
}

impl VerifyCopy {
    /// The graph's own file, nothing fetched.
    pub fn own(path: &Path) -> VerifyCopy {
        VerifyCopy {
            path: path.to_path_buf(),
            fetched: None,
        }
    }

    /// A copy of `bytes` fetched into the temporary file `file`, removed on drop.
    pub fn fetched(file: tempfile::TempPath, bytes: u64) -> VerifyCopy {
        VerifyCopy {
            path: file.to_path_buf(),
            fetched: Some((bytes, file)),
        }
    }

    /// The copy's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes fetched to make the copy; `None` when it is the graph's own file.
    pub fn fetched_bytes(&self) -> Option<u64> {
        self.fetched.as_ref().map(|(bytes, _)| *bytes)
    }
}

/// Where a graph comes from, as a run sees it.
pub trait GraphOrigin: Send + Sync {
    /// The origin's kind in reports ("file", "far"): the report's `origin`, and the key
    /// of its [`GraphOrigin::figures`].
    fn kind(&self) -> &'static str;
    /// The graph as the user named it (a path; an address without its password).
    fn shown(&self) -> String;
    /// The local file with the graph's header, offsets, vertex sections and checksums:
    /// the graph itself, or a local cache of those sections.
    fn local_file(&self) -> &Path;
    /// The tiers that can serve it: a graph whose lists are not in the local file is
    /// served by the direct tier's pipeline over its page source alone.
    fn tiers(&self) -> &'static [Tier] {
        ALL_TIERS
    }
    /// Bytes the origin holds during the whole run besides the plan's segments (its
    /// connections' receive buffers), which the plan counts as hot.
    fn held_bytes(&self) -> u64 {
        0
    }
    /// The page source the direct tier reads the graph's lists through.
    fn page_source(&self) -> Result<Box<dyn PageSource>>;
    /// Whether the graph holds a negative edge weight, when the origin knows without
    /// reading lists; `None`: the run asks the local file.
    fn negative_weights(&self) -> Option<bool> {
        None
    }
    /// A whole local copy of the graph for the serial verifier.
    fn verify_copy(&self) -> Result<VerifyCopy>;
    /// The origin's own error for a page of the graph found damaged at byte `position`
    /// of its local file; `None` keeps the file's error.
    fn damaged_at(&self, _position: u64) -> Option<StoreError> {
        None
    }
    /// Its figures for the report (traffic, retries, fallback reads); `None` for a local
    /// file.
    fn figures(&self) -> Option<serde_json::Value> {
        None
    }
    /// What the user should hear of on opening it (a damaged cache rebuilt).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// A graph in a local `.sl` file.
pub struct LocalFile {
    path: PathBuf,
}

impl LocalFile {
    /// The graph at `path` (opened by the tiers, not here).
    pub fn new(path: &Path) -> LocalFile {
        LocalFile {
            path: path.to_path_buf(),
        }
    }
}

impl GraphOrigin for LocalFile {
    fn kind(&self) -> &'static str {
        "file"
    }

    fn shown(&self) -> String {
        self.path.display().to_string()
    }

    fn local_file(&self) -> &Path {
        &self.path
    }

    fn page_source(&self) -> Result<Box<dyn PageSource>> {
        Ok(Box::new(UringFile::open(&self.path)?))
    }

    fn verify_copy(&self) -> Result<VerifyCopy> {
        Ok(VerifyCopy::own(&self.path))
    }
}
