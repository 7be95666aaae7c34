"""The k-truss (the `ktruss` kernel): swapless in memory and out of core against
networkx's `k_truss`, each run in a fresh process, seconds of the call alone (loading
and conversion excluded; swapless's are the report's `seconds`, its kernel time).
igraph has no k-truss. With FAR_URL=redis://HOST:PORT/NAME in the environment, the
Kronecker graph of KRON_SCALE is pushed there and also runs from it at direct's budget.

    python3 bench/truss_figures.py SWAPLESS_BIN EDGE_LIST FOLDER [ROUNDS] [KRON_SCALE] [NX_SCALE] [KS]

- EDGE_LIST (a text edge list, .gz allowed; email-Enron in BENCHMARKS.md) built
  undirected, self-loops dropped, and `swapless generate kron --scale NX_SCALE (default
  16) --degree 16`: swapless dram against networkx for each k of KS (default 3,8).
- `swapless generate kron --scale KRON_SCALE (default 20) --degree 16`: swapless dram,
  direct at 25% of the dram run's `footprint_bytes` (or the least budget `swapless plan`
  accepts, where that is more), and far at the same budget (or far's least).

Every answer is checked before its time is printed: networkx's edges against
swapless's, and every out-of-core result bit for bit the dram one, with the peak RSS
within `--memory`. Prints a line a run and the medians, with each mode's ratio to dram
and networkx's to swapless dram.
"""

import json
import os
import pathlib
import re
import statistics
import subprocess
import sys

import numpy as np

swapless_bin, edge_list, folder = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
kron_scale = int(sys.argv[5]) if len(sys.argv) > 5 else 20
nx_scale = int(sys.argv[6]) if len(sys.argv) > 6 else 16
ks = [int(k) for k in (sys.argv[7] if len(sys.argv) > 7 else "3,8").split(",")]
far_url = os.environ.get("FAR_URL")
folder.mkdir(parents=True, exist_ok=True)


def run(*command):
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))}: {done.stderr}")
    return done


def edges_of(graph):
    """The edges (u < v) of a plain undirected .sl file, read from its sections."""
    edges_file = graph.with_suffix(".edges.npy")
    if not edges_file.exists():
        info = json.loads(run(swapless_bin, "info", graph, "--json", "-").stdout)
        assert info["lists"] == "plain" and not info["directed"], info
        sections = {s["name"]: s for s in info["sections"]}
        n = info["vertices"]
        offsets = np.memmap(graph, dtype=np.uint64, mode="r",
                            offset=sections["out_offsets"]["offset"], shape=(n + 1,))
        heads = np.memmap(graph, dtype=np.uint32, mode="r",
                          offset=sections["out_neighbors"]["offset"], shape=(int(offsets[-1]),))
        tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets.astype(np.int64)))
        once = tails < heads
        np.save(edges_file, np.column_stack([tails[once], heads[once].astype(np.int64)]))
    return edges_file


def graphs():
    """(name, graph) of the edge list and the two kron graphs, built once."""
    made = []
    stem = edge_list.name.split(".")[0]
    built = folder / f"{stem}.sl"
    if not built.exists():
        run(swapless_bin, "build", edge_list, "-o", built, "--undirected", "--ids", "dense")
    made.append((stem, built))
    for scale in (nx_scale, kron_scale):
        graph = folder / f"kron{scale}.sl"
        if not graph.exists():
            run(swapless_bin, "generate", "kron", "--scale", scale, "--degree", "16", "-o", graph)
        made.append((f"kron{scale}", graph))
    return made


def swapless(graph, k, *options):
    report, out = folder / "report.json", folder / "truss.npy"
    run(swapless_bin, "run", "ktruss", graph, "--k", k, "--json", report, "--out", out, *options)
    report = json.loads(report.read_text())
    if "--memory" in options:
        assert report["peak_rss_bytes"] <= report["memory_budget_bytes"], report
    return report, np.load(out)


