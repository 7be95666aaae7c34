//! Where a graph comes from, chosen from the name the caller gave: the one place that
//! knows every origin. A name an origin recognises (a far graph's `redis://` address) is
//! that origin's; any other names a local file.

use std::path::Path;

use swapless_store::{GraphOrigin, LocalFile, OriginOptions};

use crate::{Progress, RunError};

/// Opens the graph `name` names when it is this origin's kind of name; `None` leaves
/// the name to the next origin.
type OpenOrigin = fn(&str, &OriginOptions) -> Option<swapless_store::Result<Box<dyn GraphOrigin>>>;

/// The origins besides a local file, asked in order. A new origin is a crate that
/// implements `GraphOrigin` and its page source, and one line here.
const ORIGINS: &[OpenOrigin] = &[swapless_far::open_origin];

/// The origin of the graph `path` names, opened; `progress` hears what the opening
/// found worth saying (a far graph's damaged cache rebuilt).
pub fn open_origin(
    path: &Path,
    options: &OriginOptions,
    progress: &dyn Progress,
) -> Result<Box<dyn GraphOrigin>, RunError> {
    let chosen = path
        .to_str()
        .and_then(|name| ORIGINS.iter().find_map(|open| open(name, options)));
    let origin = match chosen {
        Some(opened) => opened?,
        None => Box::new(LocalFile::new(path)),
    };
    for note in origin.notes() {
        progress.note(&note);
    }
    Ok(origin)
}
