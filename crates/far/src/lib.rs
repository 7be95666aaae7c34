//! Far memory: a graph stored on a Redis-protocol server or a Redis Cluster (Valkey
//! too), its lists fetched by the store's read pipeline as the direct tier reads them
//! from a file. The crate plugs into the store from outside, as any origin would: a
//! far graph is a [`swapless_store::GraphOrigin`] ([`FarOrigin`], chosen by
//! [`open_origin`] for a `redis://` or `rediss://` name) whose page source the direct
//! tier's pipeline reads through.
//!
//! `origin` is what a run asks of a far graph; `upload` stores a graph (chunks under a
//! new generation, then the manifest naming it); `listing` lists and removes every key
//! of a name; `check` checks a stored graph's chunks and pages; `graph` opens one for
//! runs, with its vertex sections in a local cache; `queue` is the page source's reads
//! in flight, `worker` one connection's thread, `shared` what both use; `cluster` finds
//! the nodes and which owns each key; `wire` and `transport` are the connections to a
//! node, plain or TLS, every wait on them bound by the request's deadline.

mod address;
mod check;
mod cluster;
mod error;
mod graph;
mod listing;
mod manifest;
mod origin;
mod queue;
mod shared;
mod transport;
mod upload;
mod wire;
mod worker;

pub use address::{
    CA_VARIABLE, FarAddress, PASSWORD_VARIABLE, USER_VARIABLE, is_far_address, without_password,
};
pub use check::{FarCheck, check};
pub use error::{FarError, far_error, into_far_error};
pub use graph::{FarGraph, NodeFigures, cache_folder};
pub use listing::{IncompletePush, Listing, Removal, StoredGraph, list, remove};
pub use manifest::{Manifest, ManifestSection};
pub use origin::{FarOrigin, open_origin};
pub use upload::{DEFAULT_FAR_CHUNK_BYTES, FAR_CHUNK_RANGE, PushOptions, PushReport, push};

/// Reads `GETRANGE` replies from the plain node `node` into a slot of `slot_bytes`, as
/// a run's reads do, until one fails; how many were read. For the reply reader's fuzz
/// target (`crates/fuzz-targets`), which plays the node.
#[doc(hidden)]
pub fn read_range_replies(
    node: &str,
    slot_bytes: usize,
    timeout: std::time::Duration,
) -> Result<u64, FarError> {
    let address = FarAddress::parse(&format!("redis://{node}/fuzz"))?;
    let deadline = std::time::Instant::now() + timeout;
    let mut connection = wire::RangeConnection::open(&address, None, node, deadline, timeout)?;
    let mut slot = vec![0u8; slot_bytes];
    let mut replies = 0;
    while connection.read_range(&mut slot).is_ok() {
        replies += 1;
    }
    Ok(replies)
}

/// Reads a stored manifest as opening a far graph does, for the manifest's fuzz target.
#[doc(hidden)]
pub fn decode_manifest(name: &str, bytes: &[u8]) -> Result<Manifest, FarError> {
    Manifest::decode(name, bytes)
}
