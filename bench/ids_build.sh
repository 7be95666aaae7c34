#!/usr/bin/env bash
# Any ids at scale: a Kronecker graph's edges written as text with its dense ids, as text
# with random 64-bit ids, and as Parquet with random 64-bit ids, each built undirected
# within MEMORY; prints each build's time, rate and peak RSS. One input at a time is on
# disk (the text with 64-bit ids of scale 25 is about 21 GB).
#   bash bench/ids_build.sh SCALE MEMORY [SWAPLESS]
set -euo pipefail
scale=$1; memory=$2; swapless=${3:-target/release/swapless}
work=bench/results/ids; mkdir -p "$work"
graph=$work/kron$scale.sl
[ -f "$graph" ] || "$swapless" generate kron --scale "$scale" --degree 16 --memory "$memory" -o "$graph" > /dev/null
for input in dense.el wide.el wide.parquet; do
  python3 bench/export_edges.py "$graph" "$work/$input" "${input%%.*}" "$swapless"
  bytes=$(du -b "$work/$input" | cut -f1)
  "$swapless" build "$work/$input" -o "$work/out.sl" --undirected --memory "$memory" --json "$work/$input.json" > /dev/null
  python3 - "$work/$input.json" "$input" "$bytes" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
phases = ", ".join(f"{p['phase']} {p['seconds']:.1f}" for p in r["phase_seconds"])
print(f"{sys.argv[2]}: {int(sys.argv[3]) / 2**30:.1f} GiB in, {r['vertices']} vertices, {r['edges']} edges, "
      f"ids {r['ids']}: {r['seconds']:.1f} s ({r['input_edges_per_second'] / 1e6:.2f} M edges/s), "
      f"peak RSS {r['peak_rss_bytes'] / 2**20:.0f} MiB of {r['memory_budget_bytes'] / 2**20:.0f}; {phases}")
PY
  rm -f "$work/$input" "$work/out.sl"
done
