//! Full verification of a `.sl` file: every checksum and every structural invariant.

use std::path::Path;

use rayon::prelude::*;

use crate::{FormatError, GraphFile, HEAD_ENTRIES, Result};

/// What a successful check covered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Checksummed blocks verified (4 KiB each; 1 MiB in a version-1 file).
    pub blocks_verified: u64,
    /// Vertices whose lists were checked.
    pub vertices: u64,
    /// Arcs whose ids were checked.
    pub arcs: u64,
}

/// Verifies every checksum, then the CSR invariants of out- and in-edges and the permutation.
///
/// The error names the first bad block or vertex.
pub fn check_file(path: &Path) -> Result<CheckReport> {
    let graph = GraphFile::open(path)?;
    let blocks_verified = graph.verify_checksums()?;
    let n = graph.num_vertices();
    check_csr(
        &graph,
        "out",
        graph.out_offsets(),
        graph.out_neighbors(),
        graph.out_weights(),
        n,
    )?;
    if let (Some(offsets), Some(neighbors)) = (graph.in_offsets(), graph.in_neighbors()) {
        check_csr(&graph, "in", offsets, neighbors, graph.in_weights(), n)?;
    }
    check_transpose(&graph)?;
    if let Some(heads) = graph.out_heads() {
        check_heads(&graph, heads)?;
    }
    if let Some(permutation) = graph.permutation() {
        check_permutation(&graph, permutation)?;
    }
    graph.load_vertex_ids()?;
    Ok(CheckReport {
        blocks_verified,
        vertices: n as u64,
        arcs: graph.num_arcs() as u64,
    })
}

fn corrupt(graph: &GraphFile, detail: String) -> FormatError {
    FormatError::Corrupt {
        path: graph.path().to_path_buf(),
        detail,
    }
}

fn check_csr(
    graph: &GraphFile,
    direction: &str,
    offsets: &[u64],
    neighbors: &[u32],
    weights: Option<&[f32]>,
    n: usize,
) -> Result<()> {
    if offsets.first() != Some(&0) {
        return Err(corrupt(
            graph,
            format!("{direction}_offsets does not start at 0"),
        ));
    }
    if offsets.last() != Some(&(neighbors.len() as u64)) {
        return Err(corrupt(
            graph,
            format!(
                "{direction}_offsets ends at {} but there are {} neighbors",
                offsets.last().copied().unwrap_or(0),
                neighbors.len()
            ),
        ));
    }
    let problem = (0..n).into_par_iter().find_map_first(|v| {
        let (start, end) = (offsets[v], offsets[v + 1]);
        if start > end || end > neighbors.len() as u64 {
            return Some(format!(
                "vertex {v}: {direction}_offsets are not monotone ({start} then {end})"
            ));
        }
        let list = &neighbors[start as usize..end as usize];
        if let Some(position) = list.iter().position(|&u| u as usize >= n) {
            return Some(format!(
                "vertex {v}: {direction}-neighbor {} at position {position} is not below the vertex count {n}",
                list[position]
            ));
        }
        if let Some(position) = list.windows(2).position(|pair| pair[0] >= pair[1]) {
            return Some(format!(
                "vertex {v}: {direction}-neighbors are not sorted and unique at position {} ({} then {})",
                position + 1,
                list[position],
                list[position + 1]
            ));
        }
        if let Some(weights) = weights {
            let list_weights = &weights[start as usize..end as usize];
            if let Some(position) = list_weights.iter().position(|w| !w.is_finite()) {
                return Some(format!(
                    "vertex {v}: {direction}-edge weight at position {position} is not a finite number"
                ));
            }
        }
        None
    });
    match problem {
        Some(detail) => Err(corrupt(graph, detail)),
        None => Ok(()),
    }
}

/// A directed graph's in-lists must hold exactly its out-arcs reversed, weights too,
/// and an undirected graph's lists must be symmetric: kernels that read either side
/// trust the other. Compared as a multiset hash of every arc under a key drawn for
/// this check, so one pass and no memory suffice and a forger cannot aim at the sum.
fn check_transpose(graph: &GraphFile) -> Result<()> {
    use std::hash::BuildHasher;
    let key = std::collections::hash_map::RandomState::new().hash_one(0u64);
    let arc_hash = |from: u32, to: u32, weight: f32| {
        let ends = splitmix(key ^ ((from as u64) << 32 | to as u64));
        splitmix(ends ^ key.rotate_left(17) ^ weight.to_bits() as u64)
    };
    let sum = |offsets: &[u64], neighbors: &[u32], weights: Option<&[f32]>, reverse: bool| {
        (0..graph.num_vertices())
            .into_par_iter()
            .map(|v| {
                let (start, end) = (offsets[v] as usize, offsets[v + 1] as usize);
                (start..end).fold(0u64, |total, index| {
                    let (u, weight) = (neighbors[index], weights.map_or(1.0, |w| w[index]));
                    let hash = match reverse {
                        false => arc_hash(v as u32, u, weight),
                        true => arc_hash(u, v as u32, weight),
                    };
                    total.wrapping_add(hash)
                })
            })
            .reduce(|| 0, u64::wrapping_add)
    };
    let out = sum(
        graph.out_offsets(),
        graph.out_neighbors(),
        graph.out_weights(),
        false,
    );
    let (other, what) = match (graph.in_offsets(), graph.in_neighbors()) {
        (Some(offsets), Some(neighbors)) => (
            sum(offsets, neighbors, graph.in_weights(), true),
            "the in-lists do not hold the out-arcs reversed",
        ),
        _ => (
            sum(
                graph.out_offsets(),
                graph.out_neighbors(),
                graph.out_weights(),
                true,
            ),
            "the lists of this undirected graph are not symmetric (some arc has no reverse)",
        ),
    };
    match out == other {
        true => Ok(()),
        false => Err(corrupt(graph, what.to_string())),
    }
}

/// A 64-bit mixer (Steele et al.'s SplitMix64 finalizer).
fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The heads must be each out-list's first [`HEAD_ENTRIES`] entries, padded with the
/// vertex's own id: a pass that reads them instead of the lists trusts them.
fn check_heads(graph: &GraphFile, heads: &[u32]) -> Result<()> {
    let width = HEAD_ENTRIES as usize;
    let problem = (0..graph.num_vertices()).into_par_iter().find_first(|&v| {
        let list = graph.out_neighbors_of(v);
        let expected = (0..width).map(|entry| list.get(entry).copied().unwrap_or(v as u32));
        !heads[v * width..(v + 1) * width]
            .iter()
            .copied()
            .eq(expected)
    });
    match problem {
        Some(v) => Err(corrupt(
            graph,
            format!("vertex {v}: out_heads does not hold the start of its out-list"),
        )),
        None => Ok(()),
    }
}

fn check_permutation(graph: &GraphFile, permutation: &[u32]) -> Result<()> {
    crate::reader::check_bijection(permutation).map_err(|detail| corrupt(graph, detail))
}
