#!/usr/bin/env bash
# A/B of two swapless binaries on one kernel, side by side in one run: kron23 and urand23,
# direct and mmap at 50/25/10% of the kernel's dram footprint, rounds alternating the
# binaries, page cache dropped before every run (root), 3 trials per run.
#   bash bench/ab_figures.sh KERNEL BEFORE_BINARY AFTER_BINARY [OUT_DIR]
# Then: python3 bench/summarize_ab.py OUT_DIR
# GRAPHS, BUDGETS, TIERS, ROUNDS and TRIALS override the defaults. AFTER_SUFFIX gives the
# after side its own file of each graph ($graph$AFTER_SUFFIX.sl): with one binary as both
# sides, that compares two files of one graph (say, two format versions).
set -uo pipefail
cd "$(dirname "$0")/.."
kernel=$1; before=$2; after=$3
out=${4:-bench/results/ab-$kernel}
graphs=${BENCH_DIR:-bench/results/build}
mkdir -p "$out"
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true; }
for graph in ${GRAPHS:-kron23 urand23}; do
  "$after" run "$kernel" "$graphs/$graph.sl" --tier dram --threads 2 --trials 3 \
    --json "$out/$graph-dram.json" > /dev/null 2>&1
  footprint=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['footprint_bytes'])" "$out/$graph-dram.json")
  for percent in ${BUDGETS:-50 25 10}; do
    budget=$((footprint * percent / 100 / 1024))K
    for round in $(seq 1 "${ROUNDS:-3}"); do
      for tier in ${TIERS:-direct mmap}; do
        for side in before after; do
          binary=$before; file=$graph.sl
          [ "$side" = after ] && binary=$after && file=$graph${AFTER_SUFFIX:-}.sl
          drop_caches
          report="$out/$graph-$percent-$tier-$side-$round.json"
          "$binary" run "$kernel" "$graphs/$file" --tier "$tier" --memory "$budget" \
            --threads 2 --trials "${TRIALS:-3}" --json "$report" > /dev/null 2>&1 || echo "failed: $report"
        done
      done
    done
  done
done
