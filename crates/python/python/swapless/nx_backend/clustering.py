"""Triangles, transitivity and clustering (directed too)."""

from __future__ import annotations

from typing import Any

import swapless as _sl

from ._graph import (SwaplessGraph, argument, as_dict, dispatched, edge_weights, file_backed,
                     float32_weights, loop_free_degree, of_nodes, self_loops, weights_are_one)


def _undirected(G: Any, args: tuple, kwargs: dict) -> Any:
    if G.is_directed():
        return "swapless counts triangles of the undirected view, not directed ones"
    return True


def _triangles(G: SwaplessGraph) -> dict:
    """Triangles through each node, by label (networkx leaves self-loops out too)."""
    g = G.sl
    return as_dict(_sl.triangles(g), g)


@dispatched(_undirected, loops_answered=True, docs="Undirected graphs.")
def triangles(G: SwaplessGraph, nodes: Any = None, *, backend: Any = None,
              **backend_kwargs: Any) -> Any:
    """networkx's ``triangles``: the triangles through each node (of ``nodes``)."""
    return of_nodes(_triangles(G), G, nodes)


def _clustering_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    weight = argument(args, kwargs, "weight", 2, None)
    if weights_are_one(G, weight):
        return True
    if callable(weight):
        return "networkx's clustering reads weights from an edge attribute"
    kept = float32_weights(G, weight)
    if kept is not True:
        return kept
    if not file_backed(G) and G.number_of_edges() and not any(edge_weights(G, weight)):
        return "every weight is 0 (networkx divides by zero)"
    return True


def _local_clustering(G: SwaplessGraph, weight: Any = None) -> dict:
    """Each node's clustering coefficient (directed: Fagiolo's, as networkx's), by label;
    by edge ``weight`` when it is not 1 everywhere."""
    if weights_are_one(G, weight):
        g = G.sl
        return as_dict(_sl.clustering(g), g)
    g = G.weighted_sl(weight)
    values = _sl.clustering(g, weighted=True)
    if g.m and g.last_report["result"]["largest_weight"] == 0:
        # networkx divides by its largest weight (a converted graph's check declined
        # weights all 0 already; a file's are known once read).
        raise ZeroDivisionError("float division by zero")
    return as_dict(values, g)


@dispatched(_clustering_declines, loops_answered=True,
            docs="Weights must be float32 numbers, not all 0.")
def clustering(G: SwaplessGraph, nodes: Any = None, weight: Any = None, *,
               backend: Any = None, **backend_kwargs: Any) -> Any:
    """networkx's ``clustering``, directed or not, by edge weight or not."""
    return of_nodes(_local_clustering(G, weight), G, nodes)


@dispatched(_clustering_declines, loops_answered=True,
            docs="Weights must be float32 numbers, not all 0.")
def average_clustering(G: SwaplessGraph, nodes: Any = None, weight: Any = None,
                       count_zeros: bool = True, *, backend: Any = None,
                       **backend_kwargs: Any) -> float:
    """networkx's ``average_clustering``, directed or not, by edge weight or not."""
    shares = _local_clustering(G, weight)
    values = [shares[node] for node in G.nbunch_iter(nodes)]
    if not count_zeros:
        values = [value for value in values if abs(value) > 0]
    return sum(values) / len(values)


def _transitivity_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    if file_backed(G) and self_loops(G):
        return ("the connected triples leave out each node's self-loop, and which nodes "
                "have one a file-backed graph does not say")
    return _undirected(G, args, kwargs)


@dispatched(_transitivity_declines, loops_answered=True, docs="Undirected graphs.")
def transitivity(G: SwaplessGraph, *, backend: Any = None, **backend_kwargs: Any) -> float:
    """networkx's ``transitivity``: three times the triangles over the connected triples."""
    counts = _triangles(G)
    if file_backed(G):
        # No self-loop (the check declined them): a degree is its neighbors. Python
        # integers, as a hub's d * (d - 1) summed over the graph may pass int64.
        degrees = G.sl.degrees("out").astype(object)
        triples = int((degrees * (degrees - 1)).sum()) if len(degrees) else 0
    else:
        triples = sum(d * (d - 1) for d in (loop_free_degree(G.nx, node) for node in G.nx))
    closed = 2 * sum(counts.values())
    return 0 if closed == 0 else closed / triples
