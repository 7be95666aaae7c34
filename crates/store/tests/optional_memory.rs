//! A disk tier holds a kernel's optional memory (bfs's kept lists) from half of it up to
//! all of it, as the room beyond the least budget allows, and none below half; dram
//! holds all of it.

mod common;

use swapless_format::GraphFile;
use swapless_store::OffsetForm;
use swapless_store::budget::{PlanRequest, Tier, plan};

#[test]
fn a_disk_tier_grants_optional_memory_from_half_of_it_up_to_all_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let graph = GraphFile::open(&common::kron_graph(dir.path(), 12, false)).unwrap();
    let optional = 4u64 << 20;
    let request = |budget: u64, tier: Tier| PlanRequest {
        optional_property_bytes: optional,
        // One offset form at every budget, so that the least budget stays the same.
        offset_form: Some(OffsetForm::Compressed),
        tier: Some(tier),
        ..common::direct_request(budget, 64 << 10, 8)
    };
    let least = plan(&graph, &request(1 << 30, Tier::Direct))
        .unwrap()
        .minimum_bytes();
    let half = optional / 2;
    for (room, granted) in [
        (0, 0),
        (half - 1, 0),
        (half, half),
        (3 * optional / 4, 3 * optional / 4),
        (optional, optional),
        (2 * optional, optional),
    ] {
        for tier in [Tier::Direct, Tier::Mmap] {
            let planned = plan(&graph, &request(least + room, tier)).unwrap();
            assert_eq!(
                planned.optional_property_bytes(),
                granted,
                "{tier:?}, room {room}"
            );
            assert_eq!(planned.optional_property_held(), granted > 0);
        }
    }
    let dram = plan(&graph, &request(1 << 30, Tier::Dram)).unwrap();
    assert_eq!(dram.optional_property_bytes(), optional);
}
