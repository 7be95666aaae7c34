//! Strongly connected components by trimming and coloring (Orzan's coloring, with the
//! trimming of McLendon et al.), in rounds of scans: every pass reads lists in vertex
//! order, so the disk tiers read at their scan rate and skip the lists of vertices
//! already placed.
//!
//! Output: a label per vertex (int64), the original id of its component's member with
//! the smallest internal id; two vertices share a label exactly when each reaches the
//! other. On an undirected graph the components are the connected ones.
//!
//! A round, over the vertices not yet placed in a component:
//! 1. **Trim**: a vertex with no unplaced out-neighbor, or no unplaced in-neighbor, is a
//!    component of its own (one pass over each direction).
//! 2. **Color**: every vertex takes the smallest id that reaches it, by passes over the
//!    in-lists until none changes. A vertex whose color is its own id is a root: the
//!    smallest id of its component (every member reaches it and is reached from it).
//! 3. **Back**: a root's component is the vertices of its color that reach it, found by
//!    passes over the out-lists from the roots until none joins.
//!
//! A color or back pass after the first of its phase reads only the lists of the
//! vertices the pass before changed (a gather), while they are few: a long chain, whose
//! colors creep one vertex a pass, then costs a list a pass, not a scan of the graph.
//! Each pass's updates are seen by the rest of the same pass, so its result depends on
//! the order of the threads, but every phase ends at the same fixed point: the labels
//! are the same whatever the thread count.

use super::Reads;
use crate::edge_map::few_enough_to_gather;
use crate::frontier::Bitmap;
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
    count_labelled_groups, labels_output,
};
use crate::parameters::ParameterValues;
use crate::property::{PropertyVec, U32Array};
use crate::saved_state::{StateError, StateReader, StateWriter};
use rayon::prelude::*;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, ListsNeeded, Result};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: true,
    weights: false,
    out_heads: false,
};

/// The component of a vertex not placed yet.
const UNPLACED: u32 = u32::MAX;

/// What an SCC run found.
pub struct StrongComponentsResult {
    /// The smallest internal id of its component, per vertex.
    pub labels: PropertyVec<u32>,
    /// Number of components.
    pub components: u64,
    /// Rounds of trim, color and back taken.
    pub rounds: u64,
    /// Passes over the lists taken.
    pub passes: u64,
}

/// Where a round is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Next: trim over the out-lists, then over the in-lists.
    TrimOut,
    TrimIn,
    /// Next: a pass spreading colors (again while the last one changed any).
    Color,
    /// Next: a pass joining vertices to their roots' components.
    Back,
    /// Every vertex is placed.
    Done,
}

impl Phase {
    const ALL: [Phase; 5] = [
        Phase::TrimOut,
        Phase::TrimIn,
        Phase::Color,
        Phase::Back,
        Phase::Done,
    ];
}

/// The components' state between passes.
pub struct StrongComponentsState {
    /// Each vertex's component (the smallest id in it), or [`UNPLACED`].
    component: U32Array,
    /// Each unplaced vertex's color: the smallest id found so far that reaches it.
    color: U32Array,
    /// The vertices the last color or back pass changed (lowered, or joined).
    changed: Bitmap,
    /// Whether `changed` holds exactly those (not after a trim, or a restore): else the
    /// next pass reads every list.
    changed_known: bool,
    phase: Phase,
    rounds: u64,
    passes: u64,
}

/// Finds the strongly connected components.
pub fn strongly_connected_components(store: &dyn EdgeStore) -> Result<StrongComponentsResult> {
    let kernel = StronglyConnectedComponents;
    let mut state = kernel.start(store, &KernelOptions::default())?;
    while kernel.step(store, &mut state)? == Step::More {}
    Ok(kernel.finish(state))
}

