//! A kernel's parameters as it declares them, and their values as a run gives them.
//!
//! A kernel lists its [`Parameter`]s in its [`KernelInfo`](crate::kernel::KernelInfo):
//! each front end makes its flags, keywords and help from the list, and [`resolve`]
//! checks what a caller gave against it (unknown names, values out of range, defaults
//! filled in), so no front end or runner knows any kernel's options. The kernel then
//! reads the resolved values into its own options type.

use serde_json::Value;

/// The values a parameter takes, and how they are written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParameterKind {
    /// A real number in `min..=max`; `min` itself is excluded when `above_min`.
    Number {
        /// The least value.
        min: f64,
        /// The greatest value.
        max: f64,
        /// Whether `min` itself is refused.
        above_min: bool,
    },
    /// A whole number in `min..=max`.
    Count {
        /// The least value.
        min: u64,
        /// The greatest value.
        max: u64,
    },
    /// A whole number from 1, or `all`.
    CountOrAll,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// Vertices, by the input's ids (a name on a graph of named vertices).
    Vertices {
        /// Whether the runner picks one (as it picks a source) when none is given;
        /// otherwise none given stays none.
        picked: bool,
    },
    /// A weight per vertex for some vertices, by the input's ids (the rest weigh 0),
    /// scaled by the kernel to sum 1; none when not given.
    VertexWeights,
}

/// One value of a parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum ParameterValue {
    /// A [`ParameterKind::Number`].
    Number(f64),
    /// A [`ParameterKind::Count`], or a [`ParameterKind::CountOrAll`] that is a count.
    Count(u64),
    /// A [`ParameterKind::CountOrAll`] that is `all`.
    All,
    /// A [`ParameterKind::Choice`].
    Choice(String),
    /// A [`ParameterKind::Vertices`]: the input's ids as a caller gives them, internal ids
    /// once the runner has mapped them; none when not given (for the runner to pick one,
    /// where the kind says so).
    Vertices(Vec<u64>),
    /// A [`ParameterKind::VertexWeights`]: each vertex given and its weight, by the input's
    /// ids as a caller gives them, internal ids once the runner has mapped them; none when
    /// not given.
    VertexWeights(Vec<(u64, f64)>),
}

/// Weights listed whole in a report or a checkpoint's identity; more are summarized.
const WEIGHTS_LISTED: usize = 16;

impl ParameterValue {
    /// The value as a user writes it (`0.85`, `all`, `3,17`), for reports and checkpoints.
    pub fn text(&self) -> String {
        match self {
            ParameterValue::Number(number) => number.to_string(),
            ParameterValue::Count(count) => count.to_string(),
            ParameterValue::All => "all".to_string(),
            ParameterValue::Choice(word) => word.clone(),
            ParameterValue::Vertices(ids) => {
                ids.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
            }
            ParameterValue::VertexWeights(weights) if weights.is_empty() => "none".to_string(),
            ParameterValue::VertexWeights(weights) if weights.len() <= WEIGHTS_LISTED => weights
                .iter()
                .map(|(id, weight)| format!("{id}:{weight}"))
                .collect::<Vec<_>>()
                .join(","),
            // A million weights stand in a checkpoint's identity as their count and
            // digest: any change to one changes the digest.
            ParameterValue::VertexWeights(weights) => {
                let mut bytes = Vec::with_capacity(weights.len() * 16);
                for (id, weight) in weights {
                    bytes.extend_from_slice(&id.to_le_bytes());
                    bytes.extend_from_slice(&weight.to_bits().to_le_bytes());
                }
                let digest = xxhash_rust::xxh3::xxh3_128(&bytes);
                format!("{} weights of digest {digest:032x}", weights.len())
            }
        }
    }

    /// The value as JSON, for reports.
    pub fn json(&self) -> Value {
        match self {
            ParameterValue::Number(number) => (*number).into(),
            ParameterValue::Count(count) => (*count).into(),
            ParameterValue::All => "all".into(),
            ParameterValue::Choice(word) => word.as_str().into(),
            ParameterValue::Vertices(ids) => ids.clone().into(),
            ParameterValue::VertexWeights(weights) if weights.len() <= WEIGHTS_LISTED => weights
                .iter()
                .map(|&(id, weight)| serde_json::json!([id, weight]))
                .collect::<Vec<_>>()
                .into(),
            ParameterValue::VertexWeights(_) => self.text().into(),
        }
    }
}

