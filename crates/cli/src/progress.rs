//! A progress bar on the terminal for long builds; silent when stderr is not a terminal.

use indicatif::{ProgressBar, ProgressStyle};
use swapless_build::BuildProgress;

/// Draws the builder's phases on stderr.
pub struct TerminalProgress {
    bar: ProgressBar,
    phase: std::sync::Mutex<(String, std::time::Instant)>,
}

impl TerminalProgress {
    /// A hidden-when-not-a-terminal progress bar.
    pub fn new() -> TerminalProgress {
        // indicatif draws to stderr only when it is a terminal, so logs and CI stay clean.
        let bar = ProgressBar::new(0);
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        TerminalProgress {
            bar,
            phase: std::sync::Mutex::new((String::new(), std::time::Instant::now())),
        }
    }

    /// Removes the bar from the screen.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl BuildProgress for TerminalProgress {
    fn warning(&self, message: &str) {
        self.bar.suspend(|| eprintln!("warning: {message}"));
    }

    fn phase(&self, name: &str, total: Option<u64>) {
        let template = if total.is_some() {
            "{spinner} {msg:<40} [{bar:30}] {percent:>3}%  {elapsed_precise} elapsed, eta {eta}"
        } else {
            "{spinner} {msg:<22} {elapsed_precise} elapsed"
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            self.bar.set_style(style.progress_chars("=> "));
        }
        self.bar.set_length(total.unwrap_or(0));
        self.bar.set_position(0);
        self.bar.set_message(name.to_string());
        if let Ok(mut phase) = self.phase.lock() {
            *phase = (name.to_string(), std::time::Instant::now());
        }
    }

    fn edges_read(&self, edges: u64) {
        if let Ok(phase) = self.phase.lock() {
            let seconds = phase.1.elapsed().as_secs_f64().max(1e-3);
            self.bar.set_message(format!(
                "{}: {:.1} M edges, {:.2} M/s",
                phase.0,
                edges as f64 / 1e6,
                edges as f64 / seconds / 1e6
            ));
        }
    }

    fn position(&self, done: u64) {
        self.bar.set_position(done);
    }
}

/// A spinner for `swapless run`: the trial, passes over the lists (iterations, levels)
/// and bytes read; silent off a terminal.
pub struct RunProgress {
    bar: ProgressBar,
    trials: u32,
    done: std::sync::atomic::AtomicU32,
    started: std::time::Instant,
}

impl RunProgress {
    /// Starts the spinner for `trials` trials of `kernel`.
    pub fn start(kernel: &str, trials: u32) -> RunProgress {
        let bar = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed_precise}") {
            bar.set_style(style);
        }
        bar.set_message(format!("{kernel}: trial 1 of {trials}"));
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        RunProgress {
            bar,
            trials,
            done: std::sync::atomic::AtomicU32::new(0),
            started: std::time::Instant::now(),
        }
    }
}

impl swapless_run::Progress for RunProgress {
    fn note(&self, message: &str) {
        self.bar.suspend(|| eprintln!("{message}"));
    }

    fn pass_done(&self, passes: u64, bytes_read: u64) {
        let done = self.done.load(std::sync::atomic::Ordering::Relaxed);
        let seconds = self.started.elapsed().as_secs_f64().max(1e-3);
        let mebibytes = bytes_read as f64 / (1 << 20) as f64;
        self.bar.set_message(format!(
            "trial {} of {}, pass {passes}, {mebibytes:.1} MiB read ({:.0} MiB/s)",
            (done + 1).min(self.trials),
            self.trials,
            mebibytes / seconds
        ));
    }

    fn trial_done(&self, bytes_read: u64) {
        let done = self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let seconds = self.started.elapsed().as_secs_f64().max(1e-3);
        self.bar.set_message(format!(
            "trial {} of {}, {:.1} MiB read ({:.0} MiB/s)",
            (done + 1).min(self.trials),
            self.trials,
            bytes_read as f64 / (1 << 20) as f64,
            bytes_read as f64 / (1 << 20) as f64 / seconds
        ));
    }
}

impl RunProgress {
    /// Removes the spinner.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// A run that ends in an error before `finish` (a bad `--source`) leaves no spinner behind.
impl Drop for RunProgress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// Notes on standard error, nothing else: for commands without a spinner (`plan`).
pub struct Notes;

impl swapless_run::Progress for Notes {
    fn note(&self, message: &str) {
        eprintln!("{message}");
    }
}
