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
    if let Some(heads) = graph.out_heads() {
        check_heads(&graph, heads)?;
    }
    if let Some(permutation) = graph.permutation() {
        check_permutation(&graph, permutation)?;
    }
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
    let n = permutation.len();
    let mut seen = vec![false; n];
    for (new_id, &original) in permutation.iter().enumerate() {
        let original = original as usize;
        if original >= n || seen[original] {
            return Err(corrupt(
                graph,
                format!("permutation entry {new_id} ({original}) repeats or is out of range"),
            ));
        }
        seen[original] = true;
    }
    Ok(())
}
