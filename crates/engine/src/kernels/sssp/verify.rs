//! SSSP's serial verifier, on the file itself: Graph500's checks without a search where
//! they conclude, a serial Dijkstra where they cannot.

use swapless_format::GraphFile;

/// Distances within this of each other (relative, and absolute below 1) are equal to the
/// verifier: the run and the check may add the same weights in another order.
fn tolerance(distance: f64) -> f64 {
    1e-9 * distance.max(1.0)
}

/// Checks distances as Graph500 validates a search, without one of its own where it can:
/// the source is at 0; no edge from a reached vertex would shorten its head's distance
/// (so no distance exceeds the shortest path's length, and no edge leaves the reached
/// vertices); and every other reached vertex has a tight in-edge (its tail's distance
/// plus its weight) from a strictly nearer vertex. Following those edges back from a
/// reached vertex then descends strictly, so it ends, and only at the source: each
/// distance is a path's length, so no shorter than the shortest. It reads every list once,
/// in file order, and holds a flag a vertex: the serial Dijkstra it replaces read the
/// lists in the order of the distances, which under a budget read the file many times.
/// Where the weights leave a reached vertex with no strictly nearer tight in-edge (edges
/// of weight 0, or too light to change a distance), the check cannot conclude and a
/// serial Dijkstra on the file decides (relative error 1e-9).
pub fn verify(
    graph: &GraphFile,
    source: u32,
    distances: &[f64],
) -> std::result::Result<(), String> {
    match check_without_search(graph, source, distances)? {
        true => Ok(()),
        false => verify_by_dijkstra(graph, source, distances),
    }
}

/// The checks of [`verify`] before any search: `Err` for a wrong distance, `Ok(false)`
/// when some reached vertex has no strictly nearer tight in-edge, `Ok(true)` when the
/// distances are proved.
fn check_without_search(
    graph: &GraphFile,
    source: u32,
    distances: &[f64],
) -> std::result::Result<bool, String> {
    let vertices = graph.num_vertices();
    if distances.len() != vertices {
        return Err(format!(
            "{} distances for {vertices} vertices",
            distances.len()
        ));
    }
    if let Some(vertex) = distances.iter().position(|d| d.is_nan() || *d < 0.0) {
        return Err(format!(
            "vertex {vertex} has distance {}",
            distances[vertex]
        ));
    }
    if distances[source as usize] != 0.0 {
        return Err(format!(
            "the source {source} has distance {}, not 0",
            distances[source as usize]
        ));
    }
    let mut descends = vec![false; vertices];
    descends[source as usize] = true;
    for tail in 0..vertices {
        let from = distances[tail];
        if from == f64::INFINITY {
            continue;
        }
        let weights = graph.out_weights_of(tail);
        for (index, &head) in graph.out_neighbors_of(tail).iter().enumerate() {
            let through = from
                + weights
                    .as_ref()
                    .map_or(1.0, |weights| weights[index] as f64);
            let distance = distances[head as usize];
            if distance > through + tolerance(through) {
                return Err(format!(
                    "vertex {head} has distance {distance} but the edge from vertex {tail} \
                     (at {from}) reaches it at {through}"
                ));
            }
            if from < distance && (through - distance).abs() <= tolerance(distance) {
                descends[head as usize] = true;
            }
        }
    }
    Ok(distances
        .iter()
        .zip(&descends)
        .all(|(distance, descends)| *descends || *distance == f64::INFINITY))
}

/// Checks distances against a serial Dijkstra on the file (relative error 1e-9).
fn verify_by_dijkstra(
    graph: &GraphFile,
    source: u32,
    distances: &[f64],
) -> std::result::Result<(), String> {
    let reference = dijkstra(graph, source);
    for (vertex, (&ours, &expected)) in distances.iter().zip(&reference).enumerate() {
        let agree = if expected.is_finite() {
            (ours - expected).abs() <= tolerance(expected)
        } else {
            ours == expected
        };
        if !agree {
            return Err(format!(
                "vertex {vertex} has distance {ours} but Dijkstra gives {expected}"
            ));
        }
    }
    Ok(())
}

