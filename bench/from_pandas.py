"""from_pandas against networkx's from_pandas_edgelist: a DataFrame of ROWS random edges
between ROWS/8 vertices with random 64-bit ids, turned into a graph by each, every run a
fresh process; prints the time of the conversion and the process's peak RSS (the
DataFrame itself included, and measured alone too).

    python3 bench/from_pandas.py ROWS swapless|networkx|frame [MEMORY]
"""

import resource
import sys
import time

import numpy as np
import pandas as pd

rows = int(float(sys.argv[1]))
who = sys.argv[2]
memory = sys.argv[3] if len(sys.argv) > 3 else "1G"


def scramble(ids):
    x = ids.astype(np.uint64) ^ np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return (x ^ (x >> np.uint64(31))).view(np.int64)


rng = np.random.default_rng(1)
vertices = max(rows // 8, 2)
df = pd.DataFrame({"source": scramble(rng.integers(0, vertices, rows)),
                   "target": scramble(rng.integers(0, vertices, rows))})
started = time.perf_counter()
if who == "swapless":
    import swapless as sl
    g = sl.from_pandas(df, source="source", target="target", directed=False, memory=memory)
    size = f"{g.n} vertices, {g.m} edges"
elif who == "networkx":
    import networkx as nx
    G = nx.from_pandas_edgelist(df, "source", "target")
    size = f"{G.number_of_nodes()} vertices, {G.number_of_edges()} edges"
else:
    size = "the DataFrame alone"
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(f"{who} {rows:,} rows: {size}; {seconds:.1f} s, peak RSS {peak:.2f} GiB")
