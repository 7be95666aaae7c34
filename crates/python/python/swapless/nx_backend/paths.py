"""Breadth-first reach and hop distances: from one source, to one target, between two
nodes."""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

import swapless as _sl

from ._graph import SwaplessGraph, argument, dispatched, weights_are_one

# Self-loops and parallel edges change no hop distance.
_HOPS = dict(loops_ignored=True, parallel_ignored=True)


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


def _within(lengths: dict, cutoff: Any) -> dict:
    # networkx expands a level while its number is below the cutoff.
    if cutoff is None:
        return lengths
    return {node: d for node, d in lengths.items() if d == 0 or d - 1 < cutoff}


def _nodes_present(*names_positions: tuple) -> Any:
    """A check that the nodes named by these (name, position) arguments are in the
    graph: networkx itself raises for one that is not."""

    def check(G: Any, args: tuple, kwargs: dict) -> Any:
        for name, position in names_positions:
            node = argument(args, kwargs, name, position, None)
            if node is not None and node not in G:
                return f"the {name} is not a node"
        return True

    return check


@dispatched(_nodes_present(("source", 1)), **_HOPS)
def single_source_shortest_path_length(G: SwaplessGraph, source: Any, cutoff: Any = None, *,
                                       backend: Any = None, **backend_kwargs: Any) -> dict:
    """networkx's ``single_source_shortest_path_length``: hops from ``source`` to each
    node it reaches (within ``cutoff``)."""
    return _within(_from(G, source), cutoff)


@dispatched(_nodes_present(("target", 1)), **_HOPS)
def single_target_shortest_path_length(G: SwaplessGraph, target: Any, cutoff: Any = None, *,
                                       backend: Any = None, **backend_kwargs: Any) -> dict:
    """networkx's ``single_target_shortest_path_length``: hops to ``target`` from each
    node that reaches it (within ``cutoff``)."""
    return _within(_from(G, target, reverse=True), cutoff)


def _hop_lengths(G: Any, args: tuple, kwargs: dict) -> Any:
    present = _nodes_present(("source", 1), ("target", 2))(G, args, kwargs)
    if present is not True:
        return present
    if argument(args, kwargs, "source", 1, None) is None and \
            argument(args, kwargs, "target", 2, None) is None:
        return "swapless answers from one source or to one target, not between all pairs"
    if not weights_are_one(G, argument(args, kwargs, "weight", 3, None)):
        return "swapless counts hops, not weights"
    return True


@dispatched(_hop_lengths, docs="From one source or to one target, unweighted.", **_HOPS)
def shortest_path_length(G: SwaplessGraph, source: Any = None, target: Any = None,
                         weight: Any = None, method: str = "dijkstra", *, backend: Any = None,
                         **backend_kwargs: Any) -> Any:
    """networkx's ``shortest_path_length`` in hops: from ``source`` to each node, to
    ``target`` from each node, or between the two."""
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    if source is None:
        return _from(G, target, reverse=True)
    lengths = _from(G, source)
    if target is None:
        return lengths
    if target not in lengths:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return lengths[target]


@dispatched(_nodes_present(("source", 1), ("target", 2)), **_HOPS)
def has_path(G: SwaplessGraph, source: Any, target: Any, *, backend: Any = None,
             **backend_kwargs: Any) -> bool:
    """networkx's ``has_path``: whether ``target`` is reachable from ``source``."""
    return target in _from(G, source)


@dispatched(_nodes_present(("source", 1)), **_HOPS)
def descendants(G: SwaplessGraph, source: Any, *, backend: Any = None,
                **backend_kwargs: Any) -> set:
    """networkx's ``descendants``: the nodes ``source`` reaches, itself left out."""
    return set(_from(G, source)) - {source}


@dispatched(_nodes_present(("source", 1)), **_HOPS)
def ancestors(G: SwaplessGraph, source: Any, *, backend: Any = None,
              **backend_kwargs: Any) -> set:
    """networkx's ``ancestors``: the nodes that reach ``source``, itself left out."""
    return set(_from(G, source, reverse=True)) - {source}


@dispatched(_nodes_present(("n", 1)), **_HOPS)
def node_connected_component(G: SwaplessGraph, n: Any, *, backend: Any = None,
                             **backend_kwargs: Any) -> set:
    """networkx's ``node_connected_component``: the nodes of ``n``'s component."""
    return set(_from(G, n))
