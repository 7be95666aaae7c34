#!/usr/bin/env bash
# The main job, end to end: build swapless, generate a Kronecker graph under a
# memory budget, import a real graph, show what is in both files, and run
# kernels on them (in memory for now; the disk tiers and budgets for runs come next).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet -p swapless-cli
swapless=target/release/swapless
out=demo-out
mkdir -p "$out"

echo "== generate a Kronecker graph (scale 20, 16 edges per vertex) within a 256 MiB budget"
"$swapless" generate kron --scale 20 --degree 16 --memory 256M -o "$out/kron20.sl"

enron=../shared/data/email-Enron.el.gz
if [ ! -f "$enron" ]; then
  echo "error: $enron is missing: run this from a checkout that sits beside shared/" >&2
  exit 1
fi
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
