//! The oriented lists of the undirected view, which the triangle kernels (tc,
//! triangles, clustering) count on: each vertex's neighbors that rank above it by
//! (degree, id), as ranks, sorted, so that every vertex keeps at most about sqrt(2m)
//! of them and hubs do the least work; each triangle `r < s < t` (by rank) is found
//! once as `t ∈ H(r) ∩ H(s)` for `s ∈ H(r)`.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crate::frontier::Bitmap;
use crate::kernel::Step;
use crate::property::{PropertyArrays, PropertyVec, property_vec};
use rayon::prelude::*;
use swapless_store::{Adjacency, EdgeDirection, EdgeStore, Result};

/// |a ∩ b| for ascending lists: a branch-free merge when the sizes are alike (the
/// branches of a plain merge are mispredicted about half the time), binary search
/// of the longer list when one is far shorter.
fn intersection_size(a: &[u32], b: &[u32]) -> u64 {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.len() * 32 < long.len() {
        return short
            .iter()
            .filter(|w| long.binary_search(w).is_ok())
            .count() as u64;
    }
    let (mut i, mut j, mut count) = (0, 0, 0u64);
    while i < short.len() && j < long.len() {
        let (x, y) = (short[i], long[j]);
        count += (x == y) as u64;
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
    count
}

/// Calls `found(i, j)` for each entry `mine[i] == theirs[j]` of two ascending lists (the
/// per-vertex counts tally by `i`, clustering also reads `j`'s mark): a
/// merge when their sizes are alike, binary search of the longer when one is far shorter.
pub(crate) fn each_common(mine: &[u32], theirs: &[u32], mut found: impl FnMut(usize, usize)) {
    if mine.len() * 32 < theirs.len() {
        for (i, entry) in mine.iter().enumerate() {
            if let Ok(j) = theirs.binary_search(entry) {
                found(i, j);
            }
        }
        return;
    }
    if theirs.len() * 32 < mine.len() {
        for (j, entry) in theirs.iter().enumerate() {
            if let Ok(i) = mine.binary_search(entry) {
                found(i, j);
            }
        }
        return;
    }
    let (mut i, mut j) = (0, 0);
    while i < mine.len() && j < theirs.len() {
        let (x, y) = (mine[i], theirs[j]);
        if x == y {
            found(i, j);
        }
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
}

/// Each vertex's higher-ranked neighbors (as ranks, sorted), back to back, and where
/// each rank's list starts (plus where the last ends).
#[derive(Default)]
pub(crate) struct OrientedLists {
    higher: Vec<u32>,
    offsets: Vec<u64>,
    /// The vertex of each rank, when asked to keep it (empty otherwise).
    pub(crate) vertex_of_rank: Vec<u32>,
    /// A bit per entry of `higher`: whether the pair is linked both ways (arcs u -> w
    /// and w -> u of a directed graph), when asked for (empty otherwise).
    reciprocal: Vec<u64>,
    /// The ranks whose vertex has a self-loop, when asked for and the graph has any.
    self_looped: Option<Bitmap>,
    /// When asked for, per entry of `higher`: the weight of the arc from the lower
    /// rank's vertex to the higher's (on an undirected graph, of the edge), 0 where
    /// there is none (empty otherwise).
    weight_up: Vec<f32>,
    /// On a directed graph, when asked for: the weight of the arc the other way.
    weight_down: Vec<f32>,
    /// The largest weight of any arc, self-loops included (what networkx divides the
    /// weights by); 1 when the lists keep no weights or the graph has no arcs.
    pub(crate) max_weight: f64,
}

impl OrientedLists {
    /// Whether the vertex of `rank` has a self-loop (false unless the lists were built
    /// with [`ViewKeeps::self_loops`]).
    pub(crate) fn self_looped(&self, rank: u32) -> bool {
        self.self_looped
            .as_ref()
            .is_some_and(|looped| looped.contains(rank))
    }

    /// Whether the entry at `position` of `rank`'s list links both ways (false unless
    /// the lists were built with [`ViewKeeps::reciprocal`]).
    pub(crate) fn reciprocal(&self, rank: u32, position: usize) -> bool {
        bit(
            &self.reciprocal,
            self.offsets[rank as usize] as usize + position,
        )
    }

    /// The cube roots of the weights linking the pair at `position` of `rank`'s list,
    /// summed over the ways it is linked (a directed pair's two arcs; 0 for an arc that
    /// is not there): a triangle's weight is the product of its three pairs' (networkx's
    /// geometric mean of the weights, over every way the arcs run).
    pub(crate) fn cube_roots(&self, rank: u32, position: usize) -> f64 {
        let entry = self.offsets[rank as usize] as usize + position;
        let up = (self.weight_up[entry] as f64).cbrt();
        match self.weight_down.get(entry) {
            Some(&down) => up + (down as f64).cbrt(),
            None => up,
        }
    }

    /// Where `rank`'s list starts among every list's entries: an entry's index is this
    /// plus its position in the list.
    pub(crate) fn start(&self, rank: u32) -> usize {
        self.offsets[rank as usize] as usize
    }

    /// Entries of every list: the edges of the undirected view.
    pub(crate) fn entries(&self) -> usize {
        self.higher.len()
    }

    /// The list of `rank`.
    pub(crate) fn list(&self, rank: u32) -> &[u32] {
        &self.higher[self.offsets[rank as usize] as usize..self.offsets[rank as usize + 1] as usize]
    }

    /// Triangles r < s < t (by rank) whose lowest rank r is in `ranks`, each once: t in
    /// H(r) ∩ H(s) for s in H(r). Every t in H(s) ranks above s, so only the part of
    /// H(r) after s can match.
    pub(crate) fn count(&self, ranks: std::ops::Range<u32>) -> u64 {
        ranks
            .into_par_iter()
            .with_min_len(64)
            .map(|rank| {
                let mine = self.list(rank);
                mine.iter()
                    .enumerate()
                    .map(|(position, &s)| intersection_size(&mine[position + 1..], self.list(s)))
                    .sum::<u64>()
            })
            .sum()
    }
}

/// Counting steps a run takes after building the oriented lists: each counts the
/// triangles of a block of ranks.
const COUNT_STEPS: u32 = 64;

/// One step of a count over the oriented lists, for tc and the per-vertex triangles:
/// the first builds them (keeping what `keeps` asks for); each after it
/// hands the next block of ranks to `count`, which returns the triangles it found.
pub(crate) fn counting_step(
    store: &dyn EdgeStore,
    arrays: &PropertyArrays,
    oriented: &mut Option<OrientedLists>,
    keeps: ViewKeeps,
    counted: &mut u32,
    triangles: &mut u64,
    count: impl FnOnce(&OrientedLists, std::ops::Range<u32>) -> u64,
) -> Result<Step> {
    let vertices = store.num_vertices() as u32;
    let Some(lists) = oriented.as_ref() else {
        *oriented = Some(oriented_lists(store, arrays, keeps)?);
        return Ok(match vertices {
            0 => Step::Done,
            _ => Step::More,
        });
    };
    let block = vertices.div_ceil(COUNT_STEPS).max(1);
    let end = counted.saturating_add(block).min(vertices);
    *triangles += count(lists, *counted..end);
    *counted = end;
    Ok(match end < vertices {
        true => Step::More,
        false => Step::Done,
    })
}

/// Bit `index` of `bits` (false past their end; entries may number more than a
/// [`Bitmap`]'s `u32` vertices).
pub(crate) fn bit(bits: &[u64], index: usize) -> bool {
    bits.get(index / 64)
        .is_some_and(|word| word & (1 << (index % 64)) != 0)
}

/// Sets bit `index` of `bits`.
fn set_bit(bits: &[AtomicU64], index: usize) {
    bits[index / 64].fetch_or(1 << (index % 64), Ordering::Relaxed);
}

/// What the oriented lists keep beyond the lists.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ViewKeeps {
    /// Which vertex has each rank.
    pub order: bool,
    /// Which entries link both ways (a directed graph's reciprocal arcs).
    pub reciprocal: bool,
    /// Which vertices have a self-loop (which the lists leave out, as every triangle
    /// count does).
    pub self_loops: bool,
    /// The weights of each entry's arcs, both ways, and the largest weight.
    pub weights: bool,
}

/// The sorted entries both `a` and `b` (ascending) hold.
fn common(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (mut i, mut j, mut both) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            both.push(a[i]);
        }
        let (x, y) = (a[i], b[j]);
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
    both
}

