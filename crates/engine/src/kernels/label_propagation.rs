//! Label propagation communities, as networkx's `label_propagation_communities`: the
//! semi-synchronous algorithm of Cordasco and Gargano, deterministic.
//!
//! The vertices are first colored greedily, largest degree first (ties by original id,
//! as networkx's `greedy_color` with its default strategy orders a graph whose nodes
//! are its ids), so no two neighbors share a color. Every vertex starts with its own
//! original id as its label. A round then visits the colors in order, and each vertex of
//! the color takes the label most frequent among its neighbors; of several, it keeps its
//! own if that is one of them, else takes the largest. Neighbors never share a color, so
//! a color's vertices update at once without reading each other. Rounds run until every
//! vertex with neighbors holds one of its neighbors' most frequent labels.
//!
//! The coloring runs as Jones and Plassmann's: a vertex whose neighbors before it in
//! the greedy order all have colors takes the least color none of them has, which is
//! exactly the color the serial greedy pass gives it. Each vertex counts its neighbors
//! before it that have no color yet; a vertex colored counts itself off its later
//! neighbors, and those it brings to zero make the next round's frontier. Each list is
//! read twice in all (once to count, once when its vertex is colored), whatever order a
//! tier gathers a frontier's lists in.
//!
//! Output: a label per vertex (int64, the original id of a vertex of its community),
//! equal iff two vertices are in one community; the report holds the communities, the
//! colors and the rounds. Undirected graphs only, as networkx's.
//!
//! A kept self-loop makes its vertex one of its own neighbors, whose label counts, as in
//! networkx; but it counts once in the degree that orders the coloring, where networkx's
//! counts it twice (the networkx backend declines graphs with self-loops).

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, Result};

use super::Reads;
use crate::frontier::{Bitmap, select_vertices};
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
    original_id, reorder_property,
};
use crate::parameters::ParameterValues;
use crate::property::{PropertyArrays, PropertyVec, U32Array};
use crate::saved_state::{StateError, StateReader, StateWriter};

/// Label propagation as the runner drives it.
pub struct LabelPropagation;

/// A vertex without a color yet.
const UNCOLORED: u32 = u32::MAX;

/// The least color not in `taken` (sorted in place).
fn least_free_color(taken: &mut [u32]) -> u32 {
    taken.sort_unstable();
    let mut free = 0;
    for &color in taken.iter() {
        if color == free {
            free += 1;
        } else if color > free {
            break;
        }
    }
    free
}

/// The labels most frequent among `neighbor_labels` (sorted in place): whether `own` is
/// one of them, and the largest of them. None for no neighbors.
fn most_frequent(neighbor_labels: &mut [u32], own: u32) -> Option<(bool, u32, usize)> {
    neighbor_labels.sort_unstable();
    let (mut best, mut count_of_best, mut own_count) = (None::<u32>, 0usize, 0usize);
    let mut ties = 0usize;
    for run in neighbor_labels.chunk_by(|a, b| a == b) {
        let (label, count) = (run[0], run.len());
        if label == own {
            own_count = count;
        }
        // Runs come in increasing label order, so a tie's later run is the larger label.
        if count > count_of_best {
            (best, count_of_best, ties) = (Some(label), count, 1);
        } else if count == count_of_best {
            (best, ties) = (Some(label), ties + 1);
        }
    }
    best.map(|largest| (own_count == count_of_best, largest, ties))
}

/// The label `vertex` takes, given its neighbors' labels: networkx's `_update_label`.
fn updated_label(neighbor_labels: &mut [u32], own: u32) -> u32 {
    match most_frequent(neighbor_labels, own) {
        None => own,
        Some((_, largest, 1)) => largest,
        Some((own_is_frequent, largest, _)) => {
            if own_is_frequent {
                own
            } else {
                largest
            }
        }
    }
}

thread_local! {
    /// A thread's copy of a list's labels or colors, reused from vertex to vertex.
    static BUFFER: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// Where a run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Coloring,
    Propagating,
}

