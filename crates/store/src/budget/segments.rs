//! The plan's printout: every segment of the run with its size, class (DESIGN §4) and
//! where it lives.

use super::grants::Segment;
use super::request::PlanRequest;
use super::sections::{Direction, Sizes};
use super::{PROCESS_BYTES, Tier};
use crate::OffsetForm;

/// What the plan decided, as the printout needs it.
pub(super) struct Placed<'a> {
    pub(super) request: &'a PlanRequest,
    pub(super) sizes: &'a Sizes,
    pub(super) tier: Tier,
    /// The offsets held: (out, in).
    pub(super) offsets: (u64, u64),
    pub(super) offset_form: OffsetForm,
    /// Memory held to check pages read (0 on dram).
    pub(super) list_checks: u64,
    /// Bytes of the kernel's optional memory held.
    pub(super) optional_property_granted: u64,
    /// Each direction's lists held in memory: (out, in).
    pub(super) cached_list_bytes: (u64, u64),
    /// Whether the file was reordered by degree.
    pub(super) reordered: bool,
    pub(super) heads_read: bool,
    pub(super) gather_cache_bytes: u64,
    pub(super) banded_search: bool,
    pub(super) io_buffer_bytes: u64,
    pub(super) output_bytes: u64,
    pub(super) verification_bytes: u64,
}

/// Every segment of the run, in the order the printout lists them: hot data, warm
/// data, the lists, what reading them takes, and what the phases after the run hold.
pub(super) fn list(placed: &Placed) -> Vec<Segment> {
    let mut segments = hot_segments(placed);
    segments.extend(warm_segments(placed));
    segments.extend(list_segments(placed));
    segments.extend(read_segments(placed));
    segments.extend(after_run_segments(placed));
    segments
}

/// The kernel's arrays, the process itself, the threads and receive buffers beyond it,
/// and the kernel's optional arrays, held or not.
fn hot_segments(placed: &Placed) -> Vec<Segment> {
    let mut segments = vec![Segment {
        name: format!("{} property arrays", placed.request.kernel),
        bytes: placed.request.property_bytes,
        class: "hot",
        placement: "dram".to_string(),
    }];
    segments.push(Segment {
        name: "the process itself".to_string(),
        bytes: PROCESS_BYTES,
        class: "hot",
        placement: match placed.tier {
            Tier::Mmap => "dram: binary, libraries, eight threads' stacks, allocator slack, \
                           and pages mapped around faults"
                .to_string(),
            _ => "dram: binary, libraries, eight threads' stacks, allocator slack".to_string(),
        },
    });
    if placed.request.thread_bytes > 0 {
        segments.push(Segment {
            name: "worker thread stacks".to_string(),
            bytes: placed.request.thread_bytes,
            class: "hot",
            placement: "dram (threads beyond the eight the process's share covers)".to_string(),
        });
    }
    let load_scans = placed.sizes.load_scans(placed.request.threads);
    if placed.tier == Tier::Dram && load_scans > 0 {
        segments.push(Segment {
            name: "load scans".to_string(),
            bytes: load_scans,
            class: "hot",
            placement:
                "dram while loading (each thread reads and decodes a range of compressed lists)"
                    .to_string(),
        });
    }
    let decode_buffers = placed.sizes.decode_buffers(placed.request.threads);
    if placed.tier != Tier::Dram && decode_buffers > 0 {
        segments.push(Segment {
            name: "decode buffers".to_string(),
            bytes: decode_buffers,
            class: "hot",
            placement: "dram (each thread decodes compressed lists a block, or the longest list, at a time)"
                .to_string(),
        });
    }
    if placed.request.network_bytes > 0 {
        segments.push(Segment {
            name: "far receive buffers".to_string(),
            bytes: placed.request.network_bytes,
            class: "hot",
            placement: "dram (replies in flight on every connection to the cluster)".to_string(),
        });
    }
    if placed.request.optional_property_bytes > 0 {
        segments.push(Segment {
            name: format!("{} optional arrays", placed.request.kernel),
            bytes: match placed.optional_property_granted {
                0 => placed.request.optional_property_bytes,
                granted => granted,
            },
            class: "hot",
            placement: match placed.optional_property_granted {
                0 => {
                    "not held: no room beyond the least budget (the kernel reads more)".to_string()
                }
                granted if granted < placed.request.optional_property_bytes => format!(
                    "dram, {granted} of their {} bytes: the room beyond the least budget (the \
                     kernel reads less with them)",
                    placed.request.optional_property_bytes
                ),
                _ => "dram (the kernel reads less with them)".to_string(),
            },
        });
    }
    segments
}

