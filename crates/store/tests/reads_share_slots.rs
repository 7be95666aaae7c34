//! Short reads share the direct tier's I/O slots: with room for fewer slots than the
//! queue depth, a gather of scattered short lists still keeps more reads in flight than
//! there are slots, and the plan counts the split-list sides of every read it lets hold
//! room.

mod common;

use swapless_format::GraphFile;
use swapless_store::budget::{Plan, plan};
use swapless_store::{DirectStore, EdgeDirection, EdgeStore};

const PAGE: u64 = 4096;
const QUEUE_DEPTH: usize = 64;

/// Whether the plan's I/O buffers hold its slots and two split-list sides (a page each)
/// for every read it lets hold room.
fn counts_every_held_read(placement: &Plan) -> bool {
    placement.io_buffer_bytes()
        >= placement.slots().regular_slots * placement.slots().slot_bytes
            + placement.slots().reads_held * 2 * PAGE
}

#[test]
fn short_reads_fill_the_queue_with_fewer_slots_than_its_depth() {
    let dir = tempfile::tempdir().unwrap();
    let path = common::kron_graph(dir.path(), 14, false);
    let graph = GraphFile::open(&path).unwrap();
    let request = |budget_bytes: u64| common::direct_request(budget_bytes, 16 << 10, QUEUE_DEPTH);
    let least = plan(&graph, &request(1 << 30)).unwrap().minimum_bytes();

    // At the least budget there is no room for more sides: as many reads as slots.
    let tight = plan(&graph, &request(least)).unwrap();
    assert_eq!(tight.slots().reads_held, tight.slots().regular_slots);
    assert!(counts_every_held_read(&tight));

    // A little more: fewer slots than the queue's depth, but room for its reads' sides.
    let placement = (0..64)
        .map(|step| plan(&graph, &request(least + step * (64 << 10))).unwrap())
        .find(|placement| placement.slots().reads_held > placement.slots().regular_slots)
        .expect("some budget above the least holds more reads than slots");
    assert_eq!(placement.slots().reads_held, QUEUE_DEPTH as u64);
    assert!(counts_every_held_read(&placement));
    let slots = placement.slots().regular_slots;

    let store = DirectStore::open(&path, &placement).unwrap();
    let offsets = store.offsets(EdgeDirection::Out);
    // Short lists far apart: one read of a page or two each.
    let scattered: Vec<u32> = (0..store.num_vertices() as u32)
        .step_by(97)
        .filter(|&vertex| (1..=64).contains(&offsets.degree(vertex as usize)))
        .collect();
    assert!(
        scattered.len() as u64 > 4 * slots,
        "the test needs many reads"
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let delivered = std::sync::atomic::AtomicU64::new(0);
    pool.install(|| {
        store.gather(EdgeDirection::Out, &scattered, &|vertex, list| {
            assert_eq!(
                list.neighbors.len(),
                offsets.degree(vertex as usize) as usize
            );
            delivered.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        })
    })
    .unwrap();
    assert_eq!(delivered.into_inner(), scattered.len() as u64);
    let most = store.io_stats().max_queue_depth;
    assert!(
        most > slots,
        "{most} reads in flight at most, with {slots} slots: short reads did not share them"
    );
}