/// The run between steps.
pub struct LabelPropagationState {
    phase: Phase,
    /// Each vertex's color.
    colors: U32Array,
    /// Each vertex's label, an original id.
    labels: U32Array,
    /// The vertices ready for a color (coloring), or every vertex by color (propagating).
    order: Vec<u32>,
    /// Each vertex's place in the greedy order (coloring; empty once propagating).
    places: Vec<u32>,
    /// Each vertex's neighbors before it in the greedy order without a color yet.
    waiting_on: U32Array,
    /// The vertices a coloring round brings to zero (from the heap: working bytes).
    ready: Bitmap,
    /// Where each color's vertices start in `order`, and where the last ends.
    color_starts: Vec<usize>,
    /// Coloring rounds, then propagation rounds.
    coloring_rounds: u32,
    rounds: u32,
}

/// What a finished run found.
pub struct LabelPropagationResult {
    /// Each vertex's label (an original id), internal ids.
    pub labels: PropertyVec<u32>,
    /// Colors the coloring used.
    pub colors: u32,
    /// Coloring rounds.
    pub coloring_rounds: u32,
    /// Propagation rounds.
    pub rounds: u32,
}

/// The greedy coloring's order, networkx's largest-first (larger degree first, then
/// smaller original id), and each vertex's place in it.
fn greedy_order(store: &dyn EdgeStore) -> (Vec<u32>, Vec<u32>) {
    use rayon::prelude::*;
    let (offsets, permutation) = (store.offsets(EdgeDirection::Out), store.permutation());
    let mut order: Vec<u32> = (0..store.num_vertices() as u32).collect();
    order.par_sort_unstable_by_key(|&v| {
        (
            std::cmp::Reverse(offsets.degree(v as usize)),
            original_id(permutation, v),
        )
    });
    let mut places = vec![0u32; order.len()];
    for (place, &v) in order.iter().enumerate() {
        places[v as usize] = place as u32;
    }
    (order, places)
}

/// The `vertices`, each of color `color(v)`, sorted by color (by id within one): the
/// order of a run in propagation, and where each color starts in it.
fn by_color(vertices: usize, color: impl Fn(u32) -> u32) -> (Vec<u32>, Vec<usize>) {
    let count = (0..vertices as u32)
        .map(|v| color(v) as usize + 1)
        .max()
        .unwrap_or(0);
    let mut starts = vec![0usize; count + 1];
    for v in 0..vertices as u32 {
        starts[color(v) as usize + 1] += 1;
    }
    for c in 0..count {
        starts[c + 1] += starts[c];
    }
    let mut next = starts.clone();
    let mut order = vec![0u32; vertices];
    for v in 0..vertices as u32 {
        let c = color(v) as usize;
        order[next[c]] = v;
        next[c] += 1;
    }
    (order, starts)
}

/// Copies `f(neighbor)` of each of `neighbors` into the thread's buffer and calls `with`.
fn with_buffer<R>(
    neighbors: &[u32],
    f: impl Fn(u32) -> u32,
    with: impl FnOnce(&mut [u32]) -> R,
) -> R {
    BUFFER.with(|buffer| {
        let mut buffer = buffer.borrow_mut();
        buffer.clear();
        buffer.extend(neighbors.iter().map(|&u| f(u)));
        with(&mut buffer)
    })
}

/// Counts each vertex's neighbors before it in the greedy order (by `places`) that
/// have no color yet into `waiting_on`; the vertices that wait on none, which start the
/// coloring.
fn count_waiting(
    store: &dyn EdgeStore,
    places: &[u32],
    colors: &U32Array,
    waiting_on: &U32Array,
) -> Result<Vec<u32>> {
    let vertices = store.num_vertices() as u32;
    store.scan(EdgeDirection::Out, 0..vertices, &|vertex, list| {
        let mine = places[vertex as usize];
        let waiting = list
            .neighbors
            .iter()
            .filter(|&&u| places[u as usize] < mine && colors.get(u) == UNCOLORED)
            .count();
        waiting_on.set(vertex, waiting as u32);
    })?;
    Ok(select_vertices(vertices, |v| {
        colors.get(v) == UNCOLORED && waiting_on.get(v) == 0
    }))
}

