//! What the kernels that iterate a linear map share (eigenvector, Katz and HITS
//! centrality): two float64 vectors, a pull that sums a vector over each vertex's
//! list, sums over the vertices that do not depend on the thread count, and the
//! serial pull their verifiers run.
//!
//! The vectors are float64, as networkx keeps them: these kernels stop when an
//! iteration's change falls below a tolerance that networkx's tests set at 1e-8 and
//! below, which float32 values cannot meet.

use rayon::prelude::*;
use swapless_format::GraphFile;
use swapless_store::{EdgeDirection, EdgeStore, Result};

use super::deterministic_sums;
use crate::kernel::{Warning, reorder_property};
use crate::parameters::{Parameter, ParameterKind};
use crate::property::{F64Array, PropertyArrays, PropertyVec};
use crate::saved_state::{StateError, StateReader, StateWriter};

/// The iteration cap, networkx's `max_iter`. The command line's flag means the same to
/// every kernel, default included (PageRank's 100); Python passes networkx's own default
/// where it differs (Katz's 1,000).
pub const MAX_ITERATIONS: Parameter = Parameter {
    flag: "max-iters",
    keyword: "max_iter",
    help: "stop after this many iterations; a run stopped by it says so",
    kind: ParameterKind::Count {
        min: 1,
        max: u32::MAX as u64,
    },
    default: Some("100"),
};

/// The cap [`MAX_ITERATIONS`] holds in `values`.
pub fn max_iterations(values: &crate::parameters::ParameterValues) -> u32 {
    values
        .count(MAX_ITERATIONS.flag)
        .map_or(u32::MAX, |cap| cap.min(u32::MAX as u64) as u32)
}

/// The tolerance on an iteration's L1 change, as PageRank's `--tolerance` (HITS: of the
/// authorities scaled to a largest of 1).
pub const TOLERANCE: Parameter = Parameter {
    flag: "tolerance",
    keyword: "tol",
    help: "stop when an iteration changes the scores by less than this (L1)",
    kind: ParameterKind::Number {
        min: 0.0,
        max: f64::MAX,
        above_min: false,
    },
    default: Some("0.0001"),
};

/// The tolerance per vertex, as networkx's eigenvector and Katz centrality mean `tol`:
/// the run stops when an iteration's L1 change is below it times the vertex count.
pub const VERTEX_TOLERANCE: Parameter = Parameter {
    flag: "vertex-tolerance",
    keyword: "tol",
    help: "stop when an iteration changes the scores by less than this times the vertex count (L1), as networkx",
    kind: ParameterKind::Number {
        min: 0.0,
        max: f64::MAX,
        above_min: false,
    },
    default: Some("0.000001"),
};

/// How far a run got: what its report and warnings say.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Iterations run.
    pub iterations: u32,
    /// The change (L1) of the last one.
    pub last_change: f64,
    /// The change below which the run stops.
    pub threshold: f64,
    /// The tolerance as given, which the threshold may scale (by the vertex count).
    pub tolerance: f64,
    /// The tolerance's flag, for the warning.
    pub tolerance_flag: &'static str,
}

impl Progress {
    /// A run that has not iterated yet on `vertices` and stops below `tolerance` (given
    /// by [`VERTEX_TOLERANCE`]) times the vertex count, networkx's rule. A graph without
    /// vertices has nothing to change: its first iteration meets any tolerance.
    pub fn per_vertex(tolerance: f64, vertices: usize) -> Progress {
        let threshold = match vertices {
            0 => f64::INFINITY,
            vertices => tolerance * vertices as f64,
        };
        Progress::new(threshold, tolerance, VERTEX_TOLERANCE.flag)
    }

    /// A run that has not iterated yet and stops below `threshold`, which is
    /// `tolerance` (given by `tolerance_flag`) or a multiple of it.
    pub fn new(threshold: f64, tolerance: f64, tolerance_flag: &'static str) -> Progress {
        Progress {
            iterations: 0,
            last_change: f64::INFINITY,
            threshold,
            tolerance,
            tolerance_flag,
        }
    }

    /// Whether the last iteration met the tolerance.
    pub fn converged(&self) -> bool {
        self.last_change < self.threshold
    }

