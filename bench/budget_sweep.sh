#!/usr/bin/env bash
# Every kernel on direct and mmap at three budgets (the least + 512 KiB, 24M, 48M) on
# the graphs given (default: kron18 and weighted kron18 in /tmp/t16, made with
# `swapless generate kron --scale 18 --degree 16 [--weighted] -o ...`); prints each
# run's peak RSS against its budget and flags any past the stated allowance.
set -uo pipefail
cd "$(dirname "$0")/.."
b=./target/release/swapless
for g in ${GRAPHS:-/tmp/t16/k18.sl /tmp/t16/k18w.sl}; do
 for k in bfs pr cc sssp bc tc radii mis; do
  least=$($b plan $g $k --tier direct --json /tmp/sw.json >/dev/null 2>&1; python3 -c "import json;print(json.load(open('/tmp/sw.json'))['minimum_bytes'])")
  for tier in direct mmap; do
   for mem in $((least/1024 + 512))K 24M 48M; do
    out=$($b run $k $g --tier $tier --memory $mem --json /tmp/sw-run.json 2>&1 >/dev/null) || { echo "$g $k $tier $mem: FAILED $out" | head -2; continue; }
    python3 -c "
import json; r=json.load(open('/tmp/sw-run.json')); b=r['memory_budget_bytes']; p=r['peak_rss_bytes']; allow=(12 if '$tier'=='mmap' else 10)<<20
flag='OVER' if p>b+allow else 'ok'
print(f'$g $k $tier $mem: budget {b/2**20:.1f} peak {p/2**20:.1f} over by {(p-b)/2**20:.1f} MiB {flag} {r[\"seconds\"]:.2f}s')"
   done
  done
 done
done
