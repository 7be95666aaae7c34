#!/usr/bin/env bash
# In-memory speed of swapless beside the GAP benchmark suite, on GAP's own kron23 graph.
#
#   GAP_DIR=/path/to/built/gapbs SWAPLESS=/path/to/swapless OUT=/path/to/results ./gap_side_by_side.sh
#
# Optional: ROUNDS="1 2 3" (round labels; rerun with e.g. ROUNDS="4" to add a round later: finished runs
# are skipped, so a round spoiled by load can be moved aside and redone), QUIET_WAIT/QUIET (below), KERNELS (subset of
# "bfs pr-gs pr-power cc bc sssp"), THREADS=2, BUILD_MEMORY=4G, MAX_OTHERS (summary leaves out rounds in which
# other processes used more than this many cores), GRAPHS (folder for the .sg/.wsg/.sl files, default $OUT/graphs).
set -euo pipefail
: "${GAP_DIR:?set GAP_DIR to a built gapbs}" "${SWAPLESS:?set SWAPLESS to a swapless binary}" "${OUT:?set OUT}"
ROUNDS=${ROUNDS:-1 2 3}
KERNELS=${KERNELS:-bfs pr-gs pr-power cc bc sssp}
THREADS=${THREADS:-2}
BUILD_MEMORY=${BUILD_MEMORY:-4G}
GRAPHS=${GRAPHS:-$OUT/graphs}
GAP_DIR=$(cd "$GAP_DIR" && pwd); SWAPLESS=$(readlink -f "$SWAPLESS")
mkdir -p "$OUT" "$GRAPHS"; OUT=$(cd "$OUT" && pwd); GRAPHS=$(cd "$GRAPHS" && pwd)
export OMP_NUM_THREADS=$THREADS RAYON_NUM_THREADS=$THREADS
timed() { if [ -x /usr/bin/time ]; then /usr/bin/time -v "$@"; else "$@"; fi; }

# 1. GAP's generator, so both programs read the very same graph (GAP's fixed seed).
mkdir -p "$OUT/build"
[ -s "$GRAPHS/kron23.sg" ] || timed "$GAP_DIR/converter" -g23 -k16 -b "$GRAPHS/kron23.sg" >"$OUT/build/converter-sg.log" 2>&1
[ -s "$GRAPHS/kron23.wsg" ] || timed "$GAP_DIR/converter" -g23 -k16 -wb "$GRAPHS/kron23.wsg" >"$OUT/build/converter-wsg.log" 2>&1

# 2. Import: plain (format v2) and compressed lists (v3) of each; the weighted pair only serves sssp.
import() {  # name input extra-options...
  local name=$1 in=$2; shift 2
  [ -s "$GRAPHS/$name.sl" ] || timed "$SWAPLESS" build "$GRAPHS/$in" -o "$GRAPHS/$name.sl" --memory "$BUILD_MEMORY" "$@" \
    --json "$OUT/build/$name.json" >"$OUT/build/$name.log" 2>&1
  "$SWAPLESS" info "$GRAPHS/$name.sl" --json "$OUT/build/$name.info.json" >"$OUT/build/$name.info.txt"
}
import kron23-plain kron23.sg
import kron23-comp kron23.sg --lists compressed
import kron23w-plain kron23.wsg --weighted
import kron23w-comp kron23.wsg --weighted --lists compressed

