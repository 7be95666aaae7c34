//! The kernels a run can start, and what each declares to the plan: its arrays, what it
//! reads, and the memory of its output and verification phases.

use swapless_engine::kernels::Reads;
use swapless_engine::kernels::{
    betweenness, bfs, connected_components, maximal_independent_set, pagerank, radii, sssp,
    triangle_count,
};

/// The kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Kernel {
    /// Breadth-first search (direction-optimizing): parent per vertex.
    Bfs,
    /// PageRank (pull, damping 0.85, dangling mass spread): score per vertex.
    Pr,
    /// Connected components (weak, Afforest): label per vertex.
    Cc,
    /// Single-source shortest paths (delta-stepping): distance per vertex.
    Sssp,
    /// Betweenness centrality (Brandes from sampled sources): score per vertex.
    Bc,
    /// Triangle count on the undirected view: a number.
    Tc,
    /// Graph radii estimate (multi-source BFS from up to 64 sources): eccentricity estimate per vertex.
    Radii,
    /// Maximal independent set: membership per vertex.
    Mis,
}

impl Kernel {
    /// Every kernel, in the order the docs list them.
    pub const ALL: [Kernel; 8] = [
        Kernel::Bfs,
        Kernel::Pr,
        Kernel::Cc,
        Kernel::Sssp,
        Kernel::Bc,
        Kernel::Tc,
        Kernel::Radii,
        Kernel::Mis,
    ];

    /// The kernel's short name (`bfs`, `pr`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Bfs => "bfs",
            Kernel::Pr => "pr",
            Kernel::Cc => "cc",
            Kernel::Sssp => "sssp",
            Kernel::Bc => "bc",
            Kernel::Tc => "tc",
            Kernel::Radii => "radii",
            Kernel::Mis => "mis",
        }
    }

    /// The kernel with this short name.
    pub fn from_name(name: &str) -> Option<Kernel> {
        Kernel::ALL.into_iter().find(|kernel| kernel.name() == name)
    }

    /// Whether the kernel starts from one source vertex.
    pub fn takes_source(self) -> bool {
        matches!(self, Kernel::Bfs | Kernel::Sssp)
    }

    /// Bytes of each fixed-size array the kernel makes (reserved before the graph loads).
    pub fn property_arrays(self, vertices: u64) -> Vec<u64> {
        match self {
            Kernel::Bfs => bfs::property_arrays(vertices),
            Kernel::Pr => pagerank::property_arrays(vertices),
            Kernel::Cc => connected_components::property_arrays(vertices),
            Kernel::Sssp => sssp::property_arrays(vertices),
            Kernel::Bc => betweenness::property_arrays(vertices),
            Kernel::Tc => triangle_count::property_arrays(vertices),
            Kernel::Radii => radii::property_arrays(vertices),
            Kernel::Mis => maximal_independent_set::property_arrays(vertices),
        }
    }

    /// Bytes the kernel can use besides its own arrays to read less, when the budget
    /// has room (bfs's kept lists); 0 for the others.
    pub fn optional_property_bytes(self, vertices: u64) -> u64 {
        match self {
            Kernel::Bfs => bfs::kept_lists_bytes(vertices),
            _ => 0,
        }
    }

    /// Bytes of the kernel's own arrays, as the kernel states them.
    pub fn property_bytes(self, vertices: u64, arcs: u64, directed: bool) -> u64 {
        match self {
            Kernel::Bfs => bfs::property_bytes(vertices, arcs),
            Kernel::Pr => pagerank::property_bytes(vertices, arcs),
            Kernel::Cc => connected_components::property_bytes(vertices, arcs),
            Kernel::Sssp => sssp::property_bytes(vertices, arcs),
            Kernel::Bc => betweenness::property_bytes(vertices, arcs),
            Kernel::Tc => triangle_count::property_bytes(vertices, arcs, directed),
            Kernel::Radii => radii::property_bytes(vertices, arcs),
            Kernel::Mis => maximal_independent_set::property_bytes(vertices, arcs),
        }
    }

    /// Bytes held while the result becomes the output array, after the graph's data,
    /// caches and buffers are released. A result in a property array is copied out a
    /// 2 MiB range at a time, each range released once copied, so without a permutation
    /// little more than the output array is held; through a permutation, both are.
    pub fn output_bytes(self, vertices: u64, permuted: bool) -> u64 {
        // (result, output) bytes per vertex: u32 to int64, f32 or f64 to f64, bool to int8.
        let (result, output) = match self {
            Kernel::Bfs | Kernel::Cc | Kernel::Radii | Kernel::Pr => (4, 8),
            Kernel::Sssp | Kernel::Bc => (8, 8),
            Kernel::Tc => (0, 0),
            Kernel::Mis => (1, 1),
        };
        let released_as_copied = matches!(
            self,
            Kernel::Bfs | Kernel::Cc | Kernel::Radii | Kernel::Pr | Kernel::Bc
        );
        if output == 0 {
            0
        } else if released_as_copied && !permuted {
            output * vertices + (2 << 20).min(result * vertices)
        } else {
            (result + output) * vertices
        }
    }

    /// Bytes held while the serial verifier checks the result, after the graph's data,
    /// caches and buffers are released: the result and the verifier's own arrays (the
    /// pages of the file it maps are the plan's to count).
    pub fn verification_bytes(self, vertices: u64) -> u64 {
        let (result, verifier) = match self {
            Kernel::Bfs => (4, bfs::verifier_bytes(vertices)),
            Kernel::Pr => (4, pagerank::verifier_bytes(vertices)),
            Kernel::Cc => (4, connected_components::verifier_bytes(vertices)),
            Kernel::Sssp => (8, sssp::verifier_bytes(vertices)),
            Kernel::Bc => (8, betweenness::verifier_bytes(vertices)),
            Kernel::Tc => (0, triangle_count::verifier_bytes(vertices)),
            Kernel::Radii => (4, radii::verifier_bytes(vertices)),
            Kernel::Mis => (1, maximal_independent_set::verifier_bytes(vertices)),
        };
        result * vertices + verifier
    }

    /// Whether the kernel searches: its steps gather a frontier's lists (so on a banded
    /// graph each step rereads pages the steps before it read).
    pub fn searches(self) -> bool {
        matches!(
            self,
            Kernel::Bfs | Kernel::Sssp | Kernel::Bc | Kernel::Radii
        )
    }

    /// The lists the kernel reads.
    pub fn reads(self) -> Reads {
        match self {
            Kernel::Bfs => bfs::READS,
            Kernel::Pr => pagerank::READS,
            Kernel::Cc => connected_components::READS,
            Kernel::Sssp => sssp::READS,
            Kernel::Bc => betweenness::READS,
            Kernel::Tc => triangle_count::READS,
            Kernel::Radii => radii::READS,
            Kernel::Mis => maximal_independent_set::READS,
        }
    }
}
