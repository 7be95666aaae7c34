"""Prints the tier table of BENCHMARKS.md from bench/tier_figures.sh's reports.

The physical bound of a disk run is max(dram time, bytes read / device bandwidth):
1.3 GB/s for scans (fio, 1 MiB sequential) in ../shared/ANCHORS.md. Where the run left a
`.disk` file (fio's rate just before the run, see bench/tier_figures.sh), the table adds
that rate and the bound at it: this virtio disk runs anywhere from 0.3 to 3 GB/s.
"""
import json
import pathlib
import sys

DEVICE_BYTES_PER_SECOND = 1.3e9

def main(folder):
    folder = pathlib.Path(folder)
    measured = any(folder.glob("*.disk"))
    extra = " disk MB/s before | x bound at it |" if measured else ""
    print("| graph | kernel | budget | tier | seconds | x dram | bytes read | bound s | x bound | MB/s | requests/s | mean QD | cache hits | io wait s | peak RSS MiB |" + extra)
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

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/results/tiers")
