"""What a node's degree says: degree centrality, the average degree of its neighbors,
and isolated nodes."""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

import swapless as _sl

from ._graph import (SwaplessGraph, argument, as_dict, dispatched, file_backed,
                     integer_weights, nodes_present, self_loops, weights_are_one,
                     weights_swapless_keeps)


def _degrees(G: SwaplessGraph) -> np.ndarray:
    """Each vertex's degree as networkx counts it (in and out summed when directed)."""
    g = G.sl
    if G.is_directed():
        return g.degrees("out") + g.degrees("in")
    return g.degrees("out")


def _self_looped(G: SwaplessGraph) -> np.ndarray:
    """The vertices with a self-loop (networkx counts one twice in an undirected degree,
    where swapless's list holds it once): none of a file-backed graph, whose checks
    declined it if it has any."""
    if file_backed(G):
        return np.array([], dtype=np.int64)
    vertex = G.sl.vertex
    return np.array([vertex(node) for node in nx.nodes_with_selfloops(G.nx)], dtype=np.int64)


def _degree_centrality(G: SwaplessGraph, directions: tuple) -> dict:
    g = G.sl
    if g.n <= 1:
        return {node: 1 for node in G}
    degrees = sum(g.degrees(direction).astype(np.float64) for direction in directions)
    if not G.is_directed():
        degrees[_self_looped(G)] += 1
    return as_dict(degrees / (g.n - 1), g)


def _loops_located(G: Any, args: tuple, kwargs: dict) -> Any:
    # networkx counts an undirected self-loop twice, swapless's list holds it once: the
    # answer adds one for each node with one, which a file-backed graph does not list.
    if file_backed(G) and not G.is_directed() and self_loops(G):
        return "which nodes have a self-loop (counted twice) a file-backed graph does not say"
    return True


@dispatched(_loops_located, loops_answered=True)
def degree_centrality(G: SwaplessGraph, *, backend: Any = None, **backend_kwargs: Any) -> dict:
    """networkx's ``degree_centrality``: each node's degree (in and out summed on a
    directed graph) over the other nodes."""
    return _degree_centrality(G, ("out", "in") if G.is_directed() else ("out",))


@dispatched(loops_answered=True, docs="Directed graphs.")
def in_degree_centrality(G: SwaplessGraph, *, backend: Any = None,
                         **backend_kwargs: Any) -> dict:
    """networkx's ``in_degree_centrality``."""
    return _degree_centrality(G, ("in",))


@dispatched(loops_answered=True, docs="Directed graphs.")
def out_degree_centrality(G: SwaplessGraph, *, backend: Any = None,
                          **backend_kwargs: Any) -> dict:
    """networkx's ``out_degree_centrality``."""
    return _degree_centrality(G, ("out",))


def _isolated(G: SwaplessGraph) -> list:
    """The nodes without neighbors, in ``G``'s order."""
    labels = G.sl.ids.tolist()
    return [labels[v] for v in np.flatnonzero(_degrees(G) == 0).tolist()]


# A self-loop makes a node no isolate, in networkx as in swapless's lists; parallel
# edges change nothing.
@dispatched(loops_answered=True, parallel_answered=True)
def isolates(G: SwaplessGraph, *, backend: Any = None, **backend_kwargs: Any) -> Any:
    """networkx's ``isolates``: a generator of the nodes without neighbors."""
    return iter(_isolated(G))


@dispatched(loops_answered=True, parallel_answered=True)
def number_of_isolates(G: SwaplessGraph, *, backend: Any = None,
                       **backend_kwargs: Any) -> int:
    """networkx's ``number_of_isolates``."""
    return int((_degrees(G) == 0).sum())


@dispatched(nodes_present(("n", 1)), loops_answered=True, parallel_answered=True)
def is_isolate(G: SwaplessGraph, n: Any, *, backend: Any = None,
               **backend_kwargs: Any) -> bool:
    """networkx's ``is_isolate``: whether ``n`` has no neighbors."""
    return bool(_degrees(G)[G.sl.vertex(n)] == 0)


_SIDES = ("out", "in", "in+out")


def _neighbor_degree_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    source = argument(args, kwargs, "source", 1, "out")
    target = argument(args, kwargs, "target", 2, "out")
    if G.is_directed() and not (source in _SIDES and target in _SIDES):
        return "source and target must each be 'in', 'out' or 'in+out' (networkx raises)"
    if not G.is_directed() and (source, target) != ("out", "out"):
        return "an undirected graph takes no source or target (networkx raises)"
    if not G.is_directed() and self_loops(G):
        return "networkx counts a self-loop twice in an undirected degree, swapless once"
    nodes = argument(args, kwargs, "nodes", 3, None)
    if nodes is not None and nodes in G:
        return "networkx takes a container of nodes, not one node"
    weight = argument(args, kwargs, "weight", 4, None)
    if callable(weight):
        return "swapless reads weights from an edge attribute, not a function"
    if not weights_are_one(G, weight):
        kept = weights_swapless_keeps(G, weight)
        if kept is not True:
            return kept
        if not integer_weights(G, weight):
            return "sums of weights that are not whole may round otherwise than networkx's"
    return True


@dispatched(_neighbor_degree_declines, loops_answered=True,
            docs="Weighted where the weights are integers; self-loops on directed graphs.")
def average_neighbor_degree(G: SwaplessGraph, source: str = "out", target: str = "out",
                            nodes: Any = None, weight: Any = None, *, backend: Any = None,
                            **backend_kwargs: Any) -> dict:
    """networkx's ``average_neighbor_degree``, exactly: sums of whole degrees (times
    whole weights)."""
    weighted = not weights_are_one(G, weight)
    g = G.weighted_sl(weight) if weighted else G.sl
    values = as_dict(_sl.average_neighbor_degree(g, source=source, target=target,
                                                 weighted=weighted), g)
    if nodes is None:
        return values
    return {node: values[node] for node in G.nbunch_iter(nodes)}
