#!/usr/bin/env bash
# Every check CI runs: formatting, lints, all Rust unit and integration tests (the
# bench harness's among them: as root it makes memory cgroups and a swap file, and
# removes them), and the Python tests that compare the kernels with networkx.
# Needs the Rust toolchain (cargo with rustfmt and clippy) and Python 3 with pip;
# crates come from crates.io and Python packages from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

# matplotlib draws `swapless bench`'s figures, which the Rust tests check too.
python3 -m pip install --quiet --disable-pip-version-check numpy scipy networkx pytest matplotlib

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo test --workspace

cargo build --release --quiet -p swapless-cli
SWAPLESS_BIN="$PWD/target/release/swapless" python3 -m pytest -q python/tests
