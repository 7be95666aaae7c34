//! Far memory: a graph stored on a Redis-protocol server or a Redis Cluster (Valkey
//! too), its lists fetched by the read pipeline as the disk tiers read them from a file.
//!
//! `upload` stores a graph (chunks under a new generation, then the manifest naming it);
//! `listing` lists and removes every key of a name; `check` checks a stored graph's
//! chunks and pages; `graph` opens one for runs, with its vertex sections in a local
//! cache; `queue` is the page source's reads in flight; `cluster` finds the nodes and
//! which owns each key.

mod address;
mod check;
mod cluster;
mod error;
mod graph;
mod listing;
mod manifest;
mod queue;
mod upload;
mod wire;

pub use address::{CA_VARIABLE, FarAddress, PASSWORD_VARIABLE, USER_VARIABLE, is_far_address};
pub use check::{FarCheck, check};
pub use error::FarError;
pub use graph::{FarGraph, FarOptions, NodeFigures, WholeCopy, cache_folder};
pub use listing::{IncompletePush, Listing, Removal, StoredGraph, list, remove};
pub use manifest::{Manifest, ManifestSection};
pub use upload::{DEFAULT_FAR_CHUNK_BYTES, FAR_CHUNK_RANGE, PushOptions, PushReport, push};
