//! Single-source shortest paths by delta-stepping (Meyer and Sanders), with
//! per-thread bins as in GAP.
//!
//! Output: the distance per vertex (float64); +inf for unreached. Unweighted
//! graphs use weight 1 per edge. Negative weights are refused.
//!
//! Vertices wait in bins of width `delta` by tentative distance; the lowest
//! non-empty bin is relaxed (a sparse `gather`) until it stays empty, then the
//! next. Re-inserted vertices whose distance has since dropped below the current
//! bin are skipped.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use super::Reads;
use crate::kernel::{GraphShape, Kernel, KernelMemory, KernelOptions, Output, Refusal, Step};
use crate::kernels::to_original_order;
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, Result};
use thread_local::ThreadLocal;

use crate::edge_map::{edge_map, edge_map_bytes};
use crate::frontier::Bitmap;
use crate::property::{PropertyVec, prefetch, property_vec};
use rayon::prelude::*;

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: false,
    weights: true,
    out_heads: false,
};

/// What an SSSP run found.
pub struct SsspResult {
    /// Distance per vertex, internal ids; +inf for unreached.
    pub distances: Vec<f64>,
    /// Vertices reached.
    pub reached: u64,
    /// Bin passes taken.
    pub steps: u64,
    /// Whether the search ran on 4-byte integer distances (every weight met was an
    /// integer and every distance fit); the answer is the same either way.
    pub integer_distances: bool,
}

/// A type the search can hold distances in while it runs.
trait Distance: Copy + PartialOrd + Send + Sync {
    /// The atomic cell one vertex's distance lives in.
    type Cell: Send + Sync;
    /// The distance of unreached vertices.
    const UNREACHED: Self;
    /// The source's distance.
    const ZERO: Self;
    fn cell(value: Self) -> Self::Cell;
    fn load(cell: &Self::Cell) -> Self;
    /// Lowers `cell` to `value` if smaller; whether it did.
    fn fetch_min(cell: &Self::Cell, value: Self) -> bool;
    /// `self + weight`, or `None` when this type cannot hold it exactly.
    fn extend(self, weight: f32) -> Option<Self>;
    /// As the f64 the result holds (+inf for unreached).
    fn to_f64(self) -> f64;
}

/// Integer distances: exact for integer weights (GAP's int32 weights), half the size
/// of f64, so the array read at random once per edge stays in cache twice as well.
impl Distance for u32 {
    type Cell = AtomicU32;
    const UNREACHED: u32 = u32::MAX;
    const ZERO: u32 = 0;
    fn cell(value: u32) -> AtomicU32 {
        AtomicU32::new(value)
    }
    #[inline]
    fn load(cell: &AtomicU32) -> u32 {
        cell.load(Ordering::Relaxed)
    }
    #[inline]
    fn fetch_min(cell: &AtomicU32, value: u32) -> bool {
        // A plain load first: most candidates lose, and an atomic read-modify-write
        // per edge (AtomicU32::fetch_min) nearly doubled the run.
        let mut current = cell.load(Ordering::Relaxed);
        while value < current {
            match cell.compare_exchange_weak(current, value, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return true,
                Err(seen) => current = seen,
            }
        }
        false
    }
    #[inline]
    fn extend(self, weight: f32) -> Option<u32> {
        // A round trip through u32 tells integers apart without `fract` (a libm call
        // on baseline x86-64); a weight of 2^32 or more saturates to u32::MAX, which
        // no sum may reach.
        let whole = weight as u32;
        if whole as f32 != weight {
            return None;
        }
        self.checked_add(whole).filter(|&sum| sum != u32::UNREACHED)
    }
    fn to_f64(self) -> f64 {
        if self == u32::UNREACHED {
            f64::INFINITY
        } else {
            self as f64
        }
    }
}