# 3. Timed rounds. Each kernel runs GAP, swapless plain, swapless compressed back to back, and the
# rounds repeat, so drift (another user's compile, thermal, page cache) lands on all three alike.
# GAP's "Average Time" and swapless's trial_seconds both exclude reading the graph.
# Both search from the same source (swapless's default, given to GAP with -r): the time of a
# search on kron23 varies by 1.5x between sources. Power PageRank runs the same number of
# iterations in both: GAP's pr_spmv lets the rank of vertices without out-edges leak away and
# so meets the tolerance sooner than swapless, which spreads it over every vertex as networkx
# does (a different answer, not a faster method), so GAP is held to swapless's count with -t 0.
fact() {  # graph-stem kernel key -> the value swapless's JSON report gives for key
  local json=$OUT/build/$1-$2-facts.json
  [ -s "$json" ] || "$SWAPLESS" run "$2" "$GRAPHS/$1-plain.sl" --threads "$THREADS" "${@:4}" --json "$json" >/dev/null 2>&1
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d.get(sys.argv[2], d["result"].get(sys.argv[2])))' "$json" "$3"
}
SOURCE=$(fact kron23 bfs source)
WEIGHTED_SOURCE=$(fact kron23w sssp source --delta 2)
POWER_ITERATIONS=$(fact kron23 pr iterations --tolerance 1e-4 --max-iters 1000 --method power)
gap_cmd() {
  case $1 in
    bfs)      echo "$GAP_DIR/bfs -f $GRAPHS/kron23.sg -r $SOURCE -n 16" ;;
    pr-gs)    echo "$GAP_DIR/pr -f $GRAPHS/kron23.sg -i1000 -t1e-4 -n 5" ;;      # GAP's pr is Gauss-Seidel
    pr-power) echo "$GAP_DIR/pr_spmv -f $GRAPHS/kron23.sg -i$POWER_ITERATIONS -t0 -n 5" ;; # GAP's Jacobi (power) variant
    cc)       echo "$GAP_DIR/cc -f $GRAPHS/kron23.sg -n 16" ;;
    bc)       echo "$GAP_DIR/bc -f $GRAPHS/kron23.sg -r $SOURCE -i1 -n 3" ;;
    sssp)     echo "$GAP_DIR/sssp -f $GRAPHS/kron23.wsg -r $WEIGHTED_SOURCE -d2 -n 5" ;;
  esac
}
sl_args() {  # kernel -> "graph-stem kernel options"
  case $1 in
    bfs)      echo "kron23 bfs --trials 16 --source $SOURCE" ;;
    pr-gs)    echo "kron23 pr --trials 5 --tolerance 1e-4 --max-iters 1000 --method gauss-seidel" ;;
    pr-power) echo "kron23 pr --trials 5 --tolerance 1e-4 --max-iters 1000 --method power" ;;
    cc)       echo "kron23 cc --trials 16" ;;
    bc)       echo "kron23 bc --trials 3 --source-ids $SOURCE" ;;
    sssp)     echo "kron23w sssp --trials 5 --delta 2 --source $WEIGHTED_SOURCE" ;;
  esac
}
# The load average counts our own two threads from the previous run, so it cannot tell whether someone
# else was busy; "others" is the CPU (in cores) that processes other than ours used during the round:
# all busy ticks from /proc/stat minus the ticks of this shell's reaped children.
busy_ticks() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }
our_ticks() { awk '{print $16+$17}' "/proc/$$/stat"; }
hz=$(getconf CLK_TCK)
# Another user's compile on a 2-core machine halves our speed; before each kernel's triple, wait (up to
# QUIET_WAIT seconds) for a 5-second window in which others use less than QUIET cores.
QUIET=${QUIET:-0.3} QUIET_WAIT=${QUIET_WAIT:-0}
wait_quiet() {
  local waited=0 b0 busy
  while :; do
    b0=$(busy_ticks); sleep 5; busy=$(awk -v b="$(( $(busy_ticks) - b0 ))" -v hz="$hz" 'BEGIN{printf "%.2f", b/hz/5}')
    waited=$((waited + 5))
    if awk -v x="$busy" -v q="$QUIET" 'BEGIN{exit !(x < q)}' || [ "$waited" -ge "$QUIET_WAIT" ]; then break; fi
  done
}
# measured FILE CMD...: run CMD into FILE; sets `others` to the cores other processes used meanwhile, so a
# slowdown can be pinned on the one program of the triple that was disturbed.
measured() {
  local out=$1 b0 o0 t0; shift
  b0=$(busy_ticks); o0=$(our_ticks); t0=$(date +%s.%N)
  "$@" >"$out" 2>&1
  others=$(awk -v b="$(( $(busy_ticks) - b0 ))" -v o="$(( $(our_ticks) - o0 ))" -v t0="$t0" -v t1="$(date +%s.%N)" \
    -v hz="$hz" 'BEGIN{printf "%.2f", (b-o)/hz/(t1-t0)}')
}
for r in $ROUNDS; do
  d=$OUT/rounds/r$r; mkdir -p "$d"
  for k in $KERNELS; do
    [ -s "$d/$k-comp.json" ] && continue
    [ "$QUIET_WAIT" -gt 0 ] && wait_quiet
    load0=$(cut -d' ' -f1-3 /proc/loadavg)
    echo "round $r $k: load $load0"
    b0=$(busy_ticks); o0=$(our_ticks); t0=$(date +%s.%N); start=$(date -u +%FT%TZ)
    # shellcheck disable=SC2046
    measured "$d/$k-gap.txt" $(gap_cmd "$k"); each=$others
    read -r stem kern opts <<<"$(sl_args "$k")"
    for form in plain comp; do
      # shellcheck disable=SC2086
      measured "$d/$k-$form.txt" "$SWAPLESS" run $kern "$GRAPHS/$stem-$form.sl" --threads "$THREADS" $opts --json "$d/$k-$form.json"
      each="$each $others"
    done
    others=$(awk -v b="$(( $(busy_ticks) - b0 ))" -v o="$(( $(our_ticks) - o0 ))" -v t0="$t0" -v t1="$(date +%s.%N)" -v hz="$hz" \
      'BEGIN{printf "%.2f", (b-o)/hz/(t1-t0)}')
    # round kernel start load1 load5 load15 (before) others-cores (whole triple) load1 (after) others (gap plain comp)
    echo "$r $k $start $load0 $others $(cut -d' ' -f1 /proc/loadavg) $each" >>"$OUT/loads.txt"
  done