/// The distances from `source` by a serial Dijkstra on the file's out-lists (weight 1
/// where the graph has none; +inf where unreached), for the verifiers.
pub fn dijkstra(graph: &GraphFile, source: u32) -> Vec<f64> {
    let mut reference = vec![f64::INFINITY; graph.num_vertices()];
    reference[source as usize] = 0.0;
    // A heap that holds each vertex once and moves it up as its distance falls: a heap
    // of (distance, vertex) entries pushed at every improvement can grow with the edges.
    let mut heap = VertexHeap::new(graph.num_vertices());
    heap.push_or_raise(source, &reference);
    while let Some(vertex) = heap.pop(&reference) {
        let distance = reference[vertex as usize];
        let weights = graph.out_weights_of(vertex as usize);
        for (index, &neighbor) in graph.out_neighbors_of(vertex as usize).iter().enumerate() {
            let weight = weights.as_ref().map_or(1.0, |w| w[index] as f64);
            let candidate = distance + weight;
            if candidate < reference[neighbor as usize] {
                reference[neighbor as usize] = candidate;
                heap.push_or_raise(neighbor, &reference);
            }
        }
    }
    reference
}

/// A binary min-heap of vertices keyed by their entry in a distance array, each vertex
/// in it at most once, for the verifier's Dijkstra.
struct VertexHeap {
    /// Vertices in heap order.
    vertices: Vec<u32>,
    /// Each vertex's index in `vertices`, or `NOT_IN_HEAP`.
    place: Vec<u32>,
}

const NOT_IN_HEAP: u32 = u32::MAX;

impl VertexHeap {
    fn new(vertices: usize) -> VertexHeap {
        VertexHeap {
            vertices: Vec::with_capacity(vertices),
            place: vec![NOT_IN_HEAP; vertices],
        }
    }

    /// Adds `vertex`, or moves it up after its distance fell.
    fn push_or_raise(&mut self, vertex: u32, distance: &[f64]) {
        let index = match self.place[vertex as usize] {
            NOT_IN_HEAP => {
                self.vertices.push(vertex);
                self.vertices.len() - 1
            }
            index => index as usize,
        };
        self.sift_up(index, distance);
    }

    /// Removes and returns the vertex with the least distance.
    fn pop(&mut self, distance: &[f64]) -> Option<u32> {
        let last = self.vertices.pop()?;
        let top = match self.vertices.first_mut() {
            Some(first) => std::mem::replace(first, last),
            None => last,
        };
        self.place[top as usize] = NOT_IN_HEAP;
        if !self.vertices.is_empty() {
            self.sift_down(0, distance);
        }
        Some(top)
    }

    fn sift_up(&mut self, mut index: usize, distance: &[f64]) {
        let vertex = self.vertices[index];
        while index > 0 {
            let parent = (index - 1) / 2;
            let above = self.vertices[parent];
            if distance[above as usize] <= distance[vertex as usize] {
                break;
            }
            self.vertices[index] = above;
            self.place[above as usize] = index as u32;
            index = parent;
        }
        self.vertices[index] = vertex;
        self.place[vertex as usize] = index as u32;
    }

