//! The `swapless` binary.

use std::process::ExitCode;

fn main() -> ExitCode {
    // SAFETY: called first thing, before any thread exists; restores the default
    // SIGPIPE action so `swapless info g.sl | head` ends quietly instead of panicking.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    ExitCode::from(swapless_cli::main_with(std::env::args_os().collect()))
}
