"""Prints the tier table of BENCHMARKS.md from bench/tier_figures.sh's reports.

The physical bound of a disk run is max(dram time, bytes read / device bandwidth):
1.3 GB/s for scans (fio, 1 MiB sequential) in ../shared/ANCHORS.md. Where the run left a
`.disk` file (fio's rate just before the run, see bench/tier_figures.sh), the table adds
that rate and the bound at it: this virtio disk runs anywhere from 0.3 to 3 GB/s.

Folders written by today's bench/tier_figures.sh hold rounds (`*-r1.json`, ...): one run on
each tier per round and budget. Their table gives each tier's median run, and takes its
ratios round by round (a disk run against the dram run of the same round) before the
median. Older folders (one dram report per kernel) print as they always did.
"""
import json
import pathlib
import re
import statistics
import sys

DEVICE_BYTES_PER_SECOND = 1.3e9

HEADER = "| graph | kernel | budget | tier | seconds | x dram | bytes read | bound s | x bound | MB/s | requests/s | mean QD | cache hits | io wait s | peak RSS MiB |"

def main(folder):
    folder = pathlib.Path(folder)
    if any(folder.glob("*-r1.json")):
        return rounds_table(folder)
    measured = any(folder.glob("*.disk"))
    extra = " disk MB/s before | x bound at it |" if measured else ""
    print(HEADER + extra)
    print("| --- " * (15 + 2 * measured) + "|")
    for dram_path in sorted(folder.glob("*-dram.json")):
        dram = json.loads(dram_path.read_text())
        graph, kernel = dram_path.name.split("-")[:2]
        base = dram["seconds"]
        blank = " | |" if measured else ""
        print(f"| {graph} | {kernel} | 100% | dram | {base:.3f} | 1.00 | 0 | {base:.3f} | | | | | | | {dram['peak_rss_bytes'] >> 20} |{blank}")
        for percent in (50, 25, 10):
            for tier in ("mmap", "direct"):
                path = folder / f"{graph}-{kernel}-{tier}-{percent}.json"
                if not path.exists():
                    # A row left out of the run (BUDGETS, TIERS) is left out of the table.
                    err = folder / f"{graph}-{kernel}-{tier}-{percent}.err"
                    if err.exists():
                        why = err.read_text().strip().replace("|", "/")
                        print(f"| {graph} | {kernel} | {percent}% | {tier} | refused: {why} | | | | | | | | | | |{blank}")
                    continue
                run = json.loads(path.read_text())
                seconds = run["seconds"]
                read = run["bytes_read"]
                bound = max(base, read / DEVICE_BYTES_PER_SECOND)
                rate = read / seconds / 1e6
                requests = run["read_requests"] / seconds if run["read_requests"] else 0
                wait = run["io_wait_seconds"]
                wait = "n/a" if wait is None else f"{wait:.2f}"
                print(
                    f"| {graph} | {kernel} | {percent}% | {tier} | {seconds:.3f} | {seconds / base:.2f} | "
                    f"{read / 2**30:.2f} GiB | {bound:.3f} | {seconds / bound:.2f} | {rate:.0f} | {requests:,.0f} | "
                    f"{run['mean_queue_depth']:.1f} | {100 * run['cache_hit_ratio']:.0f}% | {wait} | {run['peak_rss_bytes'] >> 20} |"
                    + disk_columns(folder / f"{graph}-{kernel}-{tier}-{percent}.disk", measured, base, read, seconds)
                )

def disk_columns(path, measured, base, read, seconds):
    """The disk's rate just before the run and the run against the bound at that rate."""
    if not measured:
        return ""
    try:
        rate = float(path.read_text().split()[0])
    except (OSError, IndexError, ValueError):
        return " | |"
    if rate <= 0:
        return " | |"
    bound = max(base, read / rate)
    return f" {rate / 1e6:.0f} | {seconds / bound:.2f} |"

