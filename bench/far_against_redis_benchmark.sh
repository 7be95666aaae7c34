#!/usr/bin/env bash
# Far reads against what redis-benchmark gets from the same server in the same run: starts
# one redis-server on a free loopback port, pushes GRAPH, runs KERNEL on it at MEMORY, then
# redis-benchmark GETs of the chunk size over the same number of connections, and prints
# both rates and the server's CPU seconds during the kernel's run. Stops the server by pid.
#   bash bench/far_against_redis_benchmark.sh GRAPH.sl KERNEL MEMORY [SWAPLESS]
set -euo pipefail
graph=$1; kernel=$2; memory=$3; swapless=${4:-target/release/swapless}
work=$(mktemp -d)
port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" \
  > "$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
until redis-cli -p "$port" ping > /dev/null 2>&1; do sleep 0.05; done
export SWAPLESS_CACHE_DIR="$work/cache"
url="redis://127.0.0.1:$port/graph"
"$swapless" far push "$graph" "$url" > /dev/null
cpu() { awk '{print ($14 + $15) / 100}' "/proc/$server/stat"; }
before=$(cpu)
"$swapless" run "$kernel" "$url" --memory "$memory" --threads 2 --json "$work/far.json" > /dev/null
after=$(cpu)
python3 - "$work/far.json" "$before" "$after" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
far = report["far"]
seconds = report["seconds"]
print(f"far: {far['network_bytes'] / 2**20:.0f} MiB in {far['network_requests']} requests over "
      f"{seconds:.2f} s of kernel ({far['network_bytes'] / 2**20 / seconds:.0f} MiB/s while computing), "
      f"server CPU {float(sys.argv[3]) - float(sys.argv[2]):.2f} s")
PY
chunk=$(python3 -c "import json; print(json.load(open('$work/far.json'))['far']['chunk_bytes'])")
redis-cli -p "$port" flushall > /dev/null
redis-benchmark -p "$port" -t set -d "$chunk" -n 2000 -c 4 -r 64 -q > /dev/null
redis-benchmark -p "$port" -t get -d "$chunk" -n 8000 -c 4 -r 64 -P 4 -q 2>/dev/null \
  | tr '\r' '\n' | grep "requests per second" | tail -1 \
  | awk -v chunk="$chunk" '{printf "redis-benchmark: %s GETs/s of %d bytes = %.0f MiB/s (4 connections, pipeline 4)\n", $2, chunk, $2 * chunk / 1048576}'
