//! Where a run's edges are served from and within what memory, as a caller states it,
//! and the plan the store makes of it.

use serde_json::{Value, json};
use std::path::Path;
use swapless_engine::kernel::GraphShape;
use swapless_format::GraphFile;

use swapless_store::{GraphOrigin, OffsetForm, OriginOptions, Plan, PlanRequest, Tier};

use crate::report::PlanFigures;
use crate::{Kernel, RunError, RunOption, usable_cores};

/// Where edges are served from and within what memory.
#[derive(Clone, Debug)]
pub struct Placement {
    /// The whole run's memory budget; `None`: dram if the footprint fits the default.
    pub budget_bytes: Option<u64>,
    /// The budget when none is given (the CLI uses [`crate::default_memory_budget`]).
    pub default_budget_bytes: u64,
    /// The tier; `None`: dram if the footprint fits the budget, else direct (mmap where
    /// io_uring is refused).
    pub tier: Option<Tier>,
    /// Bytes per scan read (a multiple of 4 KiB, 4 KiB to 4 MiB); `None`: the plan's
    /// choice (256 KiB, or 16 KiB for a search on a banded graph).
    pub chunk_bytes: Option<u64>,
    /// Reads the direct tier keeps in flight (1 to 4096).
    pub queue_depth: usize,
    /// Share of the direct tier's list cache kept for pages gathers read (0 to 1);
    /// `None`: the plan's choice (all of it for a search on a banded graph, else none).
    pub gather_cache_fraction: Option<f64>,
    /// How a disk tier holds offsets; `None`: plain unless the budget is tight.
    pub offset_form: Option<OffsetForm>,
    /// Whether the run hands back its result as an array in original ids (the output
    /// phase the plan counts); a run whose caller wants only the report skips it.
    pub output_array: bool,
    /// Bytes the caller holds after the run while it writes the result out (a table's
    /// ids and row groups), counted in the output phase.
    pub output_held_bytes: u64,
    /// Whether the run checks its result with the kernel's serial verifier after it (a
    /// phase the plan counts, after the run releases the graph's data).
    pub verify: bool,
    /// Worker threads the run will use; `None`: one per usable core.
    pub threads: Option<usize>,
    /// Bytes the graph's origin holds all run (a far graph's connections' receive
    /// buffers; 0 for a local file).
    pub network_bytes: u64,
    /// Bytes the kernel's parameters hold all run beyond its arrays (vertex weights).
    pub parameter_bytes: u64,
}

impl Placement {
    /// Default budget and tier, the plan's chunk size and cache split, queue depth 128.
    pub fn new(budget_bytes: Option<u64>, tier: Option<Tier>) -> Placement {
        Placement {
            budget_bytes,
            default_budget_bytes: crate::default_memory_budget(),
            tier,
            chunk_bytes: None,
            queue_depth: 128,
            gather_cache_fraction: None,
            offset_form: None,
            output_array: true,
            output_held_bytes: 0,
            verify: false,
            threads: None,
            network_bytes: 0,
            parameter_bytes: 0,
        }
    }

    /// Places the run on a tier that can serve `origin` (its only one, when it has one
    /// alone), with the memory the origin holds counted.
    pub fn place_on(&mut self, origin: &dyn GraphOrigin) -> Result<(), RunError> {
        let tiers = origin.tiers();
        match (self.tier, tiers) {
            (Some(tier), _) if !tiers.contains(&tier) => {
                let names: Vec<&str> = tiers.iter().map(|tier| tier.name()).collect();
                return Err(RunError::invalid(
                    RunOption::Tier,
                    format!(
                        "must be {} for a graph from {} (not {tier})",
                        names.join(" or "),
                        origin.shown()
                    ),
                ));
            }
            (None, [only]) => self.tier = Some(*only),
            _ => {}
        }
        self.network_bytes = origin.held_bytes();
        Ok(())
    }

    /// The plan for `kernel` on `graph`.
    pub fn plan(&self, graph: &GraphFile, kernel: Kernel) -> Result<Plan, RunError> {
        let contract = kernel.contract();
        let reads = contract.info().reads;
        let shape = GraphShape::of(graph);
        let memory = contract.memory(shape);
        let request = PlanRequest {
            kernel: kernel.name().to_string(),
            // Parameters live all run, as the kernel's arrays do.
            property_bytes: memory.property_bytes() + self.parameter_bytes,
            optional_property_bytes: memory.optional_bytes,
            thread_bytes: thread_bytes(self.threads.unwrap_or_else(usable_cores)),
            threads: self.threads.unwrap_or_else(usable_cores),
            network_bytes: self.network_bytes,
            gather_cache_fraction: self.gather_cache_fraction,
            searches: contract.info().searches,
            output_bytes: match self.output_array {
                true => memory.output_bytes(shape.vertices, graph.flags().reordered),
                false => 0,
            } + self.output_held_bytes,
            verification_bytes: self
                .verify
                .then(|| memory.verification_bytes(shape.vertices)),
            out_lists: reads.out_lists,
            in_lists: reads.in_lists,
            weights: reads.weights,
            out_heads: reads.out_heads,
            budget_bytes: self.budget_bytes,
            default_budget_bytes: self.default_budget_bytes,
            tier: self.tier,
            offset_form: self.offset_form,
            chunk_bytes: self.chunk_bytes,
            queue_depth: self.queue_depth,
        };
        Ok(swapless_store::budget::plan(graph, &request)?)
    }
}

/// Threads whose memory the fixed runtime allowance beside the budget covers.
const THREADS_IN_ALLOWANCE: usize = 8;

/// Memory a worker thread touches: its stack's used pages, thread-local state and its
/// share of the allocator's per-thread arenas, rounded up.
const BYTES_PER_THREAD: u64 = 128 << 10;

/// What `threads` worker threads add to a plan beyond the runtime allowance.
pub fn thread_bytes(threads: usize) -> u64 {
    threads.saturating_sub(THREADS_IN_ALLOWANCE) as u64 * BYTES_PER_THREAD
}

/// The plan as JSON (the CLI's `plan --json`).
pub fn plan_json(plan: &Plan) -> Value {
    let segments: Vec<Value> = plan
        .segments()
        .iter()
        .map(|s| json!({"name": s.name, "bytes": s.bytes, "class": s.class, "placement": s.placement}))
        .collect();
    let mut report = json!({
        "kernel": plan.kernel(),
        "tier": plan.tier().name(),
        "minimum_bytes": plan.minimum_bytes(),
        "segments": segments,
    });
    if let (Value::Object(report), Ok(Value::Object(figures))) =
        (&mut report, serde_json::to_value(PlanFigures::of(plan)))
    {
        report.extend(figures);
    }
    report
}

/// The plan for `kernel` under `placement` on the graph `path` names (a local file, or
/// an address another origin recognises, opened with its default options).
pub fn plan(path: &Path, kernel: Kernel, placement: &Placement) -> Result<Plan, RunError> {
    let origin = crate::open_origin(path, &OriginOptions::default(), &crate::Quiet)?;
    plan_on(&*origin, kernel, placement)
}

/// The plan for `kernel` under `placement` on the graph `origin` serves.
pub fn plan_on(
    origin: &dyn GraphOrigin,
    kernel: Kernel,
    placement: &Placement,
) -> Result<Plan, RunError> {
    let mut placement = placement.clone();
    placement.place_on(origin)?;
    placement.plan(&GraphFile::open(origin.local_file())?, kernel)
}