/// A parameter a kernel declares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parameter {
    /// Its name: the CLI's flag without the dashes (`damping`, `max-iters`), and its name
    /// in reports and checkpoints.
    pub flag: &'static str,
    /// The Python API's keyword for it (`alpha`, `max_iter`: networkx's where networkx has
    /// one).
    pub keyword: &'static str,
    /// One line on what it does.
    pub help: &'static str,
    /// The values it takes.
    pub kind: ParameterKind,
    /// Its default as a user writes it; `None` when it must be given, except for
    /// vertices, which are then one vertex with edges picked reproducibly, as a source is.
    pub default: Option<&'static str>,
}

impl Parameter {
    /// What its values must be, to complete "`damping` must be ...".
    pub fn must_be(&self) -> String {
        match self.kind {
            ParameterKind::Number {
                min,
                max,
                above_min,
            } => match (above_min, max == f64::MAX) {
                // Any finite number (its bounds are the largest floats, unreadable).
                (false, true) if min == f64::MIN => "a finite number".to_string(),
                (true, true) => format!("a number above {min}"),
                (false, true) => format!("a number >= {min}"),
                (true, false) => format!("a number above {min} and at most {max}"),
                (false, false) => format!("a number between {min} and {max}"),
            },
            ParameterKind::Count { min, max } if max == u64::MAX => {
                format!("a whole number >= {min}")
            }
            ParameterKind::Count { min, max } => format!("a whole number from {min} to {max}"),
            ParameterKind::CountOrAll => "a whole number >= 1, or `all`".to_string(),
            ParameterKind::Choice(words) => format!("one of {}", words.join(", ")),
            ParameterKind::Vertices { .. } => "one or more vertex ids".to_string(),
            ParameterKind::VertexWeights => {
                "vertex ids with weights (ID:WEIGHT,...), each finite and >= 0, summing to a finite number above 0"
                    .to_string()
            }
        }
    }

    /// `value` if it is one of this parameter's values, else why not.
    pub fn check(&self, value: ParameterValue) -> Result<ParameterValue, String> {
        let fits = match (&self.kind, &value) {
            (
                ParameterKind::Number {
                    min,
                    max,
                    above_min,
                },
                ParameterValue::Number(number),
            ) => {
                number.is_finite()
                    && *number <= *max
                    && (*number > *min || (!above_min && *number == *min))
            }
            (ParameterKind::Count { min, max }, ParameterValue::Count(count)) => {
                (*min..=*max).contains(count)
            }
            (ParameterKind::CountOrAll, ParameterValue::Count(count)) => *count >= 1,
            (ParameterKind::CountOrAll, ParameterValue::All) => true,
            (ParameterKind::Choice(words), ParameterValue::Choice(word)) => {
                words.contains(&word.as_str())
            }
            (ParameterKind::Vertices { .. }, ParameterValue::Vertices(ids)) => !ids.is_empty(),
            // Scaled to sum 1, so the sum must be a number above 0.
            (ParameterKind::VertexWeights, ParameterValue::VertexWeights(weights)) => {
                let total: f64 = weights.iter().map(|&(_, weight)| weight).sum();
                weights
                    .iter()
                    .all(|&(_, weight)| weight.is_finite() && weight >= 0.0)
                    && total > 0.0
                    && total.is_finite()
            }
            _ => false,
        };
        match fits {
            true => Ok(value),
            false => Err(format!("must be {}", self.must_be())),
        }
    }

    /// The value `text` writes (a flag's argument, a default), checked.
    pub fn parse(&self, text: &str) -> Result<ParameterValue, String> {
        let text = text.trim();
        let refused = || format!("must be {}", self.must_be());
        let value = match self.kind {
            ParameterKind::Number { .. } => {
                ParameterValue::Number(text.parse().map_err(|_| refused())?)
            }
            ParameterKind::Count { .. } => {
                ParameterValue::Count(text.parse().map_err(|_| refused())?)
            }
            ParameterKind::CountOrAll if text == "all" => ParameterValue::All,
            ParameterKind::CountOrAll => {
                ParameterValue::Count(text.parse().map_err(|_| refused())?)
            }
            ParameterKind::Choice(_) => ParameterValue::Choice(text.to_string()),
            ParameterKind::Vertices { .. } => ParameterValue::Vertices(
                text.split(',')
                    .map(|id| id.trim().parse().map_err(|_| refused()))
                    .collect::<Result<_, _>>()?,
            ),
            ParameterKind::VertexWeights => ParameterValue::VertexWeights(
                text.split(',')
                    .map(|pair| {
                        let (id, weight) = split_weighted(pair).ok_or_else(refused)?;
                        Ok::<_, String>((id.parse().map_err(|_| refused())?, weight))
                    })
                    .collect::<Result<_, _>>()?,
            ),
        };
        self.check(value)
    }

