"""swapless as a networkx backend: ``nx.pagerank(G, backend="swapless")``.

networkx finds it through the ``networkx.backends`` entry point. A networkx graph is
converted once (networkx caches the conversion on the graph) into a swapless graph
keyed by the graph's node labels. A function runs here only when its answer would be
networkx's: ``can_run`` declines what swapless computes differently (self-loops, which
swapless drops; multigraphs; edge weights a kernel ignores; options it lacks), and
networkx then runs it itself or, in its backend test mode, marks the test an expected
failure.
"""

from __future__ import annotations

import collections
import random
from typing import Any

import networkx as nx
import numpy as np

import swapless as _sl

__all__ = ["BackendInterface", "backend_info"]

# PageRank's scores are float32 in swapless, so a tolerance below this cannot be met.
_PAGERANK_FLOOR = 1e-7


class SwaplessGraph:
    """A networkx graph converted for swapless: the swapless graph, keyed by the
    original's node labels, and the original, for conversion back."""

    __networkx_backend__ = "swapless"

    def __init__(self, graph: Any) -> None:
        self.nx = graph
        self.sl = _sl.from_networkx(graph)

    def is_directed(self) -> bool:
        return self.nx.is_directed()

    def is_multigraph(self) -> bool:
        return False


def _graph_of(args: tuple, kwargs: dict) -> Any:
    return kwargs.get("G", args[0] if args else None)


def _argument(args: tuple, kwargs: dict, name: str, position: int, default: Any) -> Any:
    if name in kwargs:
        return kwargs[name]
    return args[position] if len(args) > position else default


def _weights_are_one(G: Any, weight: Any) -> bool:
    """Whether every edge weighs 1 under ``weight`` (None: unweighted)."""
    if weight is None:
        return True
    if callable(weight):
        return False
    return all(data.get(weight, 1) == 1 for _, _, data in G.edges(data=True))


def _plain(G: Any) -> Any:
    """Why swapless would answer differently on ``G``, or True."""
    if not isinstance(G, nx.Graph):
        return "not a networkx graph"
    if G.is_multigraph():
        return "swapless keeps one edge of each parallel set"
    if nx.number_of_selfloops(G):
        return "swapless drops self-loops"
    if G.number_of_edges() == 0:
        return "a graph without edges (a swapless graph has at least one)"
    return True


def can_run(name: str, args: tuple, kwargs: dict) -> Any:
    """True when swapless's answer to ``name`` with these arguments is networkx's;
    otherwise why not."""
    G = _graph_of(args, kwargs)
    if isinstance(G, SwaplessGraph):
        G = G.nx
    plain = _plain(G)
    if plain is not True:
        return plain
    if name == "pagerank":
        if any(_argument(args, kwargs, key, position, None) is not None
               for key, position in (("personalization", 2), ("nstart", 5), ("dangling", 7))):
            return "swapless's PageRank has no personalization, start vector or dangling weights"
        if not _weights_are_one(G, _argument(args, kwargs, "weight", 6, "weight")):
            return "swapless's PageRank ignores edge weights"
        if _argument(args, kwargs, "tol", 4, 1e-6) * G.number_of_nodes() < _PAGERANK_FLOOR:
            return "swapless's PageRank scores are float32"
        return True
    if name in ("connected_components", "number_connected_components", "is_connected"):
        return True if not G.is_directed() else "networkx refuses directed graphs here"
    if name in ("weakly_connected_components", "number_weakly_connected_components",
                "is_weakly_connected"):
        return True if G.is_directed() else "networkx refuses undirected graphs here"
    if name in ("strongly_connected_components", "number_strongly_connected_components",
                "is_strongly_connected"):
        return True if G.is_directed() else "networkx refuses undirected graphs here"
    if name == "core_number":
        return True
    if name == "betweenness_centrality":
        if _argument(args, kwargs, "k", 1, None) is not None:
            return "swapless samples its own sources, not networkx's"
        if _argument(args, kwargs, "weight", 3, None) is not None:
            return "swapless's betweenness counts hops, not weights"
        if _argument(args, kwargs, "endpoints", 4, False):
            return "swapless's betweenness leaves the endpoints out"
        return True
    if name == "maximal_independent_set":
        if G.is_directed():
            return "networkx refuses directed graphs here"
        # networkx hands an unseeded call Python's global generator.
        if _argument(args, kwargs, "seed", 2, None) not in (None, random._inst):
            return "networkx's seeded choice is its random generator's; swapless's is its own"
        return True
    if name in ("triangles", "clustering", "average_clustering", "transitivity"):
        if G.is_directed():
            return "swapless counts triangles of the undirected view, not directed ones"
        if not _weights_are_one(G, _argument(args, kwargs, "weight", 2, None)):
            return "swapless's clustering is unweighted"
        return True
    if name == "single_source_shortest_path_length":
        if _argument(args, kwargs, "cutoff", 2, None) is not None:
            return "swapless's BFS has no cutoff"
        return _argument(args, kwargs, "source", 1, None) in G or "the source is not a node"
    return f"swapless does not implement {name}"


