"""Eigenvector centrality, Katz centrality, HITS, average neighbor degree, label
propagation, personalized PageRank in float64 (pr64), local clustering and Louvain: swapless in memory and out of core against networkx and igraph on the same
undirected graph, each run in a fresh process, seconds of the call alone (loading and
conversion excluded). With FAR_URL=redis://HOST:PORT/NAME in the environment, the graph
is pushed there too and each kernel also runs from it at the same budget as direct.

    python3 bench/nx_kernel_figures.py SWAPLESS_BIN EDGE_LIST FOLDER [ROUNDS] [PEERS] [KERNELS]

Builds EDGE_LIST (a text edge list, .gz allowed) undirected into FOLDER, then per round
and kernel: swapless dram, direct at 25% of its dram footprint (or the least budget where
that is more), and the PEERS named (comma-separated: networkx, igraph; default both;
igraph has no Katz, and its label propagation is another, randomized, algorithm). KERNELS
(comma-separated) picks among eigenvector, katz, hits-hubs, hits-authorities,
neighbor-degree, lpa, pr64, clustering and louvain (default all); pr64 jumps to every 50th vertex, weighted 1 to
3, and stops at a tolerance of 1e-10 a vertex (networkx's default, 1e-6, stops a graph of a
million vertices after two iterations: the L1 change of a probability vector is below n * 1e-6
almost at once). eigenvector runs to networkx's default tolerance with up to 1,000
iterations; katz with alpha 0.5 over the largest degree (below one over the largest
eigenvalue, so it converges); hits to 1e-8 (networkx's ARPACK, igraph's ARPACK, swapless's
power iteration). Every answer must agree with swapless's: networkx's eigenvector and Katz
to 1e-12, HITS to 1e-6 of the largest score, average neighbor degree exactly (igraph's
`knn` too), label propagation's communities exactly, Louvain's modularity within 0.05 of
each peer's (networkx's and igraph's visit the nodes at random, so their partitions are
others; each partition's modularity is igraph's), igraph's after scaling to the same norm
(igraph's eigenvector is the eigenvector itself: within ten times networkx's stopping
change, n * 1e-6 in L1; so is igraph's PageRank, which PRPACK solves directly).
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
peers = (sys.argv[5] if len(sys.argv) > 5 else "networkx,igraph").split(",")
chosen = sys.argv[6].split(",") if len(sys.argv) > 6 else None
folder.mkdir(parents=True, exist_ok=True)
stem = edge_list.name.split(".")[0]
graph = folder / (stem + ".sl")
pairs_file = folder / (stem + ".pairs.npy")
if not pairs_file.exists():
    text = subprocess.run(["zcat" if edge_list.suffix == ".gz" else "cat", edge_list],
                          capture_output=True, text=True, check=True).stdout
    pairs = np.array([line.split()[:2] for line in text.splitlines()
                      if line and line[0] not in "#%"], dtype=np.int64)
    pairs = np.unique(np.sort(pairs[pairs[:, 0] != pairs[:, 1]], axis=1), axis=0)
    np.save(pairs_file, pairs)
pairs = np.load(pairs_file)
vertices = int(pairs.max()) + 1
if not graph.exists():
    text_file = folder / (stem + ".el")
    np.savetxt(text_file, pairs, fmt="%d")
    subprocess.run([swapless_bin, "build", text_file, "-o", graph, "--undirected", "--ids",
                    "dense"], check=True, capture_output=True)
largest_degree = int(np.bincount(pairs.ravel(), minlength=vertices).max())
personalization_file = folder / (stem + ".personalization.txt")
personalization_file.write_text("".join(f"{v} {1 + v % 3}\n" for v in range(0, vertices, 50)))
alpha = 0.5 / largest_degree
KERNELS = {
    "eigenvector": ["--max-iters", "1000"],
    "katz": ["--attenuation", repr(alpha)],
    "hits-hubs": ["--scores", "hubs", "--tolerance", "1e-8", "--max-iters", "10000"],
    "hits-authorities": ["--scores", "authorities", "--tolerance", "1e-8", "--max-iters",
                         "10000"],
    "neighbor-degree": [],
    "lpa": [],
    "pr64": ["--personalization", f"@{personalization_file}", "--vertex-tolerance", "1e-10",
             "--max-iters", "1000"],
    "clustering": [],
    "louvain": [],
}
KERNELS = {name: flags for name, flags in KERNELS.items() if chosen is None or name in chosen}
# The peers that compute the same answer.
SAME = {"katz": ["networkx"], "lpa": ["networkx"]}


def swapless(kernel, *options, origin=None):
    report, out = folder / "report.json", folder / f"{kernel}.npy"
    name = kernel.removesuffix("-hubs").removesuffix("-authorities")
    command = [swapless_bin, "run", name, origin or graph, *KERNELS[kernel], "--json", report,
               "--out", out, *options]
    done = subprocess.run(command, capture_output=True, text=True)
    least = re.search(r"at least ([0-9.]+) MiB", done.stderr)
    if done.returncode != 0 and least and "--memory" in options:
        # `plan` counts no parameters; the run counts pr64's weights too.
        budget = f"{int(float(least.group(1)) * 1024) + 1}K"
        done = subprocess.run([*command[:-1], budget], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))}: {done.stderr}")
    return json.loads(report.read_text()), np.load(out)


PEER = """
import sys, time, numpy as np
pairs = np.load(sys.argv[1]); n = int(sys.argv[2]); kernel = sys.argv[3]; alpha = float(sys.argv[5])
if sys.argv[6] == "networkx":
    import networkx as nx
    G = nx.Graph(); G.add_nodes_from(range(n)); G.add_edges_from(pairs.tolist())
    start = time.perf_counter()
    if kernel == "eigenvector":
        values = nx.eigenvector_centrality(G, max_iter=1000)
    elif kernel == "katz":
        values = nx.katz_centrality(G, alpha=alpha)
    elif kernel == "neighbor-degree":
        values = nx.average_neighbor_degree(G)
    elif kernel == "clustering":
        values = nx.clustering(G)
    elif kernel == "pr64":
        values = nx.pagerank(G, personalization={v: 1 + v % 3 for v in range(0, n, 50)},
                             tol=1e-10, max_iter=1000)
    elif kernel == "lpa":
        values = {}
        for label, community in enumerate(nx.community.label_propagation_communities(G)):
            values.update((node, min(community)) for node in community)
    elif kernel == "louvain":
        values = {}
        for community in nx.community.louvain_communities(G, seed=1):
            values.update((node, min(community)) for node in community)
    else:
        hubs, authorities = nx.hits(G, tol=1e-8)
        values = hubs if kernel == "hits-hubs" else authorities
    seconds = time.perf_counter() - start
    values = np.array([values[v] for v in range(n)])
