//! A run's checkpoints as the runner uses them: bound to the run, written between
//! steps, and resumed from at the start of the trial.

use swapless_engine::kernel::{AnyKernel, KernelOptions, Running};
use swapless_engine::parameters::ParameterValues;
use swapless_store::EdgeStore;

use crate::checkpoint::{
    CheckpointOptions, Checkpointer, FolderLock, RunIdentity, newest_intact, prepare_folder,
};
use crate::{Kernel, Progress, RunError};

/// What binds a checkpoint of `kernel` on the graph `fingerprint` to this run.
pub(crate) fn run_identity(
    kernel: Kernel,
    fingerprint: u128,
    options: &KernelOptions<ParameterValues>,
) -> RunIdentity {
    // The source and every parameter the kernel declares, each as `name value`, the
    // names and values as a user gives them; how much memory the plan held is not one.
    let source = ("source", options.source.to_string());
    let parameters = options
        .parameters
        .iter()
        .map(|(flag, value)| (flag, value.text()));
    RunIdentity {
        swapless: env!("CARGO_PKG_VERSION").to_string(),
        kernel: kernel.name().to_string(),
        graph: format!("{fingerprint:032x}"),
        options: std::iter::once(source)
            .chain(parameters)
            .map(|(name, value)| format!("{name} {value}"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// A run's checkpoints: the writer, and where the run resumed.
pub(crate) struct Checkpoints<'a> {
    /// Writes them between steps.
    pub writer: Checkpointer,
    /// The step the run resumed after, once it has.
    pub resumed_from: Option<u64>,
    /// Seconds spent finding, checking and reading the checkpoint it resumed from.
    pub restore_seconds: f64,
    progress: &'a dyn Progress,
    /// Holds the folder for this run while it lives.
    _lock: FolderLock,
}

impl<'a> Checkpoints<'a> {
    /// The checkpoints of `run` in the folder `options` names, made ready.
    pub fn open(
        options: &CheckpointOptions,
        run: RunIdentity,
        progress: &'a dyn Progress,
    ) -> Result<Checkpoints<'a>, RunError> {
        let lock = prepare_folder(options)?;
        Ok(Checkpoints {
            _lock: lock,
            writer: Checkpointer::new(options.clone(), run),
            resumed_from: None,
            restore_seconds: 0.0,
            progress,
        })
    }

    /// The run from its newest intact checkpoint when asked to resume and there is one,
    /// else from the start; with the steps it had taken.
    pub fn start(
        &mut self,
        contract: &'static dyn AnyKernel,
        store: &dyn EdgeStore,
        options: &KernelOptions<ParameterValues>,
    ) -> Result<(Box<dyn Running>, u64), RunError> {
        let started = std::time::Instant::now();
        let folder = &self.writer.options().folder;
        let resume = self.writer.options().resume;
        let intact = match resume {
            true => newest_intact(folder, self.writer.run())?,
            false => None,
        };
        let Some(intact) = intact else {
            if resume {
                self.progress.note(&format!(
                    "no checkpoint in {} yet: starting from the beginning",
                    folder.display()
                ));
            }
            return Ok((contract.start(store, options)?, 0));
        };
        for (path, reason) in &intact.skipped {
            self.progress.note(&format!(
                "the checkpoint {} is damaged ({reason}); resuming from the one before",
                path.display()
            ));
        }
        let running = intact.restore(|saved| contract.restore(store, options, saved))?;
        self.progress.note(&format!(
            "resuming after step {} from {}",
            intact.steps,
            intact.path.display()
        ));
        self.resumed_from = Some(intact.steps);
        self.restore_seconds = started.elapsed().as_secs_f64();
        self.writer.resumed_after(intact.steps);
        Ok((running, intact.steps))
    }
}