    /// Records an iteration that changed the vector by `change`; whether to stop: at
    /// the tolerance, at the cap, or once the values overflow (a Katz series that
    /// diverges), which no further iteration undoes.
    pub fn record(&mut self, change: f64, max_iterations: u32) -> bool {
        self.iterations += 1;
        self.last_change = change;
        self.converged() || self.iterations >= max_iterations || !change.is_finite()
    }

    /// Whether the values overflowed.
    pub fn diverged(&self) -> bool {
        !self.last_change.is_finite() && self.iterations > 0
    }

    /// The warning for a run the cap stopped or whose values overflowed, if either;
    /// `parameter` is the flag that decides whether the series converges.
    pub fn warnings(&self, parameter: &'static str) -> Vec<Warning> {
        if self.diverged() {
            return vec![Warning::Diverged {
                iterations: self.iterations as u64,
                parameter,
            }];
        }
        match self.converged() {
            true => Vec::new(),
            false => vec![Warning::NotConverged {
                iterations: self.iterations as u64,
                last_change: self.last_change,
                tolerance: self.tolerance,
                cap: "max-iters",
                tolerance_flag: self.tolerance_flag,
            }],
        }
    }

    /// The report's fields.
    pub fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "iterations": self.iterations,
            "last_change": self.last_change,
            "converged": self.converged(),
        })
    }

    /// Saves it to a checkpoint.
    pub fn save(&self, out: &mut StateWriter) -> std::io::Result<()> {
        out.number("iterations", self.iterations as u64)?;
        out.number("last_change", self.last_change.to_bits())
    }

    /// The progress a checkpoint saved, of a run that started as `start`.
    pub fn restore(
        saved: &mut StateReader,
        start: Progress,
    ) -> std::result::Result<Progress, StateError> {
        Ok(Progress {
            iterations: saved.number("iterations")?.min(u32::MAX as u64) as u32,
            last_change: f64::from_bits(saved.number("last_change")?),
            ..start
        })
    }
}

/// A power iteration between steps: the last iteration's vector, the next one's (being
/// made), and how far it got.
pub struct Vectors {
    /// The last iteration's vector.
    pub last: F64Array,
    /// The next one's.
    pub next: F64Array,
    /// Iterations and the last change.
    pub progress: Progress,
}

impl Vectors {
    /// The vectors before the first iteration: `last` all `start`.
    pub fn new(
        arrays: &PropertyArrays,
        vertices: usize,
        start: f64,
        progress: Progress,
    ) -> Vectors {
        Vectors {
            last: F64Array::filled(arrays, vertices, start),
            next: F64Array::filled(arrays, vertices, 0.0),
            progress,
        }
    }

    /// Ends an iteration that changed the vector by `change`: the next vector becomes the
    /// last; whether the run stops.
    pub fn advance(&mut self, change: f64, max_iterations: u32) -> bool {
        std::mem::swap(&mut self.last, &mut self.next);
        self.progress.record(change, max_iterations)
    }

    /// Saves what a later step reads: the last vector and the progress.
    pub fn save(&self, out: &mut StateWriter) -> std::io::Result<()> {
        out.array("vector", self.last.cells())?;
        self.progress.save(out)
    }

    /// The vectors [`Vectors::save`] wrote, of a run whose progress started as `progress`.
    pub fn restore(
        saved: &mut StateReader,
        arrays: &PropertyArrays,
        vertices: usize,
        progress: Progress,
    ) -> std::result::Result<Vectors, StateError> {
        Ok(Vectors {
            last: restore_vector(saved, arrays, vertices, "vector")?,
            next: F64Array::filled(arrays, vertices, 0.0),
            progress: Progress::restore(saved, progress)?,
        })
    }

    /// The result: `vector` (the last one, or another the kernel holds), each value
    /// times `scale` in the output.
    pub fn finish(vector: F64Array, scale: f64, progress: Progress) -> VectorResult {
        VectorResult {
            scores: vector.into_values(),
            scale,
            progress,
        }
    }
}

/// A finished power iteration: its vector, in internal ids, and what the output
/// multiplies it by.
pub struct VectorResult {
    /// The vector as iterated.
    pub scores: PropertyVec<f64>,
    /// What the output multiplies each value by (to unit norm, or to a sum of 1).
    pub scale: f64,
    /// Iterations run and the last change.
    pub progress: Progress,
}

