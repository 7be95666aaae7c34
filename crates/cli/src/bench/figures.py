"""Figures of a `swapless bench` run, from OUT/trials.csv into OUT/*.png.

Run by `swapless bench` (compiled into it); prints the path of each figure it writes.
"""
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MODE_ORDER = ["dram", "swap", "mmap", "direct", "far"]
COLORS = {"dram": "black", "swap": "tab:red", "mmap": "tab:blue", "direct": "tab:green", "far": "tab:purple"}
# Swap lines differ by overcommit factor: 1 first, then each larger factor.
SWAP_COLORS = ["tab:red", "tab:orange", "tab:brown", "tab:pink"]


def color(name):
    """The color of a line named by line_name."""
    mode = name.split()[0]
    if mode == "swap":
        ocf = int(name.split()[2])
        return SWAP_COLORS[min(max(ocf.bit_length() - 1, 0) // 2, len(SWAP_COLORS) - 1)]
    return COLORS.get(mode)


def number(text):
    return float(text) if text not in ("", None) else None


def line_name(row):
    """Mode, with the overcommit factor for swap (one line per mode and ocf)."""
    if row["mode"] == "swap":
        return f"swap ocf {row['ocf']}"
    return row["mode"]


def line_order(name):
    mode = name.split()[0]
    ocf = int(name.split()[-1]) if mode == "swap" else 0
    return (MODE_ORDER.index(mode) if mode in MODE_ORDER else 9, ocf)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def save(figure, out, name):
    path = out / name
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    print(path)


def main(out):
    with open(out / "trials.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    if not rows:
        return
    kernels = list(dict.fromkeys(row["kernel"] for row in rows))
    graph = Path(rows[0]["graph"]).name
    chunks = list(dict.fromkeys(row["chunk"] for row in rows if row["chunk"]))
    hugepages = list(dict.fromkeys(row["hugepages"] for row in rows))
    # The main figures use the first chunk size and huge-page fraction asked for.
    main_rows = [
        row
        for row in rows
        if row["hugepages"] == hugepages[0] and row["chunk"] in ("", chunks[0] if chunks else "")
    ]
    slowdown_figure(out, graph, kernels, main_rows)
    breakdown_figure(out, graph, kernels, main_rows)
    queue_depth_figure(out, graph, kernels, main_rows)
    if len(chunks) > 1:
        sweep_figure(out, graph, kernels, [r for r in rows if r["hugepages"] == hugepages[0]],
                     "chunk", chunks, "read size (--chunk)", "chunks.png")
    if len(hugepages) > 1:
        sweep_figure(out, graph, kernels,
                     [r for r in rows if r["chunk"] in ("", chunks[0] if chunks else "")],
                     "hugepages", hugepages, "fraction of property arrays on huge pages",
                     "hugepages.png")


def panels(kernels):
    figure, axes = plt.subplots(1, len(kernels), figsize=(4.6 * len(kernels), 3.8), squeeze=False)
    return figure, axes[0]


def slowdown_figure(out, graph, kernels, rows):
    """Slowdown against the fraction of the footprint in memory: the literature's main figure."""
    figure, axes = panels(kernels)
    for axis, kernel in zip(axes, kernels):
        points = defaultdict(lambda: defaultdict(list))
        timeouts = defaultdict(list)
        for row in rows:
            if row["kernel"] != kernel or row["mode"] == "dram":
                continue
            budget = number(row["budget_percent"])
            if row["status"] == "ok":
                points[line_name(row)][budget].append(number(row["slowdown"]))
            elif row["status"] == "timeout":
                timeouts[line_name(row)].append(budget)
        axis.axhline(1.0, color=COLORS["dram"], linestyle=":", label="dram (in memory)")
        for name in sorted(points, key=line_order):
            budgets = sorted(points[name], reverse=True)
            values = [median(points[name][b]) for b in budgets]
            axis.plot(budgets, values, marker="o", color=color(name), label=name)
            if timeouts.get(name):
                axis.plot(timeouts[name], [max(values + [1.0])] * len(timeouts[name]), "x",
                          color=color(name), label=f"{name}: timed out")
        axis.set_title(f"{kernel} on {graph}")
        axis.set_xlabel("memory limit, % of in-memory peak RSS")
        axis.set_ylabel("slowdown vs dram (median trial)")
        axis.set_yscale("log")
        axis.invert_xaxis()
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=8)
    save(figure, out, "slowdown.png")


def lowest_budget_rows(rows, kernel):
    """Successful trials at the lowest budget where the most modes ran (dram: its own)."""
    ok = [r for r in rows if r["kernel"] == kernel and r["status"] == "ok"]
    modes_at = defaultdict(set)
    for row in ok:
        if row["budget_percent"]:
            modes_at[number(row["budget_percent"])].add(line_name(row))
    if not modes_at:
        return ok, None
    most = max(len(names) for names in modes_at.values())
    chosen_budget = min(b for b, names in modes_at.items() if len(names) == most)
    chosen = [r for r in ok if r["mode"] == "dram" or number(r["budget_percent"]) == chosen_budget]
    return chosen, chosen_budget


def grouped(rows, key):
    groups = defaultdict(list)
    for row in rows:
        groups[line_name(row)].append(number(row[key]))
    return {name: median(values) for name, values in groups.items()}


def breakdown_figure(out, graph, kernels, rows):
    """Where the machine's CPU time went during each mode's trials (whole process, load included)."""
    figure, axes = panels(kernels)
    states = [("cpu_user_seconds", "user", "tab:blue"), ("cpu_system_seconds", "system", "tab:orange"),
              ("cpu_iowait_seconds", "iowait", "tab:red"), ("cpu_idle_seconds", "idle", "lightgray")]
    for axis, kernel in zip(axes, kernels):
        chosen, lowest = lowest_budget_rows(rows, kernel)
        names = sorted({line_name(r) for r in chosen}, key=line_order)
        bottom = [0.0] * len(names)
        for key, label, color in states:
            medians = grouped(chosen, key)
            heights = [medians.get(name) or 0.0 for name in names]
            axis.bar(names, heights, bottom=bottom, color=color, label=label)
            bottom = [b + h for b, h in zip(bottom, heights)]
        axis.set_title(f"{kernel} on {graph}, limit {lowest:g}%" if lowest else f"{kernel} on {graph}")
        axis.set_ylabel("CPU seconds, all cores (whole trial)")
        axis.tick_params(axis="x", rotation=30)
        axis.legend(fontsize=8)
    save(figure, out, "time_breakdown.png")


def queue_depth_figure(out, graph, kernels, rows):
    """Requests in flight on the graph's disk, on average over each trial."""
    figure, axes = panels(kernels)
    for axis, kernel in zip(axes, kernels):
        chosen, lowest = lowest_budget_rows(rows, kernel)
        medians = grouped(chosen, "disk_mean_in_flight")
        names = sorted(medians, key=line_order)
        axis.bar(names, [medians[n] or 0.0 for n in names],
                 color=[color(n) for n in names])
        axis.set_title(f"{kernel} on {graph}, limit {lowest:g}%" if lowest else f"{kernel} on {graph}")
        axis.set_ylabel("mean requests in flight (device)")
        axis.tick_params(axis="x", rotation=30)
    save(figure, out, "queue_depth.png")


def sweep_figure(out, graph, kernels, rows, column, values, xlabel, name):
    """Kernel seconds against a swept setting, one line per mode and budget."""
    figure, axes = panels(kernels)
    for axis, kernel in zip(axes, kernels):
        lines = defaultdict(dict)
        for row in rows:
            if row["kernel"] != kernel or row["status"] != "ok" or not row[column]:
                continue
            label = line_name(row) + (f" {number(row['budget_percent']):g}%" if row["budget_percent"] else "")
            lines[label].setdefault(row[column], []).append(number(row["seconds"]))
        for label in sorted(lines):
            # Each value keeps its own position, so a setting with no successful trial
            # (a timeout) leaves a gap rather than shifting the line.
            positions = [i for i, v in enumerate(values) if v in lines[label]]
            if positions:
                axis.plot(positions, [median(lines[label][values[i]]) for i in positions], marker="o",
                          color=color(" ".join(label.split()[:3]) if label.startswith("swap") else label.split()[0]),
                          label=label)
        axis.set_xticks(range(len(values)), values)
        axis.set_title(f"{kernel} on {graph}")
        axis.set_xlabel(xlabel)
        axis.set_ylabel("seconds (median trial)")
        axis.grid(True, alpha=0.3)
        axis.legend(fontsize=7)
    save(figure, out, name)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