/// Builds the oriented lists H(r): each vertex's neighbors in the undirected view that
/// rank above it by (degree, id), as ranks, sorted; and what `keeps` asks for. Its
/// arrays are made through `arrays`.
pub(crate) fn oriented_lists(
    store: &dyn EdgeStore,
    arrays: &PropertyArrays,
    keeps: ViewKeeps,
) -> Result<OrientedLists> {
    let vertices = store.num_vertices();
    let directed = store.directed();
    let all = 0..vertices as u32;
    let reciprocal = keeps.reciprocal && directed;
    // A directed graph's undirected view needs each vertex's in-list beside its out-list;
    // `visit` takes the view's list, when asked for the neighbors linked both ways, and
    // when asked for each neighbor's (out, in) weights.
    type Visit<'v> = dyn FnMut(&[u32], &[u32], &[(f32, f32)]) + 'v;
    let view = |vertex: u32, out_list: &Adjacency, visit: &mut Visit| -> Result<()> {
        if !directed {
            let weights = match keeps.weights {
                true => undirected_weights(out_list),
                false => Vec::new(),
            };
            visit(out_list.neighbors, &[], &weights);
            return Ok(());
        }
        let in_list = Mutex::new((Vec::new(), Vec::new()));
        store.gather(EdgeDirection::In, &[vertex], &|_, list| {
            if let Ok(mut in_list) = in_list.lock() {
                in_list.0.extend_from_slice(list.neighbors);
                if keeps.weights {
                    in_list.1.extend(weights_of(&list));
                }
            }
        })?;
        let (in_neighbors, in_weights) = in_list.into_inner().unwrap_or_default();
        let both = match reciprocal {
            true => common(&in_neighbors, out_list.neighbors),
            false => Vec::new(),
        };
        if keeps.weights {
            let out_weights: Vec<f32> = weights_of(out_list).collect();
            let (merged, weights) = merge_weighted(
                (out_list.neighbors, &out_weights),
                (&in_neighbors, &in_weights),
            );
            visit(&merged, &both, &weights);
            return Ok(());
        }
        let mut merged = in_neighbors;
        merged.extend_from_slice(out_list.neighbors);
        merged.sort_unstable();
        merged.dedup();
        visit(&merged, &both, &[]);
        Ok(())
    };
    let failure = Mutex::new(None);
    let remember = |result: Result<()>| {
        if let (Err(error), Ok(mut slot)) = (result, failure.lock()) {
            slot.get_or_insert(error);
        }
    };

    // Degrees in the undirected view (parallel arcs u->v and v->u count once).
    let degrees: Vec<u32> = if directed {
        let counted: PropertyVec<AtomicU32> = property_vec(arrays, vertices, || AtomicU32::new(0));
        store.scan(EdgeDirection::Out, all.clone(), &|vertex, list| {
            remember(view(vertex, &list, &mut |neighbors, _, _| {
                counted[vertex as usize].store(neighbors.len() as u32, Ordering::Relaxed)
            }));
        })?;
        counted.into_vec(|value| value.load(Ordering::Relaxed))
    } else {
        (0..vertices as u32)
            .into_par_iter()
            .map(|v| store.degree(EdgeDirection::Out, v))
            .collect()
    };

    // Rank: position in the order by (degree, id). Lists hold ranks, not ids, so that
    // "higher" is one comparison, every list is sorted by rank, and the lists of the
    // hubs, read most often, sit together at the end (GAP relabels for the same reason).
    let mut order: Vec<u32> = (0..vertices as u32).collect();
    order.par_sort_unstable_by_key(|&vertex| (degrees[vertex as usize], vertex));
    let rank_of: Vec<u32> = {
        let rank_of: PropertyVec<AtomicU32> = property_vec(arrays, vertices, || AtomicU32::new(0));
        order.par_iter().enumerate().for_each(|(rank, &vertex)| {
            rank_of[vertex as usize].store(rank as u32, Ordering::Relaxed)
        });
        rank_of.into_vec(|value| value.load(Ordering::Relaxed))
    };
    if !keeps.order {
        order = Vec::new();
    }
    drop(degrees);

    // Oriented lists H(r) by rank: count, prefix-sum into offsets, fill, sort.
    // The reciprocal ones among them go to lists of their own, RH(r), to mark them.
    let higher_counts: PropertyVec<AtomicU32> =
        property_vec(arrays, vertices, || AtomicU32::new(0));
    let both_counts: PropertyVec<AtomicU32> =
        property_vec(arrays, if reciprocal { vertices } else { 0 }, || {
            AtomicU32::new(0)
        });
    let above = |rank: u32, neighbors: &[u32]| -> Vec<u32> {
        let ranks = neighbors.iter().map(|&w| rank_of[w as usize]);
        ranks.filter(|&w| w > rank).collect()
    };
    // From the heap, as the clustering kernel declares it.
    let self_looped = (keeps.self_loops && store.self_loops() > 0)
        .then(|| Bitmap::new(&PropertyArrays::default(), vertices));
    let max_weight = AtomicU64::new(f64::NEG_INFINITY.to_bits());
    store.scan(EdgeDirection::Out, all.clone(), &|u, list| {
        if keeps.weights {
            let largest = weights_of(&list).fold(f32::NEG_INFINITY, f32::max);
            raise_to(&max_weight, largest as f64);
        }
        remember(view(u, &list, &mut |neighbors, both, _| {
            let rank = rank_of[u as usize];
            if let Some(looped) = &self_looped
                && neighbors.binary_search(&u).is_ok()
            {
                looped.insert(rank);
            }
            let count = |list: &[u32]| list.iter().filter(|&&w| rank_of[w as usize] > rank).count();
            higher_counts[rank as usize].store(count(neighbors) as u32, Ordering::Relaxed);
            if reciprocal {
                both_counts[rank as usize].store(count(both) as u32, Ordering::Relaxed);
            }
        }));
    })?;
    let offsets = prefix_sums(&higher_counts);
    let both_offsets = prefix_sums(&both_counts);
    drop((higher_counts, both_counts));
    let total = offsets[vertices];
    let higher: PropertyVec<AtomicU32> = property_vec(arrays, total as usize, || AtomicU32::new(0));
    let weight_entries = |kept: bool| if kept { total as usize } else { 0 };
    let weight_up: PropertyVec<AtomicU32> =
        property_vec(arrays, weight_entries(keeps.weights), || AtomicU32::new(0));
    let weight_down: PropertyVec<AtomicU32> =
        property_vec(arrays, weight_entries(keeps.weights && directed), || {
            AtomicU32::new(0)
        });
    let both_total = both_offsets.last().copied().unwrap_or(0) as usize;
    let both_higher: PropertyVec<AtomicU32> =
        property_vec(arrays, both_total, || AtomicU32::new(0));
    store.scan(EdgeDirection::Out, all, &|u, list| {
        remember(view(u, &list, &mut |neighbors, both, weights| {
            let rank = rank_of[u as usize];
            let start = offsets[rank as usize] as usize;
            if keeps.weights {
                // Sorted here, with their weights, rather than after.
                let mut entries: Vec<(u32, (f32, f32))> = neighbors
                    .iter()
                    .zip(weights)
                    .map(|(&w, &weights)| (rank_of[w as usize], weights))
                    .filter(|&(w, _)| w > rank)
                    .collect();
                entries.sort_unstable_by_key(|&(w, _)| w);
                for (slot, (w, (up, down))) in entries.into_iter().enumerate() {
                    higher[start + slot].store(w, Ordering::Relaxed);
                    weight_up[start + slot].store(up.to_bits(), Ordering::Relaxed);
                    if directed {
                        weight_down[start + slot].store(down.to_bits(), Ordering::Relaxed);
                    }
                }
            } else {
                for (slot, w) in above(rank, neighbors).into_iter().enumerate() {
                    higher[start + slot].store(w, Ordering::Relaxed);
                }
            }
            if reciprocal {
                let start = both_offsets[rank as usize] as usize;
                for (slot, w) in above(rank, both).into_iter().enumerate() {
                    both_higher[start + slot].store(w, Ordering::Relaxed);
                }
            }
        }));
    })?;
    if let Some(error) = failure.into_inner().ok().flatten() {
        return Err(error);
    }
    drop(rank_of);
    let mut higher: Vec<u32> = higher.into_vec(|value| value.load(Ordering::Relaxed));
    if !keeps.weights {
        sort_each_list(&mut higher, &offsets);
    }
    let as_weights = |weights: PropertyVec<AtomicU32>| -> Vec<f32> {
        weights.into_vec(|bits| f32::from_bits(bits.load(Ordering::Relaxed)))
    };
    let largest = f64::from_bits(max_weight.into_inner());
    let reciprocal = match reciprocal {
        true => {
            let mut both: Vec<u32> = both_higher.into_vec(|value| value.load(Ordering::Relaxed));
            sort_each_list(&mut both, &both_offsets);
            mark_reciprocal(&higher, &offsets, &both, &both_offsets)
        }
        false => Vec::new(),
    };
    Ok(OrientedLists {
        higher,
        offsets,
        vertex_of_rank: order,
        reciprocal,
        self_looped,
        weight_up: as_weights(weight_up),
        weight_down: as_weights(weight_down),
        max_weight: if largest.is_finite() { largest } else { 1.0 },
    })
}