/// One round of the coloring: each vertex of the frontier takes the least color its
/// neighbors before it lack, and the later neighbors it leaves waiting on none make the
/// next frontier. Whether any remain.
fn coloring_round(store: &dyn EdgeStore, state: &mut LabelPropagationState) -> Result<bool> {
    let (colors, places) = (&state.colors, &state.places);
    let (waiting_on, ready) = (&state.waiting_on, &state.ready);
    store.gather(EdgeDirection::Out, &state.order, &|vertex, list| {
        let mine = places[vertex as usize];
        // Every vertex before this one has its color; later ones do not constrain it.
        let color_before = |u: u32| match places[u as usize] < mine {
            true => colors.get(u),
            false => UNCOLORED,
        };
        let color = with_buffer(list.neighbors, color_before, least_free_color);
        colors.set(vertex, color);
        for &later in list.neighbors {
            if places[later as usize] > mine && waiting_on.fetch_sub(later, 1) == 1 {
                ready.insert(later);
            }
        }
    })?;
    state.order = state.ready.to_vertices();
    state.ready.clear();
    state.coloring_rounds += 1;
    Ok(!state.order.is_empty())
}

/// Whether every vertex with neighbors holds one of their most frequent labels
/// (networkx's `_labeling_complete`).
fn labeling_complete(store: &dyn EdgeStore, labels: &U32Array) -> Result<bool> {
    let unsettled = AtomicU64::new(0);
    let vertices = store.num_vertices() as u32;
    store.scan(EdgeDirection::Out, 0..vertices, &|vertex, list| {
        if list.neighbors.is_empty() || unsettled.load(Ordering::Relaxed) > 0 {
            return;
        }
        let own = labels.get(vertex);
        let settled = with_buffer(
            list.neighbors,
            |u| labels.get(u),
            |neighbor_labels| {
                most_frequent(neighbor_labels, own)
                    .is_some_and(|(own_is_frequent, _, _)| own_is_frequent)
            },
        );
        if !settled {
            unsettled.fetch_add(1, Ordering::Relaxed);
        }
    })?;
    Ok(unsettled.load(Ordering::Relaxed) == 0)
}

impl Kernel for LabelPropagation {
    type State = LabelPropagationState;
    type Result = LabelPropagationResult;
    type Parameters = ();

    const INFO: KernelInfo = KernelInfo {
        name: "lpa",
        about: "Label propagation communities (semi-synchronous, deterministic, as networkx): label per vertex",
        reads: Reads {
            out_lists: true,
            in_lists: false,
            weights: false,
            out_heads: false,
        },
        column: Column {
            name: "community",
            vertices: true,
        },
        result: ResultKind::Int64,
        takes_source: false,
        searches: true,
        verifier_copies_lists: false,
        deterministic: true,
        every_vertex_a_source: false,
        undirected_only: true,
        counts_self_loops: true,
        parameters: &[],
    };

    fn parameters(&self, _values: &ParameterValues) {}

    fn memory(&self, shape: GraphShape) -> KernelMemory {
        let vertices = shape.vertices;
        KernelMemory {
            // Colors, labels, and how many neighbors each waits on for a color.
            hot_arrays: vec![4 * vertices; 3],
            // The greedy order and places in it (sorted together), a frontier and the
            // next as a bitmap; then the vertices by color and the colors' starts.
            working_bytes: 12 * vertices + vertices.div_ceil(8) + 8 * (vertices + 1),
            // The serial run's order, colors, labels and colors' starts.
            verifier_bytes: 20 * vertices + 8,
            result_bytes_per_vertex: 4,
            output_bytes_per_vertex: 8,
            released_as_copied: true,
            ..KernelMemory::default()
        }
    }

