//! A kernel that panics while the direct tier streams reads to it: the panic reaches
//! the caller, instead of the I/O thread waiting forever for buffers the stopped
//! compute threads will never give back.

mod common;

use std::sync::mpsc;
use std::time::Duration;

use swapless_format::GraphFile;
use swapless_store::budget::plan;
use swapless_store::{DirectStore, EdgeDirection, EdgeStore};

#[test]
fn a_kernel_that_panics_during_a_direct_scan_stops_the_scan() {
    let dir = tempfile::tempdir().unwrap();
    let path = common::kron_graph(dir.path(), 14, false);
    let graph = GraphFile::open(&path).unwrap();
    let request = |budget_bytes: u64| common::direct_request(budget_bytes, 4096, 8);
    // The least budget: a few slots, and nearly every list read from the file.
    let least = match plan(&graph, &request(0)) {
        Ok(plan) => plan.minimum_bytes(),
        Err(_) => {
            let large = plan(&graph, &request(1 << 30)).unwrap();
            large.minimum_bytes()
        }
    };
    let placement = plan(&graph, &request(least)).unwrap();
    let lists = graph.header().num_arcs * 4;
    assert!(
        placement.cached_list_bytes().0 < lists / 2,
        "the test needs reads: {} of {lists} list bytes are held",
        placement.cached_list_bytes().0
    );
    let (finished, result) = mpsc::channel();
    std::thread::spawn(move || {
        let store = DirectStore::open(&path, &placement).unwrap();
        let vertices = store.num_vertices() as u32;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                store.scan_blocks(EdgeDirection::Out, 0..vertices, &|block| {
                    if !block.all_neighbors().is_empty() {
                        panic!("the kernel failed");
                    }
                })
            })
        }));
        let _ = finished.send(outcome.is_err());
    });
    let panicked = result
        .recv_timeout(Duration::from_secs(120))
        .expect("the scan did not return within two minutes after its kernel panicked");
    assert!(panicked, "the kernel's panic did not reach the caller");
}
