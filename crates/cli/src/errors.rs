//! The command line's errors: each library error in one sentence, with what to do in
//! this front end's words (its flags).

use std::path::PathBuf;
use swapless_run::checkpoint::CheckpointError;

use swapless_build::BuildError;
use swapless_far::{CA_VARIABLE, FarError, PASSWORD_VARIABLE, USER_VARIABLE};
use swapless_format::FormatError;
use swapless_run::ParameterError;
use swapless_run::{RunError, RunOption};
use swapless_store::StoreError;

/// An error the CLI reports in one sentence.
#[derive(Debug)]
pub enum CliError {
    /// Wrong or inconsistent options.
    Usage(String),
    /// A build, import or generator failed.
    Build(BuildError),
    /// A graph file could not be read or failed its checks.
    Format(FormatError),
    /// Writing a report failed.
    Io(PathBuf, std::io::Error),
    /// Anything else, already one sentence.
    Other(String),
    /// Ctrl-C (or SIGTERM) stopped the command; says what was kept.
    Interrupted(String),
}

impl std::fmt::Display for CliError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Usage(message) => write!(formatter, "{message}"),
            CliError::Build(error) => write!(formatter, "{}", build_sentence(error)),
            CliError::Format(error) => write!(formatter, "{error}"),
            CliError::Io(path, error) => write!(formatter, "{}: {error}", path.display()),
            CliError::Other(message) | CliError::Interrupted(message) => {
                write!(formatter, "{message}")
            }
        }
    }
}

impl CliError {
    /// Whether the graph file changed during the run (which may also panic a kernel).
    pub fn is_changed_file(&self) -> bool {
        matches!(
            self,
            CliError::Format(FormatError::ChangedDuringRead { .. })
        )
    }

    /// 130 after Ctrl-C (the shell convention), 2 for usage errors, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Build(BuildError::Interrupted) | CliError::Interrupted(_) => 130,
            CliError::Usage(_) => 2,
            _ => 1,
        }
    }
}

/// A build error with what to do, in flags.
fn build_sentence(error: &BuildError) -> String {
    match error {
        BuildError::InvalidOption { option, detail } => format!("--{option} {detail}"),
        BuildError::BudgetTooSmall { needed_bytes, .. } => format!(
            "{error}; raise --memory to at least {}",
            swapless_system::format_bytes_up(*needed_bytes)
        ),
        BuildError::IdsNeedPasses {
            least_budget_bytes, ..
        } => format!(
            "{error}; raise --memory to at least {}",
            swapless_system::format_bytes_up(*least_budget_bytes)
        ),
        BuildError::NoWeights { .. } => format!("{error}; drop --weighted"),
        other => other.to_string(),
    }
}

/// How the command line spells `option`.
fn flag(option: RunOption) -> &'static str {
    match option {
        RunOption::Trials => "--trials",
        RunOption::Threads => "--threads",
        RunOption::HugePageFraction => "--hugepages",
        RunOption::Source => "--source",
        RunOption::ChunkBytes => "--chunk",
        RunOption::QueueDepth => "--queue-depth",
        RunOption::GatherCacheFraction => "--gather-cache",
        RunOption::Tier => "--tier",
    }
}

/// A store error with what to do, in flags.
fn store_sentence(error: &StoreError) -> String {
    match error {
        StoreError::Budget {
            needed_bytes,
            verifying,
            ..
        } => {
            let least = needed_bytes.div_ceil(1 << 20);
            match verifying {
                false => format!("{error}; raise --memory to at least {least} MiB"),
                true => format!(
                    "{error}; raise --memory to at least {least} MiB or run without --verify"
                ),
            }
        }
        StoreError::NoMemory { .. } => {
            format!("{error}; lower --memory to what this process may map (see `ulimit -v`)")
        }
        StoreError::IoUring { .. } => format!("{error}; run with --tier mmap"),
        other => match swapless_far::far_error(other) {
            Some(far) => far_sentence(far),
            None => other.to_string(),
        },
    }
}

