//! Delta-stepping itself: distances held as integers or f64, per-thread bins with a
//! window of near bins, and one bin pass at a time over the frontier's lists.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;
use swapless_store::{EdgeDirection, EdgeStore, Result};
use thread_local::ThreadLocal;

use super::SsspResult;
use crate::edge_map::edge_map;
use crate::frontier::Bitmap;
use crate::property::{PropertyArrays, PropertyVec, prefetch, property_vec};
use crate::saved_state::{Restore, StateError, StateReader, StateWriter};

/// A type the search can hold distances in while it runs.
pub(super) trait Distance: Copy + PartialOrd + Send + Sync {
    /// The atomic cell one vertex's distance lives in.
    type Cell: Send + Sync + Restore;
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

/// What a bin pass found.
pub(super) enum BinPass {
    /// Another bin holds vertices.
    More,
    /// Every bin is empty: the distances are final.
    Done,
    /// A distance could not be held as `D`: the search starts again on f64.
    Inexact,
    /// A list held a negative weight (or NaN), which delta-stepping cannot handle.
    NegativeWeight,
}

/// A delta-stepping search with distances held as `D`.
pub(super) struct Search<D: Distance> {
    distances: PropertyVec<D::Cell>,
    /// Where the run's property arrays come from (a pass makes a bitmap to compact bins).
    pub(super) arrays: PropertyArrays,
    pub(super) delta: f64,
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
    pub(super) fn new(
        store: &dyn EdgeStore,
        arrays: &PropertyArrays,
        source: u32,
        delta: f64,
    ) -> Search<D> {
        let vertices = store.num_vertices();
        let mut distances: PropertyVec<D::Cell> =
            property_vec(arrays, vertices, || D::cell(D::UNREACHED));
        distances[source as usize] = D::cell(D::ZERO);
        Search {
            distances,
            arrays: arrays.clone(),
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
    pub(super) fn pass(&mut self, store: &dyn EdgeStore) -> Result<BinPass> {
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
        let negative = AtomicBool::new(false);
        edge_map(store, EdgeDirection::Out, frontier, &|vertex, list| {
            let distance = D::load(&distances[vertex as usize]);
            // The same test as the frontier's (`bin_of`), not `distance < delta * bin`,
            // which rounding can make disagree with the bin a vertex was queued in.
            if bin_of(distance, delta) < bin
                || inexact.load(Ordering::Relaxed)
                || negative.load(Ordering::Relaxed)
            {
                return;
            }
            let mut local = bins.get_or_default().borrow_mut();
            for (index, &neighbor) in list.neighbors.iter().enumerate() {
                if let Some(&ahead) = list.neighbors.get(index + PREFETCH_DISTANCE) {
                    prefetch(distances, ahead as usize);
                }
                let weight = list.weights.map_or(1.0, |weights| weights[index]);
                // Checked on the weights as read, whatever the run was told of the graph
                // before (a far graph's manifest holds no weights to check).
                if weight < 0.0 || weight.is_nan() {
                    negative.store(true, Ordering::Relaxed);
                    return;
                }
                let Some(candidate) = distance.extend(weight) else {
                    inexact.store(true, Ordering::Relaxed);
                    return;
                };
                if D::fetch_min(&distances[neighbor as usize], candidate) {
                    local.push(window, bin_of(candidate, delta), neighbor);
                }
            }
        })?;
        if negative.load(Ordering::Relaxed) {
            return Ok(BinPass::NegativeWeight);
        }
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
            compact::<D>(&self.arrays, &mut locals, window, distances, delta);
        }
        self.frontier = frontier;
        (self.window, self.bin, self.steps) = (window, bin, steps);
        Ok(BinPass::More)
    }

    /// Writes the search between two bins: the distances, the next bin's frontier, and
    /// every entry queued in a later bin, from every thread's bins.
    pub(super) fn save(&mut self, out: &mut StateWriter) -> std::io::Result<()> {
        out.array("distances", &self.distances)?;
        out.array("frontier", &self.frontier)?;
        out.number("window", self.window)?;
        out.number("bin", self.bin)?;
        out.number("steps", self.steps)?;
        let locals: Vec<&mut Bins> = self.bins.iter_mut().map(RefCell::get_mut).collect();
        let queued = locals
            .iter()
            .map(|local| local.near.iter().map(Vec::len).sum::<usize>() + local.far.len())
            .sum::<usize>();
        let window = self.window;
        let entries = locals.iter().flat_map(|local| {
            let near = local
                .near
                .iter()
                .enumerate()
                .flat_map(move |(index, vertices)| {
                    vertices
                        .iter()
                        .map(move |&vertex| (window + index as u64, vertex))
                });
            near.chain(local.far.iter().copied())
        });
        out.items::<(u64, u32), _>("queued", queued as u64, entries)
    }

    /// The search [`Search::save`] wrote, with bins `delta` wide.
    pub(super) fn restore(
        store: &dyn EdgeStore,
        arrays: &PropertyArrays,
        delta: f64,
        saved: &mut StateReader,
    ) -> std::result::Result<Search<D>, StateError> {
        let vertices = store.num_vertices();
        let distances: PropertyVec<D::Cell> =
            property_vec(arrays, vertices, || D::cell(D::UNREACHED));
        saved.fill("distances", &distances)?;
        let frontier = saved.vertices("frontier", vertices)?;
        let window = saved.number("window")?;
        let bin = saved.number("bin")?;
        let steps = saved.number("steps")?;
        let queued: Vec<(u64, u32)> = saved.items("queued", None)?;
        if let Some(&(entry_bin, vertex)) = queued
            .iter()
            .find(|&&(entry_bin, vertex)| entry_bin < window || vertex as usize >= vertices)
        {
            return Err(StateError::Invalid {
                name: "queued".to_string(),
                detail: format!(
                    "vertex {vertex} in bin {entry_bin}, before the window at {window} or past the graph"
                ),
            });
        }
        let bins: ThreadLocal<RefCell<Bins>> = ThreadLocal::new();
        {
            let mut local = bins.get_or_default().borrow_mut();
            for (entry_bin, vertex) in queued {
                local.push(window, entry_bin, vertex);
            }
        }
        Ok(Search {
            distances,
            arrays: arrays.clone(),
            delta,
            inexact: AtomicBool::new(false),
            bins,
            frontier,
            window,
            bin,
            steps,
        })
    }

    /// The distances found, as f64, with the figures of the search.
    pub(super) fn result(self) -> SsspResult {
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
fn compact<D: Distance>(
    arrays: &PropertyArrays,
    locals: &mut [&mut Bins],
    window: u64,
    distances: &[D::Cell],
    delta: f64,
) {
    let kept = Bitmap::new(arrays, distances.len());
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let arrays = PropertyArrays::default();
        compact::<u32>(&arrays, &mut [&mut first, &mut second], 0, &distances, 2.0);
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