else:
    import igraph as ig
    G = ig.Graph(n=n, edges=pairs.tolist())
    start = time.perf_counter()
    if kernel == "eigenvector":
        values = np.array(G.eigenvector_centrality(scale=False))
    elif kernel == "neighbor-degree":
        values = np.nan_to_num(np.array(G.knn()[0]))
    elif kernel == "clustering":
        values = np.array(G.transitivity_local_undirected(mode="zero"))
    elif kernel == "pr64":
        reset = np.zeros(n)
        reset[::50] = 1 + np.arange(0, n, 50) % 3
        values = np.array(G.personalized_pagerank(damping=0.85, reset=reset.tolist()))
    elif kernel == "louvain":
        values = np.array(G.community_multilevel().membership)
    elif kernel == "hits-hubs":
        values = np.array(G.hub_score(scale=False))
    else:
        values = np.array(G.authority_score(scale=False))
    seconds = time.perf_counter() - start
print(seconds)
np.save(sys.argv[4], values)
"""


def peer(name, kernel):
    out = folder / f"{name}-{kernel}.npy"
    seconds = subprocess.run([sys.executable, "-c", PEER, pairs_file, str(vertices), kernel,
                              out, repr(alpha), name], capture_output=True, text=True,
                             check=True).stdout.split()[-1]
    return float(seconds), np.load(out)


MODULARITY = {}


def modularity(labels):
    """igraph's modularity of the partition ``labels`` of the graph."""
    import igraph as ig

    if "graph" not in MODULARITY:
        MODULARITY["graph"] = ig.Graph(n=vertices, edges=pairs.tolist())
    return MODULARITY["graph"].modularity(np.unique(labels, return_inverse=True)[1].tolist())


