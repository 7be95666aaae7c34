"""Breadth-first reach and hop distances: from one source, to one target, between two
nodes."""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

import swapless as _sl

from ._graph import (NO_REVERSE, SwaplessGraph, argument, dispatched, file_backed,
                     nodes_present, weights_are_one, weights_swapless_keeps)

# Self-loops and parallel edges change no hop distance.
_HOPS = dict(loops_answered=True, parallel_answered=True)


def _depths(g: Any, source: Any) -> np.ndarray:
    """Hops from node ``source`` to each vertex of ``g`` (-1 where unreached), from
    swapless's BFS tree: each vertex's depth is its parent's plus one, summed up the
    tree by pointer jumping."""
    parents = _sl.bfs(g, source=source)
    source_vertex = g.vertex(source)
    reached = parents >= 0
    ancestor = np.where(reached, parents, source_vertex)
    depth = (reached & (np.arange(g.n) != source_vertex)).astype(np.int64)
    while True:
        further = ancestor != source_vertex
        if not further.any():
            break
        depth[further] += depth[ancestor[further]]
        ancestor[further] = ancestor[ancestor[further]]
    depth[~reached] = -1
    return depth


def _from(G: SwaplessGraph, source: Any, reverse: bool = False) -> dict:
    """Hops from ``source`` to each node it reaches (from each node reaching it, with
    ``reverse``), by label, nearest first."""
    g = G.reversed_sl if reverse and G.is_directed() else G.sl
    depth = _depths(g, source)
    reached = np.flatnonzero(depth >= 0)
    reached = reached[np.argsort(depth[reached], kind="stable")]
    labels = g.ids.tolist()
    return {labels[v]: d for v, d in zip(reached.tolist(), depth[reached].tolist())}


def _inward(*names_positions: tuple) -> Any:
    """A check that these nodes are in the graph and, on a directed file-backed graph,
    that the call searches no in-arcs (the search along them runs on the reversed
    graph, which a file-backed graph lacks)."""
    present = nodes_present(*names_positions)

    def check(G: Any, args: tuple, kwargs: dict) -> Any:
        found = present(G, args, kwargs)
        if found is True and file_backed(G) and G.is_directed():
            return NO_REVERSE
        return found

    return check


def _within(lengths: dict, cutoff: Any) -> dict:
    # networkx expands a level while its number is below the cutoff.
    if cutoff is None:
        return lengths
    return {node: d for node, d in lengths.items() if d == 0 or d - 1 < cutoff}


@dispatched(nodes_present(("source", 1)), **_HOPS)
def single_source_shortest_path_length(G: SwaplessGraph, source: Any, cutoff: Any = None, *,
                                       backend: Any = None, **backend_kwargs: Any) -> dict:
    """networkx's ``single_source_shortest_path_length``: hops from ``source`` to each
    node it reaches (within ``cutoff``)."""
    return _within(_from(G, source), cutoff)


@dispatched(_inward(("target", 1)), **_HOPS)
def single_target_shortest_path_length(G: SwaplessGraph, target: Any, cutoff: Any = None, *,
                                       backend: Any = None, **backend_kwargs: Any) -> dict:
    """networkx's ``single_target_shortest_path_length``: hops to ``target`` from each
    node that reaches it (within ``cutoff``)."""
    return _within(_from(G, target, reverse=True), cutoff)


def _hop_lengths(G: Any, args: tuple, kwargs: dict) -> Any:
    present = nodes_present(("source", 1), ("target", 2))(G, args, kwargs)
    if present is not True:
        return present
    if not weights_are_one(G, argument(args, kwargs, "weight", 3, None)):
        return "swapless counts hops, not weights"
    if argument(args, kwargs, "source", 1, None) is None \
            and argument(args, kwargs, "target", 2, None) is not None:
        return _inward()(G, args, kwargs)
    return True


@dispatched(_hop_lengths, docs="Unweighted.", **_HOPS)
def shortest_path_length(G: SwaplessGraph, source: Any = None, target: Any = None,
                         weight: Any = None, method: str = "dijkstra", *, backend: Any = None,
                         **backend_kwargs: Any) -> Any:
    """networkx's ``shortest_path_length`` in hops: from ``source`` to each node, to
    ``target`` from each node, or between the two."""
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    if source is None:
        return _all_pairs(G) if target is None else _from(G, target, reverse=True)
    lengths = _from(G, source)
    if target is None:
        return lengths
    if target not in lengths:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return lengths[target]


