#!/usr/bin/env bash
# Peak RSS against the budget on a graph whose ids are sparse (BENCHMARKS.md, "Sparse
# ids"): 300,000 random edges among 2,000 ids spaced 25,000 apart, so 50M vertices of
# which almost all have empty lists. Runs pr, cc and bfs on the direct tier at each
# one's least budget (from `swapless plan`), caches dropped before each run.
#   bash bench/sparse_ids.sh [SWAPLESS_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
swapless=${1:-target/release/swapless}
[ -n "${1:-}" ] || cargo build --release --quiet -p swapless-cli
out=${SPARSE_DIR:-bench/results/sparse}
mkdir -p "$out"
if [ ! -f "$out/sparse.sl" ]; then
  python3 - "$out/sparse.el" <<'PY'
import random, sys
random.seed(5)
with open(sys.argv[1], "w") as edges:
    for _ in range(300_000):
        edges.write(f"{random.randrange(2000) * 25000} {random.randrange(2000) * 25000}\n")
PY
  "$swapless" build "$out/sparse.el" -o "$out/sparse.sl" --undirected > /dev/null
fi
for kernel in pr cc bfs; do
  least=$("$swapless" plan "$out/sparse.sl" "$kernel" --tier direct --json - | sed -n '/^{/,$p' \
    | python3 -c "import json, sys; print(json.load(sys.stdin)['minimum_bytes'] // 1024 + 1)")
  sync; echo 3 > /proc/sys/vm/drop_caches 2> /dev/null || true
  "$swapless" run "$kernel" "$out/sparse.sl" --tier direct --memory "${least}K" --threads 2 \
    --json "$out/$kernel.json" > /dev/null
  python3 - "$out/$kernel.json" "$kernel" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
budget, peak = report["memory_budget_bytes"], report["peak_rss_bytes"]
print(f"{sys.argv[2]:4} budget {budget / 2**20:7.1f} MiB  peak RSS {peak / 2**20:7.1f} MiB"
      f"  over by {(peak - budget) / 2**20:6.1f} MiB  {report['seconds']:.3f} s")
PY
done