    /// The value `json` holds (a Python keyword's argument), checked.
    pub fn from_json(&self, json: &Value) -> Result<ParameterValue, String> {
        let refused = || format!("must be {}", self.must_be());
        let value = match (self.kind, json) {
            (ParameterKind::Number { .. }, Value::Number(number)) => {
                ParameterValue::Number(number.as_f64().ok_or_else(refused)?)
            }
            (ParameterKind::Count { .. } | ParameterKind::CountOrAll, Value::Number(number)) => {
                ParameterValue::Count(number.as_u64().ok_or_else(refused)?)
            }
            (ParameterKind::CountOrAll, Value::String(all)) if all == "all" => ParameterValue::All,
            (ParameterKind::Choice(_), Value::String(word)) => ParameterValue::Choice(word.clone()),
            (ParameterKind::Vertices { .. }, Value::Array(ids)) => ParameterValue::Vertices(
                ids.iter()
                    .map(|id| id.as_u64().ok_or_else(refused))
                    .collect::<Result<_, _>>()?,
            ),
            (ParameterKind::Vertices { .. }, Value::Number(id)) => {
                ParameterValue::Vertices(vec![id.as_u64().ok_or_else(refused)?])
            }
            // Pairs `[id, weight]`.
            (ParameterKind::VertexWeights, Value::Array(pairs)) => ParameterValue::VertexWeights(
                pairs
                    .iter()
                    .map(|pair| match pair.as_array().map(Vec::as_slice) {
                        Some([id, weight]) => id.as_u64().zip(weight.as_f64()).ok_or_else(refused),
                        _ => Err(refused()),
                    })
                    .collect::<Result<_, _>>()?,
            ),
            _ => return Err(refused()),
        };
        self.check(value)
    }
}

/// One `ID:WEIGHT` of a [`ParameterKind::VertexWeights`] (`ID WEIGHT` and `ID,WEIGHT`
/// too, as a file's lines have them): the id as written and the weight; `None` if it is
/// not one.
pub fn split_weighted(text: &str) -> Option<(&str, f64)> {
    let text = text.trim();
    let at = text.rfind([':', ' ', '\t', ','])?;
    let weight = text[at + 1..].trim().parse().ok()?;
    Some((text[..at].trim(), weight))
}

/// A parameter's value as a caller gave it, before [`resolve`] checked it.
#[derive(Clone, Debug, PartialEq)]
pub struct Given {
    /// The parameter's flag ([`Parameter::flag`]).
    pub flag: String,
    /// Its value.
    pub value: ParameterValue,
}

/// Why the values a caller gave do not fit a kernel's parameters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParameterError {
    /// The kernel declares no parameter by this flag.
    #[error("{kernel} takes no {flag}")]
    NotTaken {
        /// The kernel's name.
        kernel: &'static str,
        /// The flag given.
        flag: String,
    },
    /// A value out of the parameter's range.
    #[error("{flag} {detail}")]
    Invalid {
        /// The parameter's flag.
        flag: &'static str,
        /// What its value must be ("must be a number between 0 and 1").
        detail: String,
    },
    /// A parameter without a default was not given.
    #[error("{kernel} needs {flag}")]
    Missing {
        /// The kernel's name.
        kernel: &'static str,
        /// The parameter's flag.
        flag: &'static str,
    },
}

/// Every parameter of a kernel with its value, in the order the kernel declares them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParameterValues(Vec<(&'static str, ParameterValue)>);

impl ParameterValues {
    /// The value of the parameter `flag`.
    ///
    /// Only a kernel's own declared flags are asked for, and [`resolve`] gives every one a
    /// value (the registry's test resolves every kernel's defaults), so a missing one is
    /// a kernel's mistake, not a caller's.
    fn value(&self, flag: &str) -> &ParameterValue {
        match self.0.iter().find(|(name, _)| *name == flag) {
            Some((_, value)) => value,
            None => panic!("the kernel reads {flag:?}, which it does not declare"),
        }
    }

    /// The number `flag` holds.
    pub fn number(&self, flag: &str) -> f64 {
        match self.value(flag) {
            ParameterValue::Number(number) => *number,
            other => panic!("{flag:?} holds {other:?}, not a number"),
        }
    }

    /// The count `flag` holds; `None` for `all`.
    pub fn count(&self, flag: &str) -> Option<u64> {
        match self.value(flag) {
            ParameterValue::Count(count) => Some(*count),
            ParameterValue::All => None,
            other => panic!("{flag:?} holds {other:?}, not a count"),
        }
    }