impl VectorResult {
    /// Vertex `v`'s output value.
    pub fn value(&self, v: usize) -> f64 {
        self.scores[v] * self.scale
    }

    /// The output array, in original vertex order.
    pub fn output(self, permutation: Option<&[u32]>) -> crate::kernel::Output {
        let scale = self.scale;
        crate::kernel::Output::Float64(reorder_property(self.scores, permutation, |&x| x * scale))
    }
}

/// A vector restored from a checkpoint under `name`.
pub fn restore_vector(
    saved: &mut StateReader,
    arrays: &PropertyArrays,
    vertices: usize,
    name: &str,
) -> std::result::Result<F64Array, StateError> {
    let vector = F64Array::filled(arrays, vertices, 0.0);
    saved.fill(name, vector.cells())?;
    Ok(vector)
}

/// Sets `to[v] = update(v, sum of from over v's list in direction)` for every vertex, in
/// parallel. Each sum runs in list order, so the result does not depend on threads.
pub fn pull(
    store: &dyn EdgeStore,
    direction: EdgeDirection,
    from: &F64Array,
    to: &F64Array,
    update: impl Fn(u32, f64) -> f64 + Sync,
) -> Result<()> {
    let vertices = store.num_vertices() as u32;
    store.scan_blocks(direction, 0..vertices, &|block| {
        for (vertex, list) in block.iter() {
            let incoming: f64 = list
                .neighbors
                .iter()
                .map(|&neighbor| from.get(neighbor))
                .sum();
            to.set(vertex, update(vertex, incoming));
        }
    })
}

/// [`pull`] by edge weight: `to[v] = update(v, sum of from[u] * weight(u, v))`, for a
/// kernel that reads weights (a list without them weighs 1 an edge). A store may serve
/// weights to kernels that do not read them, so [`pull`] never looks at them.
pub fn weighted_pull(
    store: &dyn EdgeStore,
    direction: EdgeDirection,
    from: &F64Array,
    to: &F64Array,
    update: impl Fn(u32, f64) -> f64 + Sync,
) -> Result<()> {
    let vertices = store.num_vertices() as u32;
    store.scan_blocks(direction, 0..vertices, &|block| {
        for (vertex, list) in block.iter() {
            let incoming: f64 = match list.weights {
                Some(weights) => list
                    .neighbors
                    .iter()
                    .zip(weights)
                    .map(|(&neighbor, &weight)| from.get(neighbor) * weight as f64)
                    .sum(),
                None => list.neighbors.iter().map(|&u| from.get(u)).sum(),
            };
            to.set(vertex, update(vertex, incoming));
        }
    })
}

/// Vertices per chunk of [`sums`]: the chunks, not the threads, fix the order of addition.
const SUM_CHUNK: usize = 4096;

/// The sums over every vertex of `term(v)`'s `K` parts, the same for any thread count.
pub fn sums<const K: usize>(vertices: usize, term: impl Fn(u32) -> [f64; K] + Sync) -> [f64; K] {
    let chunks = vertices.div_ceil(SUM_CHUNK);
    deterministic_sums((0..chunks).into_par_iter().map(|chunk| {
        let range = chunk * SUM_CHUNK..((chunk + 1) * SUM_CHUNK).min(vertices);
        let mut total = [0.0; K];
        for vertex in range {
            for (sum, part) in total.iter_mut().zip(term(vertex as u32)) {
                *sum += part;
            }
        }
        total
    }))
}

/// Divides every entry of `vector` by `divisor` (nothing when it is 0 or 1), in parallel.
pub fn divide(vector: &F64Array, divisor: f64) {
    if divisor == 0.0 || divisor == 1.0 {
        return;
    }
    (0..vector.len() as u32)
        .into_par_iter()
        .with_min_len(SUM_CHUNK)
        .for_each(|vertex| vector.set(vertex, vector.get(vertex) / divisor));
}

/// The largest entry of `vector` (0 for none), the same for any thread count.
pub fn largest(vector: &F64Array) -> f64 {
    (0..vector.len() as u32)
        .into_par_iter()
        .map(|vertex| vector.get(vertex))
        .reduce(|| 0.0, f64::max)
}