/// A list's weights (1 each on an unweighted graph).
fn weights_of<'a>(list: &'a Adjacency) -> impl Iterator<Item = f32> + 'a {
    (0..list.neighbors.len()).map(|index| list.weights.map_or(1.0, |weights| weights[index]))
}

/// An undirected list's weights, each both ways.
fn undirected_weights(list: &Adjacency) -> Vec<(f32, f32)> {
    weights_of(list).map(|weight| (weight, weight)).collect()
}

/// The sorted union of a vertex's out- and in-list, each neighbor once, with the
/// weights of its arcs (out, in), 0 for an arc that is not there (a repeated entry,
/// a parallel arc, keeps the first's weight).
fn merge_weighted(
    (out, out_weights): (&[u32], &[f32]),
    (r#in, in_weights): (&[u32], &[f32]),
) -> (Vec<u32>, Vec<(f32, f32)>) {
    let (mut merged, mut weights) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < out.len() || j < r#in.len() {
        let next = match (out.get(i), r#in.get(j)) {
            (Some(&x), Some(&y)) => x.min(y),
            (Some(&x), None) => x,
            (None, Some(&y)) => y,
            (None, None) => unreachable!("the loop runs while either list has entries"),
        };
        let (mut up, mut down) = (0.0, 0.0);
        if out.get(i) == Some(&next) {
            up = out_weights[i];
        }
        if r#in.get(j) == Some(&next) {
            down = in_weights[j];
        }
        while out.get(i) == Some(&next) {
            i += 1;
        }
        while r#in.get(j) == Some(&next) {
            j += 1;
        }
        merged.push(next);
        weights.push((up, down));
    }
    (merged, weights)
}

