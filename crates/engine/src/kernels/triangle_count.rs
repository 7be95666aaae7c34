//! Triangle counting on the undirected view of the graph, each triangle counted
//! once at its lowest-ranked vertex, with vertices ranked by degree (ties by id)
//! so that hubs, which sit in the most triangles, do the least work.
//!
//! Output: the number of triangles.
//!
//! For each vertex `u`, its higher-ranked neighbors `H(u)` are gathered; for each
//! `v` in `H(u)`, the triangles are the `w` in `H(u)` that are also neighbors of
//! `v` and rank above `v`. The shorter list is walked and the longer searched.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use std::sync::Mutex;
use swapless_format::GraphFile;

use swapless_store::{EdgeDirection, EdgeStore, Result, StoreError};

/// (degree, id): the order triangles are oriented by.
fn rank(degrees: &[u32], vertex: u32) -> (u32, u32) {
    (degrees[vertex as usize], vertex)
}

/// Keeps the first error a nested gather returned (callbacks cannot return errors).
fn remember_failure(failure: &Mutex<Option<StoreError>>, result: Result<()>) {
    if let (Err(error), Ok(mut slot)) = (result, failure.lock()) {
        slot.get_or_insert(error);
    }
}

/// Counts triangles.
pub fn triangle_count(store: &dyn EdgeStore) -> Result<u64> {
    let vertices = store.num_vertices();
    let directed = store.directed();
    let degrees: Vec<u32> = (0..vertices as u32)
        .into_par_iter()
        .map(|v| {
            store.degree(EdgeDirection::Out, v)
                + if directed {
                    store.degree(EdgeDirection::In, v)
                } else {
                    0
                }
        })
        .collect();
    let triangles = AtomicU64::new(0);
    let failure = Mutex::new(None);
    let in_lists_of = |vertex: u32| -> Vec<u32> {
        let collected = Mutex::new(Vec::new());
        let result = store.gather(EdgeDirection::In, &[vertex], &|_, list| {
            if let Ok(mut collected) = collected.lock() {
                collected.extend_from_slice(list.neighbors);
            }
        });
        remember_failure(&failure, result);
        collected.into_inner().unwrap_or_default()
    };
    let undirected_view = |vertex: u32, out_list: &[u32]| -> Vec<u32> {
        if !directed {
            return out_list.to_vec();
        }
        let mut merged = out_list.to_vec();
        merged.extend(in_lists_of(vertex));
        merged.sort_unstable();
        merged.dedup();
        merged
    };
    store.scan(EdgeDirection::Out, 0..vertices as u32, &|u, list| {
        let mut higher = undirected_view(u, list.neighbors);
        higher.retain(|&w| rank(&degrees, w) > rank(&degrees, u));
        if higher.len() < 2 {
            return;
        }
        let result = store.gather(EdgeDirection::Out, &higher, &|v, v_list| {
            let v_neighbors = undirected_view(v, v_list.neighbors);
            let above_v = |w: &&u32| rank(&degrees, **w) > rank(&degrees, v);
            let found = if higher.len() <= v_neighbors.len() {
                higher
                    .iter()
                    .filter(above_v)
                    .filter(|w| v_neighbors.binary_search(w).is_ok())
                    .count()
            } else {
                v_neighbors
                    .iter()
                    .filter(above_v)
                    .filter(|w| higher.binary_search(w).is_ok())
                    .count()
            };
            triangles.fetch_add(found as u64, Ordering::Relaxed);
        });
        remember_failure(&failure, result);
    })?;
    if let Some(error) = failure.into_inner().ok().flatten() {
        return Err(error);
    }
    Ok(triangles.into_inner())
}

/// Counts triangles serially on the file's undirected view (u < v < w by id) and
/// compares.
pub fn verify(graph: &GraphFile, triangles: u64) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    let neighbors: Vec<Vec<u32>> = (0..vertices)
        .map(|v| {
            let mut list: Vec<u32> = graph.out_neighbors_of(v).to_vec();
            list.extend_from_slice(graph.in_neighbors_of(v));
            list.sort_unstable();
            list.dedup();
            list
        })
        .collect();
    let mut reference = 0u64;
    for u in 0..vertices {
        for &v in neighbors[u].iter().filter(|&&v| v as usize > u) {
            let (a, b) = (&neighbors[u], &neighbors[v as usize]);
            let (mut i, mut j) = (0, 0);
            while i < a.len() && j < b.len() {
                match a[i].cmp(&b[j]) {
                    std::cmp::Ordering::Less => i += 1,
                    std::cmp::Ordering::Greater => j += 1,
                    std::cmp::Ordering::Equal => {
                        if a[i] > v {
                            reference += 1;
                        }
                        i += 1;
                        j += 1;
                    }
                }
            }
        }
    }
    if reference == triangles {
        Ok(())
    } else {
        Err(format!(
            "counted {triangles} triangles but the serial count is {reference}"
        ))
    }
}