def agrees(name, kernel, values, reference):
    """Whether a peer's values are swapless's, each scaled as swapless scales them."""
    if kernel == "louvain":
        theirs, ours = modularity(values), modularity(reference)
        print(f"  louvain modularity: swapless {ours:.4f}, {name} {theirs:.4f}")
        return abs(theirs - ours) <= 0.05
    if kernel == "neighbor-degree":
        return np.array_equal(values, reference)
    if kernel == "clustering":
        return np.abs(values - reference).max() <= (0 if name == "networkx" else 1e-12)
    if kernel == "lpa":
        # The same partition: each community's label here is its least member.
        least = {}
        for v, label in enumerate(reference.tolist()):
            least.setdefault(label, v)
        return np.array_equal(values, np.array([least[label] for label in reference.tolist()]))
    if kernel == "pr64":
        # networkx's iteration is swapless's; igraph's PRPACK solves the system directly.
        if name == "networkx":
            return np.abs(values - reference).max() <= 1e-12 * reference.max()
        return np.abs(values - reference).sum() <= 10 * len(reference) * 1e-10
    if kernel == "eigenvector" or kernel == "katz":
        scaled = values / np.linalg.norm(values)
    else:
        scaled = np.abs(values) / np.abs(values).sum()
    if name == "igraph" and kernel == "eigenvector":
        # igraph's is the eigenvector itself; networkx's rule (and so swapless's) stops once
        # an iteration moves the vector less than n * 1e-6 (L1), within a few times that.
        return np.abs(scaled - reference).sum() <= 10 * len(reference) * 1e-6
    bound = 1e-12 if name == "networkx" and not kernel.startswith("hits") else 1e-6
    return np.abs(scaled - reference).max() <= bound * np.abs(reference).max()


def quarter_budget(kernel):
    """A quarter of `kernel`'s dram footprint, or its least budget where that is more."""
    footprint = swapless(kernel, "--tier", "dram")[0]["footprint_bytes"]
    name = kernel.removesuffix("-hubs").removesuffix("-authorities")
    refused = subprocess.run([swapless_bin, "plan", graph, name, "--tier", "direct",
                              "--memory", "1M"], capture_output=True, text=True).stderr
    least = re.search(r"at least ([0-9.]+) MiB", refused)
    least_kib = int(float(least.group(1)) * 1024) + 1 if least else 0
    print(f"{kernel}: dram footprint {footprint / 2**20:.1f} MiB; direct runs at "
          f"{max(footprint // 4 // 1024, least_kib) / 1024:.1f} MiB "
          f"({max(footprint // 4 // 1024, least_kib) * 1024 / footprint:.0%})")
    return f"{max(footprint // 4 // 1024, least_kib)}K"


print(f"{graph.name}: {vertices} vertices, {len(pairs)} edges; katz alpha {alpha:.3g}")
budgets = {kernel: quarter_budget(kernel) for kernel in KERNELS}
far_url = os.environ.get("FAR_URL")
if far_url:
    subprocess.run([swapless_bin, "far", "push", graph, far_url, "--replace"], check=True,
                   capture_output=True)
times: dict = {}
for round_ in range(1, rounds + 1):
    for kernel in KERNELS:
        report, reference = swapless(kernel, "--tier", "dram")
        assert report["result"].get("converged", True), (kernel, report["result"])
        times.setdefault((kernel, "dram"), []).append(report["seconds"])
        report, values = swapless(kernel, "--tier", "direct", "--memory", budgets[kernel])
        assert np.array_equal(values, reference), kernel
        times.setdefault((kernel, "direct"), []).append(report["seconds"])
        if far_url:
            budget = budgets[kernel]
            refused = subprocess.run([swapless_bin, "plan", far_url,
                                      kernel.removesuffix("-hubs").removesuffix("-authorities"),
                                      "--memory", budget], capture_output=True, text=True).stderr
            least = re.search(r"at least ([0-9.]+) MiB", refused)
            if least:
                # Far memory's least budget is a little above direct's (its connections).
                budget = f"{int(float(least.group(1)) * 1024) + 1}K"
            far, values = swapless(kernel, "--memory", budget, origin=far_url)
            assert np.array_equal(values, reference), kernel
            times.setdefault((kernel, "far"), []).append(far["seconds"])
        steps = report["result"].get("iterations", report["result"].get("rounds", 1))
        line = (f"round {round_} {kernel}: {steps} iterations or rounds; dram "
                f"{times[kernel, 'dram'][-1]:.3f} s, direct {report['seconds']:.3f} s")
        for name in peers:
            if name not in SAME.get(kernel, peers):
                continue
            seconds, values = peer(name, kernel)
            assert agrees(name, kernel, values, reference), (name, kernel)
            times.setdefault((kernel, name), []).append(seconds)
            line += f", {name} {seconds:.3f} s"
        print(line, flush=True)
print("medians:")
for kernel in KERNELS:
    dram = statistics.median(times[kernel, "dram"])
    parts = [f"dram {dram:.3f} s"]
    for mode in ["direct", "far", *peers]:
        if (kernel, mode) in times:
            median = statistics.median(times[kernel, mode])
            parts.append(f"{mode} {median:.3f} s ({median / dram:.2f}x dram)")
    print(f"  {kernel}: " + ", ".join(parts))
