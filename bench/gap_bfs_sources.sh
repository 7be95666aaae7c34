#!/usr/bin/env bash
# bfs in memory beside GAP's, from each of the 16 sources GAP's own benchmark draws on its
# kron23 (the time of one search varies by 1.5x between sources), 3 trials each, back to back.
#
#   GAP_DIR=/path/to/built/gapbs GRAPHS=/folder/with/kron23.sg/and/kron23-plain.sl \
#     SWAPLESS=/path/to/swapless [BEFORE=/path/to/an/older/swapless] bash bench/gap_bfs_sources.sh
#
# GRAPHS is the folder bench/gap_side_by_side.sh fills. Prints a line a source (GAP's mean,
# swapless's median, and the older binary's when BEFORE is given), then geometric means.
set -euo pipefail
: "${GAP_DIR:?set GAP_DIR to a built gapbs}" "${GRAPHS:?set GRAPHS}" "${SWAPLESS:?set SWAPLESS}"
THREADS=${THREADS:-2}
export OMP_NUM_THREADS=$THREADS RAYON_NUM_THREADS=$THREADS
GRAPH=${GRAPH:-$GRAPHS/kron23-plain.sl}
# GAP's sources for kron23 (`bfs -f kron23.sg -n 16 -l` prints them): its fixed seed draws these.
mapfile -t sources < <("$GAP_DIR/bfs" -f "$GRAPHS/kron23.sg" -n 16 -l | awk '/^Source:/{print $2}')
swapless_median() {  # binary source
  "$1" run bfs "$GRAPH" --source "$2" --trials 3 --threads "$THREADS" 2>&1 | awk '/median of/{print $1}'
}
echo "source gap swapless${BEFORE:+ before}"
for source in "${sources[@]}"; do
  gap=$("$GAP_DIR/bfs" -f "$GRAPHS/kron23.sg" -r "$source" -n 3 | awk '/^Average Time:/{print $3}')
  before=""
  [ -n "${BEFORE:-}" ] && before=$(swapless_median "$BEFORE" "$source")
  echo "$source $gap $(swapless_median "$SWAPLESS" "$source") $before"
done | tee /dev/stderr | awk '{
  a += log($3 / $2); n++
  if (NF > 3) { b += log($4 / $2); c += log($3 / $4) }
} END {
  printf "geometric mean: swapless/GAP %.3f", exp(a / n)
  if (b != 0 || c != 0) printf ", before/GAP %.3f, swapless/before %.3f", exp(b / n), exp(c / n)
  printf " over %d sources\n", n
}'
