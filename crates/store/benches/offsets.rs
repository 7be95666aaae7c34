//! Nanoseconds per offsets lookup in plain (u32) and Elias-Fano form, on offsets shaped
//! like kron23's (8.4 M vertices, half of them without edges, mean degree 31): what a
//! kernel pays per degree and a tier per list when the plan compresses the offsets.
//! Prints the median of 5 rounds of each access pattern.

use std::hint::black_box;
use std::time::Instant;

use swapless_store::{OffsetSlice, Offsets};

const VERTICES: usize = 1 << 23;
const ROUNDS: usize = 5;

/// Median nanoseconds per call of `lookup(index)` over `indices`.
fn time_per_lookup(indices: &[usize], lookup: impl Fn(usize) -> u64) -> f64 {
    let mut rounds: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let started = Instant::now();
            let mut sum = 0u64;
            for &index in indices {
                sum = sum.wrapping_add(lookup(index));
            }
            black_box(sum);
            started.elapsed().as_nanos() as f64 / indices.len() as f64
        })
        .collect();
    rounds.sort_by(f64::total_cmp);
    rounds[ROUNDS / 2]
}

/// Median nanoseconds per entry of widening consecutive blocks of 1,024 entries.
fn time_per_widened_entry(offsets: OffsetSlice) -> f64 {
    let blocks = (offsets.len() - 1) / 1023;
    time_per_lookup(&(0..blocks).collect::<Vec<usize>>(), |block| {
        offsets
            .vertices(block * 1023..block * 1023 + 1023)
            .widened(|wide| wide[1000])
    }) / 1024.0
}

fn main() {
    // A skewed degree sequence: half the vertices without edges, the rest 1 to 62.
    let mut state = 1u64;
    let mut wide = Vec::with_capacity(VERTICES + 1);
    wide.push(0u64);
    for _ in 0..VERTICES {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let degree = if state >> 63 == 0 {
            0
        } else {
            1 + (state >> 40) % 62
        };
        wide.push(wide.last().copied().unwrap_or(0) + degree);
    }
    let narrow = Offsets::Narrow(wide.iter().map(|&value| value as u32).collect());
    let compressed = Offsets::compressed_from(&wide).expect("offsets ascend");
    let in_order: Vec<usize> = (0..VERTICES).collect();
    let mut at_random = in_order.clone();
    for index in (1..at_random.len()).rev() {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        at_random.swap(index, (state >> 33) as usize % (index + 1));
    }
    println!(
        "offsets of {VERTICES} vertices: plain {} MiB, compressed {:.1} MiB",
        narrow.bytes() >> 20,
        compressed.bytes() as f64 / (1 << 20) as f64
    );
    println!(
        "| form | degree, in order (ns) | degree, at random (ns) | widened block (ns per entry) |"
    );
    println!("| --- | --- | --- | --- |");
    for (name, offsets) in [("plain", &narrow), ("compressed", &compressed)] {
        let slice = offsets.as_slice();
        println!(
            "| {name} | {:.1} | {:.1} | {:.2} |",
            time_per_lookup(&in_order, |index| slice.degree(index)),
            time_per_lookup(&at_random, |index| slice.degree(index)),
            time_per_widened_entry(slice)
        );
    }
}