/// One pass over `direction`'s lists of the vertices `component` has not placed, `each`
/// called with each such vertex and its list; whether any call returned true.
fn pass(
    component: &U32Array,
    store: &dyn EdgeStore,
    direction: EdgeDirection,
    each: &(dyn Fn(u32, &[u32]) -> bool + Sync),
) -> Result<bool> {
    let changed = AtomicBool::new(false);
    let placed = |vertex: u32| component.get(vertex) != UNPLACED;
    store.scan_partial(
        direction,
        0..store.num_vertices() as u32,
        ListsNeeded::AllBut(&placed),
        &|block| {
            let mut any = false;
            for (vertex, list) in block.iter() {
                if !placed(vertex) {
                    any |= each(vertex, list.neighbors);
                }
            }
            if any {
                changed.store(true, Ordering::Relaxed);
            }
        },
    )?;
    Ok(changed.into_inner())
}

/// Lowers entry `index` of `array` to `value` if that is lower; whether it did.
fn lower(array: &U32Array, index: u32, value: u32) -> bool {
    let mut current = array.get(index);
    while value < current {
        if array.compare_exchange(index, current, value) {
            return true;
        }
        current = array.get(index);
    }
    false
}

/// At most one vertex in this many is gathered from: beyond, a pass scans.
const FRONTIER_DIVISOR: u64 = 8;

impl StrongComponentsState {
    /// The changed vertices, sorted, when they are known and few enough (in number and
    /// in arcs of `direction`) to gather their lists; `None` when a pass should scan.
    fn few_changed(&self, store: &dyn EdgeStore, direction: EdgeDirection) -> Option<Vec<u32>> {
        if !self.changed_known {
            return None;
        }
        let vertices = store.num_vertices() as u64;
        let count = self.changed.sum_over(|_| 1);
        let offsets = store.offsets(direction);
        let arcs = self
            .changed
            .sum_over(|vertex| offsets.degree(vertex as usize));
        let few = count <= vertices.div_ceil(FRONTIER_DIVISOR) && few_enough_to_gather(store, arcs);
        few.then(|| self.changed.to_vertices())
    }
    /// Places every unplaced vertex with no unplaced neighbor in `direction` as a
    /// component of its own.
    fn trim(&mut self, store: &dyn EdgeStore, direction: EdgeDirection) -> Result<()> {
        self.passes += 1;
        self.changed_known = false;
        let component = &self.component;
        let placed = |vertex: u32| component.get(vertex) != UNPLACED;
        let each = |vertex: u32, list: &[u32]| {
            if list
                .iter()
                .all(|&neighbor| neighbor == vertex || placed(neighbor))
            {
                component.set(vertex, vertex);
            }
            false
        };
        pass(component, store, direction, &each)?;
        Ok(())
    }

    /// Lowers each unplaced vertex's color to its unplaced in-neighbors' smallest: from
    /// the vertices the last pass lowered, along their out-lists, when they are few;
    /// otherwise by a scan of every unplaced vertex's in-list. Whether any changed.
    fn spread_colors(&mut self, store: &dyn EdgeStore) -> Result<bool> {
        self.passes += 1;
        let frontier = self.few_changed(store, EdgeDirection::Out);
        self.changed.clear();
        self.changed_known = true;
        let (component, color, changed) = (&self.component, &self.color, &self.changed);
        let unplaced = |vertex: u32| component.get(vertex) == UNPLACED;
        if let Some(frontier) = frontier {
            let any = AtomicBool::new(false);
            store.gather(EdgeDirection::Out, &frontier, &|vertex, list| {
                let own = color.get(vertex);
                for &neighbor in list.neighbors {
                    if unplaced(neighbor) && lower(color, neighbor, own) {
                        changed.insert(neighbor);
                        any.store(true, Ordering::Relaxed);
                    }
                }
            })?;
            return Ok(any.into_inner());
        }
        let each = |vertex: u32, list: &[u32]| {
            let mut smallest = color.get(vertex);
            for &neighbor in list {
                if unplaced(neighbor) {
                    smallest = smallest.min(color.get(neighbor));
                }
            }
            let lowered = lower(color, vertex, smallest);
            if lowered {
                changed.insert(vertex);
            }
            lowered
        };
        pass(component, store, EdgeDirection::In, &each)
    }

