//! Every kernel's vertex arrays come from the memory reserved before the graph was
//! loaded: the arrays it declares are exactly the ones it makes, and the plan counts
//! them; two runs at once in one process each keep their own reservation and figures.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

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
    // edge data, made from the heap: 4 bytes per edge between distinct vertices (tc's,
    // the per-vertex triangles', clustering's and the k-truss's; a directed graph's clustering also
    // lists the pairs linked both ways).
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
        // By weight, clustering's lists hold each entry's weight too (4 bytes, one way
        // on this undirected graph).
        let expected_unreserved = match kernel.name() {
            "tc" | "triangles" | "clustering" | "ktruss" => oriented_list_bytes,
            "wclustering" => 2 * oriented_list_bytes,
            _ => 0,
        };
        assert_eq!(
            report["property_unreserved_bytes"],
            expected_unreserved,
            "{} made arrays it did not declare",
            kernel.name()
        );
    }
}

/// Waits, at the end of its run's first trial, until every run has got that far (or a
/// minute has passed), so that the runs hold their reservations at the same time.
struct Rendezvous<'a> {
    arrived: &'a AtomicUsize,
    runs: usize,
    waited: AtomicBool,
}

impl swapless_run::Progress for Rendezvous<'_> {
    fn trial_done(&self, _bytes_read: u64) {
        if self.waited.swap(true, Ordering::Relaxed) {
            return;
        }
        self.arrived.fetch_add(1, Ordering::Relaxed);
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.arrived.load(Ordering::Relaxed) < self.runs && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

#[test]
fn two_runs_at_once_in_one_process_each_keep_their_own_reservation() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("a.sl"), dir.path().join("b.sl"));
    swapless_build::generators::write_kronecker(&first, 12, 8, false, 1).unwrap();
    swapless_build::generators::write_kronecker(&second, 13, 8, true, 2).unwrap();
    let runs = [
        (first.as_path(), Kernel::from_name("pr").unwrap()),
        (second.as_path(), Kernel::from_name("cc").unwrap()),
    ];
    // Two trials: the second makes every array again while the other run holds its
    // reservation.
    let options = RunOptions {
        threads: Some(2),
        trials: 2,
        ..RunOptions::default()
    };
    let arrived = AtomicUsize::new(0);
    let together: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = runs
            .iter()
            .map(|&(path, kernel)| {
                let (options, arrived) = (&options, &arrived);
                scope.spawn(move || {
                    let rendezvous = Rendezvous {
                        arrived,
                        runs: runs.len(),
                        waited: AtomicBool::new(false),
                    };
                    run(path, kernel, options, &rendezvous).unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(arrived.load(Ordering::Relaxed), runs.len());
    for (&(path, kernel), output) in runs.iter().zip(together) {
        let graph = GraphFile::open(path).unwrap();
        let declared: u64 = kernel
            .contract()
            .memory(GraphShape::of(&graph))
            .hot_arrays
            .iter()
            .map(|bytes| bytes.next_multiple_of(4096))
            .sum();
        let report = output.report.to_json();
        assert_eq!(
            report["property_reserved_bytes"],
            declared,
            "{}",
            kernel.name()
        );
        assert_eq!(report["property_unreserved_bytes"], 0, "{}", kernel.name());
        // The answer is the one the same run gives alone.
        let alone = run(path, kernel, &options, &Silent).unwrap();
        assert_eq!(
            format!("{:?}", output.array),
            format!("{:?}", alone.array),
            "{}",
            kernel.name()
        );
        assert_eq!(
            report["property_reserved_bytes"],
            alone.report.to_json()["property_reserved_bytes"]
        );
    }
}