/// A far-memory error with what to do, in flags.
fn far_sentence(error: &FarError) -> String {
    match error {
        FarError::NameTaken { .. } => {
            format!("{error} (`swapless far rm`, or push with --replace)")
        }
        FarError::BadManifest { .. } => {
            format!(
                "{error}; remove the name with `swapless far rm`, or push over it with --replace"
            )
        }
        FarError::NotFound { .. } => {
            format!("{error}; store it with `swapless far push GRAPH.sl URL`")
        }
        FarError::FallbackUnreadable { .. } => {
            format!("{error}; give --fallback the .sl file the graph was pushed from")
        }
        FarError::Refused { .. } => format!(
            "{error}; give the password in {PASSWORD_VARIABLE} (and an ACL user in {USER_VARIABLE})"
        ),
        FarError::Timeout { .. } => format!("{error}; raise --far-timeout if the node is busy"),
        FarError::Damaged { .. } => format!(
            "{error}; push the graph again (`swapless far push`), or give a local copy with --fallback FILE.sl"
        ),
        FarError::ClusterDown { .. } => {
            format!("{error}; restart the failed master or give it a replica, then run again")
        }
        FarError::NotRedis { .. } => {
            format!("{error}; check the host and port of the address")
        }
        FarError::OutOfMemory { .. } => {
            format!("{error}; free memory there or raise its maxmemory, then push again")
        }
        FarError::Evicting { .. } | FarError::NotKept { .. } => format!(
            "{error}; set its maxmemory-policy to noeviction (or raise maxmemory), then push again"
        ),
        FarError::Unreachable { detail, .. } if detail.contains("UnknownIssuer") => {
            format!("{error}; name the certificate authority that signed it in {CA_VARIABLE}")
        }
        FarError::Unreachable { detail, .. } if detail.contains("not valid for name") => {
            format!("{error}; address the node by a name its certificate holds")
        }
        other => other.to_string(),
    }
}

/// A kernel parameter's error, in flags.
fn parameter_sentence(error: &ParameterError) -> String {
    match error {
        ParameterError::NotTaken { kernel, flag } => format!("{kernel} takes no --{flag}"),
        ParameterError::Invalid { flag, detail } => format!("--{flag} {detail}"),
        ParameterError::Missing { kernel, flag } => format!("{kernel} needs --{flag}"),
    }
}

/// A checkpoint error with what to do, in flags.
fn checkpoint_sentence(error: &CheckpointError) -> String {
    match error {
        CheckpointError::Occupied { .. } => {
            format!("{error}; add --resume to continue from them, or remove them to start over")
        }
        CheckpointError::OtherRun {
            path,
            field,
            saved,
            this,
        } => match field.strip_prefix("option ") {
            Some(option) => {
                // Options are named by their flags in a checkpoint.
                let flag = format!("--{option}");
                format!(
                    "the checkpoint {} was written by a run with {flag} {saved}, and this run has {flag} {this}; run with {flag} {saved} to resume it, or give another --checkpoint folder",
                    path.display()
                )
            }
            None => {
                format!("{error}; run as it was run then, or give another --checkpoint folder")
            }
        },
        CheckpointError::NoneIntact { .. } => {
            format!("{error}; remove them to start over")
        }
        CheckpointError::Write { .. } => format!(
            "{error}; once it can be written, --resume continues from the checkpoint before"
        ),
        CheckpointError::NotAFolder { .. } => {
            format!("{error}; give --checkpoint a folder (made if missing)")
        }
        CheckpointError::InUse { .. } => {
            format!("{error}; wait for it or give another --checkpoint folder")
        }
        other => other.to_string(),
    }
}

impl From<BuildError> for CliError {
    fn from(error: BuildError) -> Self {
        CliError::Build(error)
    }
}

impl From<FormatError> for CliError {
    fn from(error: FormatError) -> Self {
        CliError::Format(error)
    }
}

impl From<RunError> for CliError {
    fn from(error: RunError) -> Self {
        match error {
            RunError::InvalidOption { option, detail } => {
                CliError::Usage(format!("{} {detail}", flag(option)))
            }
            RunError::NotTaken { kernel, option } => {
                CliError::Usage(format!("{kernel} takes no {}", flag(option)))
            }
            RunError::Parameter(error) => CliError::Usage(parameter_sentence(&error)),
            RunError::TooManyThreads { .. } => CliError::Usage(format!("--threads {error}")),
            RunError::NotAVertex { .. }
            | RunError::NoSource { .. }
            | RunError::NegativeWeights
            | RunError::Threads { .. } => CliError::Usage(error.to_string()),
            RunError::ZeroWeightPaths => CliError::Usage(format!(
                "{error}; give those edges a positive weight, or merge their ends"
            )),
            RunError::Directed { .. } => CliError::Usage(format!(
                "{error}; build it with --undirected for the undirected view"
            )),
            RunError::Format(error) => CliError::Format(error),
            RunError::Budget(error) | RunError::Store(error) => {
                CliError::Other(store_sentence(&error))
            }
            RunError::Reserve { .. } => {
                CliError::Other(format!("{error}; give the run more memory or free some"))
            }
            RunError::Interrupted => {
                CliError::Interrupted("interrupted; no output was written".to_string())
            }
            RunError::Checkpoint(checkpoint) => CliError::Other(checkpoint_sentence(&checkpoint)),
            other => CliError::Other(other.to_string()),
        }
    }
}

impl From<StoreError> for CliError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Format(error) => CliError::Format(error),
            other => CliError::Other(store_sentence(&other)),
        }
    }
}