    /// Places each root in its own component, where the back passes start.
    fn seed_roots(&mut self) {
        self.changed.clear();
        self.changed_known = true;
        let (component, color, changed) = (&self.component, &self.color, &self.changed);
        (0..component.len() as u32)
            .into_par_iter()
            .with_min_len(1 << 14)
            .for_each(|vertex| {
                if component.get(vertex) == UNPLACED && color.get(vertex) == vertex {
                    component.set(vertex, vertex);
                    changed.insert(vertex);
                }
            });
    }

    /// Joins each unplaced vertex with an out-neighbor in the component of its color
    /// (the root's, placed this round) to that component: from the vertices the last
    /// pass joined, along their in-lists, when they are few; otherwise by a scan of every
    /// unplaced vertex's out-list. Whether any joined.
    fn join_roots(&mut self, store: &dyn EdgeStore) -> Result<bool> {
        self.passes += 1;
        let frontier = self.few_changed(store, EdgeDirection::In);
        self.changed.clear();
        self.changed_known = true;
        let (component, color, changed) = (&self.component, &self.color, &self.changed);
        if let Some(frontier) = frontier {
            let any = AtomicBool::new(false);
            store.gather(EdgeDirection::In, &frontier, &|vertex, list| {
                let own = component.get(vertex);
                for &neighbor in list.neighbors {
                    if color.get(neighbor) == own
                        && component.compare_exchange(neighbor, UNPLACED, own)
                    {
                        changed.insert(neighbor);
                        any.store(true, Ordering::Relaxed);
                    }
                }
            })?;
            return Ok(any.into_inner());
        }
        let each = |vertex: u32, list: &[u32]| {
            let own = color.get(vertex);
            let joins = list.iter().any(|&neighbor| component.get(neighbor) == own);
            if joins {
                component.set(vertex, own);
                changed.insert(vertex);
            }
            joins
        };
        pass(component, store, EdgeDirection::Out, &each)
    }

    /// Starts the next round's colors: each unplaced vertex its own; whether any is left.
    fn reset_colors(&self) -> bool {
        let (component, color) = (&self.component, &self.color);
        let left = AtomicU64::new(0);
        (0..component.len() as u32)
            .into_par_iter()
            .with_min_len(1 << 14)
            .for_each(|vertex| {
                if component.get(vertex) == UNPLACED {
                    color.set(vertex, vertex);
                    left.fetch_add(1, Ordering::Relaxed);
                }
            });
        left.into_inner() > 0
    }
}