done

# 4. Answers, untimed (-a prints GAP's result stats, -l its pr iterations, -v checks it): GAP from swapless's own source, so reached counts can be compared one to one.
c=$OUT/check; mkdir -p "$c"
if [ ! -s "$c/done" ]; then
  src=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["source"])' "$(ls "$OUT"/rounds/*/bfs-plain.json | head -1)")
  wsrc=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["source"])' "$(ls "$OUT"/rounds/*/sssp-plain.json | head -1)")
  "$GAP_DIR/bfs" -f "$GRAPHS/kron23.sg" -r "$src" -n 1 -a -v >"$c/gap-bfs.txt" 2>&1
  "$GAP_DIR/cc" -f "$GRAPHS/kron23.sg" -n 1 -a -v >"$c/gap-cc.txt" 2>&1
  "$GAP_DIR/pr" -f "$GRAPHS/kron23.sg" -i1000 -t1e-4 -n 1 -l >"$c/gap-pr.txt" 2>&1
  "$GAP_DIR/pr_spmv" -f "$GRAPHS/kron23.sg" -i1000 -t1e-4 -n 1 -l >"$c/gap-pr_spmv.txt" 2>&1
  "$GAP_DIR/sssp" -f "$GRAPHS/kron23.wsg" -d2 -r "$wsrc" -n 1 -a -v >"$c/gap-sssp.txt" 2>&1
  for form in plain comp; do
    "$SWAPLESS" run bfs "$GRAPHS/kron23-$form.sl" --threads "$THREADS" --source "$src" --verify --json "$c/sl-bfs-$form.json" >/dev/null 2>&1
    "$SWAPLESS" run cc "$GRAPHS/kron23-$form.sl" --threads "$THREADS" --verify --json "$c/sl-cc-$form.json" >/dev/null 2>&1
    "$SWAPLESS" run sssp "$GRAPHS/kron23w-$form.sl" --threads "$THREADS" --delta 2 --source "$wsrc" --verify --json "$c/sl-sssp-$form.json" >/dev/null 2>&1
  done
  echo "$src $wsrc" >"$c/done"
fi

# 5. Summary. Per round, the mean of the trials (GAP's own "Average Time" statistic, applied to both);
# across rounds, the median, so one disturbed round does not move the figure.
python3 - "$OUT" "${MAX_OTHERS:-}" <<'EOF'
import json, math, os, re, statistics as st, sys, glob
out, max_load = sys.argv[1], sys.argv[2]
loads = {}
for line in open(os.path.join(out, "loads.txt")):
    f = line.split()
    if len(f) >= 8:
        each = tuple(map(float, f[8:11])) if len(f) >= 11 else None
        loads[(f[0], f[1])] = (float(f[3]), float(f[6]), each)