def least_kib(origin, budget):  # origin: a path or a far URL
    """The least budget `plan` accepts for ktruss from `origin` where `budget` is below it."""
    tier = [] if str(origin).startswith("redis") else ["--tier", "direct"]
    refused = subprocess.run([swapless_bin, "plan", str(origin), "ktruss", *tier, "--memory", budget],
                             capture_output=True, text=True).stderr
    least = re.search(r"at least ([0-9.]+) MiB", refused)
    return int(float(least.group(1)) * 1024) + 1 if least else 0


NETWORKX = """
import sys, time, numpy as np, networkx as nx
edges = np.load(sys.argv[1]); k = int(sys.argv[2])
G = nx.Graph(); G.add_edges_from(edges.tolist())
start = time.perf_counter()
truss = nx.k_truss(G, k)
seconds = time.perf_counter() - start
print(seconds)
kept = np.array(sorted((min(u, v), max(u, v)) for u, v in truss.edges), dtype=np.int64)
np.save(sys.argv[3], kept.reshape(-1, 2))
"""


def networkx(edges_file, k):
    out = folder / "networkx-truss.npy"
    seconds = run(sys.executable, "-c", NETWORKX, edges_file, k, out).stdout.split()[-1]
    return float(seconds), np.load(out)


def median_line(label, times, against=None):
    line = f"  {label}: median {statistics.median(times):.3f} s of {len(times)}"
    if against:
        line += f" ({statistics.median(times) / statistics.median(against):.2f}x dram)"
    print(line, flush=True)


def against_networkx(name, graph):
    edges_file = edges_of(graph)
    for k in ks:
        ours, theirs = [], []
        for round in range(rounds):
            report, kept = swapless(graph, k, "--tier", "dram")
            seconds, expected = networkx(edges_file, k)
            assert np.array_equal(kept, expected), (name, k, len(kept), len(expected))
            ours.append(report["seconds"])
            theirs.append(seconds)
            print(f"{name} k={k} round {round}: swapless {report['seconds']:.3f} s, networkx "
                  f"{seconds:.2f} s; {report['result']}", flush=True)
        print(f"{name} k={k}: swapless {statistics.median(ours):.3f} s, networkx "
              f"{statistics.median(theirs):.2f} s ({statistics.median(theirs) / statistics.median(ours):.0f}x)",
              flush=True)


def out_of_core(name, graph):
    if far_url:
        run(swapless_bin, "far", "push", graph, far_url, "--replace")
    for k in ks:
        times = {"dram": [], "direct": [], "far": []}
        for round in range(rounds):
            dram, expected = swapless(graph, k, "--tier", "dram")
            times["dram"].append(dram["seconds"])
            quarter = f"{dram['footprint_bytes'] // 4 >> 10}K"
            budget = f"{max(dram['footprint_bytes'] // 4 >> 10, least_kib(graph, quarter))}K"
            direct, kept = swapless(graph, k, "--tier", "direct", "--memory", budget)
            assert np.array_equal(kept, expected), (name, k, "direct")
            times["direct"].append(direct["seconds"])
            line = (f"{name} k={k} round {round}: dram {dram['seconds']:.2f} s; direct at "
                    f"{budget} ({int(budget[:-1]) * 1024 / dram['footprint_bytes']:.0%} of "
                    f"{dram['footprint_bytes'] >> 20} MiB) {direct['seconds']:.2f} s")
            if far_url:
                far_budget = f"{max(int(budget[:-1]), least_kib(far_url, budget))}K"
                far, kept = swapless(far_url, k, "--memory", far_budget)
                assert np.array_equal(kept, expected), (name, k, "far")
                times["far"].append(far["seconds"])
                line += f"; far at {far_budget} {far['seconds']:.2f} s"
            print(line + f"; {dram['result']}", flush=True)
        print(f"{name} k={k}:")
        for mode in ("dram", "direct", "far"):
            if times[mode]:
                median_line(mode, times[mode], None if mode == "dram" else times["dram"])


made = graphs()
for name, graph in made[:2]:
    against_networkx(name, graph)
out_of_core(*made[2])
