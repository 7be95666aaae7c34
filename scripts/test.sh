#!/usr/bin/env bash
# Every check CI runs: formatting, lints, all Rust unit and integration tests (the
# bench harness's among them: as root it makes memory cgroups and a swap file, and
# removes them), and the Python tests: the CLI's kernels and the Python package's
# API against networkx and scipy.
# Needs the Rust toolchain (cargo with rustfmt and clippy); the rest comes from apt
# (Redis, openssl, python3-venv where missing), crates.io and PyPI (into `.venv`).
set -euo pipefail
cd "$(dirname "$0")/.."
# A test run builds each crate once: incremental caches would only add gigabytes to the
# build tree.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

. scripts/system-packages.sh
# The far-memory tests start their own Redis servers and a Redis Cluster on loopback, and
# make TLS certificates with openssl.
need_packages redis-server:redis-server redis-cli:redis-tools openssl:openssl

# Python packages go into the checkout's `.venv`; matplotlib draws `swapless bench`'s
# figures, which the Rust tests check too; maturin builds the Python package; pandas and
# pyarrow are what from_pandas and from_arrow take.
enter_venv
python3 -m pip install --quiet --disable-pip-version-check numpy scipy networkx==3.6.1 pandas pyarrow pytest matplotlib maturin

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo test --workspace

cargo build --release --quiet -p swapless-cli
# The Python package (crates/python), built as a wheel and installed for its tests, with
# the hook that lets test_checkpoint.py kill it at a chosen point (`test-hooks`).
rm -rf target/wheels
python3 -m maturin build --quiet --release -m crates/python/Cargo.toml -o target/wheels --features test-hooks
python3 -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/swapless-*.whl
SWAPLESS_BIN="$PWD/target/release/swapless" python3 -m pytest -q python/tests