@dispatched(nodes_present(("source", 1), ("target", 2)), **_HOPS)
def has_path(G: SwaplessGraph, source: Any, target: Any, *, backend: Any = None,
             **backend_kwargs: Any) -> bool:
    """networkx's ``has_path``: whether ``target`` is reachable from ``source``."""
    return target in _from(G, source)


@dispatched(nodes_present(("source", 1)), **_HOPS)
def descendants(G: SwaplessGraph, source: Any, *, backend: Any = None,
                **backend_kwargs: Any) -> set:
    """networkx's ``descendants``: the nodes ``source`` reaches, itself left out."""
    return set(_from(G, source)) - {source}


@dispatched(_inward(("source", 1)), **_HOPS)
def ancestors(G: SwaplessGraph, source: Any, *, backend: Any = None,
              **backend_kwargs: Any) -> set:
    """networkx's ``ancestors``: the nodes that reach ``source``, itself left out."""
    return set(_from(G, source, reverse=True)) - {source}


@dispatched(nodes_present(("n", 1)), **_HOPS)
def node_connected_component(G: SwaplessGraph, n: Any, *, backend: Any = None,
                             **backend_kwargs: Any) -> set:
    """networkx's ``node_connected_component``: the nodes of ``n``'s component."""
    return set(_from(G, n))


@dispatched(nodes_present(("source", 1)), **_HOPS)
def descendants_at_distance(G: SwaplessGraph, source: Any, distance: int, *,
                            backend: Any = None, **backend_kwargs: Any) -> set:
    """networkx's ``descendants_at_distance``: the nodes exactly ``distance`` hops from
    ``source``."""
    return {node for node, d in _from(G, source).items() if d == distance}


def _all_pairs(G: SwaplessGraph, cutoff: Any = None) -> Any:
    """(node, hops from it to each node it reaches), one search a node, as asked."""
    for node in list(G):
        yield node, _within(_from(G, node), cutoff)


@dispatched(**_HOPS)
def all_pairs_shortest_path_length(G: SwaplessGraph, cutoff: Any = None, *,
                                   backend: Any = None, **backend_kwargs: Any) -> Any:
    """networkx's ``all_pairs_shortest_path_length``: a generator of (node, hops from it)
    that runs one search a node as it is consumed."""
    return _all_pairs(G, cutoff)


def _lengths_swapless_keeps(G: Any, args: tuple, kwargs: dict) -> Any:
    return weights_swapless_keeps(G, argument(args, kwargs, "weight", 1, None))


@dispatched(_lengths_swapless_keeps, docs="Weights float32 can hold, none negative.", **_HOPS)
def average_shortest_path_length(G: SwaplessGraph, weight: Any = None, method: Any = None, *,
                                 backend: Any = None, **backend_kwargs: Any) -> float:
    """networkx's ``average_shortest_path_length``: the mean distance over ordered pairs
    of distinct nodes, in hops (``weight`` None or ``method="unweighted"``) or by
    ``weight``, refused (as networkx refuses it) unless every pair is connected."""
    methods = ("unweighted", "dijkstra", "bellman-ford", "floyd-warshall", "floyd-warshall-numpy")
    if method is not None and method not in methods:
        raise ValueError(f"method not supported: {method}")
    n = len(G)
    if n == 0:
        raise nx.NetworkXPointlessConcept(
            "the null graph has no paths, thus there is no average shortest path length")
    if n == 1:
        return 0
    if G.is_directed():
        if len(set(_sl.strongly_connected_components(G.sl).tolist())) > 1:
            raise nx.NetworkXError("Graph is not strongly connected.")
    elif len(set(_sl.connected_components(G.sl).tolist())) > 1:
        raise nx.NetworkXError("Graph is not connected.")
    weighted = weight is not None and method != "unweighted"
    g = G.weighted_sl(weight) if weighted else G.sl
    sums = _sl.closeness(g, measure="distance-sum", weighted=weighted)
    return float(sums.sum()) / (n * (n - 1))
