#!/usr/bin/env bash
# The in-memory kernel figures of BENCHMARKS.md: every kernel on kron and urand
# scale 23 (degree 16) with 2 threads on the dram tier, median of 3 trials
# (1 for tc), side by side with GAP's times in ../shared/ANCHORS.md.
# Expects the graphs from bench/build_figures.sh plus weighted ones; makes them if missing.
# BASELINE=/path/to/an/older/swapless runs that binary too, right before each kernel
# (not tc, which takes minutes), so a change is measured side by side, not across days.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p swapless-cli
swapless=target/release/swapless
graphs=${BENCH_DIR:-bench/results/build}
out=${KERNEL_DIR:-bench/results/kernels}
mkdir -p "$out" "$graphs"
for spec in "kron23:kron" "urand23:urand"; do
  name=${spec%%:*}; kind=${spec##*:}
  [ -f "$graphs/$name.sl" ] || "$swapless" generate "$kind" --scale 23 --degree 16 --memory 4G -o "$graphs/$name.sl"
  [ -f "$graphs/${name}w.sl" ] || "$swapless" generate "$kind" --scale 23 --degree 16 --weighted --memory 4G -o "$graphs/${name}w.sl"
done
export RAYON_NUM_THREADS=2
# run NAME KERNEL GRAPH ARGS...: the current binary (after the baseline, if any).
run() {
  local name=$1 kernel=$2 graph=$3; shift 3
  if [ -n "${BASELINE:-}" ] && [ "$kernel" != tc ]; then
    mkdir -p "$out/baseline"
    "$BASELINE" run "$kernel" "$graph" --threads 2 "$@" --json "$out/baseline/$name-$kernel.json"
  fi
  "$swapless" run "$kernel" "$graph" --threads 2 "$@" --json "$out/$name-$kernel.json"
}
for name in kron23 urand23; do
  g="$graphs/$name.sl"
  run "$name" bfs "$g" --trials 3
  run "$name" pr "$g" --trials 3 --tolerance 1e-4 --max-iters 1000
  # GAP's pr is Gauss-Seidel; the same algorithm, for the side-by-side row.
  "$swapless" run pr "$g" --threads 2 --trials 3 --tolerance 1e-4 --max-iters 1000 \
    --method gauss-seidel --json "$out/$name-pr-gs.json"
  run "$name" cc "$g" --trials 3
  run "$name" bc "$g" --trials 3
  run "$name" radii "$g" --trials 3
  run "$name" mis "$g" --trials 3
  run "$name" sssp "$graphs/${name}w.sl" --trials 3 --delta "${SSSP_DELTA:-2}"
  TIMEOUT=${TC_TIMEOUT:-900}
  timeout "$TIMEOUT" "$swapless" run tc "$g" --threads 2 --trials 1 --json "$out/$name-tc.json" || echo "tc on $name did not finish"
done
python3 bench/summarize_kernels.py "$out"
