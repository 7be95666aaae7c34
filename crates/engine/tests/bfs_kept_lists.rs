//! After its first bottom-up scan, BFS keeps the lists of the vertices the scan left
//! unvisited and does not read them again: on a power-law graph those are many short
//! lists spread over the whole section, which a gather (or a second scan) would read
//! page by page. Its bottom-up scans say they need no list of a visited vertex, and
//! the search stays right when every such list comes empty.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use swapless_build::generators::{SyntheticKind, SyntheticSource};
use swapless_build::{BuildOptions, build_graph};
use swapless_engine::kernels::bfs;
use swapless_engine::pick_source;
use swapless_format::GraphFile;
use swapless_store::{
    DramStore, EdgeDirection, EdgeStore, ListBlock, ListsNeeded, Result, Visit, VisitBlock,
};

/// A store that counts the in-lists a kernel scans and gathers (the bottom-up steps'
/// reads), and in a partial scan hands over every list the kernel does not need empty.
struct Counting<'a> {
    inner: &'a DramStore,
    in_scans: AtomicU64,
    in_gathered: AtomicU64,
    /// Lists with edges handed over empty because the kernel said it did not need them.
    emptied: AtomicU64,
}

impl EdgeStore for Counting<'_> {
    swapless_store::describe_as!(inner);

    fn scan_blocks(
        &self,
        direction: EdgeDirection,
        range: Range<u32>,
        visit_block: &VisitBlock,
    ) -> Result<()> {
        if direction == EdgeDirection::In {
            self.in_scans.fetch_add(1, Ordering::Relaxed);
        }
        self.inner.scan_blocks(direction, range, visit_block)
    }
    fn scan_partial(
        &self,
        direction: EdgeDirection,
        range: Range<u32>,
        needed: ListsNeeded,
        visit_block: &VisitBlock,
    ) -> Result<()> {
        if direction == EdgeDirection::In {
            self.in_scans.fetch_add(1, Ordering::Relaxed);
        }
        let ListsNeeded::AllBut(unneeded) = needed else {
            return self
                .inner
                .scan_partial(direction, range, needed, visit_block);
        };
        self.inner.scan_blocks(direction, range, &|block| {
            for (vertex, list) in block.iter() {
                let skipped = unneeded(vertex) && !list.neighbors.is_empty();
                let entries = if skipped { &[][..] } else { list.neighbors };
                self.emptied.fetch_add(skipped as u64, Ordering::Relaxed);
                visit_block(ListBlock::new(
                    vertex,
                    &[0, entries.len() as u64],
                    0,
                    entries,
                    None,
                ));
            }
        })
    }
    fn gather(&self, direction: EdgeDirection, vertices: &[u32], visit: &Visit) -> Result<()> {
        if direction == EdgeDirection::In {
            self.in_gathered
                .fetch_add(vertices.len() as u64, Ordering::Relaxed);
        }
        self.inner.gather(direction, vertices, visit)
    }
}

#[test]
fn bfs_reads_the_lists_a_bottom_up_scan_left_unvisited_only_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kron.sl");
    let mut source = SyntheticSource::new(SyntheticKind::Kronecker, 16, 16, false, 5).unwrap();
    build_graph(&mut source, &path, &BuildOptions::with_memory(64 << 20)).unwrap();
    let graph = GraphFile::open(&path).unwrap();
    let store = DramStore::load(&path, true, true).unwrap();
    let source = pick_source(&store, 0).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let counting = Counting {
        inner: &store,
        in_scans: AtomicU64::new(0),
        in_gathered: AtomicU64::new(0),
        emptied: AtomicU64::new(0),
    };
    let result = pool.install(|| bfs::bfs(&counting, source).unwrap());
    bfs::verify(&graph, source, &result.parents).unwrap();
    let scans = counting.in_scans.load(Ordering::Relaxed);
    let gathered = counting.in_gathered.load(Ordering::Relaxed);
    // Some vertices stay unreached, so a later bottom-up step had lists to look at.
    let with_edges = (0..store.num_vertices() as u32)
        .filter(|&vertex| store.degree(EdgeDirection::In, vertex) > 0)
        .count() as u64;
    let unreached = with_edges + 1 - result.reached.min(with_edges + 1);
    eprintln!("in-scans {scans}, in-lists gathered {gathered}, unreached with edges {unreached}");
    assert_eq!(scans, 1, "a second bottom-up scan read every list again");
    // The hubs reached before the scan, at least; the search was verified without them.
    let emptied = counting.emptied.load(Ordering::Relaxed);
    assert!(emptied > 0, "the scan needed the list of every vertex");
    assert!(
        unreached > 0,
        "every vertex with edges was reached: the test proves nothing"
    );
    // The unvisited lists (short ones: kron's stragglers) were kept, not gathered
    // (without kept lists this search gathers 871).
    assert_eq!(
        gathered, 0,
        "{gathered} lists gathered again after the scan ({unreached} vertices unreached)"
    );
}