impl Distance for f64 {
    type Cell = AtomicU64;
    const UNREACHED: f64 = f64::INFINITY;
    const ZERO: f64 = 0.0;
    fn cell(value: f64) -> AtomicU64 {
        AtomicU64::new(value.to_bits())
    }
    #[inline]
    fn load(cell: &AtomicU64) -> f64 {
        f64::from_bits(cell.load(Ordering::Relaxed))
    }
    #[inline]
    fn fetch_min(cell: &AtomicU64, value: f64) -> bool {
        let mut current = cell.load(Ordering::Relaxed);
        while value < f64::from_bits(current) {
            match cell.compare_exchange_weak(
                current,
                value.to_bits(),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(seen) => current = seen,
            }
        }
        false
    }
    #[inline]
    fn extend(self, weight: f32) -> Option<f64> {
        Some(self + weight as f64)
    }
    fn to_f64(self) -> f64 {
        self
    }
}

/// Entries of a list ahead of the relaxation whose distances are prefetched.
const PREFETCH_DISTANCE: usize = 16;

/// Bins ahead of the current one that a thread keeps as vectors.
const NEAR_BINS: u64 = 1 << 16;

/// Room for queued entries a vertex (4 bytes each: the plan counts 8 bytes a vertex for
/// the bins), past which the bins are compacted (see [`compact`]).
const QUEUED_PER_VERTEX: usize = 2;

/// One thread's queued vertices by bin.
#[derive(Default)]
struct Bins {
    /// `near[i]`: vertices queued for bin `window + i`.
    near: Vec<Vec<u32>>,
    /// (bin, vertex) queued for bins at `window + NEAR_BINS` or later.
    far: Vec<(u64, u32)>,
}

impl Bins {
    #[inline]
    fn push(&mut self, window: u64, bin: u64, vertex: u32) {
        if bin >= window + NEAR_BINS {
            self.far.push((bin, vertex));
            return;
        }
        let index = (bin - window) as usize;
        if self.near.len() <= index {
            self.near.resize_with(index + 1, Vec::new);
        }
        self.near[index].push(vertex);
    }

    /// The lowest bin at or after `from` with vertices in the window.
    fn lowest_near(&self, window: u64, from: u64) -> Option<u64> {
        let start = (from - window) as usize;
        self.near
            .iter()
            .enumerate()
            .skip(start)
            .find(|(_, vertices)| !vertices.is_empty())
            .map(|(index, _)| window + index as u64)
    }

    /// The memory these bins hold for entries, in entries (4 bytes): the vectors'
    /// capacity, not their length, since a vector keeps what it had. Not the near bins'
    /// own headers (at most 1.5 MiB a thread), which compacting cannot shrink.
    fn held_entries(&self) -> usize {
        let near: usize = self.near.iter().map(Vec::capacity).sum();
        near + self.far.capacity() * size_of::<(u64, u32)>() / 4
    }

    fn lowest_far(&self) -> Option<u64> {
        self.far.iter().map(|&(bin, _)| bin).min()
    }

    /// Moves the window to `window` (every near bin is empty) and pulls in the far
    /// vertices that now fall inside it.
    fn refill(&mut self, window: u64) {
        self.near.clear();
        let far = std::mem::take(&mut self.far);
        for (bin, vertex) in far {
            self.push(window, bin, vertex);
        }
    }
}

/// Runs delta-stepping from `source` (internal id) with bin width `delta` (> 0):
/// on integer distances when every weight met is an integer and every distance fits
/// in them, else on f64.
pub fn sssp(store: &dyn EdgeStore, source: u32, delta: f64) -> Result<SsspResult> {
    let options = KernelOptions {
        source,
        delta,
        ..KernelOptions::default()
    };
    let mut state = Sssp.start(store, &options)?;
    while Sssp.step(store, &mut state)? == Step::More {}
    Ok(Sssp.finish(state))
}

/// What a bin pass found.
enum BinPass {
    /// Another bin holds vertices.
    More,
    /// Every bin is empty: the distances are final.
    Done,
    /// A distance could not be held as `D`: the search starts again on f64.
    Inexact,
}

