#!/usr/bin/env bash
# The in-memory kernel figures of BENCHMARKS.md: every kernel on kron and urand
# scale 23 (degree 16) with 2 threads on the dram tier, median of 3 trials
# (1 for tc), side by side with GAP's times in ../shared/ANCHORS.md.
# Expects the graphs from bench/build_figures.sh plus weighted ones; makes them if missing.
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
for name in kron23 urand23; do
  g="$graphs/$name.sl"
  "$swapless" run bfs "$g" --threads 2 --trials 3 --json "$out/$name-bfs.json"
  "$swapless" run pr "$g" --threads 2 --trials 3 --tolerance 1e-4 --max-iters 1000 --json "$out/$name-pr.json"
  "$swapless" run cc "$g" --threads 2 --trials 3 --json "$out/$name-cc.json"
  "$swapless" run bc "$g" --threads 2 --trials 3 --json "$out/$name-bc.json"
  "$swapless" run radii "$g" --threads 2 --trials 3 --json "$out/$name-radii.json"
  "$swapless" run mis "$g" --threads 2 --trials 3 --json "$out/$name-mis.json"
  "$swapless" run sssp "$graphs/${name}w.sl" --threads 2 --trials 3 --delta "${SSSP_DELTA:-2}" --json "$out/$name-sssp.json"
  timeout "${TC_TIMEOUT:-900}" "$swapless" run tc "$g" --threads 2 --trials 1 --json "$out/$name-tc.json" || echo "tc on $name did not finish"
done
python3 bench/summarize_kernels.py "$out"
