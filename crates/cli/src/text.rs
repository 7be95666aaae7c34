//! Number formatting for reports, and where the human report goes.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set when standard output carries JSON (`--json -`): the human report goes to
/// standard error instead, so the JSON can be piped into a parser.
static REPORT_TO_STDERR: AtomicBool = AtomicBool::new(false);

/// Sends the human report to standard error from now on.
pub fn report_to_stderr() {
    REPORT_TO_STDERR.store(true, Ordering::Relaxed);
}

/// Whether the human report goes to standard error.
pub fn reports_on_stderr() -> bool {
    REPORT_TO_STDERR.load(Ordering::Relaxed)
}

/// `println!` for the human report: standard output, or standard error when standard
/// output carries JSON.
macro_rules! say {
    ($($arg:tt)*) => {
        if $crate::text::reports_on_stderr() {
            eprintln!($($arg)*)
        } else {
            println!($($arg)*)
        }
    };
}
pub(crate) use say;

/// `1234567` → `1,234,567`.
pub fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Bytes for people.
pub use swapless_system::format_bytes as bytes;

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_groups_digits() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1000), "1,000");
        assert_eq!(super::thousands(1234567), "1,234,567");
    }
}