    fn start(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<()>,
    ) -> Result<LabelPropagationState> {
        let vertices = store.num_vertices();
        let labels = U32Array::filled(&options.arrays, vertices, 0);
        let permutation = store.permutation();
        (0..vertices as u32).for_each(|v| labels.set(v, original_id(permutation, v)));
        let (_, places) = greedy_order(store);
        let colors = U32Array::filled(&options.arrays, vertices, UNCOLORED);
        let waiting_on = U32Array::filled(&options.arrays, vertices, 0);
        let order = count_waiting(store, &places, &colors, &waiting_on)?;
        Ok(LabelPropagationState {
            phase: Phase::Coloring,
            colors,
            labels,
            order,
            places,
            waiting_on,
            ready: Bitmap::new(&PropertyArrays::default(), vertices),
            color_starts: Vec::new(),
            coloring_rounds: 0,
            rounds: 0,
        })
    }

    fn step(&self, store: &dyn EdgeStore, state: &mut LabelPropagationState) -> Result<Step> {
        if state.phase == Phase::Coloring {
            if !coloring_round(store, state)? {
                state.places = Vec::new();
                state.ready = Bitmap::new(&PropertyArrays::default(), 0);
                (state.order, state.color_starts) =
                    by_color(state.colors.len(), |v| state.colors.get(v));
                state.phase = Phase::Propagating;
            }
            return Ok(Step::More);
        }
        if labeling_complete(store, &state.labels)? {
            return Ok(Step::Done);
        }
        let labels = &state.labels;
        for class in state.color_starts.windows(2) {
            let vertices = &state.order[class[0]..class[1]];
            store.gather(EdgeDirection::Out, vertices, &|vertex, list| {
                let own = labels.get(vertex);
                let label = with_buffer(
                    list.neighbors,
                    |u| labels.get(u),
                    |neighbor_labels| updated_label(neighbor_labels, own),
                );
                labels.set(vertex, label);
            })?;
        }
        state.rounds += 1;
        Ok(Step::More)
    }

    fn finish(&self, state: LabelPropagationState) -> LabelPropagationResult {
        LabelPropagationResult {
            colors: state.color_starts.len().saturating_sub(1) as u32,
            labels: state.labels.into_values(),
            coloring_rounds: state.coloring_rounds,
            rounds: state.rounds,
        }
    }

    fn save(
        &self,
        state: &mut LabelPropagationState,
        out: &mut StateWriter,
    ) -> std::io::Result<()> {
        out.array("colors", state.colors.cells())?;
        out.array("labels", state.labels.cells())?;
        out.number("coloring_rounds", state.coloring_rounds as u64)?;
        out.number("rounds", state.rounds as u64)
    }

    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<()>,
        saved: &mut StateReader,
    ) -> std::result::Result<LabelPropagationState, StateError> {
        let vertices = store.num_vertices();
        let colors = U32Array::filled(&options.arrays, vertices, UNCOLORED);
        saved.fill("colors", colors.cells())?;
        let labels = U32Array::filled(&options.arrays, vertices, 0);
        saved.fill("labels", labels.cells())?;
        if let Some(v) = (0..vertices as u32)
            .find(|&v| colors.get(v) != UNCOLORED && colors.get(v) as usize >= vertices)
        {
            return Err(StateError::Invalid {
                name: "colors".to_string(),
                detail: format!(
                    "vertex {v} has color {}, more than the vertices",
                    colors.get(v)
                ),
            });
        }
        let coloring_rounds = saved.number("coloring_rounds")?.min(u32::MAX as u64) as u32;
        let rounds = saved.number("rounds")?.min(u32::MAX as u64) as u32;
        let colored = (0..vertices as u32).all(|v| colors.get(v) != UNCOLORED);
        let waiting_on = U32Array::filled(&options.arrays, vertices, 0);
        let (phase, order, places, color_starts) = match colored && rounds + coloring_rounds > 0 {
            true => {
                let (order, starts) = by_color(vertices, |v| colors.get(v));
                (Phase::Propagating, order, Vec::new(), starts)
            }
            false => {
                let (_, places) = greedy_order(store);
                let order = count_waiting(store, &places, &colors, &waiting_on)?;
                (Phase::Coloring, order, places, Vec::new())
            }
        };
        Ok(LabelPropagationState {
            phase,
            colors,
            labels,
            order,
            places,
            waiting_on,
            ready: Bitmap::new(&PropertyArrays::default(), vertices),
            color_starts,
            coloring_rounds,
            rounds,
        })
    }

    fn summary(
        &self,
        result: &LabelPropagationResult,
        _options: &KernelOptions<()>,
        _original: &dyn Fn(u32) -> u64,
    ) -> Value {
        let mut distinct: Vec<u32> = result.labels.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        json!({
            "communities": distinct.len(),
            "colors": result.colors,
            "coloring_rounds": result.coloring_rounds,
            "rounds": result.rounds,
        })
    }

    /// The same algorithm run serially on the file must give the same labels.
    fn verify(
        &self,
        graph: &GraphFile,
        _options: &KernelOptions<()>,
        result: &LabelPropagationResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        let reference = serial_label_propagation(graph)?;
        match (0..reference.len()).find(|&v| result.labels[v] != reference[v]) {
            Some(v) => Err(format!(
                "vertex {v} has label {} but the serial run gives {}",
                result.labels[v], reference[v]
            )),
            None => Ok(()),
        }
    }

    fn output(&self, result: LabelPropagationResult, permutation: Option<&[u32]>) -> Output {
        Output::Int64(reorder_property(result.labels, permutation, |&label| {
            label as i64
        }))
    }
}