/// Checks labels against the graph file, serially: every label is the smallest member
/// of its group; each group is strongly connected (its smallest member reaches every
/// member along out-lists, and every member reaches it, along in-lists, inside the
/// group); and the groups are the components, not parts of them (the edges between
/// groups make no cycle: every group comes off a topological order of them).
pub fn verify(graph: &GraphFile, labels: &[u32]) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    let mut sizes = vec![0u32; vertices];
    for (vertex, &label) in labels.iter().enumerate().take(vertices) {
        if label as usize > vertex || labels.get(label as usize) != Some(&label) {
            return Err(format!(
                "vertex {vertex} has label {label}, which is not the smallest vertex with that label"
            ));
        }
        sizes[label as usize] += 1;
    }
    // Both searches from each group's smallest member, inside the group.
    let mut seen = vec![false; vertices];
    let mut queue = Vec::new();
    let directions: &[bool] = match graph.flags().directed {
        true => &[false, true],
        false => &[false],
    };
    for &incoming in directions {
        seen.iter_mut().for_each(|mark| *mark = false);
        for root in (0..vertices).filter(|&vertex| labels[vertex] as usize == vertex) {
            let mut reached = 1u32;
            seen[root] = true;
            queue.clear();
            queue.push(root as u32);
            while let Some(vertex) = queue.pop() {
                let list = match incoming {
                    true => graph.in_neighbors_of(vertex as usize),
                    false => graph.out_neighbors_of(vertex as usize),
                };
                for &neighbor in list.iter() {
                    let neighbor = neighbor as usize;
                    if labels[neighbor] as usize == root && !seen[neighbor] {
                        seen[neighbor] = true;
                        reached += 1;
                        queue.push(neighbor as u32);
                    }
                }
            }
            if reached != sizes[root] {
                let way = if incoming { "reach" } else { "be reached from" };
                return Err(format!(
                    "only {reached} of the {} vertices labelled {root} {way} it inside their group",
                    sizes[root]
                ));
            }
        }
    }
    drop(seen);
    // Kahn's order of the groups: `sizes` becomes each group's edges in from others.
    sizes.iter_mut().for_each(|count| *count = 0);
    for vertex in 0..vertices {
        for &neighbor in graph.out_neighbors_of(vertex).iter() {
            let to = labels[neighbor as usize];
            if to != labels[vertex] {
                sizes[to as usize] += 1;
            }
        }
    }
    // The members of each group, grouped: a counting sort by label.
    let mut starts = vec![0u32; vertices + 1];
    for &label in &labels[..vertices] {
        starts[label as usize + 1] += 1;
    }
    for index in 0..vertices {
        starts[index + 1] += starts[index];
    }
    let mut members = vec![0u32; vertices];
    let mut next = starts.clone();
    for (vertex, &label) in labels.iter().enumerate().take(vertices) {
        members[next[label as usize] as usize] = vertex as u32;
        next[label as usize] += 1;
    }
    drop(next);
    queue.clear();
    queue.extend(
        (0..vertices as u32)
            .filter(|&vertex| labels[vertex as usize] == vertex && sizes[vertex as usize] == 0),
    );
    let mut ordered = 0u64;
    while let Some(group) = queue.pop() {
        ordered += 1;
        let range = starts[group as usize] as usize..starts[group as usize + 1] as usize;
        for &member in &members[range] {
            for &neighbor in graph.out_neighbors_of(member as usize).iter() {
                let to = labels[neighbor as usize];
                if to != group {
                    sizes[to as usize] -= 1;
                    if sizes[to as usize] == 0 {
                        queue.push(to);
                    }
                }
            }
        }
    }
    let groups = (0..vertices)
        .filter(|&vertex| labels[vertex] as usize == vertex)
        .count() as u64;
    if ordered != groups {
        return Err(format!(
            "the edges between the {groups} labelled groups make a cycle through {} of them: they are not whole components",
            groups - ordered
        ));
    }
    Ok(())
}

/// Strongly connected components as the runner drives them.
pub struct StronglyConnectedComponents;

impl Kernel for StronglyConnectedComponents {
    type State = StrongComponentsState;
    type Result = StrongComponentsResult;
    type Parameters = ();

    const INFO: KernelInfo = KernelInfo {
        name: "scc",
        about: "Strongly connected components (trim and color): label per vertex",
        reads: READS,
        column: Column {
            name: "component",
            vertices: true,
        },
        result: ResultKind::Int64,
        takes_source: false,
        searches: false,
        verifier_copies_lists: false,
        deterministic: true,
        every_vertex_a_source: false,
        undirected_only: false,
        counts_self_loops: false,
        parameters: &[],
    };

