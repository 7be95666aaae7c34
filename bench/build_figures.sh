#!/usr/bin/env bash
# The build figures of BENCHMARKS.md: time, peak RSS and throughput of the
# out-of-core builder on Kronecker graphs and on a text edge list.
# Needs about 25 GB of free disk in $BENCH_DIR (default bench/results/build).
# Run as root to drop the page cache before each build (otherwise it is skipped).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet -p swapless-cli
cargo build --release --quiet -p swapless-build --example kron_edge_list
swapless=target/release/swapless
out=${BENCH_DIR:-bench/results/build}
mkdir -p "$out"

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true; }

run() {
  local name=$1; shift
  drop_caches
  echo "== $name: swapless $*"
  "$swapless" "$@" --json "$out/$name.json" | tee "$out/$name.txt"
}

run kron23-512M generate kron --scale 23 --degree 16 --memory 512M -o "$out/kron23.sl"
run kron23-2G generate kron --scale 23 --degree 16 --memory 2G -o "$out/kron23.sl"
run kron25-1G generate kron --scale 25 --degree 16 --memory 1G -o "$out/kron25.sl"
rm -f "$out/kron25.sl"
if [ ! -f "$out/kron22.el" ]; then
  target/release/examples/kron_edge_list 22 16 "$out/kron22.el"
fi
run kron22-text-2G build "$out/kron22.el" --undirected --memory 2G -o "$out/kron22.sl"
run kron22-text-512M build "$out/kron22.el" --undirected --memory 512M -o "$out/kron22.sl"

python3 bench/summarize_build.py "$out"
