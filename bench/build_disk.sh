#!/usr/bin/env bash
# Peak disk use of one build against its output's size: the output file system's used
# bytes are sampled every half second while the build runs (runs, output and all), less
# what was used before it began. Nothing else should write to that file system meanwhile.
#
#   SWAPLESS=target/release/swapless bench/build_disk.sh OUT.sl generate kron --scale 25 \
#       --degree 16 --memory 1G --lists compressed
#
# Prints the build's seconds, peak disk, output bytes and their ratio; the build's report
# goes to OUT.sl.json.
set -euo pipefail
SWAPLESS=${SWAPLESS:-target/release/swapless}
output=$1; shift
folder=$(dirname "$output")
used() { python3 -c 'import os,sys; s=os.statvfs(sys.argv[1]); print((s.f_blocks-s.f_bfree)*s.f_frsize)' "$folder"; }
sync
before=$(used)
peak_file=$(mktemp)
echo 0 > "$peak_file"
(
  peak=0
  while true; do
    now=$(( $(used 2>/dev/null || echo "$before") - before ))
    if [ "$now" -gt "$peak" ]; then peak=$now; echo "$peak" > "$peak_file"; fi
    sleep 0.5
  done
) &
sampler=$!
trap 'kill $sampler 2>/dev/null || true; rm -f "$peak_file"' EXIT
start=$(date +%s.%N)
"$SWAPLESS" "$@" -o "$output" --json "$output.json"
end=$(date +%s.%N)
sync
sleep 1
peak=$(cat "$peak_file")
bytes=$(stat -c %s "$output")
python3 - "$start" "$end" "$peak" "$bytes" <<'PY'
import sys
start, end, peak, size = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
print(f"seconds {end - start:.1f}  peak disk {peak / 1e9:.2f} GB  output {size / 1e9:.2f} GB  "
      f"peak/output {peak / size:.2f}x")
PY
