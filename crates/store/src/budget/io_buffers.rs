//! How the read pipeline's I/O buffers are laid out: slots of a chunk plus the pages a
//! list boundary can add, a region for lists longer than a slot, and room for the sides
//! of lists split between two reads. The plan weighs what the pipeline needs at least
//! and at best, gives it a share, and hands the pipeline the [`SlotGeometry`] of that
//! share as plain figures.

use crate::units::{PAGE, SPLIT_PIECE_BYTES};

/// Fewest I/O slots the pipeline works with (two reads in flight, two being computed on).
const MIN_SLOTS: u64 = 4;

/// The pipeline's I/O buffers for one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlotGeometry {
    /// Bytes of one I/O slot (a chunk plus the pages a list boundary can add).
    pub slot_bytes: u64,
    /// How many regular slots the I/O buffers hold (beside the oversize ones).
    pub regular_slots: u64,
    /// Reads that may hold room in the I/O buffers at once: as many as slots, or a full
    /// queue's when the budget has room for the sides of split lists they may leave
    /// waiting (a read shorter than a slot takes only its pages).
    pub reads_held: u64,
    /// Bytes of the slot reserved for lists longer than a chunk (0 if none is).
    pub oversize_slot_bytes: u64,
}

/// What sizes the I/O buffers: the reads' length, the longest list, the sections a list
/// is read from (2 with weights) and the queue's depth.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IoShape {
    slot_bytes: u64,
    oversize_slot_bytes: u64,
    sections: u64,
    wanted_slots: u64,
}

impl IoShape {
    /// The shape for reads of `chunk_bytes` over lists of at most `longest_list_bytes`,
    /// each read from `sections` sections, with `queue_depth` reads in flight.
    pub(crate) fn new(
        chunk_bytes: u64,
        longest_list_bytes: u64,
        sections: u64,
        queue_depth: usize,
    ) -> IoShape {
        let slot_bytes = chunk_bytes + 2 * PAGE;
        let oversize_slot_bytes = match longest_list_bytes + 2 * PAGE > slot_bytes {
            true => (longest_list_bytes + 2 * PAGE).div_ceil(PAGE) * PAGE,
            false => 0,
        };
        IoShape {
            slot_bytes,
            oversize_slot_bytes,
            sections,
            wanted_slots: (queue_depth as u64 * sections).max(MIN_SLOTS),
        }
    }

    /// What a slot costs: itself and the sides of the two lists its read can split with
    /// the reads beside it, which wait in memory until the other side lands (a page each).
    fn slot_cost(&self) -> u64 {
        self.slot_bytes + 2 * SPLIT_PIECE_BYTES
    }

    /// What the buffers hold besides the regular slots: the oversize slot, and one more
    /// split side beside the next read to go out, per section.
    pub(crate) fn fixed_bytes(&self) -> u64 {
        (self.oversize_slot_bytes + SPLIT_PIECE_BYTES) * self.sections
    }

    /// The least the pipeline works with.
    pub(crate) fn least_bytes(&self) -> u64 {
        MIN_SLOTS * self.slot_cost() + self.fixed_bytes()
    }

    /// What a full queue of reads takes.
    pub(crate) fn wanted_bytes(&self) -> u64 {
        self.wanted_slots * self.slot_cost() + self.fixed_bytes()
    }

    /// The slots `slot_share` bytes hold (at least the fewest, at most a full queue's),
    /// with room for the split sides of a full queue's reads when `spare` (what is left
    /// beside everything else) holds them too; and the bytes the buffers take.
    pub(crate) fn within(&self, slot_share: u64, spare: u64) -> (SlotGeometry, u64) {
        let slots = (slot_share / self.slot_cost()).clamp(MIN_SLOTS, self.wanted_slots);
        let mut io = slots * self.slot_cost() + self.fixed_bytes();
        // Reads shorter than a slot take only their pages of the buffers, so more reads
        // than slots can hold room at once, and each may leave the sides of two split
        // lists waiting. Room for those of a full queue costs little and is taken when
        // the budget has it; else no more reads than slots.
        let more_sides = (self.wanted_slots - slots) * 2 * SPLIT_PIECE_BYTES;
        let held = match spare.saturating_sub(io) >= more_sides {
            true => {
                io += more_sides;
                self.wanted_slots
            }
            false => slots,
        };
        let geometry = SlotGeometry {
            slot_bytes: self.slot_bytes,
            regular_slots: slots,
            reads_held: held / self.sections,
            oversize_slot_bytes: self.oversize_slot_bytes,
        };
        (geometry, io)
    }
}