/// A delta-stepping search with distances held as `D`.
struct Search<D: Distance> {
    distances: PropertyVec<D::Cell>,
    delta: f64,
    inexact: AtomicBool,
    bins: ThreadLocal<RefCell<Bins>>,
    /// The vertices of the current bin, ascending.
    frontier: Vec<u32>,
    /// Bins `window..window + NEAR_BINS` are vectors; later ones wait in `far` lists,
    /// so memory follows the vertices queued, not the largest distance over delta.
    window: u64,
    bin: u64,
    steps: u64,
}

impl<D: Distance> Search<D> {
    /// The search before its first bin: the source at distance 0.
    fn new(store: &dyn EdgeStore, source: u32, delta: f64) -> Search<D> {
        let vertices = store.num_vertices();
        let mut distances: PropertyVec<D::Cell> = property_vec(vertices, || D::cell(D::UNREACHED));
        distances[source as usize] = D::cell(D::ZERO);
        Search {
            distances,
            delta,
            inexact: AtomicBool::new(false),
            bins: ThreadLocal::new(),
            frontier: vec![source],
            window: 0,
            bin: 0,
            steps: 0,
        }
    }

    /// Relaxes the current bin's vertices' edges and moves to the next non-empty bin.
    fn pass(&mut self, store: &dyn EdgeStore) -> Result<BinPass> {
        let vertices = store.num_vertices();
        let delta = self.delta;
        let (distances, inexact, bins, bin, window) = (
            &self.distances,
            &self.inexact,
            &self.bins,
            self.bin,
            self.window,
        );
        let frontier = &self.frontier;
        edge_map(store, EdgeDirection::Out, frontier, &|vertex, list| {
            let distance = D::load(&distances[vertex as usize]);
            // The same test as the frontier's (`bin_of`), not `distance < delta * bin`,
            // which rounding can make disagree with the bin a vertex was queued in.
            if bin_of(distance, delta) < bin || inexact.load(Ordering::Relaxed) {
                return;
            }
            let mut local = bins.get_or_default().borrow_mut();
            for (index, &neighbor) in list.neighbors.iter().enumerate() {
                if let Some(&ahead) = list.neighbors.get(index + PREFETCH_DISTANCE) {
                    prefetch(distances, ahead as usize);
                }
                let weight = list.weights.map_or(1.0, |weights| weights[index]);
                let Some(candidate) = distance.extend(weight) else {
                    inexact.store(true, Ordering::Relaxed);
                    return;
                };
                if D::fetch_min(&distances[neighbor as usize], candidate) {
                    local.push(window, bin_of(candidate, delta), neighbor);
                }
            }
        })?;
        if inexact.load(Ordering::Relaxed) {
            return Ok(BinPass::Inexact);
        }
        let (mut window, mut bin, mut steps) = (window, bin, self.steps);
        let mut frontier = std::mem::take(&mut self.frontier);
        let distances = &self.distances;
        let bins = &mut self.bins;
        // A bin whose entries were all stale relaxed nothing: not a step.
        steps += u64::from(!frontier.is_empty());
        let mut locals: Vec<&mut Bins> = bins.iter_mut().map(RefCell::get_mut).collect();
        // The next bin is the lowest non-empty one at or after the current bin: in the
        // window if any, else the window moves to the lowest far bin.
        let lowest_near = |locals: &[&mut Bins], from: u64| {
            locals
                .iter()
                .filter_map(|local| local.lowest_near(window, from))
                .min()
        };
        bin = match lowest_near(&locals, bin) {
            Some(next) => next,
            None => {
                let Some(lowest_far) = locals.iter().filter_map(|local| local.lowest_far()).min()
                else {
                    self.frontier = frontier;
                    self.steps = steps;
                    return Ok(BinPass::Done);
                };
                window = lowest_far;
                for local in locals.iter_mut() {
                    local.refill(window);
                }
                lowest_far
            }
        };
        frontier.clear();
        for local in locals.iter_mut() {
            if let Some(vertices_in_bin) = local.near.get_mut((bin - window) as usize) {
                // Taken, not appended: an appended bin would keep its capacity until the
                // window moves, and with delta small against the weights the window holds
                // thousands of drained bins.
                let drained = std::mem::take(vertices_in_bin);
                match frontier.is_empty() {
                    true => frontier = drained,
                    false => frontier.extend_from_slice(&drained),
                }
            }
        }
        // Entries of vertices that moved to an earlier bin since are stale, and a vertex
        // may be queued in this bin more than once: the visit would skip the stale ones
        // and repeat the others, but only after the store had read their lists.
        frontier.retain(|&vertex| bin_of(D::load(&distances[vertex as usize]), delta) == bin);
        frontier.par_sort_unstable();
        frontier.dedup();
        let held: usize = locals.iter().map(|local| local.held_entries()).sum();
        if held > QUEUED_PER_VERTEX * vertices {
            compact::<D>(&mut locals, window, distances, delta);
        }
        self.frontier = frontier;
        (self.window, self.bin, self.steps) = (window, bin, steps);
        Ok(BinPass::More)
    }

