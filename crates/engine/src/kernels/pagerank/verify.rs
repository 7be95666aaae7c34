//! PageRank's serial verifiers, on the file itself: a power iteration's scores against
//! the same iterations run serially, Gauss-Seidel's by one more iteration.

use swapless_format::GraphFile;

use super::{Jumps, PageRankMethod, PageRankOptions, PageRankResult};

/// Checks scores against a serial PageRank on the file run for the same number of
/// iterations, storing scores and contributions as f32 as the kernel does. Summation
/// order differs (the kernel sums the uncarried rank in blocks), so a stored value may
/// round to the neighbouring f32 (at most f32::EPSILON relative); damping shrinks old
/// errors each iteration, so they add up to at most f32::EPSILON / (1 - damping) of a
/// score (8e-7 at 0.85). Stored scores must agree to twice that, relative (to 1/n for
/// tiny scores), and sum to 1 within 1e-6.
///
/// Gauss-Seidel's scores depend on the sweep's timing, so they are checked instead as GAP
/// checks its own: one serial power iteration (in f64) from the output scores must change
/// them by (L1) at most twice the larger of the tolerance and the run's last change, plus
/// what storing them as f32 moved them (at most f32::EPSILON / 2 of each, and as much of
/// the contributions, so under 2 * f32::EPSILON in all, since they sum to 1).
pub fn verify(
    graph: &GraphFile,
    options: PageRankOptions,
    jumps: &Jumps,
    result: &PageRankResult,
) -> std::result::Result<(), String> {
    // No vertex, no score: nothing sums to 1.
    if graph.num_vertices() == 0 {
        return Ok(());
    }
    match options.method {
        PageRankMethod::Power => verify_power(graph, options, jumps, result),
        PageRankMethod::GaussSeidel => verify_converged(graph, options, jumps, result),
    }
}

/// Every vertex's out-degree, read from the file's offsets in one pass in vertex order
/// (looked up at random instead, they would fault the offsets' pages in again and again
/// through the verifiers' bounded map).
fn out_degrees(graph: &GraphFile) -> std::result::Result<Vec<u32>, String> {
    (0..graph.num_vertices())
        .map(|v| {
            u32::try_from(graph.out_degree(v))
                .map_err(|_| format!("vertex {v} has 2^32 out-edges or more"))
        })
        .collect()
}

/// The sum of `scores`, which must be 1 within `allowed`.
fn check_sum(scores: impl Iterator<Item = f64>, allowed: f64) -> std::result::Result<(), String> {
    let total: f64 = scores.sum();
    if (total - 1.0).abs() > allowed {
        return Err(format!("the scores sum to {total}, not 1"));
    }
    Ok(())
}

/// Checks that one serial power iteration (in f64) barely moves the output scores.
fn verify_converged(
    graph: &GraphFile,
    options: PageRankOptions,
    jumps: &Jumps,
    result: &PageRankResult,
) -> std::result::Result<(), String> {
    // The output scores, computed where read rather than held.
    let score = |v: usize| result.normalized(result.scores[v]);
    let vertices = graph.num_vertices();
    check_sum((0..vertices).map(score), 1e-9)?;
    let out_degree = out_degrees(graph)?;
    let dangling: f64 = (0..vertices)
        .filter(|&u| out_degree[u] == 0)
        .map(score)
        .sum();
    let (base, seeds) = jumps.base(vertices, options.damping, dangling);
    let jump = |v: usize| match seeds {
        Some(seeds) if !seeds.contains(v as u32) => 0.0,
        _ => base,
    };
    let residual: f64 = (0..vertices)
        .map(|v| {
            let incoming: f64 = graph
                .in_neighbors_of(v)
                .iter()
                .map(|&u| score(u as usize) / out_degree[u as usize] as f64)
                .sum();
            (jump(v) + options.damping * incoming - score(v)).abs()
        })
        .sum();
    let allowed =
        2.0 * options.tolerance.max(result.last_change) + 2.0 * f32::EPSILON as f64 + 1e-9;
    if residual > allowed {
        return Err(format!(
            "one more power iteration changes the scores by {residual:e} (L1), more than {allowed:e}"
        ));
    }
    Ok(())
}

/// Checks power-iteration scores against a serial run of the same iterations.
fn verify_power(
    graph: &GraphFile,
    options: PageRankOptions,
    jumps: &Jumps,
    result: &PageRankResult,
) -> std::result::Result<(), String> {
    let vertices = graph.num_vertices();
    let n = vertices as f64;
    // Every value the kernel stores is an f32, so the reference holds f32 too (two
    // iterations: see the declared `verifier_bytes`), with the arithmetic in f64.
    let stored = |value: f64| value as f32;
    let mut reference = vec![stored(1.0 / n); vertices];
    let mut next = vec![0f32; vertices];
    for _ in 0..result.iterations {
        // The scores become contributions in place (they are not read again): the sums
        // then read one array at random, as the kernel's do. The out-degrees are read
        // from the file's offsets in vertex order each time rather than held.
        let mut uncarried = 0.0;
        for (vertex, score) in reference.iter_mut().enumerate() {
            let degree = graph.out_degree(vertex);
            let contribution = match degree {
                0 => 0.0,
                degree => stored(*score as f64 / degree as f64),
            };
            uncarried += *score as f64 - degree as f64 * contribution as f64;
            *score = contribution;
        }
        let contributions = &reference;
        let (base, seeds) = jumps.base(vertices, options.damping, uncarried);
        for (v, slot) in next.iter_mut().enumerate() {
            let base = match seeds {
                Some(seeds) if !seeds.contains(v as u32) => 0.0,
                _ => base,
            };
            let incoming: f64 = graph
                .in_neighbors_of(v)
                .iter()
                .map(|&u| contributions[u as usize] as f64)
                .sum();
            *slot = stored(base + options.damping * incoming);
        }
        std::mem::swap(&mut reference, &mut next);
    }
    let scores = &result.scores;
    check_sum(scores.iter().map(|&score| score as f64), 1e-6)?;
    let relative = 2.0 * f32::EPSILON as f64 / (1.0 - options.damping).max(1e-3);
    let allowed = |reference: f64| relative * reference.abs().max(1.0 / n);
    let differs = |v: usize| {
        let expected = reference[v] as f64;
        (scores[v] as f64 - expected).abs() > allowed(expected)
    };
    match (0..vertices).find(|&v| differs(v)) {
        Some(v) => Err(format!(
            "vertex {v} has score {} but the serial run gives {}",
            scores[v], reference[v]
        )),
        None => Ok(()),
    }
}
