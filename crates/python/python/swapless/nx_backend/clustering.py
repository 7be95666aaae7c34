"""Triangles, transitivity and clustering (directed too)."""

from __future__ import annotations

from typing import Any

import swapless as _sl

from ._graph import (SwaplessGraph, argument, as_dict, dispatched, file_backed,
                     loop_free_degree, of_nodes, self_loops, weights_are_one)


def _undirected_unweighted(G: Any, args: tuple, kwargs: dict) -> Any:
    if G.is_directed():
        return "swapless counts triangles of the undirected view, not directed ones"
    if not weights_are_one(G, argument(args, kwargs, "weight", 2, None)):
        return "swapless's clustering is unweighted"
    return True


def _triangles(G: SwaplessGraph) -> dict:
    """Triangles through each node, by label (networkx leaves self-loops out too)."""
    g = G.sl
    return as_dict(_sl.triangles(g), g)


@dispatched(_undirected_unweighted, loops_answered=True, docs="Undirected graphs.")
def triangles(G: SwaplessGraph, nodes: Any = None, *, backend: Any = None,
              **backend_kwargs: Any) -> Any:
    """networkx's ``triangles``: the triangles through each node (of ``nodes``)."""
    return of_nodes(_triangles(G), G, nodes)


def _unweighted(G: Any, args: tuple, kwargs: dict) -> Any:
    if not weights_are_one(G, argument(args, kwargs, "weight", 2, None)):
        return "swapless's clustering is unweighted"
    return True


def _local_clustering(G: SwaplessGraph) -> dict:
    """Each node's clustering coefficient (directed: Fagiolo's, as networkx's), by label."""
    g = G.sl
    return as_dict(_sl.clustering(g), g)


@dispatched(_unweighted, loops_answered=True, docs="Unweighted graphs.")
def clustering(G: SwaplessGraph, nodes: Any = None, weight: Any = None, *,
               backend: Any = None, **backend_kwargs: Any) -> Any:
    """networkx's ``clustering`` of an unweighted graph, directed or not."""
    return of_nodes(_local_clustering(G), G, nodes)


@dispatched(_unweighted, loops_answered=True, docs="Unweighted graphs.")
def average_clustering(G: SwaplessGraph, nodes: Any = None, weight: Any = None,
                       count_zeros: bool = True, *, backend: Any = None,
                       **backend_kwargs: Any) -> float:
    """networkx's ``average_clustering`` of an unweighted graph, directed or not."""
    shares = _local_clustering(G)
    values = [shares[node] for node in G.nbunch_iter(nodes)]
    if not count_zeros:
        values = [value for value in values if abs(value) > 0]
    return sum(values) / len(values)


def _transitivity_declines(G: Any, args: tuple, kwargs: dict) -> Any:
    if file_backed(G) and self_loops(G):
        return ("the connected triples leave out each node's self-loop, and which nodes "
                "have one a file-backed graph does not say")
    return _undirected_unweighted(G, args, kwargs)


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