    /// The distances found, as f64, with the figures of the search.
    fn result(self) -> SsspResult {
        let Search {
            distances,
            steps,
            frontier,
            bins,
            ..
        } = self;
        // The queues go before the f64 distances are made, so the two are never held at once.
        drop(frontier);
        drop(bins);
        let distances: Vec<f64> = distances
            .par_iter()
            .map(|cell| D::load(cell).to_f64())
            .collect();
        let reached = distances.par_iter().filter(|d| d.is_finite()).count() as u64;
        SsspResult {
            distances,
            reached,
            steps,
            integer_distances: std::mem::size_of::<D>() == 4,
        }
    }
}

/// The search's state between bin passes.
pub struct SsspState(Searches);

/// The search: on integer distances until a weight or a sum cannot be one, then on f64
/// from the start.
enum Searches {
    /// Distances held as u32.
    Integer(Search<u32>, u32),
    /// Distances held as f64.
    Float(Search<f64>),
    /// Within a step, between the integer search and the f64 one: nothing held.
    Restarting,
}

/// The bin a vertex at `distance` waits in.
///
/// Bins stop at [`LAST_BIN`]: with a delta tiny against the distances (1e-18, say) the
/// quotient would pass `u64::MAX`, and the window's arithmetic above it would wrap and
/// never end. Every farther vertex shares the last bin, which is then relaxed until
/// nothing in it improves, as Bellman-Ford does: slower, never wrong.
#[inline]
fn bin_of<D: Distance>(distance: D, delta: f64) -> u64 {
    ((distance.to_f64() / delta) as u64).min(LAST_BIN)
}

/// The highest bin; far enough below `u64::MAX` that `LAST_BIN + NEAR_BINS` fits.
const LAST_BIN: u64 = 1 << 62;

/// Drops every queued entry but each vertex's first in the bin its distance now falls
/// in. The others are stale (the vertex got closer since, and its later bin would skip
/// it) or repeat it; with delta small against the weights they pile up, to several
/// entries a vertex.
fn compact<D: Distance>(locals: &mut [&mut Bins], window: u64, distances: &[D::Cell], delta: f64) {
    let kept = Bitmap::new(distances.len());
    let keep = |bin: u64, vertex: u32| {
        let first =
            bin_of(D::load(&distances[vertex as usize]), delta) == bin && !kept.contains(vertex);
        if first {
            kept.insert(vertex);
        }
        first
    };
    for local in locals.iter_mut() {
        for (index, vertices) in local.near.iter_mut().enumerate() {
            let bin = window + index as u64;
            vertices.retain(|&vertex| keep(bin, vertex));
            vertices.shrink_to_fit();
        }
        local.far.retain(|&(bin, vertex)| keep(bin, vertex));
        local.far.shrink_to_fit();
    }
}

/// Whether every weight of the graph is non-negative (delta-stepping's requirement).
pub fn weights_are_non_negative(graph: &GraphFile) -> swapless_format::Result<bool> {
    // Read in pieces rather than through the map, so the check stays within a budget.
    let mut non_negative = true;
    graph.for_each_piece(swapless_format::SectionKind::OutWeights, &mut |piece| {
        non_negative &= piece
            .chunks_exact(4)
            .all(|bytes| f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) >= 0.0);
    })?;
    Ok(non_negative)
}

