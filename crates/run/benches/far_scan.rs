//! Far reads with no kernel: scans a far graph's out-lists through the read pipeline and
//! discards them, so the read path's rate can be told apart from a kernel's compute on
//! the same cores. Prints, per pass, the bytes the cluster sent, the time and the rate.
//!
//! `cargo bench -p swapless-run --bench far_scan -- redis://HOST:PORT/NAME MEMORY
//! [PASSES] [THREADS]` (the graph pushed with `swapless far push` beforehand); MEMORY
//! bounds the plan as `run --memory` does, so the pinned prefix is what a PageRank run
//! at that budget would hold.

use std::error::Error;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use swapless_format::GraphFile;
use swapless_run::{Kernel, Placement, Quiet, open_origin};
use swapless_store::{DirectStore, EdgeDirection, EdgeStore, GraphOrigin, OriginOptions};

/// Bytes and requests the cluster has served so far, from the origin's report figures.
fn network(origin: &dyn GraphOrigin) -> (u64, u64) {
    let figures = origin.figures().unwrap_or_default();
    let figure = |name: &str| figures[name].as_u64().unwrap_or(0);
    (figure("network_bytes"), figure("network_requests"))
}

fn main() -> Result<(), Box<dyn Error>> {
    // `cargo bench` adds `--bench`; the rest are ours.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| arg != "--bench")
        .collect();
    let [url, memory, rest @ ..] = args.as_slice() else {
        return Err("usage: far_scan redis://HOST:PORT/NAME MEMORY [PASSES] [THREADS]".into());
    };
    let budget_bytes = swapless_system::parse_size(memory).ok_or("MEMORY is a size, like 200M")?;
    let passes: usize = rest.first().map_or(Ok(3), |text| text.parse())?;
    let threads: usize = rest.get(1).map_or(Ok(1), |text| text.parse())?;

    let far = open_origin(Path::new(url), &OriginOptions::default(), &Quiet)?;
    if far.kind() != "far" {
        return Err("the graph is given as redis://HOST:PORT/NAME".into());
    }
    let mut placement = Placement::new(Some(budget_bytes), None);
    placement.threads = Some(threads);
    placement.output_array = false;
    placement.place_on(&*far)?;
    let kernel = Kernel::from_name("pr").ok_or("no pr kernel")?;
    let plan = placement.plan(&GraphFile::open(far.local_file())?, kernel)?;
    let store = DirectStore::over(far.page_source()?, &plan)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let vertices = store.num_vertices() as u32;
    println!(
        "far scan of {url}: {} arcs, chunk {} KiB, {threads} thread(s)",
        store.num_arcs(),
        plan.chunk_bytes() >> 10
    );
    for pass in 1..=passes {
        let (bytes_before, requests_before) = network(&*far);
        let arcs_seen = AtomicU64::new(0);
        let start = Instant::now();
        pool.install(|| {
            store.scan_blocks(EdgeDirection::Out, 0..vertices, &|block| {
                arcs_seen.fetch_add(block.all_neighbors().len() as u64, Ordering::Relaxed);
            })
        })?;
        let seconds = start.elapsed().as_secs_f64();
        let (bytes_after, requests_after) = network(&*far);
        let bytes = bytes_after - bytes_before;
        let requests = (requests_after - requests_before).max(1);
        println!(
            "pass {pass}: {:.0} MiB from the cluster in {seconds:.3} s = {:.0} MiB/s, \
             mean request {} bytes ({} arcs seen)",
            bytes as f64 / f64::from(1 << 20),
            bytes as f64 / f64::from(1 << 20) / seconds,
            bytes / requests,
            arcs_seen.into_inner()
        );
    }
    Ok(())
}
