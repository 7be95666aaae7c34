//! Reads that fail on purpose, for the tests that show a failing disk ends a run with
//! one sentence and no result. Compiled in only with the `fault-injection` feature
//! (the CLI's integration tests turn it on); without it nothing is read from the
//! environment and every read is left alone.
//!
//! `SWAPLESS_INJECT_READ_FAULT=N:eio` makes the N-th read request of a disk tier (from
//! 1, counted over the process) fail with EIO; `N:short` makes it come back short.

use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable that chooses the read to fail.
pub const FAULT_VARIABLE: &str = "SWAPLESS_INJECT_READ_FAULT";

/// How the chosen read fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The device reports an I/O error.
    Eio,
    /// Fewer bytes arrive than were asked for.
    Short,
}

/// Counts read requests and says which one to fail.
#[derive(Debug, Default)]
pub struct FaultInjector {
    chosen: Option<(u64, Fault)>,
    requests: AtomicU64,
}

impl FaultInjector {
    /// The injector the environment asks for (none without the feature).
    pub fn from_environment() -> FaultInjector {
        FaultInjector {
            chosen: chosen_fault(),
            requests: AtomicU64::new(0),
        }
    }

    /// Counts one completed read request and returns the fault to give it, if it is the
    /// chosen one.
    #[inline]
    pub fn next(&self) -> Option<Fault> {
        let (at, fault) = self.chosen?;
        let request = self.requests.fetch_add(1, Ordering::Relaxed) + 1;
        (request == at).then_some(fault)
    }
}

#[cfg(feature = "fault-injection")]
fn chosen_fault() -> Option<(u64, Fault)> {
    let text = std::env::var(FAULT_VARIABLE).ok()?;
    let (at, kind) = text.split_once(':')?;
    let fault = match kind {
        "eio" => Fault::Eio,
        "short" => Fault::Short,
        _ => return None,
    };
    Some((at.parse().ok()?, fault))
}

#[cfg(not(feature = "fault-injection"))]
fn chosen_fault() -> Option<(u64, Fault)> {
    None
}
