#!/usr/bin/env bash
# Runs a command and prints the machine's CPU time over it, from /proc/stat (all CPUs):
# wall, user, sys, irq + softirq, iowait, steal and idle seconds.
#   bash bench/cpu_times.sh LABEL COMMAND [ARGS...]
# The command's own output is discarded.
set -uo pipefail
label=$1; shift
read -r _ user nice system idle iowait irq softirq steal _ < /proc/stat
started=$(date +%s.%N)
"$@" > /dev/null 2>&1
ended=$(date +%s.%N)
read -r _ user2 nice2 system2 idle2 iowait2 irq2 softirq2 steal2 _ < /proc/stat
hz=$(getconf CLK_TCK)
python3 - <<PY
hz = $hz
print("%-28s wall %.2f user %.2f sys %.2f irq+softirq %.2f iowait %.2f steal %.2f idle %.2f" % (
    "$label", $ended - $started, ($user2 - $user + $nice2 - $nice) / hz, ($system2 - $system) / hz,
    ($irq2 - $irq + $softirq2 - $softirq) / hz, ($iowait2 - $iowait) / hz, ($steal2 - $steal) / hz,
    ($idle2 - $idle) / hz))
PY
