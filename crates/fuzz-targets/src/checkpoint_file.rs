//! A run's checkpoint file, as `run --checkpoint DIR --resume` finds it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use swapless_run::checkpoint::{CheckpointEvery, CheckpointOptions};
use swapless_run::{Kernel, Placement, RunOptions};
use swapless_store::Tier;

use crate::{BUDGET_BYTES, scratch, seed_graph};

/// Steps between checkpoints: more than any run here takes, so that none is written.
const NEVER: u64 = 1 << 40;

/// Bytes as a checkpoint's contents, with its whole-file checksum then made right: a
/// folder holding them (resealed, and raw as a newer file, which its checks should
/// pass over) is resumed by every kernel on the graph the seeds were written for. Each
/// run must refuse the folder or resume and end in an answer or an error.
pub fn checkpoint_file(data: &[u8]) {
    let mut sealed = data.to_vec();
    sealed.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(data).to_le_bytes());
    let folder = scratch().join("checkpoints");
    for kernel in Kernel::all() {
        // A run that ends removes its checkpoints: each kernel finds the folder afresh.
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(&folder).expect("a checkpoint folder");
        std::fs::write(folder.join("step-0000000003.slck"), &sealed).expect("it is written");
        std::fs::write(folder.join("step-0000000009.slck"), data).expect("it is written");
        let options = RunOptions {
            placement: Placement::new(Some(BUDGET_BYTES), Some(Tier::Dram)),
            threads: Some(1),
            checkpoint: Some(CheckpointOptions {
                folder: folder.clone(),
                every: CheckpointEvery::Steps(NEVER),
                resume: true,
            }),
            ..RunOptions::default()
        };
        let _ = swapless_run::run(checkpointed_graph(), kernel, &options, &swapless_run::Quiet);
    }
}

/// The graph the seeds' checkpoints are of (the forged-file target's, a small directed
/// weighted graph), written once per process.
fn checkpointed_graph() -> &'static Path {
    static GRAPH: OnceLock<PathBuf> = OnceLock::new();
    GRAPH.get_or_init(|| {
        let path = scratch().join("checkpointed.sl");
        std::fs::write(&path, seed_graph()).expect("the graph is written");
        path
    })
}
