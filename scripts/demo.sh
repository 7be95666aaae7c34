#!/usr/bin/env bash
# The main job, end to end: build swapless, generate a Kronecker graph under a
# memory budget, import a real graph, show what is in both files, run kernels in
# memory, then run PageRank and BFS again under a budget a quarter of their
# footprint (direct tier: O_DIRECT reads through io_uring) and compare.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/system-packages.sh
need_packages python3:python3   # reads the JSON reports

echo "== building swapless (several minutes the first time)..."
cargo build --release -p swapless-cli
swapless=target/release/swapless
out=demo-out
mkdir -p "$out"

echo "== generate a Kronecker graph (scale 20, 16 edges per vertex) within a 256 MiB budget, hottest vertices first"
"$swapless" generate kron --scale 20 --degree 16 --memory 256M --reorder dbg -o "$out/kron20.sl"

enron=data/email-Enron.el.gz
echo
echo "== import a real graph: the Enron e-mail network, undirected, reordered by degree"
"$swapless" build "$enron" --undirected --reorder dbg -o "$out/email-Enron.sl"

for graph in "$out/kron20.sl" "$out/email-Enron.sl"; do
  echo
  echo "== swapless info $graph"
  "$swapless" info "$graph"
  "$swapless" check "$graph"
done

for kernel in bfs pr cc; do
  echo
  echo "== swapless run $kernel $out/kron20.sl --verify"
  "$swapless" run "$kernel" "$out/kron20.sl" --trials 3 --verify --out "$out/kron20-$kernel.npy"
done
echo
echo "== swapless run tc $out/email-Enron.sl --verify"
"$swapless" run tc "$out/email-Enron.sl" --verify

echo
echo
echo "== PageRank and BFS under a budget of a quarter of their footprint, beside the dram run"
# Degree 32, so that edges (not the per-vertex arrays every tier keeps in memory) dominate.
"$swapless" generate kron --scale 20 --degree 32 --memory 256M --reorder dbg -o "$out/kron20d32.sl"
for kernel in pr bfs; do
  "$swapless" plan "$out/kron20d32.sl" "$kernel" --json "$out/plan-$kernel.json" > /dev/null
  footprint=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['footprint_bytes'])" "$out/plan-$kernel.json")
  budget="$((footprint / 4 / 1024))K"
  echo
  echo "-- swapless plan $out/kron20d32.sl $kernel --memory $budget"
  "$swapless" plan "$out/kron20d32.sl" "$kernel" --memory "$budget"
  echo "-- dram"
  "$swapless" run "$kernel" "$out/kron20d32.sl" --tier dram --trials 3 --out "$out/$kernel-dram.npy" --json "$out/$kernel-dram.json"
  echo "-- the default disk tier (direct, or mmap where io_uring is refused), --memory $budget"
  "$swapless" run "$kernel" "$out/kron20d32.sl" --memory "$budget" --trials 3 --verify --out "$out/$kernel-direct.npy" --json "$out/$kernel-direct.json"
  python3 - "$out/$kernel-dram.json" "$out/$kernel-direct.json" "$out/$kernel-dram.npy" "$out/$kernel-direct.npy" <<'PY'
import json, sys
dram, disk = (json.load(open(path)) for path in sys.argv[1:3])
if dram["kernel"] == "pr":
    import array
    def scores(path):
        raw = open(path, "rb").read()
        values = array.array("d")
        values.frombytes(raw[10 + int.from_bytes(raw[8:10], "little"):])
        return values
    a, b = scores(sys.argv[3]), scores(sys.argv[4])
    same = len(a) == len(b) and all(abs(x - y) <= 1e-9 * max(abs(y), 1e-12) for x, y in zip(a, b))
    what = "every score (to 1e-9)"
else:
    # Any valid BFS tree is an answer; both were verified, and must reach the same vertices in as many levels.
    same = dram["result"] == disk["result"]
    what = "vertices reached and levels (the tree was verified)"
print(f"== {dram['kernel']}: {disk['tier']} at {disk['memory_budget_bytes'] / dram['footprint_bytes']:.0%} of the footprint "
      f"took {disk['seconds'] / dram['seconds']:.2f}x the dram time, reading {disk['bytes_read'] >> 20} MiB a trial "
      f"({disk['bytes_read'] / disk['seconds'] / 1e9:.2f} GB/s over the run), peak RSS {disk['peak_rss_bytes'] >> 20} MiB "
      f"within a budget of {disk['memory_budget_bytes'] >> 20} MiB for the whole process; "
      f"{what}: {'the same' if same else 'DIFFERENT'}")
sys.exit(0 if same and disk["peak_rss_bytes"] <= disk["memory_budget_bytes"] else 1)
PY
done