/// The Euclidean norm of `values` (networkx's `math.hypot` over them).
pub fn euclidean_norm(vertices: usize, value: impl Fn(u32) -> f64 + Sync) -> f64 {
    let [squares] = sums(vertices, |v| {
        let x = value(v);
        [x * x]
    });
    squares.sqrt()
}

/// The verifiers' pull: `to[v] = update(v, sum of from over v's list)`, serially from the
/// file, in vertex order.
pub fn serial_pull(
    graph: &GraphFile,
    direction: EdgeDirection,
    from: &[f64],
    to: &mut [f64],
    update: impl Fn(usize, f64) -> f64,
) {
    for (vertex, slot) in to.iter_mut().enumerate() {
        let list = match direction {
            EdgeDirection::Out => graph.out_neighbors_of(vertex),
            EdgeDirection::In => graph.in_neighbors_of(vertex),
        };
        let incoming: f64 = list.iter().map(|&u| from[u as usize]).sum();
        *slot = update(vertex, incoming);
    }
}

/// [`serial_pull`] by edge weight, as [`pull`]: the verifiers of kernels that read
/// weights.
pub fn serial_weighted_pull(
    graph: &GraphFile,
    direction: EdgeDirection,
    from: &[f64],
    to: &mut [f64],
    update: impl Fn(usize, f64) -> f64,
) -> std::result::Result<(), String> {
    for (vertex, slot) in to.iter_mut().enumerate() {
        let list = match direction {
            EdgeDirection::Out => graph.out_list(vertex),
            EdgeDirection::In => graph.in_list(vertex),
        }
        .map_err(|error| format!("vertex {vertex}'s list: {error}"))?;
        let incoming: f64 = match &list.weights {
            Some(weights) => list
                .ids
                .iter()
                .zip(weights.iter())
                .map(|(&u, &weight)| from[u as usize] * weight as f64)
                .sum(),
            None => list.ids.iter().map(|&u| from[u as usize]).sum(),
        };
        *slot = update(vertex, incoming);
    }
    Ok(())
}

/// Checks `value(v)` for every vertex against the serial `reference`: each within
/// `relative` of the largest reference value (the kernels and their verifiers sum in
/// different orders).
pub fn compare(
    value: impl Fn(usize) -> f64,
    reference: &[f64],
    relative: f64,
) -> std::result::Result<(), String> {
    let scale = reference.iter().fold(0.0f64, |top, &x| top.max(x.abs()));
    let allowed = relative * scale.max(f64::MIN_POSITIVE);
    // Written so that a NaN on either side fails.
    let agrees = |v: usize| (value(v) - reference[v]).abs() <= allowed;
    match (0..reference.len()).find(|&v| !agrees(v)) {
        Some(v) => Err(format!(
            "vertex {v} has {} but the serial run gives {}",
            value(v),
            reference[v]
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_allows_rounding_and_refuses_more() {
        let reference = [1.0, 0.5, 0.0];
        let check = |values: [f64; 3]| compare(|v| values[v], &reference, 1e-9);
        assert!(check([1.0 + 1e-13, 0.5, 1e-14]).is_ok());
        assert!(check([1.0, 0.5001, 0.0]).is_err());
        assert!(check([1.0, f64::NAN, 0.0]).is_err());
    }

    #[test]
    fn progress_stops_at_the_tolerance_or_the_cap() {
        let mut progress = Progress::new(1e-3, 1e-3, "tolerance");
        assert!(!progress.record(1.0, 3));
        assert!(progress.warnings("max-iters").len() == 1);
        assert!(progress.record(1e-4, 3));
        assert!(progress.converged() && progress.warnings("max-iters").is_empty());
        let mut capped = Progress::new(1e-3, 1e-3, "tolerance");
        assert!(!capped.record(1.0, 2));
        assert!(capped.record(0.5, 2));
        assert!(!capped.converged());
        let mut diverged = Progress::new(1e-3, 1e-3, "tolerance");
        assert!(diverged.record(f64::INFINITY, 100));
        assert!(!diverged.converged() && diverged.diverged());
        assert!(matches!(
            diverged.warnings("attenuation")[..],
            [Warning::Diverged { iterations: 1, .. }]
        ));
    }
}
