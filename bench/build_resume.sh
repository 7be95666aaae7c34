#!/usr/bin/env bash
# A build killed at a share of its time and resumed, against a whole build, side by side:
# per round, a whole build with NEW (and with OLD, if given, for what the journal costs),
# then NEW killed by SIGKILL at FRACTION of the whole build's time and resumed. Prints
# each build's seconds and peak RSS, the phase the kill hit, and what the resume reused.
#   bash bench/build_resume.sh ROUNDS FRACTION NEW [OLD] -- GENERATE_OR_BUILD_ARGS...
# e.g. bash bench/build_resume.sh 1 0.8 target/release/swapless -- generate kron --scale 25 --memory 1G
set -euo pipefail
rounds=$1; fraction=$2; new=$3; shift 3
old=""
if [ "$1" != "--" ]; then old=$1; shift; fi
shift
work=$(mktemp -d "${TMPDIR:-/var/tmp}/build-resume.XXXXXX")
trap 'rm -rf "$work"' EXIT
report() {  # label, json
  python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))
phases = ", ".join(f"{p['phase']} {p['seconds']:.1f}" for p in r["phase_seconds"])
print(f"{sys.argv[1]}: {r['seconds']:.1f} s, peak RSS {r['peak_rss_bytes'] / 2**20:.0f} MiB, "
      f"{r['runs_spilled']} runs, resumed {r.get('resumed_runs', 0)} runs holding "
      f"{r.get('resumed_input_edges', 0):,} input edges; {phases}")
PY
}
for round in $(seq "$rounds"); do
  if [ -n "$old" ]; then
    "$old" "$@" -o "$work/old.sl" --json "$work/old.json" > /dev/null
    report "old whole" "$work/old.json"
    rm -f "$work/old.sl"
  fi
  started=$(date +%s.%N)
  "$new" "$@" -o "$work/whole.sl" --json "$work/whole.json" > /dev/null
  whole=$(python3 -c "import time; print(time.time() - $started)")
  report "new whole" "$work/whole.json"
  kill_at=$(python3 -c "print($whole * $fraction)")
  "$new" "$@" -o "$work/resumed.sl" > "$work/killed.log" 2>&1 &
  pid=$!
  sleep "$kill_at"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "killed at $kill_at s of $whole s; its folder holds $(ls "$work"/.swapless-build-*/ 2>/dev/null | grep -c '^run-' || true) run files"
  started=$(date +%s.%N)
  "$new" "$@" -o "$work/resumed.sl" --resume --json "$work/resumed.json" > /dev/null
  resumed=$(python3 -c "import time; print(time.time() - $started)")
  report "resumed" "$work/resumed.json"
  python3 -c "print(f'kill at {$kill_at:.1f} s + resume {$resumed:.1f} s = {$kill_at + $resumed:.1f} s, against {$kill_at:.1f} s + a whole rebuild of {$whole:.1f} s = {$kill_at + $whole:.1f} s')"
  cmp "$work/whole.sl" "$work/resumed.sl" && echo "the resumed output is byte-identical to the whole build's"
  rm -f "$work/whole.sl" "$work/resumed.sl"
done
