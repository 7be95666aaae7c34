//! PNG figures from trials.csv, drawn by matplotlib (the plotting library people who
//! read these figures already know); the script is compiled into the binary so an
//! installed `swapless` needs no source tree.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The plotting script; it reads OUT/trials.csv and writes PNGs into OUT.
const SCRIPT: &str = include_str!("figures.py");

/// Draws the figures for the trials in `out`; returns their paths, or why it could not.
pub fn draw(out: &Path) -> Result<Vec<PathBuf>, String> {
    let python = std::env::var("SWAPLESS_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let output = Command::new(&python)
        .arg("-c")
        .arg(SCRIPT)
        .arg(out)
        .output()
        .map_err(|error| {
            format!("cannot run {python}: {error} (figures need Python 3 with matplotlib)")
        })?;
    if !output.status.success() {
        let message = String::from_utf8_lossy(&output.stderr);
        if message.contains("No module named 'matplotlib'") {
            return Err(format!(
                "{python} has no matplotlib; `{python} -m pip install matplotlib` and rerun with the same --out, or read trials.csv"
            ));
        }
        let last = message.lines().last().unwrap_or("").to_string();
        return Err(format!("the plotting script failed: {last}"));
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(PathBuf::from)
        .collect())
}