/// Distances within this of each other (relative, and absolute below 1) are equal to the
/// verifier: the run and the check may add the same weights in another order.
fn tolerance(distance: f64) -> f64 {
    1e-9 * distance.max(1.0)
}

/// Checks distances as Graph500 validates a search, without one of its own where it can:
/// the source is at 0; no edge from a reached vertex would shorten its head's distance
/// (so no distance exceeds the shortest path's length, and no edge leaves the reached
/// vertices); and every other reached vertex has a tight in-edge (its tail's distance
/// plus its weight) from a strictly nearer vertex. Following those edges back from a
/// reached vertex then descends strictly, so it ends, and only at the source: each
/// distance is a path's length, so no shorter than the shortest. It reads every list once,
/// in file order, and holds a flag a vertex: the serial Dijkstra it replaces read the
/// lists in the order of the distances, which under a budget read the file many times.
/// Where the weights leave a reached vertex with no strictly nearer tight in-edge (edges
/// of weight 0, or too light to change a distance), the check cannot conclude and a
/// serial Dijkstra on the file decides (relative error 1e-9).
pub fn verify(
    graph: &GraphFile,
    source: u32,
    distances: &[f64],
) -> std::result::Result<(), String> {
    match check_without_search(graph, source, distances)? {
        true => Ok(()),
        false => verify_by_dijkstra(graph, source, distances),
    }
}

/// The checks of [`verify`] before any search: `Err` for a wrong distance, `Ok(false)`
/// when some reached vertex has no strictly nearer tight in-edge, `Ok(true)` when the
/// distances are proved.
fn check_without_search(
    graph: &GraphFile,
    source: u32,
    distances: &[f64],
) -> std::result::Result<bool, String> {
    let vertices = graph.num_vertices();
    if distances.len() != vertices {
        return Err(format!(
            "{} distances for {vertices} vertices",
            distances.len()
        ));
    }
    if let Some(vertex) = distances.iter().position(|d| d.is_nan() || *d < 0.0) {
        return Err(format!(
            "vertex {vertex} has distance {}",
            distances[vertex]
        ));
    }
    if distances[source as usize] != 0.0 {
        return Err(format!(
            "the source {source} has distance {}, not 0",
            distances[source as usize]
        ));
    }
    let mut descends = vec![false; vertices];
    descends[source as usize] = true;
    for tail in 0..vertices {
        let from = distances[tail];
        if from == f64::INFINITY {
            continue;
        }
        let weights = graph.out_weights_of(tail);
        for (index, &head) in graph.out_neighbors_of(tail).iter().enumerate() {
            let through = from + weights.map_or(1.0, |weights| weights[index] as f64);
            let distance = distances[head as usize];
            if distance > through + tolerance(through) {
                return Err(format!(
                    "vertex {head} has distance {distance} but the edge from vertex {tail} \
                     (at {from}) reaches it at {through}"
                ));
            }
            if from < distance && (through - distance).abs() <= tolerance(distance) {
                descends[head as usize] = true;
            }
        }
    }
    Ok(distances
        .iter()
        .zip(&descends)
        .all(|(distance, descends)| *descends || *distance == f64::INFINITY))
}

/// Checks distances against a serial Dijkstra on the file (relative error 1e-9).
fn verify_by_dijkstra(
    graph: &GraphFile,
    source: u32,
    distances: &[f64],
) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    let mut reference = vec![f64::INFINITY; vertices];
    reference[source as usize] = 0.0;
    // A heap that holds each vertex once and moves it up as its distance falls: a heap
    // of (distance, vertex) entries pushed at every improvement can grow with the edges.
    let mut heap = VertexHeap::new(vertices);
    heap.push_or_raise(source, &reference);
    while let Some(vertex) = heap.pop(&reference) {
        let distance = reference[vertex as usize];
        let weights = graph.out_weights_of(vertex as usize);
        for (index, &neighbor) in graph.out_neighbors_of(vertex as usize).iter().enumerate() {
            let weight = weights.map_or(1.0, |w| w[index] as f64);
            let candidate = distance + weight;
            if candidate < reference[neighbor as usize] {
                reference[neighbor as usize] = candidate;
                heap.push_or_raise(neighbor, &reference);
            }
        }
    }
    for vertex in 0..vertices {
        let (ours, expected) = (distances[vertex], reference[vertex]);
        let agree = if expected.is_finite() {
            (ours - expected).abs() <= tolerance(expected)
        } else {
            ours == expected
        };
        if !agree {
            return Err(format!(
                "vertex {vertex} has distance {ours} but Dijkstra gives {expected}"
            ));
        }
    }
    Ok(())
}