def rounds_table(folder):
    """One row per graph, kernel, budget and tier: medians over the rounds."""
    runs = {}
    for path in folder.glob("*-r*.json"):
        found = re.fullmatch(r"(.+)-(\w+)-(\d+)-(\w+)-r(\d+)\.json", path.name)
        if found:
            graph, kernel, percent, tier, round_ = found.groups()
            key = (graph, kernel, int(percent))
            runs.setdefault(key, {}).setdefault(tier, {})[int(round_)] = path
    print(HEADER + " rounds | disk MB/s before | x bound at it |")
    print("| --- " * 18 + "|")
    order = {"dram": 0, "mmap": 1, "direct": 2}
    # The goals, counted as the table shows them: direct rows whose median ratio
    # to the bound is at most 1.25, and rounds where direct beat the mmap run of its round.
    direct_rows = direct_rows_within = direct_rounds = direct_rounds_won = 0
    for (graph, kernel, percent), tiers in sorted(runs.items(), key=lambda item: (item[0][0], item[0][1], -item[0][2])):
        dram = {r: json.loads(p.read_text())["seconds"] for r, p in tiers.get("dram", {}).items()}
        for tier in sorted(tiers, key=lambda name: order.get(name, 9)):
            reports = {r: json.loads(p.read_text()) for r, p in tiers[tier].items()}
            middle = sorted(reports.values(), key=lambda run: run["seconds"])[(len(reports) - 1) // 2]
            seconds = middle["seconds"]
            if tier == "dram":
                base = statistics.median(dram.values())
                print(f"| {graph} | {kernel} | {percent}% | dram | {seconds:.3f} | 1.00 | 0 | {base:.3f} | | | | | | | {middle['peak_rss_bytes'] >> 20} | {len(reports)} | | |")
                continue
            # Ratios round by round, against the dram run of the same round.
            paired = [r for r in reports if r in dram]
            over_dram = [reports[r]["seconds"] / dram[r] for r in paired]
            bounds = {r: max(dram[r], reports[r]["bytes_read"] / DEVICE_BYTES_PER_SECOND) for r in paired}
            over_bound = [reports[r]["seconds"] / bounds[r] for r in paired]
            if tier == "direct" and over_bound:
                direct_rows += 1
                direct_rows_within += statistics.median(over_bound) <= 1.25
                mmap = {r: json.loads(p.read_text())["seconds"] for r, p in tiers.get("mmap", {}).items()}
                direct_rounds += sum(1 for r in reports if r in mmap)
                direct_rounds_won += sum(1 for r in reports if r in mmap and reports[r]["seconds"] < mmap[r])
            rates = {r: disk_rate(tiers[tier][r].with_suffix(".disk")) for r in paired}
            over_rate_bound = [
                reports[r]["seconds"] / max(dram[r], reports[r]["bytes_read"] / rates[r])
                for r in paired if rates[r]
            ]
            read = middle["bytes_read"]
            requests = middle["read_requests"] / seconds if middle["read_requests"] else 0
            wait = middle["io_wait_seconds"]
            wait = "n/a" if wait is None else f"{wait:.2f}"
            known_rates = [rate for rate in rates.values() if rate]
            print(
                f"| {graph} | {kernel} | {percent}% | {tier} | {seconds:.3f} | {median(over_dram)} | "
                f"{read / 2**30:.2f} GiB | {statistics.median(bounds.values()) if bounds else 0:.3f} | {median(over_bound)} | "
                f"{read / seconds / 1e6:.0f} | {requests:,.0f} | {middle['mean_queue_depth']:.1f} | "
                f"{100 * middle['cache_hit_ratio']:.0f}% | {wait} | {middle['peak_rss_bytes'] >> 20} | {len(reports)} | "
                f"{statistics.median(known_rates) / 1e6 if known_rates else 0:.0f} | {median(over_rate_bound)} |"
            )
    print()
    print(f"direct within 1.25x of the bound (median of its rounds): {direct_rows_within} of {direct_rows} rows")
    print(f"direct faster than mmap in the same round: {direct_rounds_won} of {direct_rounds} rounds")

def median(ratios):
    """The median of `ratios` with two decimals, or blank when there are none."""
    return f"{statistics.median(ratios):.2f}" if ratios else ""

def disk_rate(path):
    """fio's rate (bytes per second) read just before a run, or None."""
    try:
        rate = float(path.read_text().split()[0])
    except (OSError, IndexError, ValueError):
        return None
    return rate if rate > 0 else None

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/results/tiers")