    /// The word `flag` holds.
    pub fn choice(&self, flag: &str) -> &str {
        match self.value(flag) {
            ParameterValue::Choice(word) => word,
            other => panic!("{flag:?} holds {other:?}, not a choice"),
        }
    }

    /// The vertices `flag` holds (internal ids, once the runner has mapped them).
    pub fn vertices(&self, flag: &str) -> &[u64] {
        match self.value(flag) {
            ParameterValue::Vertices(ids) => ids,
            other => panic!("{flag:?} holds {other:?}, not vertices"),
        }
    }

    /// The vertices and weights `flag` holds (internal ids, once the runner has mapped
    /// them); empty when not given.
    pub fn vertex_weights(&self, flag: &str) -> &[(u64, f64)] {
        match self.value(flag) {
            ParameterValue::VertexWeights(weights) => weights,
            other => panic!("{flag:?} holds {other:?}, not vertex weights"),
        }
    }

    /// Each parameter's flag and value.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &ParameterValue)> {
        self.0.iter().map(|(flag, value)| (*flag, value))
    }

    /// Each vertex-valued parameter's flag and ids, to be mapped in place.
    pub fn vertices_mut(&mut self) -> impl Iterator<Item = (&'static str, &mut Vec<u64>)> {
        self.0.iter_mut().filter_map(|(flag, value)| match value {
            ParameterValue::Vertices(ids) => Some((*flag, ids)),
            _ => None,
        })
    }

    /// Each vertex-weights parameter's flag and pairs, their ids to be mapped in place.
    pub fn vertex_weights_mut(
        &mut self,
    ) -> impl Iterator<Item = (&'static str, &mut Vec<(u64, f64)>)> {
        self.0.iter_mut().filter_map(|(flag, value)| match value {
            ParameterValue::VertexWeights(weights) => Some((*flag, weights)),
            _ => None,
        })
    }
}

