"""GBBS beside swapless, kernel time against kernel time (loading excluded on both sides),
2 threads, a GBBS process then a swapless process each round.

    python3 bench/gbbs_side_by_side.py adjacency SWAPLESS FILE.sl OUT.adj
    python3 bench/gbbs_side_by_side.py run NAME ROUNDS GBBS_BINARY [GBBS_FLAGS] GRAPH.adj -- SWAPLESS_RUN_ARGS

`adjacency` writes a plain, undirected `.sl` file's lists as Ligra's AdjacencyGraph text,
which GBBS reads with `-s` (an edge list converts with GBBS's own `utils/snap_converter
[-s] -i EDGES -o OUT.adj`). `run` runs, per round, `PARLAY_NUM_THREADS=2 GBBS_BINARY
[GBBS_FLAGS] -rounds 3 GRAPH.adj` (the median of its "### Running Time"s; a KTruss round is
one run, as KTruss changes its graph and exits after one) and then `swapless run
SWAPLESS_RUN_ARGS --threads 2 --trials 3` (the report's `seconds`), and prints each round and
the medians, with swapless / GBBS, and what GBBS printed of its answer (k_max, n_cc, n_scc,
the edges of each trussness) for comparison with swapless's report.

GBBS as measured in BENCHMARKS.md: commit 4e51de437db324f7f7374851cdd7c2400d8ac467 (the last
with Makefiles and `benchmarks/KTruss`), its pinned ParAlg/parlaylib ab75a975 in
`external/parlaylib`, `make ROOTDIR=$PWD/` in each benchmark's folder, g++ 12. Its KTruss
crashes after its first bucket unless three bugs are mended: `make_buckets` keeps a
reference to a copy that dies (build the buckets on the caller's function instead),
`edgeMapCount` estimates degrees with `get_vertex(i)` for `vs.vtx(i)`, and
`1 << log2_up(0)` for a vertex without higher neighbors.
"""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np


def adjacency(swapless, graph, out):
    info = json.loads(subprocess.check_output([swapless, "info", graph, "--json", "-"]))
    assert info["lists"] == "plain" and not info["directed"], info
    n, arcs = info["vertices"], info["arcs"]
    sections = {section["name"]: section for section in info["sections"]}
    offsets = np.memmap(graph, dtype="<u8", mode="r", offset=sections["out_offsets"]["offset"],
                        shape=(n + 1,))
    heads = np.memmap(graph, dtype="<u4", mode="r", offset=sections["out_neighbors"]["offset"],
                      shape=(arcs,))
    assert offsets[0] == 0 and offsets[-1] == arcs
    with open(out, "w") as file:
        file.write(f"AdjacencyGraph\n{n}\n{arcs}\n")
        np.savetxt(file, offsets[:-1], fmt="%d")
        np.savetxt(file, heads, fmt="%d")


def gbbs_round(command):
    done = subprocess.run(command, env=dict(os.environ, PARLAY_NUM_THREADS="2"),
                          capture_output=True, text=True)
    times = [float(t) for t in re.findall(r"### Running Time: ([0-9.e+-]+)", done.stdout)]
    answer = {key: found[-1] for key, pattern in
              [("k_max", r"k_\{max\} = (\d+)"), ("n_cc", r"n_cc = (\d+)"),
               ("n_scc", r"n_scc = (\d+)")] if (found := re.findall(pattern, done.stdout))}
    trussness = re.findall(r"^k = (\d+) iter = \d+ #edges = (\d+)", done.stdout, re.M)
    if trussness:
        # GBBS prints the edges each iteration peels at k triangles: an edge of trussness
        # k + 2. The edges of a k-truss are those of trussness k or more.
        peeled = {}
        for k, edges in trussness:
            peeled[int(k) + 2] = peeled.get(int(k) + 2, 0) + int(edges)
        answer["truss_edges"] = {k: sum(e for t, e in peeled.items() if t >= k) for k in (3, 8)}
    return (statistics.median(times) if times else None), answer


def run(name, rounds, gbbs, swapless_args):
    ktruss = "KTruss" in gbbs[0]
    gbbs_command = gbbs[:-1] + ["-rounds", "1" if ktruss else "3", gbbs[-1]]
    report = tempfile.NamedTemporaryFile(suffix=".json").name
    swapless_command = swapless_args + ["--threads", "2", "--trials", "1" if ktruss else "3",
                                        "--json", report]
    theirs, ours = [], []
    for round in range(rounds):
        seconds, answer = gbbs_round(gbbs_command)
        subprocess.run(swapless_command, check=True, capture_output=True)
        mine = json.load(open(report))
        if seconds is not None:
            theirs.append(seconds)
        ours.append(mine["seconds"])
        print(f"{name} round {round}: GBBS {seconds} s {answer}; swapless {mine['seconds']} s "
              f"{mine['result']}", flush=True)
    if theirs:
        print(f"{name}: GBBS {statistics.median(theirs):.4f} s, swapless "
              f"{statistics.median(ours):.4f} s, swapless / GBBS "
              f"{statistics.median(ours) / statistics.median(theirs):.2f}")


if sys.argv[1] == "adjacency":
    adjacency(*sys.argv[2:5])
else:
    split = sys.argv.index("--")
    run(sys.argv[2], int(sys.argv[3]), sys.argv[4:split], sys.argv[split + 1:])
