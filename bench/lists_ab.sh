#!/bin/bash
# Plain against compressed lists (issue 42): the same graph in both forms, the same
# binary and budget, rounds alternating; one JSON report a run in OUT.
#   bash bench/lists_ab.sh [OUT] ; python3 bench/summarize_lists_ab.py OUT
# Environment: SWAPLESS (binary), DIR (graphs, default /tmp/lists-ab), GRAPH (kron23),
# KERNELS ("bfs pr cc"), MODES ("dram direct25"), MEM (the disk tiers' budget, 271M: 25% of
# kron23's footprint), ROUNDS (2). Two given files instead of a plain one and its
# compressed copy: A and B (paths; reports name them A_NAME and B_NAME, default "a" "b"),
# as for a version-3 file against a version-4 one.
set -euo pipefail
SWAPLESS=${SWAPLESS:-target/release/swapless}
OUT=${1:-bench/results/lists-ab}
DIR=${DIR:-/tmp/lists-ab}
GRAPH=${GRAPH:-kron23}
KERNELS=${KERNELS:-bfs pr cc}
MODES=${MODES:-dram direct25}
MEM=${MEM:-271M}
ROUNDS=${ROUNDS:-2}
mkdir -p "$OUT" "$DIR"
plain=${A:-$DIR/$GRAPH.sl}
compressed=${B:-$DIR/$GRAPH-v3.sl}
first=plain; second=v3
if [ -n "${A:-}" ]; then first=${A_NAME:-a}; second=${B_NAME:-b}; fi
if [ ! -f "$plain" ]; then
  kind=${GRAPH%%[0-9]*}; scale=${GRAPH#"$kind"}
  "$SWAPLESS" generate "$kind" --scale "$scale" --degree 16 --memory 4G -o "$plain"
fi
[ -f "$compressed" ] || "$SWAPLESS" build "$plain" -o "$compressed" --lists compressed --memory 4G
for round in $(seq 1 "$ROUNDS"); do
  for kernel in $KERNELS; do
    for form in $first $second; do
      graph=$plain; [ $form = "$second" ] && graph=$compressed
      for mode in $MODES; do
        case $mode in
          dram) options=(--tier dram) ;;
          direct25) options=(--tier direct --memory "$MEM") ;;
          mmap25) options=(--tier mmap --memory "$MEM") ;;
        esac
        "$SWAPLESS" run "$kernel" "$graph" "${options[@]}" \
          --json "$OUT/$GRAPH-$kernel-$form-$mode-$round.json" > /dev/null
      done
    done
  done
done
