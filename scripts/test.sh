#!/usr/bin/env bash
# Every check CI runs: formatting, lints, all Rust unit and integration tests (the
# bench harness's among them: as root it makes memory cgroups and a swap file, and
# removes them), and the Python tests: the CLI's kernels and the Python package's
# API against networkx and scipy.
# Needs the Rust toolchain (cargo with rustfmt and clippy) and Python 3 with pip;
# crates come from crates.io, Python packages from PyPI, Redis from apt.
set -euo pipefail
cd "$(dirname "$0")/.."

# The far-memory tests start their own Redis servers and a Redis Cluster on loopback, and
# make TLS certificates with openssl: these come from the system's packages where missing.
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null || ! command -v openssl >/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server redis-tools openssl >/dev/null
  else
    echo "the far-memory tests need redis-server, redis-cli and openssl (Debian/Ubuntu: apt-get install redis-server redis-tools openssl)" >&2
    exit 1
  fi
fi

# matplotlib draws `swapless bench`'s figures, which the Rust tests check too;
# maturin builds the Python package.
python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore numpy scipy networkx pytest matplotlib maturin

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo test --workspace

cargo build --release --quiet -p swapless-cli
# The Python package (crates/python), built as a wheel and installed for its tests.
rm -rf target/wheels
python3 -m maturin build --quiet --release -m crates/python/Cargo.toml -o target/wheels
python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --force-reinstall --no-deps target/wheels/swapless-*.whl
SWAPLESS_BIN="$PWD/target/release/swapless" python3 -m pytest -q python/tests