def should_run(name: str, args: tuple, kwargs: dict) -> bool:
    """Always, once it can: the caller asked for this backend."""
    return True


def convert_from_nx(G: Any, *args: Any, **kwargs: Any) -> SwaplessGraph:
    """``G`` as a swapless graph keyed by its node labels."""
    return SwaplessGraph(G)


def convert_to_nx(obj: Any, *, name: Any = None) -> Any:
    """Results are networkx's types already; a converted graph is its original."""
    return obj.nx if isinstance(obj, SwaplessGraph) else obj


def _as_dict(values: np.ndarray, g: Any) -> dict:
    return {label: value for label, value in zip(g.ids.tolist(), values.tolist())}


def pagerank(G: SwaplessGraph, alpha: float = 0.85, personalization: Any = None,
             max_iter: int = 100, tol: float = 1.0e-6, nstart: Any = None,
             weight: Any = "weight", dangling: Any = None, *, backend: Any = None,
             **backend_kwargs: Any) -> dict:
    """networkx's ``pagerank``: networkx stops when the L1 change is below ``n * tol``."""
    g = G.sl
    import warnings

    if max_iter < 1:
        # No iteration, so never within the tolerance.
        raise nx.PowerIterationFailedConvergence(max_iter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        scores = _sl.pagerank(g, alpha=alpha, tol=tol * g.n, max_iter=max_iter)
    if not g.last_report["result"].get("converged", True):
        raise nx.PowerIterationFailedConvergence(max_iter)
    return _as_dict(scores, g)


def _components(G: SwaplessGraph) -> list:
    """The (weak) components of ``G``, each a set of nodes."""
    g = G.sl
    labels = _sl.connected_components(g)
    parts: dict = {}
    for label, node in zip(labels.tolist(), g.ids.tolist()):
        parts.setdefault(label, set()).add(node)
    return list(parts.values())


def connected_components(G: SwaplessGraph, *, backend: Any = None, **backend_kwargs: Any) -> Any:
    """networkx's ``connected_components``: a generator of sets of nodes."""
    return iter(_components(G))


def weakly_connected_components(G: SwaplessGraph, *, backend: Any = None,
                                **backend_kwargs: Any) -> Any:
    """networkx's ``weakly_connected_components`` of a directed graph (swapless's cc
    follows arcs both ways)."""
    return iter(_components(G))


def number_connected_components(G: SwaplessGraph, *, backend: Any = None,
                                **backend_kwargs: Any) -> int:
    """networkx's ``number_connected_components``."""
    return len(_components(G))


def number_weakly_connected_components(G: SwaplessGraph, *, backend: Any = None,
                                       **backend_kwargs: Any) -> int:
    """networkx's ``number_weakly_connected_components``."""
    return len(_components(G))


def is_connected(G: SwaplessGraph, *, backend: Any = None, **backend_kwargs: Any) -> bool:
    """networkx's ``is_connected``."""
    return len(_components(G)) == 1


def is_weakly_connected(G: SwaplessGraph, *, backend: Any = None,
                        **backend_kwargs: Any) -> bool:
    """networkx's ``is_weakly_connected``."""
    return len(_components(G)) == 1


def _strong_components(G: SwaplessGraph) -> list:
    """The strongly connected components of ``G``, each a set of nodes, in the order
    networkx yields them where the graph leaves no choice: a component after every
    component it reaches (networkx's own tests read the condensation's numbering so)."""
    g = G.sl
    labels = _sl.strongly_connected_components(g)
    parts: dict = {}
    of_node: dict = {}
    for label, node in zip(labels.tolist(), g.ids.tolist()):
        parts.setdefault(label, set()).add(node)
        of_node[node] = label
    # Kahn's order on the condensation's reversed edges: sinks first.
    reached_by: dict = {label: set() for label in parts}
    left: dict = {label: 0 for label in parts}
    for u, v in G.nx.edges():
        a, b = of_node[u], of_node[v]
        if a != b and a not in reached_by[b]:
            reached_by[b].add(a)
            left[a] += 1
    rank = {label: index for index, label in enumerate(parts)}
    ready = collections.deque(label for label in parts if left[label] == 0)
    ordered = []
    while ready:
        label = ready.popleft()
        ordered.append(parts[label])
        for before in sorted(reached_by[label], key=rank.__getitem__):
            left[before] -= 1
            if left[before] == 0:
                ready.append(before)
    return ordered


def strongly_connected_components(G: SwaplessGraph, *, backend: Any = None,
                                  **backend_kwargs: Any) -> Any:
    """networkx's ``strongly_connected_components``: a generator of sets of nodes."""
    return iter(_strong_components(G))


def number_strongly_connected_components(G: SwaplessGraph, *, backend: Any = None,
                                         **backend_kwargs: Any) -> int:
    """networkx's ``number_strongly_connected_components``."""
    return len(_strong_components(G))


def is_strongly_connected(G: SwaplessGraph, *, backend: Any = None,
                          **backend_kwargs: Any) -> bool:
    """networkx's ``is_strongly_connected``."""
    return len(_strong_components(G)) == 1


def core_number(G: SwaplessGraph, *, backend: Any = None, **backend_kwargs: Any) -> dict:
    """networkx's ``core_number`` (of the undirected view; in- and out-degree summed
    for a directed graph, as networkx counts)."""
    g = G.sl
    return _as_dict(_sl.core_number(g), g)


def betweenness_centrality(G: SwaplessGraph, k: Any = None, normalized: bool = True,
                           weight: Any = None, endpoints: bool = False, seed: Any = None, *,
                           backend: Any = None, **backend_kwargs: Any) -> dict:
    """networkx's ``betweenness_centrality``, exact (every node a source), scaled as
    networkx scales it: over the ordered pairs of other nodes when ``normalized``, else
    each unordered pair once on an undirected graph."""
    g = G.sl
    scores = _sl.betweenness(g, sources="all")
    # swapless divides by the largest sum of dependencies; undo that, then scale.
    sums = scores * g.last_report["result"]["largest_dependency"]
    others = g.n - 1
    if others >= 2:
        if normalized:
            sums = sums / (others * (others - 1))
        elif not G.is_directed():
            sums = sums / 2
    return _as_dict(sums, g)


def _independent(g: Any) -> list:
    """swapless's maximal independent set of ``g``, as labels."""
    members = _sl.maximal_independent_set(g)
    labels = g.ids.tolist()
    return [labels[v] for v in np.flatnonzero(members).tolist()]


def maximal_independent_set(G: SwaplessGraph, nodes: Any = None, seed: Any = None, *,
                            backend: Any = None, **backend_kwargs: Any) -> list:
    """networkx's ``maximal_independent_set``, unseeded: swapless's set, the one the
    greedy algorithm picks in its fixed pseudo-random order of the nodes. With
    ``nodes``, those nodes and swapless's set of what they leave (the graph without
    them and their neighbors)."""
    if not nodes:
        return _independent(G.sl)
    required = set(nodes)
    if not required.issubset(G.nx):
        raise nx.NetworkXUnfeasible(f"{required} is not a subset of the nodes of G")
    neighbors = set().union(*(set(G.nx.adj[v]) for v in required))
    if neighbors & required:
        raise nx.NetworkXUnfeasible(f"{required} is not an independent set of G")
    rest = G.nx.subgraph(set(G.nx) - required - neighbors)
    if rest.number_of_edges() == 0:
        return list(required) + list(rest)
    return list(required) + _independent(_sl.from_networkx(rest))


def _triangles(G: SwaplessGraph) -> dict:
    """Triangles through each node, by label."""
    g = G.sl
    return _as_dict(_sl.triangles(g), g)


def _of_nodes(values: dict, G: SwaplessGraph, nodes: Any) -> Any:
    """``values`` of every node (``nodes`` None), of the one node ``nodes`` names, or of
    the nodes it holds, as networkx's node-wise functions answer."""
    if nodes is None:
        return values
    if nodes in G.nx:
        return values[nodes]
    return {node: values[node] for node in G.nx.nbunch_iter(nodes)}


def triangles(G: SwaplessGraph, nodes: Any = None, *, backend: Any = None,
              **backend_kwargs: Any) -> Any:
    """networkx's ``triangles``: the triangles through each node (of ``nodes``)."""
    return _of_nodes(_triangles(G), G, nodes)


def _local_clustering(G: SwaplessGraph) -> dict:
    """Each node's share of the pairs of its neighbors that are linked."""
    counts = _triangles(G)
    degree = G.nx.degree
    return {node: 0 if degree[node] < 2 else 2 * count / (degree[node] * (degree[node] - 1))
            for node, count in counts.items()}


def clustering(G: SwaplessGraph, nodes: Any = None, weight: Any = None, *,
               backend: Any = None, **backend_kwargs: Any) -> Any:
    """networkx's ``clustering`` of an undirected, unweighted graph."""
    return _of_nodes(_local_clustering(G), G, nodes)


def average_clustering(G: SwaplessGraph, nodes: Any = None, weight: Any = None,
                       count_zeros: bool = True, *, backend: Any = None,
                       **backend_kwargs: Any) -> float:
    """networkx's ``average_clustering`` of an undirected, unweighted graph."""
    shares = _local_clustering(G)
    values = [shares[node] for node in (G.nx if nodes is None else G.nx.nbunch_iter(nodes))]
    if not count_zeros:
        values = [value for value in values if abs(value) > 0]
    return sum(values) / len(values)


def transitivity(G: SwaplessGraph, *, backend: Any = None, **backend_kwargs: Any) -> float:
    """networkx's ``transitivity``: three times the triangles over the connected triples."""
    counts = _triangles(G)
    triples = sum(d * (d - 1) for _, d in G.nx.degree)
    closed = 2 * sum(counts.values())
    return 0 if closed == 0 else closed / triples


def single_source_shortest_path_length(G: SwaplessGraph, source: Any, cutoff: Any = None, *,
                                       backend: Any = None, **backend_kwargs: Any) -> dict:
    """networkx's ``single_source_shortest_path_length``: hops from ``source`` to each
    node it reaches."""
    g = G.sl
    parents = _sl.bfs(g, source=source)
    depth = np.full(g.n, -1, dtype=np.int64)
    start = g.vertex(source)
    depth[start] = 0
    # Levels from the tree: each reached vertex is one hop beyond its parent.
    order = [start]
    children: dict = {}
    for v, p in enumerate(parents.tolist()):
        if p >= 0 and v != p:
            children.setdefault(p, []).append(v)
    for v in order:
        for child in children.get(v, ()):
            depth[child] = depth[v] + 1
            order.append(child)
    labels = g.ids.tolist()
    return {labels[v]: int(depth[v]) for v in order}


class BackendInterface:
    """What networkx's entry point loads."""

    can_run = staticmethod(can_run)
    should_run = staticmethod(should_run)
    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)
    pagerank = staticmethod(pagerank)
    betweenness_centrality = staticmethod(betweenness_centrality)
    triangles = staticmethod(triangles)
    clustering = staticmethod(clustering)
    average_clustering = staticmethod(average_clustering)
    transitivity = staticmethod(transitivity)
    maximal_independent_set = staticmethod(maximal_independent_set)
    connected_components = staticmethod(connected_components)
    weakly_connected_components = staticmethod(weakly_connected_components)
    number_connected_components = staticmethod(number_connected_components)
    number_weakly_connected_components = staticmethod(number_weakly_connected_components)
    is_connected = staticmethod(is_connected)
    is_weakly_connected = staticmethod(is_weakly_connected)
    strongly_connected_components = staticmethod(strongly_connected_components)
    number_strongly_connected_components = staticmethod(number_strongly_connected_components)
    is_strongly_connected = staticmethod(is_strongly_connected)
    core_number = staticmethod(core_number)
    single_source_shortest_path_length = staticmethod(single_source_shortest_path_length)