/// A binary min-heap of vertices keyed by their entry in a distance array, each vertex
/// in it at most once, for the verifier's Dijkstra.
struct VertexHeap {
    /// Vertices in heap order.
    vertices: Vec<u32>,
    /// Each vertex's index in `vertices`, or `NOT_IN_HEAP`.
    place: Vec<u32>,
}

const NOT_IN_HEAP: u32 = u32::MAX;

impl VertexHeap {
    fn new(vertices: usize) -> VertexHeap {
        VertexHeap {
            vertices: Vec::with_capacity(vertices),
            place: vec![NOT_IN_HEAP; vertices],
        }
    }

    /// Adds `vertex`, or moves it up after its distance fell.
    fn push_or_raise(&mut self, vertex: u32, distance: &[f64]) {
        let index = match self.place[vertex as usize] {
            NOT_IN_HEAP => {
                self.vertices.push(vertex);
                self.vertices.len() - 1
            }
            index => index as usize,
        };
        self.sift_up(index, distance);
    }

    /// Removes and returns the vertex with the least distance.
    fn pop(&mut self, distance: &[f64]) -> Option<u32> {
        let last = self.vertices.pop()?;
        let top = match self.vertices.first_mut() {
            Some(first) => std::mem::replace(first, last),
            None => last,
        };
        self.place[top as usize] = NOT_IN_HEAP;
        if !self.vertices.is_empty() {
            self.sift_down(0, distance);
        }
        Some(top)
    }

    fn sift_up(&mut self, mut index: usize, distance: &[f64]) {
        let vertex = self.vertices[index];
        while index > 0 {
            let parent = (index - 1) / 2;
            let above = self.vertices[parent];
            if distance[above as usize] <= distance[vertex as usize] {
                break;
            }
            self.vertices[index] = above;
            self.place[above as usize] = index as u32;
            index = parent;
        }
        self.vertices[index] = vertex;
        self.place[vertex as usize] = index as u32;
    }

    fn sift_down(&mut self, mut index: usize, distance: &[f64]) {
        let vertex = self.vertices[index];
        let length = self.vertices.len();
        loop {
            let left = 2 * index + 1;
            if left >= length {
                break;
            }
            let right = left + 1;
            let child = if right < length
                && distance[self.vertices[right] as usize] < distance[self.vertices[left] as usize]
            {
                right
            } else {
                left
            };
            let below = self.vertices[child];
            if distance[vertex as usize] <= distance[below as usize] {
                break;
            }
            self.vertices[index] = below;
            self.place[below as usize] = index as u32;
            index = child;
        }
        self.vertices[index] = vertex;
        self.place[vertex as usize] = index as u32;
    }
}

/// SSSP as the runner drives it.
pub struct Sssp;

impl Kernel for Sssp {
    type State = SsspState;
    type Result = SsspResult;

