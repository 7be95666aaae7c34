"""Betweenness and local clustering by edge weight (the `wbc` and `wclustering` kernels):
swapless in memory and out of core against networkx and igraph, each run in a fresh
process, seconds of the call alone (loading and conversion excluded; swapless's are the
report's `seconds`, its kernel time). With FAR_URL=redis://HOST:PORT/NAME in the
environment, the Kronecker graph is pushed there too and each of its kernels also runs
from it at the same budget as direct.

    python3 bench/weighted_figures.py SWAPLESS_BIN EDGE_LIST FOLDER [ROUNDS] [KRON_SCALE] [NX_SCALE] [PARTS]

PARTS (comma-separated; default all) picks among:

- `edge-list`: EDGE_LIST (a text edge list, .gz allowed, email-Enron in BENCHMARKS.md)
  built undirected, self-loops and repeated pairs dropped, each edge {u, v} weighted
  1 + (7 min(u, v) + 13 max(u, v)) % 4 (1 to 4: many ties among shortest paths, exact in
  float32). Per round: wbc from 64 sources, the ones networkx's
  `betweenness_centrality(G, k=64, seed=1, weight="weight")` draws
  (`random.Random(1).sample(list(G.nodes()), 64)`, G's nodes the vertices with edges in
  order), given to swapless with `--source-ids` and to igraph's `betweenness(sources=)`;
  then swapless's wclustering and unweighted clustering (the cost of the weights),
  networkx's `clustering(G, weight="weight")` and `clustering(G)`, and igraph's
  `transitivity_local_undirected(weights=)`, which is Barrat's weighted clustering, another
  measure: timed, not compared.
- `kron-wbc`, `kron-wclustering`: `swapless generate kron --scale KRON_SCALE (default 20)
  --degree 16 --weighted` (integer weights 1 to 255). wbc from 16 sources,
  `random.Random(1).sample` of the vertices with edges; wclustering. Per round: swapless
  dram, direct at 25% of the dram run's `footprint_bytes` (or the least budget `swapless
  plan` accepts, where that is more), far at the same budget (or far's least), and igraph
  (wbc with the same sources; wclustering's Barrat clustering, for scale).
- `nx-kron`: the same two kernels on a kron graph of scale NX_SCALE (default 16; networkx
  is slow beyond), swapless dram against networkx, 16 sources drawn as networkx draws them.

Every answer is checked before its time is printed: wbc's raw sums of dependencies
(swapless's scores times the report's `largest_dependency`) against networkx's
unnormalized values with its sampling scale undone and against twice igraph's (igraph
halves an undirected graph's sums), to 1e-9 of the largest; wclustering against
networkx's to 1e-12 a vertex, unweighted clustering exactly; every out-of-core result
bit for bit the dram one (wclustering's to 1e-12: its sums of f64s are added atomically
in the threads' order, so two runs on any tier differ in the last bits), with the peak RSS
within `--memory`. Prints a line a round and
the medians, with each mode's ratio to dram and each peer's to swapless dram.
"""

import json
import os
import pathlib
import random
import re
import statistics
import subprocess
import sys

import numpy as np

swapless_bin, edge_list, folder = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
kron_scale = int(sys.argv[5]) if len(sys.argv) > 5 else 20
nx_scale = int(sys.argv[6]) if len(sys.argv) > 6 else 16
parts = (sys.argv[7] if len(sys.argv) > 7 else
         "edge-list,kron-wbc,kron-wclustering,nx-kron").split(",")
far_url = os.environ.get("FAR_URL")
folder.mkdir(parents=True, exist_ok=True)


def run(*command):
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))}: {done.stderr}")
    return done


