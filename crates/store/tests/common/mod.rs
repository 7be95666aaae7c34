//! Set-up shared by the store's integration tests.

use std::path::{Path, PathBuf};

use swapless_build::generators::{SyntheticKind, SyntheticSource};
use swapless_build::{BuildOptions, build_graph};
use swapless_store::budget::{PlanRequest, Tier};

/// Builds a kron graph of `scale` (degree 16, undirected, with weights if `weighted`) in `dir`.
pub fn kron_graph(dir: &Path, scale: u32, weighted: bool) -> PathBuf {
    let path = dir.join("kron.sl");
    let mut source =
        SyntheticSource::new(SyntheticKind::Kronecker, scale, 16, weighted, 3).unwrap();
    build_graph(&mut source, &path, &BuildOptions::with_memory(64 << 20)).unwrap();
    path
}

/// A direct-tier plan request for out-lists alone, no kernel arrays and no page cache.
pub fn direct_request(budget_bytes: u64, chunk_bytes: u64, queue_depth: usize) -> PlanRequest {
    PlanRequest {
        thread_bytes: 0,
        threads: 2,
        network_bytes: 0,
        kernel: "test".to_string(),
        property_bytes: 0,
        optional_property_bytes: 0,
        output_bytes: 0,
        verification_bytes: None,
        out_lists: true,
        in_lists: false,
        weights: true,
        out_heads: false,
        gather_cache_fraction: Some(0.0),
        searches: false,
        budget_bytes: Some(budget_bytes),
        default_budget_bytes: budget_bytes,
        tier: Some(Tier::Direct),
        offset_form: None,
        chunk_bytes: Some(chunk_bytes),
        queue_depth,
    }
}