    fn parameters(&self, _values: &ParameterValues) {}
    fn memory(&self, shape: GraphShape) -> KernelMemory {
        let vertices = shape.vertices;
        KernelMemory {
            // Components and colors (4 a vertex each), and the changed vertices.
            hot_arrays: vec![4 * vertices, 4 * vertices, Bitmap::bytes(vertices)],
            // The changed vertices listed for a gather (at most one in FRONTIER_DIVISOR),
            // and the placed vertices' long lists a disk tier's scans skip.
            working_bytes: 4 * vertices.div_ceil(FRONTIER_DIVISOR)
                + ListsNeeded::skips_held_bytes(shape.arcs),
            // The verifier's sizes, marks, queue, group starts, members and their
            // next places (21 bytes a vertex at most, the marks gone before the last).
            verifier_bytes: 21 * vertices + 8,
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
    ) -> Result<StrongComponentsState> {
        let vertices = store.num_vertices();
        let state = StrongComponentsState {
            component: U32Array::filled(&options.arrays, vertices, UNPLACED),
            color: U32Array::filled(&options.arrays, vertices, 0),
            changed: Bitmap::new(&options.arrays, vertices),
            changed_known: false,
            phase: Phase::TrimOut,
            rounds: 1,
            passes: 0,
        };
        let any = state.reset_colors();
        Ok(StrongComponentsState {
            phase: if any { Phase::TrimOut } else { Phase::Done },
            ..state
        })
    }
    /// One pass over the lists.
    fn step(&self, store: &dyn EdgeStore, state: &mut StrongComponentsState) -> Result<Step> {
        state.phase = match state.phase {
            Phase::TrimOut => {
                state.trim(store, EdgeDirection::Out)?;
                Phase::TrimIn
            }
            Phase::TrimIn => {
                state.trim(store, EdgeDirection::In)?;
                Phase::Color
            }
            Phase::Color => match state.spread_colors(store)? {
                true => Phase::Color,
                false => {
                    state.seed_roots();
                    Phase::Back
                }
            },
            Phase::Back => match state.join_roots(store)? {
                true => Phase::Back,
                false if state.reset_colors() => {
                    state.rounds += 1;
                    Phase::TrimOut
                }
                false => Phase::Done,
            },
            Phase::Done => Phase::Done,
        };
        Ok(match state.phase {
            Phase::Done => Step::Done,
            _ => Step::More,
        })
    }
    fn save(
        &self,
        state: &mut StrongComponentsState,
        out: &mut StateWriter,
    ) -> std::io::Result<()> {
        out.array("component", state.component.cells())?;
        out.array("color", state.color.cells())?;
        out.number("phase", state.phase as u64)?;
        out.number("rounds", state.rounds)?;
        out.number("passes", state.passes)
    }
    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<()>,
        saved: &mut StateReader,
    ) -> std::result::Result<StrongComponentsState, StateError> {
        let vertices = store.num_vertices();
        let component = U32Array::filled(&options.arrays, vertices, UNPLACED);
        let color = U32Array::filled(&options.arrays, vertices, 0);
        saved.fill("component", component.cells())?;
        saved.fill("color", color.cells())?;
        // An id past the graph would send a later pass out of bounds.
        for (name, array) in [("component", &component), ("color", &color)] {
            if let Some(value) = (0..vertices as u32)
                .map(|vertex| array.get(vertex))
                .find(|&value| value as usize >= vertices && value != UNPLACED)
            {
                return Err(StateError::Invalid {
                    name: name.to_string(),
                    detail: format!("vertex {value} of a graph of {vertices}"),
                });
            }
        }
        let phase = Phase::ALL[saved.number_at_most("phase", Phase::Done as u64)? as usize];
        let rounds = saved.number_at_most("rounds", u64::MAX)?;
        let passes = saved.number_at_most("passes", u64::MAX)?;
        // The changed vertices are not saved: the first pass after a resume scans.
        Ok(StrongComponentsState {
            component,
            color,
            changed: Bitmap::new(&options.arrays, vertices),
            changed_known: false,
            phase,
            rounds,
            passes,
        })
    }
    fn finish(&self, state: StrongComponentsState) -> StrongComponentsResult {
        let (rounds, passes) = (state.rounds, state.passes);
        let labels = state.component.into_values();
        let components = count_labelled_groups(&labels);
        StrongComponentsResult {
            labels,
            components,
            rounds,
            passes,
        }
    }
    fn summary(
        &self,
        result: &StrongComponentsResult,
        _: &KernelOptions<()>,
        _: &dyn Fn(u32) -> u64,
    ) -> Value {
        // Rounds and passes depend on the threads' timing (which pass trims or colors a
        // vertex first): the result reports only what every run agrees on.
        json!({"components": result.components})
    }
    fn verify(
        &self,
        graph: &GraphFile,
        _options: &KernelOptions<()>,
        result: &StrongComponentsResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        verify(graph, &result.labels)
    }
    fn output(&self, result: StrongComponentsResult, permutation: Option<&[u32]>) -> Output {
        labels_output(result.labels, permutation)
    }
}
