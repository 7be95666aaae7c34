//! Every fuzz target's seeds and every input that ever crashed it, replayed on the
//! stable toolchain: the targets keep compiling and the crashes stay fixed.

use std::path::PathBuf;

/// The inputs kept for `target`: `fuzz/seeds/TARGET` and `fuzz/regressions/TARGET`.
fn kept_inputs(target: &str) -> Vec<PathBuf> {
    let fuzz = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut inputs = Vec::new();
    for kind in ["seeds", "regressions"] {
        if let Ok(entries) = std::fs::read_dir(fuzz.join(kind).join(target)) {
            inputs.extend(entries.flatten().map(|entry| entry.path()));
        }
    }
    inputs.sort();
    inputs
}

#[test]
fn every_seed_and_past_crash_runs_clean() {
    for (target, run) in swapless_fuzz_targets::TARGETS {
        let inputs = kept_inputs(target);
        assert!(!inputs.is_empty(), "{target} has no seeds");
        for input in inputs {
            let data = std::fs::read(&input).unwrap();
            let outcome = std::panic::catch_unwind(|| run(&data));
            assert!(outcome.is_ok(), "{target} panics on {}", input.display());
        }
    }
}
