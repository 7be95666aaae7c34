#!/usr/bin/env bash
# Every check CI runs: formatting, lints, and all unit and integration tests.
# Needs only the Rust toolchain (cargo with rustfmt and clippy); crates come from crates.io.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo test --workspace
