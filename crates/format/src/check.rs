//! Full verification of a `.sl` file: every checksum and every structural invariant.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::{FormatError, GraphFile, HEAD_ENTRIES, ListOf, Result, SectionKind};

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
    check_csr(&graph, Direction::Out)?;
    if graph.flags().directed {
        check_csr(&graph, Direction::In)?;
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

/// One direction's lists.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Out,
    In,
}

impl Direction {
    fn name(self) -> &'static str {
        match self {
            Direction::Out => "out",
            Direction::In => "in",
        }
    }

    fn list(self, graph: &GraphFile, v: usize) -> Result<ListOf<'_>> {
        match self {
            Direction::Out => graph.out_list(v),
            Direction::In => graph.in_list(v),
        }
    }

    fn kinds(self) -> [SectionKind; 3] {
        match self {
            Direction::Out => [
                SectionKind::OutOffsets,
                SectionKind::OutPositions,
                SectionKind::OutNeighbors,
            ],
            Direction::In => [
                SectionKind::InOffsets,
                SectionKind::InPositions,
                SectionKind::InNeighbors,
            ],
        }
    }
}

/// Where each list lies: the offsets from 0, never falling, to the entries the lists
/// hold; and, for compressed lists, the positions likewise to the section's length.
fn check_bounds(graph: &GraphFile, direction: Direction) -> Result<()> {
    let name = direction.name();
    let [offsets_kind, positions_kind, neighbors_kind] = direction.kinds();
    let as_u64 = |kind: SectionKind| -> &[u64] {
        graph
            .section_bytes(kind)
            .map(bytemuck::cast_slice)
            .unwrap_or(&[])
    };
    let neighbors_bytes = graph
        .header()
        .section(neighbors_kind)
        .map_or(0, |entry| entry.length);
    let (ends_at, sections) = match graph.lists_compressed() {
        true => (
            vec![graph.num_arcs() as u64, neighbors_bytes],
            vec![offsets_kind, positions_kind],
        ),
        false => (vec![neighbors_bytes / 4], vec![offsets_kind]),
    };
    for (kind, end) in sections.into_iter().zip(ends_at) {
        let values = as_u64(kind);
        if values.first() != Some(&0) && kind == offsets_kind {
            return Err(corrupt(
                graph,
                format!("{}_offsets does not start at 0", name),
            ));
        }
        if values.last() != Some(&end) {
            return Err(corrupt(
                graph,
                format!(
                    "{} ends at {} but its lists end at {end}",
                    kind.name(),
                    values.last().copied().unwrap_or(0)
                ),
            ));
        }
        if let Some(v) = values.windows(2).position(|pair| pair[0] > pair[1]) {
            return Err(corrupt(
                graph,
                format!(
                    "vertex {v}: {} are not monotone ({} then {})",
                    kind.name(),
                    values[v],
                    values[v + 1]
                ),
            ));
        }
    }
    Ok(())
}

/// Every list of `direction`: it decodes (compressed lists), its ids are vertices,
/// sorted and unique, and its weights finite; and as many lists hold their own vertex
/// as the header counts self-loops (kernels that leave self-loops out trust the count).
fn check_csr(graph: &GraphFile, direction: Direction) -> Result<()> {
    check_bounds(graph, direction)?;
    let n = graph.num_vertices();
    let name = direction.name();
    let self_loops = AtomicU64::new(0);
    let problem = (0..n).into_par_iter().find_map_first(|v| {
        let list = match direction.list(graph, v) {
            Ok(list) => list,
            // The damage's own words, not a second sentence naming the file.
            Err(FormatError::Corrupt { detail, .. }) => {
                return Some(format!("vertex {v}: its {name}-list does not decode ({detail})"));
            }
            Err(error) => return Some(format!("vertex {v}: its {name}-list does not decode ({error})")),
        };
        let ids = &list.ids;
        if let Some(position) = ids.iter().position(|&u| u as usize >= n) {
            return Some(format!(
                "vertex {v}: {name}-neighbor {} at position {position} is not below the vertex count {n}",
                ids[position]
            ));
        }
        if let Some(position) = ids.windows(2).position(|pair| pair[0] >= pair[1]) {
            return Some(format!(
                "vertex {v}: {name}-neighbors are not sorted and unique at position {} ({} then {})",
                position + 1,
                ids[position],
                ids[position + 1]
            ));
        }
        if let Some(weights) = &list.weights
            && let Some(position) = weights.iter().position(|w| !w.is_finite())
        {
            return Some(format!(
                "vertex {v}: {name}-edge weight at position {position} is not a finite number"
            ));
        }
        if ids.binary_search(&(v as u32)).is_ok() {
            self_loops.fetch_add(1, Ordering::Relaxed);
        }
        None
    });
    if let Some(detail) = problem {
        return Err(corrupt(graph, detail));
    }
    let (found, counted) = (self_loops.into_inner(), graph.num_self_loops());
    match found == counted {
        true => Ok(()),
        false => Err(corrupt(
            graph,
            format!(
                "{found} {name}-lists hold their own vertex, but the header counts {counted} self-loops"
            ),
        )),
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
    // The lists were checked to decode just before.
    let sum = |direction: Direction, reverse: bool| {
        (0..graph.num_vertices())
            .into_par_iter()
            .map(|v| {
                let Ok(list) = direction.list(graph, v) else {
                    return 0;
                };
                list.ids
                    .iter()
                    .enumerate()
                    .fold(0u64, |total, (index, &u)| {
                        let weight = list.weights.as_ref().map_or(1.0, |w| w[index]);
                        let hash = match reverse {
                            false => arc_hash(v as u32, u, weight),
                            true => arc_hash(u, v as u32, weight),
                        };
                        total.wrapping_add(hash)
                    })
            })
            .reduce(|| 0, u64::wrapping_add)
    };
    let out = sum(Direction::Out, false);
    let (other, what) = match graph.flags().directed {
        true => (
            sum(Direction::In, true),
            "the in-lists do not hold the out-arcs reversed",
        ),
        false => (
            sum(Direction::Out, true),
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
