//! The kernels' parameters as flags of `swapless run`, made from the registry: each flag
//! once, its help naming the kernels that take it, so a kernel with a new parameter
//! needs no line here.

use clap::{Arg, ArgMatches, Args, Command, FromArgMatches, parser::ValueSource};
use swapless_run::{Given, Kernel, Parameter, ParameterError, ParameterKind, ParameterValue};

use crate::errors::CliError;

/// The parameter flags given on the command line, as written.
#[derive(Clone, Debug, Default)]
pub struct ParameterFlags {
    given: Vec<(&'static str, String)>,
}

/// Every parameter some kernel declares, once per flag, with the kernels that declare it.
fn every_parameter() -> Vec<(Parameter, Vec<&'static str>)> {
    let mut every: Vec<(Parameter, Vec<&'static str>)> = Vec::new();
    for kernel in Kernel::all() {
        for parameter in kernel.info().parameters {
            match every
                .iter_mut()
                .find(|(seen, _)| seen.flag == parameter.flag)
            {
                Some((_, kernels)) => kernels.push(kernel.name()),
                None => every.push((*parameter, vec![kernel.name()])),
            }
        }
    }
    every
}

/// What a flag's argument looks like in `--help`.
fn value_name(kind: ParameterKind) -> &'static str {
    match kind {
        ParameterKind::Number { .. } => "NUMBER",
        ParameterKind::Count { .. } => "COUNT",
        ParameterKind::CountOrAll => "COUNT|all",
        ParameterKind::Choice(_) => "WORD",
        ParameterKind::Vertices { .. } => "ID,ID,...",
        ParameterKind::VertexWeights => "ID:WEIGHT,...|@FILE",
    }
}

impl Args for ParameterFlags {
    fn augment_args(mut command: Command) -> Command {
        for (parameter, kernels) in every_parameter() {
            let mut help = format!("{}: {}", kernels.join(", "), parameter.help);
            if let Some(default) = parameter.default {
                help.push_str(&format!(" [default: {default}]"));
            }
            let mut arg = Arg::new(parameter.flag)
                .long(parameter.flag)
                .value_name(value_name(parameter.kind))
                .allow_hyphen_values(true)
                .help(help);
            if let ParameterKind::Choice(words) = parameter.kind {
                arg = arg.value_parser(words.to_vec());
            }
            command = command.arg(arg);
        }
        command
    }

    fn augment_args_for_update(command: Command) -> Command {
        ParameterFlags::augment_args(command)
    }
}

impl FromArgMatches for ParameterFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut flags = ParameterFlags::default();
        flags.update_from_arg_matches(matches)?;
        Ok(flags)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        for (parameter, _) in every_parameter() {
            if matches.value_source(parameter.flag) == Some(ValueSource::CommandLine)
                && let Some(text) = matches.get_one::<String>(parameter.flag)
            {
                self.given.push((parameter.flag, text.clone()));
            }
        }
        Ok(())
    }
}

impl ParameterFlags {
    /// Whether `--flag` was given.
    pub fn has(&self, flag: &str) -> bool {
        self.given.iter().any(|(given, _)| *given == flag)
    }

    /// The values given for `kernel`, read by the kind each parameter declares;
    /// `vertices(flag, id)` turns a vertex's id as written (a name on a graph of named
    /// vertices) into its original id. A flag `kernel` does not take is passed on for the run to
    /// refuse in its own words.
    pub fn values(
        &self,
        kernel: Kernel,
        vertices: &dyn Fn(&str, &str) -> Result<u64, CliError>,
    ) -> Result<Vec<Given>, CliError> {
        let every = every_parameter();
        let mut values = Vec::with_capacity(self.given.len());
        for (flag, text) in &self.given {
            let declared = kernel.info().parameters.iter().find(|p| p.flag == *flag);
            let Some(parameter) = declared.or_else(|| {
                every
                    .iter()
                    .map(|(parameter, _)| parameter)
                    .find(|p| p.flag == *flag)
            }) else {
                continue;
            };
            let invalid = |detail: String| ParameterError::Invalid { flag, detail };
            let value = match parameter.kind {
                ParameterKind::Vertices { .. } => ParameterValue::Vertices(
                    text.split(',')
                        .map(|id| vertices(flag, id.trim()))
                        .collect::<Result<_, _>>()?,
                ),
                ParameterKind::VertexWeights => {
                    let pairs = vertex_weights(flag, text)?;
                    let mut weights = Vec::with_capacity(pairs.len());
                    for (id, weight) in pairs {
                        weights.push((vertices(flag, &id)?, weight));
                    }
                    ParameterValue::VertexWeights(weights)
                }
                _ => parameter
                    .parse(text)
                    .map_err(|detail| swapless_run::RunError::from(invalid(detail)))?,
            };
            values.push(Given {
                flag: flag.to_string(),
                value,
            });
        }
        Ok(values)
    }
}

/// The `ID:WEIGHT` pairs of a vertex-weights flag: listed (`3:1,17:0.5`), or in the file
/// `@FILE` names, one `ID WEIGHT` a line (blank lines and `#` comments skipped).
fn vertex_weights(flag: &str, text: &str) -> Result<Vec<(String, f64)>, CliError> {
    let listed;
    let (lines, from_file): (Box<dyn Iterator<Item = &str>>, bool) = match text.strip_prefix('@') {
        Some(path) => {
            listed =
                std::fs::read_to_string(path).map_err(|error| CliError::Io(path.into(), error))?;
            (Box::new(listed.lines()), true)
        }
        None => (Box::new(text.split(',')), false),
    };
    let mut pairs = Vec::new();
    for (at, line) in lines.enumerate() {
        let line = line.trim();
        if from_file && (line.is_empty() || line.starts_with('#')) {
            continue;
        }
        let Some((id, weight)) = swapless_run::split_weighted(line) else {
            let place = if from_file { "a line" } else { "an entry" };
            return Err(CliError::Usage(format!(
                "--{flag}: {place} ({}: {line:?}) is not ID:WEIGHT; give ID:WEIGHT,... or @FILE with one ID WEIGHT a line",
                at + 1
            )));
        };
        pairs.push((id.to_string(), weight));
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_two_kernels_share_means_the_same_to_both() {
        for kernel in Kernel::all() {
            for parameter in kernel.info().parameters {
                let (first, _) = every_parameter()
                    .into_iter()
                    .find(|(seen, _)| seen.flag == parameter.flag)
                    .unwrap();
                assert_eq!(
                    (first.kind, first.default, first.keyword),
                    (parameter.kind, parameter.default, parameter.keyword),
                    "--{} of {}",
                    parameter.flag,
                    kernel.name()
                );
            }
        }
    }
}
