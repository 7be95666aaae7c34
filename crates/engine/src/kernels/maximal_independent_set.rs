//! Maximal independent set on the undirected view of the graph, by rounds of
//! local priority maxima (the parallel greedy algorithm of Blelloch, Fineman and
//! Shun, SPAA'12).
//!
//! Output: membership per vertex (int8: 1 in the set, 0 not). Every vertex gets
//! a fixed pseudo-random priority from its original id (so a reordered file gives
//! the same set); a vertex joins when it outranks every
//! undecided neighbor, and drops out when a neighbor joins. The result is the
//! set the serial greedy algorithm picks in priority order, so it is the same
//! whatever the thread count.

use std::sync::atomic::{AtomicU8, Ordering};

use super::Reads;
use crate::kernel::{
    Column, GraphShape, Kernel, KernelInfo, KernelMemory, KernelOptions, Output, ResultKind, Step,
};
use crate::kernels::to_original_order;
use crate::parameters::ParameterValues;
use crate::saved_state::{StateError, StateReader, StateWriter};
use rayon::prelude::*;
use serde_json::{Value, json};
use swapless_format::GraphFile;
use swapless_store::{Adjacency, EdgeDirection, EdgeStore, Result};

use crate::property::{PropertyVec, property_vec};

/// The lists this kernel reads, for the placement plan.
pub const READS: Reads = Reads {
    out_lists: true,
    in_lists: true,
    weights: false,
    out_heads: false,
};

const UNDECIDED: u8 = 0;
const IN_SET: u8 = 1;
const OUT_OF_SET: u8 = 2;

/// A vertex's fixed rank: a hash of its original id, ties broken by that id.
fn priority(original: u32) -> (u64, u32) {
    let mut z = (original as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31), original)
}

/// What an MIS run found.
pub struct MisResult {
    /// Whether each vertex (internal id) is in the set.
    pub members: Vec<bool>,
    /// Size of the set.
    pub size: u64,
    /// Rounds taken.
    pub rounds: u32,
}

/// Computes the maximal independent set.
pub fn maximal_independent_set(store: &dyn EdgeStore) -> Result<MisResult> {
    let mut state = MaximalIndependentSet.start(store, &KernelOptions::default())?;
    while MaximalIndependentSet.step(store, &mut state)? == Step::More {}
    Ok(MaximalIndependentSet.finish(state))
}

/// The set's state between rounds.
pub struct MisState {
    /// Undecided, in the set or out of it, per vertex.
    state: PropertyVec<AtomicU8>,
    /// Whether each vertex may join this round.
    joins: PropertyVec<AtomicU8>,
    /// Each vertex's fixed priority.
    ranks: Vec<(u64, u32)>,
    rounds: u32,
}

/// One round: undecided vertices that outrank every undecided neighbor join, and their
/// neighbors drop out. Says whether another round is needed.
fn round(store: &dyn EdgeStore, set: &mut MisState) -> Result<Step> {
    let (state, joins, ranks) = (&set.state, &set.joins, &set.ranks);
    let directions: &[EdgeDirection] = if store.directed() {
        &[EdgeDirection::Out, EdgeDirection::In]
    } else {
        &[EdgeDirection::Out]
    };
    let all = 0..store.num_vertices() as u32;
    set.rounds += 1;
    // A vertex may join unless an undecided neighbor outranks it (in either direction).
    joins.par_iter().enumerate().for_each(|(vertex, join)| {
        join.store(
            (state[vertex].load(Ordering::Relaxed) == UNDECIDED) as u8,
            Ordering::Relaxed,
        );
    });
    for &direction in directions {
        store.scan(direction, all.clone(), &|vertex, list: Adjacency| {
            if joins[vertex as usize].load(Ordering::Relaxed) == 0 {
                return;
            }
            let mine = ranks[vertex as usize];
            let outranked = list.neighbors.iter().any(|&neighbor| {
                state[neighbor as usize].load(Ordering::Relaxed) == UNDECIDED
                    && ranks[neighbor as usize] > mine
            });
            if outranked {
                joins[vertex as usize].store(0, Ordering::Relaxed);
            }
        })?;
    }
    let joined: u64 = joins
        .par_iter()
        .enumerate()
        .filter(|(_, join)| join.load(Ordering::Relaxed) == 1)
        .map(|(vertex, _)| {
            state[vertex].store(IN_SET, Ordering::Relaxed);
            1u64
        })
        .sum();
    // Neighbors of new members drop out.
    for &direction in directions {
        store.scan(direction, all.clone(), &|vertex, list: Adjacency| {
            if state[vertex as usize].load(Ordering::Relaxed) == UNDECIDED
                && list
                    .neighbors
                    .iter()
                    .any(|&n| joins[n as usize].load(Ordering::Relaxed) == 1)
            {
                state[vertex as usize].store(OUT_OF_SET, Ordering::Relaxed);
            }
        })?;
    }
    let undecided = state
        .par_iter()
        .filter(|s| s.load(Ordering::Relaxed) == UNDECIDED)
        .count();
    Ok(match undecided == 0 || joined == 0 {
        true => Step::Done,
        false => Step::More,
    })
}

