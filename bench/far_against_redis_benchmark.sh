#!/usr/bin/env bash
# Far reads against what redis-benchmark gets from the same server in the same run (GETs of
# the far run's mean request size, over as many connections): starts
# one redis-server on a free loopback port, pushes GRAPH, runs KERNEL on it at MEMORY, then
# redis-benchmark GETs of the chunk size over the same number of connections, and prints
# both rates and the server's CPU seconds during the kernel's run. Stops the server by pid.
# With PIN=1 the server runs on CPU 1 and the client side (the kernel, with one thread, and
# then redis-benchmark) on CPU 0, so both clients get the same core and neither shares the
# server's. KERNEL `scan` reads the out-lists through the far read pipeline with no kernel
# at all (the `far_scan` bench of crates/run, three passes), which tells the read path's
# rate apart from a kernel's compute on the client core.
#   [PIN=1] bash bench/far_against_redis_benchmark.sh GRAPH.sl KERNEL|scan MEMORY [SWAPLESS]
set -euo pipefail
graph=$1; kernel=$2; memory=$3; swapless=${4:-target/release/swapless}
server_cpu=(); client_cpu=(); threads=2
if [ "${PIN:-0}" = 1 ]; then server_cpu=(taskset -c 1); client_cpu=(taskset -c 0); threads=1; fi
work=$(mktemp -d)
port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
${server_cpu[@]+"${server_cpu[@]}"} redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" \
  > "$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
until redis-cli -p "$port" ping > /dev/null 2>&1; do sleep 0.05; done
export SWAPLESS_CACHE_DIR="$work/cache"
url="redis://127.0.0.1:$port/graph"
"$swapless" far push "$graph" "$url" > /dev/null
cpu() { awk '{print ($14 + $15) / 100}' "/proc/$server/stat"; }
before=$(cpu)
if [ "$kernel" = scan ]; then
  cargo build --quiet --release --benches -p swapless-run
  scan=$(ls -t target/release/deps/far_scan-* | grep -v '\.d$' | head -1)
  ${client_cpu[@]+"${client_cpu[@]}"} "$scan" "$url" "$memory" 3 "$threads" | tee "$work/scan.txt"
  after=$(cpu)
  echo "server CPU $(python3 -c "print(f'{$after - $before:.2f}')") s over the three passes"
  chunk=$(grep -o 'mean request [0-9]*' "$work/scan.txt" | tail -1 | awk '{print $3}')
else
${client_cpu[@]+"${client_cpu[@]}"} "$swapless" run "$kernel" "$url" --memory "$memory" --threads "$threads" \
  --json "$work/far.json" > /dev/null
after=$(cpu)
python3 - "$work/far.json" "$before" "$after" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
far = report["far"]
seconds = report["seconds"]
print(f"far: {far['network_bytes'] / 2**20:.0f} MiB in {far['network_requests']} requests over "
      f"{seconds:.2f} s of kernel ({far['network_bytes'] / 2**20 / seconds:.0f} MiB/s while computing), "
      f"server CPU {float(sys.argv[3]) - float(sys.argv[2]):.2f} s")
for pattern in ("scan_io", "gather_io"):
    print(f"  {pattern}: {json.dumps(report[pattern])}")
PY
# GETs of the far run's mean request size (a gather's requests are page-exact, smaller
# than a chunk).
chunk=$(python3 -c "import json; f = json.load(open('$work/far.json'))['far']; print(f['network_bytes'] // max(f['network_requests'], 1))")
fi
redis-cli -p "$port" flushall > /dev/null
redis-benchmark -p "$port" -t set -d "$chunk" -n 2000 -c 4 -r 64 -q > /dev/null
${client_cpu[@]+"${client_cpu[@]}"} redis-benchmark -p "$port" -t get -d "$chunk" -n 8000 -c 4 -r 64 -P 4 -q 2>/dev/null \
  | tr '\r' '\n' | grep "requests per second" | tail -1 \
  | awk -v chunk="$chunk" '{printf "redis-benchmark: %s GETs/s of %d bytes = %.0f MiB/s (4 connections, pipeline 4)\n", $2, chunk, $2 * chunk / 1048576}'