/// The values of `kernel`'s `parameters` from those `given`: each checked, the rest at
/// their defaults.
pub fn resolve(
    kernel: &'static str,
    parameters: &'static [Parameter],
    given: &[Given],
) -> Result<ParameterValues, ParameterError> {
    if let Some(unknown) = given.iter().find(|given| {
        parameters
            .iter()
            .all(|parameter| parameter.flag != given.flag)
    }) {
        return Err(ParameterError::NotTaken {
            kernel,
            flag: unknown.flag.clone(),
        });
    }
    let mut values = Vec::with_capacity(parameters.len());
    for parameter in parameters {
        let invalid = |detail: String| ParameterError::Invalid {
            flag: parameter.flag,
            detail,
        };
        let value = match given
            .iter()
            .rev()
            .find(|given| given.flag == parameter.flag)
        {
            Some(given) => parameter.check(given.value.clone()).map_err(invalid)?,
            None => match parameter.default {
                Some(text) => parameter.parse(text).map_err(invalid)?,
                // No vertex yet: the runner picks one (see [`ParameterValue::Vertices`]).
                None if matches!(parameter.kind, ParameterKind::Vertices { .. }) => {
                    ParameterValue::Vertices(Vec::new())
                }
                // No weights: the kernel weighs every vertex alike.
                None if parameter.kind == ParameterKind::VertexWeights => {
                    ParameterValue::VertexWeights(Vec::new())
                }
                None => {
                    return Err(ParameterError::Missing {
                        kernel,
                        flag: parameter.flag,
                    });
                }
            },
        };
        values.push((parameter.flag, value));
    }
    Ok(ParameterValues(values))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAMPING: Parameter = Parameter {
        flag: "damping",
        keyword: "alpha",
        help: "the damping factor",
        kind: ParameterKind::Number {
            min: 0.0,
            max: 1.0,
            above_min: false,
        },
        default: Some("0.85"),
    };
    const SEEDS: Parameter = Parameter {
        flag: "seeds",
        keyword: "seeds",
        help: "where walks restart",
        kind: ParameterKind::Vertices { picked: true },
        default: None,
    };
    const PERSONALIZATION: Parameter = Parameter {
        flag: "personalization",
        keyword: "personalization",
        help: "where walks restart, weighted",
        kind: ParameterKind::VertexWeights,
        default: None,
    };
    const SOURCES: Parameter = Parameter {
        flag: "sources",
        keyword: "sources",
        help: "sampled sources",
        kind: ParameterKind::CountOrAll,
        default: Some("1"),
    };

    #[test]
    fn values_are_checked_against_their_kind() {
        // (parameter, text, accepted)
        let cases: &[(Parameter, &str, bool)] = &[
            (DAMPING, "0.5", true),
            (DAMPING, "0", true),
            (DAMPING, "1", true),
            (DAMPING, "1.5", false),
            (DAMPING, "-0.1", false),
            (DAMPING, "NaN", false),
            (DAMPING, "inf", false),
            (DAMPING, "half", false),
            (SEEDS, "3", true),
            (SEEDS, "3, 17,2", true),
            (SEEDS, "", false),
            (SEEDS, "a,b", false),
            (SOURCES, "all", true),
            (SOURCES, "4", true),
            (SOURCES, "0", false),
            (SOURCES, "-1", false),
            (PERSONALIZATION, "3:1", true),
            (PERSONALIZATION, "3:1, 17:0.5,2:0", true),
            (PERSONALIZATION, "3:0,4:0", false),
            (PERSONALIZATION, "3:-1,4:2", false),
            (PERSONALIZATION, "3:inf", false),
            (PERSONALIZATION, "3:NaN", false),
            (PERSONALIZATION, "3", false),
            (PERSONALIZATION, "x:1", false),
            (PERSONALIZATION, "", false),
            (PERSONALIZATION, "1:1e308,2:1e308", false),
        ];
        for (parameter, text, accepted) in cases {
            assert_eq!(
                parameter.parse(text).is_ok(),
                *accepted,
                "{} {text:?}",
                parameter.flag
            );
        }
        assert_eq!(
            DAMPING.parse("2").unwrap_err(),
            "must be a number between 0 and 1"
        );
    }

    #[test]
    fn many_weights_stand_in_a_text_as_their_count_and_digest() {
        let few = ParameterValue::VertexWeights(vec![(3, 1.0), (17, 0.5)]);
        assert_eq!(few.text(), "3:1,17:0.5");
        let many: Vec<(u64, f64)> = (0..100).map(|id| (id, 1.0)).collect();
        let text = ParameterValue::VertexWeights(many.clone()).text();
        assert!(text.starts_with("100 weights of digest "), "{text}");
        let mut changed = many;
        changed[50].1 = 2.0;
        assert_ne!(ParameterValue::VertexWeights(changed).text(), text);
        // Not given: empty, which the kernel reads as every vertex alike.
        static PARAMETERS: [Parameter; 1] = [PERSONALIZATION];
        let values = resolve("k", &PARAMETERS, &[]).unwrap();
        assert!(values.vertex_weights("personalization").is_empty());
    }

    #[test]
    fn resolving_fills_defaults_and_refuses_what_the_kernel_does_not_take() {
        static PARAMETERS: [Parameter; 3] = [DAMPING, SOURCES, SEEDS];
        let seeds = Given {
            flag: "seeds".to_string(),
            value: ParameterValue::Vertices(vec![4, 2]),
        };
        let values = resolve("k", &PARAMETERS, std::slice::from_ref(&seeds)).unwrap();
        assert_eq!(values.number("damping"), 0.85);
        assert_eq!(values.count("sources"), Some(1));
        assert_eq!(values.vertices("seeds"), &[4, 2]);
        // Vertices not given are left for the runner to pick.
        let picked = resolve("k", &PARAMETERS, &[]).unwrap();
        assert!(picked.vertices("seeds").is_empty());
        let delta = Given {
            flag: "delta".to_string(),
            value: ParameterValue::Number(1.0),
        };
        assert_eq!(
            resolve("k", &PARAMETERS, &[seeds.clone(), delta])
                .unwrap_err()
                .to_string(),
            "k takes no delta"
        );
        let wild = Given {
            flag: "damping".to_string(),
            value: ParameterValue::Number(7.0),
        };
        assert_eq!(
            resolve("k", &PARAMETERS, &[seeds, wild])
                .unwrap_err()
                .to_string(),
            "damping must be a number between 0 and 1"
        );
    }

    #[test]
    fn json_values_take_the_kinds_python_gives() {
        let json = |text: &str| serde_json::from_str::<Value>(text).unwrap();
        assert_eq!(
            SEEDS.from_json(&json("[1, 5]")),
            Ok(ParameterValue::Vertices(vec![1, 5]))
        );
        assert_eq!(
            SEEDS.from_json(&json("7")),
            Ok(ParameterValue::Vertices(vec![7]))
        );
        assert!(SEEDS.from_json(&json("[-1]")).is_err());
        assert_eq!(SOURCES.from_json(&json("\"all\"")), Ok(ParameterValue::All));
        assert!(SOURCES.from_json(&json("2.5")).is_err());
        assert_eq!(
            DAMPING.from_json(&json("1")),
            Ok(ParameterValue::Number(1.0))
        );
    }
}