def edge_list_graph():
    """EDGE_LIST weighted and built: (graph, edges file of rows u < v, weight)."""
    stem = edge_list.name.split(".")[0] + "-w"
    graph, edges_file = folder / (stem + ".sl"), folder / (stem + ".edges.npy")
    if not edges_file.exists():
        text = run("zcat" if edge_list.suffix == ".gz" else "cat", edge_list).stdout
        pairs = np.array([line.split()[:2] for line in text.splitlines()
                          if line and line[0] not in "#%"], dtype=np.int64)
        pairs = np.unique(np.sort(pairs[pairs[:, 0] != pairs[:, 1]], axis=1), axis=0)
        weights = 1 + (7 * pairs[:, 0] + 13 * pairs[:, 1]) % 4
        np.save(edges_file, np.column_stack([pairs, weights]))
    if not graph.exists():
        text_file = folder / (stem + ".el")
        np.savetxt(text_file, np.load(edges_file), fmt="%d")
        run(swapless_bin, "build", text_file, "-o", graph, "--undirected", "--weighted",
            "--ids", "dense")
    return graph, edges_file


def kron_graph(scale):
    """A weighted kron graph and its edges (u < v, weight) read from the file's sections."""
    graph = folder / f"kron{scale}w.sl"
    edges_file = folder / f"kron{scale}w.edges.npy"
    if not graph.exists():
        run(swapless_bin, "generate", "kron", "--scale", scale, "--degree", "16", "--weighted",
            "-o", graph)
    if not edges_file.exists():
        info = json.loads(run(swapless_bin, "info", graph, "--json", "-").stdout)
        assert info["lists"] == "plain" and info["weighted"], info
        sections = {s["name"]: s for s in info["sections"]}
        n = info["vertices"]
        offsets = np.memmap(graph, dtype=np.uint64, mode="r",
                            offset=sections["out_offsets"]["offset"], shape=(n + 1,))
        arcs = int(offsets[-1])
        heads = np.memmap(graph, dtype=np.uint32, mode="r",
                          offset=sections["out_neighbors"]["offset"], shape=(arcs,))
        weights = np.memmap(graph, dtype=np.float32, mode="r",
                            offset=sections["out_weights"]["offset"], shape=(arcs,))
        tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets.astype(np.int64)))
        once = tails < heads
        np.save(edges_file, np.column_stack([tails[once], heads[once].astype(np.int64),
                                             weights[once].astype(np.int64)]))
    return graph, edges_file


def with_edges(edges_file):
    """The vertices with edges, in order: networkx's G.nodes() here."""
    return np.unique(np.load(edges_file)[:, :2]).tolist()


def swapless(graph, kernel, *options):
    report, out = folder / "report.json", folder / f"{kernel}.npy"
    run(swapless_bin, "run", kernel, graph, "--json", report, "--out", out, *options)
    report = json.loads(report.read_text())
    if "--memory" in options:
        assert report["peak_rss_bytes"] <= report["memory_budget_bytes"], report
    return report, np.load(out)


def least_kib(origin, kernel, budget):  # origin: a path or a far URL
    """The least budget `plan` accepts for `kernel` from `origin` where `budget` is below it."""
    tier = [] if str(origin).startswith("redis") else ["--tier", "direct"]
    refused = subprocess.run([swapless_bin, "plan", str(origin), kernel, *tier, "--memory", budget],
                             capture_output=True, text=True).stderr
    least = re.search(r"at least ([0-9.]+) MiB", refused)
    return int(float(least.group(1)) * 1024) + 1 if least else 0


