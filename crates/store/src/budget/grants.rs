//! The plan as the run reads it: its figures, read-only, for the printout and the
//! report, and the typed grants each tier takes (what it may hold and how it reads), so
//! that no tier picks the figures of another out of the whole plan: the pipeline's and
//! the mmap tier's within the store, the kernel's arrays' and the verifier's for the run.

use swapless_format::SectionKind;

use super::Tier;
use super::io_buffers::SlotGeometry;
use crate::OffsetForm;

/// One data segment and where the plan puts it.
#[derive(Clone, Debug)]
pub struct Segment {
    /// What it is (`out_neighbors`, `property arrays`, ...).
    pub name: String,
    /// Its size.
    pub bytes: u64,
    /// hot, warm or bulk (DESIGN §4).
    pub class: &'static str,
    /// Where it lives during the run.
    pub placement: String,
}

/// The placement for one run.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The tier that serves edges.
    pub(super) tier: Tier,
    /// The budget everything must fit in.
    pub(super) budget_bytes: u64,
    /// What a dram run of this kernel holds: lists read, offsets, property arrays.
    pub(super) footprint_bytes: u64,
    /// The least budget a disk tier can run this kernel with.
    pub(super) minimum_bytes: u64,
    /// What the system said when this process was refused io_uring, if that made the
    /// plan choose the mmap tier where it would have chosen direct.
    pub(super) io_uring_refused: Option<String>,
    /// Every segment with its placement.
    pub(super) segments: Vec<Segment>,
    /// With verification: bytes of the file's pages the verifier's map may keep (at
    /// least [`super::VERIFY_MAPPED_BYTES`], and what the budget leaves beside the rest of its
    /// phase).
    pub(super) verify_mapped_bytes: u64,
    /// How offsets are held in memory.
    pub(super) offset_form: OffsetForm,
    /// Bytes of I/O buffers (in-flight and being computed on).
    pub(super) io_buffer_bytes: u64,
    /// Bytes of each direction's list prefix held in memory: (out, in).
    pub(super) cached_list_bytes: (u64, u64),
    /// Bytes of the direct tier's page cache for gathers (0 on other tiers).
    pub(super) gather_cache_bytes: u64,
    /// Bytes per scan read.
    pub(super) chunk_bytes: u64,
    /// Whether this is a search on a banded graph, for which the plan chose small reads,
    /// offsets that leave room for the cache, and on direct the page cache for gathers
    /// (when not told otherwise).
    pub(super) banded_search: bool,
    /// The read pipeline's slots within [`Plan::io_buffer_bytes`] (none on dram and mmap).
    pub(super) slots: SlotGeometry,
    /// Reads in flight at most.
    pub(super) queue_depth: usize,
    /// Whether the run holds and reads edge weights: the graph has them and the kernel
    /// reads them.
    pub(super) weighted: bool,
    /// The kernel.
    pub(super) kernel: String,
    /// Bytes of the kernel's optional memory held for it (of
    /// [`super::PlanRequest::optional_property_bytes`]; 0: none).
    pub(super) optional_property_granted: u64,
    /// Whether the run reads (out, in) list sections; on an undirected graph the out
    /// sections serve both directions.
    pub(super) sections_read: (bool, bool),
    /// Whether a disk tier reads the `out_heads` section for the passes that need only
    /// the heads of the out-lists (and holds its page checksums).
    pub(super) heads_read: bool,
}

impl Plan {
    /// The tier that serves edges.
    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// The budget everything must fit in.
    pub fn budget_bytes(&self) -> u64 {
        self.budget_bytes
    }

    /// What a dram run of this kernel holds: lists read, offsets, property arrays.
    pub fn footprint_bytes(&self) -> u64 {
        self.footprint_bytes
    }

    /// The least budget a disk tier can run this kernel with.
    pub fn minimum_bytes(&self) -> u64 {
        self.minimum_bytes
    }

    /// What the system said when this process was refused io_uring, if that made the
    /// plan choose the mmap tier where it would have chosen direct.
    pub fn io_uring_refused(&self) -> Option<&str> {
        self.io_uring_refused.as_deref()
    }

    /// Every segment with its placement, in the printout's order.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// How offsets are held in memory.
    pub fn offset_form(&self) -> OffsetForm {
        self.offset_form
    }

    /// Bytes of I/O buffers (in-flight and being computed on).
    pub fn io_buffer_bytes(&self) -> u64 {
        self.io_buffer_bytes
    }

    /// Bytes of each direction's lists held in memory: (out, in).
    pub fn cached_list_bytes(&self) -> (u64, u64) {
        self.cached_list_bytes
    }

    /// Bytes of the direct tier's page cache for gathers (0 on other tiers).
    pub fn gather_cache_bytes(&self) -> u64 {
        self.gather_cache_bytes
    }

    /// Bytes per scan read.
    pub fn chunk_bytes(&self) -> u64 {
        self.chunk_bytes
    }

    /// Whether the plan treats the run as a search on a banded graph.
    pub fn banded_search(&self) -> bool {
        self.banded_search
    }

    /// The read pipeline's slots within the I/O buffers (none on dram and mmap).
    pub fn slots(&self) -> SlotGeometry {
        self.slots
    }

    /// Reads in flight at most.
    pub fn queue_depth(&self) -> usize {
        self.queue_depth
    }

    /// Whether the run holds and reads edge weights.
    pub fn weighted(&self) -> bool {
        self.weighted
    }