    fn sift_down(&mut self, mut index: usize, distance: &[f64]) {
        let vertex = self.vertices[index];
        let length = self.vertices.len();
        loop {
            let left = 2 * index + 1;
            if left >= length {
                break;
            }
            let right = left + 1;
            let child = if right < length
                && distance[self.vertices[right] as usize] < distance[self.vertices[left] as usize]
            {
                right
            } else {
                left
            };
            let below = self.vertices[child];
            if distance[vertex as usize] <= distance[below as usize] {
                break;
            }
            self.vertices[index] = below;
            self.place[below as usize] = index as u32;
            index = child;
        }
        self.vertices[index] = vertex;
        self.place[vertex as usize] = index as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use swapless_build::importers::ImportOptions;

    /// A directed, weighted graph from `text` (lines `tail head weight`), kept in `dir`.
    fn weighted_graph(dir: &tempfile::TempDir, text: &str) -> GraphFile {
        let options = ImportOptions {
            undirected: false,
            weighted: true,
            // Test graphs' ids are their vertices, isolated ones too.
            ids: swapless_build::ids::IdMode::Dense,
        };
        crate::kernels::text_graph(dir, text, options)
    }

    #[test]
    fn the_check_without_search_proves_right_distances_and_refuses_wrong_ones() {
        let dir = tempfile::tempdir().unwrap();
        // 0 -> 1 -> 2 is shorter than 0 -> 2; 3 reaches 2 but is not reached; 4 is isolated
        // but for its edge to 3.
        let graph = weighted_graph(&dir, "0 1 1.5\n1 2 2\n0 2 4\n3 2 1\n4 3 1\n");
        let inf = f64::INFINITY;
        let right = [0.0, 1.5, 3.5, inf, inf];
        assert_eq!(check_without_search(&graph, 0, &right), Ok(true));
        assert_eq!(verify(&graph, 0, &right), Ok(()));
        // Too long: an edge shortens it.
        let long = [0.0, 1.5, 4.0, inf, inf];
        let error = check_without_search(&graph, 0, &long).unwrap_err();
        assert!(error.contains("vertex 2 has distance 4"), "{error}");
        // Unreached although an edge reaches it.
        assert!(check_without_search(&graph, 0, &[0.0, 1.5, inf, inf, inf]).is_err());
        // Too short, or reached although nothing reaches it: no path has that length, so
        // the check cannot prove it, and Dijkstra refuses it.
        for wrong in [[0.0, 1.5, 3.0, inf, inf], [0.0, 1.5, 3.5, 3.0, inf]] {
            assert_eq!(check_without_search(&graph, 0, &wrong), Ok(false));
            assert!(verify(&graph, 0, &wrong).is_err());
        }
        // Two unreached vertices that would vouch for each other: each has a tight
        // in-edge, but not from a strictly nearer vertex.
        let graph = weighted_graph(&dir, "0 1 1\n2 3 0\n3 2 0\n");
        let wrong = [0.0, 1.0, 5.0, 5.0];
        assert_eq!(check_without_search(&graph, 0, &wrong), Ok(false));
        assert!(verify(&graph, 0, &wrong).is_err());
        assert_eq!(verify(&graph, 0, &[0.0, 1.0, inf, inf]), Ok(()));
        // Edges of weight 0 on a shortest path: only Dijkstra can say, and agrees.
        let graph = weighted_graph(&dir, "0 1 0\n1 2 2\n");
        let right = [0.0, 0.0, 2.0];
        assert_eq!(check_without_search(&graph, 0, &right), Ok(false));
        assert_eq!(verify(&graph, 0, &right), Ok(()));
        // The source elsewhere than 0, or a distance that is no number.
        assert!(verify(&graph, 0, &[1.0, 1.0, 3.0]).is_err());
        assert!(verify(&graph, 0, &[0.0, f64::NAN, 2.0]).is_err());
    }

    #[test]
    fn the_verifiers_heap_pops_by_distance_after_raises() {
        let mut distance: Vec<f64> = (0..200).map(|v| ((v * 7919) % 211) as f64).collect();
        let mut heap = VertexHeap::new(distance.len());
        for vertex in 0..200 {
            heap.push_or_raise(vertex, &distance);
        }
        // Lower some distances after the pushes, as relaxations do.
        for vertex in (0..200).step_by(3) {
            distance[vertex] -= 100.5;
            heap.push_or_raise(vertex as u32, &distance);
        }
        let mut popped = Vec::new();
        while let Some(vertex) = heap.pop(&distance) {
            popped.push(vertex);
        }
        assert_eq!(popped.len(), 200, "each vertex once");
        assert!(
            popped
                .windows(2)
                .all(|pair| distance[pair[0] as usize] <= distance[pair[1] as usize])
        );
    }
}
