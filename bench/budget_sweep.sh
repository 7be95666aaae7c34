#!/usr/bin/env bash
# Every kernel on direct and mmap at three budgets (its least + 512 KiB, 24M and 48M):
# prints each run's peak RSS against its budget and flags any past the stated allowance
# (10 MiB on direct, 12 MiB on mmap).
#   bash bench/budget_sweep.sh                      # kron18 and weighted kron18, made if missing
#   GRAPHS="a.sl b.sl" bash bench/budget_sweep.sh   # your graphs
set -uo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p swapless-cli
swapless=target/release/swapless
build=${BENCH_DIR:-bench/results/build}
mkdir -p "$build"
if [ -z "${GRAPHS:-}" ]; then
  [ -f "$build/kron18.sl" ] ||
    "$swapless" generate kron --scale 18 --degree 16 -o "$build/kron18.sl" > /dev/null
  [ -f "$build/kron18w.sl" ] ||
    "$swapless" generate kron --scale 18 --degree 16 --weighted -o "$build/kron18w.sl" > /dev/null
  GRAPHS="$build/kron18.sl $build/kron18w.sl"
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for graph in $GRAPHS; do
  for kernel in bfs pr cc sssp bc tc radii mis; do
    "$swapless" plan "$graph" "$kernel" --tier direct --json "$scratch/plan.json" > /dev/null
    least=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['minimum_bytes'])" "$scratch/plan.json")
    for tier in direct mmap; do
      for memory in $((least / 1024 + 512))K 24M 48M; do
        if ! error=$("$swapless" run "$kernel" "$graph" --tier "$tier" --memory "$memory" \
            --json "$scratch/run.json" 2>&1 > /dev/null); then
          echo "$graph $kernel $tier $memory: FAILED $(echo "$error" | head -1)"
          continue
        fi
        python3 - "$scratch/run.json" "$graph $kernel $tier $memory" "$tier" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
budget, peak = report["memory_budget_bytes"], report["peak_rss_bytes"]
allowance = (12 if sys.argv[3] == "mmap" else 10) << 20
flag = "OVER" if peak > budget + allowance else "ok"
print(f"{sys.argv[2]}: budget {budget / 2**20:.1f} MiB, peak {peak / 2**20:.1f} MiB, "
      f"over by {(peak - budget) / 2**20:.1f} MiB {flag} ({report['seconds']:.2f} s)")
PY
      done
    done
  done
done
