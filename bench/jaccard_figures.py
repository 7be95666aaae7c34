"""Jaccard coefficients of random vertex pairs: swapless from the file against networkx on
the same graph in memory (median of 3, each a fresh call; answers compared exactly).

    python3 bench/jaccard_figures.py EDGE_LIST FOLDER PAIRS
"""
import sys, time, statistics, gzip, random
import numpy as np, networkx as nx, swapless as sl

edges_path, folder, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
g = sl.build(edges_path, f"{folder}/g.sl", undirected=True, self_loops="drop") if not __import__("os").path.exists(f"{folder}/g.sl") else sl.open(f"{folder}/g.sl")
rng = np.random.default_rng(1)
pairs = rng.integers(0, g.n, size=(count, 2))
pairs = g.ids[pairs]
G = nx.Graph()
G.add_nodes_from(g.ids.tolist())
opener = gzip.open if edges_path.endswith(".gz") else open
with opener(edges_path, "rt") as lines:
    G.add_edges_from(tuple(map(int, line.split()[:2])) for line in lines if line[0] not in "#%")
G.remove_edges_from(list(nx.selfloop_edges(G)))
listed = [tuple(p) for p in pairs.tolist()]
ours, theirs = [], []
for _ in range(3):
    start = time.perf_counter(); found = sl.jaccard_coefficient(g, pairs); ours.append(time.perf_counter() - start)
    start = time.perf_counter(); expected = [p for _, _, p in nx.jaccard_coefficient(G, listed)]; theirs.append(time.perf_counter() - start)
assert found.tolist() == expected
print(f"{count} pairs: swapless {statistics.median(ours):.3f} s, networkx {statistics.median(theirs):.3f} s ({statistics.median(theirs)/statistics.median(ours):.1f}x)")