PEER = """
import json, sys, time, numpy as np
edges = np.load(sys.argv[1]); peer, kernel, out = sys.argv[2], sys.argv[3], sys.argv[4]
nodes = np.unique(edges[:, :2]).tolist(); sources = json.loads(sys.argv[5])
if peer == "networkx":
    import networkx as nx
    G = nx.Graph(); G.add_nodes_from(nodes); G.add_weighted_edges_from(edges.tolist())
    if kernel == "wbc":
        import random
        # The sources networkx draws (its seed=1 becomes random.Random(1)): swapless's.
        assert random.Random(1).sample(list(G.nodes()), len(sources)) == sources
    start = time.perf_counter()
    if kernel == "wbc":
        values = nx.betweenness_centrality(G, k=len(sources), seed=1, weight="weight",
                                           normalized=False)
    elif kernel == "wclustering":
        values = nx.clustering(G, weight="weight")
    else:
        values = nx.clustering(G)
    seconds = time.perf_counter() - start
    if kernel == "wbc":
        # Undo the sampling's scale (networkx 3.5+ scales its sources apart) to the sums.
        from networkx.algorithms.centrality import betweenness as module
        try:
            scale = module._rescale(dict.fromkeys(G, 1.0), len(G), normalized=False,
                                    directed=False, endpoints=False, sampled_nodes=sources)
        except TypeError:
            scale = module._rescale(dict.fromkeys(G, 1.0), len(G), normalized=False,
                                    directed=False, k=len(sources), endpoints=False)
        values = {v: values[v] / scale[v] for v in G}
else:
    import igraph as ig
    n = int(edges[:, :2].max()) + 1
    G = ig.Graph(n=n, edges=edges[:, :2].tolist()); G.es["weight"] = edges[:, 2].astype(float).tolist()
    start = time.perf_counter()
    if kernel == "wbc":
        values = G.betweenness(weights="weight", sources=sources, directed=False)
    else:
        values = G.transitivity_local_undirected(mode="zero", weights="weight")
    seconds = time.perf_counter() - start
    values = dict(enumerate(values))
print(seconds)
np.save(out, np.array([values.get(v, 0.0) for v in range(int(edges[:, :2].max()) + 1)]))
"""


def peer(name, kernel, edges_file, sources=()):
    out = folder / f"{name}-{kernel}.npy"
    seconds = run(sys.executable, "-c", PEER, edges_file, name, kernel, out,
                  json.dumps(list(sources))).stdout.split()[-1]
    return float(seconds), np.load(out)


def check(name, kernel, theirs, report, ours):
    """Whether a peer's answer is swapless's (Barrat's clustering is not: never compared)."""
    n = len(ours)
    theirs = np.pad(theirs, (0, n - len(theirs)))
    if kernel == "wbc":
        sums = ours * report["result"]["largest_dependency"]
        theirs = theirs * (2 if name == "igraph" else 1)
        error = np.abs(theirs - sums).max() / sums.max()
        assert error <= 1e-9, (name, kernel, error)
    elif kernel == "wclustering" and name == "networkx":
        assert np.abs(theirs - ours).max() <= 1e-12, (name, kernel)
    elif kernel == "clustering":
        assert np.array_equal(theirs, ours), (name, kernel)


times: dict = {}


def record(key, seconds):
    times.setdefault(key, []).append(seconds)
    return f"{seconds:.3f} s"


def peers_side_by_side(label, graph, edges_file, kernels, sources, peers):
    """ROUNDS rounds of swapless dram and the peers, each checked, alternating."""
    for round_ in range(1, rounds + 1):
        for kernel in kernels:
            options = ["--source-ids", ",".join(map(str, sources))] if kernel == "wbc" else []
            report, ours = swapless(graph, kernel, "--tier", "dram", *options)
            line = f"round {round_} {label} {kernel}: swapless dram " + record(
                (label, kernel, "dram"), report["seconds"])
            for name in peers.get(kernel, []):
                seconds, theirs = peer(name, kernel, edges_file, sources)
                check(name, kernel, theirs, report, ours)
                line += f", {name} " + record((label, kernel, name), seconds)
            print(line, flush=True)


