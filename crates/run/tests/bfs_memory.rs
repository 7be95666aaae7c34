//! BFS holds no more than the plan counts for it (`Kernel::memory`), on a graph
//! whose frontiers are far longer than its vertex lists may be: every allocation made
//! while it runs is counted by this test binary's allocator.

mod common;

use swapless_build::generators::{SyntheticKind, SyntheticSource};
use swapless_build::{BuildOptions, build_graph};
use swapless_engine::kernel::{GraphShape, Kernel};
use swapless_engine::kernels::bfs;
use swapless_engine::pick_source;
use swapless_store::{DramStore, EdgeStore};

#[global_allocator]
static ALLOCATOR: common::Counting = common::Counting;

#[test]
fn bfs_holds_no_more_than_the_plan_counts() {
    let dir = tempfile::tempdir().unwrap();
    // Uniform random at a low degree: bottom-up steps leave many vertices unvisited,
    // the list a search keeps of them would be a large share of the vertices.
    let path = dir.path().join("urand.sl");
    let mut source = SyntheticSource::new(SyntheticKind::UniformRandom, 16, 3, false, 7).unwrap();
    build_graph(&mut source, &path, &BuildOptions::with_memory(64 << 20)).unwrap();
    let store = DramStore::load(&path, true, true).unwrap();
    let vertices = store.num_vertices() as u64;
    let source = pick_source(&store, 0).unwrap();
    // Two threads, as the figures run; their pool is made before counting starts.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| bfs::bfs(&store, source).unwrap());
    // Thread-local buffers, the pool's queues and the like: small and fixed.
    let slack = 64 << 10;
    // bfs() keeps the lists its scans leave unvisited: the plan's optional bytes.
    let memory = Kernel::memory(&bfs::Bfs, GraphShape::of_store(&store));
    let planned = (memory.property_bytes() + memory.optional_bytes) as usize;
    let (taken, _) = common::heap_taken_by(|| {
        pool.install(|| {
            let result = bfs::bfs(&store, source).unwrap();
            assert!(
                result.reached > vertices / 4,
                "the test needs long frontiers"
            );
        })
    });
    eprintln!("bfs took {taken} bytes of heap, the plan counts {planned}");
    assert!(
        taken <= planned + slack,
        "bfs took {taken} bytes of heap; the plan counts {planned}"
    );
    // The bound is what keeps it there: with unbounded lists the same search takes more
    // (its widest frontier alone is a list of a large share of the vertices).
    let (unbounded, _) = common::heap_taken_by(|| {
        pool.install(|| {
            bfs::bfs_with_list_limit(&store, source, vertices as usize, true).unwrap();
        })
    });
    eprintln!("with unbounded lists it took {unbounded}");
    assert!(
        unbounded > planned + slack,
        "unbounded lists took {unbounded} bytes, within the plan's {planned}: the test proves nothing"
    );
}
