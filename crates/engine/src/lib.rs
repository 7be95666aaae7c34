//! The engine: frontiers, property arrays, per-thread buffers, and the kernels
//! (one file each, each with a serial verifier) that run on any [`EdgeStore`] tier.
//!
//! [`EdgeStore`]: swapless_store::EdgeStore

pub mod edge_map;
pub mod frontier;
pub mod kernel;
pub mod kernels;
pub mod parameters;
pub mod property;
pub mod saved_state;

pub use kernels::pick_source;
pub use kernels::registry::KERNELS;
