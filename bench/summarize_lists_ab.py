"""Summarizes bench/lists_ab.sh: medians of plain and compressed runs side by side.

    python3 bench/summarize_lists_ab.py OUT [A_NAME B_NAME]   (default: plain v3)
"""
import json, glob, sys, statistics, collections
out = sys.argv[1] if len(sys.argv) > 1 else "bench/results/lists-ab"
first, second = sys.argv[2:4] if len(sys.argv) > 3 else ("plain", "v3")
rows = collections.defaultdict(list)
for f in glob.glob(out + "/*.json"):
    r = json.load(open(f))
    name = f.split("/")[-1][:-5]
    g, k, form, mode, rnd = name.rsplit("-", 4)
    rows[(g, k, mode, form)].append((r["seconds"], r["bytes_read"], r["peak_rss_bytes"], r["load_seconds"], r["memory_budget_bytes"]))
keys = sorted(set((g, k, m) for g, k, m, f in rows))
print(f"| graph | kernel | mode | {first} s | {second} s | ratio | {first} read MiB | {second} read MiB | load {first} / {second} s | peak RSS MiB (budget) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for g, k, m in keys:
    p = rows.get((g, k, m, first), []); c = rows.get((g, k, m, second), [])
    if not p or not c: continue
    med = lambda xs, i: statistics.median(x[i] for x in xs)
    print(f"| {g} | {k} | {m} | {med(p,0):.3f} | {med(c,0):.3f} | {med(c,0)/med(p,0):.2f} | {med(p,1)/2**20:.0f} | {med(c,1)/2**20:.0f} | {med(p,3):.2f} / {med(c,3):.2f} | {max(x[2] for x in c)/2**20:.0f} ({c[0][4]/2**20:.0f}) |")
