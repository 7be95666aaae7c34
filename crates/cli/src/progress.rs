//! A progress bar on the terminal for long builds; silent when stderr is not a terminal.

use indicatif::{ProgressBar, ProgressStyle};
use swapless_build::BuildProgress;

/// Draws the builder's phases on stderr.
pub struct TerminalProgress {
    bar: ProgressBar,
}

impl TerminalProgress {
    /// A hidden-when-not-a-terminal progress bar.
    pub fn new() -> TerminalProgress {
        // indicatif draws to stderr only when it is a terminal, so logs and CI stay clean.
        let bar = ProgressBar::new(0);
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        TerminalProgress { bar }
    }

    /// Removes the bar from the screen.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl BuildProgress for TerminalProgress {
    fn phase(&self, name: &str, total: Option<u64>) {
        let template = if total.is_some() {
            "{spinner} {msg:<22} [{bar:30}] {percent:>3}%  {elapsed_precise} elapsed, eta {eta}"
        } else {
            "{spinner} {msg:<22} {elapsed_precise} elapsed"
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            self.bar.set_style(style.progress_chars("=> "));
        }
        self.bar.set_length(total.unwrap_or(0));
        self.bar.set_position(0);
        self.bar.set_message(name.to_string());
    }

    fn position(&self, done: u64) {
        self.bar.set_position(done);
    }
}