/// Checks independence (no edge joins two members) and maximality (every other
/// vertex has a member neighbor), on the undirected view of the file, self-loops left
/// out.
pub fn verify(graph: &GraphFile, members: &[bool]) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    let mut covered = members.to_vec();
    for vertex in 0..vertices {
        for &neighbor in graph.out_neighbors_of(vertex).iter() {
            let neighbor = neighbor as usize;
            // A self-loop joins a vertex to nothing else (networkx's sets ignore it too).
            if neighbor == vertex {
                continue;
            }
            if members[vertex] && members[neighbor] {
                return Err(format!(
                    "vertices {vertex} and {neighbor} are both in the set but adjacent"
                ));
            }
            covered[neighbor] |= members[vertex];
            covered[vertex] |= members[neighbor];
        }
    }
    match covered.iter().position(|&c| !c) {
        Some(vertex) => Err(format!(
            "vertex {vertex} is outside the set but has no neighbor in it"
        )),
        None => Ok(()),
    }
}

/// Maximal independent set as the runner drives it.
pub struct MaximalIndependentSet;

impl Kernel for MaximalIndependentSet {
    type State = MisState;
    type Result = MisResult;
    type Parameters = ();

    const INFO: KernelInfo = KernelInfo {
        name: "mis",
        about: "Maximal independent set: membership per vertex",
        reads: READS,
        column: Column {
            name: "in_set",
            vertices: false,
        },
        result: ResultKind::Int8,
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
            // State and joins (1 each).
            hot_arrays: vec![vertices, vertices],
            // Priorities (16 a vertex), with 2 to spare.
            working_bytes: 18 * vertices,
            // Which vertices have a member neighbor (1 a vertex).
            verifier_bytes: vertices,
            result_bytes_per_vertex: 1,
            output_bytes_per_vertex: 1,
            ..KernelMemory::default()
        }
    }
    fn start(&self, store: &dyn EdgeStore, options: &KernelOptions<()>) -> Result<MisState> {
        let vertices = store.num_vertices();
        Ok(MisState {
            state: property_vec(&options.arrays, vertices, || AtomicU8::new(UNDECIDED)),
            joins: property_vec(&options.arrays, vertices, || AtomicU8::new(0)),
            ranks: (0..vertices as u32)
                .into_par_iter()
                .map(|v| priority(store.permutation().map_or(v, |p| p[v as usize])))
                .collect(),
            rounds: 0,
        })
    }
    /// One round of joining and dropping out.
    fn step(&self, store: &dyn EdgeStore, state: &mut MisState) -> Result<Step> {
        round(store, state)
    }
    fn save(&self, state: &mut MisState, out: &mut StateWriter) -> std::io::Result<()> {
        out.array("state", &state.state)?;
        out.number("rounds", state.rounds as u64)
    }
    fn restore(
        &self,
        store: &dyn EdgeStore,
        options: &KernelOptions<()>,
        saved: &mut StateReader,
    ) -> std::result::Result<MisState, StateError> {
        // The ranks are the graph's and `joins` is made afresh each round: only the
        // decisions are saved.
        let mut state = Kernel::start(self, store, options)?;
        saved.fill("state", &state.state)?;
        if let Some(value) = state
            .state
            .iter()
            .map(|s| s.load(Ordering::Relaxed))
            .find(|&s| s > OUT_OF_SET)
        {
            return Err(StateError::Invalid {
                name: "state".to_string(),
                detail: format!("a vertex state {value}"),
            });
        }
        state.rounds = saved.number_at_most("rounds", u32::MAX as u64)? as u32;
        Ok(state)
    }
    fn finish(&self, state: MisState) -> MisResult {
        let members: Vec<bool> = state
            .state
            .iter()
            .map(|s| s.load(Ordering::Relaxed) == IN_SET)
            .collect();
        let size = members.iter().filter(|&&m| m).count() as u64;
        MisResult {
            members,
            size,
            rounds: state.rounds,
        }
    }
    fn summary(&self, result: &MisResult, _: &KernelOptions<()>, _: &dyn Fn(u32) -> u64) -> Value {
        json!({"size": result.size, "rounds": result.rounds})
    }
    fn verify(
        &self,
        graph: &GraphFile,
        _options: &KernelOptions<()>,
        result: &MisResult,
        _block_bytes: u64,
    ) -> std::result::Result<(), String> {
        verify(graph, &result.members)
    }
    fn output(&self, result: MisResult, permutation: Option<&[u32]>) -> Output {
        Output::Int8(to_original_order(&result.members, permutation, |&member| {
            member as i8
        }))
    }
}
