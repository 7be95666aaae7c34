"""Prints the table of an A/B run by bench/ab_figures.sh: per graph, budget and tier, the
median over rounds of each run's median trial time, and the bytes read per trial."""
import collections
import glob
import json
import os
import statistics
import sys

directory = sys.argv[1]
runs = collections.defaultdict(list)
for path in glob.glob(os.path.join(directory, "*-*-*-*-*.json")):
    graph, percent, tier, side, _round = os.path.basename(path)[:-5].split("-")
    report = json.load(open(path))
    runs[(graph, int(percent), tier, side)].append((report["seconds"], report["bytes_read"]))
print("| graph | budget | tier | before s | after s | after / before | before MiB read | after MiB read |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for graph, percent, tier in sorted({key[:3] for key in runs}, key=lambda k: (k[0], -k[1], k[2])):
    before, after = runs[(graph, percent, tier, "before")], runs[(graph, percent, tier, "after")]
    if not before or not after:
        continue
    seconds = [statistics.median(run[0] for run in side) for side in (before, after)]
    read = [statistics.median(run[1] for run in side) / 2**20 for side in (before, after)]
    print(f"| {graph} | {percent}% | {tier} | {seconds[0]:.3f} | {seconds[1]:.3f} | "
          f"{seconds[1] / seconds[0]:.2f} | {read[0]:,.0f} | {read[1]:,.0f} |")