/// networkx's algorithm, serially from the file: greedy coloring largest degree first,
/// then rounds over the colors until the labeling is complete. Labels in internal ids'
/// positions, valued as original ids.
fn serial_label_propagation(graph: &GraphFile) -> std::result::Result<Vec<u32>, String> {
    let vertices = graph.num_vertices();
    let permutation = graph.permutation();
    let original = |v: usize| permutation.map_or(v as u32, |p| p[v]);
    let mut order: Vec<u32> = (0..vertices as u32).collect();
    order.sort_by_key(|&v| {
        (
            std::cmp::Reverse(graph.out_degree(v as usize)),
            original(v as usize),
        )
    });
    let mut colors = vec![UNCOLORED; vertices];
    let mut taken = Vec::new();
    for &v in &order {
        taken.clear();
        taken.extend(
            graph
                .out_neighbors_of(v as usize)
                .iter()
                .map(|&u| colors[u as usize])
                .filter(|&c| c != UNCOLORED),
        );
        colors[v as usize] = least_free_color(&mut taken);
    }
    let (order, starts) = by_color(vertices, |v| colors[v as usize]);
    drop(colors);
    let mut labels: Vec<u32> = (0..vertices).map(original).collect();
    let mut neighbor_labels = Vec::new();
    loop {
        let complete = (0..vertices).all(|v| {
            let list = graph.out_neighbors_of(v);
            neighbor_labels.clear();
            neighbor_labels.extend(list.iter().map(|&u| labels[u as usize]));
            list.is_empty()
                || most_frequent(&mut neighbor_labels, labels[v]).is_some_and(|(own, _, _)| own)
        });
        if complete {
            return Ok(labels);
        }
        for class in starts.windows(2) {
            for &v in &order[class[0]..class[1]] {
                neighbor_labels.clear();
                neighbor_labels.extend(
                    graph
                        .out_neighbors_of(v as usize)
                        .iter()
                        .map(|&u| labels[u as usize]),
                );
                labels[v as usize] = updated_label(&mut neighbor_labels, labels[v as usize]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_free_color_skips_those_taken() {
        assert_eq!(least_free_color(&mut []), 0);
        assert_eq!(least_free_color(&mut [1, 2]), 0);
        assert_eq!(least_free_color(&mut [2, 0, 1, 1, 4]), 3);
        assert_eq!(least_free_color(&mut [UNCOLORED, 0]), 1);
    }

    #[test]
    fn a_label_is_kept_among_ties_and_else_the_largest_is_taken() {
        // One most frequent label.
        assert_eq!(updated_label(&mut [3, 5, 5], 9), 5);
        // Ties: the own label is kept when it is one of them, else the largest taken.
        assert_eq!(updated_label(&mut [3, 5, 3, 5], 3), 3);
        assert_eq!(updated_label(&mut [3, 5, 3, 5], 9), 5);
        assert_eq!(updated_label(&mut [], 9), 9);
    }
}
