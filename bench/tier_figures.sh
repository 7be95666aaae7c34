#!/usr/bin/env bash
# The out-of-memory figures of BENCHMARKS.md (issue 4): pr, cc and bfs on kron and
# urand scale 23 with 2 threads, on mmap and direct at 50%, 25% and 10% of each kernel's
# dram footprint, page cache dropped before every run (root).
# Side by side: for each budget, ROUNDS rounds (default 3) of one run each on dram, mmap
# and direct, one trial a run, the order turning each round; the table takes medians over
# the rounds and divides each disk run by the dram run of its own round. This machine's
# CPU speed drifts up to 2x between hours, so a dram time taken minutes before is no base.
# Expects the graphs from bench/build_figures.sh; makes them if missing.
# With fio installed (apt-get install fio), each disk run is preceded by a reading of the
# disk's rate at that moment: 1 GiB of a file of its own (so no graph page is warmed), 256
# KiB reads at queue depth 32, O_DIRECT; summarize_tiers.py puts it beside the bound.
set -uo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p swapless-cli
swapless=target/release/swapless
graphs=${BENCH_DIR:-bench/results/build}
out=${TIER_DIR:-bench/results/tiers}
mkdir -p "$out" "$graphs"
for spec in "kron23:kron" "urand23:urand"; do
  name=${spec%%:*}; kind=${spec##*:}
  [ -f "$graphs/$name.sl" ] || "$swapless" generate "$kind" --scale 23 --degree 16 --memory 4G -o "$graphs/$name.sl"
done
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true; }
calibration="$graphs/calibrate.bin"
if command -v fio > /dev/null; then
  [ -f "$calibration" ] || head -c 1G /dev/urandom > "$calibration"
fi
# Writes the disk's read rate now (bytes per second) to $1, when fio is here.
disk_rate() {
  command -v fio > /dev/null || return 0
  drop_caches
  fio --name=rate --filename="$calibration" --rw=read --bs=256k --iodepth=32 \
    --ioengine=io_uring --direct=1 --readonly --output-format=terse 2> /dev/null \
    | awk -F';' '{ print $7 * 1024 }' > "$1"
}
for name in ${GRAPHS:-kron23 urand23}; do
  g="$graphs/$name.sl"
  for kernel in ${KERNELS:-pr cc bfs}; do
    extra=(); [ "$kernel" = pr ] && extra=(--tolerance 1e-4 --max-iters 1000)
    "$swapless" plan "$g" "$kernel" --json "$out/$name-$kernel-plan.json" > /dev/null
    footprint=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['footprint_bytes'])" "$out/$name-$kernel-plan.json")
    for percent in ${BUDGETS:-50 25 10}; do
      budget=$((footprint * percent / 100 / 1024))K
      tiers=(dram ${TIERS:-mmap direct})
      for round in $(seq 1 "${ROUNDS:-3}"); do
        for turn in "${!tiers[@]}"; do
          tier=${tiers[$(((turn + round - 1) % ${#tiers[@]}))]}
          stem="$out/$name-$kernel-$percent-$tier-r$round"
          memory=(--memory "$budget"); [ "$tier" = dram ] && memory=()
          [ "$tier" = dram ] || disk_rate "$stem.disk"
          drop_caches
          if ! "$swapless" run "$kernel" "$g" --threads 2 --tier "$tier" "${memory[@]}" \
              "${extra[@]}" --json "$stem.json" > /dev/null 2> "$stem.err"; then
            rm -f "$stem.json"
            echo "$name $kernel $tier $percent% round $round: $(cat "$stem.err")"
          fi
        done
      done
    done
  done
done
python3 bench/summarize_tiers.py "$out"