/// Raises the f64 whose bits `cell` holds to `value` if it is larger.
fn raise_to(cell: &AtomicU64, value: f64) {
    let mut current = cell.load(Ordering::Relaxed);
    while value > f64::from_bits(current) {
        match cell.compare_exchange_weak(
            current,
            value.to_bits(),
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(_) => return,
            Err(seen) => current = seen,
        }
    }
}

/// Where each of the lists `counts` counts starts, and where the last ends.
fn prefix_sums(counts: &[AtomicU32]) -> Vec<u64> {
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    offsets.push(0u64);
    let mut total = 0u64;
    for count in counts {
        total += count.load(Ordering::Relaxed) as u64;
        offsets.push(total);
    }
    offsets
}

/// A bit per entry of `higher`, set where the entry is also in the same rank's list of
/// `both` (a sorted subset of it).
fn mark_reciprocal(
    higher: &[u32],
    offsets: &[u64],
    both: &[u32],
    both_offsets: &[u64],
) -> Vec<u64> {
    let bits: Vec<AtomicU64> = (0..higher.len().div_ceil(64))
        .map(|_| AtomicU64::new(0))
        .collect();
    (0..offsets.len() - 1).into_par_iter().for_each(|rank| {
        let start = offsets[rank] as usize;
        let list = &higher[start..offsets[rank + 1] as usize];
        let linked = &both[both_offsets[rank] as usize..both_offsets[rank + 1] as usize];
        let mut position = 0;
        for &w in linked {
            while list[position] != w {
                position += 1;
            }
            set_bit(&bits, start + position);
        }
    });
    bits.into_iter().map(|word| word.into_inner()).collect()
}

/// Sorts each list `offsets[i] - offsets[0]..offsets[i + 1] - offsets[0]` of `values`,
/// in parallel by halving the lists (no per-list allocation).
fn sort_each_list(values: &mut [u32], offsets: &[u64]) {
    const SERIAL_LISTS: usize = 1024;
    let lists = offsets.len().saturating_sub(1);
    if lists <= SERIAL_LISTS {
        let base = offsets.first().copied().unwrap_or(0);
        for pair in offsets.windows(2) {
            values[(pair[0] - base) as usize..(pair[1] - base) as usize].sort_unstable();
        }
        return;
    }
    let middle = lists / 2;
    let (left, right) = values.split_at_mut((offsets[middle] - offsets[0]) as usize);
    rayon::join(
        || sort_each_list(left, &offsets[..=middle]),
        || sort_each_list(right, &offsets[middle..]),
    );
}