/// The offsets in the form held, the page checksums a disk tier holds, the permutation.
fn warm_segments(placed: &Placed) -> Vec<Segment> {
    let sizes = placed.sizes;
    let compressed = sizes.compressed && placed.tier != Tier::Dram;
    let mut segments = Vec::new();
    for (name, bytes) in [
        (
            match compressed {
                true => "out_offsets and out_positions",
                false => "out_offsets",
            },
            placed.offsets.0,
        ),
        (
            match compressed {
                true => "in_offsets and in_positions",
                false => "in_offsets",
            },
            placed.offsets.1,
        ),
    ] {
        if bytes > 0 {
            segments.push(Segment {
                name: name.to_string(),
                bytes,
                class: "warm",
                placement: match placed.offset_form {
                    OffsetForm::Plain => "dram".to_string(),
                    OffsetForm::Compressed => "dram, Elias-Fano compressed".to_string(),
                },
            });
        }
    }
    if placed.tier != Tier::Dram && !sizes.directions.is_empty() {
        segments.push(Segment {
            name: "list page checksums".to_string(),
            bytes: placed.list_checks,
            class: "warm",
            placement: match sizes.pages_checked {
                true => {
                    "dram: each page read is checked once a run before a kernel sees it".to_string()
                }
                false => "none in a version-1 file: the lists read are only range-checked \
                          (building the file again writes one with a checksum a page)"
                    .to_string(),
            },
        });
    }
    if sizes.permutation > 0 {
        segments.push(Segment {
            name: "permutation (and its inverse)".to_string(),
            bytes: sizes.permutation,
            class: "warm",
            placement: "dram".to_string(),
        });
    }
    segments
}

/// Each direction's lists, the heads section a disk tier reads for a head pass, and the
/// weights the run leaves unread.
fn list_segments(placed: &Placed) -> Vec<Segment> {
    let sizes = placed.sizes;
    let mut segments = Vec::new();
    for direction in &sizes.directions {
        segments.push(Segment {
            name: format!(
                "{}_neighbors{}",
                direction.name,
                if sizes.weighted { " + weights" } else { "" }
            ),
            bytes: direction.lists,
            class: "bulk",
            placement: lists_placement(placed, direction),
        });
    }
    if placed.heads_read {
        segments.push(Segment {
            name: "out_heads".to_string(),
            bytes: sizes.heads_bytes,
            class: "bulk",
            placement: format!(
                "read by {} for the pass that needs only the start of each list, \
                 instead of the lists",
                placed.tier
            ),
        });
    }
    for direction in sizes.directions.iter().filter(|d| d.unread_weights > 0) {
        segments.push(Segment {
            name: format!("{}_weights", direction.name),
            bytes: direction.unread_weights,
            class: "bulk",
            placement: format!(
                "not held or read: {} reads no weights",
                placed.request.kernel
            ),
        });
    }
    segments
}

/// Where a direction's lists live: all in dram, or a prefix held and the rest read by
/// the tier (and by a head pass too when the file has no heads section).
fn lists_placement(placed: &Placed, direction: &Direction) -> String {
    let sizes = placed.sizes;
    let share = match direction.name {
        "out" => placed.cached_list_bytes.0,
        _ => placed.cached_list_bytes.1,
    };
    let placement = if placed.tier == Tier::Dram || share >= direction.lists {
        "dram".to_string()
    } else {
        format!(
            "first {:.0}% in dram{}, the rest read by {}",
            100.0 * share as f64 / direction.lists.max(1) as f64,
            if placed.reordered {
                " (the hottest lists, after dbg)"
            } else {
                " (a build that reorders by degree makes these the hottest)"
            },
            placed.tier
        )
    };
    // A head pass reads these lists themselves when the file has no heads section.
    match direction.name == "out"
        && sizes.head_pass
        && sizes.heads_bytes == 0
        && placed.tier != Tier::Dram
        && share < direction.lists
    {
        true => format!(
            "{placement}; the pass that needs only their heads reads them too (a file \
             built with a heads section reads 8 bytes a vertex instead)"
        ),
        false => placement,
    }
}

/// What reading the lists takes: the page cache for gathers and the I/O buffers.
fn read_segments(placed: &Placed) -> Vec<Segment> {
    let mut segments = Vec::new();
    if placed.gather_cache_bytes > 0 {
        segments.push(Segment {
            name: "page cache for gathers".to_string(),
            bytes: placed.gather_cache_bytes,
            class: "bulk",
            placement: match placed.banded_search {
                true => "dram, pages the last gathers read (CLOCK; the lists are banded, so a \
                         search's next steps reread them)"
                    .to_string(),
                false => "dram, pages the last gathers read (CLOCK)".to_string(),
            },
        });
    }
    if placed.io_buffer_bytes > 0 {
        segments.push(Segment {
            name: "I/O buffers".to_string(),
            bytes: placed.io_buffer_bytes,
            class: "hot",
            placement: "dram".to_string(),
        });
    }
    segments
}

/// What the phases after the run hold: the result as the output array, the verifier.
fn after_run_segments(placed: &Placed) -> Vec<Segment> {
    let mut segments = Vec::new();
    if placed.output_bytes > 0 {
        segments.push(Segment {
            name: "result as output array".to_string(),
            bytes: placed.output_bytes,
            class: "hot",
            placement:
                "dram, after the run releases everything above (runs that return the result)"
                    .to_string(),
        });
    }
    if placed.verification_bytes > 0 {
        segments.push(Segment {
            name: "verification".to_string(),
            bytes: placed.verification_bytes,
            class: "hot",
            placement: "dram, after the run releases everything above (runs that verify it)"
                .to_string(),
        });
    }
    segments
}
