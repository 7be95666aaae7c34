"""Markdown tables from `swapless bench` runs (bench/compare_figures.sh):
python3 bench/summarize_compare.py bench/results/compare/kron23 [more dirs...]

For each graph: every trial (median over trials of a configuration), then how many times
faster direct is than swap with each ocf, per kernel and budget.
"""
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def number(text):
    return float(text) if text not in ("", None) else None


def label(row):
    return f"swap ocf {row['ocf']}" if row["mode"] == "swap" else row["mode"]


def main(folders):
    for folder in map(Path, folders):
        rows = list(csv.DictReader(open(folder / "trials.csv", newline="")))
        graph = Path(rows[0]["graph"]).name
        groups = defaultdict(list)
        for row in rows:
            key = (row["kernel"], row["budget_percent"] or "100", label(row))
            groups[key].append(row)
        print(f"\n### {graph}\n")
        print("| kernel | limit | mode | status | seconds | x dram | limit MiB | cgroup peak MiB | "
              "disk read MiB | disk MB/s | mean in flight | swap-ins (pages) |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        seconds_of = {}
        for (kernel, budget, mode), trials in groups.items():
            ok = [t for t in trials if t["status"] == "ok"]
            status = "ok" if ok else trials[0]["status"]
            if not ok:
                print(f"| {kernel} | {number(budget):g}% | {mode} | {status} | | | | | | | | |")
                continue
            median = lambda key: statistics.median(number(t[key]) or 0 for t in ok)  # noqa: E731
            seconds = median("seconds")
            seconds_of[(kernel, budget, mode)] = seconds
            limit = median("limit_bytes") / 2**20 if ok[0]["limit_bytes"] else 0
            peak = median("cgroup_peak_bytes") / 2**20 if ok[0]["cgroup_peak_bytes"] else 0
            read = median("disk_read_bytes")
            wall = median("wall_seconds")
            print(f"| {kernel} | {number(budget):g}% | {mode} | ok | {seconds:.3f} | {median('slowdown'):.2f} | "
                  f"{limit:.0f} | {peak:.0f} | {read / 2**20:.0f} | {read / 1e6 / max(wall, 1e-9):.0f} | "
                  f"{median('disk_mean_in_flight'):.1f} | {median('swap_ins'):.0f} |")
        print(f"\nDirect against swap on {graph} (how many times faster; > 1 is better):\n")
        print("| kernel | limit | swap ocf 1 / direct | swap ocf 16 / direct | mmap / direct |")
        print("| --- | --- | --- | --- | --- |")
        for (kernel, budget, mode), seconds in seconds_of.items():
            if mode != "direct":
                continue
            ratio = lambda other: (  # noqa: E731
                f"{seconds_of[(kernel, budget, other)] / seconds:.1f}x"
                if (kernel, budget, other) in seconds_of else "")
            print(f"| {kernel} | {number(budget):g}% | {ratio('swap ocf 1')} | {ratio('swap ocf 16')} | "
                  f"{ratio('mmap')} |")


if __name__ == "__main__":
    main(sys.argv[1:])
