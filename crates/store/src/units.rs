//! The units every layer of the store counts in: pages, entries, and the few page counts
//! that bound how reads are cut. The bottom of the crate: nothing here imports any of it,
//! so the budget, the list machinery and the tiers can all take their figures from here.

/// Bytes of a page: sections start on one, and every read is whole pages of a section.
pub(crate) const PAGE: u64 = 4096;

/// Bytes per neighbor id and per weight.
pub(crate) const ENTRY_BYTES: u64 = 4;

/// Bytes of a transparent huge page (2 MiB on x86-64 and on arm64 with 4 KiB pages).
pub const HUGE_PAGE: usize = 2 << 20;

/// Most bytes of a split list that one read holds beyond the boundary: a list is split
/// between two reads only when both sides fit in a page, so the side that lands first
/// waits in at most a page (per section) and the plan can count it.
pub(crate) const SPLIT_PIECE_BYTES: u64 = PAGE;

/// Reads smaller than this gain little from a deeper queue; reads up to this many
/// bytes apart share one request in a gather (a request costs about as much device
/// time as reading 13 KiB more at this disk's figures).
pub(crate) const GATHER_GAP_PAGES: u64 = 2;

/// Unneeded pages past a list's head that a head pass ([`crate::ListsNeeded::Heads`])
/// reads rather than end a read and start another after them.
pub(crate) const HEAD_GAP_PAGES: u64 = 8;

/// Pages of an unneeded list past its first a partial scan reads rather than end a
/// read and start another after them: a request costs about as much device time as
/// 13 KiB more of a read (see [`GATHER_GAP_PAGES`]), so longer gaps are worth a request.
pub(crate) const SKIP_GAP_PAGES: u64 = 2;
