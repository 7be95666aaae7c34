//! What the two disk tiers (mmap and the read pipeline) share about the lists: where
//! each direction's lists live and the checks on them at open ([`layout`]), the checks
//! on every page read ([`page_checks`]), the heads section ([`heads`]), how a scan or a
//! gather is cut into reads ([`read_plan`]) and how landed bytes become the lists a
//! kernel sees ([`delivery`]). Nothing here knows the plan: the tiers hand these modules
//! the figures of their grants.

pub(crate) mod decode;
pub(crate) mod delivery;
pub(crate) mod heads;
pub(crate) mod layout;
pub(crate) mod page_checks;
pub(crate) mod read_plan;
