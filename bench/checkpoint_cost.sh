#!/usr/bin/env bash
# What checkpoints cost and what a resume takes, side by side in one run: for each round,
# KERNEL on GRAPH without checkpoints, with the default interval, and with one after every
# step (alternating, so drift hits all three alike); then a run killed after its Kth
# checkpoint (K = half the steps) and resumed. Prints each trial and the medians.
#   bash bench/checkpoint_cost.sh GRAPH.sl ROUNDS -- RUN_ARGS... (e.g. pr --tier dram)
# The kill needs a binary with the test hook: cargo build --release -p swapless-cli --features test-hooks
set -euo pipefail
graph=$1; rounds=$2; shift 2; [ "$1" = "--" ] && shift
swapless=${SWAPLESS:-target/release/swapless}
work=$(mktemp -d "${TMPDIR:-/var/tmp}/checkpoint-cost.XXXXXX")
trap 'rm -rf "$work"' EXIT
kernel=$1; shift
run() {  # label, extra args...
  local label=$1; shift
  rm -rf "$work/ckpt"
  "$swapless" run "$kernel" "$graph" "$@" --json "$work/$label.json" > /dev/null 2>&1 || true
  python3 - "$work/$label.json" "$label" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]},{r['seconds']:.3f},{r['checkpoints_written']},{r['checkpoint_seconds']:.3f},"
      f"{r['resumed_from_step']},{r['restore_seconds']:.3f}")
PY
}
echo "mode,seconds,checkpoints,checkpoint_seconds,resumed_from_step,restore_seconds" | tee "$work/trials.csv"
for round in $(seq "$rounds"); do
  run none "$@" | tee -a "$work/trials.csv"
  run auto "$@" --checkpoint "$work/ckpt" | tee -a "$work/trials.csv"
  run every-step "$@" --checkpoint "$work/ckpt" --checkpoint-every 1 | tee -a "$work/trials.csv"
  steps=$(python3 -c "import json; print(json.load(open('$work/every-step.json'))['checkpoints_written'])")
  half=$(( steps / 2 > 0 ? steps / 2 : 1 ))
  rm -rf "$work/ckpt"
  SWAPLESS_TEST_KILL="after-checkpoint:$half" "$swapless" run "$kernel" "$graph" "$@" \
    --checkpoint "$work/ckpt" --checkpoint-every 1 > /dev/null 2>&1 || true
  "$swapless" run "$kernel" "$graph" "$@" --checkpoint "$work/ckpt" --checkpoint-every 1h \
    --resume --json "$work/resumed.json" > /dev/null 2>&1
  python3 - "$work/resumed.json" <<'PY' | tee -a "$work/trials.csv"
import json, sys
r = json.load(open(sys.argv[1]))
print(f"resumed,{r['seconds']:.3f},{r['checkpoints_written']},{r['checkpoint_seconds']:.3f},"
      f"{r['resumed_from_step']},{r['restore_seconds']:.3f}")
PY
done
python3 - "$work/trials.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def median(mode, field):
    values = [float(r[field]) for r in rows if r["mode"] == mode]
    return statistics.median(values) if values else float("nan")
base = median("none", "seconds")
for mode in ("none", "auto", "every-step", "resumed"):
    seconds = median(mode, "seconds")
    written = median(mode, "checkpoints")
    cost = median(mode, "checkpoint_seconds")
    per = cost / written if written else 0.0
    print(f"median {mode}: {seconds:.2f} s ({seconds / base:.3f}x), {written:.0f} checkpoints "
          f"taking {cost:.2f} s ({per:.3f} s each), restore {median(mode, 'restore_seconds'):.3f} s")
PY
