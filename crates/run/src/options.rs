//! What a run takes besides the graph and the kernel, and the checks on it made before
//! anything is read.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use swapless_engine::parameters::{Given, ParameterValue, ParameterValues, resolve};

use crate::placement::Placement;
use crate::{Kernel, RunError, RunOption, usable_cores};

/// Everything a run takes besides the graph and kernel.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Where edges live.
    pub placement: Placement,
    /// bfs, sssp: the source (original id); `None` picks one reproducibly.
    pub source: Option<u64>,
    /// Worker threads; `None`: one per core.
    pub threads: Option<usize>,
    /// Timed trials; the report gives the median.
    pub trials: u32,
    /// The kernel's parameters as the caller gave them (by [`Parameter::flag`]); the
    /// rest take the defaults the kernel declares.
    ///
    /// [`Parameter::flag`]: swapless_engine::parameters::Parameter::flag
    pub parameters: Vec<Given>,
    /// Fraction of every property array on transparent huge pages.
    pub huge_page_fraction: f64,
    /// Set it (from another thread) to stop the run at the kernel's next scan or gather.
    pub cancel: Option<Arc<AtomicBool>>,
    /// How a graph across a network is reached (timeout, connections a node, a local
    /// fallback copy); a local file uses none of it.
    pub origin: swapless_store::OriginOptions,
    /// Where and how often to write checkpoints, and whether to resume from them.
    pub checkpoint: Option<crate::checkpoint::CheckpointOptions>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            placement: Placement::new(None, None),
            source: None,
            threads: None,
            trials: 1,
            parameters: Vec::new(),
            // Random reads into property arrays miss the TLB on 4 KiB pages (PageRank
            // ran markedly faster with them all on huge pages).
            huge_page_fraction: 1.0,
            cancel: None,
            origin: swapless_store::OriginOptions::default(),
            checkpoint: None,
        }
    }
}

/// Bytes the `given` parameters hold during a run: each vertex weight three times (the
/// caller's list, the checked values the runner maps to internal ids, the kernel's own
/// copy), 16 bytes each.
pub fn parameter_bytes(given: &[Given]) -> u64 {
    given
        .iter()
        .map(|given| match &given.value {
            ParameterValue::VertexWeights(weights) => 3 * 16 * weights.len() as u64,
            _ => 0,
        })
        .sum()
}

/// The values of `kernel`'s parameters that `options` give, checked, the rest at their
/// defaults.
pub(crate) fn parameter_values(
    kernel: Kernel,
    options: &RunOptions,
) -> Result<ParameterValues, RunError> {
    let info = kernel.info();
    Ok(resolve(info.name, info.parameters, &options.parameters)?)
}

/// Checks `options` before anything is read.
pub(crate) fn validate(kernel: Kernel, options: &RunOptions) -> Result<(), RunError> {
    use RunOption::*;
    let fraction = |value: f64| (0.0..=1.0).contains(&value);
    let checks = [
        (options.trials == 0, Trials, "must be at least 1"),
        (options.threads == Some(0), Threads, "must be at least 1"),
        (
            !(options.huge_page_fraction.is_finite() && fraction(options.huge_page_fraction)),
            HugePageFraction,
            "must be between 0 and 1",
        ),
    ];
    if options.checkpoint.is_some() && options.trials > 1 {
        return Err(RunError::invalid(
            Trials,
            "must be 1 for a run that writes checkpoints (a trial resumed from one would time only its tail)",
        ));
    }
    if let Some((_, option, detail)) = checks.into_iter().find(|(wrong, _, _)| *wrong) {
        return Err(RunError::invalid(option, detail));
    }
    parameter_values(kernel, options)?;
    if !kernel.takes_source() && options.source.is_some() {
        return Err(RunError::NotTaken {
            kernel: kernel.name(),
            option: Source,
        });
    }
    let cores = usable_cores();
    if let Some(threads) = options.threads
        && threads > THREADS_PER_CORE * cores
    {
        return Err(RunError::TooManyThreads {
            threads,
            most: THREADS_PER_CORE * cores,
            per_core: THREADS_PER_CORE,
            cores,
        });
    }
    Ok(())
}

/// Threads a run accepts per usable core. Kernels compute on every thread and the disk
/// tiers' I/O is asynchronous, so threads beyond the cores add no speed there; in dram
/// under OS swapping, though, a thread blocked in a fault is a read in flight, and the
/// swap baseline runs 16 a core. Beyond this many, threads only add scheduling.
pub const THREADS_PER_CORE: usize = 32;
