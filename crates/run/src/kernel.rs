//! The kernels a run can start, as the front ends name them: a handle on the engine's
//! registry ([`swapless_engine::KERNELS`]), so that no kernel is named here.

use swapless_engine::KERNELS;
use swapless_engine::kernel::{AnyKernel, KernelInfo, ResultKind};

/// A kernel of the registry.
#[derive(Clone, Copy)]
pub struct Kernel(&'static dyn AnyKernel);

impl Kernel {
    /// Every kernel, in the order the docs list them.
    pub fn all() -> impl Iterator<Item = Kernel> {
        KERNELS.iter().map(|&kernel| Kernel(kernel))
    }

    /// The kernel with this short name (`bfs`, `pr`, ...).
    pub fn from_name(name: &str) -> Option<Kernel> {
        Kernel::all().find(|kernel| kernel.name() == name)
    }

    /// What the kernel declares of itself: name, help, parameters, facts.
    pub fn info(self) -> &'static KernelInfo {
        self.0.info()
    }

    /// The kernel's short name.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Whether the kernel starts from one source vertex.
    pub fn takes_source(self) -> bool {
        self.info().takes_source
    }

    /// Whether its output is a single number in the report rather than an array.
    pub fn returns_a_number(self) -> bool {
        self.info().result == ResultKind::Number
    }

    /// Whether its output is edges (pairs of vertices) rather than a value per vertex.
    pub fn returns_edges(self) -> bool {
        self.info().result == ResultKind::Edges
    }

    /// The kernel's contract.
    pub fn contract(self) -> &'static dyn AnyKernel {
        self.0
    }
}

impl PartialEq for Kernel {
    fn eq(&self, other: &Kernel) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Kernel {}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

#[cfg(feature = "clap")]
impl clap::ValueEnum for Kernel {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: std::sync::LazyLock<Vec<Kernel>> =
            std::sync::LazyLock::new(|| Kernel::all().collect());
        &ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()).help(self.info().about))
    }
}