    /// The kernel's name.
    pub fn kernel(&self) -> &str {
        &self.kernel
    }

    /// Whether the kernel gets any of its optional bytes.
    pub fn optional_property_held(&self) -> bool {
        self.optional_property_granted > 0
    }

    /// Bytes of the kernel's optional memory held for it.
    pub fn optional_property_bytes(&self) -> u64 {
        self.optional_property_granted
    }

    /// Bytes of the cached prefix of each list section, (out, in): a weighted run's
    /// cache holds as many bytes of weights as of neighbors.
    pub fn cached_prefix_bytes(&self) -> (u64, u64) {
        self.lists().prefix_bytes
    }

    /// What a disk tier holds of the lists and which sections it reads.
    fn lists(&self) -> ListsGrant {
        let sections = sections_per_list(self.weighted);
        let (out_bytes, in_bytes) = self.cached_list_bytes;
        ListsGrant {
            offset_form: self.offset_form,
            weighted: self.weighted,
            prefix_bytes: (out_bytes / sections, in_bytes / sections),
            sections_read: self.sections_read,
            heads_read: self.heads_read,
        }
    }

    /// The read pipeline's grant: its lists, slots, reads and gather cache.
    pub(crate) fn pipeline(&self) -> PipelineGrant {
        PipelineGrant {
            lists: self.lists(),
            slots: self.slots,
            chunk_bytes: self.chunk_bytes,
            queue_depth: self.queue_depth,
            gather_cache_bytes: self.gather_cache_bytes,
        }
    }

    /// The mmap tier's grant: its lists, and the buffers its windows of lists take.
    pub(crate) fn mmap(&self) -> MmapGrant {
        MmapGrant {
            lists: self.lists(),
            io_buffer_bytes: self.io_buffer_bytes,
            chunk_bytes: self.chunk_bytes,
        }
    }

    /// The kernel's grant: how much of its optional memory is held.
    pub fn kernel_arrays(&self) -> KernelArraysGrant {
        KernelArraysGrant {
            optional_bytes: self.optional_property_granted,
        }
    }

    /// The serial verifier's grant after the run, for a verifier that copies blocks of
    /// lists into memory (`copies_lists`) or reads them through its map alone.
    pub fn verification(&self, copies_lists: bool) -> VerificationGrant {
        // A verifier that copies blocks takes half of the bytes its map could keep.
        let (mapped_bytes, block_bytes) = match copies_lists {
            true => (self.verify_mapped_bytes / 2, self.verify_mapped_bytes / 2),
            false => (self.verify_mapped_bytes, 0),
        };
        VerificationGrant {
            mapped_bytes,
            block_bytes,
        }
    }
}

/// What the kernel may hold besides its declared hot arrays.
#[derive(Clone, Copy, Debug)]
pub struct KernelArraysGrant {
    /// Bytes of its optional memory it may hold (bfs's kept lists; 0: none).
    pub optional_bytes: u64,
}

/// What the serial verifier may hold after the run, when the graph's data is released.
#[derive(Clone, Copy, Debug)]
pub struct VerificationGrant {
    /// Bytes of the file's pages its map may keep.
    pub mapped_bytes: u64,
    /// Bytes of lists it may copy into memory at once (0 for one that copies none).
    pub block_bytes: u64,
}

/// Sections each list is read from: its neighbors, and its weights on a weighted run.
pub(super) fn sections_per_list(weighted: bool) -> u64 {
    if weighted { 2 } else { 1 }
}

/// What a disk tier holds of the lists and which of their sections it reads: the part
/// of its grant the mmap tier and the read pipeline share.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ListsGrant {
    /// How offsets are held in memory.
    pub(crate) offset_form: OffsetForm,
    /// Whether lists carry weights the run reads.
    pub(crate) weighted: bool,
    /// Bytes of the prefix of each list section held in memory: (out, in).
    pub(crate) prefix_bytes: (u64, u64),
    /// Whether the run reads the (out, in) lists.
    sections_read: (bool, bool),
    /// Whether the `out_heads` section is read for the passes that need only the heads
    /// of the out-lists.
    pub(crate) heads_read: bool,
}

impl ListsGrant {
    /// Sections each list is read from: its neighbors, and its weights on a weighted run.
    pub(crate) fn sections_per_list(&self) -> u64 {
        sections_per_list(self.weighted)
    }

    /// Whether the run reads the lists of neighbor section `neighbors`.
    pub(crate) fn reads(&self, neighbors: SectionKind) -> bool {
        match neighbors {
            SectionKind::InNeighbors => self.sections_read.1,
            _ => self.sections_read.0,
        }
    }
}

/// What the read pipeline may hold and how it reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PipelineGrant {
    /// The lists it holds and reads.
    pub(crate) lists: ListsGrant,
    /// Its I/O slots.
    pub(crate) slots: SlotGeometry,
    /// Bytes per scan read.
    pub(crate) chunk_bytes: u64,
    /// Reads in flight at most.
    pub(crate) queue_depth: usize,
    /// Bytes of its page cache for gathers.
    pub(crate) gather_cache_bytes: u64,
}

/// What the mmap tier may hold and how it reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MmapGrant {
    /// The lists it keeps mapped and reads.
    pub(crate) lists: ListsGrant,
    /// Bytes of the windows of lists mapped at once (computed on and prefetched).
    pub(crate) io_buffer_bytes: u64,
    /// Bytes per scan read.
    pub(crate) chunk_bytes: u64,
}