    fn name(&self) -> &'static str {
        "sssp"
    }
    fn about(&self) -> &'static str {
        "Single-source shortest paths (delta-stepping): distance per vertex"
    }
    fn reads(&self) -> Reads {
        READS
    }
    fn takes_source(&self) -> bool {
        true
    }
    fn searches(&self) -> bool {
        true
    }
    fn memory(&self, shape: GraphShape) -> KernelMemory {
        let vertices = shape.vertices;
        KernelMemory {
            // Distances (4 as integers, 8 after a restart on f64; one slot serves both).
            hot_arrays: vec![8 * vertices],
            // The frontier and its sorted copy (8) and bins (8), per vertex, and what
            // edge_map's scans hold.
            working_bytes: 16 * vertices + edge_map_bytes(shape.arcs),
            // The verifier's reference distances and heap.
            verifier_bytes: 16 * vertices,
            result_bytes_per_vertex: 8,
            output_bytes_per_vertex: 8,
            ..KernelMemory::default()
        }
    }
    fn refusal(&self, graph: &GraphFile) -> swapless_format::Result<Option<Refusal>> {
        Ok((!weights_are_non_negative(graph)?).then_some(Refusal::NegativeWeights))
    }
    fn start(&self, store: &dyn EdgeStore, options: &KernelOptions) -> Result<SsspState> {
        let search = Search::new(store, options.source, options.delta);
        Ok(SsspState(Searches::Integer(search, options.source)))
    }
    /// One bin pass; a distance that integers cannot hold starts the search again on f64.
    fn step(&self, store: &dyn EdgeStore, state: &mut SsspState) -> Result<Step> {
        let state = &mut state.0;
        let pass = match state {
            Searches::Integer(search, _) => search.pass(store)?,
            Searches::Float(search) => search.pass(store)?,
            Searches::Restarting => unreachable!("a step never ends between two searches"),
        };
        match pass {
            BinPass::More => Ok(Step::More),
            BinPass::Done => Ok(Step::Done),
            BinPass::Inexact => {
                let Searches::Integer(search, source) = state else {
                    unreachable!("f64 distances hold every sum")
                };
                let (source, delta) = (*source, search.delta);
                // The integer distances go before the f64 ones are made: one slot
                // serves both.
                *state = Searches::Restarting;
                *state = Searches::Float(Search::new(store, source, delta));
                Ok(Step::More)
            }
        }
    }
    fn finish(&self, state: SsspState) -> SsspResult {
        match state.0 {
            Searches::Integer(search, _) => search.result(),
            Searches::Float(search) => search.result(),
            Searches::Restarting => unreachable!("a step never ends between two searches"),
        }
    }
    fn summary(&self, result: &SsspResult, _: &KernelOptions, _: &dyn Fn(u32) -> u64) -> Value {
        json!({
            "reached": result.reached,
            "steps": result.steps,
            "integer_distances": result.integer_distances,
        })
    }
    fn verify(
        &self,
        graph: &GraphFile,
        options: &KernelOptions,
        result: &SsspResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        verify(graph, options.source, &result.distances)
    }
    fn output(&self, result: SsspResult, permutation: Option<&[u32]>) -> Output {
        Output::Float64(to_original_order(&result.distances, permutation, |&d| d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use swapless_build::importers::ImportOptions;

    /// A directed, weighted graph from `text` (lines `tail head weight`), kept in `dir`.
    fn weighted_graph(dir: &tempfile::TempDir, text: &str) -> GraphFile {
        let options = ImportOptions {
            undirected: false,
            weighted: true,
        };
        super::super::text_graph(dir, text, options)
    }

    #[test]
    fn the_check_without_search_proves_right_distances_and_refuses_wrong_ones() {
        let dir = tempfile::tempdir().unwrap();
        // 0 -> 1 -> 2 is shorter than 0 -> 2; 3 reaches 2 but is not reached; 4 is isolated
        // but for its edge to 3.
        let graph = weighted_graph(&dir, "0 1 1.5\n1 2 2\n0 2 4\n3 2 1\n4 3 1\n");
        let inf = f64::INFINITY;
        let right = [0.0, 1.5, 3.5, inf, inf];
        assert_eq!(check_without_search(&graph, 0, &right), Ok(true));
        assert_eq!(verify(&graph, 0, &right), Ok(()));
        // Too long: an edge shortens it.
        let long = [0.0, 1.5, 4.0, inf, inf];
        let error = check_without_search(&graph, 0, &long).unwrap_err();
        assert!(error.contains("vertex 2 has distance 4"), "{error}");
        // Unreached although an edge reaches it.
        assert!(check_without_search(&graph, 0, &[0.0, 1.5, inf, inf, inf]).is_err());
        // Too short, or reached although nothing reaches it: no path has that length, so
        // the check cannot prove it, and Dijkstra refuses it.
        for wrong in [[0.0, 1.5, 3.0, inf, inf], [0.0, 1.5, 3.5, 3.0, inf]] {
            assert_eq!(check_without_search(&graph, 0, &wrong), Ok(false));
            assert!(verify(&graph, 0, &wrong).is_err());
        }
        // Two unreached vertices that would vouch for each other: each has a tight
        // in-edge, but not from a strictly nearer vertex.
        let graph = weighted_graph(&dir, "0 1 1\n2 3 0\n3 2 0\n");
        let wrong = [0.0, 1.0, 5.0, 5.0];
        assert_eq!(check_without_search(&graph, 0, &wrong), Ok(false));
        assert!(verify(&graph, 0, &wrong).is_err());
        assert_eq!(verify(&graph, 0, &[0.0, 1.0, inf, inf]), Ok(()));
        // Edges of weight 0 on a shortest path: only Dijkstra can say, and agrees.
        let graph = weighted_graph(&dir, "0 1 0\n1 2 2\n");
        let right = [0.0, 0.0, 2.0];
        assert_eq!(check_without_search(&graph, 0, &right), Ok(false));
        assert_eq!(verify(&graph, 0, &right), Ok(()));
        // The source elsewhere than 0, or a distance that is no number.
        assert!(verify(&graph, 0, &[1.0, 1.0, 3.0]).is_err());
        assert!(verify(&graph, 0, &[0.0, f64::NAN, 2.0]).is_err());
    }

    #[test]
    fn the_verifiers_heap_pops_by_distance_after_raises() {
        let mut distance: Vec<f64> = (0..200).map(|v| ((v * 7919) % 211) as f64).collect();
        let mut heap = VertexHeap::new(distance.len());
        for vertex in 0..200 {
            heap.push_or_raise(vertex, &distance);
        }
        // Lower some distances after the pushes, as relaxations do.
        for vertex in (0..200).step_by(3) {
            distance[vertex] -= 100.5;
            heap.push_or_raise(vertex as u32, &distance);
        }
        let mut popped = Vec::new();
        while let Some(vertex) = heap.pop(&distance) {
            popped.push(vertex);
        }
        assert_eq!(popped.len(), 200, "each vertex once");
        assert!(
            popped
                .windows(2)
                .all(|pair| distance[pair[0] as usize] <= distance[pair[1] as usize])
        );
    }

    #[test]
    fn compacting_keeps_each_vertex_once_in_the_bin_of_its_distance() {
        // Vertex 0 at distance 3, 1 at 5, 2 at 9; delta 2, so bins 1, 2 and 4.
        let distances: Vec<AtomicU32> = [3, 5, 9].into_iter().map(AtomicU32::new).collect();
        let mut first = Bins::default();
        let mut second = Bins::default();
        for (bin, vertex) in [(1, 0), (3, 0), (2, 1), (2, 1), (4, 2), (6, 1)] {
            first.push(0, bin, vertex);
        }
        // Another thread queued vertex 1 in its bin too, and 2 beyond the window.
        second.push(0, 2, 1);
        second.push(0, NEAR_BINS + 5, 2);
        compact::<u32>(&mut [&mut first, &mut second], 0, &distances, 2.0);
        let queued = |bins: &Bins| {
            let mut entries: Vec<(u64, u32)> = bins
                .near
                .iter()
                .enumerate()
                .flat_map(|(bin, vertices)| vertices.iter().map(move |&v| (bin as u64, v)))
                .chain(bins.far.iter().copied())
                .collect();
            entries.sort_unstable();
            entries
        };
        assert_eq!(queued(&first), vec![(1, 0), (2, 1), (4, 2)]);
        assert!(queued(&second).is_empty());
        assert_eq!(first.held_entries(), 3);
    }
}
