"""What converting a networkx graph costs the backend: `sl.from_networkx` on a random
graph of EDGES edges (undirected, integer nodes), its seconds and the memory it adds to
the process at its peak beyond the networkx graph itself.

    python3 bench/from_networkx.py EDGES [MEMORY]

MEMORY is the conversion's budget (`memory=`, default the library's). Prints the graph's
size, networkx's own resident memory, and the conversion's seconds and added peak.
"""

import re
import sys
import tempfile
import time

import networkx as nx
import numpy as np

import swapless as sl

edges = int(sys.argv[1])
memory = sys.argv[2] if len(sys.argv) > 2 else None


def status(field):
    """A VmRSS-style field of this process, in MiB."""
    text = open("/proc/self/status").read()
    return int(re.search(rf"^{field}:\s+(\d+) kB", text, re.M).group(1)) / 1024


rng = np.random.default_rng(7)
vertices = edges // 8
G = nx.Graph()
G.add_nodes_from(range(vertices))
pairs = rng.integers(0, vertices, size=(edges, 2))
G.add_edges_from(pairs.tolist())
del pairs
held = status("VmRSS")
# The peak from here on is the conversion's: reset the high-water mark to the present.
with open("/proc/self/clear_refs", "w") as clear:
    clear.write("5")
with tempfile.TemporaryDirectory() as folder:
    start = time.perf_counter()
    g = sl.from_networkx(G, path=f"{folder}/g.sl", memory=memory, progress=False)
    seconds = time.perf_counter() - start
    peak = status("VmHWM")
    print(f"{G.number_of_nodes()} nodes, {G.number_of_edges()} edges: networkx holds "
          f"{held:.0f} MiB; from_networkx {seconds:.1f} s, peak {peak:.0f} MiB "
          f"(+{peak - held:.0f} MiB); the file {g.info()['file_bytes'] / 2**20:.0f} MiB")
