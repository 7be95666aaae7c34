#!/usr/bin/env bash
# --verify under a budget (issue 4): pr, cc and bfs on kron23 with --verify on the direct
# tier at 25% and 10% of each kernel's dram footprint, page cache dropped before each run,
# 2 threads. Prints, per run, the exit status, wall seconds, the run's own seconds, the
# report's peak RSS and the resident set sampled from outside every 20 ms (which sees a
# peak the report might not). BINARY=... runs another build of swapless (an older commit,
# side by side); GRAPH, KERNELS and BUDGETS as in tier_figures.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p swapless-cli
swapless=${BINARY:-target/release/swapless}
graph=${GRAPH:-bench/results/build/kron23.sl}
out=${VERIFY_DIR:-bench/results/verify}
mkdir -p "$out"
tag=${TAG:-$(basename "$(dirname "$(dirname "$swapless")")")}
for kernel in ${KERNELS:-bfs cc pr}; do
  extra=(); [ "$kernel" = pr ] && extra=(--tolerance 1e-4 --max-iters 1000)
  target/release/swapless plan "$graph" "$kernel" --json "$out/plan-$kernel.json" > /dev/null
  footprint=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['footprint_bytes'])" "$out/plan-$kernel.json")
  for percent in ${BUDGETS:-25 10}; do
    budget=$((footprint * percent / 100 / 1024))K
    stem="$out/$tag-$kernel-$percent"
    sync; echo 3 > /proc/sys/vm/drop_caches 2> /dev/null || true
    started=$(date +%s.%N)
    "$swapless" run "$kernel" "$graph" --tier direct --memory "$budget" --threads 2 --verify \
      "${extra[@]}" --json "$stem.json" > /dev/null 2> "$stem.err" &
    pid=$!
    most=0
    while kill -0 "$pid" 2> /dev/null; do
      rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2> /dev/null)
      [ -n "$rss" ] && [ "$rss" -gt "$most" ] && most=$rss
      sleep 0.02
    done
    wait "$pid"; status=$?
    wall=$(python3 -c "import sys,time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$started")
    report=$(python3 -c "
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    print(f\"{r['seconds']:.2f} {r['peak_rss_bytes'] / 2**20:.1f}\")
except Exception:
    print('- -')" "$stem.json")
    echo "$tag $kernel ${percent}% budget=$budget status=$status wall_s=$wall run_s/report_peak_MiB=$report sampled_peak_MiB=$((most / 1024)) $(tail -c 200 "$stem.err" | tr '\n' ' ')"
  done
done
