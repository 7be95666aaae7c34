//! A far graph as the origin of a run: its lists fetched from the cluster through the
//! direct tier's pipeline, its vertex sections in a local cache, its traffic in the
//! report.

use std::path::Path;

use swapless_store::sources::PageSource;
use swapless_store::{GraphOrigin, OriginOptions, Result, StoreError, Tier, VerifyCopy};

use crate::{FarAddress, FarGraph, is_far_address};

/// The far graph `name` names, opened for a run; `None` when `name` is not a far-memory
/// address (`redis://` or `rediss://`), for another origin to take.
pub fn open_origin(name: &str, options: &OriginOptions) -> Option<Result<Box<dyn GraphOrigin>>> {
    if !is_far_address(name) {
        return None;
    }
    let open = || -> Result<Box<dyn GraphOrigin>> {
        let address = FarAddress::parse_graph(name)?;
        Ok(Box::new(FarOrigin {
            graph: FarGraph::open(&address, options)?,
        }))
    };
    Some(open())
}

/// A far graph, as a run's origin.
pub struct FarOrigin {
    graph: FarGraph,
}

impl FarOrigin {
    /// The far graph.
    pub fn graph(&self) -> &FarGraph {
        &self.graph
    }
}

impl GraphOrigin for FarOrigin {
    fn kind(&self) -> &'static str {
        "far"
    }

    fn shown(&self) -> String {
        self.graph.display()
    }

    fn local_file(&self) -> &Path {
        self.graph.path()
    }

    /// Its lists are on the cluster alone: the pipeline fetches them.
    fn tiers(&self) -> &'static [Tier] {
        &[Tier::Direct]
    }

    fn held_bytes(&self) -> u64 {
        self.graph.buffer_bytes()
    }

    fn page_source(&self) -> Result<Box<dyn PageSource>> {
        Ok(self.graph.source())
    }

    /// The weights are not in the cache: the manifest's word that one is negative
    /// refuses the run early. Its word that none is decides nothing: the kernel refuses
    /// a negative weight it meets, in the checked pages it reads.
    fn negative_weights(&self) -> Option<bool> {
        Some(!self.graph.manifest().non_negative_weights)
    }

    /// The verifier reads a file: the whole graph is fetched into the cache folder,
    /// each page checked, and removed once verified.
    fn verify_copy(&self) -> Result<VerifyCopy> {
        self.graph.fetch_whole()
    }

    /// A page that fails its checksum came from the cluster, or from a damaged cache.
    fn damaged_at(&self, position: u64) -> Option<StoreError> {
        Some(self.graph.damaged_at(position).into())
    }

    fn figures(&self) -> Option<serde_json::Value> {
        let far = &self.graph;
        let nodes = far.traffic();
        let (fallback_reads, fallback_bytes) = far.fallback_reads();
        Some(serde_json::json!({
            "network_bytes": nodes.iter().map(|node| node.bytes).sum::<u64>(),
            "network_requests": nodes.iter().map(|node| node.requests).sum::<u64>(),
            "nodes": nodes.iter().map(|node| serde_json::json!({
                "node": node.node,
                "bytes": node.bytes,
                "requests": node.requests,
                "mean_in_flight": node.mean_in_flight,
                "max_in_flight": node.max_in_flight,
            })).collect::<Vec<_>>(),
            "retries": far.retries(),
            "fallback_reads": fallback_reads,
            "fallback_bytes": fallback_bytes,
            "fallback_reason": far.fallback_reason(),
            "network_wait_seconds": far.wait_seconds(),
            "chunk_bytes": far.manifest().chunk_bytes,
            "cache_rebuilt": far.cache_rebuilt(),
        }))
    }

    fn notes(&self) -> Vec<String> {
        self.graph
            .cache_rebuilt()
            .map(|detail| {
                format!(
                    "the local cache {} of {} was damaged ({detail}); rebuilt it from far memory",
                    self.graph.path().display(),
                    self.graph.display()
                )
            })
            .into_iter()
            .collect()
    }
}
