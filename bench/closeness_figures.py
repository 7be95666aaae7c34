"""Exact closeness: swapless in memory and out of core against networkx and igraph on the
same undirected graph, each in a fresh process, seconds of the call alone (loading and
conversion excluded).

    python3 bench/closeness_figures.py SWAPLESS_BIN EDGE_LIST FOLDER [ROUNDS] [PEERS] [weighted]

Builds EDGE_LIST (a text edge list, .gz allowed) undirected into FOLDER, then per round:
swapless dram, direct at 25% of its dram footprint (or the least budget where that is
more), and the PEERS named (comma-separated: igraph, networkx; default igraph; networkx
takes hours beyond some ten thousand vertices, igraph beyond some hundred thousand). Prints one line a run and the medians; every answer must agree with
swapless's (networkx's closeness_centrality bit for bit, igraph's closeness, which is
networkx's without the Wasserman-Faust scaling, to 1e-12).
"""

import json
import pathlib
import re
import statistics
import subprocess
import sys

import numpy as np

swapless_bin, edge_list, folder = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
peers = (sys.argv[5] if len(sys.argv) > 5 else "igraph").split(",")
weighted = len(sys.argv) > 6 and sys.argv[6] == "weighted"
kernel = "wcloseness" if weighted else "closeness"
folder.mkdir(parents=True, exist_ok=True)
stem = edge_list.name.split(".")[0] + ("-weighted" if weighted else "")
graph = folder / (stem + ".sl")
# The graph's edges (and weights), for networkx and igraph to build the same graph.
plain_edges = folder / (stem + ".pairs.npy")
if not plain_edges.exists():
    text = subprocess.run(["zcat" if edge_list.suffix == ".gz" else "cat", edge_list],
                          capture_output=True, text=True, check=True).stdout
    pairs = np.array([line.split()[:2] for line in text.splitlines()
                      if line and line[0] not in "#%"], dtype=np.int64)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    weights = 1 + (31 * pairs[:, 0] + 17 * pairs[:, 1]) % 9 if weighted else np.ones(len(pairs))
    np.save(plain_edges, np.column_stack([pairs, weights]).astype(np.int64))
if not graph.exists():
    columns = np.load(plain_edges)
    text_file = folder / (stem + ".el")
    np.savetxt(text_file, columns if weighted else columns[:, :2], fmt="%d")
    subprocess.run([swapless_bin, "build", text_file, "-o", graph, "--undirected", "--ids",
                    "dense", *(["--weighted"] if weighted else [])], check=True,
                   capture_output=True)


def swapless(measure, *options):
    report, out = folder / "report.json", folder / f"{measure}.npy"
    subprocess.run([swapless_bin, "run", kernel, graph, "--measure", measure, "--json",
                    report, "--out", out, *options], check=True, capture_output=True)
    return json.loads(report.read_text())["seconds"], np.load(out)


_, closeness = swapless("closeness", "--tier", "dram")
_, unscaled = swapless("closeness-unscaled", "--tier", "dram")
first = json.loads((folder / "report.json").read_text())
refused = subprocess.run([swapless_bin, "plan", graph, kernel, "--tier", "direct",
                          "--memory", "1M"], capture_output=True, text=True).stderr
least = re.search(r"at least ([0-9.]+) MiB", refused)
least_kib = int(float(least.group(1)) * 1024) + 1 if least else 0
quarter = f"{max(first['footprint_bytes'] // 4 // 1024, least_kib)}K"
print(f"{graph.name}: {len(closeness)} vertices; dram footprint "
      f"{first['footprint_bytes'] / 2**20:.1f} MiB; direct runs at {quarter}")

NETWORKX = """
import sys, time, numpy as np, networkx as nx
edges = np.load(sys.argv[1]); n = int(sys.argv[2]); weighted = sys.argv[4] == "1"
G = nx.Graph(); G.add_nodes_from(range(n))
for u, v, w in edges.tolist():
    # Of parallel edges the lightest stays, as swapless keeps it.
    if not G.has_edge(u, v) or G[u][v]["weight"] > w:
        G.add_edge(u, v, weight=w)
start = time.perf_counter()
values = nx.closeness_centrality(G, distance="weight" if weighted else None)
print(time.perf_counter() - start)
np.save(sys.argv[3], np.array([values[v] for v in range(n)]))
"""
IGRAPH = """
import sys, time, numpy as np, igraph
edges = np.load(sys.argv[1]); n = int(sys.argv[2]); weighted = sys.argv[4] == "1"
g = igraph.Graph(n=n, edges=edges[:, :2].tolist(), directed=False)
g.es["weight"] = edges[:, 2].tolist()
g.simplify(multiple=True, loops=True, combine_edges="min")
start = time.perf_counter()
values = g.closeness(weights="weight" if weighted else None)
print(time.perf_counter() - start)
np.save(sys.argv[3], np.nan_to_num(np.array(values, dtype=float)))
"""


def python(script, name):
    out = folder / f"{name}.npy"
    done = subprocess.run([sys.executable, "-c", script, plain_edges, str(len(closeness)), out,
                           "1" if weighted else "0"],
                          check=True, capture_output=True, text=True)
    return float(done.stdout.split()[0]), np.load(out)


times = {}
for number in range(1, rounds + 1):
    runs = {
        "swapless dram": (lambda: swapless("closeness", "--tier", "dram"), closeness, 0.0),
        "swapless direct 25%": (lambda: swapless("closeness", "--tier", "direct", "--memory",
                                                 quarter), closeness, 0.0),
    }
    if "igraph" in peers:
        runs["igraph"] = (lambda: python(IGRAPH, "igraph"), unscaled, 1e-12)
    if "networkx" in peers:
        runs["networkx"] = (lambda: python(NETWORKX, "networkx"), closeness, 0.0)
    for name, (call, expected, tolerance) in runs.items():
        seconds, values = call()
        difference = float(np.max(np.abs(values - expected)))
        assert difference <= tolerance, f"{name} differs from swapless by {difference}"
        times.setdefault(name, []).append(seconds)
        print(f"round {number} {name}: {seconds:.3f} s (largest difference {difference:.1e})",
              flush=True)
print("medians:", {name: round(statistics.median(values), 3) for name, values in times.items()})