def gap_trials(p):
    return [float(x) for x in re.findall(r"Trial Time:\s+([\d.]+)", open(p).read())]
def sl_run(p):
    return json.load(open(p))
kernels = ["bfs", "pr-gs", "pr-power", "cc", "bc", "sssp"]
rows, per_round = [], []
for k in kernels:
    g, pl, co, used = [], [], [], []
    for d in sorted(glob.glob(os.path.join(out, "rounds", "r*")), key=lambda d: int(os.path.basename(d)[1:])):
        r = os.path.basename(d)[1:]
        files = [os.path.join(d, f"{k}-{s}") for s in ("gap.txt", "plain.json", "comp.json")]
        if not all(os.path.exists(f) for f in files):
            continue
        load, others, each = loads.get((r, k), (float("nan"), float("nan"), None))
        gt = gap_trials(files[0]); pj, cj = sl_run(files[1]), sl_run(files[2])
        vals = (st.mean(gt), st.mean(pj["trial_seconds"]), st.mean(cj["trial_seconds"]))
        worst = max(each) if each else others
        skip = bool(max_load) and worst > float(max_load)
        per_round.append((k, r, load, others, each, *vals, "excluded" if skip else ""))
        if skip:
            continue
        g.append(vals[0]); pl.append(vals[1]); co.append(vals[2]); used.append(r)
    if g:
        G, P, C = st.median(g), st.median(pl), st.median(co)
        rows.append((k, G, P, C, P / G, C / G, C / P, len(used), pj.get("result"), cj.get("result")))
lines = ["| kernel | GAP s | swapless plain s | swapless compressed s | plain/GAP | compressed/GAP | compressed/plain | rounds |",
         "| --- | --- | --- | --- | --- | --- | --- | --- |"]
for k, G, P, C, a, b, c, n, *_ in rows:
    lines.append(f"| {k} | {G:.3f} | {P:.3f} | {C:.3f} | {a:.2f} | {b:.2f} | {c:.2f} | {n} |")
gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
if rows:
    lines.append(f"| geometric mean | | | | {gm([x[4] for x in rows]):.2f} | {gm([x[5] for x in rows]):.2f} | {gm([x[6] for x in rows]):.2f} | |")
# Ratios taken within each round and then the median: drift between rounds cancels.
lines += ["", "Median of the per-round ratios:", "", "| kernel | plain/GAP | compressed/GAP | compressed/plain |", "| --- | --- | --- | --- |"]
pr_rat = []
for k in kernels:
    rs = [(P / G, C / G, C / P) for kk, r, _, _, _, G, P, C, note in per_round if kk == k and not note]
    if rs:
        m = [st.median(x[i] for x in rs) for i in range(3)]
        pr_rat.append(m)
        lines.append(f"| {k} | {m[0]:.2f} | {m[1]:.2f} | {m[2]:.2f} |")
if pr_rat:
    lines.append("| geometric mean | " + " | ".join(f"{gm([x[i] for x in pr_rat]):.2f}" for i in range(3)) + " |")
lines += ["", "Per round (mean of the trials in that round; load = 1-minute load average just before it, which includes",
          "our own previous run; others = cores used by other processes during the whole triple, and during each program):", "",
          "| kernel | round | load | others | others gap/plain/comp | GAP s | plain s | compressed s | |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
for k, r, load, others, each, G, P, C, note in per_round:
    e = "/".join(f"{x:.2f}" for x in each) if each else ""
    lines.append(f"| {k} | {r} | {load:.2f} | {others:.2f} | {e} | {G:.3f} | {P:.3f} | {C:.3f} | {note} |")
lines += ["", "swapless results (last round): " + "; ".join(f"{x[0]}: plain {json.dumps(x[8])}, compressed {json.dumps(x[9])}" for x in rows)]
open(os.path.join(out, "summary.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
