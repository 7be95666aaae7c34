"""Strongly connected components: swapless in memory and out of core against networkx and
igraph on the same directed graph, each in a fresh process, seconds of the call alone
(loading and conversion excluded; swapless's load is printed beside).

    python3 bench/scc_figures.py SWAPLESS_BIN FOLDER [VERTICES EDGES] [ROUNDS]

Makes FOLDER/directed-V-E.el (a directed graph: every vertex points at a few random
others, half of them nearby, so there are large components and many small ones), builds
it plain and compressed, then per round: swapless dram, direct at 25% of its dram
footprint or the least budget where that is more (plain and compressed), networkx, igraph. Prints one line a run and the
medians; every answer's component count must agree.
"""

import json
import pathlib
import re
import statistics
import subprocess
import sys
import time

import numpy as np

swapless_bin, folder = sys.argv[1], pathlib.Path(sys.argv[2])
vertices = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000
edges = int(sys.argv[4]) if len(sys.argv) > 4 else 8_000_000
rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 3
folder.mkdir(parents=True, exist_ok=True)
text = folder / f"directed-{vertices}-{edges}.el"
if not text.exists():
    rng = np.random.default_rng(42)
    sources = rng.integers(0, vertices, edges)
    far = rng.integers(0, vertices, edges)
    near = (sources + rng.integers(-64, 65, edges)) % vertices
    targets = np.where(rng.random(edges) < 0.5, far, near)
    np.savetxt(text, np.stack([sources, targets], axis=1), fmt="%d")
plain, packed = folder / "directed.sl", folder / "directed-c.sl"
if not plain.exists():
    subprocess.run([swapless_bin, "build", text, "-o", plain, "--ids", "dense"], check=True,
                   capture_output=True)
if not packed.exists():
    subprocess.run([swapless_bin, "build", plain, "-o", packed, "--lists", "compressed"],
                   check=True, capture_output=True)


def swapless(graph, *options):
    report = folder / "report.json"
    subprocess.run([swapless_bin, "run", "scc", graph, "--json", report, *options],
                   check=True, capture_output=True)
    result = json.loads(report.read_text())
    return result["seconds"], result["result"]["components"], result


_, _, first = swapless(plain, "--tier", "dram")
# A quarter of the footprint, or the least budget the plan names where that is more.
def least_kib(graph):
    refused = subprocess.run([swapless_bin, "plan", graph, "scc", "--tier", "direct", "--memory",
                              "1M"], capture_output=True, text=True).stderr
    least = re.search(r"at least ([0-9.]+) MiB", refused)
    return int(float(least.group(1)) * 1024) + 1 if least else 0


least_kib = max(least_kib(plain), least_kib(packed))
quarter = f"{max(first['footprint_bytes'] // 4 // 1024, least_kib)}K"
print(f"{text.name}: dram footprint {first['footprint_bytes'] / 2**20:.0f} MiB; disk runs at {quarter}")

NETWORKX = """
import sys, time, networkx as nx
G = nx.read_edgelist(sys.argv[1], create_using=nx.DiGraph, nodetype=int)
start = time.perf_counter()
count = nx.number_strongly_connected_components(G)
print(time.perf_counter() - start, count)
"""
IGRAPH = """
import sys, time, numpy as np, igraph
edges = np.loadtxt(sys.argv[1], dtype=np.int64)
g = igraph.Graph(n=int(edges.max()) + 1, edges=edges.tolist(), directed=True)
g.simplify(multiple=True, loops=True)
start = time.perf_counter()
count = len(g.connected_components(mode="strong"))
print(time.perf_counter() - start, count)
"""


def python(script):
    done = subprocess.run([sys.executable, "-c", script, text], check=True, capture_output=True,
                          text=True)
    seconds, count = done.stdout.split()
    return float(seconds), int(count)


times = {}
for number in range(1, rounds + 1):
    runs = {
        "swapless dram": lambda: swapless(plain, "--tier", "dram")[:2],
        "swapless direct 25% plain": lambda: swapless(plain, "--tier", "direct", "--memory",
                                                      quarter)[:2],
        "swapless direct 25% compressed": lambda: swapless(packed, "--tier", "direct", "--memory",
                                                           quarter)[:2],
        "networkx": lambda: python(NETWORKX),
        "igraph": lambda: python(IGRAPH),
    }
    for name, call in runs.items():
        seconds, count = call()
        times.setdefault(name, []).append(seconds)
        print(f"round {number} {name}: {seconds:.3f} s, {count} components", flush=True)
print("medians:", {name: round(statistics.median(values), 3) for name, values in times.items()})
