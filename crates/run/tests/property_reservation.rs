//! Every kernel's vertex arrays come from the memory reserved before the graph was
//! loaded: the arrays it declares are exactly the ones it makes, and the plan counts
//! them. One test, in its own process, because the reservation is process-wide.

use swapless_engine::kernel::GraphShape;
use swapless_format::GraphFile;
use swapless_run::{Kernel, RunOptions, run};

struct Silent;
impl swapless_run::Progress for Silent {}

#[test]
fn every_kernel_makes_its_declared_arrays_from_the_reservation() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kron.sl");
    swapless_build::generators::write_kronecker(&path, 12, 8, true, 3).unwrap();
    let graph = GraphFile::open(&path).unwrap();
    // Triangle counting's oriented lists (each edge once, toward the higher rank) are
    // edge data, made from the heap: 4 bytes per edge between distinct vertices (tc's
    // and the per-vertex triangles').
    let oriented_list_bytes: u64 = (0..graph.num_vertices())
        .map(|v| {
            let list = graph.out_neighbors_of(v);
            4 * list.iter().filter(|&&w| w as usize > v).count() as u64
        })
        .sum();
    for kernel in Kernel::all() {
        let arrays = kernel.contract().memory(GraphShape::of(&graph)).hot_arrays;
        let mut options = RunOptions {
            threads: Some(2),
            ..RunOptions::default()
        };
        options.placement.verify = true;
        let output = run(&path, kernel, &options, &Silent).unwrap();
        let report = &output.report.to_json();
        let reserved: u64 = arrays
            .iter()
            .map(|bytes| bytes.next_multiple_of(4096))
            .sum();
        assert_eq!(
            report["property_reserved_bytes"],
            reserved,
            "{}",
            kernel.name()
        );
        let expected_unreserved = if matches!(kernel.name(), "tc" | "triangles") {
            oriented_list_bytes
        } else {
            0
        };
        assert_eq!(
            report["property_unreserved_bytes"],
            expected_unreserved,
            "{} made arrays it did not declare",
            kernel.name()
        );
    }
}