def backend_info() -> dict:
    """networkx's description of this backend."""
    return {
        "backend_name": "swapless",
        "project": "swapless",
        "package": "swapless",
        "short_summary": "Graph analytics for graphs that do not fit in memory.",
        "functions": {
            "pagerank": {"additional_docs": "Unweighted, without personalization; float32 scores."},
            "betweenness_centrality": {"additional_docs": "Exact, unweighted, without endpoints."},
            "maximal_independent_set": {"additional_docs": "Unseeded."},
            "triangles": {"additional_docs": "Undirected graphs."},
            "clustering": {"additional_docs": "Undirected, unweighted graphs."},
            "average_clustering": {"additional_docs": "Undirected, unweighted graphs."},
            "transitivity": {"additional_docs": "Undirected graphs."},
            "connected_components": {},
            "weakly_connected_components": {},
            "number_connected_components": {},
            "number_weakly_connected_components": {},
            "is_connected": {},
            "is_weakly_connected": {},
            "strongly_connected_components": {"additional_docs": "Directed graphs."},
            "number_strongly_connected_components": {"additional_docs": "Directed graphs."},
            "is_strongly_connected": {"additional_docs": "Directed graphs."},
            "core_number": {},
            "single_source_shortest_path_length": {"additional_docs": "Without cutoff."},
        },
    }