def out_of_core(label, graph, edges_file, kernel, sources):
    """ROUNDS rounds of dram, direct and far at 25% of the footprint, then igraph."""
    options = ["--source-ids", ",".join(map(str, sources))] if kernel == "wbc" else []
    plan = json.loads(run(swapless_bin, "plan", graph, kernel, "--json", "-").stdout)
    footprint = plan["footprint_bytes"]
    quarter = footprint // 4 // 1024
    budget = max(quarter, least_kib(graph, kernel, f"{quarter}K"))
    far_budget = max(budget, least_kib(far_url, kernel, f"{budget}K")) if far_url else 0
    print(f"{label} {kernel}: dram footprint {footprint / 2**20:.1f} MiB; direct at "
          f"{budget / 1024:.1f} MiB ({budget * 1024 / footprint:.0%}"
          f"{', the least budget' if budget > quarter else ''})"
          + (f", far at {far_budget / 1024:.1f} MiB" if far_url else ""), flush=True)
    for round_ in range(1, rounds + 1):
        report, reference = swapless(graph, kernel, "--tier", "dram", *options)
        assert report["footprint_bytes"] == footprint, (report["footprint_bytes"], footprint)
        line = f"round {round_} {label} {kernel}: dram " + record((label, kernel, "dram"),
                                                                  report["seconds"])
        modes = [("direct", graph, ["--tier", "direct", "--memory", f"{budget}K"])]
        if far_url:
            modes.append(("far", far_url, ["--memory", f"{far_budget}K"]))
        for mode, origin, flags in modes:
            done, values = swapless(origin, kernel, *flags, *options)
            if kernel == "wbc":
                assert np.array_equal(values, reference), (kernel, mode)
            else:
                # wclustering sums each vertex's triangles with atomic f64 adds in the
                # threads' order: two runs on any tier differ in the last bits.
                assert np.abs(values - reference).max() <= 1e-12, (kernel, mode)
                line += f", {mode} differs from dram in {(values != reference).sum()} values"
            line += (f", {mode} " + record((label, kernel, mode), done["seconds"])
                     + f" (peak RSS {done['peak_rss_bytes'] / 2**20:.1f} of "
                     f"{done['memory_budget_bytes'] / 2**20:.1f} MiB, read "
                     f"{done['bytes_read'] / 2**30:.2f} GiB, cache hits "
                     f"{done['cache_hit_ratio']:.1%})")
        seconds, theirs = peer("igraph", kernel, edges_file, sources)
        check("igraph", kernel, theirs, report, reference)
        line += ", igraph " + record((label, kernel, "igraph"), seconds)
        print(line, flush=True)


if "edge-list" in parts:
    graph, edges_file = edge_list_graph()
    nodes = with_edges(edges_file)
    sources = random.Random(1).sample(nodes, 64)
    print(f"{graph.name}: {len(nodes)} vertices with edges, {len(np.load(edges_file))} "
          f"edges, weights 1 to 4; wbc from networkx's 64 sources", flush=True)
    peers_side_by_side(graph.stem, graph, edges_file, ["wbc", "wclustering", "clustering"],
                       sources, {"wbc": ["networkx", "igraph"],
                                 "wclustering": ["networkx", "igraph"],
                                 "clustering": ["networkx"]})
if "kron-wbc" in parts or "kron-wclustering" in parts:
    graph, edges_file = kron_graph(kron_scale)
    nodes = with_edges(edges_file)
    sources = random.Random(1).sample(nodes, 16)
    print(f"{graph.name}: {2 ** kron_scale} vertices ({len(nodes)} with edges), "
          f"{len(np.load(edges_file))} edges, weights 1 to 255", flush=True)
    if far_url:
        run(swapless_bin, "far", "push", graph, far_url, "--replace")
    for kernel in ["wbc", "wclustering"]:
        if f"kron-{kernel}" in parts:
            out_of_core(graph.stem, graph, edges_file, kernel, sources)
if "nx-kron" in parts:
    graph, edges_file = kron_graph(nx_scale)
    nodes = with_edges(edges_file)
    sources = random.Random(1).sample(nodes, 16)
    print(f"{graph.name}: {2 ** nx_scale} vertices ({len(nodes)} with edges), "
          f"{len(np.load(edges_file))} edges; wbc from networkx's 16 sources", flush=True)
    peers_side_by_side(graph.stem, graph, edges_file, ["wbc", "wclustering"], sources,
                       {"wbc": ["networkx"], "wclustering": ["networkx"]})
print("medians:")
for label, kernel in dict.fromkeys((key[0], key[1]) for key in times):
    dram = statistics.median(times[label, kernel, "dram"])
    parts_ = [f"dram {dram:.3f} s"]
    for mode in ["direct", "far", "networkx", "igraph"]:
        if (label, kernel, mode) in times:
            median = statistics.median(times[label, kernel, mode])
            parts_.append(f"{mode} {median:.3f} s ({median / dram:.2f}x swapless dram)")
    print(f"  {label} {kernel}: " + ", ".join(parts_))
