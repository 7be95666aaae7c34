#!/usr/bin/env bash
# The issue-5 comparison: dram, swap (ocf 1 and 16), mmap and direct at 100/50/30/10% of
# each kernel's in-memory peak RSS, on kron23, urand23 and a 2896x2896 grid (8.4 M
# vertices), one trial each. Needs root (cgroups, a swap file, dropping caches).
# Results: bench/results/compare/<graph>/{trials.csv,trials.jsonl,*.png}.
set -euo pipefail
cd "$(dirname "$0")/.."
SWAPLESS=${SWAPLESS:-target/release/swapless}
GRAPHS=${GRAPHS:-"kron23 urand23 grid23"}
TRIALS=${TRIALS:-1}
mkdir -p bench/results/build bench/results/compare
for graph in $GRAPHS; do
    file=bench/results/build/$graph.sl
    if [ ! -f "$file" ]; then
        case $graph in
            kron23) "$SWAPLESS" generate kron --scale 23 --degree 16 -o "$file" --memory 2G ;;
            urand23) "$SWAPLESS" generate urand --scale 23 --degree 16 -o "$file" --memory 2G ;;
            grid23) "$SWAPLESS" generate grid --rows 2896 --cols 2896 -o "$file" ;;
        esac
    fi
    "$SWAPLESS" bench --graph "$file" --kernels bfs,pr,cc --budgets 100,50,30,10 \
        --modes dram,swap,mmap,direct --ocf 1,16 --trials "$TRIALS" --timeout 600 \
        --swap-file "bench/results/compare/$graph.swap" --out "bench/results/compare/$graph"
done
