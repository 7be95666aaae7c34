"""Writes the edges of an undirected .sl graph (each once, u < v) as a text edge list
or a Parquet file, with its vertex ids either as they are or scrambled into random
64-bit integers (a bijection, so the graph is the same): the inputs of the any-ids
build figures.

    python3 bench/export_edges.py GRAPH.sl OUT.el|OUT.parquet dense|wide [SWAPLESS]

Reads the file's sections in place (numpy memmap), a million vertices at a time.
"""

import json
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

graph, output, naming = sys.argv[1:4]
swapless = sys.argv[4] if len(sys.argv) > 4 else "target/release/swapless"
info = json.loads(subprocess.run([swapless, "info", graph, "--json", "-"], check=True,
                                 capture_output=True, text=True).stdout)
sections = {s["name"]: s for s in info["sections"]}
n = info["vertices"]
offsets = np.memmap(graph, dtype=np.uint64, mode="r", offset=sections["out_offsets"]["offset"],
                    shape=(n + 1,))
neighbors = np.memmap(graph, dtype=np.uint32, mode="r",
                      offset=sections["out_neighbors"]["offset"], shape=(int(offsets[-1]),))


def scramble(ids):
    """splitmix64's finalizer: a bijection of 64-bit integers."""
    x = ids.astype(np.uint64) ^ np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return (x ^ (x >> np.uint64(31))).view(np.int64)


writer = None
edges = 0
step = 1 << 20
for first in range(0, n, step):
    last = min(first + step, n)
    start, end = int(offsets[first]), int(offsets[last])
    degrees = np.diff(offsets[first:last + 1]).astype(np.int64)
    sources = np.repeat(np.arange(first, last, dtype=np.int64), degrees)
    targets = neighbors[start:end].astype(np.int64)
    once = sources < targets
    sources, targets = sources[once], targets[once]
    if naming == "wide":
        sources, targets = scramble(sources), scramble(targets)
    table = pa.table({"source": sources, "target": targets})
    edges += table.num_rows
    if output.endswith(".parquet"):
        if writer is None:
            writer = pq.ParquetWriter(output, table.schema, compression="snappy")
        writer.write_table(table, row_group_size=1 << 20)
    else:
        if writer is None:
            writer = pacsv.CSVWriter(output, table.schema, write_options=pacsv.WriteOptions(
                include_header=False, delimiter="\t", quoting_style="none"))
        writer.write_table(table)
writer.close()
print(f"{output}: {edges} edges, ids {naming}")
